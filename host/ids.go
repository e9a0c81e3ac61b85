package host

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
)

// Errors of ParseID, with workerd's exact texts.
var (
	ErrIDFormat    = errors.New("Invalid Durable Object ID: must be 64 hex digits")
	ErrIDNamespace = errors.New("Durable Object ID is not valid for this namespace.")
)

// idKey is the per-namespace key of bucket-protocol.md section 3:
// SHA-256("cells:v1:" + len(script) + ":" + script + ":" + class).
func idKey(script, class string) []byte {
	k := sha256.Sum256([]byte("cells:v1:" + strconv.Itoa(len(script)) + ":" + script + ":" + class))
	return k[:]
}

func hmac16(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)[:16]
}

// IDFromName is celld's idFromName: 64 lowercase hex digits, the first half
// an HMAC of the name, the second half an HMAC of the first.
func IDFromName(script, class, name string) string {
	k := idKey(script, class)
	first := hmac16(k, []byte(name))
	return hex.EncodeToString(append(first, hmac16(k, first)...))
}

// NewUniqueID returns a random id valid for the namespace.
func NewUniqueID(script, class string) string {
	first := make([]byte, 16)
	if _, err := rand.Read(first); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return hex.EncodeToString(append(first, hmac16(idKey(script, class), first)...))
}

// ParseID validates an id string for the namespace (case-insensitive) and
// returns it in lowercase.
func ParseID(script, class, s string) (string, error) {
	if len(s) != 64 {
		return "", ErrIDFormat
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return "", ErrIDFormat
	}
	if !hmac.Equal(b[16:], hmac16(idKey(script, class), b[:16])) {
		return "", ErrIDNamespace
	}
	return hex.EncodeToString(b), nil
}

// isHexID reports whether s looks like an id string (64 hex digits), which
// the HTTP front takes as an id rather than a name.
func isHexID(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
