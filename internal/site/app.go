package site

import (
	"bufio"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// ReportText is the body of /download/report.txt, served as an attachment.
const ReportText = "quarterly report\n"

// serveReport writes /download/report.txt as a download (Content-Disposition:
// attachment), for the download outcome.
func serveReport(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Disposition", `attachment; filename="report.txt"`)
	fmt.Fprint(w, ReportText)
}

// serveNamed writes /download/named?name=N: a download whose server
// suggests the file name N as it is, for tests that a suggested name such
// as "../../x" or "/etc/x" cannot put the file outside the downloads folder.
func serveNamed(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", r.URL.Query().Get("name")))
	fmt.Fprint(w, ReportText)
}

// serveNamedLinks writes /download/links?name=A&name=B: a page with a
// link "Download N" to /download/named for each name (N counts from 1).
func serveNamedLinks(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", htmlType)
	fmt.Fprint(w, "<!doctype html><title>Named downloads</title>\n")
	for i, name := range r.URL.Query()["name"] {
		fmt.Fprintf(w, "<p><a href=\"/download/named?name=%s\">Download %d</a></p>\n", html.EscapeString(url.QueryEscape(name)), i+1)
	}
}

// serveGrid writes /grid.html: the TableRows users of /table.html in an
// editable grid. Each row has Edit and Delete buttons; Edit turns the name
// cell into a text box with Save; Delete asks confirm(). A filter box hides
// rows whose name does not contain its text.
func serveGrid(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", htmlType)
	if r.Method == http.MethodHead {
		return
	}
	b := bufio.NewWriter(w)
	writeUsersHead(b, "Users grid")
	b.WriteString(`<label for="filter">Filter</label> <input id="filter" type="search">
<p role="status" id="status"></p>
<table>
<caption>Users</caption>
<thead>
<tr><th scope="col">ID</th><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Actions</th></tr>
</thead>
<tbody id="rows">
`)
	for id := 1; id <= TableRows; id++ {
		name, email, role := TableUser(id)
		fmt.Fprintf(b, "<tr data-id=\"%d\"><td>%d</td><td class=\"name\">%s</td><td>%s</td><td>%s</td><td><button class=\"edit\" aria-label=\"Edit %s\">Edit</button> <button class=\"del\" aria-label=\"Delete %s\">Delete</button></td></tr>\n",
			id, id, name, email, role, name, name)
	}
	b.WriteString(`</tbody>
</table>
<script>
var rows = document.getElementById('rows'), statusLine = document.getElementById('status');
rows.addEventListener('click', function (e) {
  var b = e.target.closest('button');
  if (!b) return;
  var tr = b.closest('tr'), cell = tr.querySelector('.name');
  if (b.classList.contains('edit')) {
    var old = cell.textContent;
    cell.innerHTML = '<input aria-label="Name"> <button class="save">Save</button>';
    cell.querySelector('input').value = old;
    b.disabled = true;
  } else if (b.classList.contains('save')) {
    var v = cell.querySelector('input').value;
    cell.textContent = v;
    tr.querySelector('.edit').disabled = false;
    tr.querySelector('.edit').setAttribute('aria-label', 'Edit ' + v);
    tr.querySelector('.del').setAttribute('aria-label', 'Delete ' + v);
    statusLine.textContent = 'Saved ' + v;
  } else if (b.classList.contains('del')) {
    if (confirm('Delete ' + cell.textContent + '?')) { tr.remove(); statusLine.textContent = 'Deleted ' + cell.textContent; }
  }
});
document.getElementById('filter').addEventListener('input', function () {
  var q = this.value.toLowerCase(), n = 0;
  rows.querySelectorAll('tr').forEach(function (tr) {
    var show = tr.querySelector('.name').textContent.toLowerCase().indexOf(q) >= 0;
    tr.hidden = !show;
    if (show) n++;
  });
  statusLine.textContent = n + ' users shown';
});
</script>
</body>
</html>
`)
	b.Flush() // An error means the client went away; nothing to do.
}

// serveCookie writes /cookie?set=V: a page that sets the cookie "who" to V
// when given, and shows the cookie the browser sent — for tests that two
// sessions do not share cookies.
func serveCookie(w http.ResponseWriter, r *http.Request) {
	sent := "(none)"
	if c, err := r.Cookie("who"); err == nil {
		sent = c.Value
	}
	if v := r.URL.Query().Get("set"); v != "" {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: v, Path: "/"})
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<title>Cookie</title><h1>cookie sent: %s</h1>", html.EscapeString(sent))
}

// serveBigText writes /bigtext?kb=N: a page whose one paragraph holds N KB
// of text (default 5,120), for tests that replies stay bounded. The HTML
// parser splits long text into nodes of 64 K characters; with node=1 a
// script puts the text in one node instead.
func serveBigText(w http.ResponseWriter, r *http.Request) {
	kb := 5 << 10
	if n, err := strconv.Atoi(r.URL.Query().Get("kb")); err == nil && n > 0 && n <= 64<<10 {
		kb = n
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.URL.Query().Get("node") == "1" {
		fmt.Fprintf(w, "<title>Big text</title><h1>Big text</h1><p id=big></p><p>The end.</p>"+
			"<script>document.getElementById('big').textContent = (%q).repeat(%d)</script>", strings.Repeat("lorem ipsum ", 85)+"\n", kb)
		return
	}
	fmt.Fprint(w, "<title>Big text</title><p>")
	line := strings.Repeat("lorem ipsum ", 85) + "\n" // 1 KB
	for range kb {
		fmt.Fprint(w, line)
	}
	fmt.Fprint(w, "</p>")
}
