package host

import (
	"bytes"
	"log/slog"
	"testing"
)

// TestConsoleLog_EscapesControls: the console log (cellhost dev's) prints a
// client-chosen value (an object's name, a scope, an attribute) with its
// control characters escaped: a name cannot end the line and forge the next
// one, move the cursor, colour the terminal or reverse the text. A message's
// own line breaks (a stack trace) stay. Before, all went out raw.
func TestConsoleLog_EscapesControls(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(newConsoleHandler(&out))
	log.With("scope", "Counter:a\nforged: ok").Warn("reset\x1b[2J because\r of\u202e x\nat line 2", "name", "n\x00\x9b\u2028\xff")
	want := "Counter:a\\x0aforged: ok: reset\\x1b[2J because\\x0d of\\u202e x\nat line 2 name=n\\x00\\x9b\\u2028\\xff\n"
	if got := out.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	out.Reset()
	log.Info("plain é 名前", "k", "v")
	if got := out.String(); got != "plain é 名前 k=v\n" {
		t.Errorf("plain text changed: %q", got)
	}
}
