package mcp_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy/mcp"
)

// An MCP server in a program or a test: serve canopy's tools on the SDK's
// in-memory transports and list them as a client would. The browser starts
// only with the first call that needs it; evaluate is not listed, since the
// default tier (act) does not allow it.
func Example() {
	ctx := context.Background()
	srv, err := mcp.New(mcp.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	client := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	fmt.Println(strings.Join(names, " "))
	// Output:
	// batch check click clipboard dialog drag extract find hover navigate permissions press print screenshot scroll select shell snapshot tabs type upload wait
}
