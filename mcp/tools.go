package mcp

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/canopy-dev/canopy/action"
)

// toolDef is one MCP tool: an action kind's entry in the table (package
// action), which gives its name, description, hints and arguments, and how
// its arguments become an action.
type toolDef struct {
	name   string
	spec   action.Spec
	decode func(raw []byte) (action.Action, error)
	schema func() (*jsonschema.Schema, error)
}

// tools is canopy's MCP tool surface (docs/tools.md), in the table's order; with
// the desktop also open_app and activate. All are served; tools/list
// offers those the tier allows (offered).
func tools(desktop bool, tier action.Tier) []toolDef {
	return append(allTools(desktop), batchDef(desktop, tier))
}

// allTools is every tool but batch.
func allTools(desktop bool) []toolDef {
	var ts []toolDef
	for _, s := range action.Specs() {
		if !s.Tool || s.Kind == action.Batch || s.Desktop && !desktop {
			continue
		}
		ts = append(ts, def(s))
	}
	return ts
}

// def makes the tool of a kind: its schema and strict decoder come from
// the kind's arguments.
func def(s action.Spec) toolDef {
	name := string(s.Kind)
	return toolDef{
		name:   name,
		spec:   s,
		schema: func() (*jsonschema.Schema, error) { return schemaOf(s.Args), nil },
		decode: func(raw []byte) (action.Action, error) {
			a := action.Action{Kind: s.Kind}
			err := decodeArgs(name, raw, s.Args, &a)
			return a, err
		},
	}
}

// offered reports whether tools/list shows a tool at tier: not when no
// call of it could be allowed (evaluate below sensitive, the acting tools
// at observe), so an agent is not offered what it cannot use. A call to
// it still gets the policy's one-line refusal, which says how to allow it.
func offered(name string, tier action.Tier) bool {
	return action.LeastTier(action.Kind(name)) <= tier
}
