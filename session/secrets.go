package session

import (
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// credential resolves a's credential, if it names one, into the text to
// type into target, and remembers the value's shapes and the field so no
// reply, error or audit line ever shows it.
func (s *Session) credential(a action.Action, target *tree.Node) (action.Action, error) {
	if a.Credential == "" {
		return a, nil
	}
	v, err := s.policy.Secret(a.Credential)
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
