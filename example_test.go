package canopy_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
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
