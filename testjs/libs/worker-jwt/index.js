// @tsndr/cloudflare-worker-jwt: a login endpoint asks a SQLite-backed Durable
// Object to check a password (PBKDF2 through crypto.subtle) and signs a token
// (HS256 and HS512 with fixed iat/exp); a middleware verifies it (signature,
// expiry with a fixed clock via nbf/exp in the past and the future) and
// decodes it; the object keeps a per-user counter reached only with a
// valid token.
import { DurableObject } from "cloudflare:workers";
import jwt from "@tsndr/cloudflare-worker-jwt";

const SECRET = "cellhost-test-secret";
const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

async function hashPassword(password, salt) {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: new TextEncoder().encode(salt), iterations: 1000 }, key, 256);
  return hex(bits);
}

export class Users extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY, hash TEXT NOT NULL, hits INTEGER NOT NULL DEFAULT 0)");
  }
  async register(name, password) {
    const hash = await hashPassword(password, name);
    this.sql.exec("INSERT INTO users (name, hash) VALUES (?, ?)", name, hash);
    return hash;
  }
  async login(name, password) {
    const row = this.sql.exec("SELECT hash FROM users WHERE name = ?", name).toArray()[0];
    return !!row && row.hash === (await hashPassword(password, name));
  }
  hit(name) {
    return this.sql.exec("UPDATE users SET hits = hits + 1 WHERE name = ? RETURNING hits", name).one().hits;
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const users = env.USERS.getByName("all");
    const q = (k) => url.searchParams.get(k);
    try {
      switch (url.pathname) {
        case "/register":
          return Response.json({ hash: await users.register(q("u"), q("p")) });
        case "/login": {
          if (!(await users.login(q("u"), q("p")))) return Response.json({ error: "bad credentials" }, { status: 403 });
          const alg = q("alg") ?? "HS256";
          const exp = Number(q("exp") ?? 4102444800); // 2100-01-01, or a past time
          const token = await jwt.sign({ sub: q("u"), iat: 1767225600, exp, nbf: 1767225600 }, SECRET, { algorithm: alg, header: { kid: "k1" } });
          return Response.json({ token });
        }
        case "/me": {
          const auth = request.headers.get("Authorization") ?? "";
          const token = auth.replace(/^Bearer /, "");
          let ok;
          try {
            ok = await jwt.verify(token, SECRET, { algorithm: jwt.decode(token).header?.alg ?? "HS256", throwError: true });
          } catch (e) {
            return Response.json({ error: String(e.message ?? e) }, { status: 401 });
          }
          if (!ok) return Response.json({ error: "invalid" }, { status: 401 });
          const { header, payload } = jwt.decode(token);
          return Response.json({ header, sub: payload.sub, hits: await users.hit(payload.sub) });
        }
        case "/decode":
          return Response.json(jwt.decode(q("t")));
        default:
          return new Response("not found", { status: 404 });
      }
    } catch (e) {
      return Response.json({ name: e.name, message: e.message }, { status: 500 });
    }
  },
};
