//go:build linux

package atspi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
)

// Event is one AT-SPI event: "object:state-changed:focused" from Source,
// with its detail numbers and any-data (a string, a [Ref], or nil).
type Event struct {
	// Type is the event in AT-SPI's spelling, lower-case:
	// "object:children-changed:add", "window:create",
	// "object:state-changed:checked", "object:text-changed:insert".
	Type             string
	Source           Ref
	Detail1, Detail2 int32
	// Data is the event's any-data: the new child of children-changed,
	// the title of window:create, the text of text-changed.
	Data any
}

// DataRef returns the event's any-data as an object, when it is one.
func (e Event) DataRef() (Ref, bool) {
	r, ok := e.Data.(Ref)
	return r, ok && !r.IsNull()
}

// Kind is the event's type without its detail: "object:state-changed".
func (e Event) Kind() string {
	parts := strings.SplitN(e.Type, ":", 3)
	if len(parts) < 2 {
		return e.Type
	}
	return parts[0] + ":" + parts[1]
}

// Detail is the event's detail: "focused" in "object:state-changed:focused".
func (e Event) Detail() string {
	parts := strings.SplitN(e.Type, ":", 3)
	if len(parts) < 3 {
		return ""
	}
	return parts[2]
}

// DefaultEvents are what a session listens to: windows, structure, states,
// names and text — what settling, diffs and finding new windows need.
var DefaultEvents = []string{
	"window:create", "window:destroy", "window:activate", "window:deactivate",
	"object:children-changed", "object:state-changed", "object:property-change",
	"object:text-changed", "object:text-caret-moved", "object:selection-changed",
	"object:value-changed", "object:active-descendant-changed", "focus:",
}

// Listener receives events for as long as it is open. The registry forgets
// a listener when its connection closes, so keep one Listener (and its
// Conn) for a whole session: Chromium's GTK 3 Save dialog, for one, is only
// ever announced through an event.
type Listener struct {
	c      *Conn
	sig    chan *dbus.Signal
	marks  chan Event // Barrier's events, delivered after the signals before them
	events []string

	mu   sync.Mutex
	subs map[chan Event]struct{}
	done chan struct{}
}

// Listen registers types (AT-SPI event names such as "object:state-changed"
// or "window:create"; nil means [DefaultEvents]) with the registry and
// starts delivering them. Registering also makes ATK applications create
// their Cache, so listen before reading.
func (c *Conn) Listen(ctx context.Context, types []string) (*Listener, error) {
	if types == nil {
		types = DefaultEvents
	}
	l := &Listener{c: c, sig: make(chan *dbus.Signal, 4096), marks: make(chan Event), events: types,
		subs: map[chan Event]struct{}{}, done: make(chan struct{})}
	c.bus.Signal(l.sig)
	for _, iface := range []string{"Object", "Window", "Focus", "Document"} {
		if err := c.bus.AddMatchSignalContext(ctx, dbus.WithMatchInterface("org.a11y.atspi.Event."+iface)); err != nil {
			c.bus.RemoveSignal(l.sig)
			return nil, fmt.Errorf("listening to AT-SPI events: %w", err)
		}
	}
	// Children added to the desktop root announce new applications.
	for _, t := range types {
		if err := c.call(ctx, Ref{Bus: registryName, Path: registryPath}, ifRegistry+".RegisterEvent", nil, t, []string{}, ""); err != nil {
			c.bus.RemoveSignal(l.sig)
			return nil, fmt.Errorf("registering for %s events: %w", t, err)
		}
	}
	go l.loop()
	return l, nil
}

// Subscribe returns a channel of every event from now on, and a func that
// ends the subscription. A subscriber that falls behind loses events rather
// than blocking the others; its channel holds 4,096.
func (l *Listener) Subscribe() (<-chan Event, func()) {
	ch := make(chan Event, 4096)
	l.mu.Lock()
	l.subs[ch] = struct{}{}
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		delete(l.subs, ch)
		l.mu.Unlock()
	}
}

// Close stops delivering and deregisters the events.
func (l *Listener) Close() {
	select {
	case <-l.done:
		return
	default:
	}
	close(l.done)
	l.c.bus.RemoveSignal(l.sig)
	ctx, cancel := context.WithTimeout(context.Background(), l.c.timeout)
	defer cancel()
	for _, t := range l.events {
		_ = l.c.call(ctx, Ref{Bus: registryName, Path: registryPath}, ifRegistry+".DeregisterEvent", nil, t)
	}
}

func (l *Listener) loop() {
	for {
		select {
		case <-l.done:
			return
		case s, ok := <-l.sig:
			if !ok {
				return
			}
			l.signal(s)
		case m := <-l.marks:
			// The signals already buffered came before the answers
			// the barrier waited for: they go first.
			for drained := false; !drained; {
				select {
				case s, ok := <-l.sig:
					if !ok {
						return
					}
					l.signal(s)
				default:
					drained = true
				}
			}
			l.deliver(m)
		}
	}
}

// signal delivers a signal's event, when it is one.
func (l *Listener) signal(s *dbus.Signal) {
	if e, ok := decodeEvent(s); ok {
		l.deliver(e)
	}
}

// deliver hands an event to every subscriber.
func (l *Listener) deliver(e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ch := range l.subs {
		select {
		case ch <- e:
		default:
		}
	}
}

// BarrierEvent is the type of the event [Listener.Barrier] delivers; its
// Data is the barrier's token.
const BarrierEvent = "canopy:barrier"

// Barrier makes a round trip to each application of buses (a call its main
// loop answers: GetRole of its root), then delivers an event of type
// BarrierEvent with Data token to every subscriber, after every event those
// applications sent before answering: the bus keeps each sender's messages
// in order, and godbus queues a signal before it reads the next message. An
// application that is gone counts as answered.
func (l *Listener) Barrier(ctx context.Context, buses []string, token string) error {
	errs := make(chan error, len(buses))
	for _, bus := range buses {
		go func() {
			_, err := l.c.RoleOf(ctx, Ref{Bus: bus, Path: rootPath})
			if errors.Is(err, ErrDefunct) || errors.Is(err, ErrUnsupported) {
				err = nil
			}
			errs <- err
		}()
	}
	for range buses {
		if err := <-errs; err != nil {
			return fmt.Errorf("barrier: %w", err)
		}
	}
	select {
	case l.marks <- Event{Type: BarrierEvent, Data: token}:
		return nil
	case <-l.done:
		return fmt.Errorf("barrier: the listener is closed")
	case <-ctx.Done():
		return fmt.Errorf("barrier: %w", ctx.Err())
	}
}

// decodeEvent reads a signal of org.a11y.atspi.Event.*: body (siiva{sv}).
func decodeEvent(s *dbus.Signal) (Event, bool) {
	const prefix = "org.a11y.atspi.Event."
	if !strings.HasPrefix(s.Name, prefix) || len(s.Body) < 4 {
		return Event{}, false
	}
	rest := s.Name[len(prefix):] // "Object.StateChanged"
	dot := strings.LastIndexByte(rest, '.')
	if dot < 0 {
		return Event{}, false
	}
	e := Event{Source: Ref{Bus: s.Sender, Path: s.Path}}
	detail, _ := s.Body[0].(string)
	e.Type = strings.ToLower(rest[:dot]) + ":" + hyphenate(rest[dot+1:])
	if detail != "" {
		e.Type += ":" + detail
	}
	e.Detail1, _ = s.Body[1].(int32)
	e.Detail2, _ = s.Body[2].(int32)
	if v, ok := s.Body[3].(dbus.Variant); ok {
		switch x := v.Value().(type) {
		case string:
			e.Data = x
		case []any:
			var r Ref
			if dbus.Store([]any{x}, &r) == nil {
				e.Data = r
			}
		default:
			e.Data = x
		}
	}
	return e, true
}

// hyphenate turns a D-Bus member name into AT-SPI's event spelling:
// "StateChanged" → "state-changed".
func hyphenate(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
