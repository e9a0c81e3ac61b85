package wasm

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// How a bundle carries its CompiledWasm modules (wrangler's `import m from
// "./x.wasm"`) without giving its code a way to compile bytes.
//
// workerd compiles a worker's .wasm modules when it loads the worker, and
// its JavaScript can only compile other bytes where workerd allows eval
// (module scope, from compatibility date 2025-06-01). cellhost inlines the
// modules into the one script it deploys, so the bytes travel in the
// script's text: as comment lines at its end (Section), one per module,
// "//# cellhost-wasm <sha-256 hex> <base64>". The host reads them out of the
// text before it runs any JavaScript (BundledModules): every module there
// was in the deployment when it was built. The bundle's code reaches a
// module only by its hash, through BundleGlobal, which looks it up among the
// modules of its own bundle (Options.Modules): no JavaScript value becomes
// code that way, whatever the caller computes.

const (
	sectionBegin = "//# cellhost-wasm-modules\n"
	sectionLine  = "//# cellhost-wasm "
	sectionEnd   = "//# cellhost-wasm-end\n"
)

// Hash is the name a bundle knows a module by: its bytes' SHA-256, hex.
func Hash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Section is the text that carries mods (by Hash) in a bundle: comment
// lines, which JavaScript ignores. "" for none.
func Section(mods map[string][]byte) string {
	if len(mods) == 0 {
		return ""
	}
	keys := make([]string, 0, len(mods))
	for k := range mods {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(sectionBegin)
	for _, k := range keys {
		b.WriteString(sectionLine)
		b.WriteString(k)
		b.WriteByte(' ')
		b.WriteString(base64.StdEncoding.EncodeToString(mods[k]))
		b.WriteByte('\n')
	}
	b.WriteString(sectionEnd)
	return b.String()
}

// AddSection puts the section of mods into code, before its last line when
// that is a source map comment (goja reads the map only from the last line).
func AddSection(code string, mods map[string][]byte) string {
	s := Section(mods)
	if s == "" {
		return code
	}
	trimmed := strings.TrimRight(code, "\n")
	i := strings.LastIndexByte(trimmed, '\n')
	if strings.HasPrefix(trimmed[i+1:], "//# sourceMappingURL=") {
		return code[:i+1] + s + code[i+1:]
	}
	if code != "" && !strings.HasSuffix(code, "\n") {
		code += "\n"
	}
	return code + s
}

// maxBundledModules bounds how many modules a bundle's section may name.
const maxBundledModules = 4096

// BundledModules reads the modules of a bundle's section (AddSection),
// checks that each one's bytes have its hash, and compiles them (Compile's
// process-wide cache: a module compiled at build time, or by another
// shard, is not compiled again). A bundle without a section has none.
func BundledModules(code string) (map[string]*Compiled, error) {
	raw, err := parseSection(code)
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	out := make(map[string]*Compiled, len(raw))
	for h, b := range raw {
		c, err := Compile(b)
		if err != nil {
			return nil, fmt.Errorf("WebAssembly module %s of the bundle: WebAssembly.Module(): %v", h[:12], err)
		}
		out[h] = c
	}
	return out, nil
}

// parseSection decodes the section's lines: hash and bytes, the hash
// checked.
func parseSection(code string) (map[string][]byte, error) {
	begin := strings.LastIndex(code, "\n"+sectionBegin)
	if begin < 0 {
		if !strings.HasPrefix(code, sectionBegin) {
			return nil, nil
		}
	} else {
		begin++
	}
	rest := code[begin+len(sectionBegin):]
	end := strings.Index(rest, sectionEnd)
	if end < 0 {
		return nil, errors.New("the bundle's WebAssembly section has no end line")
	}
	// The section is the end of the script (but for a source map comment):
	// the same text inside the code (a template literal) is not it.
	if tail := strings.TrimSuffix(rest[end+len(sectionEnd):], "\n"); tail != "" &&
		(!strings.HasPrefix(tail, "//# sourceMappingURL=") || strings.ContainsAny(tail, "\n\r\u2028\u2029")) {
		return nil, nil
	}
	rest = rest[:end]
	out := map[string][]byte{}
	for rest != "" {
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return nil, errors.New("the bundle's WebAssembly section has an unterminated line")
		}
		line := rest[:nl]
		rest = rest[nl+1:]
		if !strings.HasPrefix(line, sectionLine) {
			return nil, fmt.Errorf("the bundle's WebAssembly section has a line that is not a module: %.40q", line)
		}
		h, b64, ok := strings.Cut(line[len(sectionLine):], " ")
		if !ok || len(h) != 64 {
			return nil, fmt.Errorf("the bundle's WebAssembly section has a malformed line: %.40q", line)
		}
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, fmt.Errorf("the bundle's WebAssembly module %.12s: %v", h, err)
		}
		if Hash(b) != h {
			return nil, fmt.Errorf("the bundle's WebAssembly module %.12s: its bytes do not have that SHA-256", h)
		}
		if len(out) >= maxBundledModules {
			return nil, fmt.Errorf("the bundle carries more than %d WebAssembly modules", maxBundledModules)
		}
		out[h] = b
	}
	return out, nil
}
