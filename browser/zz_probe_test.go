package browser

import (
	"testing"
)

func TestZZProbe(t *testing.T) {
	e := newAct(t, "/widgets.html")
	show := func(steps string) {
		r, err := e.run(steps)
		t.Logf("> %s\nerr=%v\n%s", steps, err, stable(r.Text))
	}
	show(`click role:button name:"Delete all"; dialog accept`)
	t.Logf("out=%q", e.out())
	show(`press Tab`)
	show(`press shift+Tab`)
	show(`uncheck role:checkbox name:Newsletter`)
	show(`select role:button name:"Hover me" "x"`)
	show(`tabs new "` + testSite.URL("/todo.html") + `"`)
	show(`tabs list`)
	show(`tabs close 1`)
	show(`tabs list`)
	show(`snapshot`)
	show(`type role:textbox name:"What needs to be done?" "a"; press Enter`)
	t.Logf("js=%v", js[string](t, e.b, `document.title`))
}
