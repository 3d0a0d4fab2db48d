package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/canopy-dev/canopy/tree"
)

// The page's metadata for the page map (docs/tree.md): what schema.org JSON-LD
// and OpenGraph say the page is. It is read once per document, in an
// isolated world of canopy's own (the page's scripts can neither see the
// read nor change how it parses), and interpreted here, in Go.

// pageMapWorld names the isolated world the metadata is read in.
const pageMapWorld = "canopy-pagemap"

// Read limits: how many JSON-LD scripts, how many characters of each, how
// many meta tags and characters of their content, how long the read may take.
const (
	maxLDScripts = 8
	maxLDText    = 1 << 16
	maxMetaTags  = 64
	maxMetaText  = 500
	metaTimeout  = 2 * time.Second
)

// pageMetaJS collects the JSON-LD scripts' text and the OpenGraph meta
// tags (og:, article:, product:) of the document, bounded in size.
var pageMetaJS = fmt.Sprintf(`(() => {
  const ld = [], meta = {};
  for (const s of document.querySelectorAll('script[type="application/ld+json" i]')) {
    if (ld.length >= %d) break;
    ld.push((s.textContent || '').slice(0, %d));
  }
  let n = 0;
  for (const m of document.querySelectorAll('meta[property], meta[name]')) {
    const k = (m.getAttribute('property') || m.getAttribute('name') || '').trim().toLowerCase();
    if (!/^(og|article|product):/.test(k) || k in meta) continue;
    meta[k] = (m.getAttribute('content') || '').slice(0, %d);
    if (++n >= %d) break;
  }
  return {ld, meta};
})()`, maxLDScripts, maxLDText, maxMetaText, maxMetaTags)

// rawMeta is what pageMetaJS returns.
type rawMeta struct {
	LD   []string          `json:"ld"`
	Meta map[string]string `json:"meta"`
}

// metaCache keeps each document's metadata, so that it is read once per
// document (and again after a same-document navigation changed its URL).
type metaCache struct {
	mu sync.Mutex
	m  map[string]*tree.PageMeta
}

// maxCachedMeta bounds the cache: a session sees few documents at once.
const maxCachedMeta = 16

// pageMeta returns what the main frame's document says it is, or nil. doc
// is the document's key; a read that fails is logged and gives nil.
func (b *Browser) pageMeta(ctx context.Context, main *frameInfo, doc string) *tree.PageMeta {
	if doc == "" || main.failed != "" {
		return nil
	}
	key := doc + " " + main.url
	c := &b.metas
	c.mu.Lock()
	m, ok := c.m[key]
	c.mu.Unlock()
	if !ok {
		raw, err := readMeta(ctx, main.session, main.id)
		if err != nil {
			// Not remembered: a page busy now may answer next time.
			b.log.Debug("page metadata", "url", main.url, "err", err)
			return nil
		}
		m = parseMeta(raw)
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxCachedMeta {
			c.m = map[string]*tree.PageMeta{}
		}
		c.m[key] = m
		c.mu.Unlock()
	}
	if m == nil {
		return nil
	}
	cp := *m // the snapshot's copy may be redacted in place
	cp.Path = slices.Clone(m.Path)
	return &cp
}

// readMeta evaluates pageMetaJS in an isolated world of the frame.
func readMeta(ctx context.Context, s cdp.Session, frame cdp.FrameID) (rawMeta, error) {
	var raw rawMeta
	ctx, cancel := context.WithTimeout(ctx, metaTimeout)
	defer cancel()
	w, err := cdp.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: pageMapWorld})
	if err != nil {
		return raw, fmt.Errorf("create the isolated world: %w", err)
	}
	res, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
		Expression: pageMetaJS, ContextID: w.ExecutionContextID, ReturnByValue: new(true),
	})
	if err != nil {
		return raw, fmt.Errorf("read the metadata: %w", err)
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return raw, fmt.Errorf("read the metadata: the script failed")
	}
	if err := json.Unmarshal(res.Result.Value, &raw); err != nil {
		return raw, fmt.Errorf("decode the metadata: %w", err)
	}
	return raw, nil
}

// parseMeta interprets a document's JSON-LD and OpenGraph tags: the main
// entity from JSON-LD wins, and OpenGraph fills in what it left out (or
// says it all when there is no JSON-LD). Malformed JSON-LD is skipped. It
// returns nil when neither names a type.
func parseMeta(raw rawMeta) *tree.PageMeta {
	var objs []map[string]any
	for _, text := range raw.LD {
		var v any
		if err := json.Unmarshal([]byte(strings.TrimSpace(text)), &v); err != nil {
			continue
		}
		collect(v, &objs, 0)
	}
	m := fromLD(objs)
	og := fromOG(raw.Meta)
	switch {
	case m == nil:
		m = og
	case og != nil:
		fill(&m.Name, og.Name)
		if m.Price == "" {
			m.Price, m.Currency = og.Price, og.Currency
		}
		fill(&m.Availability, og.Availability)
		fill(&m.Author, og.Author)
		fill(&m.Date, og.Date)
	}
	return m
}

func fill(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// collect gathers the typed objects of a JSON-LD value: the value itself,
// arrays of objects and @graph arrays, a few levels deep.
func collect(v any, out *[]map[string]any, depth int) {
	if depth > 3 {
		return
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			collect(e, out, depth+1)
		}
	case map[string]any:
		if g, ok := x["@graph"]; ok {
			collect(g, out, depth+1)
		}
		if typeOf(x) != "" {
			*out = append(*out, x)
		}
	}
}

// typeWord is a schema.org type name as it may be printed unquoted.
var typeWord = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]{0,39}$`)

// typeOf returns an object's schema.org type: the first of its types that
// is not Thing, without a schema.org URL prefix; "" when it has none
// printable.
func typeOf(o map[string]any) string {
	var types []string
	switch t := o["@type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				types = append(types, s)
			}
		}
	}
	for _, t := range types {
		t = strings.TrimSpace(t)
		if i := strings.LastIndexAny(t, "/#:"); i >= 0 {
			t = t[i+1:]
		}
		if t != "Thing" && typeWord.MatchString(t) {
			return t
		}
	}
	return ""
}

// typeRank orders candidates for the main entity: what the page is about
// (a product, an article, an event…) over the organization behind it, over
// the page and the site themselves. Parts of other entities rank 0 and are
// never the main one.
func typeRank(t string) int {
	switch t {
	case "BreadcrumbList", "ListItem", "ImageObject", "SearchAction", "ReadAction", "EntryPoint",
		"Offer", "AggregateOffer", "AggregateRating", "Rating", "Review", "Brand", "PostalAddress",
		"GeoCoordinates", "ContactPoint", "PropertyValue", "SiteNavigationElement", "WPHeader",
		"WPFooter", "WPSideBar", "Language", "":
		return 0
	case "WebSite":
		return 1
	case "WebPage", "ItemPage", "CollectionPage", "AboutPage", "ContactPage", "SearchResultsPage",
		"ProfilePage", "CheckoutPage", "MedicalWebPage", "RealEstateListing", "Person", "ItemList":
		return 2
	case "Organization", "Corporation", "NGO", "NewsMediaOrganization", "EducationalOrganization",
		"GovernmentOrganization", "OnlineBusiness", "OnlineStore":
		return 3
	}
	return 4
}

// fromLD picks the main entity among the objects and reads its facts. A
// page object's mainEntity (inline, or by @id) stands for the page.
func fromLD(objs []map[string]any) *tree.PageMeta {
	byID := map[string]map[string]any{}
	for _, o := range objs {
		if id, ok := o["@id"].(string); ok {
			byID[id] = o
		}
	}
	resolve := func(v any) map[string]any {
		o, _ := first(v).(map[string]any)
		if o == nil {
			return nil
		}
		if typeOf(o) == "" {
			if id, ok := o["@id"].(string); ok {
				return byID[id]
			}
		}
		return o
	}
	var best map[string]any
	rank := 0
	for _, o := range objs {
		cand := o
		if typeRank(typeOf(o)) == 2 {
			if e := resolve(o["mainEntity"]); e != nil && typeRank(typeOf(e)) > 2 {
				cand = e
			}
		}
		if r := typeRank(typeOf(cand)); r > rank {
			best, rank = cand, r
		}
	}
	if best == nil {
		return nil
	}
	t := typeOf(best)
	m := &tree.PageMeta{Type: t, Name: text(best["name"])}
	fill(&m.Name, text(best["headline"]))
	offer(m, best["offers"])
	if r, ok := first(best["aggregateRating"]).(map[string]any); ok {
		m.Rating = number(r["ratingValue"])
		m.Reviews = count(r["reviewCount"])
		if m.Reviews == 0 {
			m.Reviews = count(r["ratingCount"])
		}
	}
	m.Author = text(best["author"])
	if d, ok := date(best["startDate"], true); ok {
		m.Date = d
	} else {
		for _, k := range []string{"datePublished", "uploadDate", "datePosted", "dateCreated"} {
			if d, ok := date(best[k], false); ok {
				m.Date = d
				break
			}
		}
	}
	m.Place = place(best["location"])
	fill(&m.Place, place(best["jobLocation"]))
	fill(&m.Place, place(best["address"]))
	m.Duration = duration(best["totalTime"])
	fill(&m.Duration, duration(best["duration"]))
	if t == "FAQPage" {
		if qs, ok := best["mainEntity"].([]any); ok {
			m.Questions = len(qs)
		}
	}
	if facts(m) < 2 {
		m.Path = breadcrumb(objs, best)
	}
	return m
}

// facts counts the facts m has besides its type and name.
func facts(m *tree.PageMeta) int {
	n := 0
	for _, s := range []string{m.Price, m.Availability, m.Rating, m.Author, m.Date, m.Place, m.Duration} {
		if s != "" {
			n++
		}
	}
	if m.Questions > 0 {
		n++
	}
	return n
}

// offer reads an offer, the first of several, or an aggregate offer's range.
func offer(m *tree.PageMeta, v any) {
	o, ok := first(v).(map[string]any)
	if !ok {
		return
	}
	if lo, hi := number(o["lowPrice"]), number(o["highPrice"]); lo != "" {
		m.Price = lo
		if hi != "" && hi != lo {
			m.Price += "–" + hi
		}
	}
	fill(&m.Price, number(o["price"]))
	spec, _ := first(o["priceSpecification"]).(map[string]any)
	if spec != nil {
		fill(&m.Price, number(spec["price"]))
	}
	m.Currency = currency(o["priceCurrency"])
	if m.Currency == "" && spec != nil {
		m.Currency = currency(spec["priceCurrency"])
	}
	if m.Price == "" {
		m.Currency = ""
	}
	m.Availability = availability(o["availability"])
}

// availabilities are schema.org's ItemAvailability values in words.
var availabilities = map[string]string{
	"instock": "in stock", "outofstock": "out of stock", "preorder": "preorder", "presale": "presale",
	"soldout": "sold out", "limitedavailability": "limited", "backorder": "backorder",
	"discontinued": "discontinued", "onlineonly": "online only", "instoreonly": "in store only",
	"in stock": "in stock", "out of stock": "out of stock", "oos": "out of stock",
}

func availability(v any) string {
	s, _ := first(v).(string)
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.LastIndexAny(s, "/#:"); i >= 0 {
		s = s[i+1:]
	}
	return availabilities[s]
}

var (
	numberRe   = regexp.MustCompile(`^[0-9][0-9.,]{0,14}$`)
	currencyRe = regexp.MustCompile(`^[A-Z]{3}$`)
	dateRe     = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}))?`)
	durationRe = regexp.MustCompile(`^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:\d+(?:\.\d+)?S)?)?$`)
)

// number returns a price or rating as the page wrote it, if it is one.
func number(v any) string {
	switch x := first(v).(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		if x = strings.TrimSpace(x); numberRe.MatchString(x) {
			return x
		}
	}
	return ""
}

// count returns a whole count, written as a number or a string.
func count(v any) int {
	switch x := first(v).(type) {
	case float64:
		if x > 0 && x < 1e12 {
			return int(x)
		}
	case string:
		n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(x), ",", ""))
		if err == nil && n > 0 {
			return n
		}
	}
	return 0
}

func currency(v any) string {
	s, _ := first(v).(string)
	s = strings.ToUpper(strings.TrimSpace(s))
	if currencyRe.MatchString(s) {
		return s
	}
	return ""
}

// date returns an ISO date, with the time of day when withTime and the
// page gave one other than midnight.
func date(v any, withTime bool) (string, bool) {
	s, _ := first(v).(string)
	sm := dateRe.FindStringSubmatch(strings.TrimSpace(s))
	if sm == nil {
		return "", false
	}
	if withTime && sm[2] != "" && sm[2] != "00:00" {
		return sm[1] + " " + sm[2], true
	}
	return sm[1], true
}

// duration renders an ISO 8601 duration in words: PT1H30M is "1 h 30 min".
func duration(v any) string {
	s, _ := first(v).(string)
	sm := durationRe.FindStringSubmatch(strings.TrimSpace(s))
	if sm == nil {
		return ""
	}
	var parts []string
	for i, unit := range []string{"d", "h", "min"} {
		if n, _ := strconv.Atoi(sm[i+1]); n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+unit)
		}
	}
	return strings.Join(parts, " ")
}

// text returns a string value, or the name of an object (an author, an
// organization), collapsed and unescaped; the first of several, with "+N"
// for the others when they are named objects or strings.
func text(v any) string {
	var s string
	switch x := first(v).(type) {
	case string:
		s = x
	case map[string]any:
		s, _ = x["name"].(string)
	}
	s = tree.CollapseSpace(html.UnescapeString(s))
	if arr, ok := v.([]any); ok && len(arr) > 1 && s != "" {
		s += " +" + strconv.Itoa(len(arr)-1)
	}
	return s
}

// place names a location: its name, or its address's locality, or the
// address as written; an online event's location is "online".
func place(v any) string {
	switch x := first(v).(type) {
	case string:
		return text(x)
	case map[string]any:
		if typeOf(x) == "VirtualLocation" {
			return "online"
		}
		if n := text(x["name"]); n != "" {
			return n
		}
		switch a := first(x["address"]).(type) {
		case string:
			return text(a)
		case map[string]any:
			return text(a["addressLocality"])
		}
		return text(x["addressLocality"])
	}
	return ""
}

// breadcrumb returns the page's breadcrumb trail (the entity's own, or
// the page's first BreadcrumbList), its last three steps at most, without
// a last step that only repeats the entity's name.
func breadcrumb(objs []map[string]any, entity map[string]any) []string {
	var list map[string]any
	if b, ok := first(entity["breadcrumb"]).(map[string]any); ok && typeOf(b) == "BreadcrumbList" {
		list = b
	}
	for _, o := range objs {
		if list == nil && typeOf(o) == "BreadcrumbList" {
			list = o
		}
	}
	if list == nil {
		return nil
	}
	items, _ := list["itemListElement"].([]any)
	type step struct {
		pos  float64
		name string
	}
	var steps []step
	for i, it := range items {
		o, ok := it.(map[string]any)
		if !ok {
			continue
		}
		name := text(o["name"])
		if item, ok := o["item"].(map[string]any); ok && name == "" {
			name = text(item["name"])
		}
		pos, ok := o["position"].(float64)
		if !ok {
			pos = float64(i + 1)
		}
		if name != "" {
			steps = append(steps, step{pos, name})
		}
	}
	slices.SortStableFunc(steps, func(a, b step) int {
		if a.pos < b.pos {
			return -1
		}
		if a.pos > b.pos {
			return 1
		}
		return 0
	})
	var path []string
	for _, s := range steps {
		path = append(path, s.name)
	}
	if n := len(path); n > 0 && path[n-1] == text(entity["name"]) {
		path = path[:n-1]
	}
	if len(path) > 3 {
		path = path[len(path)-3:]
	}
	return path
}

// first returns v, or the first element of an array.
func first(v any) any {
	if arr, ok := v.([]any); ok {
		if len(arr) == 0 {
			return nil
		}
		return arr[0]
	}
	return v
}

// ogType is an OpenGraph type as it may be printed unquoted.
var ogType = regexp.MustCompile(`^[a-z][a-z0-9._:-]{0,39}$`)

// fromOG reads the OpenGraph tags: og:type and og:title (og:site_name for
// a site without a title), a product's price, an article's author and date.
func fromOG(meta map[string]string) *tree.PageMeta {
	t := strings.ToLower(strings.TrimSpace(meta["og:type"]))
	if !ogType.MatchString(t) {
		return nil
	}
	m := &tree.PageMeta{Type: t, Name: text(meta["og:title"])}
	fill(&m.Name, text(meta["og:site_name"]))
	m.Price = number(meta["product:price:amount"])
	fill(&m.Price, number(meta["og:price:amount"]))
	if m.Price != "" {
		m.Currency = currency(meta["product:price:currency"])
		fill(&m.Currency, currency(meta["og:price:currency"]))
	}
	m.Availability = availability(meta["product:availability"])
	fill(&m.Availability, availability(meta["og:availability"]))
	if a := text(meta["article:author"]); !strings.Contains(a, "://") {
		m.Author = a
	}
	m.Date, _ = date(meta["article:published_time"], false)
	return m
}
