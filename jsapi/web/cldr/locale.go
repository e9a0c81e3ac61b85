package cldr

import "strings"

// Tag is a language tag's language, script and region subtags.
type Tag struct{ Lang, Script, Region string }

func (t Tag) String() string {
	s := t.Lang
	if t.Script != "" {
		s += "-" + t.Script
	}
	if t.Region != "" {
		s += "-" + t.Region
	}
	return s
}

// ParseTag reads the language, script and region of a canonical BCP 47
// tag (variants and extensions are ignored).
func ParseTag(tag string) Tag {
	var t Tag
	for i, p := range strings.Split(tag, "-") {
		switch {
		case i == 0:
			t.Lang = p
		case len(p) == 1:
			return t
		case len(p) == 4 && t.Script == "" && t.Region == "" && p[0] > '9':
			t.Script = p
		case (len(p) == 2 || len(p) == 3 && p[0] <= '9') && t.Region == "":
			t.Region = p
		}
	}
	return t
}

// Maximize adds likely subtags (CLDR's likelySubtags, UTS #35's Add
// Likely Subtags); ok is false when nothing matches.
func Maximize(t Tag) (Tag, bool) {
	ls := Supplemental().Map("likelySubtags")
	lang := t.Lang
	if lang == "" || lang == "root" {
		lang = "und"
	}
	var keys []string
	if t.Script != "" && t.Region != "" {
		keys = append(keys, lang+"-"+t.Script+"-"+t.Region)
	}
	if t.Region != "" {
		keys = append(keys, lang+"-"+t.Region)
	}
	if t.Script != "" {
		keys = append(keys, lang+"-"+t.Script)
	}
	keys = append(keys, lang)
	if lang != "und" {
		if t.Script != "" {
			keys = append(keys, "und-"+t.Script)
		}
		if t.Region != "" {
			keys = append(keys, "und-"+t.Region)
		}
	}
	for _, k := range keys {
		v, ok := ls[k].(string)
		if !ok {
			continue
		}
		m := ParseTag(v)
		out := t
		if out.Lang == "" || out.Lang == "und" {
			out.Lang = m.Lang
		}
		if out.Script == "" {
			out.Script = m.Script
		}
		if out.Region == "" {
			out.Region = m.Region
		}
		return out, true
	}
	return t, false
}

// Minimize removes likely subtags (UTS #35's Remove Likely Subtags,
// favouring the region as ICU does).
func Minimize(t Tag) Tag {
	max, ok := Maximize(t)
	if !ok {
		return t
	}
	for _, c := range []Tag{{Lang: max.Lang}, {Lang: max.Lang, Region: max.Region}, {Lang: max.Lang, Script: max.Script}} {
		if m, _ := Maximize(c); m == max {
			return c
		}
	}
	return max
}

// DataLocale is the CLDR locale whose data serves tag: the tag itself when
// CLDR has it, else the closest by likely script and truncation ("en-US"
// → "en", "zh-TW" → "zh-Hant", "de-XX" → "de"); "und" when none.
func DataLocale(tag string) string {
	t := ParseTag(tag)
	if Available(t.String()) {
		return t.String()
	}
	max, _ := Maximize(t)
	def, _ := Maximize(Tag{Lang: max.Lang})
	cands := []string{max.String(), Tag{Lang: max.Lang, Script: max.Script}.String()}
	if max.Script == def.Script {
		cands = append(cands, Tag{Lang: max.Lang, Region: max.Region}.String(), max.Lang)
	}
	for _, c := range cands {
		if Available(c) {
			return c
		}
	}
	for s := t.String(); s != ""; {
		if Available(s) {
			return s
		}
		i := strings.LastIndexByte(s, '-')
		if i < 0 {
			break
		}
		s = s[:i]
	}
	return "und"
}

var defaultContent map[string]bool

// Supported reports whether ICU would list tag (language, script and
// region only) among its available locales: a CLDR locale, a default
// content locale ("en-US") or a language-region whose likely script leads
// to one ("zh-TW" for zh-Hant-TW).
func Supported(tag string) bool {
	if Available(tag) {
		return true
	}
	mu.Lock()
	if defaultContent == nil {
		defaultContent = map[string]bool{}
		for _, l := range Supplemental().List("defaultContent") {
			defaultContent[l.(string)] = true
		}
	}
	dc := defaultContent[tag]
	mu.Unlock()
	if dc {
		return true
	}
	t := ParseTag(tag)
	if t.Script == "" && t.Region != "" {
		// a language-region that ICU aliases to its likely script ("zh-TW"
		// to zh-Hant-TW, "zh-CN" to zh-Hans-CN)
		if max, ok := Maximize(t); ok && max.Lang == t.Lang && max.Region == t.Region {
			full := max.String()
			mu.Lock()
			dc := defaultContent[full]
			mu.Unlock()
			return Available(full) || dc
		}
	}
	return false
}

// Lookup is ECMA-402's LookupMatcher over Supported: the longest prefix
// of tag (without extensions) that is supported, or "".
func Lookup(tag string) string {
	base := tag
	if i := strings.Index(base, "-u-"); i >= 0 {
		base = base[:i]
	}
	if i := strings.Index(base, "-x-"); i >= 0 || strings.HasPrefix(base, "x-") {
		if i < 0 {
			return ""
		}
		base = base[:i]
	}
	for base != "" {
		if Supported(base) {
			return base
		}
		i := strings.LastIndexByte(base, '-')
		if i < 0 {
			return ""
		}
		base = base[:i]
		if j := strings.LastIndexByte(base, '-'); j >= 0 && j == len(base)-2 {
			base = base[:j]
		}
	}
	return ""
}
