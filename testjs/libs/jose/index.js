// jose in a worker in front of a SQLite-backed Durable Object that keeps
// sessions: the object issues tokens (HS256 with a shared secret, RS256 and
// ES256 from JWKs, EdDSA from PEM), the worker verifies them with the public
// keys (JWKS), checks claims (issuer, audience, expiry against a fixed clock)
// and reports jose's error codes; JWE (dir + A256GCM, and RSA-OAEP-256)
// round-trips a payload. Signatures that are deterministic (HS256, RS256,
// EdDSA) appear in the transcript; ECDSA and JWE output is checked by
// round trip only.
import { DurableObject } from "cloudflare:workers";
import * as jose from "jose";
import keys from "./keys.json";

const NOW = 1767225600; // 2026-01-01T00:00:00Z, a fixed clock for iat/exp checks
const secret = new TextEncoder().encode("a-string-secret-at-least-256-bits-long");

async function privateKeys() {
  return {
    RS256: await jose.importJWK({ ...keys.rsa, alg: "RS256" }, "RS256"),
    ES256: await jose.importJWK({ ...keys.ec, alg: "ES256" }, "ES256"),
    EdDSA: await jose.importPKCS8(keys.edPkcs8, "EdDSA"),
  };
}

async function publicJwks() {
  const pub = (jwk) => { const { d, p, q, dp, dq, qi, ...rest } = jwk; return rest; };
  const ed = await jose.exportJWK(await jose.importSPKI(keys.edSpki, "EdDSA", { extractable: true }));
  return { keys: [
    { ...pub(keys.rsa), kid: "rsa", alg: "RS256", use: "sig" },
    { ...pub(keys.ec), kid: "ec", alg: "ES256", use: "sig" },
    { ...ed, kid: "ed", alg: "EdDSA", use: "sig" },
  ] };
}

export class Sessions extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS sessions (jti TEXT PRIMARY KEY, sub TEXT, alg TEXT, revoked INTEGER DEFAULT 0)");
  }
  async issue(sub, alg, ttl) {
    const n = this.sql.exec("SELECT count(*) AS n FROM sessions").one().n;
    const jti = `s${n + 1}`;
    const jwt = new jose.SignJWT({ role: sub === "root" ? "admin" : "user", scope: ["read", "write"] })
      .setProtectedHeader({ alg, kid: { RS256: "rsa", ES256: "ec", EdDSA: "ed", HS256: undefined }[alg], typ: "JWT" })
      .setSubject(sub).setIssuer("urn:cellhost:issuer").setAudience("urn:cellhost:app")
      .setJti(jti).setIssuedAt(NOW).setExpirationTime(NOW + ttl);
    const key = alg === "HS256" ? secret : (await privateKeys())[alg];
    const token = await jwt.sign(key);
    this.sql.exec("INSERT INTO sessions (jti, sub, alg) VALUES (?, ?, ?)", jti, sub, alg);
    return token;
  }
  revoke(jti) {
    return this.sql.exec("UPDATE sessions SET revoked = 1 WHERE jti = ?", jti).rowsWritten;
  }
  isRevoked(jti) {
    return this.sql.exec("SELECT revoked FROM sessions WHERE jti = ?", jti).toArray()[0]?.revoked === 1;
  }
}

async function verify(token, stub) {
  const header = jose.decodeProtectedHeader(token);
  const opts = { issuer: "urn:cellhost:issuer", audience: "urn:cellhost:app", currentDate: new Date((NOW + 60) * 1000) };
  const { payload, protectedHeader } = header.alg === "HS256"
    ? await jose.jwtVerify(token, secret, opts)
    : await jose.jwtVerify(token, jose.createLocalJWKSet(await publicJwks()), opts);
  return { alg: protectedHeader.alg, sub: payload.sub, role: payload.role, jti: payload.jti, revoked: await stub.isRevoked(payload.jti) };
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const stub = env.SESSIONS.getByName("main");
    const q = (k) => url.searchParams.get(k);
    try {
      switch (url.pathname) {
        case "/issue": {
          const token = await stub.issue(q("sub"), q("alg"), Number(q("ttl") ?? 3600));
          const deterministic = q("alg") !== "ES256";
          return Response.json({ token: deterministic ? token : token.split(".").slice(0, 2).join(".") + ".<sig>", parts: token.split(".").length, verified: await verify(token, stub) });
        }
        case "/verify":
          return Response.json(await verify(await request.text(), stub));
        case "/tamper": {
          const token = await stub.issue(q("sub"), q("alg"), 3600);
          const [h, p, s] = token.split(".");
          const bad = [h, jose.base64url.encode(JSON.stringify({ ...jose.decodeJwt(token), role: "admin" })), s].join(".");
          return Response.json(await verify(bad, stub));
        }
        case "/revoke":
          return Response.json({ changed: await stub.revoke(q("jti")) });
        case "/jwks":
          return Response.json(await publicJwks());
        case "/thumbprint":
          return Response.json({ rsa: await jose.calculateJwkThumbprint((await publicJwks()).keys[0]), ec: await jose.calculateJwkThumbprint((await publicJwks()).keys[1]) });
        case "/jwe": {
          const payload = new TextEncoder().encode(await request.text());
          const dirKey = new Uint8Array(32).map((_, i) => i);
          const jwe = await new jose.CompactEncrypt(payload).setProtectedHeader({ alg: "dir", enc: "A256GCM" }).encrypt(dirKey);
          const back = await jose.compactDecrypt(jwe, dirKey);
          const rsaPub = await jose.importJWK({ kty: "RSA", n: keys.rsa.n, e: keys.rsa.e }, "RSA-OAEP-256");
          const rsaPriv = await jose.importJWK(keys.rsa, "RSA-OAEP-256");
          const jwe2 = await new jose.CompactEncrypt(payload).setProtectedHeader({ alg: "RSA-OAEP-256", enc: "A128CBC-HS256" }).encrypt(rsaPub);
          const back2 = await jose.compactDecrypt(jwe2, rsaPriv);
          return Response.json({ parts: jwe.split(".").length, header: back.protectedHeader, text: new TextDecoder().decode(back.plaintext), rsa: new TextDecoder().decode(back2.plaintext), rsaHeader: back2.protectedHeader });
        }
        default:
          return new Response("not found", { status: 404 });
      }
    } catch (e) {
      return Response.json({ name: e.name, code: e.code, message: e.message }, { status: 401 });
    }
  },
};
