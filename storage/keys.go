package storage

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Bucket key layout of a cell's LTX log (bucket protocol, section 7):
//
//	cells/<scope>/ltx/e<epoch>/<level>/<min>-<max>.ltx
//
// <epoch> is decimal without leading zeros, <level> 4 lowercase hex digits
// (0000 = L0), <min> and <max> 16 lowercase hex digit TXIDs.

// MaxLTXLevel is the highest compaction level a restore reads (0009, the
// snapshot level of Litestream and celld).
const MaxLTXLevel = 9

// ErrInvalidLTXKey is wrapped by the errors of ParseLTXKey.
var ErrInvalidLTXKey = errors.New("invalid LTX key")

// LTXFileKey names one LTX object of a cell's log. Its String is the bucket
// key.
type LTXFileKey struct {
	Scope   string
	Epoch   uint64
	Level   int
	MinTXID uint64
	MaxTXID uint64
}

// String returns the bucket key of k (LTXKey).
func (k LTXFileKey) String() string {
	return LTXKey(k.Scope, k.Epoch, k.Level, k.MinTXID, k.MaxTXID)
}

// LTXPrefix returns the prefix of every LTX key of scope,
// "cells/<scope>/ltx/".
func LTXPrefix(scope string) string { return "cells/" + scope + "/ltx/" }

// LTXEpochPrefix returns the prefix of the LTX keys of scope at epoch,
// "cells/<scope>/ltx/e<epoch>/".
func LTXEpochPrefix(scope string, epoch uint64) string {
	return LTXPrefix(scope) + "e" + strconv.FormatUint(epoch, 10) + "/"
}

// LTXKey returns the bucket key
// "cells/<scope>/ltx/e<epoch>/<level 4 hex>/<min 16 hex>-<max 16 hex>.ltx".
// It does not validate its arguments: scope must be a valid scope (see
// CheckScope), epoch and minTXID at least 1, minTXID <= maxTXID and level in
// 0..0xffff, or ParseLTXKey will not accept the result.
func LTXKey(scope string, epoch uint64, level int, minTXID, maxTXID uint64) string {
	var b strings.Builder
	b.Grow(len(scope) + 64)
	b.WriteString(LTXEpochPrefix(scope, epoch))
	b.WriteString(fmt.Sprintf("%04x/%016x-%016x.ltx", level, minTXID, maxTXID))
	return b.String()
}

// MaxScopeLen is the longest scope in bytes (bucket protocol, section 3).
const MaxScopeLen = 255

// CheckScope reports whether scope can name a cell in bucket keys: 1 to
// MaxScopeLen bytes of [A-Za-z0-9_.:$-], and neither "." nor "..".
func CheckScope(scope string) error {
	switch {
	case scope == "":
		return errors.New("empty scope")
	case len(scope) > MaxScopeLen:
		return fmt.Errorf("scope is %d bytes, more than %d", len(scope), MaxScopeLen)
	case scope == "." || scope == "..":
		return fmt.Errorf("scope %q is not allowed", scope)
	}
	for i := 0; i < len(scope); i++ {
		if !scopeByte(scope[i]) {
			return fmt.Errorf("scope has a byte outside [A-Za-z0-9_.:$-] at %d: %q", i, scope[i])
		}
	}
	return nil
}

func scopeByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("_.:$-", c) >= 0
}

// ParseLTXKey parses a key written by LTXKey. It is strict: it accepts
// exactly the keys LTXKey produces for a valid scope, epoch >= 1,
// level <= 0xffff and 1 <= minTXID <= maxTXID, so
// ParseLTXKey(k) succeeding implies k == parsed.String(). Errors wrap
// ErrInvalidLTXKey.
func ParseLTXKey(key string) (LTXFileKey, error) {
	var k LTXFileKey
	fail := func(why string) (LTXFileKey, error) {
		return LTXFileKey{}, fmt.Errorf("%w %q: %s", ErrInvalidLTXKey, key, why)
	}
	rest, ok := strings.CutPrefix(key, "cells/")
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
	k.Scope = scope

	epoch, rest, ok := strings.Cut(rest, "/")
	if !ok {
		return fail("no level")
	}
	e, ok := parseDecimal(epoch)
	if !ok || e == 0 {
		return fail("epoch is not a decimal number >= 1 without leading zeros")
	}
	k.Epoch = e

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
	k.Level, k.MinTXID, k.MaxTXID = int(level), minTXID, maxTXID
	return k, nil
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
