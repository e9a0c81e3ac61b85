// Module rules, define and alias from the configuration: Text and Data
// imports by user rules and wrangler's defaults, a define'd global and a
// dotted define, an aliased import; a Durable Object stores the imported
// text in SQL using the imported schema.
import { DurableObject } from "cloudflare:workers";
import readme from "./src/readme.md";
import note from "./src/note.txt";
import page from "./src/page.html";
import schema from "./src/schema.sql";
import blob from "./src/blob.dat";
import { greet } from "greeting-lib";

export class Docs extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec(schema);
  }
  save(name, body) {
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO docs VALUES (?, ?)", name, body);
    return this.ctx.storage.sql.exec("SELECT name, length(body) AS n FROM docs ORDER BY name").toArray();
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    switch (url.pathname) {
      case "/imports":
        return Response.json({
          readme, note, page, schema,
          blob: { type: Object.prototype.toString.call(blob), bytes: [...new Uint8Array(blob)] },
          flavor: BUILD_FLAVOR, limit: FEATURE.limit, greet: greet("rules"),
          types: [typeof readme, typeof note, typeof page, typeof schema],
        });
      case "/save":
        return Response.json(await env.DOCS.getByName("a").save("readme", readme));
      default:
        return new Response("not found", { status: 404 });
    }
  },
};
