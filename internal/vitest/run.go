package vitest

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/bindings/queues"
	_ "github.com/cellhost/cellhost/bindings/standard" // the binding plugins a wrangler config names
	"github.com/cellhost/cellhost/host"
	proj "github.com/cellhost/cellhost/internal/project"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
)

//go:embed js/cloudflare-test.js
var cloudflareTestJS []byte

//go:embed js/vitest.js
var vitestJS []byte

// Options shape a run.
type Options struct {
	// Files narrows the run to test files whose relative path contains
	// one of these (as `vitest run <filter>` does); empty: all.
	Files []string
	// Log receives the worker's console output; nil discards it.
	Log io.Writer
}

// TestResult is one test's outcome.
type TestResult struct {
	Name     string `json:"name"`  // "describe > test"
	State    string `json:"state"` // pass, fail, skip, todo
	Duration int64  `json:"duration"`
	Error    *struct {
		Name    string `json:"name"`
		Message string `json:"message"`
		Stack   string `json:"stack"`
	} `json:"error,omitempty"`
}

// FileResult is one test file's outcome: its tests, or the error that
// kept it from running (a build error, an exception while collecting).
type FileResult struct {
	File     string        `json:"file"`
	Error    string        `json:"error,omitempty"`
	Tests    []TestResult  `json:"tests"`
	Duration time.Duration `json:"duration"`
}

// Report is a run's outcome.
type Report struct {
	Files    []FileResult  `json:"files"`
	Duration time.Duration `json:"duration"`
}

// Counts returns the tests passed, failed and skipped (todo included),
// and the files that failed.
func (r *Report) Counts() (passed, failed, skipped, failedFiles int) {
	for _, f := range r.Files {
		bad := f.Error != ""
		for _, t := range f.Tests {
			switch t.State {
			case "pass":
				passed++
			case "fail":
				failed++
				bad = true
			default:
				skipped++
			}
		}
		if bad {
			failedFiles++
		}
	}
	return
}

// Run runs the suite c describes.
func Run(ctx context.Context, c *Config, o Options) (*Report, error) {
	start := time.Now()
	files, err := c.TestFiles()
	if err != nil {
		return nil, err
	}
	if len(o.Files) > 0 {
		var keep []string
		for _, f := range files {
			for _, want := range o.Files {
				if strings.Contains(f, want) {
					keep = append(keep, f)
					break
				}
			}
		}
		files = keep
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no test files found (include: %s)", c.Dir, strings.Join(orDefault(c.Include), ", "))
	}
	work, err := os.MkdirTemp("", "cellhost-test-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	for name, src := range map[string][]byte{"cloudflare-test.js": cloudflareTestJS, "vitest.js": vitestJS} {
		if err := os.WriteFile(filepath.Join(work, name), src, 0o600); err != nil {
			return nil, err
		}
	}
	rep := &Report{}
	for i, f := range files {
		fr := runFile(ctx, c, o, work, i, f)
		rep.Files = append(rep.Files, fr)
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

func orDefault(inc []string) []string {
	if len(inc) == 0 {
		return []string{"**/*.{test,spec}.?(c|m)[jt]s?(x)"}
	}
	return inc
}

// project is one test file's worker: the wrangler config with the entry
// replaced by the generated one.
type project struct {
	cfg   *wrangler.Config
	hc    host.Config
	token string
}

// prepare loads the wrangler config and bundles the generated entry for
// test file rel (entry.go).
func prepare(c *Config, work string, n int, rel string) (*project, error) {
	var cfg *wrangler.Config
	var err error
	if c.Wrangler != "" {
		cfg, err = wrangler.ResolveWith(c.Wrangler, wrangler.Options{Env: c.Environment})
	} else {
		cfg, err = wrangler.Resolve(c.Main)
	}
	if err != nil {
		return nil, err
	}
	if c.Main != "" {
		cfg.Main = c.Main
	}
	if c.CompatibilityDate != "" {
		cfg.CompatibilityDate = c.CompatibilityDate
	}
	cfg.CompatibilityFlags = append(cfg.CompatibilityFlags, c.CompatibilityFlags...)
	// The pool always runs the worker with Node.js compatibility (v2),
	// whatever its config says: its runner needs it, and test files may
	// import node: modules the worker does not.
	if !slices.Contains(cfg.CompatibilityFlags, "nodejs_compat_v2") && !slices.Contains(cfg.CompatibilityFlags, "nodejs_compat") {
		cfg.CompatibilityFlags = append(cfg.CompatibilityFlags, "nodejs_compat")
	}
	if cfg.Vars == nil {
		cfg.Vars = map[string]any{}
	}
	for k, v := range c.Bindings {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return nil, err
		}
		cfg.Vars[k] = x
	}
	overrideQueues(cfg, c.QueueConsumers)
	token := randomToken()
	classOf := map[string]string{}
	var classes []string
	for _, b := range cfg.Bindings {
		classOf[b.Name] = b.Class
		classes = append(classes, b.Class)
	}
	sort.Strings(classes)
	entry := filepath.Join(work, fmt.Sprintf("entry-%d.js", n))
	src := Entry(EntrySpec{Main: cfg.Main, TestFile: filepath.Join(c.Dir, filepath.FromSlash(rel)), SetupFiles: c.SetupFiles,
		Classes: classes, ClassOf: classOf, Token: token})
	if err := os.WriteFile(entry, []byte(src), 0o600); err != nil {
		return nil, err
	}
	if cfg.Alias == nil {
		cfg.Alias = map[string]string{}
	}
	cfg.Alias["cloudflare:test"] = filepath.Join(work, "cloudflare-test.js")
	cfg.Alias["vitest"] = filepath.Join(work, "vitest.js")
	cfg.Main = entry
	hc, err := proj.HostConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &project{cfg: cfg, hc: hc, token: token}, nil
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// runFile runs one test file: with isolated storage, each test on a host
// of its own (fresh storage, fresh runtime), the file's setup files and
// its suites' beforeAll hooks run again for each; without, all its tests
// on one host.
func runFile(ctx context.Context, c *Config, o Options, work string, n int, rel string) FileResult {
	start := time.Now()
	fr := FileResult{File: rel}
	p, err := prepare(c, work, n, rel)
	if err != nil {
		fr.Error = err.Error()
		fr.Duration = time.Since(start)
		return fr
	}
	var select0 any // nil: every test, on one host
	if c.IsolatedStorage {
		select0 = []int{0}
	}
	reply, err := p.run(ctx, c, o, select0)
	if err != nil {
		fr.Error = err.Error()
		fr.Duration = time.Since(start)
		return fr
	}
	fr.Tests = reply.Results
	if c.IsolatedStorage {
		for i := 1; i < len(reply.Tests); i++ {
			if reply.Tests[i].Mode != "run" {
				continue
			}
			r, err := p.run(ctx, c, o, []int{i})
			if err != nil {
				fr.Tests[i].State = "fail"
				fr.Tests[i].Error = &struct {
					Name    string `json:"name"`
					Message string `json:"message"`
					Stack   string `json:"stack"`
				}{Name: "Error", Message: err.Error()}
				continue
			}
			fr.Tests[i] = r.Results[i]
		}
	}
	fr.Duration = time.Since(start)
	return fr
}

// runReply is the generated entry's answer.
type runReply struct {
	Tests []struct {
		Name string `json:"name"`
		Mode string `json:"mode"`
	} `json:"tests"`
	Results []TestResult `json:"results"`
	Error   *struct {
		Message string `json:"message"`
		Stack   string `json:"stack"`
	} `json:"error"`
}

// run starts a host with fresh storage for the project and asks its
// entry to run the selected tests (nil: all).
func (p *project) run(ctx context.Context, c *Config, o Options, sel any) (*runReply, error) {
	state, err := os.MkdirTemp("", "cellhost-test-state-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(state)
	hc := p.hc
	hc.StateDir, hc.Shards = state, 1
	hc.Log = o.Log
	if hc.Log == nil {
		hc.Log = io.Discard
	}
	res := binding.NewResources(state, nil, func() (plugins.ObjectStore, error) {
		return filestore.New(filepath.Join(state, "bucket"))
	})
	defer res.Close()
	if err := proj.BindPlugins(p.cfg, res, &hc); err != nil {
		return nil, err
	}
	h, err := host.New(hc)
	if err != nil {
		return nil, err
	}
	if err := h.Open(); err != nil {
		return nil, err
	}
	defer h.Close(context.Background())
	body, _ := json.Marshal(map[string]any{"select": sel, "testTimeout": c.TestTimeout, "hookTimeout": c.HookTimeout, "restoreMocks": c.RestoreMocks})
	req := httptest.NewRequest("POST", "http://cellhost-test.invalid/", bytes.NewReader(body)).WithContext(ctx)
	req.Header.Set("cf-cellhost-test-control", p.token)
	rec := httptest.NewRecorder()
	h.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 {
		return nil, fmt.Errorf("the test worker answered %d: %s", rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	var r runReply
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("the test worker's answer: %v", err)
	}
	if r.Error != nil {
		msg := r.Error.Stack
		if msg == "" {
			msg = r.Error.Message
		}
		return nil, fmt.Errorf("%s", msg)
	}
	return &r, nil
}

// Print writes the report as Vitest's default reporter does, in short.
func Print(w io.Writer, r *Report) {
	for _, f := range r.Files {
		if f.Error != "" {
			fmt.Fprintf(w, " FAIL  %s\n   %s\n", f.File, strings.ReplaceAll(f.Error, "\n", "\n   "))
			continue
		}
		for _, t := range f.Tests {
			switch t.State {
			case "pass":
				fmt.Fprintf(w, " ✓ %s > %s %dms\n", f.File, t.Name, t.Duration)
			case "fail":
				fmt.Fprintf(w, " × %s > %s %dms\n", f.File, t.Name, t.Duration)
				if t.Error != nil {
					msg := t.Error.Name + ": " + t.Error.Message
					fmt.Fprintf(w, "   → %s\n", strings.ReplaceAll(msg, "\n", "\n     "))
				}
			case "todo":
				fmt.Fprintf(w, " ↓ %s > %s [todo]\n", f.File, t.Name)
			default:
				fmt.Fprintf(w, " ↓ %s > %s [skipped]\n", f.File, t.Name)
			}
		}
	}
	passed, failed, skipped, failedFiles := r.Counts()
	files := len(r.Files)
	fmt.Fprintf(w, "\n Test Files  ")
	if failedFiles > 0 {
		fmt.Fprintf(w, "%d failed | ", failedFiles)
	}
	fmt.Fprintf(w, "%d passed (%d)\n      Tests  ", files-failedFiles, files)
	if failed > 0 {
		fmt.Fprintf(w, "%d failed | ", failed)
	}
	fmt.Fprintf(w, "%d passed", passed)
	if skipped > 0 {
		fmt.Fprintf(w, " | %d skipped", skipped)
	}
	fmt.Fprintf(w, " (%d)\n   Duration  %dms\n", passed+failed+skipped, r.Duration.Milliseconds())
}

// overrideQueues lays miniflare.queueConsumers over the wrangler config's
// queue consumers (the pool's examples shorten max_batch_timeout so).
func overrideQueues(cfg *wrangler.Config, qc map[string]QueueConsumer) {
	if len(qc) == 0 {
		return
	}
	for _, u := range cfg.Plugins {
		for i, e := range u.Entries {
			c, ok := e.Config.(queues.Consumer)
			if !ok {
				continue
			}
			o, ok := qc[c.Queue]
			if !ok {
				continue
			}
			if o.MaxBatchSize != nil {
				c.MaxBatchSize = *o.MaxBatchSize
			}
			if o.MaxBatchTimeout != nil {
				c.MaxBatchTimeout = time.Duration(*o.MaxBatchTimeout * float64(time.Second))
			}
			if o.MaxRetries != nil {
				c.MaxRetries = *o.MaxRetries
			}
			if o.DeadLetterQueue != nil {
				c.DeadLetterQueue = *o.DeadLetterQueue
			}
			if o.RetryDelay != nil {
				c.RetryDelay = time.Duration(*o.RetryDelay * float64(time.Second))
			}
			u.Entries[i].Config = c
		}
	}
}
