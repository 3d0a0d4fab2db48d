package browser

import (
	"time"

	"github.com/chromedp/cdproto/network"

	"github.com/canopy-dev/canopy/settle"
)

// Requests in flight when an action begins. A watch hears a request's
// start only while it runs; one the page sent just before (the last of a
// chain of fetches, a request of the previous action whose settle hit its
// cap) would end unheard, and `wait quiet` would take the page for quiet
// while it still loads. The tab keeps the requests in flight, and a new
// watch starts with them as work in flight that began when they did
// (settle.Event.Since): a request older than the settle's MaxBusy (a long
// poll) holds nothing.

// inflightKept is how long a request is kept as in flight without an end:
// a hanging request older than this is forgotten.
const inflightKept = time.Minute

// requestStarted notes a request the tab sent.
func (tw *tabWatch) requestStarted(id network.RequestID) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.inflight == nil {
		tw.inflight = map[network.RequestID]time.Time{}
	}
	if _, ok := tw.inflight[id]; !ok { // a redirect keeps the id
		tw.inflight[id] = time.Now()
	}
}

// requestEnded notes that a request ended and tells the current watch.
// The watch is looked up after the request is forgotten, so a watch that
// started with it as in flight (seed) hears its end.
func (tw *tabWatch) requestEnded(id network.RequestID) {
	tw.mu.Lock()
	delete(tw.inflight, id)
	tw.mu.Unlock()
	tw.current().send(settle.Event{Kind: settle.Idle, Key: reqKey(id)})
}

// seed sends w, the watch that just became the current one, the requests
// in flight as Busy events that began when they did.
func (tw *tabWatch) seed(w *watch) {
	if tw == nil {
		return
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	now := time.Now()
	for id, at := range tw.inflight {
		if now.Sub(at) > inflightKept {
			delete(tw.inflight, id)
			continue
		}
		w.send(settle.Event{Kind: settle.Busy, Key: reqKey(id), Since: at, Incidental: true})
	}
}

// reqKey names a request as work in flight.
func reqKey(id network.RequestID) string { return "req:" + string(id) }
