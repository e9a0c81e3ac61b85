package goja

// cellhost patch: a cap on string length. Upstream goja has none, so
// `let s = "x"; for (;;) s += s` grew until the Go runtime died with
// "fatal error: out of memory", taking every runtime of the process with it.
// V8 (workerd) throws `RangeError: Invalid string length` past
// String::kMaxLength, which is 2^29-24 UTF-16 units on 64-bit hosts.

// MaxStringLength is the longest string, in UTF-16 units, a runtime builds.
const MaxStringLength = 1<<29 - 24

// maxStringLength is the limit in force: MaxStringLength, lowered by tests
// that would otherwise need gigabytes to reach it.
var maxStringLength = MaxStringLength

const errStringLength = rangeError("Invalid string length")

// checkStringLength panics with V8's RangeError when a string of n UTF-16
// units would exceed MaxStringLength. The panic becomes a catchable JS
// exception at the VM boundary (vm.exceptionFromValue).
func checkStringLength(n int) {
	if n > maxStringLength || n < 0 {
		panic(errStringLength)
	}
}

// checkStringLength2 checks a + b without overflow.
func checkStringLength2(a, b int) {
	if a > maxStringLength || b > maxStringLength-a {
		panic(errStringLength)
	}
}

// length is the builder's current length in UTF-16 units.
func (b *StringBuilder) length() int {
	if b.ascii() {
		return b.asciiBuilder.Len()
	}
	return len(b.unicodeBuilder.buf) - 1
}

func utf16Length(s string) int {
	n := 0
	for _, r := range s {
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	return n
}
