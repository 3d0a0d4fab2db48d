package canopy_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/tree"
)

// A session launches a headless Chromium (the zero Config), loads a page
// and answers each action with what changed.
func Example() {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Sign in</title><label><input type=checkbox> Remember me</label>`)
	}))
	defer page.Close()

	ctx := context.Background()
	sess, err := canopy.Open(ctx, canopy.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	if _, err := sess.Run(ctx, action.Action{Kind: action.Navigate, URL: page.URL}); err != nil {
		log.Fatal(err)
	}
	r, err := sess.Run(ctx, action.Action{Kind: action.Click, Target: `role:checkbox name:"Remember me"`})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(r.Text)
	// Output:
	// ~ checkbox "Remember me" e1: not checked → checked
}

// The rules travel in the Config: here the observe tier, under which
// actions that change the page are refused at the gate, whatever surface
// they come from.
func Example_tier() {
	ctx := context.Background()
	sess, err := canopy.Open(ctx, canopy.Config{Allow: action.Observe, Rules: []policy.Option{policy.Files("/srv/uploads")}})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	_, err = sess.Run(ctx, action.Action{Kind: action.Navigate, URL: "http://127.0.0.1:1/"})
	fmt.Println(err)
	// Output:
	// navigate needs the act tier; this session allows observe (--allow act): not permitted
}

// A batch runs steps in one call and answers with one diff for all of
// them; the first step that fails stops it and says which.
func Example_batch() {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Sign up</title><label>Name <input></label><label><input type=checkbox> Terms</label>`)
	}))
	defer page.Close()

	ctx := context.Background()
	sess, err := canopy.Open(ctx, canopy.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	if _, err := sess.Run(ctx, action.Action{Kind: action.Navigate, URL: page.URL}); err != nil {
		log.Fatal(err)
	}
	steps, err := action.ParseSteps(`type role:textbox name:Name "Ada"; check role:checkbox name:Terms`)
	if err != nil {
		log.Fatal(err)
	}
	r, err := sess.Run(ctx, action.Action{Kind: action.Batch, Steps: steps})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(r.Text)
	// Output:
	// ~ textbox "Name" e1: value "" → "Ada"
	// ~ checkbox "Terms" e2: not checked → checked
}

// Model hands a program the tree itself: every node with its role, name,
// states and ref, to walk rather than read.
func Example_model() {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Links</title><nav aria-label="Main"><a href="/a">Docs</a> <a href="/b">Blog</a></nav>`)
	}))
	defer page.Close()

	ctx := context.Background()
	sess, err := canopy.Open(ctx, canopy.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	if _, err := sess.Run(ctx, action.Action{Kind: action.Navigate, URL: page.URL}); err != nil {
		log.Fatal(err)
	}
	snap, err := sess.Model(ctx, action.Action{Kind: action.Snapshot, Target: "role:navigation name:Main"})
	if err != nil {
		log.Fatal(err)
	}
	tree.Walk(snap.Root, func(n *tree.Node) bool {
		if n.Role == "link" {
			fmt.Println(n.Ref, n.Name, strings.TrimPrefix(n.URL, page.URL))
		}
		return true
	})
	// Output:
	// e2 Docs /a
	// e3 Blog /b
}
