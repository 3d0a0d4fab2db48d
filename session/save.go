package session

import (
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/save"
)

// folder is where the session's actions save files: its downloads folder,
// and the audit log no file may land on.
func (s *Session) folder() save.Folder {
	return save.Folder{Dir: s.downloads(), Audit: s.opt.Audit.Path()}
}

// placed is a as the gate judges it: the file it saves (print's PDF, a
// screenshot given a path) at the place the writer will write it —
// relative inside the downloads folder, absolute elsewhere, ".." and the
// links among its folders resolved — so the action table's tier is the
// tier of where the file lands (docs/tiers.md). The action that runs,
// its audit line and its errors keep the path as asked: a refusal does not
// tell where a link leads.
func (s *Session) placed(a action.Action) action.Action {
	if !a.SavesFile() || a.Path == "" {
		return a
	}
	p, err := s.folder().Locate(a.Path)
	switch {
	case err != nil:
		// Judged on its text; the writer refuses it.
	case p.Inside():
		a.Path = p.Rel
	default:
		a.Path = p.Path
	}
	return a
}

// save writes the file the action made — print's PDF, or a screenshot's
// PNG when the action names a path — through the one writer, under the
// permit the gate issued for it, and puts the writer's line in the
// reply. It returns where the file landed, which the audit line names.
func (s *Session) save(p *policy.Permit, a action.Action, out Output) (Output, string, error) {
	var data []byte
	name := ""
	switch {
	case out.File != nil:
		data, name = out.File.Data, out.File.Name
		out.File = nil
	case out.Image != nil && a.SavesFile():
		data = out.Image
	default:
		return out, "", nil
	}
	saved, err := s.folder().Write(p, a, name, data)
	if err != nil {
		return out, "", err
	}
	if s.rec != nil {
		s.rec.file = saved.Path
	}
	out.Text = saved.Line + "\n"
	return out, saved.Path, nil
}
