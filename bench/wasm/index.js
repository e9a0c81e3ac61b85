// bench/wasm.sh's worker: each endpoint does n units of one kind of work and
// returns a checksum, so that both servers are seen to compute the same.
import calls from "./calls.wasm";
import encodeJpeg, { init as initJpeg } from "@jsquash/jpeg/encode";
import JPEG_ENC from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm";

let hits = 0;
const x = new WebAssembly.Instance(calls, { env: { f: (i) => { hits++; return i & 7; } } }).exports;
const jsAdd = (a, b) => (a + b) | 0;
let jpegReady;

function image(s) {
  const data = new Uint8ClampedArray(s * s * 4);
  for (let y = 0; y < s; y++) for (let i = 0; i < s; i++) {
    const o = (y * s + i) * 4;
    data[o] = i & 255; data[o + 1] = y & 255; data[o + 2] = (i * y) & 255; data[o + 3] = 255;
  }
  return { data, width: s, height: s, colorSpace: "srgb" };
}

export default {
  async fetch(req) {
    const u = new URL(req.url);
    const n = Number(u.searchParams.get("n") ?? 1);
    let s = 0;
    switch (u.pathname) {
      case "/noop": return new Response("0");
      case "/jsloop": for (let i = 0; i < n; i++) s = jsAdd(s, i); break;
      case "/js2wasm": for (let i = 0; i < n; i++) s = x.add(s, i); break;
      case "/wasm2js": s = x.callJs(n); break;
      case "/mix": s = String(x.mix(n)); break;
      case "/jpeg": {
        await (jpegReady ??= initJpeg(JPEG_ENC));
        const img = image(n);
        const out = await encodeJpeg(img, { quality: 75 });
        s = out.byteLength;
        break;
      }
      default: return new Response("not found", { status: 404 });
    }
    return new Response(String(s));
  },
};
