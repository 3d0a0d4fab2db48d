package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine caps one JSON-RPC message on stdio.
const maxLine = 16 << 20

// lineTransport is MCP's stdio transport: one JSON-RPC message per line.
//
// It exists because the SDK's own stdio transport ends the connection —
// and so the server — on the first line that is not a valid JSON-RPC
// message. Here such a line gets a JSON-RPC error response (parse error or
// invalid request) and the server reads on.
type lineTransport struct {
	in  io.Reader
	out io.Writer
	log *slog.Logger
}

// Connect starts reading lines.
func (t *lineTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c := &lineConn{out: t.out, log: t.log, lines: make(chan []byte), closed: make(chan struct{}), settled: make(chan struct{}, 1)}
	go c.readLines(t.in)
	return c, nil
}

type lineConn struct {
	out   io.Writer
	log   *slog.Logger
	lines chan []byte // complete lines; closed at EOF
	rerr  error       // the read error that ended lines, if not EOF

	writeMu   sync.Mutex
	closeOnce sync.Once
	closed    chan struct{}

	// pending counts requests read and not yet answered: at end of input
	// Read waits for them, so `printf … | canopy mcp` gets every reply.
	pendMu  sync.Mutex
	pending int
	settled chan struct{} // signalled when pending drops
}

// readLines feeds lines to Read until EOF, an error, or Close.
func (c *lineConn) readLines(in io.Reader) {
	defer close(c.lines)
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		if tooLong {
			c.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", maxLine))
		} else if len(bytes.TrimSpace(line)) > 0 {
			select {
			case c.lines <- line:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.rerr = err
			}
			return
		}
	}
}

// readLine reads one line, dropping the rest of one longer than maxLine.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxLine {
			tooLong = true
		} else {
			line = append(line, chunk...)
		}
		if err != bufio.ErrBufferFull {
			if tooLong {
				line = nil
			}
			return line, tooLong, err
		}
	}
}

// Read returns the next valid message, answering invalid ones itself.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case line, ok := <-c.lines:
			if !ok {
				if c.rerr != nil {
					return nil, c.rerr
				}
				c.drain(ctx)
				return nil, io.EOF
			}
			msg, err := jsonrpc.DecodeMessage(line)
			if err == nil {
				if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
					c.pendMu.Lock()
					c.pending++
					c.pendMu.Unlock()
				}
				return msg, nil
			}
			c.invalid(line, err)
		}
	}
}

// drain waits, at end of input, until every request read has been
// answered (or the connection closes, or ctx ends).
func (c *lineConn) drain(ctx context.Context) {
	for {
		c.pendMu.Lock()
		n := c.pending
		c.pendMu.Unlock()
		if n <= 0 {
			return
		}
		select {
		case <-c.settled:
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		}
	}
}

// invalid answers a line that is not a JSON-RPC message.
func (c *lineConn) invalid(line []byte, err error) {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	trimmed := bytes.TrimSpace(line)
	switch {
	case !json.Valid(trimmed):
		c.log.Warn("stdio: not JSON", "err", err)
		c.reply(nil, jsonrpc.CodeParseError, "parse error: the line is not valid JSON")
	case len(trimmed) > 0 && trimmed[0] == '[':
		c.reply(nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported; send one message per line")
	default:
		_ = json.Unmarshal(trimmed, &probe)
		c.log.Warn("stdio: invalid JSON-RPC message", "err", err)
		c.reply(probe.ID, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
}

// reply writes an error response for id (null when unknown).
func (c *lineConn) reply(id json.RawMessage, code int, msg string) {
	if len(id) == 0 || !json.Valid(id) {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: msg}})
	c.writeLine(data)
}

// Write sends one message as one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeLine(data)
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.pendMu.Lock()
		c.pending--
		c.pendMu.Unlock()
		select {
		case c.settled <- struct{}{}:
		default:
		}
	}
	return err
}

func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return io.ErrClosedPipe
	default:
	}
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close stops reading; a Read in progress returns.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID is empty: stdio has one session.
func (c *lineConn) SessionID() string { return "" }
