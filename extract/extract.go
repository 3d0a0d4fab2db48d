// Package extract turns a page, or one scope of it, into the content format
// an agent asked for with the extract action (docs/actions.md): markdown, plain text,
// tables, links, or form values.
//
// Every format but form works on HTML — the document's or a scope element's
// outerHTML as the browser serialises it — plus the page URL to make links
// absolute. Form values come from the cleaned accessibility tree instead,
// because the tree carries the live value and state of each control (what the
// user typed), which outerHTML does not.
//
// Whatever the format, hidden content ([hidden], aria-hidden="true",
// display:none inline styles, closed details and dialogs, hidden inputs) and
// non-visual elements (script, style, template, noscript, svg) are left out,
// and the value of a password field is never part of any output.
package extract

import (
	"fmt"
	"strings"
)

// Format names an extract output format. The zero value is not valid; build
// one with [ParseFormat] or use the constants.
type Format string

// The formats an agent may ask for.
const (
	// FormatMarkdown is the page's main content (or a scope) as Markdown.
	FormatMarkdown Format = "markdown"
	// FormatText is the visible text, one block per line.
	FormatText Format = "text"
	// FormatTable is every data table in the page or scope, as pipe tables.
	FormatTable Format = "table"
	// FormatLinks is every link, deduplicated, with an absolute URL.
	FormatLinks Format = "links"
	// FormatForm is every form control's current value or state, from the tree.
	FormatForm Format = "form"
)

// Formats lists the valid formats in the order they are documented, for
// help texts and tool schemas.
var Formats = []Format{FormatMarkdown, FormatText, FormatTable, FormatLinks, FormatForm}

// ParseFormat returns the format named s (case-insensitive, surrounding
// spaces ignored). "tables" and "md" are accepted as aliases because agents
// write them. An unknown name is an error that lists the valid ones, so the
// agent can correct itself in one step.
func ParseFormat(s string) (Format, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	switch k {
	case "md":
		return FormatMarkdown, nil
	case "tables":
		return FormatTable, nil
	case "link":
		return FormatLinks, nil
	}
	for _, f := range Formats {
		if k == string(f) {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown extract format %q (one of: %s)", s, strings.Join(names, ", "))
}

// NeedsTree reports whether f is computed from the accessibility tree
// ([Form]) rather than from HTML, so a source knows what to fetch.
func (f Format) NeedsTree() bool { return f == FormatForm }

// String returns the format's name.
func (f Format) String() string { return string(f) }

// FromHTML runs the HTML-based format f on src and returns the text an agent
// sees: Markdown, Text, or the rendered Tables or Links. whole says src is the
// whole document (Markdown then looks for the main article first) rather than
// one scope's outerHTML. FormatForm is an error here: it needs the tree (see
// [Form] and [Format.NeedsTree]).
func FromHTML(f Format, src, pageURL string, whole bool) (string, error) {
	switch f {
	case FormatMarkdown:
		return Markdown(src, pageURL, whole)
	case FormatText:
		return Text(src)
	case FormatTable:
		ts, err := Tables(src)
		if err != nil {
			return "", err
		}
		return RenderTables(ts), nil
	case FormatLinks:
		ls, err := Links(src, pageURL)
		if err != nil {
			return "", err
		}
		return RenderLinks(ls), nil
	case FormatForm:
		return "", fmt.Errorf("extract format %q reads the accessibility tree, not HTML", f)
	}
	_, err := ParseFormat(string(f))
	return "", err
}
