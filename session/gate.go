package session

import (
	"context"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/audit"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/tree"
)

// record is what the gate learned of the action running now, for its
// audit line.
type record struct {
	target   *tree.Node
	reaches  []*tree.Node // what the action reaches besides target
	url      string
	decision string      // "allowed", "refused", "" (not asked)
	file     string      // the file the action saved
	tier     action.Tier // the tier the gate judged the action to need (0: not asked)
}

// gate is the one place actions are let through: it asks the policy for a
// permit for a on target and to (a drag's drop target), resolved by now or
// nil, on page (the snapshot the action starts from, or nil), and notes
// the decision for the audit line. Readings and acts, leaf steps and
// batches all pass it.
func (s *Session) gate(ctx context.Context, a action.Action, target, to *tree.Node, page *tree.Snapshot) (*policy.Permit, error) {
	rec := s.rec
	if rec == nil {
		rec = &record{}
		s.rec = rec
	}
	rec.target, rec.tier = target, a.Tier()
	switch {
	case a.Kind == action.Navigate && a.URL != "" || a.Kind == action.Tabs && a.URL != "":
		rec.url = action.NormalizeURL(a.URL)
	case page != nil && page.Header.Kind == "tab":
		rec.url = page.Header.URL
	}
	desc := ""
	if target != nil {
		desc = tree.Line(target)
	}
	r := s.request(a, desc)
	r.Node, r.To, r.Page = target, to, page
	rec.reaches = policy.Reaches(r)
	p, err := s.policy.Permit(ctx, r)
	if err == nil {
		err = s.confirm(ctx, p)
	}
	rec.decision = "allowed"
	if err != nil {
		rec.decision = "refused"
		return nil, err
	}
	return p, nil
}

// audit writes the audit line of an action that ran (step is its place in
// a batch, or 0), secrets redacted. A log that cannot be written is
// logged; the action's reply stands.
func (s *Session) audit(a action.Action, step int, rec *record, start time.Time, outcomes []string, err error) {
	if s.opt.Audit == nil {
		return
	}
	e := audit.Entry{
		Time: start.UTC(), Surface: s.opt.Surface, Client: s.opt.Client,
		Kind: string(a.Kind), Action: s.redact(a.String()), Step: step,
		Tier: a.Tier().String(), Outcome: "ok", Duration: time.Since(start),
	}
	if a.Kind == action.OpenApp {
		e.App = a.Command
	}
	if rec != nil {
		e.URL, e.Decision, e.File = s.redact(rec.url), rec.decision, s.redact(rec.file)
		if rec.tier != 0 {
			e.Tier = rec.tier.String() // a saved file's, where it lands
		}
		for _, n := range rec.reaches {
			e.Reaches = append(e.Reaches, s.redact(tree.Line(n)))
		}
		if a.Target != "" || rec.target != nil {
			e.Target = &audit.Target{Selector: s.redact(a.Target)}
			if n := rec.target; n != nil {
				e.Target.Ref, e.Target.Role, e.Target.Name = n.Ref, n.Role, s.redact(n.Name)
			}
		}
	}
	if err != nil {
		e.Outcome = s.redactErr(err).Error()
	}
	for _, o := range outcomes {
		e.Outcomes = append(e.Outcomes, s.redact(o))
	}
	if werr := s.opt.Audit.Write(e); werr != nil {
		s.log.Warn("audit", "err", werr)
	}
}
