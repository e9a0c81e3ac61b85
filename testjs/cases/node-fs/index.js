// node:fs under nodejs_compat as workerd has it: a virtual file system with
// the worker's bundle read-only under /bundle, a writable /tmp that lasts
// for one request, /dev/null and friends, and Node's errors (code, syscall,
// path, message) for what is missing or not allowed. Sync, callback and
// promise forms; a Durable Object uses /tmp as scratch within one call.
import { DurableObject } from "cloudflare:workers";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";

const err = (e) => ({ name: e.name, code: e.code ?? null, syscall: e.syscall ?? null, path: e.path ?? null, message: e.message });
const probe = (fn) => { try { return fn(); } catch (e) { return err(e); } };
const aprobe = async (fn) => { try { return await fn(); } catch (e) { return err(e); } };

export class Notes extends DurableObject {
  async scratch(text) {
    fs.mkdirSync("/tmp/notes", { recursive: true });
    fs.writeFileSync("/tmp/notes/a.txt", text);
    fs.appendFileSync("/tmp/notes/a.txt", "!");
    await fsp.writeFile("/tmp/notes/b.json", JSON.stringify({ n: text.length }));
    const names = fs.readdirSync("/tmp/notes").sort();
    const read = fs.readFileSync("/tmp/notes/a.txt", "utf8");
    const json = JSON.parse(await fsp.readFile("/tmp/notes/b.json", "utf8"));
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS n (t TEXT)");
    this.ctx.storage.sql.exec("INSERT INTO n VALUES (?)", read);
    return { names, read, json, rows: this.ctx.storage.sql.exec("SELECT count(*) AS c FROM n").one().c };
  }
  leftover() {
    return { exists: fs.existsSync("/tmp/notes/a.txt") };
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const out = {};
    switch (url.pathname) {
      case "/sync": {
        out.tmpEmpty = fs.readdirSync("/tmp");
        out.write = probe(() => { fs.writeFileSync("/tmp/x.txt", "hello"); return fs.readFileSync("/tmp/x.txt", "utf8"); });
        out.buffer = probe(() => [...fs.readFileSync("/tmp/x.txt")].length);
        out.stat = probe(() => { const s = fs.statSync("/tmp/x.txt"); return { size: s.size, file: s.isFile(), dir: s.isDirectory(), mode: typeof s.mode }; });
        out.statDir = probe(() => { const s = fs.statSync("/tmp"); return { file: s.isFile(), dir: s.isDirectory() }; });
        out.exists = [fs.existsSync("/tmp/x.txt"), fs.existsSync("/tmp/none"), fs.existsSync("/bundle"), fs.existsSync("/etc/passwd")];
        out.missing = probe(() => fs.readFileSync("/tmp/none.txt"));
        out.missingDir = probe(() => fs.readdirSync("/tmp/nodir"));
        out.readDirAsFile = probe(() => fs.readFileSync("/tmp"));
        out.writeBundle = probe(() => fs.writeFileSync("/bundle/new.txt", "x"));
        out.writeRoot = probe(() => fs.writeFileSync("/x.txt", "x"));
        out.bundle = probe(() => fs.readdirSync("/bundle"));
        out.mkdir = probe(() => { fs.mkdirSync("/tmp/a/b/c", { recursive: true }); return fs.readdirSync("/tmp/a/b"); });
        out.mkdirExists = probe(() => fs.mkdirSync("/tmp/a"));
        out.rename = probe(() => { fs.renameSync("/tmp/x.txt", "/tmp/y.txt"); return [fs.existsSync("/tmp/x.txt"), fs.readFileSync("/tmp/y.txt", "utf8")]; });
        out.unlink = probe(() => { fs.unlinkSync("/tmp/y.txt"); return fs.existsSync("/tmp/y.txt"); });
        out.unlinkMissing = probe(() => fs.unlinkSync("/tmp/y.txt"));
        out.rmdirNotEmpty = probe(() => fs.rmdirSync("/tmp/a"));
        out.rm = probe(() => { fs.rmSync("/tmp/a", { recursive: true }); return fs.existsSync("/tmp/a"); });
        out.devNull = probe(() => { fs.writeFileSync("/dev/null", "gone"); return fs.readFileSync("/dev/null").length; });
        out.withFileTypes = probe(() => { fs.writeFileSync("/tmp/f", "1"); fs.mkdirSync("/tmp/d"); return fs.readdirSync("/tmp", { withFileTypes: true }).map((d) => [d.name, d.isFile(), d.isDirectory()]).sort(); });
        out.relative = probe(() => { fs.writeFileSync("rel.txt", "r"); return fs.readFileSync("/bundle/rel.txt", "utf8"); });
        out.fd = probe(() => { const fd = fs.openSync("/tmp/fd.txt", "w"); fs.writeSync(fd, "abc"); fs.closeSync(fd); return fs.readFileSync("/tmp/fd.txt", "utf8"); });
        out.cwd = process.cwd();
        return Response.json(out);
      }
      case "/async": {
        out.promises = await aprobe(async () => { await fsp.writeFile("/tmp/p.txt", "promised"); return await fsp.readFile("/tmp/p.txt", "utf8"); });
        out.promiseMissing = await aprobe(() => fsp.readFile("/tmp/none"));
        out.callback = await new Promise((resolve) => fs.readFile("/tmp/p.txt", "utf8", (e, d) => resolve(e ? err(e) : d)));
        out.callbackMissing = await new Promise((resolve) => fs.readFile("/tmp/none", (e) => resolve(err(e))));
        out.readdir = await aprobe(() => fsp.readdir("/tmp"));
        out.stat = await aprobe(async () => (await fsp.stat("/tmp/p.txt")).size);
        out.access = await aprobe(() => fsp.access("/tmp/none"));
        return Response.json(out);
      }
      case "/do": {
        const stub = env.NOTES.getByName("a");
        return Response.json({ first: await stub.scratch("hi"), later: await stub.leftover(), workerTmp: fs.existsSync("/tmp/notes") });
      }
      case "/again":
        return Response.json({ tmp: fs.readdirSync("/tmp") });
      default:
        return new Response("not found", { status: 404 });
    }
  },
};
