package policy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
)

func TestPermit(t *testing.T) {
	ctx := context.Background()
	p := New(action.Act)
	click := action.Action{Kind: action.Click, Target: "e1"}
	permit, err := p.Permit(ctx, click, `button "Save" e1`)
	if err != nil {
		t.Fatal(err)
	}
	if err := permit.Allows(action.Click); err != nil {
		t.Errorf("a click permit does not allow a click: %v", err)
	}
	if err := permit.Allows(action.Upload); !errors.Is(err, ErrDenied) {
		t.Errorf("a click permit allows an upload: %v", err)
	}
	var none *Permit
	if err := none.Allows(action.Click); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "executor") {
		t.Errorf("a nil permit: %v", err)
	}
	if err := (&Permit{kind: action.Click}).Allows(action.Click); !errors.Is(err, ErrDenied) {
		t.Errorf("a forged zero permit allows a click: %v", err)
	}
	_, err = p.Permit(ctx, action.Action{Kind: action.Evaluate, Text: "1"}, "")
	if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "evaluate needs the sensitive tier; this session allows act") {
		t.Errorf("evaluate under act: %v", err)
	}
	obs := New(action.Observe)
	if _, err := obs.Permit(ctx, click, `button "Save" e1`); err == nil || !strings.Contains(err.Error(), `click button "Save" e1 needs the act tier`) {
		t.Errorf("click under observe: %v", err)
	}
	if _, err := obs.Permit(ctx, action.Action{Kind: action.Snapshot}, ""); err != nil {
		t.Errorf("snapshot under observe: %v", err)
	}
}
