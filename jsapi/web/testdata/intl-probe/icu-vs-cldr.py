#!/usr/bin/env python3
"""icu-vs-cldr.py: which cldr-json release workerd's ICU data is.
usage: icu-vs-cldr.py WORKERD_BINARY LOCALES NODE_MODULES... [-v]
  LOCALES: comma-separated (en,en-GB,es); each NODE_MODULES holds one
  release's cldr-dates-full (npm install cldr-dates-full@48.1.0 in a temp dir).
Compares each locale's Gregorian availableFormats (ICU's, resolved through
its parent chain) and date-time glue with every release's; prints the
mismatch count per release (-v: per locale, with the values)."""
import sys, os, json
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
icures = __import__('icu-res')
W = sys.argv[1]
b = open(W, 'rb').read(); items = icures.package(b)
cache = {}
def icu(loc):
    if loc not in cache:
        try: cache[loc] = icures.bundle(b, items, loc).top()
        except KeyError: cache[loc] = None
    return cache[loc]
def parent(loc):
    t = icu(loc)
    if t and '%%Parent' in t: return t['%%Parent']
    if loc == 'root': return None
    return loc.rsplit('_', 1)[0] if '_' in loc else 'root'
def icu_get(loc, path):
    l = loc
    while l:
        t = icu(l)
        v = t
        for k in path:
            if not isinstance(v, dict) or k not in v: v = None; break
            v = v[k]
        if v is not None: return v
        l = parent(l)
    return None
roots = {}
for r in sys.argv[3:]:
    if r != '-v':
        roots[json.load(open(r + '/cldr-dates-full/package.json'))['version']] = r
locs = sys.argv[2].split(',')
tot = {v: 0 for v in roots}
for loc in locs:
    iloc = loc.replace('-', '_')
    af = icu_get(iloc, ['calendar', 'gregorian', 'availableFormats']) or {}
    keys = set()
    l = iloc
    while l:
        t = icu(l)
        try: keys |= set(t['calendar']['gregorian']['availableFormats'].keys())
        except Exception: pass
        l = parent(l)
    glue = icu_get(iloc, ['calendar', 'gregorian', 'DateTimePatterns'])
    for v, r in roots.items():
        g = json.load(open(r + '/cldr-dates-full/main/%s/ca-gregorian.json' % loc))['main'][loc]['dates']['calendars']['gregorian']
        ja = g['dateTimeFormats']['availableFormats']
        bad = []
        for k in sorted(keys):
            iv = icu_get(iloc, ['calendar', 'gregorian', 'availableFormats', k])
            if isinstance(iv, dict):
                for c, s in iv.items():
                    if ja.get(k + '-count-' + c) != s: bad.append((k, c, s, ja.get(k + '-count-' + c)))
            elif ja.get(k) != iv: bad.append((k, iv, ja.get(k)))
        jg = [g['dateTimeFormats'][s] for s in ('full', 'long', 'medium', 'short')]
        if glue and glue[9:13] != jg: bad.append(('glue', glue[9:13], jg))
        tot[v] += len(bad)
        if '-v' in sys.argv: print(loc, v, len(bad), bad[:6])
print(tot)
