package extract

import (
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{
		"markdown": FormatMarkdown, " Text ": FormatText, "table": FormatTable, "tables": FormatTable,
		"links": FormatLinks, "form": FormatForm, "MD": FormatMarkdown,
	} {
		got, err := ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseFormat("pdf")
	if err == nil || !strings.Contains(err.Error(), "markdown, text, table, links, form") {
		t.Errorf("ParseFormat(pdf) error = %v; want one listing the formats", err)
	}
	if !FormatForm.NeedsTree() || FormatMarkdown.NeedsTree() {
		t.Error("NeedsTree: only form reads the tree")
	}
	if _, err := FromHTML(FormatForm, "<p>x</p>", pageURL, true); err == nil {
		t.Error("FromHTML(form) should fail: form reads the tree")
	}
	if _, err := FromHTML("pdf", "<p>x</p>", pageURL, true); err == nil {
		t.Error("FromHTML(pdf) should fail")
	}
}

func TestMarkdownKeepsArticleDropsNoise(t *testing.T) {
	md, err := Markdown(fixture(t, "article"), pageURL, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"# How Small Robots Are Changing Urban Gardens",
		"## How the robots work",
		"## Early results",
		"Community gardens in three cities",
		"[Elm Street Community Garden](https://news.example.com/gardens/elm-street)", // ../../ resolved
		"https://news.example.com/2024/05/images/robot-bed.jpg",                      // relative image
		"|Elm Street|14|8|",
		"- Top speed: 0.5 km/h",
		"```\nrobot status --garden elm-street\nbattery: 82%   weeds pulled today: 311\n```",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q", s)
		}
	}
	for _, s := range []string{
		"Opinion", "Most read", "City budget", "Subscriber login", "All rights reserved",
		"We use cookies", "Share on Twitter", "Advertisement", "Editor note", "dataLayer",
		"javascript:", "\n\n\n",
	} {
		if strings.Contains(md, s) {
			t.Errorf("markdown keeps %q", s)
		}
	}
}

func TestMarkdownScope(t *testing.T) {
	scope := `<section class="share" aria-label="Share">
	  <h2>Share   this</h2>
	  <p>Send it to <a href="/friends?x=1&y=2">friends</a>, or <a href="javascript:share()">share</a>.</p>



	  <p><img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUg" alt="QR code"> <a href="#top">¶</a></p>
	</section>`
	md, err := Markdown(scope, pageURL, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "## Share this\n\nSend it to [friends](https://news.example.com/friends?x=1&y=2), or share.\n\nQR code"
	if md != want {
		t.Errorf("Markdown(scope) =\n%q\nwant\n%q", md, want)
	}

	// A scope that is one table row still converts: it is parsed inside a table.
	row, err := Tables(`<tr><td>Ann</td><td>555-0101</td></tr>`)
	if err != nil || len(row) != 1 || !reflect.DeepEqual(row[0].Rows, [][]string{{"Ann", "555-0101"}}) {
		t.Errorf("Tables(row scope) = %#v, %v", row, err)
	}
}

func TestMarkdownFallsBackToBody(t *testing.T) {
	// A login page is no article: readability finds nothing worth keeping.
	page := `<html><head><title>Sign in</title></head><body>
	  <nav><a href="/">Home</a></nav>
	  <main><h1>Sign in to Acme</h1><form><label>Email <input name=e></label>
	  <button>Continue</button></form><p>New here? <a href="/signup">Create an account</a></p></main></body></html>`
	md, err := Markdown(page, "https://acme.test/login", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"# Sign in to Acme", "[Create an account](https://acme.test/signup)", "[Home](https://acme.test/)"} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q:\n%s", s, md)
		}
	}
}

// TestPasswordNeverOutput feeds every HTML format pages and scopes with
// filled password fields and checks the secrets appear nowhere.
func TestPasswordNeverOutput(t *testing.T) {
	secrets := []string{"hunter2-SECRET", "pa55-SECRET", "auto-SECRET", "tok-CSRF-123", "HIDDEN-TOKEN"}
	login := `<form id="login"><h2>Log in</h2>
	  <p>Welcome back. Enter your details to continue to your dashboard and see your orders.</p>
	  <label>User <input type="text" name="u" value="jdoe"></label>
	  <label>Password <input type="PASSWORD" name="p" value="hunter2-SECRET"></label>
	  <label>Again <input type="text" autocomplete="current-password" value="auto-SECRET"></label>
	  <table><tr><th>Field</th><th>Input</th></tr><tr><td>PIN</td><td><input type=password value="pa55-SECRET"></td></tr></table>
	  <a href="/forgot"><input type="password" value="pa55-SECRET">Forgot?</a>
	</form>`
	pages := map[string]string{
		"article": fixture(t, "article"),
		"hidden":  fixture(t, "hidden"),
		"login":   login,
	}
	for name, src := range pages {
		for _, f := range []Format{FormatMarkdown, FormatText, FormatTable, FormatLinks} {
			for _, whole := range []bool{true, false} {
				got, err := FromHTML(f, src, pageURL, whole)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range secrets {
					if strings.Contains(got, s) {
						t.Errorf("%s %s whole=%v: output contains %q:\n%s", name, f, whole, s, got)
					}
				}
			}
		}
	}
}

func TestTextHidesHidden(t *testing.T) {
	got, err := Text(fixture(t, "hidden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"Secret admin panel", "Decorative duplicate", "Invisible promo", "Invisible span",
		"Template row", "enable JavaScript", "sk-SCRIPT", "color:red", "HIDDEN-TOKEN",
		"pa55-SECRET", "Closed details body", "Textarea default", "Deutsch", "jdoe",
	} {
		if strings.Contains(got, s) {
			t.Errorf("text contains hidden %q", s)
		}
	}
	for _, s := range []string{
		"Account settings\n", "Your plan: Pro, renews on June 1.\n", "Save changes", "Advanced\n",
		"Card ending 4242", "First item\nSecond item\n", "Line one\nLine two\n", "Cell A\tCell B",
	} {
		if !strings.Contains(got, s) {
			t.Errorf("text lacks %q:\n%s", s, got)
		}
	}
	if strings.Contains(got, "\n\n") || strings.Contains(got, "  Pro") {
		t.Errorf("text has blank lines or uncollapsed spaces:\n%s", got)
	}
}

func TestLinks(t *testing.T) {
	got, err := Links(fixture(t, "links"), "https://ignored.example/page")
	if err != nil {
		t.Fatal(err)
	}
	want := []Link{
		{"Introduction", "https://docs.example.com/v2/guide/intro.html"}, // <base href>, duplicate dropped
		{"Getting started", "https://docs.example.com/v2/guide/intro.html"},
		{"API reference", "https://docs.example.com/api/"},
		{"Install section", "https://docs.example.com/v2/#install"},
		{"GitHub repository", "https://github.com/example/project"}, // img alt
		{"Follow us on Twitter", "https://twitter.example/proj"},    // aria-label
		{"Settings", "https://docs.example.com/v2/settings"},        // title
		{"Download the zip [beta]", "https://cdn.example.net/file%20%281%29.zip"},
		{"Email support", "mailto:help@example.com"},
		{"North region", "https://docs.example.com/v2/region/north"}, // <area alt>
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Links =\n%#v\nwant\n%#v", got, want)
	}
	out := RenderLinks(got)
	for _, s := range []string{
		"- [Introduction](https://docs.example.com/v2/guide/intro.html)\n",
		"- [Download the zip \\[beta\\]](https://cdn.example.net/file%20%281%29.zip)\n",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("RenderLinks lacks %q:\n%s", s, out)
		}
	}
	if RenderLinks(nil) != "no links" {
		t.Error("RenderLinks(nil) should say no links")
	}
	long := RenderLinks([]Link{{strings.Repeat("word ", 40), "https://x.test/"}})
	if !strings.Contains(long, "…](https://x.test/)") || len([]rune(long)) > 140 {
		t.Errorf("long link text not cut: %s", long)
	}
}

func TestTables(t *testing.T) {
	got, err := Tables(fixture(t, "table"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Table{
		{
			Caption: "Sales by region (units)",
			Header:  []string{"Region", "2023 / H1", "2023 / H2", "2024 / H1", "2024 / H2"},
			Rows: [][]string{
				{"North", "1,200", "1,350", "1,410", "n/a"},
				{"South | Coast", "2,000 (whole year)", "2,000 (whole year)", "1,100", "1,250"},
				{"West", "900", "980", "1,020", "1,090"}, // empty row dropped
				{"East", "700", "720", "1,020", "760"},   // rowspan repeated
				{"Total", "3,800", "4,050", "4,290", "2,340"},
			},
		},
		{Rows: [][]string{{"Name", "Phone"}, {"Ann", "555-0101"}, {"Bob", "555-0102"}}}, // inside a layout table
		{
			Header: []string{"Product", "Details"},
			Rows:   [][]string{{"Widget", "Colour red; Size M"}, {"Gadget", "plain text over two lines"}}, // nested table as text
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tables =\n%#v\nwant\n%#v", got, want)
	}
	if s := got[0].String(); !strings.Contains(s, "|South \\| Coast|") || !strings.HasPrefix(s, "|Region|2023 / H1|") {
		t.Errorf("Table.String =\n%s", s)
	}
	if RenderTables(nil) != "no tables" {
		t.Error("RenderTables(nil) should say no tables")
	}
}

func TestTablesARIAGrid(t *testing.T) {
	got, err := Tables(fixture(t, "grid"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Table{{
		Caption: "Inbox", // aria-labelledby
		Header:  []string{"From", "Subject", "Received", "Starred"},
		Rows: [][]string{
			{"Alice Chen", "Lunch on Friday?", "10:42", "starred"}, // icon's aria-label
			{"Build bot", "main is green again", "09:15", ""},      // hidden row left out
		},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tables(grid) =\n%#v\nwant\n%#v", got, want)
	}
}

func TestLayoutSpans(t *testing.T) {
	c := func(s string, cs, rs int) rawCell { return rawCell{text: s, colspan: cs, rowspan: rs} }
	rows := []rawRow{
		{cells: []rawCell{c("a", 1, 3), c("b", 2, 1)}},
		{cells: []rawCell{c("c", 1, 1)}}, // short row: padded
		{cells: []rawCell{c("d", 1, 1), c("e", 1, 1)}},
		{cells: []rawCell{c("f", 1, 99)}}, // rowspan past the end is capped
	}
	got := layout(rows)
	want := [][]string{{"a", "b", "b"}, {"a", "c", ""}, {"a", "d", "e"}, {"f", "", ""}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("layout = %q, want %q", got, want)
	}
}

func TestTidy(t *testing.T) {
	in := "\n\n# T\n\n\n\npara\n\n\n```\ncode\n\n\n\nmore\n```\n\n\n\nend\n\n"
	want := "# T\n\npara\n\n```\ncode\n\n\n\nmore\n```\n\nend"
	if got := tidy(in); got != want {
		t.Errorf("tidy = %q, want %q", got, want)
	}
}

func TestTextInlineSpacing(t *testing.T) {
	got, err := Text(`<p>a<b>b</b> <i>c</i>&nbsp;&nbsp;d<span> e </span>f</p><div>x<br><br>y</div><li>one</li>`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "ab c d e f\nx\ny\none"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

// TestPythonDocs converts a real, large page: the Python os module docs
// from Debian's python3-doc package.
func TestPythonDocs(t *testing.T) {
	const path = "/usr/share/doc/python3/html/library/os.html"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("python3-doc not installed (%v); apt-get install python3-doc to run this test", err)
	}
	md, err := Markdown(string(b), "file://"+path, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"# os — Miscellaneous operating system interfaces",
		"## Process Parameters",
		"## Files and Directories",
		"## Process Management",
		"os.walk(",
		"os.getcwd()",
		"(file:///usr/share/doc/python3/html/library/os.html#os.fork)",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("os.html markdown lacks %q", s)
		}
	}
	for _, s := range []string{"¶", "http://file:", "Permalink to this", "Table of Contents", "Previous topic", "\n\n\n"} {
		if strings.Contains(md, s) {
			t.Errorf("os.html markdown keeps %q", s)
		}
	}
	if len(md)*3 > len(b) {
		t.Errorf("markdown is %d bytes of %d HTML bytes; want under a third", len(md), len(b))
	}
}

// TestConcurrent runs every format at once; with -race it checks the shared
// converter and tables are safe.
func TestConcurrent(t *testing.T) {
	src := fixture(t, "article")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		for _, f := range []Format{FormatMarkdown, FormatText, FormatTable, FormatLinks} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := FromHTML(f, src, pageURL, i%2 == 0); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
}

func TestMarkdownIconLinks(t *testing.T) {
	md, err := Markdown(`<p>Follow: <a href="/tw" aria-label="Twitter"><span class="icon"></span></a></p>
	  <table><tr><th>Name</th><th>Actions</th></tr>
	  <tr><td>Ann</td><td><a href="/edit/1" title="Edit"><i class="pen"></i></a></td></tr></table>`, "https://acme.test/", false)
	if err != nil {
		t.Fatal(err)
	}
	want := "Follow: [Twitter](https://acme.test/tw)\n\n|Name|Actions|\n|---|---|\n|Ann|[Edit](https://acme.test/edit/1)|"
	if md != want {
		t.Errorf("Markdown =\n%q\nwant\n%q", md, want)
	}
}
