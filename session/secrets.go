package session

import (
	"strings"

	"github.com/canopy-dev/canopy/action"
)

// credential resolves a's credential, if it names one, into the text to
// type, and remembers the value so no reply ever shows it.
func (s *Session) credential(a action.Action) (action.Action, error) {
	if a.Credential == "" {
		return a, nil
	}
	v, err := s.policy.Secret(a.Credential)
	if err != nil {
		return a, err
	}
	if s.secrets == nil {
		s.secrets = map[string]string{}
	}
	s.secrets[v] = a.Credential
	a.Text = v
	return a, nil
}

// redact replaces every secret typed in this session with its name. A
// field that holds a credential shows «credential NAME» in snapshots,
// diffs, extracts, evaluations and errors alike.
func (s *Session) redact(text string) string {
	for v, name := range s.secrets {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, "«credential "+name+"»")
		}
	}
	return text
}

// redactErr is err with secrets replaced in its message.
func (s *Session) redactErr(err error) error {
	if err == nil || len(s.secrets) == 0 {
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
