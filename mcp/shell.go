package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/shell"
)

// shellTool is the `shell` tool: canopy's shell (docs/shell.md) in the MCP
// session's own session. It is listed at every tier: each command that
// acts goes through the executor, which refuses what the tier forbids.
func shellTool() *sdk.Tool {
	return &sdk.Tool{
		Name:        "shell",
		Description: "Tree as files: ls cd cat grep find text, actions on paths, pipes, loops",
		InputSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"command": {Type: "string"},
			},
			Required: []string{"command"},
		},
		Annotations: &sdk.ToolAnnotations{},
	}
}

// shellArgs are the tool's arguments.
type shellArgs struct {
	Command string `json:"command"`
}

// shellHandler runs a shell call on the caller's session, with the shell
// kept between calls (its working folder and scripts).
func (s *Server) shellHandler(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args shellArgs
	if req.Params != nil && len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return failure("", fmt.Errorf("shell arguments: %w", err)), nil
		}
	}
	if strings.TrimSpace(args.Command) == "" {
		return failure("", fmt.Errorf("shell needs a command, e.g. ls")), nil
	}
	if c := confirmer(req.Session); c != nil {
		ctx = session.WithConfirmer(ctx, c)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opt.CallTimeout)
	defer cancel()
	k, err := s.clients.of(req.Session)
	if err != nil {
		return failure("", err), nil
	}
	sess, note, err := k.session(ctx)
	if err != nil {
		return failure("", err), nil
	}
	if note != "" {
		note += "\n"
	}
	var out strings.Builder
	start := time.Now()
	err = k.shell(sess).Run(ctx, args.Command, &out)
	s.log.Debug("shell call", "ms", time.Since(start).Milliseconds(), "err", err)
	text := note + out.String()
	if err != nil {
		return failure(text, k.failed(err)), nil
	}
	if text == "" {
		text = "(no output)\n"
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
}

// shell returns the backend's shell over sess, a new one when the session
// is new (the browser was relaunched: the old folder names nothing).
func (k *backend) shell(sess *session.Session) *shell.Shell {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.sh == nil || k.shOn != sess {
		k.sh, k.shOn = shell.New(sess, shell.Options{}), sess
	}
	return k.sh
}
