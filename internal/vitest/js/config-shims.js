// Modules a vitest.config may import, for evaluating it in goja
// (config.go): the pool's config helpers, vitest/config's, and the bits of
// node:path and node:url configs use to find their files. __native is set
// by Go. One file, split by config.go at the "//--- " lines.
//--- @cloudflare/vitest-pool-workers/config
export const defineWorkersConfig = (c) => c;
export const defineWorkersProject = (c) => c;
export const readD1Migrations = (dir) => __native.readD1Migrations(String(dir));
export const buildPagesASSETSBinding = () => { throw new Error("buildPagesASSETSBinding() is not supported by cellhost test yet"); };
export const kCurrentWorker = Symbol.for("cellhost.currentWorker");
//--- vitest/config
function isObj(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
export function mergeConfig(a, b) {
  const out = { ...a };
  for (const [k, v] of Object.entries(b ?? {})) {
    if (isObj(v) && isObj(out[k])) out[k] = mergeConfig(out[k], v);
    else if (Array.isArray(v) && Array.isArray(out[k])) out[k] = [...out[k], ...v];
    else out[k] = v;
  }
  return out;
}
export const defineConfig = (c) => c;
export const defineProject = (c) => c;
export const defineWorkspace = (c) => c;
export const configDefaults = { include: ["**/*.{test,spec}.?(c|m)[jt]s?(x)"], exclude: ["**/node_modules/**", "**/dist/**"] };
//--- node:path
export const sep = "/";
export const join = (...p) => __native.join(...p.map(String));
export const resolve = (...p) => __native.resolve(...p.map(String));
export const dirname = (p) => __native.dirname(String(p));
export const basename = (p, ext) => { const b = __native.basename(String(p)); return ext && b.endsWith(ext) ? b.slice(0, -ext.length) : b; };
export const relative = (a, b) => __native.relative(String(a), String(b));
export const isAbsolute = (p) => String(p).startsWith("/");
export const extname = (p) => { const b = basename(p); const i = b.lastIndexOf("."); return i > 0 ? b.slice(i) : ""; };
export default { sep, join, resolve, dirname, basename, relative, isAbsolute, extname };
//--- node:url
export const fileURLToPath = (u) => { const s = String(u); if (!s.startsWith("file://")) throw new TypeError("The URL must be of scheme file"); return decodeURIComponent(s.slice(7)); };
export const pathToFileURL = (p) => ({ href: "file://" + encodeURI(String(p)), pathname: String(p), toString() { return this.href; } });
export default { fileURLToPath, pathToFileURL };
