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

// --domains: an allowlist with a refusal carved out of it. The policy
// judges navigations before they load; the browser, given the same list
// (browser.Options.Domains = p.Domains()), judges every document it
// requests.
func ExampleDomains() {
	p, err := policy.Open(action.Act, policy.Domains("*.example.com", "127.0.0.1:8080", "!ads.example.com"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range []string{
		"https://www.example.com/a", "http://127.0.0.1:8080/login", "http://127.0.0.1:9090/",
		"https://ads.example.com/x", "data:text/html,hi", "about:blank",
	} {
		if err := p.Domains().Allows(u); err != nil {
			fmt.Println("refused:", err)
			continue
		}
		fmt.Println("allowed:", u)
	}
	_, err = policy.Open(action.Act, policy.Domains("example.com/login"))
	fmt.Println(err)
	// Output:
	// allowed: https://www.example.com/a
	// allowed: http://127.0.0.1:8080/login
	// refused: 127.0.0.1:9090 is not in --domains (*.example.com, 127.0.0.1:8080): not permitted
	// refused: ads.example.com is refused by --domains (!ads.example.com): not permitted
	// refused: data: URLs are not in --domains (*.example.com, 127.0.0.1:8080): not permitted
	// allowed: about:blank
	// --domains "example.com/login": a pattern names a host (example.com, *.example.com, host:port), not a path or address
}
