package node

// node:crypto's classic Diffie-Hellman (createDiffieHellman,
// getDiffieHellman) on math/big, with the RFC 3526 MODP groups workerd
// offers (modp14 to modp18, generator 2; the primes as OpenSSL ships them).

import (
	"crypto/rand"
	"math/big"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/cellhost/cellhost/third_party/goja_nodejs/buffer"
)

var modpGroups = map[string]string{
	"modp14": "" +
		"ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd" +
		"ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed" +
		"ee386bfb5a899fa5ae9f24117c4b1fe649286651ece45b3dc2007cb8a163bf0598da48361c55d39a69163fa8fd24cf5f" +
		"83655d23dca3ad961c62f356208552bb9ed529077096966d670c354e4abc9804f1746c08ca18217c32905e462e36ce3b" +
		"e39e772c180e86039b2783a2ec07a28fb5c55df06f4c52c9de2bcbf6955817183995497cea956ae515d2261898fa0510" +
		"15728e5a8aacaa68ffffffffffffffff",
	"modp15": "" +
		"ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd" +
		"ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed" +
		"ee386bfb5a899fa5ae9f24117c4b1fe649286651ece45b3dc2007cb8a163bf0598da48361c55d39a69163fa8fd24cf5f" +
		"83655d23dca3ad961c62f356208552bb9ed529077096966d670c354e4abc9804f1746c08ca18217c32905e462e36ce3b" +
		"e39e772c180e86039b2783a2ec07a28fb5c55df06f4c52c9de2bcbf6955817183995497cea956ae515d2261898fa0510" +
		"15728e5a8aaac42dad33170d04507a33a85521abdf1cba64ecfb850458dbef0a8aea71575d060c7db3970f85a6e1e4c7" +
		"abf5ae8cdb0933d71e8c94e04a25619dcee3d2261ad2ee6bf12ffa06d98a0864d87602733ec86a64521f2b18177b200c" +
		"bbe117577a615d6c770988c0bad946e208e24fa074e5ab3143db5bfce0fd108e4b82d120a93ad2caffffffffffffffff",
	"modp16": "" +
		"ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd" +
		"ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed" +
		"ee386bfb5a899fa5ae9f24117c4b1fe649286651ece45b3dc2007cb8a163bf0598da48361c55d39a69163fa8fd24cf5f" +
		"83655d23dca3ad961c62f356208552bb9ed529077096966d670c354e4abc9804f1746c08ca18217c32905e462e36ce3b" +
		"e39e772c180e86039b2783a2ec07a28fb5c55df06f4c52c9de2bcbf6955817183995497cea956ae515d2261898fa0510" +
		"15728e5a8aaac42dad33170d04507a33a85521abdf1cba64ecfb850458dbef0a8aea71575d060c7db3970f85a6e1e4c7" +
		"abf5ae8cdb0933d71e8c94e04a25619dcee3d2261ad2ee6bf12ffa06d98a0864d87602733ec86a64521f2b18177b200c" +
		"bbe117577a615d6c770988c0bad946e208e24fa074e5ab3143db5bfce0fd108e4b82d120a92108011a723c12a787e6d7" +
		"88719a10bdba5b2699c327186af4e23c1a946834b6150bda2583e9ca2ad44ce8dbbbc2db04de8ef92e8efc141fbecaa6" +
		"287c59474e6bc05d99b2964fa090c3a2233ba186515be7ed1f612970cee2d7afb81bdd762170481cd0069127d5b05aa9" +
		"93b4ea988d8fddc186ffb7dc90a6c08f4df435c934063199ffffffffffffffff",
	"modp17": "" +
		"ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd" +
		"ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed" +
		"ee386bfb5a899fa5ae9f24117c4b1fe649286651ece45b3dc2007cb8a163bf0598da48361c55d39a69163fa8fd24cf5f" +
		"83655d23dca3ad961c62f356208552bb9ed529077096966d670c354e4abc9804f1746c08ca18217c32905e462e36ce3b" +
		"e39e772c180e86039b2783a2ec07a28fb5c55df06f4c52c9de2bcbf6955817183995497cea956ae515d2261898fa0510" +
		"15728e5a8aaac42dad33170d04507a33a85521abdf1cba64ecfb850458dbef0a8aea71575d060c7db3970f85a6e1e4c7" +
		"abf5ae8cdb0933d71e8c94e04a25619dcee3d2261ad2ee6bf12ffa06d98a0864d87602733ec86a64521f2b18177b200c" +
		"bbe117577a615d6c770988c0bad946e208e24fa074e5ab3143db5bfce0fd108e4b82d120a92108011a723c12a787e6d7" +
		"88719a10bdba5b2699c327186af4e23c1a946834b6150bda2583e9ca2ad44ce8dbbbc2db04de8ef92e8efc141fbecaa6" +
		"287c59474e6bc05d99b2964fa090c3a2233ba186515be7ed1f612970cee2d7afb81bdd762170481cd0069127d5b05aa9" +
		"93b4ea988d8fddc186ffb7dc90a6c08f4df435c93402849236c3fab4d27c7026c1d4dcb2602646dec9751e763dba37bd" +
		"f8ff9406ad9e530ee5db382f413001aeb06a53ed9027d831179727b0865a8918da3edbebcf9b14ed44ce6cbaced4bb1b" +
		"db7f1447e6cc254b332051512bd7af426fb8f401378cd2bf5983ca01c64b92ecf032ea15d1721d03f482d7ce6e74fef6" +
		"d55e702f46980c82b5a84031900b1c9e59e7c97fbec7e8f323a97a7e36cc88be0f1d45b7ff585ac54bd407b22b4154aa" +
		"cc8f6d7ebf48e1d814cc5ed20f8037e0a79715eef29be32806a1d58bb7c5da76f550aa3d8a1fbff0eb19ccb1a313d55c" +
		"da56c9ec2ef29632387fe8d76e3c0468043e8f663f4860ee12bf2d5b0b7474d6e694f91e6dcc4024ffffffffffffffff",
	"modp18": "" +
		"ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd" +
		"ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed" +
		"ee386bfb5a899fa5ae9f24117c4b1fe649286651ece45b3dc2007cb8a163bf0598da48361c55d39a69163fa8fd24cf5f" +
		"83655d23dca3ad961c62f356208552bb9ed529077096966d670c354e4abc9804f1746c08ca18217c32905e462e36ce3b" +
		"e39e772c180e86039b2783a2ec07a28fb5c55df06f4c52c9de2bcbf6955817183995497cea956ae515d2261898fa0510" +
		"15728e5a8aaac42dad33170d04507a33a85521abdf1cba64ecfb850458dbef0a8aea71575d060c7db3970f85a6e1e4c7" +
		"abf5ae8cdb0933d71e8c94e04a25619dcee3d2261ad2ee6bf12ffa06d98a0864d87602733ec86a64521f2b18177b200c" +
		"bbe117577a615d6c770988c0bad946e208e24fa074e5ab3143db5bfce0fd108e4b82d120a92108011a723c12a787e6d7" +
		"88719a10bdba5b2699c327186af4e23c1a946834b6150bda2583e9ca2ad44ce8dbbbc2db04de8ef92e8efc141fbecaa6" +
		"287c59474e6bc05d99b2964fa090c3a2233ba186515be7ed1f612970cee2d7afb81bdd762170481cd0069127d5b05aa9" +
		"93b4ea988d8fddc186ffb7dc90a6c08f4df435c93402849236c3fab4d27c7026c1d4dcb2602646dec9751e763dba37bd" +
		"f8ff9406ad9e530ee5db382f413001aeb06a53ed9027d831179727b0865a8918da3edbebcf9b14ed44ce6cbaced4bb1b" +
		"db7f1447e6cc254b332051512bd7af426fb8f401378cd2bf5983ca01c64b92ecf032ea15d1721d03f482d7ce6e74fef6" +
		"d55e702f46980c82b5a84031900b1c9e59e7c97fbec7e8f323a97a7e36cc88be0f1d45b7ff585ac54bd407b22b4154aa" +
		"cc8f6d7ebf48e1d814cc5ed20f8037e0a79715eef29be32806a1d58bb7c5da76f550aa3d8a1fbff0eb19ccb1a313d55c" +
		"da56c9ec2ef29632387fe8d76e3c0468043e8f663f4860ee12bf2d5b0b7474d6e694f91e6dbe115974a3926f12fee5e4" +
		"38777cb6a932df8cd8bec4d073b931ba3bc832b68d9dd300741fa7bf8afc47ed2576f6936ba424663aab639c5ae4f568" +
		"3423b4742bf1c978238f16cbe39d652de3fdb8befc848ad922222e04a4037c0713eb57a81a23f0c73473fc646cea306b" +
		"4bcbc8862f8385ddfa9d4b7fa2c087e879683303ed5bdd3a062b3cf5b3a278a66d2a13f83f44f82ddf310ee074ab6a36" +
		"4597e899a0255dc164f31cc50846851df9ab48195ded7ea1b1d510bd7ee74d73faf36bc31ecfa268359046f4eb879f92" +
		"4009438b481c6cd7889a002ed5ee382bc9190da6fc026e479558e4475677e9aa9e3050e2765694dfc81f56e880b96e71" +
		"60c980dd98edd3dfffffffffffffffff",
}

type nodeDH struct {
	p, g, priv, pub *big.Int
}

// verifyError is BoringSSL's DH_check flags: 1 p not prime, 2 p not a
// safe prime, 4 generator unchecked, 8 generator not suitable.
func (d *nodeDH) verifyError() int {
	flags := 0
	if !d.p.ProbablyPrime(20) {
		flags |= 1
	} else if !new(big.Int).Rsh(d.p, 1).ProbablyPrime(20) {
		flags |= 2
	}
	mod := func(m int64) int64 { return new(big.Int).Mod(d.p, big.NewInt(m)).Int64() }
	switch {
	case d.g.Cmp(big.NewInt(2)) == 0:
		if mod(24) != 11 {
			flags |= 8
		}
	case d.g.Cmp(big.NewInt(5)) == 0:
		if r := mod(10); r != 3 && r != 7 {
			flags |= 8
		}
	default:
		flags |= 4
	}
	return flags
}

func dhNatives(rt *goja.Runtime, n *goja.Object) {
	dh := func(v goja.Value) *nodeDH { d, _ := v.Export().(*nodeDH); return d }
	bytesArg := func(v goja.Value) []byte { return data(rt, v, goja.Undefined()) }
	pad := func(x *big.Int, p *big.Int) []byte { return x.FillBytes(make([]byte, (p.BitLen()+7)/8)) }
	_ = n.Set("dhGroup", func(c goja.FunctionCall) goja.Value {
		h, ok := modpGroups[c.Argument(0).String()]
		if !ok {
			panic(plainError(rt, "Failed to init DiffieHellmanGroup: invalid group. Only groups {modp14, modp15, modp16, modp17, modp18} are supported."))
		}
		p, _ := new(big.Int).SetString(h, 16)
		return rt.ToValue(&nodeDH{p: p, g: big.NewInt(2)})
	})
	// dhNew(prime bytes | bits, generator bytes)
	const dhMaxModulusBits = 10000
	_ = n.Set("dhNew", func(c goja.FunctionCall) goja.Value {
		g := new(big.Int).SetBytes(bytesArg(c.Argument(1)))
		if g.Sign() == 0 || g.Cmp(big.NewInt(1)) == 0 {
			panic(nodeError(rt, "Error", "ERR_OSSL_DH_BAD_GENERATOR", "Invalid Diffie-Hellman generator"))
		}
		if bits, ok := c.Argument(0).Export().(int64); ok {
			if bits < 2 {
				panic(nodeError(rt, "Error", "ERR_OSSL_BN_BITS_TOO_SMALL", "Invalid Diffie-Hellman prime length"))
			}
			// workerd's bounds (src/workerd/api/crypto/dh.c++): the size
			// (OPENSSL_DH_MAX_MODULUS_BITS), and the CPU limit checked while
			// the search runs, which here is Go code no interrupt stops.
			if bits > dhMaxModulusBits {
				panic(plainRangeError(rt, "DiffieHellman init failed: requested prime size too large"))
			}
			for {
				select {
				case <-rt.InterruptDone():
					panic(plainError(rt, "DiffieHellman init failed: key generation exceeded CPU limit"))
				default:
				}
				q, err := rand.Prime(rand.Reader, int(bits)-1)
				if err != nil {
					panic(nodeError(rt, "Error", "ERR_CRYPTO_OPERATION_FAILED", err.Error()))
				}
				p := new(big.Int).Add(new(big.Int).Lsh(q, 1), big.NewInt(1))
				d := &nodeDH{p: p, g: g}
				if p.BitLen() == int(bits) && p.ProbablyPrime(20) && d.verifyError()&8 == 0 {
					return rt.ToValue(d)
				}
			}
		}
		pb := bytesArg(c.Argument(0))
		if len(pb) > dhMaxModulusBits/8 {
			panic(plainRangeError(rt, "DiffieHellman init failed: key is too large"))
		}
		p := new(big.Int).SetBytes(pb)
		if p.BitLen() < 2 {
			panic(nodeError(rt, "Error", "ERR_OSSL_BN_BITS_TOO_SMALL", "Invalid Diffie-Hellman prime length"))
		}
		return rt.ToValue(&nodeDH{p: p, g: g})
	})
	_ = n.Set("dhGenerate", func(c goja.FunctionCall) goja.Value {
		d := dh(c.Argument(0))
		if d.priv == nil {
			max := new(big.Int).Sub(d.p, big.NewInt(3))
			x, _ := rand.Int(rand.Reader, max)
			d.priv = x.Add(x, big.NewInt(2))
		}
		d.pub = new(big.Int).Exp(d.g, d.priv, d.p)
		return goja.Undefined()
	})
	_ = n.Set("dhGet", func(c goja.FunctionCall) goja.Value {
		d := dh(c.Argument(0))
		switch c.Argument(1).String() {
		case "prime":
			return buffer.WrapBytes(rt, d.p.Bytes())
		case "generator":
			return buffer.WrapBytes(rt, d.g.Bytes())
		case "public":
			if d.pub == nil {
				panic(plainError(rt, "No public key"))
			}
			return buffer.WrapBytes(rt, d.pub.Bytes())
		case "private":
			if d.priv == nil {
				panic(plainError(rt, "No private key"))
			}
			return buffer.WrapBytes(rt, d.priv.Bytes())
		}
		return rt.ToValue(d.verifyError())
	})
	_ = n.Set("dhSetPrivate", func(c goja.FunctionCall) goja.Value {
		d := dh(c.Argument(0))
		d.priv = new(big.Int).SetBytes(bytesArg(c.Argument(1)))
		d.pub = nil
		return goja.Undefined()
	})
	_ = n.Set("dhSecret", func(c goja.FunctionCall) goja.Value {
		d := dh(c.Argument(0))
		if d.priv == nil {
			panic(plainError(rt, "No private key"))
		}
		y := new(big.Int).SetBytes(bytesArg(c.Argument(1)))
		if y.Cmp(big.NewInt(1)) <= 0 {
			panic(rangeError(rt, "DiffieHellman computeSecret() failed: Supplied key is too small"))
		}
		if y.Cmp(new(big.Int).Sub(d.p, big.NewInt(1))) >= 0 {
			panic(rangeError(rt, "DiffieHellman computeSecret() failed: Supplied key is too large"))
		}
		return buffer.WrapBytes(rt, pad(new(big.Int).Exp(y, d.priv, d.p), d.p))
	})
}

// rangeError is new RangeError(msg) without a code.
func rangeError(rt *goja.Runtime, msg string) *goja.Object {
	c, _ := goja.AssertConstructor(rt.Get("RangeError"))
	e, err := c(nil, rt.ToValue(msg))
	if err != nil {
		panic(err)
	}
	return e
}
