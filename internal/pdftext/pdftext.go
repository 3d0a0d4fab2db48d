// Package pdftext reads the text a PDF holds, as far as canopy needs it to
// tell whether a credential is in a PDF it made (print): the text its pages
// show, decoded through each font's ToUnicode map (or byte for byte for a
// font without one), and every string of its objects (the title, a link's
// URI). It reads what Chromium writes (Skia: PDF 1.4, Flate-compressed
// content, Identity-H fonts with ToUnicode maps) and PDFs like it; it is
// no general PDF reader (no object streams, no encryption).
package pdftext

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// maxStream caps one stream's decoded size: a PDF canopy made is trusted
// not to be a zip bomb, but a bug should not eat the memory.
const maxStream = 256 << 20

// object is one indirect object: its dictionary (or whole body, when it
// has no stream) and its stream's decoded data, nil without one.
type object struct {
	num    int
	dict   []byte
	stream []byte
}

var (
	objHeader = regexp.MustCompile(`(\d+)\s+\d+\s+obj\b`)
	lengthKey = regexp.MustCompile(`/Length\s+(\d+)(\s+\d+\s+R)?`)
	fontDict  = regexp.MustCompile(`/Font\s*<<((?:[^<>]|<[^<>]*>)*)>>`)
	fontRef   = regexp.MustCompile(`/Font\s+(\d+)\s+\d+\s+R`)
	namedRef  = regexp.MustCompile(`/([^\s/<>\[\]()]+)\s+(\d+)\s+\d+\s+R`)
	toUnicode = regexp.MustCompile(`/ToUnicode\s+(\d+)\s+\d+\s+R`)
	notText   = regexp.MustCompile(`/Subtype\s*/(Image|Type1C|CIDFontType0C|OpenType)\b|/Length[123]\b`)
)

// Text returns the text of pdf: each content stream's shown text, then
// the strings of its objects, a line each. It fails on data that is not a
// PDF, or a stream it cannot decompress.
func Text(pdf []byte) (string, error) {
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		return "", errors.New("not a PDF")
	}
	objs, err := parse(pdf)
	if err != nil {
		return "", err
	}
	fonts := fontsOf(objs)
	var b strings.Builder
	for _, o := range objs {
		if o.stream == nil || notText.Match(o.dict) || bytes.Contains(o.stream, []byte("begincmap")) {
			continue
		}
		if t := showText(o.stream, fonts); t != "" {
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	for _, o := range objs {
		for _, s := range stringsIn(o.dict) {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	return b.String(), nil
}

// parse reads pdf's indirect objects in file order.
func parse(pdf []byte) ([]object, error) {
	var objs []object
	at := 0
	for {
		loc := objHeader.FindIndex(pdf[at:])
		if loc == nil {
			return objs, nil
		}
		num, _ := strconv.Atoi(string(objHeader.FindSubmatch(pdf[at+loc[0] : at+loc[1]])[1]))
		start := at + loc[1]
		end := bytes.Index(pdf[start:], []byte("endobj"))
		if end < 0 {
			end = len(pdf) - start
		}
		body := pdf[start : start+end]
		s := streamStart(body)
		if s < 0 {
			objs = append(objs, object{num: num, dict: body})
			at = start + end
			continue
		}
		dict := body[:s]
		data, next := streamData(pdf, start+s, dict)
		dec, err := decode(dict, data)
		if err != nil {
			return nil, fmt.Errorf("object at byte %d: %w", at+loc[0], err)
		}
		objs = append(objs, object{num: num, dict: dict, stream: dec})
		at = next
	}
}

// streamStart is where the stream keyword of an object's body begins,
// right after its dictionary and before an end of line, or -1 when it has
// none (the word in a string of the dictionary is no keyword).
func streamStart(body []byte) int {
	for at := 0; ; {
		k := bytes.Index(body[at:], []byte("stream"))
		if k < 0 {
			return -1
		}
		i := at + k
		before := bytes.TrimRight(body[:i], " \t\r\n")
		after := body[i+len("stream"):]
		if bytes.HasSuffix(before, []byte(">>")) && (bytes.HasPrefix(after, []byte("\n")) || bytes.HasPrefix(after, []byte("\r"))) {
			return i
		}
		at = i + len("stream")
	}
}

// streamData is a stream's raw data, its keyword at kw in pdf, and where
// to go on reading objects: its /Length when it is direct and ends at
// endstream, else up to the first endstream.
func streamData(pdf []byte, kw int, dict []byte) ([]byte, int) {
	d := kw + len("stream")
	if d < len(pdf) && pdf[d] == '\r' {
		d++
	}
	if d < len(pdf) && pdf[d] == '\n' {
		d++
	}
	if m := lengthKey.FindSubmatch(dict); m != nil && len(m[2]) == 0 {
		if n, err := strconv.Atoi(string(m[1])); err == nil && n >= 0 && d+n <= len(pdf) {
			rest := bytes.TrimLeft(pdf[d+n:], "\r\n \t")
			if bytes.HasPrefix(rest, []byte("endstream")) {
				return pdf[d : d+n], d + n
			}
		}
	}
	e := bytes.Index(pdf[d:], []byte("endstream"))
	if e < 0 {
		return pdf[d:], len(pdf)
	}
	return bytes.TrimRight(pdf[d:d+e], "\r\n"), d + e
}

// decode undoes a stream's Flate filter; a stream under another filter
// (an image's) reads as empty.
func decode(dict, data []byte) ([]byte, error) {
	i := bytes.Index(dict, []byte("/Filter"))
	if i < 0 {
		return data, nil
	}
	f := dict[i+len("/Filter"):]
	f = bytes.TrimLeft(f, " \t\r\n[")
	if !bytes.HasPrefix(f, []byte("/FlateDecode")) {
		return []byte{}, nil
	}
	if rest := bytes.TrimLeft(f[len("/FlateDecode"):], " \t\r\n"); bytes.HasPrefix(rest, []byte("/")) && !bytes.HasPrefix(rest, []byte("/Length")) {
		return []byte{}, nil // a second filter after Flate: not text
	}
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decompress a stream: %w", err)
	}
	defer zr.Close()
	out, err := io.ReadAll(io.LimitReader(zr, maxStream))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("decompress a stream: %w", err)
	}
	return out, nil
}

// fontsOf maps the fonts' resource names to their ToUnicode maps: a name
// with no map (a simple font) maps to nil.
func fontsOf(objs []object) map[string]*cmap {
	byNum := map[int]object{}
	for _, o := range objs {
		byNum[o.num] = o
	}
	maps := map[int]*cmap{}
	fontMap := func(num int) *cmap {
		if c, ok := maps[num]; ok {
			return c
		}
		var c *cmap
		if m := toUnicode.FindSubmatch(byNum[num].dict); m != nil {
			n, _ := strconv.Atoi(string(m[1]))
			if s := byNum[n].stream; s != nil {
				c = parseCMap(s)
			}
		}
		maps[num] = c
		return c
	}
	fonts := map[string]*cmap{}
	add := func(entries []byte) {
		for _, m := range namedRef.FindAllSubmatch(entries, -1) {
			n, _ := strconv.Atoi(string(m[2]))
			if _, ok := fonts[string(m[1])]; !ok || fonts[string(m[1])] == nil {
				fonts[string(m[1])] = fontMap(n)
			}
		}
	}
	for _, o := range objs {
		for _, m := range fontDict.FindAllSubmatch(o.dict, -1) {
			add(m[1])
		}
		for _, m := range fontRef.FindAllSubmatch(o.dict, -1) {
			n, _ := strconv.Atoi(string(m[1]))
			add(byNum[n].dict)
		}
	}
	return fonts
}
