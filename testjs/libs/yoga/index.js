// yoga-wasm-web (Yoga, Facebook's flexbox engine in C++, built with
// emscripten and embind; the layout engine under satori and workers-og) as
// satori uses it on Workers: init(wasmModule). A Durable Object lays out a
// card (row and column flex, wrap, gaps, padding, percentages, absolute
// positioning, a measure function) and keeps each computed layout in SQLite.
import { DurableObject } from "cloudflare:workers";
import initYoga from "yoga-wasm-web";
import wasm from "yoga-wasm-web/dist/yoga.wasm";

let yoga;
const Yoga = async () => (yoga ??= await initYoga(wasm));

function build(Y, spec) {
  const root = Y.Node.create();
  root.setWidth(spec.width);
  root.setHeight(spec.height);
  root.setFlexDirection(Y.FLEX_DIRECTION_COLUMN);
  root.setPadding(Y.EDGE_ALL, 12);
  root.setGap(Y.GUTTER_ROW, 8);
  const header = Y.Node.create();
  header.setHeight(40);
  header.setFlexDirection(Y.FLEX_DIRECTION_ROW);
  header.setJustifyContent(Y.JUSTIFY_SPACE_BETWEEN);
  header.setAlignItems(Y.ALIGN_CENTER);
  for (const w of [60, 90]) {
    const c = Y.Node.create();
    c.setWidth(w);
    c.setHeight(24);
    header.insertChild(c, header.getChildCount());
  }
  const body = Y.Node.create();
  body.setFlexGrow(1);
  body.setFlexDirection(Y.FLEX_DIRECTION_ROW);
  body.setFlexWrap(Y.WRAP_WRAP);
  body.setGap(Y.GUTTER_ALL, 6);
  for (let i = 0; i < spec.tiles; i++) {
    const t = Y.Node.create();
    t.setWidthPercent(spec.percent);
    t.setAspectRatio(1.5);
    body.insertChild(t, i);
  }
  const text = Y.Node.create();
  text.setMeasureFunc((width) => {
    const chars = spec.text.length;
    const perLine = Math.max(1, Math.floor(width / 7));
    return { width: Math.min(width, chars * 7), height: Math.ceil(chars / perLine) * 16 };
  });
  const badge = Y.Node.create();
  badge.setPositionType(Y.POSITION_TYPE_ABSOLUTE);
  badge.setPosition(Y.EDGE_RIGHT, 4);
  badge.setPosition(Y.EDGE_TOP, 4);
  badge.setWidth(20);
  badge.setHeight(20);
  root.insertChild(header, 0);
  root.insertChild(body, 1);
  root.insertChild(text, 2);
  root.insertChild(badge, 3);
  root.calculateLayout(spec.width, spec.height, Y.DIRECTION_LTR);
  const dump = (n) => {
    const l = n.getComputedLayout();
    const out = [l.left, l.top, l.width, l.height].map((v) => Math.round(v * 100) / 100);
    const kids = [];
    for (let i = 0; i < n.getChildCount(); i++) kids.push(dump(n.getChild(i)));
    return kids.length ? [out, kids] : out;
  };
  const result = dump(root);
  root.freeRecursive();
  return result;
}

export class Layouts extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS layouts (name TEXT PRIMARY KEY, spec TEXT, layout TEXT)");
  }
  async layout(name, spec) {
    const layout = build(await Yoga(), spec);
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO layouts VALUES (?, ?, ?)", name, JSON.stringify(spec), JSON.stringify(layout));
    return layout;
  }
  list() {
    return this.ctx.storage.sql.exec("SELECT name, json_extract(spec, '$.width') AS w, json_array_length(json_extract(layout, '$[1][1][1]')) AS tiles FROM layouts ORDER BY name").toArray();
  }
}

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    const stub = env.LAYOUTS.get(env.LAYOUTS.idFromName("lib"));
    try {
      switch (url.pathname) {
        case "/layout": return Response.json(await stub.layout(url.searchParams.get("name"), await req.json()));
        case "/list": return Response.json(await stub.list());
        case "/constants": {
          const Y = await Yoga();
          return Response.json([Y.FLEX_DIRECTION_ROW, Y.EDGE_ALL, Y.UNIT_PERCENT, typeof Y.Node.create, typeof Y.Config.create]);
        }
      }
      return new Response("not found", { status: 404 });
    } catch (e) {
      return Response.json({ error: e.name, message: e.message }, { status: 500 });
    }
  },
};
