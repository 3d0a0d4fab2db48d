package canopy_test

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// crossSystems are the systems canopy must build on (docs/sources.md): what is
// Linux-only sits behind build tags, with a stub elsewhere.
var crossSystems = []string{"linux", "windows", "darwin"}

// TestCrossBuild builds and vets the module (tests included) for every
// system in crossSystems but this one, so a Linux-only call outside the
// build tags fails here rather than on another system's build. It uses the
// build cache: seconds when warm, about a minute when cold. Skipped with
// -short.
func TestCrossBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module for other systems; skipped with -short")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on $PATH:", err)
	}
	for _, goos := range crossSystems {
		if goos == runtime.GOOS {
			continue
		}
		t.Run(goos, func(t *testing.T) {
			// cgo off: a cross build has no C compiler for goos, and
			// canopy needs none.
			env := append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
			// run returns what the command writes to stdout: the go
			// command's progress lines ("go: downloading …", with a cold
			// module cache) go to stderr, shown only when it fails.
			run := func(args ...string) string {
				t.Helper()
				cmd := exec.Command(gotool, args...)
				cmd.Env = env
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("GOOS=%s go %s ./...: %v\n%s%s", goos, args[0], err, out, stderr.Bytes())
				}
				return string(out)
			}
			var pkgs []string
			for p := range strings.Lines(run("list", "-f", "{{.ImportPath}}", "./...")) {
				p = strings.TrimSpace(p)
				// internal/zexplore is scratch space kept out of git.
				if p != "" && !strings.Contains(p, "/internal/zexplore") {
					pkgs = append(pkgs, p)
				}
			}
			if len(pkgs) == 0 {
				t.Fatalf("GOOS=%s go list ./... listed no packages", goos)
			}
			run(append([]string{"build"}, pkgs...)...)
			run(append([]string{"vet"}, pkgs...)...)
		})
	}
}
