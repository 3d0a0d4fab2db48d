package browser

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
)

// TestPoints: on a scrolled page, find at a viewport point (as a
// screenshot shows it) names the button there, click at it clicks that
// very point with real input, and a point on no element or a malformed
// one is a one-line error.
func TestPoints(t *testing.T) {
	e := newAct(t, "/far-button.html")
	e.must(`scroll role:button name:"Far button"`)
	scrollY := js[float64](t, e.b, `window.scrollY`)
	if scrollY < 500 {
		t.Fatalf("the page did not scroll (scrollY %v)", scrollY)
	}
	x, y := 310.0, 1500-scrollY+20 // inside the button, in the viewport
	at := fmt.Sprintf("%.0f,%.0f", x, y)
	r := e.must(`find at ` + at)
	if !strings.HasPrefix(r.Text, `button "Far button" e`) {
		t.Errorf("find at %s: %q", at, r.Text)
	}
	r = e.must(`click at ` + at)
	var clicked struct {
		X, Y    float64
		Trusted bool
	}
	if err := json.Unmarshal([]byte(js[string](t, e.b, `document.body.dataset.clicked || "{}"`)), &clicked); err != nil {
		t.Fatal(err)
	}
	if !clicked.Trusted || clicked.X != x || clicked.Y != float64(int(y+0.5)) {
		t.Errorf("click at %s reached the page as %+v", at, clicked)
	}
	for _, a := range []action.Action{
		{Kind: action.Find, At: "5000,5000"},
		{Kind: action.Click, At: "5000,5000"},
	} {
		_, err := e.do(a)
		if err == nil || !strings.Contains(err.Error(), "no element at 5000,5000") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s at 5000,5000: %v", a.Kind, err)
		}
	}
	if _, err := e.do(action.Action{Kind: action.Click, At: "12"}); err == nil || !strings.Contains(err.Error(), "at must be a point x,y") {
		t.Errorf("a malformed point: %v", err)
	}
	if _, err := e.do(action.Action{Kind: action.Type, At: "1,1", Text: "x"}); err == nil || !strings.Contains(err.Error(), "takes no point") {
		t.Errorf("type at a point: %v", err)
	}
}

// TestPointAfterUpdate: a change that pushes the page down is read
// incrementally, and the tree says its boxes are stale; find at a point
// then reads the boxes afresh and names the row now under the point, not
// the one the stale boxes place there.
func TestPointAfterUpdate(t *testing.T) {
	e := newAct(t, "/grid.html")
	box := `(() => { const r = document.querySelector('tr[data-id="5"] .edit').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`
	at := js[[]float64](t, e.b, box)
	r := e.must(fmt.Sprintf("find at %.0f,%.0f", at[0], at[1]))
	if !strings.Contains(r.Text, `"Edit User 0005"`) {
		t.Fatalf("find at row 5's Edit: %q", r.Text)
	}
	// Row 2's name cell grows by 300 px: rows 3 on move down.
	js[any](t, e.b, `document.querySelector('tr[data-id="2"] .name').append(Object.assign(document.createElement('div'), {style: 'height: 300px'})); 1`)
	_, st := snap(t, e.b)
	if st.Regions == 0 || !st.Stale {
		t.Fatalf("the change was not read incrementally with stale boxes: %+v", st)
	}
	r = e.must(fmt.Sprintf("find at %.0f,%.0f", at[0], at[1]))
	if strings.Contains(r.Text, `"Edit User 0005"`) || !strings.Contains(r.Text, "User 00") {
		t.Errorf("find at the old place of row 5's Edit, after rows moved down: %q", r.Text)
	}
	if st := e.b.LastStats(); st.Stale || st.Regions != 0 {
		t.Errorf("find at a point did not read the boxes whole: %+v", st)
	}
}
