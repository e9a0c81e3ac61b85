package goja

import "math/big"

// cellhost patch 41: BigInt results are bounded as V8 bounds them, checked
// before the work, and large multiplications stop at an Interrupt.
//
// V8 refuses a BigInt of more than 2^30 bits with `RangeError: Maximum
// BigInt size exceeded` (node: `1n << (2n ** 31n)`, `2n ** (2n ** 31n)`,
// `BigInt.asUintN(2 ** 31, -1n)`, `(1n << (2n ** 30n - 2n)) * 4n`).
// Upstream had no bound: `1n << 2n ** 40n` and `BigInt.asUintN(2 ** 40,
// 5n)` (which V8 answers 5n without allocating) asked Go for 128 GiB, a
// fatal out of memory; a shift count past 2^64 wrapped (`1n << 2n ** 64n`
// was 1n); and a product of two 2^24-bit numbers took 27 s in one call of
// math/big that no Interrupt stopped (measured on this machine, loaded).
// Here the result's size is predicted first: past 2^30 bits the RangeError,
// past 1 MiB the allocation hook approves it (AllocArrayBuffer; a refusal
// is the same RangeError). A product whose operands both exceed
// bigTileWords words is computed tile by tile (bigTileWords-word pieces of
// each, math/big's Karatsuba within a tile), with the interrupt flag looked
// at between tiles: each tile takes milliseconds. Division, remainder and
// toString of huge BigInts are still single math/big calls.

// bigMaxBits is V8's BigInt::kMaxLengthBits.
const bigMaxBits = 1 << 30

// bigTileWords: operands longer than this (in 64-bit words, 2^18 bits) on
// both sides are multiplied in tiles.
const bigTileWords = 1 << 12

func (r *Runtime) bigTooLarge() Value {
	return r.newError(r.getRangeError(), "Maximum BigInt size exceeded")
}

// checkBigBits throws V8's RangeError for a result of more than bigMaxBits
// bits and asks the hook for one past 1 MiB.
func (r *Runtime) checkBigBits(bits int64) {
	if bits > bigMaxBits {
		panic(r.bigTooLarge())
	}
	if bytes := bits / 8; bytes > 1<<20 && !r.AllowAllocation(bytes, AllocArrayBuffer) {
		panic(r.bigTooLarge())
	}
}

// bigAdd and bigSub: the result has at most one bit more than the longer
// operand.
func (r *Runtime) bigAdd(x, y *big.Int, sub bool) *big.Int {
	r.checkBigBits(int64(max(x.BitLen(), y.BitLen())) + 1)
	if sub {
		return new(big.Int).Sub(x, y)
	}
	return new(big.Int).Add(x, y)
}

// bigMul is x*y, its size checked first, in tiles when both are large.
func (r *Runtime) bigMul(x, y *big.Int) *big.Int {
	if x.Sign() == 0 || y.Sign() == 0 {
		return new(big.Int)
	}
	r.checkBigBits(int64(x.BitLen()) + int64(y.BitLen()))
	xw, yw := x.Bits(), y.Bits()
	if len(xw) <= bigTileWords || len(yw) <= bigTileWords {
		return new(big.Int).Mul(x, y)
	}
	acc := make([]big.Word, len(xw)+len(yw)+1)
	var a, b, p big.Int
	for i := 0; i < len(xw); i += bigTileWords {
		a.SetBits(xw[i:min(i+bigTileWords, len(xw))])
		for j := 0; j < len(yw); j += bigTileWords {
			r.interruptNow()
			b.SetBits(yw[j:min(j+bigTileWords, len(yw))])
			p.Mul(&a, &b)
			addWordsAt(acc, p.Bits(), i+j)
		}
	}
	z := new(big.Int).SetBits(acc)
	if x.Sign() != y.Sign() {
		z.Neg(z)
	}
	return z
}

// addWordsAt adds p into acc from word off on (acc is long enough for the
// carry to stop within it).
func addWordsAt(acc, p []big.Word, off int) {
	var carry big.Word
	for k, w := range p {
		s := acc[off+k] + w
		c1 := big.Word(0)
		if s < w {
			c1 = 1
		}
		s2 := s + carry
		if s2 < s {
			c1++
		}
		acc[off+k], carry = s2, c1
	}
	for k := off + len(p); carry != 0; k++ {
		acc[k]++
		carry = 0
		if acc[k] == 0 {
			carry = 1
		}
	}
}

// bigExp is x**y (y >= 0), by squaring with bigMul, refused first when
// even a lower bound of the result's size is past the limit.
func (r *Runtime) bigExp(x, y *big.Int) *big.Int {
	if y.Sign() == 0 {
		return big.NewInt(1)
	}
	if x.Sign() == 0 || x.CmpAbs(big.NewInt(1)) == 0 {
		return new(big.Int).Exp(x, y, nil)
	}
	// |x| >= 2: the result has at least (bitlen(x)-1)*y + 1 bits.
	if y.BitLen() > 31 || int64(x.BitLen()-1)*y.Int64()+1 > bigMaxBits {
		panic(r.bigTooLarge())
	}
	n := y.Uint64()
	if x.BitLen() <= 64 && int64(x.BitLen())*int64(n) <= 1<<20 {
		return new(big.Int).Exp(x, y, nil) // small: math/big's own
	}
	result, base := big.NewInt(1), new(big.Int).Set(x)
	for {
		if n&1 == 1 {
			result = r.bigMul(result, base)
		}
		n >>= 1
		if n == 0 {
			return result
		}
		base = r.bigMul(base, base)
	}
}

// bigShift is x << y (left) or x >> y, a negative y shifting the other way.
func (r *Runtime) bigShift(x, y *big.Int, left bool) *big.Int {
	if y.Sign() < 0 {
		left = !left
	}
	amount := new(big.Int).Abs(y)
	if !left {
		if amount.BitLen() > 32 { // past any BigInt's length
			if x.Sign() < 0 {
				return big.NewInt(-1)
			}
			return new(big.Int)
		}
		return new(big.Int).Rsh(x, uint(amount.Uint64()))
	}
	if x.Sign() == 0 {
		return new(big.Int)
	}
	if amount.BitLen() > 32 {
		panic(r.bigTooLarge())
	}
	n := amount.Uint64()
	r.checkBigBits(int64(x.BitLen()) + int64(n))
	return new(big.Int).Lsh(x, uint(n))
}
