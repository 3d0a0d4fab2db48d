package session

import (
	"context"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// credential resolves a's credential, if it names one, into the text to
// type into target, and remembers the value's shapes and the field so no
// reply, error or audit line ever shows it.
func (s *Session) credential(ctx context.Context, a action.Action, target *tree.Node, page *tree.Snapshot) (action.Action, error) {
	if a.Credential == "" {
		return a, nil
	}
	v, err := s.policy.Secret(ctx, a.Credential, pageURL(page, target))
	if err != nil {
		return a, err
	}
	s.red.add(v, a.Credential)
	if target != nil {
		s.red.mask(target.Ref, a.Credential)
	}
	a.Text = v
	return a, nil
}

// redact replaces every shape of every credential typed in this session
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

// pageURL is the URL of the page that holds target in snap: the tab's, or,
// in a tree of page and desktop, the grafted page's; "" for a desktop
// object.
func pageURL(snap *tree.Snapshot, target *tree.Node) string {
	if snap == nil {
		return ""
	}
	if snap.Header.Kind == "tab" {
		return snap.Header.URL
	}
	url := ""
	var walk func(n *tree.Node, page string) bool
	walk = func(n *tree.Node, page string) bool {
		if n.Page != nil {
			page = n.Page.URL
		}
		if n == target {
			url = page
			return true
		}
		for _, c := range n.Children {
			if walk(c, page) {
				return true
			}
		}
		return false
	}
	walk(snap.Root, "")
	return url
}
