package tree

import (
	"strconv"
	"sync"
)

// Refs hands out refs ("e1", "e2", …) keyed by a node's source identity, so
// the same DOM node or AT-SPI object keeps its ref across snapshots, diffs
// and actions for as long as its document lives. One Refs belongs to one
// session; it is safe for concurrent use.
//
// A ref is never handed out again for another node once the agent may
// have seen it: when a document is replaced ([Refs.Retire]), the refs it
// held that a reply showed ([Refs.Shown]) are remembered as gone, so an
// old e3 is refused with where it was instead of naming whatever node the
// new page would give that number. Refs the agent never saw are reused, so
// numbering goes on from the highest ref shown and refs stay short (e140,
// not e20208) through a long session.
type Refs struct {
	mu    sync.Mutex
	byKey map[string]string // live refs by node key
	live  map[string]owned  // live ref → its key and document
	gone  map[string]string // ref → where it was, for documents that are gone
	next  int               // refs handed out so far (the highest number)
	shown int               // the highest ref number a reply showed
	cur   string            // the document of the latest Assign, for Mint ("" for none)
}

// owned is what Refs knows of a live ref.
type owned struct{ key, doc string }

// NewRefs returns an empty table; the first ref it hands out is "e1".
func NewRefs() *Refs {
	return &Refs{byKey: map[string]string{}, live: map[string]owned{}, gone: map[string]string{}}
}

// Reset forgets every ref; the next one handed out is "e1" again. For a
// view whose old refs nobody can hold any more; sources retire documents
// instead.
func (r *Refs) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.byKey)
	clear(r.live)
	clear(r.gone)
	r.next, r.shown = 0, 0
}

// For returns the ref of key, allocating the next one on first sight. The
// ref belongs to the document of the latest Assign.
func (r *Refs) For(key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.forLocked(key, r.cur)
}

func (r *Refs) forLocked(key, doc string) string {
	if ref, ok := r.byKey[key]; ok {
		return ref
	}
	r.next++
	ref := "e" + strconv.Itoa(r.next)
	r.byKey[key] = ref
	r.live[ref] = owned{key: key, doc: doc}
	delete(r.gone, ref) // never shown, so nobody holds the old meaning
	return ref
}

// Assign sets Ref on every node under root that an agent can act on or scope
// to: action and scope roles, clickable nodes, and any container that holds a
// long run of similar children (so an elision line can point at it). Nodes
// without a Key get no ref. Refs are allocated in document order, so a page
// seen for the first time numbers its refs top to bottom. The refs handed out
// belong to root's document (root.Key), which [Refs.Retire] ends.
func (r *Refs) Assign(root *Node) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur = root.Key // "" for a view that is no document (the desktop)
	doc := r.cur
	page := soleMain(root)
	Walk(root, func(n *Node) bool {
		if n.Key != "" && n != root && n != page && wantsRef(n) {
			n.Ref = r.forLocked(n.Key, doc)
		} else if ref, ok := r.byKey[n.Key]; ok && n.Key != "" && n != root {
			n.Ref = ref // minted earlier (find, an error's candidates)
		}
		return true
	})
}

// Mint gives n a ref if it has none and has an identity of its own, and
// returns its ref ("" when it cannot have one). Nodes printed without a ref
// get one this way when an agent may need to name them: find results, the
// candidates of an error.
func (r *Refs) Mint(n *Node) string {
	if n == nil || n.Ref != "" || n.Key == "" {
		if n == nil {
			return ""
		}
		return n.Ref
	}
	n.Ref = r.For(n.Key)
	return n.Ref
}

// Shown records the refs text shows to the agent: they are never handed out
// again for other nodes. Words that only look like refs beyond the highest
// handed out (a page's own "e99999") are ignored.
func (r *Refs) Shown(text string) {
	hi := 0
	for i := 0; i < len(text); i++ {
		if text[i] != 'e' || i > 0 && wordByte(text[i-1]) {
			continue
		}
		j := i + 1
		for j < len(text) && text[j] >= '0' && text[j] <= '9' {
			j++
		}
		if j == i+1 || j < len(text) && wordByte(text[j]) {
			continue
		}
		if n, err := strconv.Atoi(text[i+1 : j]); err == nil {
			hi = max(hi, n)
		}
		i = j - 1
	}
	if hi == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shown = max(r.shown, min(hi, r.next))
}

func wordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Retire ends document doc (a navigation replaced it, its tab closed): its
// refs name nothing any more. Those a reply showed are remembered with
// where, e.g. "on 127.0.0.1:8080/login, which was replaced", for
// [Refs.Gone]; numbering goes on after the highest ref shown or still live.
func (r *Refs) Retire(doc, where string) {
	if doc == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.retire(func(o owned) bool { return o.doc == doc }, where)
	if r.cur == doc {
		r.cur = ""
	}
}

// RetireKeys ends the nodes with these keys, wherever they are: the desktop
// calls it for the controls of a window that went away, which have no
// document of their own. Like [Refs.Retire], refs shown are remembered
// with where, e.g. `in window "Save File" of mousepad, which is gone`.
func (r *Refs) RetireKeys(keys []string, where string) {
	if len(keys) == 0 {
		return
	}
	set := make(map[string]bool, len(keys))
	for _, k := range keys {
		set[k] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.retire(func(o owned) bool { return set[o.key] }, where)
}

// retire drops the live refs whose owner ends, keeping those shown as gone;
// numbering goes on after the highest ref shown or still live.
func (r *Refs) retire(ends func(owned) bool, where string) {
	top := r.shown
	for ref, o := range r.live {
		if !ends(o) {
			top = max(top, refNumber(ref))
			continue
		}
		delete(r.byKey, o.key)
		delete(r.live, ref)
		if refNumber(ref) <= r.shown {
			r.gone[ref] = where
		}
	}
	r.next = top
}

// Gone returns where ref was when its document is gone, and true; false
// for a live ref or one never handed out.
func (r *Refs) Gone(ref string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	where, ok := r.gone[ref]
	return where, ok
}

// Issued reports whether ref was ever handed out in this session.
func (r *Refs) Issued(ref string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := refNumber(ref)
	return n > 0 && n <= max(r.next, r.shown)
}

// refNumber is the number of "e12", or 0.
func refNumber(ref string) int {
	if len(ref) < 2 || ref[0] != 'e' {
		return 0
	}
	n, err := strconv.Atoi(ref[1:])
	if err != nil {
		return 0
	}
	return n
}

// soleMain returns the unnamed main landmark that holds a document's whole
// page, or nil. It gets no ref of its own (the document is the same scope),
// so Format prints its children in its place: a line and an indent saved on
// every line of the page. Selectors still find it (`role:main`).
func soleMain(root *Node) *Node {
	if root.Role != RoleDocument || len(root.Children) != 1 {
		return nil
	}
	if m := root.Children[0]; m.Role == "main" && m.Name == "" && m.Value == "" && m.States == 0 {
		return m
	}
	return nil
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
