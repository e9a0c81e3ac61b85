package clone_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
	_ "modernc.org/sqlite"

	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/internal/jstest"
	"github.com/cellhost/cellhost/jsapi/web"
)

// The fixture in testdata/workerd was recorded by its record.sh on workerd
// 1.20261117.1: a Durable Object stored every value of values.js, and the
// SQLite file workerd wrote holds the bytes V8 serialized (table _cf_KV).
// <config>.json holds what workerd read back (describe, from index.js) and
// the limits it met.

type fixture struct {
	name     string // wrangler config: v8ser, v8ser-enhanced
	enhanced bool
	stored   map[string][]byte
	read     map[string]json.RawMessage
	limits   map[string]string
}

var fixtures = []struct {
	name     string
	enhanced bool
}{{"v8ser", false}, {"v8ser-enhanced", true}}

func loadFixture(t testing.TB, name string, enhanced bool) *fixture {
	t.Helper()
	dir := filepath.Join("testdata", "workerd")
	raw, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Read   map[string]json.RawMessage `json:"read"`
		Limits map[string]string          `json:"limits"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	// the object's file is named by its 64-hex id (metadata.sqlite is the namespace's alarm index)
	files, err := filepath.Glob(filepath.Join(dir, "state-"+name, "workerd", name+"-Store", strings.Repeat("[0-9a-f]", 64)+".sqlite"))
	if err != nil || len(files) != 1 {
		t.Fatalf("fixture database of %s: %v %v", name, files, err)
	}
	// a copy: opening may write the -shm file next to the database
	db := openCopy(t, files[0])
	rows, err := db.Query(`SELECT key, value FROM _cf_KV`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	f := &fixture{name: name, enhanced: enhanced, stored: map[string][]byte{}, read: rec.Read, limits: rec.Limits}
	for rows.Next() {
		var k string
		var v []byte
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		f.stored[k] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return f
}

func openCopy(t testing.TB, path string) *sql.DB {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", cp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// fixtureRuntime is a web runtime with values.js's VALUES and READ_ONLY
// and index.js's describe as globals.
func fixtureRuntime(t testing.TB) *goja.Runtime {
	t.Helper()
	rt, _ := jstest.NewRuntime(t, func(rt *goja.Runtime, console io.Writer) error {
		return installWeb(rt, console)
	})
	values, err := os.ReadFile(filepath.Join("testdata", "workerd", "values.js"))
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join("testdata", "workerd", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(index)
	a, b := strings.Index(src, "export function describe"), strings.Index(src, "async function attempt")
	if a < 0 || b < a {
		t.Fatal("index.js: describe not found")
	}
	script := strings.ReplaceAll(string(values), "export const", "var") + "\n" + strings.TrimPrefix(src[a:b], "export ")
	if _, err := rt.RunString(script); err != nil {
		t.Fatal(err)
	}
	return rt
}

func describeJSON(t *testing.T, rt *goja.Runtime, v goja.Value) any {
	t.Helper()
	rt.Set("__v", v)
	s := jstest.Run(t, rt, `JSON.stringify(describe(__v))`).String()
	var out any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// gojaLacks are the fixture's values goja cannot build or hold, with why;
// the test fails when one of them starts to work (remove it here then).
var gojaLacks = map[string]string{
	"regexp_v": "goja has no RegExp v (unicodeSets) flag",
	"float16":  "goja has no Float16Array (its view tag 'h' is pinned here all the same)",
}

// TestWorkerdFixture: for every value workerd stored, cellhost writes the
// same bytes for the same value, reads workerd's bytes back to the value
// workerd read, and writes what it read back as workerd's bytes again.
func TestWorkerdFixture(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			f := loadFixture(t, fx.name, fx.enhanced)
			rt := fixtureRuntime(t)
			if err := clone.SetEnhancedErrors(rt, f.enhanced); err != nil {
				t.Fatal(err)
			}
			for _, set := range []string{"VALUES", "READ_ONLY"} {
				obj := rt.Get(set).ToObject(rt)
				for _, k := range obj.Keys() {
					want, ok := f.stored[k]
					if !ok {
						t.Errorf("%s: workerd stored nothing", k)
						continue
					}
					if why, lacks := gojaLacks[k]; lacks {
						factory, _ := goja.AssertFunction(obj.Get(k))
						if _, err := factory(goja.Undefined()); err == nil {
							t.Errorf("%s: goja builds it now (%s): take it off gojaLacks", k, why)
						}
						if _, err := clone.Deserialize(rt, want); err == nil {
							t.Errorf("%s: read back although %s", k, why)
						}
						continue
					}
					if set == "VALUES" {
						factory, _ := goja.AssertFunction(obj.Get(k))
						v, err := factory(goja.Undefined())
						if err != nil {
							t.Fatalf("%s: %v", k, err)
						}
						got, err := clone.Serialize(rt, v)
						if err != nil {
							t.Errorf("%s: Serialize: %v", k, err)
						} else if !bytes.Equal(got, want) {
							t.Errorf("%s: Serialize =\n  %x\nworkerd wrote\n  %x", k, got, want)
						}
					}
					read, err := clone.Deserialize(rt, want)
					if err != nil {
						t.Errorf("%s: Deserialize(workerd's bytes): %v", k, err)
						continue
					}
					var wantRead any
					if err := json.Unmarshal(f.read[k], &wantRead); err != nil {
						t.Fatalf("%s: %v", k, err)
					}
					if got := describeJSON(t, rt, read); !reflect.DeepEqual(got, wantRead) {
						g, _ := json.Marshal(got)
						t.Errorf("%s: read back as\n  %s\nworkerd read\n  %s", k, g, f.read[k])
					}
					again, err := clone.Serialize(rt, read)
					if err != nil {
						t.Errorf("%s: Serialize(read back): %v", k, err)
					} else if !bytes.Equal(again, want) {
						t.Errorf("%s: Serialize(read back) =\n  %x\nworkerd wrote\n  %x", k, again, want)
					}
				}
			}
		})
	}
}

func installWeb(rt *goja.Runtime, console io.Writer) error {
	return web.Install(rt, web.Options{Console: console})
}
