package bucketkey

import (
	"strconv"
	"strings"
)

// The LTX log (bucket protocol, section 7):
//
//	cells/<scope>/ltx/e<epoch>/<level>/<min>-<max>.ltx
//
// <epoch> is decimal without leading zeros, <level> 4 lowercase hex digits
// (0000 = L0), <min> and <max> 16 lowercase hex digit TXIDs.

// LTXFile names one LTX object of a cell's log. Its String is the key.
type LTXFile struct {
	Scope   string
	Epoch   uint64
	Level   int
	MinTXID uint64
	MaxTXID uint64
}

// String returns the key of f (LTXKey).
func (f LTXFile) String() string {
	return LTXKey(f.Scope, f.Epoch, f.Level, f.MinTXID, f.MaxTXID)
}

// LTXPrefix returns the prefix of every LTX key of scope,
// "cells/<scope>/ltx/".
func LTXPrefix(scope string) string { return CellsPrefix + scope + ltxDir }

// LTXEpochPrefix returns the prefix of the LTX keys of scope at epoch,
// "cells/<scope>/ltx/e<epoch>/".
func LTXEpochPrefix(scope string, epoch uint64) string {
	return LTXPrefix(scope) + "e" + strconv.FormatUint(epoch, 10) + "/"
}

// LTXKey returns the key
// "cells/<scope>/ltx/e<epoch>/<level 4 hex>/<min 16 hex>-<max 16 hex>.ltx".
// It does not validate its arguments: scope must pass CheckScope, epoch and
// minTXID be at least 1, minTXID <= maxTXID and level in 0..0xffff, or
// ParseLTXKey will not accept the result.
func LTXKey(scope string, epoch uint64, level int, minTXID, maxTXID uint64) string {
	b := make([]byte, 0, len(scope)+72)
	b = append(b, CellsPrefix...)
	b = append(b, scope...)
	b = append(b, ltxDir...)
	b = append(b, 'e')
	b = strconv.AppendUint(b, epoch, 10)
	b = append(b, '/')
	b = appendHex(b, uint64(level), 4)
	b = append(b, '/')
	b = appendHex(b, minTXID, 16)
	b = append(b, '-')
	b = appendHex(b, maxTXID, 16)
	b = append(b, ".ltx"...)
	return string(b)
}

// appendHex appends v as at least width lowercase hex digits.
func appendHex(b []byte, v uint64, width int) []byte {
	s := strconv.FormatUint(v, 16)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// ParseLTXKey parses a key written by LTXKey. It is strict: it accepts
// exactly the keys LTXKey produces for a valid scope, epoch >= 1,
// level <= 0xffff and 1 <= minTXID <= maxTXID, so ParseLTXKey(k) succeeding
// implies k == parsed.String().
func ParseLTXKey(key string) (LTXFile, error) {
	var f LTXFile
	fail := func(why string) (LTXFile, error) { return LTXFile{}, invalid(key, why) }
	rest, ok := strings.CutPrefix(key, CellsPrefix)
	if !ok {
		return fail(`does not start with "cells/"`)
	}
	scope, rest, ok := strings.Cut(rest, "/ltx/e")
	if !ok {
		return fail(`no "/ltx/e<epoch>/"`)
	}
	if err := CheckScope(scope); err != nil {
		return fail(err.Error())
	}
	f.Scope = scope

	epoch, rest, ok := strings.Cut(rest, "/")
	if !ok {
		return fail("no level")
	}
	e, ok := parseDecimal(epoch)
	if !ok || e == 0 {
		return fail("epoch is not a decimal number >= 1 without leading zeros")
	}
	f.Epoch = e

	// rest is "<4 hex>/<16 hex>-<16 hex>.ltx": 4+1+16+1+16+4 = 42 bytes.
	const n = 4 + 1 + 16 + 1 + 16 + len(".ltx")
	if len(rest) != n || rest[4] != '/' || rest[21] != '-' || rest[38:] != ".ltx" {
		return fail("want <level 4 hex>/<min 16 hex>-<max 16 hex>.ltx after the epoch")
	}
	level, ok1 := parseHex(rest[0:4])
	minTXID, ok2 := parseHex(rest[5:21])
	maxTXID, ok3 := parseHex(rest[22:38])
	if !ok1 || !ok2 || !ok3 {
		return fail("level and TXIDs must be lowercase hex")
	}
	if minTXID == 0 || minTXID > maxTXID {
		return fail("want 1 <= min TXID <= max TXID")
	}
	f.Level, f.MinTXID, f.MaxTXID = int(level), minTXID, maxTXID
	return f, nil
}

// ParseLTXEpochDir parses the epoch of a directory name "e<epoch>" (as
// found under LTXPrefix): decimal, >= 1, no leading zeros.
func ParseLTXEpochDir(dir string) (uint64, bool) {
	s, ok := strings.CutPrefix(dir, "e")
	if !ok {
		return 0, false
	}
	e, ok := parseDecimal(s)
	return e, ok && e > 0
}

// parseDecimal parses a non-empty run of ASCII digits without a leading
// zero (except "0" itself) that fits in a uint64.
func parseDecimal(s string) (uint64, bool) {
	if s == "" || len(s) > 20 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (^uint64(0)-d)/10 {
			return 0, false // overflow
		}
		v = v*10 + d
	}
	return v, true
}

// parseHex parses lowercase hex digits (at most 16).
func parseHex(s string) (uint64, bool) {
	if s == "" || len(s) > 16 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uint64(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
