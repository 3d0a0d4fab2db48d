package browser

import (
	"testing"
)

func TestZZRight(t *testing.T) {
	e := newAct(t, "/widgets.html")
	eval[bool](t, e.b, `window.evs=[]; for (const k of ['mousedown','mouseup','contextmenu','auxclick','pointerdown']) document.addEventListener(k, ev => evs.push(k+':'+ev.button+':'+ev.target.id), true); true`)
	r, err := e.run(`click role:button name:"Right click me" right`)
	t.Logf("%q %v", r.Text, err)
	t.Logf("%v", js[[]string](t, e.b, `evs`))
}
