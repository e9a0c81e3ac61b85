package web

import (
	"bytes"
	"crypto/pbkdf2"
	"testing"
	"time"
)

// TestSubtle_pbkdf2StopsAtInterrupt: past pbkdf2Unchecked iterations the
// key is derived by our loop, equal to crypto/pbkdf2's, and a closed stop
// channel (the runtime interrupted: cpu_ms, the memory watchdog) ends it
// within 4096 iterations instead of after 2^31 (minutes, on the old code
// one call of crypto/pbkdf2 that nothing stopped).
func TestSubtle_pbkdf2StopsAtInterrupt(t *testing.T) {
	for _, h := range []string{"SHA-1", "SHA-256", "SHA-512"} {
		f, _ := hashFunc(h)
		for _, n := range []int{16, 32, 100} {
			want, err := pbkdf2.Key(f, "pw", []byte("salt"), pbkdf2Unchecked+3, n)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pbkdf2Key(h, []byte("pw"), []byte("salt"), pbkdf2Unchecked+3, n, nil)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s, %d bytes: %x, %v; crypto/pbkdf2 gives %x", h, n, got, err, want)
			}
		}
	}
	stop := make(chan struct{})
	close(stop)
	start := time.Now()
	_, err := pbkdf2Key("SHA-256", []byte("pw"), []byte("salt"), 1<<31, 32, stop)
	if err == nil {
		t.Fatal("2^31 iterations with the runtime interrupted: no error")
	}
	t.Logf("stopped after %v: %v", time.Since(start), err)
}

// BenchmarkPBKDF2Unchecked is the longest PBKDF2 left to crypto/pbkdf2 in
// one call (the figure behind pbkdf2Unchecked).
func BenchmarkPBKDF2Unchecked(b *testing.B) {
	f, _ := hashFunc("SHA-256")
	for b.Loop() {
		_, _ = pbkdf2.Key(f, "pw", []byte("salt"), pbkdf2Unchecked, 32)
	}
}
