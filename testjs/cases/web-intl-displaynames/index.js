// Intl.DisplayNames as workerd (ICU) has it: region, language (dialect
// and standard), script and currency names in en, de and fr; fallbacks;
// errors.
function c(f){ try { return f(); } catch(e) { return {err: e.name, msg: e.message}; } }
import { DurableObject } from "cloudflare:workers";
export class Obj extends DurableObject {
  async fetch(request) {
  const out = {};
  const dn = (l, o, codes) => codes.map((x) => c(() => new Intl.DisplayNames(l, o).of(x)));
  out.region = dn(["en"], {type: "region"}, ["DE", "US", "GB", "JP", "CN", "BR", "IN", "419", "ZZ", "XK", "CI"]);
  out.regionDe = dn(["de"], {type: "region"}, ["DE", "US", "GB", "FR"]);
  out.regionFr = dn(["fr"], {type: "region"}, ["DE", "US"]);
  out.lang = dn(["en"], {type: "language"}, ["de", "en-US", "fr-CA", "zh-Hant", "pt-BR", "es-419", "xx", "ja"]);
  out.langDe = dn(["de"], {type: "language"}, ["de", "en", "fr"]);
  out.script = dn(["en"], {type: "script"}, ["Latn", "Cyrl", "Hans"]);
  out.currency = dn(["en"], {type: "currency"}, ["USD", "EUR", "JPY", "XYZ"]);
  out.fallback = [c(() => new Intl.DisplayNames(["en"], {type: "region", fallback: "none"}).of("ZZ")), c(() => new Intl.DisplayNames(["en"], {type: "region"}).of("QQ"))];
  out.errs = [c(() => new Intl.DisplayNames(["en"])), c(() => new Intl.DisplayNames(["en"], {type: "region"}).of("x")), c(() => new Intl.DisplayNames(["en"], {type: "bogus"})), c(() => Intl.DisplayNames(["en"], {type: "region"}))];
  out.ro = new Intl.DisplayNames(["en-US"], {type: "region"}).resolvedOptions();
  out.dialect = dn(["en"], {type: "language", languageDisplay: "standard"}, ["en-US", "en-GB"]);
  return Response.json(out);
  }
}
export default { fetch(request, env) { return env.OBJ.get(env.OBJ.idFromName("a")).fetch(request); } };
