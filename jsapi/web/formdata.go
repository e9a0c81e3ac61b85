package web

import (
	"bufio"
	"bytes"
	"errors"
	"mime"
	"net/textproto"
	"regexp"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/internal/whatwgurl"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// formEntry is one entry of a parsed form body: a string value, or a file
// (File set) with its name, content type and bytes.
type formEntry struct {
	Name     string
	Value    string
	File     bool
	Filename string
	Type     string
	Data     []byte
}

// workerd's messages for form bodies it cannot parse (api/form-data.c++).
const (
	errFormContentType   = "Unrecognized Content-Type header value. FormData can only parse the following MIME types: multipart/form-data, application/x-www-form-urlencoded"
	errFormNoBoundary    = "No boundary string in Content-Type header. The multipart/form-data MIME type requires a boundary parameter, e.g. 'Content-Type: multipart/form-data; boundary=\"abcd\"'. See RFC 7578, section 4."
	errFormCharset       = "Non-utf-8 application/x-www-form-urlencoded body."
	errFormInitial       = "No initial boundary string (or you have a truncated message)."
	errFormHeaders       = "FormData part had invalid headers."
	errFormNoCD          = "No valid Content-Disposition header found in FormData part."
	errFormBadCD         = "Invalid Content-Disposition header found in FormData part."
	errFormNoName        = "Content-Disposition header in FormData part is missing a name."
	errFormSubsequent    = "No subsequent boundary string after multipart message."
	errFormAfterBoundary = "Boundary string was not succeeded by CRLF, LF, or '--'."
	errFormNoHeaderEnd   = "No multipart message header termination found."
)

// parseFormBody parses a multipart/form-data or
// application/x-www-form-urlencoded body as Body.formData() does on
// workerd, with workerd's error texts (as *jserr.Error TypeErrors).
// A multipart part with a non-empty filename becomes a file.
func parseFormBody(body []byte, contentType string) ([]formEntry, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil && !errors.Is(err, mime.ErrInvalidMediaParameter) {
		return nil, jserr.TypeError(errFormContentType)
	}
	switch mt {
	case "application/x-www-form-urlencoded":
		if cs, ok := params["charset"]; ok {
			switch strings.ToLower(cs) {
			case "utf-8", "utf8", "unicode-1-1-utf-8":
			default:
				return nil, jserr.TypeError(errFormCharset)
			}
		}
		pairs := whatwgurl.ParseForm(string(body))
		out := make([]formEntry, 0, len(pairs)/2)
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, formEntry{Name: pairs[i], Value: pairs[i+1]})
		}
		return out, nil
	case "multipart/form-data":
		boundary, ok := params["boundary"]
		if !ok || boundary == "" {
			return nil, jserr.TypeError(errFormNoBoundary)
		}
		return parseMultipart(body, boundary)
	}
	return nil, jserr.TypeError(errFormContentType)
}

var headerEnd = regexp.MustCompile("\r?\n\r?\n")

// parseMultipart splits a multipart/form-data body as workerd does: the
// delimiter is "\n--boundary" (a CR before it is dropped from the part),
// so CRLF and bare-LF bodies both parse; each part's headers are read
// with net/textproto and its Content-Disposition with mime.
func parseMultipart(body []byte, boundary string) ([]formEntry, error) {
	delim := []byte("\n--" + boundary)
	i := bytes.Index(body, delim[1:])
	if i < 0 {
		return nil, jserr.TypeError(errFormInitial)
	}
	body = body[i+len(delim)-1:]
	var out []formEntry
	for {
		switch {
		case bytes.HasPrefix(body, []byte("\n")):
			body = body[1:]
		case bytes.HasPrefix(body, []byte("\r\n")):
			body = body[2:]
		case bytes.HasPrefix(body, []byte("--")):
			return out, nil
		default:
			return nil, jserr.TypeError(errFormAfterBoundary)
		}
		loc := headerEnd.FindIndex(body)
		if loc == nil {
			return nil, jserr.TypeError(errFormNoHeaderEnd)
		}
		hdr, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(body[:loc[1]]))).ReadMIMEHeader()
		body = body[loc[1]:]
		if err != nil {
			return nil, jserr.TypeError(errFormHeaders)
		}
		cd := hdr.Get("Content-Disposition")
		if cd == "" {
			return nil, jserr.TypeError(errFormNoCD)
		}
		disp, dparams, ok := parseDisposition(cd)
		if !ok {
			return nil, jserr.TypeError(errFormBadCD)
		}
		if disp != "form-data" {
			return nil, jserr.TypeError(`Content-Disposition header for FormData part must have the value "form-data", possibly followed by parameters. Got: "` + disp + `"`)
		}
		name, ok := dparams["name"]
		if !ok {
			return nil, jserr.TypeError(errFormNoName)
		}
		j := bytes.Index(body, delim)
		if j < 0 {
			return nil, jserr.TypeError(errFormSubsequent)
		}
		data := body[:j:j]
		body = body[j+len(delim):]
		if n := len(data); n > 0 && data[n-1] == '\r' {
			data = data[:n-1]
		}
		if fn := dparams["filename"]; fn != "" {
			out = append(out, formEntry{Name: name, File: true, Filename: fn, Type: hdr.Get("Content-Type"), Data: bytes.Clone(data)})
		} else {
			out = append(out, formEntry{Name: name, Value: string(data)})
		}
	}
}

// parseDisposition parses a part's Content-Disposition with workerd's
// grammar: a token, then `; name="value"` parameters (quoted, non-empty,
// a backslash escaping the next character), stopping at the first that
// does not parse. ok is false when there is no leading token.
func parseDisposition(cd string) (disp string, params map[string]string, ok bool) {
	i := 0
	ws := func() {
		for i < len(cd) && (cd[i] == ' ' || cd[i] == '\t') {
			i++
		}
	}
	ident := func() string {
		start := i
		for i < len(cd) && (isASCIILetter(cd[i]) || cd[i] >= '0' && cd[i] <= '9' || cd[i] == '_' || cd[i] == '-') {
			i++
		}
		return cd[start:i]
	}
	ws()
	disp = ident()
	if disp == "" {
		return "", nil, false
	}
	ws()
	params = map[string]string{}
	for i < len(cd) && cd[i] == ';' {
		i++
		ws()
		name := ident()
		ws()
		if name == "" || i >= len(cd) || cd[i] != '=' {
			break
		}
		i++
		ws()
		if i >= len(cd) || cd[i] != '"' {
			break
		}
		i++
		var v strings.Builder
		closed := false
		for i < len(cd) {
			c := cd[i]
			if c == '"' {
				closed = true
				i++
				break
			}
			if c == '\n' {
				break
			}
			if c == '\\' {
				if i+1 >= len(cd) || cd[i+1] == '\n' {
					break
				}
				i++
				c = cd[i]
			}
			v.WriteByte(c)
			i++
		}
		if !closed || v.Len() == 0 {
			break
		}
		params[name] = v.String()
		ws()
	}
	return disp, params, true
}

// formDataNatives are FormData's natives.
func formDataNatives(rt *goja.Runtime, n natives) {
	// formDataParse(u8, contentType) → flat [name, value, filename|null, type, ...]
	// (value is an ArrayBuffer for a file)
	n.setE("formDataParse", func(c goja.FunctionCall) (goja.Value, error) {
		b, err := bytesOf(c.Argument(0))
		if err != nil {
			return nil, err
		}
		entries, err := parseFormBody(b, c.Argument(1).String())
		if err != nil {
			return nil, err
		}
		out := make([]interface{}, 0, 4*len(entries))
		for _, e := range entries {
			if e.File {
				out = append(out, e.Name, rt.NewArrayBuffer(e.Data), e.Filename, e.Type)
			} else {
				out = append(out, e.Name, e.Value, nil, nil)
			}
		}
		return rt.NewArray(out...), nil
	})
}
