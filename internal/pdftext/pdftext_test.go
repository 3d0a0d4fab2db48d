package pdftext

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// flate compresses s as a FlateDecode stream holds it.
func flate(s string) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.Bytes()
}

// build makes a PDF of numbered objects; a stream object's body is its
// dictionary, then its data.
func build(objs ...[2]string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xd3\xeb\xe9\xe1\n")
	for i, o := range objs {
		fmt.Fprintf(&b, "%d 0 obj\n", i+1)
		if o[1] == "" {
			b.WriteString(o[0])
		} else {
			fmt.Fprintf(&b, "<<%s /Length %d>>\nstream\n%s\nendstream", o[0], len(o[1]), o[1])
		}
		b.WriteString("\nendobj\n")
	}
	b.WriteString("trailer\n<</Root 1 0 R>>\n%%EOF\n")
	return b.Bytes()
}

// TestText reads a PDF as Chromium writes one: a page whose Identity-H
// font maps its glyphs through a ToUnicode CMap (bfchar and bfrange, an
// array range too), text cut at kerning (Tj after Td, TJ arrays), a simple
// font's literal strings with escapes, an uncompressed stream, an image,
// and a UTF-16 title.
func TestText(t *testing.T) {
	cmap := `/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
1 begincodespacerange
<0000> <FFFF>
endcodespacerange
2 beginbfchar
<0003> <0020>
<0010> <002D>
endbfchar
2 beginbfrange
<0044> <005D> <0061>
<0014> <0016> [<0031> <0032> <0033>]
endbfrange
endcmap
end
end`
	// "abc 123-xyz" in glyphs: a=0x44.
	content := `BT /F4 12 Tf 1 0 0 -1 8 50 Tm <004400450046> Tj 8.6 0 Td <0003> Tj [<0014> -12 <00150016>] TJ ET
BT /F5 10 Tf (\(lit\) s\145cret\
ly) Tj ET`
	pdf := build(
		[2]string{`<</Title <FEFF00540069007400eb006c0065> /URI (http://a.example/?q=1) /Subject (mainstream)>>`},
		[2]string{`/Type /Page /Resources <</Font <</F4 3 0 R /F5 5 0 R>> /XObject <</X1 6 0 R>>>> /Contents [7 0 R 8 0 R] /Filter /FlateDecode`, string(flate(content))},
		[2]string{`<</Type /Font /Subtype /Type0 /Encoding /Identity-H /ToUnicode 4 0 R>>`},
		[2]string{`/Filter /FlateDecode`, string(flate(cmap))},
		[2]string{`<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>`},
		[2]string{`/Subtype /Image /Filter /DCTDecode`, "\xff\xd8 BT (no) Tj ET"},
		[2]string{`/Keywords (a stream >> stream)`, `BT /F4 1 Tf <0010004D> Tj ET`},
		[2]string{`/Filter [/FlateDecode]`, string(flate(`BT /F5 1 Tf <41> Tj ET`))},
	)
	got, err := Text(pdf)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"abc 123", "(lit) secretly", "-j", "A", "Titële", "http://a.example/?q=1"} {
		if !strings.Contains(got, want) {
			t.Errorf("the text does not hold %q:\n%s", want, got)
		}
	}
	if slices.Contains(strings.Split(got, "\n"), "no") {
		t.Errorf("an image's data was read as text:\n%s", got)
	}
}

// TestTextNotPDF: what is not a PDF, or holds a stream that is not Flate
// data, is an error.
func TestTextNotPDF(t *testing.T) {
	if _, err := Text([]byte("<html>")); err == nil {
		t.Errorf("HTML read as a PDF")
	}
	if _, err := Text(build([2]string{`/Filter /FlateDecode`, "not zlib"})); err == nil {
		t.Errorf("a broken stream read")
	}
}
