package wasm

import (
	"errors"
	"fmt"
)

// The import and export sections in the order the module declares them.
// wazero's CompiledModule lists imports and exports per kind, exports in
// maps, which loses the order WebAssembly.Module.imports/exports and an
// instance's exports object have in V8 (declaration order, with every kind
// interleaved); reading the two sections is a few dozen lines, so they are
// read here. The bytes were validated by wazero first (Compile), and the
// reader is bounded anyway and fuzzed (FuzzSections).

// Import is one entry of the import section.
type Import struct {
	Module, Name, Kind string
	// Index is the entry's position among the imports of its kind.
	Index int
	// For memories: limits in pages; for globals: value type and
	// mutability; for tables: the element type and limits.
	Min, Max uint32
	HasMax   bool
	ValType  byte
	Mutable  bool
}

// FuncType is one entry of the type section.
type FuncType struct{ Params, Results []byte }

// Export is one entry of the export section.
type Export struct {
	Name, Kind string
	Index      uint32 // in the index space of its kind
}

var kindNames = [...]string{"function", "table", "memory", "global", "tag"}

type reader struct {
	b   []byte
	off int
}

var errTruncated = errors.New("wasm: truncated section")

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, errTruncated
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

func (r *reader) u32() (uint32, error) {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errors.New("wasm: LEB128 too long")
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	if uint64(r.off)+uint64(n) > uint64(len(r.b)) {
		return "", errTruncated
	}
	s := string(r.b[r.off : r.off+int(n)])
	r.off += int(n)
	return s, nil
}

func (r *reader) limits() (min, max uint32, hasMax bool, err error) {
	flags, err := r.byte()
	if err != nil {
		return
	}
	if min, err = r.u32(); err != nil {
		return
	}
	if flags&1 != 0 {
		hasMax = true
		max, err = r.u32()
	}
	return
}

func (r *reader) valTypes() ([]byte, error) {
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	if uint64(r.off)+uint64(n) > uint64(len(r.b)) {
		return nil, errTruncated
	}
	v := append([]byte(nil), r.b[r.off:r.off+int(n)]...)
	r.off += int(n)
	return v, nil
}

// Types reads the type section (function signatures) of a module's bytes.
func Types(b []byte) ([]FuncType, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("wasm: not a module")
	}
	r := &reader{b: b, off: 8}
	for r.off < len(b) {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		if uint64(r.off)+uint64(size) > uint64(len(b)) {
			return nil, errTruncated
		}
		if id != 1 {
			r.off += int(size)
			continue
		}
		sec := &reader{b: b[r.off : r.off+int(size)]}
		n, err := sec.u32()
		if err != nil {
			return nil, err
		}
		var out []FuncType
		for i := uint32(0); i < n; i++ {
			form, err := sec.byte()
			if err != nil {
				return nil, err
			}
			if form != 0x60 {
				return nil, fmt.Errorf("wasm: type form 0x%x", form)
			}
			var t FuncType
			if t.Params, err = sec.valTypes(); err != nil {
				return nil, err
			}
			if t.Results, err = sec.valTypes(); err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, nil
	}
	return nil, nil
}

// TableTypes reads the element types of a module's tables, in the table
// index space (imported tables first).
func TableTypes(b []byte) ([]byte, error) {
	imports, _, err := Sections(b)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, im := range imports {
		if im.Kind == "table" {
			out = append(out, im.ValType)
		}
	}
	r := &reader{b: b, off: 8}
	for r.off < len(b) {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		if uint64(r.off)+uint64(size) > uint64(len(b)) {
			return nil, errTruncated
		}
		if id != 4 {
			r.off += int(size)
			continue
		}
		sec := &reader{b: b[r.off : r.off+int(size)]}
		n, err := sec.u32()
		if err != nil {
			return nil, err
		}
		for i := uint32(0); i < n; i++ {
			t, err := sec.byte()
			if err != nil {
				return nil, err
			}
			if _, _, _, err := sec.limits(); err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		break
	}
	return out, nil
}

// Sections reads the import and export sections of a module's bytes.
func Sections(b []byte) (imports []Import, exports []Export, err error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, nil, errors.New("wasm: not a module")
	}
	r := &reader{b: b, off: 8}
	counts := [5]int{}
	for r.off < len(b) {
		id, err := r.byte()
		if err != nil {
			return nil, nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, nil, err
		}
		if uint64(r.off)+uint64(size) > uint64(len(b)) {
			return nil, nil, errTruncated
		}
		sec := &reader{b: b[r.off : r.off+int(size)]}
		r.off += int(size)
		switch id {
		case 2:
			n, err := sec.u32()
			if err != nil {
				return nil, nil, err
			}
			for i := uint32(0); i < n; i++ {
				var im Import
				if im.Module, err = sec.name(); err != nil {
					return nil, nil, err
				}
				if im.Name, err = sec.name(); err != nil {
					return nil, nil, err
				}
				k, err := sec.byte()
				if err != nil {
					return nil, nil, err
				}
				if int(k) >= len(kindNames) {
					return nil, nil, fmt.Errorf("wasm: import kind %d", k)
				}
				im.Kind, im.Index = kindNames[k], counts[k]
				counts[k]++
				switch k {
				case 0: // type index
					_, err = sec.u32()
				case 1: // reftype, limits
					if im.ValType, err = sec.byte(); err == nil {
						im.Min, im.Max, im.HasMax, err = sec.limits()
					}
				case 2:
					im.Min, im.Max, im.HasMax, err = sec.limits()
				case 3:
					if im.ValType, err = sec.byte(); err == nil {
						var m byte
						m, err = sec.byte()
						im.Mutable = m == 1
					}
				case 4: // attribute, type index
					if _, err = sec.byte(); err == nil {
						_, err = sec.u32()
					}
				}
				if err != nil {
					return nil, nil, err
				}
				imports = append(imports, im)
			}
		case 7:
			n, err := sec.u32()
			if err != nil {
				return nil, nil, err
			}
			for i := uint32(0); i < n; i++ {
				var ex Export
				if ex.Name, err = sec.name(); err != nil {
					return nil, nil, err
				}
				k, err := sec.byte()
				if err != nil {
					return nil, nil, err
				}
				if int(k) >= len(kindNames) {
					return nil, nil, fmt.Errorf("wasm: export kind %d", k)
				}
				ex.Kind = kindNames[k]
				if ex.Index, err = sec.u32(); err != nil {
					return nil, nil, err
				}
				exports = append(exports, ex)
			}
		}
	}
	return imports, exports, nil
}
