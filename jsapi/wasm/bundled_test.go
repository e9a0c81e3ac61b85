package wasm

import (
	"strings"
	"testing"
)

// TestBundledModules: a section written by AddSection reads back (before a
// source map line, which stays last), a module whose bytes do not match
// its hash is refused, and the same text inside the code, not at its end,
// is not a section.
func TestBundledModules(t *testing.T) {
	mod := memoryModule(1, 2, true)
	h := Hash(mod)
	code := "var x = 1;\n//# sourceMappingURL=data:application/json;base64,e30=\n"
	out := AddSection(code, map[string][]byte{h: mod})
	if !strings.HasSuffix(out, "//# sourceMappingURL=data:application/json;base64,e30=\n") || !strings.HasPrefix(out, "var x = 1;\n") {
		t.Fatalf("section not before the source map line:\n%s", out)
	}
	got, err := BundledModules(out)
	if err != nil || len(got) != 1 || got[h] == nil {
		t.Fatalf("BundledModules: %v %v", got, err)
	}
	if got, err := BundledModules("var x = 1;\n"); err != nil || got != nil {
		t.Errorf("no section: %v %v", got, err)
	}
	other := globalModule(0x7f, false, 7)
	forged := strings.Replace(out, h, Hash(other), 1)
	if _, err := BundledModules(forged); err == nil || !strings.Contains(err.Error(), "do not have that SHA-256") {
		t.Errorf("forged hash: %v", err)
	}
	inside := "var s = `\n" + Section(map[string][]byte{Hash(other): other}) + "`;\nvar y = 2;\n"
	if got, err := BundledModules(inside); err != nil || got != nil {
		t.Errorf("a section inside the code: %v %v; want none", got, err)
	}
	if _, err := BundledModules("x\n" + sectionBegin + sectionLine + h + " !!\n" + sectionEnd); err == nil {
		t.Error("bad base64 accepted")
	}
}

// FuzzParseSection: the section comes from the bucket (a deployment's
// code); no input panics, and what is accepted has the right hashes.
func FuzzParseSection(f *testing.F) {
	mod := memoryModule(1, 2, true)
	f.Add(AddSection("var x;\n", map[string][]byte{Hash(mod): mod}))
	f.Add(sectionBegin + sectionEnd)
	f.Add("x\n" + sectionBegin + sectionLine + "00 AA==\n" + sectionEnd + "//# sourceMappingURL=x\n")
	f.Fuzz(func(t *testing.T, code string) {
		mods, err := parseSection(code)
		if err != nil {
			return
		}
		for h, b := range mods {
			if Hash(b) != h {
				t.Fatalf("accepted %s for bytes of hash %s", h, Hash(b))
			}
		}
	})
}
