package session

import (
	"context"
	"fmt"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/pdftext"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/tree"
)

// A credential is tainted wherever it goes (docs/tiers.md, Secrets):
// text is redacted (redact.go), a screenshot has what shows one painted
// over (shotmask.go), and print, whose PDF canopy cannot mask, is refused
// while one is on the page — and when the PDF it made holds one anyway
// (text only the print shows).

// refusePrint refuses print while a credential is on the page: a field
// that holds one, a node whose text holds one of its shapes, the page's
// title or a link's URL (a PDF keeps both: its title, the link's
// address). before is the page as read for the action.
func (s *Session) refusePrint(ctx context.Context, a action.Action, before *tree.Snapshot) error {
	if a.Kind != action.Print || s.red.empty() || before == nil {
		return nil
	}
	snap := before
	if hasUnread(snap.Root) {
		// The PDF holds the whole page: so must the check.
		whole, err := s.readAs(ctx, true)
		if err != nil {
			return fmt.Errorf("print is refused: canopy could not read the whole page to check that no credential is on it: %w", err)
		}
		snap = whole
	}
	name := s.red.showing(snap.Root, true).name
	if name == "" {
		name = markName(snap.Header.Title) // the PDF's title
	}
	if name == "" {
		return nil
	}
	return fmt.Errorf("print is refused while a credential is on the page («credential %s»): the PDF would show it; navigate away first: %w", name, policy.ErrDenied)
}

// untaint keeps a credential out of what an action made: it paints over
// what shows one in a screenshot, and refuses a PDF whose text holds one.
// before is the page as read for the action.
func (s *Session) untaint(ctx context.Context, a action.Action, before *tree.Snapshot, out Output) (Output, error) {
	if s.red.empty() {
		out.Shot = nil
		return out, nil
	}
	if out.File != nil && a.Kind == action.Print {
		if err := s.checkPDF(out.File.Data); err != nil {
			return Output{}, err
		}
	}
	if out.Image != nil {
		img, err := s.maskShot(ctx, before, out.Image, out.Shot)
		if err != nil {
			return Output{}, err
		}
		out.Image = img
	}
	out.Shot = nil
	return out, nil
}

// checkPDF refuses a PDF whose text holds a credential in any shape: the
// page printed what its tree does not show (a print style sheet, a
// beforeprint handler).
func (s *Session) checkPDF(pdf []byte) error {
	text, err := pdftext.Text(pdf)
	if err != nil {
		return fmt.Errorf("print is refused: canopy could not read the PDF to check that it holds no credential (%w): %w", err, policy.ErrDenied)
	}
	if name := markName(s.red.text(text)); name != "" {
		return fmt.Errorf("print is refused: the PDF shows a credential («credential %s») that the page prints; navigate away first: %w", name, policy.ErrDenied)
	}
	return nil
}

// maskShot paints over every credential the screenshot pic shows, placed
// by shot. It reads the page again, with every box current, only when
// before (or a part of it not read) may show one. A credential that shows
// where the picture cannot be placed refuses the screenshot.
func (s *Session) maskShot(ctx context.Context, before *tree.Snapshot, pic []byte, shot *Shot) ([]byte, error) {
	if shot != nil && shot.Unseen {
		return nil, fmt.Errorf("screenshot is refused: it would show a page canopy cannot read now (held by the print preview), and a credential was typed in this session: %w", policy.ErrDenied)
	}
	if before != nil && !hasUnread(before.Root) && s.red.showing(before.Root, false).name == "" {
		return pic, nil
	}
	snap, err := s.boxes(ctx)
	if err != nil {
		if before == nil || s.red.showing(before.Root, false).name != "" {
			return nil, fmt.Errorf("screenshot is refused while a credential may show on the page: canopy could not read where (%w): %w", err, policy.ErrDenied)
		}
		snap = before // it showed none a moment ago
	}
	sh := s.red.showing(snap.Root, false)
	switch {
	case sh.name == "":
		return pic, nil
	case sh.unplaced:
		return nil, fmt.Errorf("screenshot is refused while a credential shows on the page («credential %s»): it shows in something without a place on the screen, which canopy cannot paint over: %w", sh.name, policy.ErrDenied)
	case !shot.usable():
		return nil, fmt.Errorf("screenshot is refused while a credential shows on the page («credential %s»): canopy cannot place this picture on the page to paint it over: %w", sh.name, policy.ErrDenied)
	}
	return paintOver(pic, *shot, sh.boxes)
}

// boxes reads the view with every box as laid out now (BoxReader), whole
// when a read on demand left parts out, and redacts it.
func (s *Session) boxes(ctx context.Context) (*tree.Snapshot, error) {
	var snap *tree.Snapshot
	var err error
	if br, ok := s.src.(BoxReader); ok {
		snap, err = br.SnapshotBoxes(ctx)
	} else {
		snap, err = s.src.Snapshot(ctx, false)
	}
	if err == nil && hasUnread(snap.Root) {
		snap, err = s.src.Snapshot(ctx, true)
	}
	if err != nil {
		return nil, err
	}
	s.red.tree(snap)
	return snap, nil
}
