package extract

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/canopy-dev/canopy/internal/goldentest"
)

// pageURL is where the fixtures pretend to live.
const pageURL = "https://news.example.com/2024/05/garden-robots.html"

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".html"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	goldentest.Check(t, path, got+"\n")
}

// TestGolden runs each HTML format over the fixtures it exercises and holds
// the whole output to a golden file, so any change in what agents see is
// reviewed as a diff.
func TestGolden(t *testing.T) {
	cases := []struct {
		fixture string
		formats []Format
	}{
		{"article", []Format{FormatMarkdown, FormatText, FormatTable, FormatLinks}},
		{"table", []Format{FormatMarkdown, FormatText, FormatTable}},
		{"grid", []Format{FormatMarkdown, FormatText, FormatTable}},
		{"links", []Format{FormatLinks, FormatMarkdown}},
		{"hidden", []Format{FormatMarkdown, FormatText}},
	}
	for _, c := range cases {
		src := fixture(t, c.fixture)
		for _, f := range c.formats {
			t.Run(c.fixture+"/"+string(f), func(t *testing.T) {
				got, err := FromHTML(f, src, pageURL, true)
				if err != nil {
					t.Fatal(err)
				}
				golden(t, c.fixture+"."+string(f), got)
			})
		}
	}
}
