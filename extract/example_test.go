package extract_test

import (
	"fmt"

	"github.com/canopy-dev/canopy/extract"
	"github.com/canopy-dev/canopy/tree"
)

// A scope the agent named by ref, converted to Markdown: links become
// absolute, the password's value never appears.
func ExampleMarkdown() {
	scope := `<form><h2>Sign in</h2>
	  <p>New here? <a href="../signup">Create an account</a>.</p>
	  <label>Password <input type="password" value="hunter2"></label>
	</form>`
	md, err := extract.Markdown(scope, "https://acme.test/app/login", false)
	if err != nil {
		panic(err)
	}
	fmt.Println(md)
	// Output:
	// ## Sign in
	//
	// New here? [Create an account](https://acme.test/signup).
	//
	// Password
}

// The format name comes from the agent; FromHTML runs it on the page HTML.
func ExampleFromHTML() {
	f, err := extract.ParseFormat("table")
	if err != nil {
		panic(err)
	}
	page := `<table><caption>Plans</caption>
	  <tr><th>Plan</th><th>Price</th></tr>
	  <tr><td>Basic</td><td>$5</td></tr>
	  <tr><td>Team | Pro</td><td>$12</td></tr>
	</table>`
	out, err := extract.FromHTML(f, page, "https://acme.test/pricing", true)
	if err != nil {
		panic(err)
	}
	fmt.Println(out)
	// Output:
	// Table 1: Plans
	// |Plan|Price|
	// |-|-|
	// |Basic|$5|
	// |Team \| Pro|$12|
}

func ExampleLinks() {
	links, err := extract.Links(`<a href="/docs">Docs</a> <a href="/docs">Docs</a>
	  <a href="javascript:void(0)">Menu</a> <a href="https://x.test/gh"><img alt="GitHub"></a>`,
		"https://acme.test/")
	if err != nil {
		panic(err)
	}
	fmt.Println(extract.RenderLinks(links))
	// Output:
	// - [Docs](https://acme.test/docs)
	// - [GitHub](https://x.test/gh)
}

// Form values come from the tree, which holds what the user typed.
func ExampleForm() {
	root := &tree.Node{Role: "form", Name: "Sign in", Ref: "e10", Children: []*tree.Node{
		{Role: "textbox", Name: "Email", Ref: "e13", Value: "a@b.c"},
		{Role: "textbox", Name: "Password", Ref: "e14", Value: "hunter2", States: tree.Protected},
		{Role: "checkbox", Name: "Remember me", Ref: "e16", States: tree.Checked},
	}}
	fmt.Println(extract.Form(root))
	// Output:
	// form "Sign in" e10
	//   textbox "Email" e13 = "a@b.c"
	//   textbox "Password" e14 = (protected)
	//   checkbox "Remember me" e16 = checked
}
