package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// getDoc and postDoc fetch a page and return its document.
func getDoc(t *testing.T, u string) *html.Node {
	t.Helper()
	resp, err := http.Get(u)
	return parseHTML(t, resp, err)
}

func postDoc(t *testing.T, u, q string) *html.Node {
	t.Helper()
	resp, err := http.PostForm(u, url.Values{"q": {q}})
	return parseHTML(t, resp, err)
}

func parseHTML(t *testing.T, resp *http.Response, err error) *html.Node {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	doc, err := html.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// find returns the elements matching pred, in document order.
func find(n *html.Node, pred func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && pred(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// gridRows returns the cell texts of the n-th table.grid.
func gridRows(doc *html.Node, n int) [][]string {
	grids := find(doc, func(x *html.Node) bool { return x.Data == "table" && attr(x, "class") == "grid" })
	if n >= len(grids) {
		return nil
	}
	var out [][]string
	for _, tr := range find(grids[n], func(x *html.Node) bool { return x.Data == "tr" }) {
		var row []string
		for _, td := range find(tr, func(x *html.Node) bool { return x.Data == "td" || x.Data == "th" }) {
			row = append(row, text(td))
		}
		out = append(out, row)
	}
	return out
}

// The inspector lists the objects of each class, shows an object's KV
// entries (decoded), its SQL tables page by page and its alarm, and runs
// read-only SQL.
func TestDev_Inspector(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "i", "main": "index.js", "durable_objects": {"bindings": [{"name": "C", "class_name": "Counter"}, {"name": "E", "class_name": "Empty"}]},
		  "migrations": [{"tag": "v1", "new_sqlite_classes": ["Counter", "Empty"]}]}`,
		"index.js": `import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(req) {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT)");
    for (let i = 0; i < 60; i++) sql.exec("INSERT INTO notes (body) VALUES (?)", "note " + i);
    await this.ctx.storage.put("n", 3);
    await this.ctx.storage.put("obj", { a: [1, "two"] });
    await this.ctx.storage.setAlarm(Date.UTC(2030, 0, 1));
    return new Response("ok");
  }
  async alarm() {}
}
export class Empty extends DurableObject {}
export default { fetch() { return new Response("w"); } };`,
	})
	d := startDevServer(t, dir, dir, nil)
	if _, body := d.get("/do/Counter/alice"); body != "ok" {
		t.Fatalf("GET /do/Counter/alice = %q", body)
	}
	if !strings.Contains(d.stdout.String(), "Inspector (objects, their KV and SQL): "+d.base+"/_cellhost") {
		t.Errorf("the banner does not name the inspector:\n%s", d.stdout.String())
	}

	home := getDoc(t, d.base+"/_cellhost")
	sections := find(home, func(n *html.Node) bool { return n.Data == "section" })
	if len(sections) != 2 || attr(sections[0], "data-class") != "Counter" || attr(sections[1], "data-class") != "Empty" {
		t.Fatalf("classes: %d sections", len(sections))
	}
	objs := find(sections[0], func(n *html.Node) bool { return n.Data == "tr" && attr(n, "class") == "object" })
	if len(objs) != 1 || !strings.Contains(text(objs[0]), "alice") || !strings.Contains(text(objs[0]), "2030-01-01T00:00:00Z") {
		t.Fatalf("Counter's objects: %d rows (%v)", len(objs), func() []string {
			var s []string
			for _, o := range objs {
				s = append(s, text(o))
			}
			return s
		}())
	}
	if !strings.Contains(text(sections[1]), "No object of this class") {
		t.Errorf("Empty's section: %q", text(sections[1]))
	}
	link := attr(find(objs[0], func(n *html.Node) bool { return n.Data == "a" })[0], "href")

	page := getDoc(t, d.base+link+"?table=notes")
	if got := text(find(page, func(n *html.Node) bool { return n.Data == "ul" && attr(n, "class") == "tables" })[0]); !strings.Contains(got, "notes (60 rows)") {
		t.Errorf("tables: %q", got)
	}
	kv := gridRows(page, 0)
	if len(kv) != 3 || kv[1][0] != "n" || kv[1][1] != "3" || kv[2][0] != "obj" || kv[2][1] != `{"a":[1,"two"]}` {
		t.Errorf("KV grid = %q", kv)
	}
	notes := gridRows(page, 1)
	if len(notes) != 51 || notes[1][1] != "note 0" || notes[50][1] != "note 49" {
		t.Errorf("first page of notes: %d rows, first %q", len(notes), notes[1])
	}
	next := find(page, func(n *html.Node) bool { return n.Data == "a" && attr(n, "class") == "next" })
	if len(next) != 1 {
		t.Fatalf("no next-page link")
	}
	page2 := getDoc(t, d.base+link+attr(next[0], "href"))
	if notes := gridRows(page2, 1); len(notes) != 11 || notes[10][1] != "note 59" {
		t.Errorf("second page of notes: %d rows", len(notes))
	}

	res := postDoc(t, d.base+link, "SELECT count(*) AS c FROM notes")
	if rows := gridRows(res, 1); len(rows) != 2 || rows[0][0] != "c" || rows[1][0] != "60" {
		t.Errorf("SQL console result = %q", rows)
	}
	res = postDoc(t, d.base+link, "DELETE FROM notes")
	if errs := find(res, func(n *html.Node) bool { return attr(n, "class") == "err" }); len(errs) != 1 || !strings.Contains(text(errs[0]), "readonly") {
		t.Errorf("a write in the console was not refused")
	}
	if _, body := d.get("/do/Counter/alice"); body != "ok" {
		t.Errorf("the object after the inspector: %q", body)
	}
}
