package site

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
)

// serveSpeculation writes /speculation.html: a page that asks the browser
// to prefetch the URLs of its prefetch parameters and to prerender those of
// its prerender parameters, with a link to each ("Prefetched 1",
// "Prerendered 1"…), for the tests of --domains against speculative
// loading. how says how the rules come: "inline" (a <script
// type="speculationrules"> in the markup, the default), "script" (one a
// script inserts), "write" (one document.write writes) or "header" (the
// Speculation-Rules response header, pointing at /speculation-rules.json).
func serveSpeculation(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rules, err := json.Marshal(speculationRules(q))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if q.Get("how") == "header" {
		w.Header().Set("Speculation-Rules", fmt.Sprintf("%q", "/speculation-rules.json?"+r.URL.RawQuery))
	}
	w.Header().Set("Content-Type", htmlType)
	fmt.Fprint(w, "<!doctype html><title>Speculation</title><h1>Speculation</h1>\n")
	for _, kind := range []string{"prefetch", "prerender"} {
		name := map[string]string{"prefetch": "Prefetched", "prerender": "Prerendered"}[kind]
		for i, u := range q[kind] {
			fmt.Fprintf(w, "<p><a href=\"%s\">%s %d</a></p>\n", html.EscapeString(u), name, i+1)
		}
	}
	js, _ := json.Marshal(string(rules))
	switch q.Get("how") {
	case "header":
	case "script":
		fmt.Fprintf(w, "<script>{const s = document.createElement('script'); s.type = 'speculationrules'; s.textContent = %s; document.head.append(s);}</script>\n", js)
	case "write":
		fmt.Fprintf(w, "<script>document.write('<script type=\"speculationrules\">' + %s + '</scr' + 'ipt>');</script>\n", js)
	default:
		fmt.Fprintf(w, "<script type=\"speculationrules\">%s</script>\n", rules)
	}
}

// serveSpeculationRules writes the rules of /speculation.html as the
// Speculation-Rules header's file.
func serveSpeculationRules(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/speculationrules+json")
	json.NewEncoder(w).Encode(speculationRules(r.URL.Query()))
}

// speculationRules are the rules for the prefetch and prerender
// parameters of q: lists, eager.
func speculationRules(q url.Values) map[string]any {
	rules := map[string]any{}
	for _, kind := range []string{"prefetch", "prerender"} {
		if urls := q[kind]; len(urls) > 0 {
			rules[kind] = []map[string]any{{"source": "list", "urls": urls, "eagerness": "immediate"}}
		}
	}
	return rules
}
