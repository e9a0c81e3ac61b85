package queues_test

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/apptest"
)

// startApp serves testdata/app on a real Host (cells in SQLite files
// under a temporary directory) and returns its URL.
func startApp(t *testing.T) string { return apptest.Serve(t, "testdata/app") }

func get(t *testing.T, u string) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", u, res.StatusCode, b)
	}
	return string(b)
}

// waitLog polls the consumer's log until it has n lines (the deliveries
// are asynchronous; the deadline only bounds a failing test).
func waitLog(t *testing.T, base string, n int) []string {
	t.Helper()
	var log []string
	for deadline := time.Now().Add(waitFor); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		log = nil
		if err := json.Unmarshal([]byte(get(t, base+"/log")), &log); err != nil {
			t.Fatal(err)
		}
		if len(log) >= n {
			break
		}
	}
	sort.Strings(log)
	return log
}

func TestQueues_ContentTypes(t *testing.T) {
	base := startApp(t)
	get(t, base+"/send")
	got := waitLog(t, base, 5)
	want := []string{
		`got bytes:1,2,3 attempts=1 id=true ts=true`,
		`got map:k=1(bigint) attempts=1 id=true ts=true`,
		`got object:{"a":1} attempts=1 id=true ts=true`,
		`got object:{} attempts=1 id=true ts=true`, // json, the default from 2024-03-18
		`got string:"hello" attempts=1 id=true ts=true`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("log:\n%q\nwant\n%q", got, want)
	}
}

// retry() delivers again with attempts counted; past max_retries (2) a
// message goes to the dead letter queue; an explicit ack() holds although
// the handler throws afterwards; delivery_delay delays.
func TestQueues_RetriesAndDeadLetters(t *testing.T) {
	base := startApp(t)
	get(t, base+"/batch")
	got := waitLog(t, base, 8)
	want := []string{
		`dlq string:"always-fail" attempts=1`,
		`got string:"always-fail" attempts=1 id=true ts=true`,
		`got string:"always-fail" attempts=2 id=true ts=true`,
		`got string:"always-fail" attempts=3 id=true ts=true`,
		`got string:"delayed" attempts=1 id=true ts=true`,
		`got string:"explicit-ack" attempts=1 id=true ts=true`,
		`got string:"retry-once" attempts=1 id=true ts=true`,
		`got string:"retry-once" attempts=2 id=true ts=true`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("log:\n%q\nwant\n%q", got, want)
	}
}

func TestQueues_BadSends(t *testing.T) {
	base := startApp(t)
	var got []string
	if err := json.Unmarshal([]byte(get(t, base+"/bad")), &got); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`TypeError: Content Type "text" requires a value of type string, but received: number`,
		`TypeError: Unsupported queue message content type: xml`,
		`TypeError: sendBatch() requires at least one message`,
		`TypeError: send: delaySeconds must be a number between 0 and 43200`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n%q\nwant\n%q", got, want)
	}
}

var waitFor = 60 * time.Second // bounds a failing test only
