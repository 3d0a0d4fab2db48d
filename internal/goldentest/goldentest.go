// Package goldentest compares test output with golden files, the expected
// text of trees and diffs kept under testdata/. Run a package's tests with
// -update to rewrite its golden files from the current output, then review
// the change with git diff.
package goldentest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update is the -update flag of every test binary that imports goldentest.
var update = flag.Bool("update", false, "rewrite golden files from the current output")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with the file at path; with -update it writes got
// there instead. A difference fails the test with a line diff and the
// command that accepts it.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run '%s' -update to create it)", err, t.Name())
	}
	if d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); d != "" {
		t.Errorf("%s differs (-want +got; go test -run '%s' -update accepts it):\n%s\ngot:\n%s", path, t.Name(), d, got)
	}
}
