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
