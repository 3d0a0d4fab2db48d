package diff

import (
	"slices"
	"strconv"
	"strings"

	"github.com/canopy-dev/canopy/tree"
)

// DefaultBudget is the token budget of a diff's text when Options.Budget is
// 0: half a default snapshot, since a diff answers one action.
const DefaultBudget = 2000

// tailCost is what the closing `… N more changes` line may cost.
const tailCost = 16

// Options control Format.
type Options struct {
	// Budget is the most tokens (by tree.EstimateTokens) the whole text may
	// take; 0 means DefaultBudget. Outcome lines are always printed.
	Budget int
}

// Format prints the diff as text (docs/diffs.md): outcome lines (an opened
// dialog's content indented under its line, printed there only), then one
// line per change (an added node also prints its subtree, indented, under
// the first line), each ending in a newline:
//
//	OUTCOME                              e.g. opened dialog "Confirm" e40
//	  NODE-LINE                          the opened dialog's content
//	+ NODE-LINE (in eN)                  added, subtree lines follow as "+   …"
//	- NODE-LINE (in eN)                  removed: one line, no subtree
//	~ SUBJECT: FIELD, FIELD (in eN)      changed
//	~ SUBJECT → eN                       re-rendered as it was, under a new ref
//	> SUBJECT moved to eN: FIELD, FIELD  moved under another ref'd ancestor
//
// ` (in eN)` appears only on nodes without a ref. An empty diff prints
// exactly "no change\n". When the changes do not fit opt.Budget, as many as
// fit are printed in order and a last line says how many were left out:
// `… 12 more changes (snapshot to see the page)`.
func (d Diff) Format(opt Options) string {
	if d.Empty() {
		return "no change\n"
	}
	budget := opt.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	var b strings.Builder
	for _, o := range d.Outcomes {
		b.WriteString(o)
		b.WriteByte('\n')
	}
	avail := budget - tree.EstimateTokens(b.String())
	if len(d.blocks) > 0 {
		b.Reset()
		avail = d.writeOutcomes(&b, avail)
	}
	lines, shown := d.fit(avail)
	if shown < len(d.Changes) {
		lines, shown = d.fit(avail - tailCost)
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if rest := len(d.Changes) - shown; rest > 0 {
		b.WriteString("… " + strconv.Itoa(rest) + " more change")
		if rest > 1 {
			b.WriteByte('s')
		}
		b.WriteString(" (snapshot to see the page)\n")
	}
	return b.String()
}

// writeOutcomes prints the outcome lines, each opened dialog's content
// indented under its line (docs/diffs.md), and returns what is left of avail
// tokens. The dialogs share half of avail; the changes keep the rest.
func (d Diff) writeOutcomes(b *strings.Builder, avail int) int {
	share := max(avail/2/len(d.blocks), 1)
	for _, o := range d.Outcomes {
		b.WriteString(o)
		b.WriteByte('\n')
		i := slices.IndexFunc(d.blocks, func(x block) bool { return x.line == o })
		if i < 0 {
			continue
		}
		ls := tree.FormatChildren(d.blocks[i].node, tree.Options{Budget: share})
		for _, l := range ls {
			b.WriteString("  ")
			b.WriteString(l)
			b.WriteByte('\n')
		}
		avail -= cost(ls)
	}
	return avail
}

// fit renders changes in order while they fit avail tokens and returns the
// lines and how many changes they hold. An added subtree gets what is left
// minus a reserve for the one-line changes after it, so one large dialog
// does not crowd out everything else.
func (d Diff) fit(avail int) ([]string, int) {
	rest := make([]int, len(d.Changes)+1) // one-line cost of changes[i:]
	for i := len(d.Changes) - 1; i >= 0; i-- {
		c := d.Changes[i]
		one := c.line()
		if c.Op == Added {
			one = "+ " + c.Subject + c.in()
		}
		rest[i] = rest[i+1] + cost([]string{one})
	}
	var out []string
	spent := 0
	for i, c := range d.Changes {
		left := avail - spent
		var ls []string
		if c.Op == Added {
			ls = c.subtree(left - min(rest[i+1], left/2))
		} else {
			ls = []string{c.line()}
		}
		n := cost(ls)
		if ls == nil || n > left {
			return out, i
		}
		out = append(out, ls...)
		spent += n
	}
	return out, len(d.Changes)
}

// line renders a Changed, Moved or Removed change.
func (c Change) line() string {
	var b strings.Builder
	b.WriteByte(byte(c.Op))
	b.WriteByte(' ')
	b.WriteString(c.Subject)
	if c.Op == Moved {
		if c.To != "" {
			b.WriteString(" moved to " + c.To)
		} else {
			b.WriteString(" moved to top level")
		}
	}
	if len(c.Fields) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(c.Fields, ", "))
	}
	b.WriteString(c.in())
	return b.String()
}

// in is the ` (in eN)` that places a change on a node without a ref.
func (c Change) in() string {
	if c.Node == nil || c.Node.Ref != "" || c.In == "" {
		return ""
	}
	return " (in " + c.In + ")"
}

// subtree renders an Added change through the one formatter within avail
// tokens, prefixing each line with "+ ". It returns nil when not even the
// first node fits.
func (c Change) subtree(avail int) []string {
	// A stand-in parent, so elision lines cite the nearest ref.
	parent := &tree.Node{Ref: c.In, Children: c.Added}
	budget := avail
	for range 4 {
		if budget < 1 {
			return nil
		}
		ls := tree.FormatChildren(parent, tree.Options{Budget: budget})
		if len(ls) == 0 || strings.HasPrefix(ls[0], "… ") {
			return nil
		}
		ls[0] += c.in()
		for k, l := range ls {
			ls[k] = "+ " + l
		}
		n := cost(ls)
		if n <= avail {
			return ls
		}
		// The formatter does not count the "+ " prefix; try again with
		// what it overshot taken off.
		budget -= n - avail
	}
	return nil
}

// cost is what lines take in the text, newlines included.
func cost(ls []string) int {
	n := 0
	for _, l := range ls {
		n += tree.EstimateTokens(l) + 1
	}
	return n
}
