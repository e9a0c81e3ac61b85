#!/usr/bin/env python3
"""icu-res.py: prints a resource of the ICU data built into a binary (workerd).
usage: icu-res.py BINARY ITEM [PATH/IN/BUNDLE]   e.g. icu-res.py workerd zh_Hant calendar/gregorian/DateTimePatterns
ITEM is the name in ICU's common data (icudt78l/<ITEM>.res). Reads the ICU
"CmnD" package and ResB bundles (formats from ICU's uresdata.h)."""
import sys, struct, json

def u16s(b, off, n):
    return b[off:off+2*n].decode('utf-16-le', 'surrogatepass')

class Bundle:
    def __init__(self, b, off, pool=None):
        self.b = b
        hs = struct.unpack_from('<H', b, off)[0]
        self.fmt = b[off+16]
        self.root = off + hs
        r = self.root
        idx0 = struct.unpack_from('<i', b, r+4)[0]
        self.ilen = idx0 & 0xff
        self.idx = struct.unpack_from('<%di' % self.ilen, b, r+4)
        self.keysTop = self.idx[1]
        att = self.idx[5] if self.ilen > 5 else 0
        self.uses_pool = bool(att & 4)
        self.p16 = r + self.keysTop*4
        self.poolLimit = (idx0 >> 8) & 0xffffff | ((att & 0xf000) << 12)
        self.pool16Limit = (att >> 16) & 0xffff
        self.localKeyLimit = self.keysTop*4 if self.uses_pool else 1 << 30
        self.pool = pool
        if pool is not None:
            self.poolKeys = pool.root + 4*(1+pool.ilen)
            self.poolKeysLen = pool.keysTop*4 - 4*(1+pool.ilen)
    def key16(self, k):
        if not self.uses_pool:
            return self.cstr(self.root + k)
        # a bundle using a pool: below the pool's key area size the offset
        # is the pool's (relative to its key area), at or above it local
        if self.keysTop*4 > 4*(1+self.ilen) and 4*(1+self.ilen) <= k - self.poolKeysLen < self.keysTop*4:
            return self.cstr(self.root + k - self.poolKeysLen)
        return self.cstr(self.poolKeys + k)
    def key32(self, k):
        if k >= 0:
            return self.cstr(self.root + k)
        return self.cstr(self.poolKeys + (k & 0x7fffffff))
    def cstr(self, o):
        e = self.b.index(b'\0', o)
        return self.b[o:e].decode()
    def str16(self, o):
        if o < self.poolLimit and self.pool is not None:
            p = self.pool.p16 + 2*o
        else:
            p = self.p16 + 2*(o - self.poolLimit)
        u = struct.unpack_from('<H', self.b, p)[0]
        if not (0xdc00 <= u <= 0xdfff):
            e = p
            while struct.unpack_from('<H', self.b, e)[0] != 0:
                e += 2
            return self.b[p:e].decode('utf-16-le', 'surrogatepass')
        if u < 0xdfef:
            return u16s(self.b, p+2, u & 0x3ff)
        u1 = struct.unpack_from('<H', self.b, p+2)[0]
        if u < 0xdfff:
            return u16s(self.b, p+4, ((u-0xdfef) << 16) | u1)
        u2 = struct.unpack_from('<H', self.b, p+4)[0]
        return u16s(self.b, p+6, (u1 << 16) | u2)
    def res16(self, r):
        if r >= self.pool16Limit:
            r = r - self.pool16Limit + self.poolLimit
        return (6 << 28) | r
    def get(self, res):
        t, o = res >> 28, res & 0x0fffffff
        b, r = self.b, self.root
        if t == 6:
            return self.str16(o)
        if t in (0, 3):
            if o == 0: return ''
            n = struct.unpack_from('<i', b, r+4*o)[0]
            s = u16s(b, r+4*o+4, n)
            return s if t == 0 else {'alias': s}
        if t == 7:
            return o - (1 << 28) if o & (1 << 27) else o
        if t == 14:
            n = struct.unpack_from('<i', b, r+4*o)[0]
            return list(struct.unpack_from('<%di' % n, b, r+4*o+4))
        if t == 1:
            n = struct.unpack_from('<i', b, r+4*o)[0]
            return {'binary': b[r+4*o+4:r+4*o+4+n].hex()}
        if t == 2:
            if o == 0: return {}
            p = r+4*o
            n = struct.unpack_from('<H', b, p)[0]
            keys = struct.unpack_from('<%dH' % n, b, p+2)
            vo = p+2+2*n
            vo += (vo - p) % 4 and 2
            vals = struct.unpack_from('<%dI' % n, b, vo)
            return {self.key16(k): self.get(v) for k, v in zip(keys, vals)}
        if t == 5:
            p = self.p16 + 2*o
            n = struct.unpack_from('<H', b, p)[0]
            keys = struct.unpack_from('<%dH' % n, b, p+2)
            vals = struct.unpack_from('<%dH' % n, b, p+2+2*n)
            return {self.key16(k): self.get(self.res16(v)) for k, v in zip(keys, vals)}
        if t == 4:
            p = r+4*o
            n = struct.unpack_from('<i', b, p)[0]
            keys = struct.unpack_from('<%di' % n, b, p+4)
            vals = struct.unpack_from('<%dI' % n, b, p+4+4*n)
            return {self.key32(k): self.get(v) for k, v in zip(keys, vals)}
        if t == 8:
            if o == 0: return []
            p = r+4*o
            n = struct.unpack_from('<i', b, p)[0]
            return [self.get(v) for v in struct.unpack_from('<%dI' % n, b, p+4)]
        if t == 9:
            p = self.p16 + 2*o
            n = struct.unpack_from('<H', b, p)[0]
            return [self.get(self.res16(v)) for v in struct.unpack_from('<%dH' % n, b, p+2)]
        return {'type': t}
    def top(self):
        return self.get(struct.unpack_from('<I', self.b, self.root)[0])

def package(b):
    base = b.index(b"\xda\x27\x14\x00\x00\x00\x00\x00\x02\x00CmnD") - 2
    toc = base + struct.unpack_from('<H', b, base)[0]
    n = struct.unpack_from('<I', b, toc)[0]
    items = {}
    for i in range(n):
        no, do = struct.unpack_from('<II', b, toc+4+8*i)
        e = b.index(b'\0', toc+no)
        items[b[toc+no:e].decode()] = toc+do
    return items

def bundle(b, items, name):
    pre = next(k.split('/')[0] for k in items)
    d = name.rsplit('/', 1)[0] + '/' if '/' in name else ''
    pool = None
    pk = pre + '/' + d + 'pool.res'
    if pk in items:
        pool = Bundle(b, items[pk])
    return Bundle(b, items[pre + '/' + name + '.res'], pool)

if __name__ == '__main__':
    b = open(sys.argv[1], 'rb').read()
    items = package(b)
    v = bundle(b, items, sys.argv[2]).top()
    for k in (sys.argv[3].split('/') if len(sys.argv) > 3 and sys.argv[3] else []):
        v = v[int(k)] if isinstance(v, list) else v[k]
    print(json.dumps(v, ensure_ascii=False, indent=1))
