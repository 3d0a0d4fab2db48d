package policy_test

import (
	"context"
	"fmt"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
)

// A session's policy decides on the whole action: the same navigate is
// allowed to a web page and refused to a javascript: URL, and uploads at
// act come only from the files folder.
func Example() {
	ctx := context.Background()
	p := policy.New(action.Act, policy.Files("/srv/files"))
	ask := func(a action.Action) {
		if _, err := p.Permit(ctx, policy.Request{Action: a}); err != nil {
			fmt.Println("refused:", err)
			return
		}
		fmt.Println("allowed:", a)
	}
	ask(action.Action{Kind: action.Navigate, URL: "example.com/login"})
	ask(action.Action{Kind: action.Navigate, URL: "javascript:alert(document.cookie)"})
	ask(action.Action{Kind: action.Upload, Target: "e4", Paths: []string{"/srv/files/cv.pdf"}})
	ask(action.Action{Kind: action.Upload, Target: "e4", Paths: []string{"/etc/shadow"}})
	// Output:
	// allowed: navigate "example.com/login"
	// refused: navigate needs the sensitive tier; this session allows act (--allow sensitive): not permitted
	// allowed: upload e4 "/srv/files/cv.pdf"
	// refused: upload of /etc/shadow needs the sensitive tier: at act, files come only from /srv/files (--files DIR): not permitted
}
