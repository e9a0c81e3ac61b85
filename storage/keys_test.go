package storage_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/storage"
)

const testScope = "Counter:1182fbf2bee1753c4ffbfddea36c7eff522bfe47006c0f9f7e6035db0fc0b40d"

func TestLTXKey(t *testing.T) {
	for _, tc := range []struct {
		scope    string
		epoch    uint64
		level    int
		min, max uint64
		want     string
	}{
		{testScope, 1, 0, 1, 1, "cells/" + testScope + "/ltx/e1/0000/0000000000000001-0000000000000001.ltx"},
		{"A", 10, 9, 1, 0x1f, "cells/A/ltx/e10/0009/0000000000000001-000000000000001f.ltx"},
		{"x.y_z$-:", math.MaxUint64, 0xabcd, 0xfedcba9876543210, math.MaxUint64,
			"cells/x.y_z$-:/ltx/e18446744073709551615/abcd/fedcba9876543210-ffffffffffffffff.ltx"},
	} {
		got := storage.LTXKey(tc.scope, tc.epoch, tc.level, tc.min, tc.max)
		if got != tc.want {
			t.Errorf("LTXKey = %q, want %q", got, tc.want)
			continue
		}
		if err := plugins.CheckKey(got); err != nil {
			t.Errorf("CheckKey(%q): %v", got, err)
		}
		k, err := storage.ParseLTXKey(got)
		want := storage.LTXFileKey{Scope: tc.scope, Epoch: tc.epoch, Level: tc.level, MinTXID: tc.min, MaxTXID: tc.max}
		if err != nil || k != want {
			t.Errorf("ParseLTXKey(%q) = %+v, %v; want %+v", got, k, err, want)
		}
		if k.String() != got {
			t.Errorf("String = %q", k.String())
		}
	}
	if got, want := storage.LTXPrefix("A"), "cells/A/ltx/"; got != want {
		t.Errorf("LTXPrefix = %q, want %q", got, want)
	}
	if got, want := storage.LTXEpochPrefix("A", 9), "cells/A/ltx/e9/"; got != want {
		t.Errorf("LTXEpochPrefix = %q, want %q", got, want)
	}
}

func TestParseLTXKey_Invalid(t *testing.T) {
	const tail = "/0000/0000000000000001-0000000000000002.ltx"
	for _, key := range []string{
		"",
		"cells/A/ltx/e1" + tail + "x",
		"cells/A/ltx/e1" + strings.TrimSuffix(tail, ".ltx"),
		"/cells/A/ltx/e1" + tail,
		"cell/A/ltx/e1" + tail,
		"cells//ltx/e1" + tail,                     // empty scope
		"cells/./ltx/e1" + tail,                    // "." scope
		"cells/../ltx/e1" + tail,                   // ".." scope
		"cells/a b/ltx/e1" + tail,                  // space
		"cells/a/b/ltx/e1" + tail,                  // "/" in scope
		"cells/é/ltx/e1" + tail,                    // non-ASCII
		"cells/A/ltx/e0" + tail,                    // epoch 0
		"cells/A/ltx/e01" + tail,                   // leading zero
		"cells/A/ltx/e" + tail,                     // no epoch
		"cells/A/ltx/e-1" + tail,                   // sign
		"cells/A/ltx/e+1" + tail,                   // sign
		"cells/A/ltx/E1" + tail,                    // upper case
		"cells/A/ltx/1" + tail,                     // no "e"
		"cells/A/ltx/e18446744073709551616" + tail, // overflow
		"cells/A/ltx/e1/000/0000000000000001-0000000000000002.ltx",
		"cells/A/ltx/e1/00000/0000000000000001-0000000000000002.ltx",
		"cells/A/ltx/e1/000A/0000000000000001-0000000000000002.ltx",
		"cells/A/ltx/e1/0000/000000000000000A-0000000000000002.ltx",
		"cells/A/ltx/e1/0000/0000000000000001-000000000000002.ltx",
		"cells/A/ltx/e1/0000/0000000000000001_0000000000000002.ltx",
		"cells/A/ltx/e1/0000/0000000000000001-0000000000000002.LTX",
		"cells/A/ltx/e1/0000/0000000000000000-0000000000000002.ltx", // min 0
		"cells/A/ltx/e1/0000/0000000000000003-0000000000000002.ltx", // min > max
		"cells/A/ltx/e1/0000/0000000000000001-0000000000000002.ltx/x",
		"cells/A/ltx/e1/0000/x/0000000000000001-0000000000000002.ltx",
		"cells/" + strings.Repeat("a", 256) + "/ltx/e1" + tail, // scope too long
	} {
		if k, err := storage.ParseLTXKey(key); err == nil {
			t.Errorf("ParseLTXKey(%q) = %+v, want an error", key, k)
		} else if !errors.Is(err, storage.ErrInvalidLTXKey) {
			t.Errorf("ParseLTXKey(%q): %v does not wrap ErrInvalidLTXKey", key, err)
		}
	}
	if _, err := storage.ParseLTXKey("cells/" + strings.Repeat("a", 255) + "/ltx/e1" + tail); err != nil {
		t.Errorf("255-byte scope: %v", err)
	}
}

func TestCheckScope(t *testing.T) {
	for _, s := range []string{testScope, "A", "a.b", "...", "$", strings.Repeat("z", 255)} {
		if err := storage.CheckScope(s); err != nil {
			t.Errorf("CheckScope(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", ".", "..", "a/b", "a b", "a\x00", strings.Repeat("z", 256)} {
		if err := storage.CheckScope(s); err == nil {
			t.Errorf("CheckScope(%q) = nil", s)
		}
	}
}

func FuzzParseLTXKey(f *testing.F) {
	f.Add("cells/" + testScope + "/ltx/e1/0000/0000000000000001-0000000000000001.ltx")
	f.Add("cells/A/ltx/e10/0009/0000000000000001-000000000000001f.ltx")
	f.Add("cells/A/ltx/e01/0000/0000000000000001-0000000000000002.ltx")
	f.Add("cells/A/ltx/e1/0000/0000000000000003-0000000000000002.ltx")
	f.Add("")
	f.Fuzz(func(t *testing.T, key string) {
		k, err := storage.ParseLTXKey(key)
		if err != nil {
			if !errors.Is(err, storage.ErrInvalidLTXKey) {
				t.Fatalf("error %v does not wrap ErrInvalidLTXKey", err)
			}
			return
		}
		// Strict: only the keys LTXKey writes, for valid arguments.
		if got := k.String(); got != key {
			t.Fatalf("ParseLTXKey(%q) = %+v, which formats as %q", key, k, got)
		}
		if storage.CheckScope(k.Scope) != nil || k.Epoch == 0 || k.MinTXID == 0 || k.MinTXID > k.MaxTXID || k.Level < 0 || k.Level > 0xffff {
			t.Fatalf("ParseLTXKey(%q) = %+v: invalid fields", key, k)
		}
		if err := plugins.CheckKey(key); err != nil {
			t.Fatalf("parsed key %q is not a portable store key: %v", key, err)
		}
	})
}
