package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/tree"
)

// A RefKeeper is a source whose ref table the executor may use: to mint
// refs for nodes it prints without one (find results, the candidates of an
// error), to note the refs a reply showed, and to refuse refs of documents
// and windows that are gone.
type RefKeeper interface {
	Refs() *tree.Refs
}

// StaleRefError is a ref that belonged to a document or window that is gone:
// refused, never resolved to whatever node now has that number.
type StaleRefError struct {
	Ref   string // e.g. "e3"
	Where string // e.g. "on 127.0.0.1:8080/login, which was replaced"
}

func (e *StaleRefError) Error() string {
	return e.Ref + " was " + e.Where + ": take a new snapshot"
}

// refs is the source's ref table, or nil.
func (s *Session) refs() *tree.Refs {
	if k, ok := s.src.(RefKeeper); ok {
		return k.Refs()
	}
	return nil
}

// resolve finds the one node a selector or ref names; "" is no node. A ref
// of a document that is gone is refused with where it was; the nodes an
// error lists get refs, so the agent can name the one it meant.
func (s *Session) resolve(snap *tree.Snapshot, target string) (*tree.Node, error) {
	if target == "" {
		return nil, nil
	}
	sel, err := selector.Parse(target)
	if err != nil {
		return nil, err
	}
	n, _, err := selector.Resolve([]*tree.Snapshot{snap}, sel)
	if err == nil {
		return n, nil
	}
	var none *selector.NoMatchError
	var amb *selector.AmbiguousError
	switch {
	case errors.As(err, &none):
		if stale := s.staleRef(target); stale != nil {
			return nil, stale
		}
		s.mint(none.Nodes())
	case errors.As(err, &amb):
		s.mint(amb.Nodes())
	}
	return nil, err
}

// staleRef returns the refusal for a bare ref whose document is gone, or
// nil.
func (s *Session) staleRef(target string) error {
	refs := s.refs()
	if refs == nil || !selector.IsRef(target) {
		return nil
	}
	ref := strings.TrimPrefix(strings.TrimSpace(target), "@")
	if where, ok := refs.Gone(ref); ok {
		return &StaleRefError{Ref: ref, Where: where}
	}
	return nil
}

// mint gives refs to nodes about to be printed without one.
func (s *Session) mint(ns []*tree.Node) {
	refs := s.refs()
	if refs == nil {
		return
	}
	for _, n := range ns {
		refs.Mint(n)
	}
}

// shown notes the refs a reply or error showed the agent, which are then
// never handed out for other nodes.
func (s *Session) shown(text string) {
	if refs := s.refs(); refs != nil {
		refs.Shown(text)
	}
}

// findLines lists hits as tree lines, each with a ref (minted when the
// node was printed without one) and, for look-alikes, where it sits:
// `button "Edit" e14 in row "john@example.com"`.
func (s *Session) findLines(hits []selector.Hit) string {
	var b strings.Builder
	for _, h := range hits {
		s.mint([]*tree.Node{h.Node})
		b.WriteString(tree.Line(h.Node))
		if h.Context != "" {
			fmt.Fprintf(&b, " in %s", h.Context)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// shownTree notes every ref in a tree handed over whole (the model).
func (s *Session) shownTree(root *tree.Node) {
	var b strings.Builder
	tree.Walk(root, func(n *tree.Node) bool {
		if n.Ref != "" {
			b.WriteString(n.Ref)
			b.WriteByte(' ')
		}
		return true
	})
	s.shown(b.String())
}

// A Revealer is a source that may read a view only in part (a page read
// on demand) and can look nodes up in the rest. Reveal adds the nodes of
// role whose name is name to its reading and returns the reading then;
// found says some were there. The executor calls it when an action's
// target matches nothing in the part read: cheaper than a whole read.
type Revealer interface {
	Reveal(ctx context.Context, role, name string) (snap *tree.Snapshot, found bool, err error)
}

// resolveWhole is resolve for an action's target. On a page read on demand
// (a tree with unread nodes), a selector that matches nothing in the part
// read is looked for again: first where the source can look its role and
// name up (Revealer), else in the page read whole. An agent can act on a
// row it knows is there (`click role:link name:"Edit User 5000"`) though
// the budgeted snapshot never showed it. A whole read costs seconds on a
// large page, once.
func (s *Session) resolveWhole(ctx context.Context, st *step, target string) (*tree.Node, error) {
	n, err := s.resolve(st.before, target)
	var none *selector.NoMatchError
	if err == nil || st.whole || !errors.As(err, &none) || !hasUnread(st.before.Root) {
		return n, err
	}
	if snap := s.reveal(ctx, target); snap != nil {
		if n, rerr := s.resolve(snap, target); rerr == nil {
			st.before = snap
			return n, nil
		}
	}
	whole, rerr := s.readAs(ctx, true)
	if rerr != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("%s is not in the part of the page read so far, and the call ran out of time reading the rest (a longer timeout, or a selector with a role and a name, looks it up faster): %w", target, cerr)
		}
		return nil, err
	}
	st.before, st.whole = whole, true
	return s.resolve(whole, target)
}

// reveal asks the source to look up the nodes target names in what its
// reading left out, and returns the reading with them, or nil.
func (s *Session) reveal(ctx context.Context, target string) *tree.Snapshot {
	r, ok := s.src.(Revealer)
	if !ok {
		return nil
	}
	sel, err := selector.Parse(target)
	if err != nil {
		return nil
	}
	role, name, ok := sel.Wanted()
	if !ok {
		return nil
	}
	snap, found, err := r.Reveal(ctx, role, name)
	if err != nil || !found {
		if err != nil {
			s.log.Debug("reveal", "target", target, "err", err)
		}
		return nil
	}
	s.red.tree(snap)
	s.last = snap
	return snap
}

// readMore is a reading of the page that holds what target names beyond
// snap, a reading of part of it: snap with the nodes the source looked up
// (Revealer), else the page read whole, else snap as it is.
func (s *Session) readMore(ctx context.Context, snap *tree.Snapshot, target string) *tree.Snapshot {
	if more := s.reveal(ctx, target); more != nil {
		return more
	}
	if whole, err := s.readAs(ctx, true); err == nil {
		return whole
	}
	return snap
}

// hasUnread reports whether a tree was read only in part.
func hasUnread(root *tree.Node) bool {
	found := false
	tree.Walk(root, func(n *tree.Node) bool {
		found = found || n.Unread > 0
		return !found
	})
	return found
}

// Mint gives refs to nodes a surface shows without one — the shell names
// look-alike siblings by ref (`button:Edit@e14`) and scopes by ref — and
// notes them as shown, so they are never handed out for other nodes. Nodes
// without an identity of their own (merged text) keep no ref. The refs
// table is safe for concurrent use, so Mint does not wait for a running
// action.
func (s *Session) Mint(ns ...*tree.Node) {
	refs := s.refs()
	if refs == nil {
		return
	}
	var b strings.Builder
	for _, n := range ns {
		if r := refs.Mint(n); r != "" {
			b.WriteString(r)
			b.WriteByte(' ')
		}
	}
	refs.Shown(b.String())
}
