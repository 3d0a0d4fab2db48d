package session

import (
	"fmt"
	"strings"
)

// DefaultMaxReply caps the text of a reply (Options.MaxReply): an agent
// pays for every byte, and a page can be made of megabytes of text.
const DefaultMaxReply = 512 << 10

// maxErrorLen caps an error's message: a bad argument (a 15 MB selector)
// is quoted by a short prefix, never whole.
const maxErrorLen = 2000

// boundReply cuts text longer than max at a line break before it, and
// says what was cut and how to get less.
func boundReply(text string, max int) string {
	if max <= 0 || len(text) <= max {
		return text
	}
	cut := strings.LastIndexByte(text[:max], '\n') + 1
	if cut == 0 {
		cut = max
		for cut > 0 && text[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
	}
	return text[:cut] + fmt.Sprintf("… reply cut at %s of %s: ask for less (a scope such as extract e12, a smaller budget, a narrower selector)\n",
		size(cut), size(len(text)))
}

// size renders a byte count for people.
func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// boundedErr is an error whose message was cut; errors.Is and As still
// see the error underneath.
type boundedErr struct {
	msg string
	err error
}

func (e *boundedErr) Error() string { return e.msg }
func (e *boundedErr) Unwrap() error { return e.err }

// boundErr cuts an error's message to maxErrorLen.
func boundErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if len(msg) <= maxErrorLen {
		return err
	}
	cut := maxErrorLen
	for cut > 0 && msg[cut]&0xC0 == 0x80 {
		cut--
	}
	return &boundedErr{msg: msg[:cut] + fmt.Sprintf("… (%s more)", size(len(msg)-cut)), err: err}
}
