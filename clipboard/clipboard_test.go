//go:build linux

package clipboard

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// write writes text on c and fails the test on an error.
func write(t *testing.T, c *Clipboard, text string) {
	t.Helper()
	if err := c.Write(context.Background(), text); err != nil {
		t.Fatalf("Write: %v", err)
	}
}

// read reads c and fails the test unless it gets want.
func read(t *testing.T, c *Clipboard, want string) {
	t.Helper()
	got, err := c.Read(context.Background())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if got != want {
		t.Fatalf("Read: got %d bytes %.60q…, want %d bytes %.60q…", len(got), got, len(want), want)
	}
}

// TestWriteRead: what one Clipboard writes, another (its own connection,
// as another application) reads, non-ASCII included; and the writer reads
// its own text back.
func TestWriteRead(t *testing.T) {
	a, b := newClip(t), newClip(t)
	for _, text := range []string{
		"hello",
		"café é — 日本語 🎉👍🏽",
		"two\nlines\twith tab\r\n",
		"",
		strings.Repeat("x", 100_000),
	} {
		write(t, a, text)
		read(t, b, text)
		read(t, a, text)
	}
}

// TestLargeText: 5 MB of text, beyond one request's 256 KiB, goes by INCR
// both ways.
func TestLargeText(t *testing.T) {
	a, b := newClip(t), newClip(t)
	line := "Große Seite, 日本語 🎉 line of a big page extract\n"
	text := strings.Repeat(line, 5<<20/len(line))
	write(t, a, text)
	start := time.Now()
	read(t, b, text)
	t.Logf("read %d bytes by INCR in %v", len(text), time.Since(start))
	// And back: b serves, a receives.
	write(t, b, text+"!")
	read(t, a, text+"!")
}

// TestOwnershipMoves: when another application writes, the first loses the
// clipboard and reads the newcomer's text; writing again takes it back.
func TestOwnershipMoves(t *testing.T) {
	a, b := newClip(t), newClip(t)
	write(t, a, "first")
	write(t, b, "second")
	read(t, a, "second")
	read(t, b, "second")
	write(t, a, "third")
	read(t, b, "third")
	read(t, a, "third")
}

// TestReadEmpty: with no owner Read returns "" and ErrEmpty.
func TestReadEmpty(t *testing.T) {
	newRaw(t).disown()
	c := newClip(t)
	got, err := c.Read(context.Background())
	if got != "" || !errors.Is(err, ErrEmpty) {
		t.Fatalf("Read with no owner: %q, %v; want \"\", ErrEmpty", got, err)
	}
	t.Log(err)
}

// TestSilentOwner: an owner that never answers gives an error within the
// cap (2 s), or sooner when the context says so, and the next Read after
// it works.
func TestSilentOwner(t *testing.T) {
	silent := newRaw(t)
	silent.own()
	c := newClip(t)
	start := time.Now()
	_, err := c.Read(context.Background())
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) || took < answerCap || took > answerCap+time.Second {
		t.Fatalf("Read from a silent owner: %v after %v; want a deadline error after %v", err, took, answerCap)
	}
	t.Log(err)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = c.Read(ctx)
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took > time.Second {
		t.Fatalf("Read with a 200 ms context: %v after %v", err, took)
	}
	other := newClip(t)
	write(t, other, "after")
	read(t, c, "after")
}

// TestCloseWhileServing: closing the owner empties the clipboard, even in
// the middle of an INCR send that the requestor stopped taking, and calls
// on the closed Clipboard say so.
func TestCloseWhileServing(t *testing.T) {
	a, b := newClip(t), newClip(t)
	write(t, a, strings.Repeat("y", 1<<20))
	req := newRaw(t)
	prop := req.atom("STALLED")
	if got := req.convert("UTF8_STRING", prop); got != prop {
		t.Fatalf("convert: property %d, want %d", got, prop)
	}
	if typ, _, _ := req.get(prop); typ != req.atom("INCR") {
		t.Fatalf("1 MiB answered with type %d, want INCR", typ)
	}
	// The requestor has deleted the INCR property, so a is sending chunks
	// it never takes.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.done:
	default:
		t.Error("the event loop still runs after Close")
	}
	if _, err := b.Read(context.Background()); !errors.Is(err, ErrEmpty) {
		t.Errorf("Read after the owner closed: %v, want ErrEmpty", err)
	}
	if _, err := a.Read(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Read on a closed Clipboard: %v, want ErrClosed", err)
	}
	if err := a.Write(context.Background(), "x"); !errors.Is(err, ErrClosed) {
		t.Errorf("Write on a closed Clipboard: %v, want ErrClosed", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestConcurrent: reads and writes from several goroutines on two
// Clipboards; every read sees one of the texts written.
func TestConcurrent(t *testing.T) {
	a, b := newClip(t), newClip(t)
	texts := map[string]bool{"a0": true, "a1": true, "b0": true, "b1": true}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			c, name := a, "a"
			if i%2 == 1 {
				c, name = b, "b"
			}
			for j := range 10 {
				ctx := context.Background()
				if j%3 == 0 {
					// Two Clipboards writing at once: the loser may learn
					// that the other took the clipboard right away.
					err := c.Write(ctx, name+string(rune('0'+j%2)))
					if err != nil && !strings.Contains(err.Error(), "at the same moment") {
						t.Error(err)
					}
					continue
				}
				got, err := c.Read(ctx)
				if err != nil && !errors.Is(err, ErrEmpty) {
					t.Error(err)
				} else if err == nil && !texts[got] {
					t.Errorf("Read got %q", got)
				}
			}
		})
	}
	wg.Wait()
}

// TestTargets speaks the protocol by hand, as other applications do: the
// targets offered, each text target's type and bytes, the obsolete form
// without a property, MULTIPLE, and refusals.
func TestTargets(t *testing.T) {
	c := newClip(t)
	write(t, c, "é 日本 ok")
	r := newRaw(t)
	prop := r.atom("RAW_PROP")
	names := map[xproto.Atom]string{}
	for _, n := range []string{"TARGETS", "MULTIPLE", "TIMESTAMP", "UTF8_STRING", "text/plain;charset=utf-8", "TEXT", "STRING", "text/plain"} {
		names[r.atom(n)] = n
	}
	if got := r.convert("TARGETS", prop); got != prop {
		t.Fatalf("TARGETS refused")
	}
	typ, format, data := r.get(prop)
	var targets []string
	for i := 0; i+4 <= len(data); i += 4 {
		targets = append(targets, names[xproto.Atom(binary.LittleEndian.Uint32(data[i:]))])
	}
	if typ != xproto.AtomAtom || format != 32 || strings.Join(targets, " ") != "TARGETS MULTIPLE TIMESTAMP UTF8_STRING text/plain;charset=utf-8 TEXT STRING text/plain" {
		t.Errorf("TARGETS: type %d format %d %v", typ, format, targets)
	}
	for _, tc := range []struct{ target, typ, want string }{
		{"UTF8_STRING", "UTF8_STRING", "é 日本 ok"},
		{"text/plain;charset=utf-8", "text/plain;charset=utf-8", "é 日本 ok"},
		{"TEXT", "UTF8_STRING", "é 日本 ok"},
		{"STRING", "STRING", "\xe9 ?? ok"},
		{"text/plain", "text/plain", "? ?? ok"},
	} {
		if got := r.convert(tc.target, prop); got != prop {
			t.Errorf("%s refused", tc.target)
			continue
		}
		typ, format, data := r.get(prop)
		if typ != r.atom(tc.typ) || format != 8 || string(data) != tc.want {
			t.Errorf("%s: type %q format %d %q; want %s %q", tc.target, names[typ], format, data, tc.typ, tc.want)
		}
	}
	// An obsolete requestor names no property: the target is the property.
	if got := r.convert("UTF8_STRING", xproto.AtomNone); got != r.atom("UTF8_STRING") {
		t.Errorf("conversion without a property answered in %d", got)
	} else if _, _, data := r.get(got); string(data) != "é 日本 ok" {
		t.Errorf("conversion without a property: %q", data)
	}
	if got := r.convert("image/png", prop); got != xproto.AtomNone {
		t.Errorf("image/png: answered in property %d, want a refusal (None)", got)
	}
	// MULTIPLE: (UTF8_STRING, P1), (image/png, P2) → P1 filled, P2 refused.
	p1, p2 := r.atom("RAW_P1"), r.atom("RAW_P2")
	pairs := atomBytes([]xproto.Atom{r.atom("UTF8_STRING"), p1, r.atom("image/png"), p2})
	xproto.ChangeProperty(r.conn, xproto.PropModeReplace, r.win, prop, r.atom("ATOM_PAIR"), 32, 4, pairs)
	if got := r.convert("MULTIPLE", prop); got != prop {
		t.Fatalf("MULTIPLE refused")
	}
	if _, _, data := r.get(p1); string(data) != "é 日本 ok" {
		t.Errorf("MULTIPLE's UTF8_STRING: %q", data)
	}
	_, _, data = r.get(prop)
	want := atomBytes([]xproto.Atom{r.atom("UTF8_STRING"), p1, r.atom("image/png"), xproto.AtomNone})
	if !bytes.Equal(data, want) {
		t.Errorf("MULTIPLE's pairs after: %v, want %v", data, want)
	}
	// A request older than the ownership is refused.
	xproto.ConvertSelection(r.conn, r.win, r.atom("CLIPBOARD"), r.atom("UTF8_STRING"), prop, 1)
	n := r.wait(func(ev xgb.Event) bool { _, ok := ev.(xproto.SelectionNotifyEvent); return ok })
	if p := n.(xproto.SelectionNotifyEvent).Property; p != xproto.AtomNone {
		t.Errorf("a request from time 1 was answered in property %d, want a refusal", p)
	}
}
