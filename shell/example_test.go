package shell_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/shell"
)

// A shell over a session: the page is a folder, a form is a folder in it,
// and an action on a path answers with what changed. The first error
// would stop the run and name its line.
func Example() {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Sign in</title><form aria-label="Login">
			<label>Email <input type=email></label>
			<label><input type=checkbox> Remember me</label>
			<button>Sign in</button></form>`)
	}))
	defer page.Close()

	ctx := context.Background()
	sess, err := canopy.Open(ctx, canopy.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	sh := shell.New(sess.Session, shell.Options{})
	err = sh.Run(ctx, `
		open `+page.URL+` | head -n 0
		ls
		cd form:Login
		type textbox:Email "ada@example.com"
		check 'checkbox:Remember me'
		pwd`, os.Stdout)
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// form:Login/
	// ~ textbox "Email" e2: value "" → "ada@example.com"
	// ~ checkbox "Remember me" e3: not checked → checked
	// /tab1/form:Login
}
