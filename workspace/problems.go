package workspace

import "github.com/canopy-dev/canopy/session"

// Problems joins the failed requests and console errors its watchers saw
// (session.ProblemWatcher): the browser's, on the desktop.
func (m *merged) Problems() []session.Problem {
	var ps []session.Problem
	for _, w := range m.watchers {
		if pw, ok := w.(session.ProblemWatcher); ok {
			ps = append(ps, pw.Problems()...)
		}
	}
	return ps
}
