package site

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
)

// The generated pages for measuring speed at scale (bench/peers): a table
// ten times the size of /table.html, and a page of many same-origin frames.
const (
	// BigTablePath is the 10,000-row table, BigTableRows body rows of
	// TableUser users, each with an "Edit USER" link; clicking one says so
	// in the page's status line ("Editing User 5000").
	BigTablePath = "/table-10k.html"
	BigTableRows = 10000
	// ManyFramesPath is a page of ManyFrames same-origin iframes, each a
	// FrameItemPath document: a heading "Frame N", a short list and a
	// button "Like N", which writes "Liked frame N" into the frame's status
	// line.
	ManyFramesPath = "/frames-50.html"
	ManyFrames     = 50
	// FrameItemPath?n=N is frame N of ManyFramesPath.
	FrameItemPath = "/frame-item.html"
)

// ScaleMarkers returns the markers of the scale pages, keyed by path, in
// the form of PageMarkers. They are kept apart from PageMarkers so that the
// tests that read every page (browser's TestMarkers) do not take a full
// snapshot of 170,000 accessibility nodes; bench/peers measures them.
func ScaleMarkers() map[string]Markers {
	last, _, _ := TableUser(BigTableRows)
	return map[string]Markers{
		BigTablePath: {
			Visible: []string{"Users", "User 0001", "user0001@example.test", last},
		},
		ManyFramesPath: {
			Visible: []string{
				"MARKER-MANY-FRAMES", "Frame 1", "Like 1",
				fmt.Sprintf("Frame %d", ManyFrames), fmt.Sprintf("Like %d", ManyFrames),
			},
			Hidden: []string{"Liked frame"},
		},
	}
}

// serveBigTable writes BigTablePath: like /table.html with BigTableRows
// rows, a status line, and links named after their row's user.
func serveBigTable(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", htmlType)
	if r.Method == http.MethodHead {
		return
	}
	b := bufio.NewWriterSize(w, 64<<10)
	writeUsersHead(b, "Users (10,000)")
	b.WriteString(`<p role="status" id="status"></p>
<table>
<caption>Users</caption>
<thead>
<tr><th scope="col">ID</th><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Action</th></tr>
</thead>
<tbody id="rows">
`)
	for id := 1; id <= BigTableRows; id++ {
		name, email, role := TableUser(id)
		fmt.Fprintf(b, "<tr><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td><a href=\"#edit-%d\" aria-label=\"Edit %s\">Edit</a></td></tr>\n",
			id, name, email, role, id, name)
	}
	b.WriteString(`</tbody>
</table>
<script>
document.getElementById('rows').addEventListener('click', function (e) {
  var a = e.target.closest('a');
  if (!a) return;
  e.preventDefault();
  document.getElementById('status').textContent = 'Editing ' + a.closest('tr').children[1].textContent;
});
</script>
</body>
</html>
`)
	b.Flush() // An error means the client went away; nothing to do.
}

// serveManyFrames writes ManyFramesPath: ManyFrames iframes of
// FrameItemPath, in a grid.
func serveManyFrames(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", htmlType)
	if r.Method == http.MethodHead {
		return
	}
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>%d frames</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2rem}
iframe{width:220px;height:180px;border:1px solid #ccc;margin:4px}
</style>
</head>
<body>
<h1>%d frames</h1>
<p>MARKER-MANY-FRAMES: each frame is a document of this site.</p>
`, ManyFrames, ManyFrames)
	for n := 1; n <= ManyFrames; n++ {
		fmt.Fprintf(b, "<iframe title=\"Frame %d\" src=\"%s?n=%d\"></iframe>\n", n, FrameItemPath, n)
	}
	b.WriteString("</body>\n</html>\n")
	b.Flush() // An error means the client went away; nothing to do.
}

// serveFrameItem writes FrameItemPath?n=N, frame N of ManyFramesPath.
func serveFrameItem(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.URL.Query().Get("n"))
	if err != nil || n < 1 || n > ManyFrames {
		http.Error(w, "n must be 1 to "+strconv.Itoa(ManyFrames), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", htmlType)
	if r.Method == http.MethodHead {
		return
	}
	fmt.Fprintf(w, `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Frame %[1]d</title></head>
<body>
<h2>Frame %[1]d</h2>
<ul><li>Alpha %[1]d</li><li>Beta %[1]d</li><li>Gamma %[1]d</li></ul>
<button type="button" id="like">Like %[1]d</button>
<p role="status" id="status"></p>
<script>
document.getElementById('like').addEventListener('click', function () {
  document.getElementById('status').textContent = 'Liked frame %[1]d';
});
</script>
</body>
</html>
`, n)
}
