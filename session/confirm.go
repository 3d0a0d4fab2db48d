package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/canopy-dev/canopy/policy"
)

// Confirmer asks the user a yes/no question (MCP elicitation) and reports
// the answer. An error means no answer came.
type Confirmer func(ctx context.Context, question string) (bool, error)

type confirmerKey struct{}

// WithConfirmer returns ctx carrying the way to ask the user of the call it
// belongs to: a surface that can ask (an MCP client with elicitation) sets
// it for each call.
func WithConfirmer(ctx context.Context, c Confirmer) context.Context {
	return context.WithValue(ctx, confirmerKey{}, c)
}

// DefaultConfirmTimeout caps how long an action waits for the user's
// answer.
const DefaultConfirmTimeout = 2 * time.Minute

// confirm asks the user the permit's question, if it has one: a yes lets
// the action run; a no, no answer within the cap, or a client that cannot
// be asked refuses it with one line.
func (s *Session) confirm(ctx context.Context, p *policy.Permit) error {
	q := p.NeedsConfirm()
	if q == "" {
		return nil
	}
	ask, _ := ctx.Value(confirmerKey{}).(Confirmer)
	if ask == nil {
		return fmt.Errorf("%s needs the user's confirmation (--confirm), and this client cannot ask: use an MCP client with elicitation, or leave the action out of --confirm: %w", q, policy.ErrDenied)
	}
	limit := s.opt.ConfirmTimeout
	if limit <= 0 {
		limit = DefaultConfirmTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	yes, err := ask(cctx, q)
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s was not confirmed: no answer within %s: %w", q, limit, policy.ErrDenied)
	case err != nil:
		return fmt.Errorf("%s was not confirmed: %v: %w", q, err, policy.ErrDenied)
	case !yes:
		return fmt.Errorf("%s was declined by the user: %w", q, policy.ErrDenied)
	}
	return nil
}
