import { Hono } from "hono";
import { DurableObject } from "cloudflare:workers";
import { AsyncLocalStorage } from "node:async_hooks";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";

type Env = { NOTES: DurableObjectNamespace<Notes>; GREETING: string };
type Note = { id: number; text: string; digest: string };

const requestId = new AsyncLocalStorage<string>();

export class Notes extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, digest TEXT NOT NULL)");
  }

  add(text: string): Note {
    const digest = createHash("sha256").update(text).digest("hex").slice(0, 16);
    const row = this.ctx.storage.sql.exec<Note>("INSERT INTO notes (text, digest) VALUES (?, ?) RETURNING id, text, digest", text, digest).one();
    return row;
  }

  list(): Note[] {
    return this.ctx.storage.sql.exec<Note>("SELECT id, text, digest FROM notes ORDER BY id").toArray();
  }
}

const app = new Hono<{ Bindings: Env }>();

app.use("*", async (c, next) => {
  await requestId.run(c.req.header("x-request-id") ?? "none", next);
});

app.get("/", (c) => c.text(`${c.env.GREETING} from ${process.env.GREETING ? "process.env" : "nowhere"}`));

app.post("/notes/:book", async (c) => {
  const { text } = await c.req.json<{ text: string }>();
  const note = await c.env.NOTES.getByName(c.req.param("book")).add(text);
  return c.json({ note, requestId: requestId.getStore() }, 201);
});

app.get("/notes/:book", async (c) => {
  const notes = await c.env.NOTES.getByName(c.req.param("book")).list();
  return c.json({ notes, base64: Buffer.from(notes.map((n) => n.text).join(",")).toString("base64") });
});

export default app;
