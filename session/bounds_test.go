package session

import (
	"errors"
	"strings"
	"testing"
)

func TestBoundReply(t *testing.T) {
	text := strings.Repeat("line of text\n", 1000) // 13,000 bytes
	got := boundReply(text, 4000)
	if len(got) > 4200 || !strings.HasPrefix(text, strings.SplitAfter(got, "…")[0][:100]) {
		t.Errorf("cut reply is %d bytes", len(got))
	}
	if !strings.Contains(got, "… reply cut at 3 KB of 12 KB") || strings.Contains(got, "line of te…") {
		t.Errorf("cut reply ends %q", got[len(got)-150:])
	}
	if got := boundReply("short\n", 4000); got != "short\n" {
		t.Errorf("a short reply changed: %q", got)
	}
}

func TestBoundErr(t *testing.T) {
	base := errors.New("no element matches name:" + strings.Repeat("é", 10000))
	err := boundErr(base)
	if len(err.Error()) > maxErrorLen+40 || !strings.HasSuffix(err.Error(), "KB more)") || !errors.Is(err, base) {
		t.Errorf("bounded error: %d bytes, %q…", len(err.Error()), err.Error()[:40])
	}
	if !strings.HasPrefix(err.Error(), "no element matches name:é") || !strings.Contains(err.Error(), "éé…") {
		t.Errorf("the cut splits a character: %q", err.Error()[len(err.Error())-30:])
	}
}
