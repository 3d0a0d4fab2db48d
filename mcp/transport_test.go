package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdioMalformed: lines that are not JSON-RPC messages get JSON-RPC
// errors, and the server goes on to answer the valid ones.
func TestStdioMalformed(t *testing.T) {
	s := newServer(t, Options{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, outW); outW.Close() }()
	replies := bufio.NewScanner(outR)
	replies.Buffer(nil, 1<<20)
	send := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("write: %v", err)
		}
		if !replies.Scan() {
			t.Fatalf("no reply to %s: %v", line, replies.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(replies.Bytes(), &m); err != nil {
			t.Fatalf("reply %q: %v", replies.Text(), err)
		}
		return m
	}
	errCode := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		code, _ := e["code"].(float64)
		return code
	}
	if m := send(`{"jsonrpc":"2.0","id":1,"method":`); errCode(m) != -32700 || m["id"] != nil {
		t.Errorf("truncated JSON: %v, want a parse error with id null", m)
	}
	if m := send(`hello`); errCode(m) != -32700 {
		t.Errorf("not JSON: %v, want a parse error", m)
	}
	if m := send(`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`); errCode(m) != -32600 {
		t.Errorf("a batch: %v, want invalid request", m)
	}
	init := `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	if m := send(init); m["result"] == nil {
		t.Fatalf("initialize after bad lines: %v", m)
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if m := send(`{"jsonrpc":"2.0","id":4,"method":"no/such"}`); errCode(m) != -32601 {
		t.Errorf("unknown method: %v, want method not found", m)
	}
	if m := send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"click","arguments":{"target":7}}}`); m["result"] == nil {
		t.Errorf("bad arguments: %v, want an isError result", m)
	} else if res := m["result"].(map[string]any); res["isError"] != true {
		t.Errorf("bad arguments: %v, want isError", res)
	}
	if m := send(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`); m["result"] == nil {
		t.Errorf("tools/list after bad requests: %v", m)
	}
	inW.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop when stdin closed")
	}
}

// bearer adds a token (and maybe an Origin) to every request.
type bearer struct {
	token, origin string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	if b.origin != "" {
		r.Header.Set("Origin", b.origin)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPAuth: the HTTP transport wants the bearer token and a loopback
// Origin; with both, the SDK's client lists the tools.
func TestHTTPAuth(t *testing.T) {
	s := newServer(t, Options{})
	srv := httptest.NewServer(s.Handler("s3cret"))
	defer srv.Close()
	url := srv.URL + Path
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	post := func(h map[string]string) (int, string) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, c := range []struct {
		name    string
		headers map[string]string
		code    int
		body    string
	}{
		{"no token", nil, 401, "missing or wrong bearer token"},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, 401, "missing or wrong bearer token"},
		{"not bearer", map[string]string{"Authorization": "Basic czNjcmV0"}, 401, "missing or wrong bearer token"},
		{"foreign origin", map[string]string{"Authorization": "Bearer s3cret", "Origin": "https://evil.example"}, 403, `origin "https://evil.example" is not allowed`},
		{"foreign origin, no token", map[string]string{"Origin": "http://attacker.test:8080"}, 403, "is not allowed"},
		{"loopback origin", map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://localhost:3000"}, 200, `"serverInfo"`},
	} {
		code, body := post(c.headers)
		if code != c.code || !strings.Contains(body, c.body) {
			t.Errorf("%s: %d %q, want %d containing %q", c.name, code, body, c.code, c.body)
		}
		if code >= 400 && strings.Count(strings.TrimSpace(body), "\n") > 0 {
			t.Errorf("%s: the reason is not one line: %q", c.name, body)
		}
	}
	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token: "s3cret"}}}, nil)
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != 22 {
		t.Fatalf("tools/list over HTTP: %v, %d tools", err, len(res.Tools))
	}
	if _, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token: "x"}}}, nil); err == nil {
		t.Errorf("connect with a wrong token succeeded")
	}
}

func TestListenAddr(t *testing.T) {
	for _, c := range []struct {
		in, addr string
		public   bool
	}{
		{"8931", "127.0.0.1:8931", false},
		{":8931", "127.0.0.1:8931", false},
		{"localhost:0", "localhost:0", false},
		{"127.0.0.1:80", "127.0.0.1:80", false},
		{"[::1]:80", "[::1]:80", false},
		{"0.0.0.0:8931", "0.0.0.0:8931", true},
		{"192.168.1.5:1", "192.168.1.5:1", true},
	} {
		addr, public, err := ListenAddr(c.in)
		if err != nil || addr != c.addr || public != c.public {
			t.Errorf("ListenAddr(%q) = %q, %v, %v; want %q, %v", c.in, addr, public, err, c.addr, c.public)
		}
	}
	if _, _, err := ListenAddr("a:b:c"); err == nil {
		t.Errorf("ListenAddr(a:b:c): no error")
	}
}
