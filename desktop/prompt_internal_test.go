//go:build linux

package desktop

import (
	"context"
	"slices"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/settle"
)

// promptRef is an object of Chromium's on the accessibility bus.
func promptRef(id string) atspi.Ref {
	return atspi.Ref{Bus: ":1.2", Path: dbus.ObjectPath("/org/a11y/atspi/accessible/" + id)}
}

// renamed is the event of an object's new name.
func renamed(r atspi.Ref, name string) atspi.Event {
	return atspi.Event{Type: "object:property-change:accessible-name", Source: r, Data: name}
}

// TestPromptsWindowRename: a browser window's rename holds the action at
// once; the next event ends the hold unless the chip container appeared
// since the window's last rename; a chip that asks takes over, and the
// hold of the appearing goes at the next event. A navigation, a new title
// while a chip shows, and an answer hold nothing past the next event.
func TestPromptsWindowRename(t *testing.T) {
	t.Parallel()
	conn := new(atspi.Conn) // the memory's key; no call goes out
	var (
		frame = promptRef("1")
		tab   = promptRef("174")
		dash  = promptRef("132")
		chip  = promptRef("253")
		label = promptRef("254")
		icon  = promptRef("144")
	)
	windows := &windowMemory{}
	windows.put(frame, browserWindow{dashboard: dash, searched: true})
	showing := false
	watch := func() *prompts {
		return &prompts{
			conn: conn, windows: windows,
			classes: map[atspi.Ref]string{
				tab: "Tab", chip: permissionChipClass, label: "LabelButtonLabel", icon: contentSettingClass,
			},
			states: func(context.Context, atspi.Ref) (atspi.States, error) {
				if showing {
					return 1<<atspi.StateShowing | 1<<atspi.StateVisible, nil
				}
				return 0, nil
			},
		}
	}
	type step struct {
		e    atspi.Event
		want *settle.Event // nil: no meaning of its own
	}
	maybe := &settle.Event{Kind: settle.Busy, Key: maybeKey, Hold: maybeHold}
	maybeEnds := &settle.Event{Kind: settle.Idle, Key: maybeKey}
	asks := &settle.Event{Kind: settle.Busy, Key: promptKey, Hold: promptHold}
	answered := &settle.Event{Kind: settle.Idle, Key: promptKey}
	play := func(name string, p *prompts, steps []step) {
		t.Helper()
		for i, s := range steps {
			got, ok := p.event(s.e)
			switch {
			case s.want == nil && ok:
				t.Errorf("%s, step %d (%v): got %+v, want nothing", name, i, s.e.Data, got)
			case s.want != nil && (!ok || got != *s.want):
				t.Errorf("%s, step %d (%v): got %+v (%v), want %+v", name, i, s.e.Data, got, ok, *s.want)
			}
		}
	}

	play("navigation", watch(), []step{
		{renamed(frame, "127.0.0.1/geo.html - Chromium"), maybe},
		{renamed(tab, "127.0.0.1/geo.html"), maybeEnds},
		{renamed(frame, "Where am I - Chromium"), maybe},
		{renamed(tab, "Where am I"), maybeEnds},
	})

	showing = true
	p := watch()
	play("prompt", p, []step{
		{renamed(frame, "Where am I - Permission requested - Chromium"), maybe},
		{renamed(tab, "Where am I - Permission requested"), nil},
		{renamed(chip, "Use your location?"), asks},
		{renamed(label, "Use your location?"), maybeEnds},
	})
	if got, want := p.outcome(), "permission prompt: Use your location? (in the address bar)"; got != want {
		t.Errorf("prompt: outcome %q, want %q", got, want)
	}

	play("a new title while the chip shows", watch(), []step{
		{renamed(frame, "Elsewhere - Permission requested - Chromium"), maybe},
		{renamed(tab, "Elsewhere - Permission requested"), maybeEnds},
	})

	p = watch()
	play("the answer", p, []step{
		{renamed(icon, "This site can access your location."), answered},
		{renamed(chip, "Allowed this time"), nil},
		{renamed(frame, "Elsewhere - Chromium"), nil},
	})
	if got := p.outcome(); got != "" {
		t.Errorf("the answer: outcome %q, want none", got)
	}

	showing = false
	play("a navigation that hides the chip", watch(), []step{
		{renamed(frame, "Where am I - Chromium"), maybe},
		{renamed(frame, "Where am I - Chromium"), maybeEnds},
	})
	showing = true
	play("a chip that shows again, without a new name", watch(), []step{
		{renamed(frame, "Where am I - Permission requested - Chromium"), maybe},
		{renamed(tab, "Where am I - Permission requested"), nil},
	})
}

// TestCandidates: the objects that may be a view are a window's but those
// in web documents, the neighbours of an entry (the address bar's) first.
func TestCandidates(t *testing.T) {
	t.Parallel()
	tr := &atspi.Tree{Items: map[atspi.Ref]*atspi.Item{}}
	add := func(id string, role atspi.Role, parent string, kids ...string) {
		it := &atspi.Item{Ref: promptRef(id), Role: role}
		if parent != "" {
			it.Parent = promptRef(parent)
		}
		for _, k := range kids {
			it.Children = append(it.Children, promptRef(k))
		}
		tr.Items[it.Ref] = it
	}
	add("frame", atspi.RoleFrame, "", "toolbar", "web")
	add("toolbar", rolePanel, "frame", "bar", "back")
	add("bar", rolePanel, "toolbar", "dashboard", "omnibox", "icon")
	add("dashboard", atspi.RolePushButton, "bar")
	add("omnibox", atspi.RoleEntry, "bar")
	add("icon", atspi.RolePushButton, "bar")
	add("back", atspi.RolePushButton, "toolbar")
	add("web", atspi.RoleDocumentWeb, "frame", "field")
	add("field", atspi.RoleEntry, "web")

	near, rest := candidates(tr, promptRef("frame"))
	names := func(its []*atspi.Item) []string {
		var out []string
		for _, it := range its {
			out = append(out, string(it.Ref.Path[len("/org/a11y/atspi/accessible/"):]))
		}
		return out
	}
	if got, want := names(near), []string{"dashboard", "omnibox", "icon"}; !slices.Equal(got, want) {
		t.Errorf("near = %v, want %v", got, want)
	}
	if got, want := names(rest), []string{"toolbar", "bar", "back"}; !slices.Equal(got, want) {
		t.Errorf("rest = %v, want %v", got, want)
	}
	if near, rest := candidates(tr, promptRef("gone")); near != nil || rest != nil {
		t.Errorf("a window not read: %v, %v, want none", near, rest)
	}
}
