package testjs

import (
	"fmt"
)

// maxDiffsPerStep is how many differences compare.mjs reports per step.
const maxDiffsPerStep = 5

// Compare lists the differences between two transcripts with compare.mjs's
// rules: steps are compared by position and every recorded field must be
// equal; a "body" or a ws message that parses as JSON on both sides is
// compared as a value (key order and number spelling do not matter),
// anything else must match exactly. Each line names the step and the field:
//
//	step 3 (GET /inc): status: expected 200, got 500
//	step 4 (ws /ws): messages[0] (json).count: expected 2, got 3
//
// At most five differences are listed per step. A nil transcript has no
// steps. The result is empty when the transcripts are equal.
func Compare(expected, actual *Transcript) []string {
	exp, errE := transcriptValues(expected)
	act, errA := transcriptValues(actual)
	var out []string
	if errE != nil {
		out = append(out, "expected transcript: "+errE.Error())
	}
	if errA != nil {
		out = append(out, "actual transcript: "+errA.Error())
	}
	if out != nil {
		return out
	}
	n := max(len(exp), len(act))
	for i := 0; i < n; i++ {
		var e, a any = undefinedT{}, undefinedT{}
		if i < len(exp) {
			e = exp[i]
		}
		if i < len(act) {
			a = act[i]
		}
		var diffs []string
		switch {
		case i >= len(exp):
			diffs = append(diffs, "step missing from expected transcript")
		case i >= len(act):
			diffs = append(diffs, "step missing from actual transcript")
		default:
			diff(e, a, "", &diffs, false)
		}
		label := e
		if e == nil || e == (undefinedT{}) {
			label = a // e ?? a
		}
		for _, d := range diffs {
			out = append(out, fmt.Sprintf("step %d (%s): %s", i, describe(label), d))
		}
	}
	return out
}

func transcriptValues(t *Transcript) ([]any, error) {
	if t == nil {
		return nil, nil
	}
	vals := make([]any, len(t.Steps))
	for i, s := range t.Steps {
		v, err := jsParse(string(s))
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		vals[i] = v
	}
	return vals, nil
}

// diff is compare.mjs's diff: it appends "where: expected X, got Y" lines.
func diff(exp, act any, where string, diffs *[]string, jsonish bool) {
	if len(*diffs) >= maxDiffsPerStep {
		return
	}
	if jsonish {
		es, ok1 := exp.(string)
		as, ok2 := act.(string)
		if ok1 && ok2 && es != as {
			if ev, ok := tryJSON(es); ok {
				if av, ok := tryJSON(as); ok {
					diff(ev, av, where+" (json)", diffs, false)
					return
				}
			}
		}
	}
	if sameValue(exp, act) {
		return
	}
	ea, ok1 := exp.([]any)
	aa, ok2 := act.([]any)
	if ok1 && ok2 {
		n := max(len(ea), len(aa))
		if len(ea) != len(aa) {
			*diffs = append(*diffs, fmt.Sprintf("%s: expected %d items, got %d", where, len(ea), len(aa)))
		}
		for i := 0; i < n && len(*diffs) < maxDiffsPerStep; i++ {
			var e, a any = undefinedT{}, undefinedT{}
			if i < len(ea) {
				e = ea[i]
			}
			if i < len(aa) {
				a = aa[i]
			}
			diff(e, a, fmt.Sprintf("%s[%d]", where, i), diffs, jsonish)
		}
		return
	}
	eo, ok1 := exp.(*jsObject)
	ao, ok2 := act.(*jsObject)
	if ok1 && ok2 {
		keys := eo.keys()
		seen := make(map[string]bool, len(keys))
		for _, k := range keys {
			seen[k] = true
		}
		for _, k := range ao.keys() {
			if !seen[k] {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if len(*diffs) >= maxDiffsPerStep {
				return
			}
			sub := k
			if where != "" {
				sub = where + "." + k
			}
			var e, a any = undefinedT{}, undefinedT{}
			if v, ok := eo.get(k); ok {
				e = v
			}
			if v, ok := ao.get(k); ok {
				a = v
			}
			diff(e, a, sub, diffs, jsonish || k == "body" || k == "messages")
		}
		return
	}
	if where == "" {
		where = "(step)"
	}
	*diffs = append(*diffs, fmt.Sprintf("%s: expected %s, got %s", where, show(exp), show(act)))
}

// sameValue is Object.is for parsed values (numbers compare with ===).
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case undefinedT:
		_, ok := b.(undefinedT)
		return ok
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case float64:
		bf, ok := b.(float64)
		return ok && (a == bf || a != a && bf != bf)
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	}
	return false // distinct arrays and objects are never the same object
}

func tryJSON(s string) (any, bool) {
	t := jsTrim(s)
	if t == "" {
		return nil, false
	}
	v, err := jsParse(t)
	return v, err == nil
}

func show(v any) string {
	var s string
	if _, ok := v.(undefinedT); ok {
		s = "(missing)"
	} else {
		s = jsStringify(v)
	}
	if utf16Len(s) > 300 {
		return utf16Prefix(s, 297) + "..."
	}
	return s
}

// describe is compare.mjs's step label.
func describe(step any) string {
	switch s := step.(type) {
	case []any:
		label := fmt.Sprintf("parallel x%d", len(s))
		if len(s) > 0 {
			if o, ok := s[0].(*jsObject); ok {
				if r, ok := o.get("req"); ok && truthy(r) {
					label += " " + jsString(r)
				}
			}
		}
		return label
	case *jsObject:
		if r, ok := s.get("req"); ok && truthy(r) {
			return jsString(r)
		}
		if w, ok := s.get("ws"); ok {
			return "ws " + jsString(w)
		}
		if n, ok := s.get("slept"); ok {
			return "sleep " + jsString(n)
		}
		return "step"
	}
	return jsString(step)
}
