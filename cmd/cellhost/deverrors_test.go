package main

import (
	"strings"
	"testing"
	"time"
)

// The dev 500 page and the terminal show the program's frames only: no
// frame of cellhost's own JS (named or anonymous), no native or Go
// function, no bytecode offset, no project directory.
func TestShortenStack_NoInternalFrames(t *testing.T) {
	in := "TypeError: bad\n" +
		"\tat parse (/p/src/index.ts:12:21(14))\n" +
		"\tat cellhost:node.js:717:35(6)\n" +
		"\tat async cellhost:web.js:10:2(3)\n" +
		"\tat from (cellhost:node.js:700:3(40))\n" +
		"\tat github.com/cellhost/cellhost/third_party/goja.(*Runtime).builtin_Array_map-fm (native)\n" +
		"\tat map (native)\n" +
		"\tat /p/src/index.ts:18:71(9)\n" +
		"\tat async fetch (/p/src/index.ts:20:37(50))\n"
	want := "TypeError: bad\n\tat parse (src/index.ts:12:21)\n\tat src/index.ts:18:71\n\tat async fetch (src/index.ts:20:37)\n"
	if got := shortenStack(in, "/p/"); got != want {
		t.Errorf("shortenStack =\n%s\nwant\n%s", got, want)
	}
}

// Run from the project's directory (`cellhost dev` with no argument), the
// 500 page names files relative to it; a build error names the file
// relative to the project with esbuild's code frame (line and caret), at
// start and on reload.
func TestDev_ErrorOutput(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "e", "main": "src/server/index.ts", "compatibility_date": "2026-01-01", "compatibility_flags": ["nodejs_compat"]}`,
		"src/server/index.ts": `import { Buffer } from "node:buffer";
function parse(s: any) {
  return Buffer.from(s);
}
export default {
  fetch(): Response {
    return new Response(String(parse(undefined)));
  },
};
`,
	})
	p := runDevProc(t, dir, nil, "--port", "0", "--state", t.TempDir())
	code, body, _ := p.get(t, "/")
	if code != 500 || !strings.HasPrefix(body, "TypeError: The first argument must be of type string") ||
		!strings.Contains(body, "\n\tat parse (src/server/index.ts:3:") || !strings.Contains(body, "\n\tat fetch (src/server/index.ts:7:") {
		t.Errorf("GET / = %d %q", code, body)
	}
	for _, leak := range []string{dir, "cellhost:", "(native)", "github.com/"} {
		if strings.Contains(body, leak) {
			t.Errorf("the 500 page shows %q:\n%s", leak, body)
		}
	}

	// A syntax error on line 6, column 10 of src/server/index.ts.
	broken := "export default {\n  fetch(): Response {\n    return new Response(\"x\");\n  },\n};\nconst a = = 1;\n"
	d := &devHarness{t: t, dir: dir}
	d.write("src/server/index.ts", broken)
	if !p.out.waitFor("reload failed; still serving the previous code", time.Minute) {
		t.Fatalf("no reload failure:\n%s", p.out)
	}
	out := p.out.String()
	frame := "✘ [ERROR] Unexpected \"=\"\n\n    src/server/index.ts:6:10:\n      6 │ const a = = 1;\n        ╵           ^\n"
	if !strings.Contains(out, frame) {
		t.Errorf("the reload error lacks esbuild's frame\n%s\noutput:\n%s", frame, out)
	}
	p.stop()

	q := startDevProc(t, dir, nil, "--port", "0", "--state", t.TempDir())
	if code := q.exited(t); code != 1 {
		t.Fatalf("exit %d with a broken build", code)
	}
	out = q.out.String()
	if !strings.Contains(out, frame) || !strings.Contains(out, "cellhost: the worker does not build: src/server/index.ts:6:11: Unexpected \"=\"") {
		t.Errorf("start output:\n%s", out)
	}
}
