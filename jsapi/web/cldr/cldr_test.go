package cldr

import "testing"

func TestLocaleResolution(t *testing.T) {
	for tag, want := range map[string]string{"en-US": "en", "de-AT": "de-AT", "zh-TW": "zh-Hant", "zh-CN": "zh-Hans", "de-XX": "de", "pt-BR": "pt", "pt-PT": "pt-PT", "sr-Latn": "sr-Latn", "xx": "und", "en-GB": "en-GB"} {
		if got := DataLocale(tag); got != want {
			t.Errorf("DataLocale(%q) = %q, want %q", tag, got, want)
		}
	}
	for tag, want := range map[string]string{"en-US": "en-US", "de-XX": "de", "zh-TW": "zh-TW", "en-US-u-ca-gregory": "en-US", "de-CH-1996": "de-CH", "xx-YY": "", "pt-BR": "pt-BR"} {
		if got := Lookup(tag); got != want {
			t.Errorf("Lookup(%q) = %q, want %q", tag, got, want)
		}
	}
	if m, _ := Maximize(Tag{Lang: "en"}); m.String() != "en-Latn-US" {
		t.Errorf("Maximize(en) = %v", m)
	}
	if m := Minimize(Tag{Lang: "zh", Script: "Hant", Region: "TW"}); m.String() != "zh-TW" {
		t.Errorf("Minimize(zh-Hant-TW) = %v", m)
	}
}

func TestLocaleData(t *testing.T) {
	en := Locale("en-GB")
	if got := en.Str("gregorian", "months", "format", "abbreviated", "9"); got != "Sept" {
		t.Errorf("en-GB September = %q", got)
	}
	if got := Locale("en").Str("gregorian", "months", "format", "wide", "1"); got != "January" {
		t.Errorf("en January = %q", got)
	}
	if got := Locale("de").Str("fields", "month", "relativeTime-type-past", "relativeTimePattern-count-one"); got != "vor {0} Monat" {
		t.Errorf("de month past = %q", got)
	}
}
