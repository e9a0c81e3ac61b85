// Package queues is the "queues" binding plugin: Cloudflare Queues built
// on cells. Each queue is an internal cell of class cellhost.Queue (as
// miniflare runs each queue as a Durable Object): send() stores the
// messages in the cell's SQLite database and resolves once that commit is
// durable (in the bucket, in log mode), so an acknowledged message
// survives a kill -9 and is on whichever node owns the cell next. The
// cell arms its stored alarm for when a batch is due; the alarm, published
// to the wake index like an object's, delivers the batch to the worker's
// queue(batch, env, ctx) handler (at least once: a delivery whose outcome
// never reached the cell is delivered again when its lease ends, also after
// a restart or on another node), then the outcome (ack, retry with delay,
// dead-letter after max_retries) is written back to the cell.
//
//	"queues": {
//	  "producers": [{"binding": "Q", "queue": "jobs", "delivery_delay": 0}],
//	  "consumers": [{"queue": "jobs", "max_batch_size": 10, "max_batch_timeout": 5,
//	                 "max_retries": 3, "retry_delay": 0, "dead_letter_queue": "jobs-dlq"}]
//	}
package queues

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// ConfigKey is the wrangler configuration key of queues.
const ConfigKey = "queues"

// Class is the internal cell class of a queue (one cell per queue name).
const Class = "cellhost.Queue"

// Producer is a producers entry.
type Producer struct {
	Queue   string
	DelayMs int64 // delivery_delay
	// DefaultType is the content type of a message sent without one:
	// "json" with the queues_json_messages compatibility flag (the default
	// from 2024-03-18), else "v8".
	DefaultType string
}

// Consumer is a consumers entry, with wrangler's defaults applied.
type Consumer struct {
	Queue           string
	MaxBatchSize    int           // max_batch_size: 10, at most 100
	MaxBatchTimeout time.Duration // max_batch_timeout: 5 s, at most 60 s
	MaxRetries      int           // max_retries: 3, at most 100
	RetryDelay      time.Duration // retry_delay: 0
	DeadLetterQueue string        // dead_letter_queue: "" drops a message past max_retries
}

func init() {
	binding.Register(&binding.Plugin{Key: ConfigKey, Kind: "Queue producer", Decode: decode, Prepare: prepare,
		Classes: []binding.Class{{Name: Class, Serve: serve, Alarm: alarm, Start: start}}})
}

func decode(d *binding.Decoder, raw json.RawMessage) ([]binding.Entry, error) {
	var q struct {
		Producers []struct {
			Binding       string `json:"binding"`
			Queue         string `json:"queue"`
			DeliveryDelay *int64 `json:"delivery_delay"`
		} `json:"producers"`
		Consumers []struct {
			Queue             string   `json:"queue"`
			MaxBatchSize      *int     `json:"max_batch_size"`
			MaxBatchTimeout   *float64 `json:"max_batch_timeout"`
			MaxRetries        *int     `json:"max_retries"`
			DeadLetterQueue   string   `json:"dead_letter_queue"`
			MaxConcurrency    *int     `json:"max_concurrency"`
			RetryDelay        *int64   `json:"retry_delay"`
			Type              string   `json:"type"`
			VisibilityTimeout *int64   `json:"visibility_timeout_ms"`
		} `json:"consumers"`
	}
	if err := d.Object(ConfigKey, raw, &q); err != nil {
		return nil, err
	}
	var out []binding.Entry
	for i, p := range q.Producers {
		if p.Binding == "" || p.Queue == "" {
			return nil, fmt.Errorf("queues.producers[%d] needs both \"binding\" and \"queue\"", i)
		}
		if err := checkName(p.Queue); err != nil {
			return nil, fmt.Errorf("queues.producers[%d]: %w", i, err)
		}
		pr := Producer{Queue: p.Queue, DefaultType: defaultType(d.CompatibilityDate, d.CompatibilityFlags)}
		if p.DeliveryDelay != nil {
			if *p.DeliveryDelay < 0 || *p.DeliveryDelay > 43200 {
				return nil, fmt.Errorf("queues.producers[%d].delivery_delay is %d: want 0 to 43200 seconds", i, *p.DeliveryDelay)
			}
			pr.DelayMs = *p.DeliveryDelay * 1000
		}
		out = append(out, binding.Entry{Name: p.Binding, Show: p.Queue, Config: pr})
	}
	seen := map[string]bool{}
	for i, c := range q.Consumers {
		if c.Queue == "" {
			return nil, fmt.Errorf("queues.consumers[%d] needs a \"queue\"", i)
		}
		if err := checkName(c.Queue); err != nil {
			return nil, fmt.Errorf("queues.consumers[%d]: %w", i, err)
		}
		if seen[c.Queue] {
			return nil, fmt.Errorf("queues.consumers[%d]: the queue %q has two consumers", i, c.Queue)
		}
		seen[c.Queue] = true
		if c.Type == "http_pull" {
			d.Warn(fmt.Sprintf("%s: queues.consumers[%d] (%s) is an HTTP pull consumer, which cellhost does not serve; ignored", filepath.Base(d.Path), i, c.Queue))
			continue
		}
		cs := Consumer{Queue: c.Queue, MaxBatchSize: 10, MaxBatchTimeout: 5 * time.Second, MaxRetries: 3, DeadLetterQueue: c.DeadLetterQueue}
		if c.MaxBatchSize != nil {
			if *c.MaxBatchSize < 1 || *c.MaxBatchSize > maxMessages {
				return nil, fmt.Errorf("queues.consumers[%d].max_batch_size is %d: want 1 to %d", i, *c.MaxBatchSize, maxMessages)
			}
			cs.MaxBatchSize = *c.MaxBatchSize
		}
		if c.MaxBatchTimeout != nil {
			if *c.MaxBatchTimeout < 0 || *c.MaxBatchTimeout > 60 {
				return nil, fmt.Errorf("queues.consumers[%d].max_batch_timeout is %v: want 0 to 60 seconds", i, *c.MaxBatchTimeout)
			}
			cs.MaxBatchTimeout = time.Duration(*c.MaxBatchTimeout * float64(time.Second))
		}
		if c.MaxRetries != nil {
			if *c.MaxRetries < 0 || *c.MaxRetries > 100 {
				return nil, fmt.Errorf("queues.consumers[%d].max_retries is %d: want 0 to 100", i, *c.MaxRetries)
			}
			cs.MaxRetries = *c.MaxRetries
		}
		if c.RetryDelay != nil {
			if *c.RetryDelay < 0 || *c.RetryDelay > 43200 {
				return nil, fmt.Errorf("queues.consumers[%d].retry_delay is %d: want 0 to 43200 seconds", i, *c.RetryDelay)
			}
			cs.RetryDelay = time.Duration(*c.RetryDelay) * time.Second
		}
		if cs.DeadLetterQueue != "" {
			if err := checkName(cs.DeadLetterQueue); err != nil {
				return nil, fmt.Errorf("queues.consumers[%d].dead_letter_queue: %w", i, err)
			}
			if cs.DeadLetterQueue == cs.Queue {
				return nil, fmt.Errorf("queues.consumers[%d]: the dead letter queue of %q is itself", i, c.Queue)
			}
		}
		out = append(out, binding.Entry{Show: consumerShow(cs), Kind: "Queue consumer", Config: cs})
	}
	return out, nil
}

// defaultType is the default content type of a worker's messages: the
// compatibility flag queues_json_messages, on from 2024-03-18, makes it
// "json" (workerd's compatibility-date.capnp; recorded in
// cmd/cellhost/testdata/cases/queues-binding).
func defaultType(date string, flags []string) string {
	for _, f := range flags {
		switch f {
		case "queues_json_messages":
			return "json"
		case "no_queues_json_messages":
			return "v8"
		}
	}
	if date >= "2024-03-18" {
		return "json"
	}
	return "v8"
}

func consumerShow(c Consumer) string {
	s := fmt.Sprintf("%s (batches of %d within %s, %d retries", c.Queue, c.MaxBatchSize, c.MaxBatchTimeout, c.MaxRetries)
	if c.DeadLetterQueue != "" {
		s += ", then " + c.DeadLetterQueue
	}
	return s + ")"
}

// checkName validates a queue name as Cloudflare does: 1 to 63 letters,
// digits and dashes.
func checkName(q string) error {
	if q == "" || len(q) > maxQueueName || strings.Trim(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
		return fmt.Errorf("queue name %q: want 1 to %d letters, digits, '-' or '_'", q, maxQueueName)
	}
	return nil
}

// consumers are the consumers of the configuration this process serves
// (the latest Prepare's), by queue: a queue's cell reads its consumer's
// settings when its alarm fires.
var (
	consumersMu sync.Mutex
	consumers   = map[string]Consumer{}
)

func consumerOf(q string) (Consumer, bool) {
	consumersMu.Lock()
	defer consumersMu.Unlock()
	c, ok := consumers[q]
	return c, ok
}

//go:embed queues.js
var queuesJS string

//go:embed batch.js
var batchJS string

var (
	queuesProgram = goja.MustCompile("cellhost:queues", queuesJS, true)
	batchProgram  = goja.MustCompile("cellhost:queues-batch", batchJS, true)
)

func prepare(_ *binding.Resources, entries []binding.Entry) (binding.Bind, error) {
	next := map[string]Consumer{}
	for _, e := range entries {
		if c, ok := e.Config.(Consumer); ok {
			next[c.Queue] = c
		}
	}
	consumersMu.Lock()
	consumers = next
	consumersMu.Unlock()
	return func(rt *goja.Runtime, env *goja.Object, cells binding.CellCaller) error {
		for _, e := range entries {
			p, ok := e.Config.(Producer)
			if !ok {
				continue
			}
			v, err := bindProducer(rt, p, cells)
			if err != nil {
				return fmt.Errorf("bind queue %s: %w", e.Name, err)
			}
			if err := env.Set(e.Name, v); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// start tells the cell of each queue with a consumer here to arm its
// alarm for what it holds (after a restart, a deploy or a reload): a
// delivery a dead process leased is due again at once.
func start(ctx context.Context, w binding.Worker) {
	consumersMu.Lock()
	var qs []string
	for q := range consumers {
		qs = append(qs, q)
	}
	consumersMu.Unlock()
	sort.Strings(qs)
	for _, q := range qs {
		if req, err := EncodeRequest(&Request{Op: "kick", Queue: q}); err == nil {
			_, _ = w.CallCell(ctx, Class, q, req)
		}
	}
}

// bindProducer returns the WorkerQueue object of p.
func bindProducer(rt *goja.Runtime, p Producer, cells binding.CellCaller) (goja.Value, error) {
	fv, err := rt.RunProgram(queuesProgram)
	if err != nil {
		return nil, err
	}
	fn, _ := goja.AssertFunction(fv)
	native := rt.NewObject()
	_ = native.Set("send", func(list []*goja.Object, batchDelay goja.Value) goja.Value {
		now := time.Now().UnixMilli()
		req := &Request{Op: "send", Queue: p.Queue}
		for _, o := range list {
			m := Message{ID: newID(), ContentType: o.Get("contentType").String(), TimestampMs: now, DelayMs: p.DelayMs}
			if d := o.Get("delaySeconds"); d != nil && !goja.IsUndefined(d) {
				m.DelayMs = int64(math.Round(d.ToFloat() * 1000))
			} else if batchDelay != nil && !goja.IsUndefined(batchDelay) {
				m.DelayMs = int64(math.Round(batchDelay.ToFloat() * 1000))
			}
			body := o.Get("body")
			switch m.ContentType {
			case "text":
				m.Body = []byte(body.String())
			case "json":
				stringify, _ := goja.AssertFunction(rt.Get("JSON").ToObject(rt).Get("stringify"))
				v, err := stringify(goja.Undefined(), body)
				if err != nil {
					jserr.Throw(rt, err)
				}
				m.Body = []byte(v.String())
			case "bytes":
				b, _ := clone.Bytes(rt, body.ToObject(rt))
				m.Body = append([]byte(nil), b...)
			default:
				b, err := clone.Serialize(rt, body)
				if err != nil {
					jserr.Throw(rt, err)
				}
				m.Body = b
			}
			if len(m.Body) > maxBodyBytes {
				panic(rt.NewTypeError(fmt.Sprintf("Queue send failed: message length of %d bytes exceeds limit of %d", len(m.Body), maxBodyBytes)))
			}
			req.Messages = append(req.Messages, m)
		}
		b, err := EncodeRequest(req)
		if err != nil {
			panic(rt.NewGoError(err))
		}
		pr, resolve, reject := rt.NewPromise()
		cells.CallCell(Class, p.Queue, b, func(resp []byte, err error) {
			var r Response
			if err == nil {
				if err = json.Unmarshal(resp, &r); err == nil && r.Error != "" {
					err = fmt.Errorf("%s", r.Error)
				}
			}
			if err != nil {
				_ = reject(rt.NewGoError(fmt.Errorf("Queue send failed: %w", err)))
				return
			}
			m := rt.NewObject()
			_ = m.Set("count", r.BacklogCount)
			_ = m.Set("bytes", r.BacklogBytes)
			_ = m.Set("oldest", r.OldestMs)
			_ = resolve(m)
		})
		return rt.ToValue(pr)
	})
	return fn(goja.Undefined(), native, rt.ToValue(p.Queue), rt.ToValue(p.DefaultType))
}

func responseError(resp []byte) error {
	var r Response
	if err := json.Unmarshal(resp, &r); err != nil {
		return fmt.Errorf("queue answer: %w", err)
	}
	if r.Error != "" {
		return fmt.Errorf("%s", r.Error)
	}
	return nil
}

// newID is a message id: 32 random hex digits, as Cloudflare's.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
