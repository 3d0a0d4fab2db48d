package site

import (
	"bufio"
	"fmt"
	"net/http"
)

// Sizes of the generated pages.
const (
	// TableRows is the number of body rows in /table.html.
	TableRows = 1000
	// HugeItems is the number of list items in /huge.html. Each item has
	// five elements, so the page has just over 100,000 elements (and well
	// over that many DOM nodes once text nodes are counted).
	HugeItems = 20000
)

// TableUser returns the deterministic contents of row id (1-based) of
// /table.html: the user's name, email address and role. For example,
// TableUser(1) returns "User 0001", "user0001@example.test", "Admin".
func TableUser(id int) (name, email, role string) {
	roles := [...]string{"Admin", "Editor", "Viewer"}
	return fmt.Sprintf("User %04d", id),
		fmt.Sprintf("user%04d@example.test", id),
		roles[(id-1)%len(roles)]
}

// writeUsersHead writes the start of the users pages (/table.html,
// /grid.html): the document head with its title and table style, and the
// "Users" heading.
func writeUsersHead(b *bufio.Writer, title string) {
	b.WriteString(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>` + title + `</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2rem}
table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:.2rem .6rem;text-align:left}
</style>
</head>
<body>
<h1>Users</h1>
`)
}

// serveTable writes /table.html: a captioned table of TableRows users, each
// row ending in an "Edit" link.
func serveTable(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", htmlType)
	if r.Method == http.MethodHead {
		return
	}
	b := bufio.NewWriter(w)
	writeUsersHead(b, "Users")
	b.WriteString(`<table>
<caption>Users</caption>
<thead>
<tr><th scope="col">ID</th><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Action</th></tr>
</thead>
<tbody>
`)
	for id := 1; id <= TableRows; id++ {
		name, email, role := TableUser(id)
		fmt.Fprintf(b, "<tr><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td><a href=\"#edit-%d\">Edit</a></td></tr>\n",
			id, name, email, role, id)
	}
	b.WriteString("</tbody>\n</table>\n</body>\n</html>\n")
	b.Flush() // An error means the client went away; nothing to do.
}

// serveHuge writes /huge.html: a list of HugeItems items, each holding a
// number, a link, a tag and a note. The first item contains the marker
// HUGE-FIRST and the last HUGE-LAST.
func serveHuge(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", htmlType)
	if r.Method == http.MethodHead {
		return
	}
	tags := [...]string{"red", "green", "blue", "amber"}
	b := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(b, `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Huge page</title>
</head>
<body>
<h1>Huge page</h1>
<p>A list of %d items.</p>
<ul>
`, HugeItems)
	for i := 1; i <= HugeItems; i++ {
		label := fmt.Sprintf("Item %d", i)
		switch i {
		case 1:
			label = "HUGE-FIRST " + label
		case HugeItems:
			label = "HUGE-LAST " + label
		}
		fmt.Fprintf(b, "<li><b>%d</b> <a href=\"#item-%d\">%s</a> <em>%s</em> <small>note %d</small></li>\n",
			i, i, label, tags[i%len(tags)], i)
	}
	b.WriteString("</ul>\n</body>\n</html>\n")
	b.Flush() // An error means the client went away; nothing to do.
}
