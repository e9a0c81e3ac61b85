package web

import (
	"strings"
	"time"
)

// DateTimeFormat.prototype.formatRange as ICU's DateIntervalFormat does
// it on CLDR's intervalFormats: the greatest calendar field that differs
// picks the interval pattern of the best matching interval skeleton; a
// date that differs beyond a pattern's fields falls back to
// intervalFormatFallback; a same-day range of a date-and-time format is
// the date once and a time interval. Parts carry startRange, endRange or
// shared as ICU's spans mark them.

// greatestDiff is the pattern letter of the greatest calendar field
// that differs between a and b ("" when none down to the second).
func greatestDiff(cal string, a, b time.Time) string {
	ca, cb := calendarDate(cal, a), calendarDate(cal, b)
	switch {
	case ca.era != cb.era:
		return "G"
	case ca.year != cb.year:
		return "y"
	case ca.monthKey != cb.monthKey:
		return "M"
	case ca.day != cb.day:
		return "d"
	case (a.Hour() < 12) != (b.Hour() < 12):
		return "a"
	case a.Hour() != b.Hour():
		return "h"
	case a.Minute() != b.Minute():
		return "m"
	case a.Second() != b.Second():
		return "s"
	case a.Nanosecond()/1e6 != b.Nanosecond()/1e6:
		return "S"
	}
	return ""
}

func isDateLetter(c byte) bool { return strings.IndexByte("GyYuUrQqMLlwWEcedDFg", c) >= 0 }

// splitInterval splits an interval pattern at its first repeated field.
func splitInterval(items []patItem) ([]patItem, []patItem) {
	seen := map[byte]bool{}
	for i, it := range items {
		if !it.field {
			continue
		}
		c := canonicalFieldChar(it.ch)
		if seen[c] {
			return items[:i], items[i:]
		}
		seen[c] = true
	}
	return items, nil
}

func canonicalFieldChar(c byte) byte {
	switch c {
	case 'L':
		return 'M'
	case 'H', 'k', 'K':
		return 'h'
	case 'c', 'e':
		return 'E'
	case 'b', 'B':
		return 'a'
	}
	return c
}

// markSpan gives a half's parts a source: from the first to the last
// field whose letter the other half also has; the rest is shared.
func markSpan(ps []part, items []patItem, other []patItem, src string) []rpart {
	in := map[byte]bool{}
	for _, it := range other {
		if it.field {
			in[canonicalFieldChar(it.ch)] = true
		}
	}
	// parts follow items one to one except that adjacent literals merge
	var kinds []bool // per part: a field in the span set
	j := 0
	for _, it := range items {
		if it.field {
			kinds = append(kinds, in[canonicalFieldChar(it.ch)])
			j++
		} else if len(kinds) == 0 || kinds[len(kinds)-1] || true {
			kinds = append(kinds, false)
		}
	}
	first, last := -1, -1
	for i, p := range ps {
		if p.typ == "literal" {
			continue
		}
		if i < len(kinds) && kinds[i] {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	out := make([]rpart, len(ps))
	for i, p := range ps {
		s := "shared"
		if first >= 0 && i >= first && i <= last {
			s = src
		}
		out[i] = rpart{p.typ, p.val, s}
	}
	return out
}

// formatRange formats [a, b] (epoch ms) with a DateTimeFormat's pattern.
func (l *dtfLocale) formatRange(pattern string, a, b int64, z *zoneInfo) []rpart {
	items := cachedItems(pattern)
	pa := l.formatPattern(items, a, z)
	pb := l.formatPattern(items, b, z)
	if joinParts(pa) == joinParts(pb) {
		return tagAll(pa, "shared")
	}
	ta, tb := time.UnixMilli(a).In(z.loc), time.UnixMilli(b).In(z.loc)
	diff := greatestDiff(l.calName, ta, tb)
	var dateItems, timeItems []patItem
	hasDate, hasTime := false, false
	var sk, dsk, tsk strings.Builder
	for _, it := range items {
		if !it.field {
			continue
		}
		s := strings.Repeat(string(it.ch), it.n)
		sk.WriteString(s)
		if isDateLetter(it.ch) {
			hasDate = true
			dsk.WriteString(s)
		} else if it.ch != 'a' && it.ch != 'b' && it.ch != 'B' {
			hasTime = true
			tsk.WriteString(s)
		}
	}
	_, _ = dateItems, timeItems
	fallback := func() []rpart {
		fb := l.greg("dateTimeFormats", "intervalFormats", "intervalFormatFallback")
		if fb == "" {
			fb = "{0} – {1}"
		}
		return fillRange(fb, tagAll(pa, "startRange"), tagAll(pb, "endRange"))
	}
	dateDiff := diff == "G" || diff == "y" || diff == "M" || diff == "d"
	g := l.gen(l.hourChar)
	if !hasDate && dateDiff {
		// a time format over different days shows the dates (yMd) too
		full := g.bestPattern("yMd" + tsk.String())
		items := cachedItems(full)
		pa, pb = l.formatPattern(items, a, z), l.formatPattern(items, b, z)
		return fallback()
	}
	if hasDate && (diff == "y" || diff == "G") && !strings.ContainsAny(dsk.String(), "yYu") {
		// years that differ are shown even when the format has none
		return l.formatRange(g.bestPattern("y"+sk.String()), a, b, z)
	}
	if hasDate && hasTime {
		if dateDiff {
			return fallback()
		}
		// same day: the date once, then the time interval
		datePat := g.bestPattern(dsk.String())
		timeRange := l.intervalParts(tsk.String(), diff, a, b, z)
		if timeRange == nil {
			return fallback()
		}
		glue := patternValue(l.calAt("dateTimeFormats", "medium"))
		dp := tagAll(l.formatPattern(cachedItems(datePat), a, z), "shared")
		return fillRange(strings.NewReplacer("{1}", "{0}", "{0}", "{1}").Replace(glue), dp, timeRange)
	}
	if r := l.intervalParts(sk.String(), diff, a, b, z); r != nil {
		return r
	}
	return fallback()
}

// intervalParts formats a range with the best interval pattern for the
// skeleton and differing field, or nil when the locale has none.
func (l *dtfLocale) intervalParts(skel, diff string, a, b int64, z *zoneInfo) []rpart {
	ifs := l.calMap("dateTimeFormats", "intervalFormats")
	req := newSkeleton(skel)
	hour12 := req.orig[fHour] != "" && (req.orig[fHour][0] == 'h' || req.orig[fHour][0] == 'K')
	key := diff
	switch diff {
	case "a":
		if !hour12 {
			key = "H"
		}
	case "h":
		if !hour12 {
			key = "H"
		}
	case "s", "S":
		return nil
	}
	var best *skeleton
	bestKey := ""
	bestD := 0x7fffffff
	for k := range ifs {
		if k == "intervalFormatFallback" {
			continue
		}
		s := newSkeleton(k)
		d, missing, extra := req.distance(s, -1)
		if missing != 0 || extra != 0 {
			continue
		}
		if d < bestD || d == bestD && k < bestKey {
			best, bestKey, bestD = s, k, d
		}
	}
	if best == nil {
		return nil
	}
	m, _ := ifs[bestKey].(map[string]any)
	p, _ := m[key].(string)
	if p == "" && key == "a" {
		p, _ = m["h"].(string)
	}
	if p == "" && key == "H" && diff == "a" {
		p, _ = m["H"].(string)
	}
	if p == "" {
		// a difference in a field the skeleton lacks shows in a greater one
		for _, k := range []string{"d", "M", "y"} {
			if strings.Contains("GyMd", k) && strings.Index("GyMd", k) < strings.Index("GyMd"+diff, diff) {
				continue
			}
			_ = k
		}
		return nil
	}
	g := l.gen(l.hourChar)
	p = g.adjust(p, best, req, 0)
	items := parsePattern(p)
	first, second := splitInterval(items)
	if second == nil {
		return nil
	}
	pa := l.formatPattern(first, a, z)
	pb := l.formatPattern(second, b, z)
	return append(markSpan(pa, first, second, "startRange"), markSpan(pb, second, first, "endRange")...)
}

func tagAll(ps []part, src string) []rpart {
	out := make([]rpart, len(ps))
	for i, p := range ps {
		out[i] = rpart{p.typ, p.val, src}
	}
	return out
}

func joinParts(ps []part) string {
	var sb strings.Builder
	for _, p := range ps {
		sb.WriteString(p.val)
	}
	return sb.String()
}

// fillRange places a at {0} and b at {1} of a pattern.
func fillRange(p string, a, b []rpart) []rpart {
	var out []rpart
	for len(p) > 0 {
		i0, i1 := strings.Index(p, "{0}"), strings.Index(p, "{1}")
		next, which := -1, 0
		if i0 >= 0 && (i1 < 0 || i0 < i1) {
			next, which = i0, 0
		} else if i1 >= 0 {
			next, which = i1, 1
		}
		if next < 0 {
			out = append(out, rpart{"literal", spaceFix.Replace(p), "shared"})
			break
		}
		if next > 0 {
			out = append(out, rpart{"literal", spaceFix.Replace(p[:next]), "shared"})
		}
		if which == 0 {
			out = append(out, a...)
		} else {
			out = append(out, b...)
		}
		p = p[next+3:]
	}
	return out
}
