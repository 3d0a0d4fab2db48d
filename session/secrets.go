package session

import (
	"context"
	"errors"
	"strings"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/tree"
)

// credential resolves a's credential, if it names one, into the text to
// type into target, and remembers the value's shapes and the field so no
// reply, error or audit line ever shows it. A credential bound to origins
// is judged against the document of the field that receives it (the
// target, or the focused node when typing with none): a frame from
// another origin inside a page of its own is refused.
func (s *Session) credential(ctx context.Context, a action.Action, target *tree.Node, page *tree.Snapshot) (action.Action, error) {
	if a.Credential == "" {
		return a, nil
	}
	field := receiver(page, target)
	v, err := s.policy.Secret(ctx, a.Credential, documentURL(page, field))
	if err != nil {
		if s.rec != nil && errors.Is(err, policy.ErrDenied) {
			s.rec.decision = "refused"
		}
		return a, err
	}
	s.red.add(v, a.Credential)
	if field != nil {
		s.red.mask(field.Ref, a.Credential)
	}
	a.Text = v
	return a, nil
}

// learnSecrets teaches the redactor every credential the policy can type
// without the keyring, when the session starts: a shape of one is redacted
// from the first reading, whether this session types it or another canopy
// did, and a field re-rendered with its value stays masked.
func (s *Session) learnSecrets() {
	if s.policy != nil {
		s.policy.EachSecret(func(name, value string) { s.red.add(value, name) })
	}
}

// redact replaces every shape of every credential this session knows
// with its name: «credential NAME».
func (s *Session) redact(text string) string { return s.red.text(text) }

// redactErr is err with secrets replaced in its message.
func (s *Session) redactErr(err error) error {
	if err == nil || s.red.empty() {
		return err
	}
	if msg := s.redact(err.Error()); msg != err.Error() {
		return &redactedError{msg: msg, err: err}
	}
	return err
}

// redactedError keeps the chain of the original error (errors.Is still
// works) but shows a message without secrets.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// receiver is the node typed text goes into: target, or with none the
// node that has the focus on page; nil when there is neither.
func receiver(page *tree.Snapshot, target *tree.Node) *tree.Node {
	if target != nil || page == nil {
		return target
	}
	var n *tree.Node
	tree.Walk(page.Root, func(x *tree.Node) bool {
		if x.States.Has(tree.Focused) {
			n = x
		}
		return true
	})
	return n
}

// documentURL is the URL of the innermost document that holds n in snap:
// the frame it is in (tree.Node.Frame), else the page (a tab's, or one
// grafted into a desktop tree); "" for a desktop object. A frame with no
// URL of its own (about:blank, about:srcdoc) is its parent's document.
// With n nil or not in snap, it is the tab's URL.
func documentURL(snap *tree.Snapshot, n *tree.Node) string {
	if snap == nil {
		return ""
	}
	base := ""
	if snap.Header.Kind == "tab" {
		base = snap.Header.URL
	}
	found, url := "", base
	var walk func(x *tree.Node, doc string) bool
	walk = func(x *tree.Node, doc string) bool {
		if x.Page != nil {
			doc = x.Page.URL
		}
		if x.Frame != "" && !inherits(x.Frame) {
			doc = x.Frame
		}
		if x == n {
			found = doc
			return true
		}
		for _, c := range x.Children {
			if walk(c, doc) {
				return true
			}
		}
		return false
	}
	if n != nil && snap.Root != nil && walk(snap.Root, base) {
		url = found
	}
	return url
}

// inherits says whether a frame's URL names no document of its own: the
// frame shows its parent's origin.
func inherits(u string) bool {
	u = strings.ToLower(strings.TrimSpace(u))
	return u == "about:blank" || strings.HasPrefix(u, "about:blank#") || strings.HasPrefix(u, "about:blank?") || u == "about:srcdoc"
}

// Redacted is text with every shape of every credential the session
// knows replaced by «credential NAME», for a surface that prints what it
// built itself from the session's trees (the shell's cat). A nil session
// knows none.
func (s *Session) Redacted(text string) string {
	if s == nil {
		return text
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.redact(text)
}
