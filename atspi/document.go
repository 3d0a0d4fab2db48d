//go:build linux

package atspi

import "context"

// ifDocument is the interface of a document (Chromium's web documents).
const ifDocument = "org.a11y.atspi.Document"

// RoleInternalFrame is the role Chromium gives an iframe in web content.
const RoleInternalFrame Role = 28

// DocumentURI returns the address of the document r shows (the Document
// interface's "URI" attribute; Chromium names its own pages chrome://…),
// or "" when the object says none.
func (c *Conn) DocumentURI(ctx context.Context, r Ref) (string, error) {
	var attrs map[string]string
	if err := c.call(ctx, r, ifDocument+".GetAttributes", []any{&attrs}); err != nil {
		return "", err
	}
	return attrs["URI"], nil
}
