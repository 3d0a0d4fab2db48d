//go:build linux

// Package xconn opens connections to an X server for canopy's X clients
// (xinput, capture, clipboard): within a time limit, and without xgb's
// noise about a missing ~/.Xauthority.
package xconn

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/jezek/xgb"
)

// Dial connects to the X display name (":99") within ctx. xgb cannot be
// cancelled while it connects, so a connection that completes after ctx
// ended is closed in the background.
//
// xgb reads ~/.Xauthority; when the file is missing it logs "Could not get
// authority info" and connects without a cookie, which Xvfb accepts. Dial
// drops those lines from xgb's logger and keeps its other messages.
func Dial(ctx context.Context, name string) (*xgb.Conn, error) {
	quietAuthNoise()
	type result struct {
		conn *xgb.Conn
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := xgb.NewConnDisplay(name)
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		return r.conn, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.conn != nil {
				r.conn.Close()
			}
		}()
		return nil, fmt.Errorf("the X server did not answer: %w", ctx.Err())
	}
}

// quietOnce guards the one change quietAuthNoise makes to xgb's logger.
var quietOnce sync.Once

// quietAuthNoise filters xgb's "no ~/.Xauthority" messages out of its
// logger. It changes the logger's writer (log.Logger.SetOutput is safe while
// other connections log) rather than replacing xgb.Logger, which xgb's
// goroutines read unsynchronised.
func quietAuthNoise() {
	quietOnce.Do(func() {
		xgb.Logger.SetOutput(dropAuthNoise{xgb.Logger.Writer()})
	})
}

// dropAuthNoise passes log lines on to w except xgb's two lines about
// missing authority info. log.Logger writes each message in one Write.
type dropAuthNoise struct{ w io.Writer }

func (f dropAuthNoise) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("authority info")) {
		return len(p), nil
	}
	return f.w.Write(p)
}

// Await runs f, which waits on the X server, and gives up when ctx ends.
// f keeps running after that: an xgb connection is safe for concurrent
// use, and its answer is dropped.
func Await[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	select {
	case <-ctx.Done():
		// Ended already: the call is not made (once made, a quick reply
		// and the end would race in the select below).
		var zero T
		return zero, ctx.Err()
	default:
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Close closes c and waits (a little) until it is closed: xgb's Close only
// asks its goroutines to finish a last round trip and hang up.
func Close(c *xgb.Conn) {
	c.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for { // WaitForEvent gives nil, nil once the connection is closed
			if ev, err := c.WaitForEvent(); ev == nil && err == nil {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
}
