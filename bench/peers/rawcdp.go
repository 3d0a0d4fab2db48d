//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/domsnapshot"
	cdppage "github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	cdptarget "github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// rawCDP is a bare CDP client over the browser's websocket: it sends
// commands and matches their responses, and enables no domain. The bench
// uses it beside a server under test to time the CDP calls a snapshot
// needs, with nothing of the server's in between; chromedp's own target
// contexts would enable Page, DOM, CSS and Network on the page, which
// would slow the server under test down.
type rawCDP struct {
	conn *remote.Conn
	mu   sync.Mutex
	next int64
	wait map[int64]chan *cdproto.Message
	err  error // set when the read loop ended
	done chan struct{}
}

// dialRaw connects to the browser whose CDP endpoint is httpURL
// (http://127.0.0.1:PORT).
func dialRaw(ctx context.Context, httpURL string) (*rawCDP, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, httpURL+"/json/version", nil)
	if err != nil {
		return nil, fmt.Errorf("raw cdp: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("raw cdp: /json/version: %w", err)
	}
	defer resp.Body.Close()
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.WS == "" {
		return nil, fmt.Errorf("raw cdp: no websocket address in /json/version (%v)", err)
	}
	conn, err := remote.DialContext(ctx, v.WS)
	if err != nil {
		return nil, fmt.Errorf("raw cdp: dial %s: %w", v.WS, err)
	}
	c := &rawCDP{conn: conn, wait: map[int64]chan *cdproto.Message{}, done: make(chan struct{})}
	go c.read()
	return c, nil
}

// read hands each response to its caller; events are dropped.
func (c *rawCDP) read() {
	defer close(c.done)
	for {
		msg := new(cdproto.Message)
		if err := c.conn.Read(context.Background(), msg); err != nil {
			c.mu.Lock()
			c.err = err
			for _, ch := range c.wait {
				close(ch)
			}
			c.wait = nil
			c.mu.Unlock()
			return
		}
		if msg.ID == 0 {
			continue
		}
		c.mu.Lock()
		ch := c.wait[msg.ID]
		delete(c.wait, msg.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- msg
		}
	}
}

// Close closes the connection and waits for the read loop to end.
func (c *rawCDP) Close() {
	c.conn.Close()
	<-c.done
}

// rawSession is one flat session of a rawCDP connection (the browser's
// own when sid is empty). It is a cdp.Session, so the generated commands
// of cdproto run on it with cdp.Call.
type rawSession struct {
	c   *rawCDP
	sid cdptarget.SessionID
}

var _ cdp.Session = rawSession{}

// Call sends one command and decodes its result as chromedp does.
func (s rawSession) Call(ctx context.Context, method string, params, result any) error {
	p, err := jsonv2.Marshal(params, chromedp.DefaultMarshalOptions)
	if err != nil {
		return fmt.Errorf("%s: encode: %w", method, err)
	}
	ch := make(chan *cdproto.Message, 1)
	s.c.mu.Lock()
	if s.c.wait == nil {
		s.c.mu.Unlock()
		return fmt.Errorf("%s: connection closed: %v", method, s.c.err)
	}
	s.c.next++
	id := s.c.next
	s.c.wait[id] = ch
	s.c.mu.Unlock()
	msg := &cdproto.Message{ID: id, SessionID: s.sid, Method: cdproto.MethodType(method), Params: p}
	if err := s.c.conn.Write(ctx, msg); err != nil {
		return fmt.Errorf("%s: send: %w", method, err)
	}
	select {
	case res, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: connection closed", method)
		}
		if res.Error != nil {
			return fmt.Errorf("%s: %s", method, res.Error.Message)
		}
		if result == nil || len(res.Result) == 0 {
			return nil
		}
		if err := jsonv2.Unmarshal(res.Result, result, chromedp.DefaultUnmarshalOptions); err != nil {
			return fmt.Errorf("%s: decode: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		s.c.mu.Lock()
		delete(s.c.wait, id)
		s.c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Subscribe is not used: the raw client drops events.
func (s rawSession) Subscribe(string) (<-chan jsonv2.Value, func()) {
	return nil, func() {}
}

// rawRead is one timed read of a page's snapshot inputs.
type rawRead struct {
	Frames  int           // frames read (main included)
	AXNodes int           // nodes of every frame's getFullAXTree
	Dur     time.Duration // wall time of the reads, in parallel as canopy issues them
}

// rawPage is the bench's own session on an open page.
type rawPage struct {
	c      *rawCDP
	s      rawSession
	frames []cdp.FrameID // the page's frames, main first
}

// attachRaw attaches a session of its own to the open page whose URL is
// url and lists the page's frames. Frames in other processes (cross-site)
// are not read: the pages measured have none.
func attachRaw(ctx context.Context, c *rawCDP, url string) (*rawPage, error) {
	b := rawSession{c: c}
	ts, err := cdp.Call(ctx, b, cdptarget.GetTargets, cdptarget.GetTargetsParams{})
	if err != nil {
		return nil, err
	}
	var id cdptarget.ID
	for _, t := range ts.TargetInfos {
		if t.Type == "page" && t.URL == url {
			id = t.TargetID
			break
		}
	}
	if id == "" {
		return nil, fmt.Errorf("raw cdp: no page at %s", url)
	}
	at, err := cdp.Call(ctx, b, cdptarget.AttachToTarget, cdptarget.AttachToTargetParams{TargetID: id, Flatten: new(true)})
	if err != nil {
		return nil, err
	}
	p := &rawPage{c: c, s: rawSession{c: c, sid: at.SessionID}}
	ft, err := cdp.Call(ctx, p.s, cdppage.GetFrameTree, cdp.Empty{})
	if err != nil {
		p.detach(ctx)
		return nil, err
	}
	var walk func(t *cdppage.FrameTree)
	walk = func(t *cdppage.FrameTree) {
		p.frames = append(p.frames, t.Frame.ID)
		for _, c := range t.ChildFrames {
			walk(c)
		}
	}
	walk(ft.FrameTree)
	return p, nil
}

// detach ends the bench's session on the page.
func (p *rawPage) detach(ctx context.Context) {
	cdp.Call(context.WithoutCancel(ctx), rawSession{c: p.c}, cdptarget.DetachFromTarget, cdptarget.DetachFromTargetParams{SessionID: p.s.sid})
}

// read times what a full snapshot needs from Chromium:
// Accessibility.getFullAXTree for every frame of the page and one
// DOMSnapshot.captureSnapshot (with canopy's parameters), issued in
// parallel and decoded into cdproto's types, as canopy does.
func (p *rawPage) read(ctx context.Context) (rawRead, error) {
	r := rawRead{Frames: len(p.frames)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	note := func(n int, err error) {
		mu.Lock()
		defer mu.Unlock()
		r.AXNodes += n
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	start := time.Now()
	for _, f := range p.frames {
		wg.Go(func() {
			res, err := cdp.Call(ctx, p.s, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{FrameID: f})
			note(len(res.Nodes), err)
		})
	}
	wg.Go(func() {
		_, err := cdp.Call(ctx, p.s, domsnapshot.CaptureSnapshot, domsnapshot.CaptureSnapshotParams{
			ComputedStyles: []string{"cursor", "display"}, // browser/dom.go's domSnapshotParams
		})
		note(0, err)
	})
	wg.Wait()
	r.Dur = time.Since(start)
	if firstErr != nil {
		return r, fmt.Errorf("raw cdp: %w", firstErr)
	}
	return r, nil
}

// touch changes the page a little (a data attribute on the root element),
// so that a server that keeps its tree between reads reads it again.
func (p *rawPage) touch(ctx context.Context, n int) error {
	_, err := cdp.Call(ctx, p.s, cdpruntime.Evaluate, cdpruntime.EvaluateParams{
		Expression: fmt.Sprintf("document.documentElement.dataset.benchRun = %d", n),
	})
	return err
}
