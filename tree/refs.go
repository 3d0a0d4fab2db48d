package tree

import (
	"strconv"
	"sync"
)

// Refs hands out refs ("e1", "e2", …) keyed by a node's source identity, so
// the same DOM node or AT-SPI object keeps its ref across snapshots, diffs
// and actions for as long as its document lives. A source resets the table
// when a new document replaces the view, so refs stay short (e12, not
// e20208) through a long session. One Refs belongs to one session; it is
// safe for concurrent use.
type Refs struct {
	mu   sync.Mutex
	byID map[string]string
	next int
}

// NewRefs returns an empty table; the first ref it hands out is "e1".
func NewRefs() *Refs { return &Refs{byID: map[string]string{}} }

// Reset forgets every ref; the next one handed out is "e1" again.
func (r *Refs) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.byID)
	r.next = 0
}

// For returns the ref of key, allocating the next one on first sight.
func (r *Refs) For(key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ref, ok := r.byID[key]; ok {
		return ref
	}
	r.next++
	ref := "e" + strconv.Itoa(r.next)
	r.byID[key] = ref
	return ref
}

// Assign sets Ref on every node under root that an agent can act on or scope
// to: action and scope roles, clickable nodes, and any container that holds a
// long run of similar children (so an elision line can point at it). Nodes
// without a Key get no ref. Refs are allocated in document order, so a page
// seen for the first time numbers its refs top to bottom.
func (r *Refs) Assign(root *Node) {
	Walk(root, func(n *Node) bool {
		if n.Key != "" && n != root && wantsRef(n) {
			n.Ref = r.For(n.Key)
		}
		return true
	})
}

func wantsRef(n *Node) bool {
	if IsActionRole(n.Role) || IsScopeRole(n.Role) || n.States.Has(Clickable) {
		return true
	}
	return longestRun(n.Children) >= minElide
}

// longestRun returns the length of the longest run of similar siblings.
func longestRun(kids []*Node) int {
	best, run := 0, 0
	for i, c := range kids {
		if i > 0 && similar(kids[i-1], c) {
			run++
		} else {
			run = 1
		}
		best = max(best, run)
	}
	return best
}

// similar reports whether two siblings belong to one run for elision.
func similar(a, b *Node) bool { return kind(a) == kind(b) }

// kind groups roles for elision: prose roles are one kind.
func kind(n *Node) string {
	if proseRoles[n.Role] {
		return "prose"
	}
	return n.Role
}
