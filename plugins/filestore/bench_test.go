package filestore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cellhost/cellhost/plugins"
)

const (
	benchWriters = 64   // concurrent uploaders, as 64 clients of 1000 objects
	benchScopes  = 1000 // Durable Objects
	benchBodyLen = 4200 // an LTX file of one small commit
)

// benchKey is the key of the i-th LTX file: objects take turns.
func benchKey(i int) string {
	return fmt.Sprintf("cells/%016x/ltx/e1/0000/%016x-%016x.ltx", i%benchScopes, i/benchScopes+1, i/benchScopes+1)
}

// runWriters calls put(i) for i in [0, b.N) from benchWriters goroutines
// and reports the CPU time of the process per op, user and system.
func runWriters(b *testing.B, put func(i int) error) {
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		ru0  unix.Rusage
		ru1  unix.Rusage
	)
	b.SetBytes(benchBodyLen)
	b.ResetTimer()
	unix.Getrusage(unix.RUSAGE_SELF, &ru0)
	for range benchWriters {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= b.N {
					return
				}
				if err := put(i); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	unix.Getrusage(unix.RUSAGE_SELF, &ru1)
	b.StopTimer()
	tv := func(t unix.Timeval) time.Duration { return time.Duration(t.Nano()) }
	b.ReportMetric(float64((tv(ru1.Stime)-tv(ru0.Stime)).Microseconds())/float64(b.N), "sys-µs/op")
	b.ReportMetric(float64((tv(ru1.Utime)-tv(ru0.Utime)).Microseconds())/float64(b.N), "user-µs/op")
}

// BenchmarkPut64 measures the LTX uploads of many objects at once:
// unconditional 4200-byte puts to distinct keys from 64 goroutines. The
// baseline FilePerObject is format v1's write path in the same run.
func BenchmarkPut64(b *testing.B) {
	body := make([]byte, benchBodyLen)
	rand.Read(body)
	b.Run("SQLite", func(b *testing.B) {
		s, err := New(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		ctx := context.Background()
		rounds := s.w.rounds.Load()
		runWriters(b, func(i int) error {
			_, err := s.Put(ctx, benchKey(i), body, plugins.PutOptions{})
			return err
		})
		b.ReportMetric(float64(b.N)/float64(s.w.rounds.Load()-rounds), "ops/round")
	})
	// Two Stores on one directory, 32 writers each: two nodes of one
	// machine on a file bucket, whose rounds take turns at SQLite's write
	// lock (and whose fsyncs, made outside it, may overlap).
	b.Run("SQLite2Stores", func(b *testing.B) {
		dir := b.TempDir()
		var ss [2]*Store
		for i := range ss {
			s, err := New(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ss[i] = s
		}
		ctx := context.Background()
		runWriters(b, func(i int) error {
			_, err := ss[i%2].Put(ctx, benchKey(i), body, plugins.PutOptions{})
			return err
		})
	})
	b.Run("FilePerObject", func(b *testing.B) {
		v := &v1Writer{root: b.TempDir()}
		v.cond = sync.NewCond(&v.mu)
		runWriters(b, func(i int) error { return v.put(benchKey(i), body) })
		b.ReportMetric(float64(b.N)/float64(v.finished), "ops/round")
	})
}

// BenchmarkPut1 measures one writer that waits for each Put before the
// next (one object's uploads at one connection): ns/op is the latency of a
// durable 4200-byte LTX upload, its fsync included.
func BenchmarkPut1(b *testing.B) {
	body := make([]byte, benchBodyLen)
	rand.Read(body)
	s, err := New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.SetBytes(benchBodyLen)
	b.ResetTimer()
	defer reportCPU(b)()
	for i := range b.N {
		if _, err := s.Put(ctx, benchKey(i*benchScopes), body, plugins.PutOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// v1Writer is format v1's unconditional write path, the baseline: a
// temporary file, a syncfs round shared by the concurrent writers, a
// rename, another shared round.
type v1Writer struct {
	root string

	mu                sync.Mutex
	cond              *sync.Cond
	started, finished uint64
}

func (v *v1Writer) put(key string, body []byte) error {
	path := filepath.Join(v.root, filepath.FromSlash(key))
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); err != nil {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return err
		}
	}
	var nonce [8]byte
	rand.Read(nonce[:])
	etag, err := newETag(body)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, v1TmpPrefix+hex.EncodeToString(nonce[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte(v1Magic + etag[1:len(etag)-1] + "\n"))
	if err == nil {
		_, err = f.Write(body)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := v.wait(); err != nil { // the body, before its name
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return v.wait() // the name
}

// wait is v1's groupSync: one syncfs per round for everyone waiting.
func (v *v1Writer) wait() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	need := v.started + 1
	for v.finished < need {
		if v.started > v.finished {
			v.cond.Wait()
			continue
		}
		v.started++
		round := v.started
		v.mu.Unlock()
		err := syncfs(v.root)
		v.mu.Lock()
		v.finished = round
		v.cond.Broadcast()
		if err != nil {
			return err
		}
	}
	return nil
}

func syncfs(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}

// BenchmarkGet measures the read of a small record (own.json) by parallel
// readers, next to format v1's read (open, read, close).
func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	body := []byte(`{"node":"n1","epoch":7,"generation":3}`)
	b.Run("SQLite", func(b *testing.B) {
		s, err := New(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		for i := range benchScopes {
			if _, err := s.Put(ctx, fmt.Sprintf("cells/%016x/own.json", i), body, plugins.PutOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		var n atomic.Int64
		b.ResetTimer()
		defer reportCPU(b)()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, _, err := s.Get(ctx, fmt.Sprintf("cells/%016x/own.json", n.Add(1)%benchScopes)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("FilePerObject", func(b *testing.B) {
		root := b.TempDir()
		for i := range benchScopes {
			writeV1(b, root, fmt.Sprintf("cells/%016x/own.json", i), body)
		}
		var n atomic.Int64
		b.ResetTimer()
		defer reportCPU(b)()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				data, err := os.ReadFile(filepath.Join(root, "cells", fmt.Sprintf("%016x", n.Add(1)%benchScopes), "own.json"))
				if err == nil {
					_, _, err = decodeV1(data)
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// reportCPU reports the process's CPU time (user + system) per op as
// cpu-ns/op, from now to the call of the function it returns.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru unix.Rusage
		unix.Getrusage(unix.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// BenchmarkCheckRound measures the acknowledgement checks of one upload
// round as the log mode makes them: 32 objects each upload an LTX file
// (the round's writes), then own.json of each is read, by 32 concurrent
// Gets (one per upload, as before) or by one GetMany. Only the reads are
// measured: cpu-µs/op is the process's CPU per check.
func BenchmarkCheckRound(b *testing.B) {
	ctx := context.Background()
	const round = 32
	own := []byte(`{"node":"n1","epoch":7}`)
	body := make([]byte, benchBodyLen)
	rand.Read(body)
	for _, mode := range []string{"Get", "GetMany"} {
		b.Run(mode, func(b *testing.B) {
			s, err := New(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for i := range benchScopes {
				if _, err := s.Put(ctx, fmt.Sprintf("cells/%016x/own.json", i), own, plugins.PutOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			var cpu time.Duration
			keys := make([]string, round)
			seq := 0
			for n := 0; n < b.N; n += round {
				var wg sync.WaitGroup
				for j := range keys {
					i := seq*round + j
					keys[j] = fmt.Sprintf("cells/%016x/own.json", i%benchScopes)
					wg.Go(func() {
						if _, err := s.Put(ctx, benchKey(i), body, plugins.PutOptions{}); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
				seq++
				start := cpuNow()
				if mode == "Get" {
					for _, k := range keys {
						wg.Go(func() {
							if _, _, err := s.Get(ctx, k); err != nil {
								b.Error(err)
							}
						})
					}
					wg.Wait()
				} else {
					for _, r := range s.GetMany(ctx, keys) {
						if r.Err != nil {
							b.Error(r.Err)
						}
					}
				}
				cpu += cpuNow() - start
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(seq*round), "cpu-µs/op")
		})
	}
}

func cpuNow() time.Duration {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
