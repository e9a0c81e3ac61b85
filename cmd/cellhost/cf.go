package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// cfPlaceholder is the request.cf object wrangler dev gives every request
// when it cannot fetch Cloudflare's (offline): miniflare's fallbackCf
// (miniflare 4, dist/src/index.js), key for key and in its order.
//
//go:embed cfplaceholder.json
var cfPlaceholder []byte

// requestCF is the cf object (compact JSON) cellhost dev puts on each
// request: the placeholder, with the keys of spec laid over it. spec is
// --cf's value: a JSON object, or the path of a file holding one; empty,
// the file named by CLOUDFLARE_CF_FETCH_PATH (miniflare's variable) if set.
func requestCF(spec string) (string, error) {
	src := "--cf"
	if spec == "" {
		if p := os.Getenv("CLOUDFLARE_CF_FETCH_PATH"); p != "" {
			spec, src = p, "CLOUDFLARE_CF_FETCH_PATH"
		}
	}
	var over []byte
	switch {
	case spec == "":
	case strings.HasPrefix(strings.TrimSpace(spec), "{"), strings.HasPrefix(strings.TrimSpace(spec), "["):
		over = []byte(spec)
	default:
		b, err := os.ReadFile(spec)
		if err != nil {
			return "", fmt.Errorf("%s: cannot read the request.cf file: %w", src, err)
		}
		over = b
	}
	base, err := orderedObject(cfPlaceholder)
	if err != nil {
		return "", err
	}
	if over != nil {
		o, err := orderedObject(over)
		if err != nil {
			return "", fmt.Errorf("%s: request.cf must be a JSON object, as {\"country\":\"DE\",\"city\":\"Berlin\"}: %v", src, err)
		}
		for _, kv := range o {
			base = base.set(kv.k, kv.v)
		}
	}
	return base.String(), nil
}

type member struct {
	k string
	v json.RawMessage
}

// object is a JSON object with its keys in order (a Go map would lose it,
// and JSON.stringify(request.cf) shows it).
type object []member

func orderedObject(b []byte) (object, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var o object
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		o = o.set(t.(string), v)
	}
	if _, err := d.Token(); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("text after the object")
	}
	return o, nil
}

func (o object) set(k string, v json.RawMessage) object {
	for i := range o {
		if o[i].k == k {
			o[i].v = v
			return o
		}
	}
	return append(o, member{k, v})
}

func (o object) String() string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.k)
		b.Write(k)
		b.WriteByte(':')
		_ = json.Compact(&b, m.v)
	}
	b.WriteByte('}')
	return b.String()
}
