package site

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestScalePages: the 10,000-row table has every row and names each link
// after its user; the frames page embeds ManyFrames frame documents; the
// markers are in the sources (frames included) and no path of
// ScaleMarkers is also in PageMarkers.
func TestScalePages(t *testing.T) {
	s := startSite(t)
	c := newClient(t)
	_, body := get(t, c, s.URL(BigTablePath))
	page := string(body)
	if n := strings.Count(page, "<tr><td>"); n != BigTableRows {
		t.Errorf("%s has %d body rows, want %d", BigTablePath, n, BigTableRows)
	}
	for _, want := range []string{
		`<td>5000</td><td>User 5000</td>`,
		`<a href="#edit-5000" aria-label="Edit User 5000">Edit</a>`,
		`<td>10000</td><td>User 10000</td><td>user10000@example.test</td>`,
		`role="status"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("%s does not contain %q", BigTablePath, want)
		}
	}
	_, body = get(t, c, s.URL(ManyFramesPath))
	if n := strings.Count(string(body), "<iframe "); n != ManyFrames {
		t.Errorf("%s has %d iframes, want %d", ManyFramesPath, n, ManyFrames)
	}
	_, body = get(t, c, s.URL(fmt.Sprintf("%s?n=%d", FrameItemPath, 25)))
	for _, want := range []string{"<h2>Frame 25</h2>", ">Like 25</button>", "'Liked frame 25'"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("frame 25 does not contain %q", want)
		}
	}
	for _, bad := range []string{"0", "51", "x"} {
		if resp, _ := get(t, c, s.URL(FrameItemPath+"?n="+bad)); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s?n=%s: status %d, want 400", FrameItemPath, bad, resp.StatusCode)
		}
	}

	pages := PageMarkers()
	for p, m := range ScaleMarkers() {
		if _, ok := pages[p]; ok {
			t.Errorf("%s is in both ScaleMarkers and PageMarkers", p)
		}
		src := sourceWithFrames(t, c, s.URL(p))
		for _, v := range m.Visible {
			if !strings.Contains(src, v) {
				t.Errorf("%s: Visible marker %q not in the page or its frames", p, v)
			}
		}
		for _, h := range m.Hidden {
			if !strings.Contains(src, h) {
				t.Errorf("%s: Hidden marker %q not in the page source, so it tests nothing", p, h)
			}
		}
	}
}
