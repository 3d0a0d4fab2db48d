package browser

import (
	"testing"
	"time"
)

// TestDialogStormCount: dialogs that each open soon after the last one's
// answer count as a storm however slowly the agent answers; a pause after
// an answer starts the count again, and an answer long ago is no storm.
func TestDialogStormCount(t *testing.T) {
	var d dialogStorm
	now := time.Unix(1000, 0)
	for i := 1; i <= stormDialogs+1; i++ {
		n, storming := d.seen(now)
		if n != i || storming != (i > stormDialogs) {
			t.Fatalf("dialog %d: %d in a row, storm %v", i, n, storming)
		}
		now = now.Add(20 * time.Second) // the agent thinks long
		d.closed(now)
		now = now.Add(stormGap / 4) // the page answers at once
	}
	if !d.active(now) {
		t.Error("a storm the agent answered slowly is not active")
	}
	if d.active(now.Add(2 * stormGap)) {
		t.Error("a storm is still active long after its last dialog")
	}
	// A dialog well after the last answer starts a new count.
	if n, storming := d.seen(now.Add(2 * stormGap)); n != 1 || storming {
		t.Errorf("after a pause: %d in a row, storm %v", n, storming)
	}
	d.reset()
	if n, _ := d.seen(now); n != 1 {
		t.Errorf("after reset: %d in a row", n)
	}
}
