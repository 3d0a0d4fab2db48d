package extract

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.golden files from the current output")

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
	if *update {
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./extract -update to create it)", err)
	}
	if got+"\n" != string(want) {
		t.Errorf("%s differs from %s (go test ./extract -update rewrites it)\n--- got:\n%s\n--- want:\n%s", name, path, got, want)
	}
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
