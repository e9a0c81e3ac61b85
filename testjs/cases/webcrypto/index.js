// crypto.subtle as workerd has it, with fixed keys (made once with Node's
// WebCrypto, below): importKey/exportKey in every format, sign/verify,
// encrypt/decrypt, wrapKey/unwrapKey, deriveBits/deriveKey, generateKey,
// CryptoKey's shape and the errors. Deterministic outputs (HMAC, RSASSA-PKCS1,
// Ed25519, AES, AES-KW, ECDH, X25519, PBKDF2, HKDF) are in the transcript as
// hex; random ones (ECDSA, RSA-PSS, RSA-OAEP, generated keys) are checked by
// round trip and against signatures Node made. A Durable Object keeps an
// imported key's JWK in SQLite and signs with it.
import { DurableObject } from "cloudflare:workers";

const KEYS = {"rsa": {"pkcs8": "MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQDAbDaLFBRdAT+ieyHH3aUttl08dRSBXjSHLX9Yw18zHIWUuY2fZcwysMOP3cpZ5c2ZEZ8c/z0mQ/JXYIWraWbZUR/mXctkmWtnv1KnJqk3pWf1ntuDc5a25W1cvLnS3ldiDfNrmQAqRZxFgCifnu2mGbk6c5VMQmoQp+tBMe/OhpRvX/3uJYTU3oXVGcxN2aZ2ezGxF0m4xdCQW9lyumgJTuqFblWcs8sd3EhvSJ73VzcLYzGICjJICRcl0Zo7KUJnAucRESDUw5pxIgYKSE1VRp8ZhVJhbrdonvmkJ2tcyXPcAVAjml8hXsPHnlFNvUBCtcVsbb+8iBrWtkavsPlVAgMBAAECggEACVW2l6ypCDyv75v1mZKWbs9IBU97Z9iVcnFcmjEa2d8/rmVfX3o6xm1uL06H1dtLdr+KGTKwrr3hGygNlAaQUhPuGOjincYWQHmMSEZHM0c3nIzRArba0D31E5NRmHnngf7smNhapQes0G+qiNksQkCWjHq1pXYbWyTU9DFjUYDULNGhHxD/EohNXEiH4nDGQ+r8L6bWia6jBR8pvPLw7bPFHBfidvcP4Hs/K2wE12r+pXfAaKqZBSpcJmcCoEwx7eaynnSSCaEahRBzCJ850o/TWfGaq7fSLI6+BYN4IZvGuZ1j9LH9fBcQGxY/7/swCiKPX4a5PfKOvLUChwGLAQKBgQD7sDohzyCT4yug8iCyqv5p1UVcq7qeWho3Q5UteXc69DqWc14OvO2LwimTiwwXmXWsAyHNP2eKhR6MVg8XicU4EIYDzveiTjQgQZ40tYGVYfPMYWAR/31C1a+mkFE7sm77cUlgIQfqf5TO2KxUrvHfSpNX4TjUNyNYivJSmDuANQKBgQDDuBPvf0/QSntzhV0la9XCIT5pnBESm7eey3I3sZk8KxXtVohr5goVvUBlcejfxPW4uvpUTp7DDMavd6GTVfYV3w2RMisPxIXNiYMO7FkDtcfn/sPhUPDR5J2hbgGkVSuwL43HlQP5bg0KgCy81HADg2LGsweNXa+/nhPInAr4oQKBgFYg8VO+iLxzAewaz5u0rklTRWA4GC22UcBVrUgZh/axuxbfNfG/L18jO40VCTdOOZl6nOea6fjaIyENFi8M42OTK/lDqzRspKPhMJ2C+2w+T+rB69lc3+WuMGTEgDf4kMgU9XIi+42AyVCbjyWPlI+/+noZRZRBpiPXsKMZG0t9AoGAEF5PxILoQOpJwtKPhLatDOxM1PZJcz30sGIhbkj7IM4VqmDHTgbSJxlJznIlYLmPN2Dj2LMuke96mmgt6i2RRCkAcHk6ornz2sm6XUAk/atxSZTD+w8S5Oryx/J0TrMU0UpY2C09RNoQWyV3GF/H8nNFioqkgg0oyqTE0M1EGaECgYABV6YqkcG/pLDSqeKqrdHFdir7iHrxZRmH/vphJ/2cnnBnjURiYWyb3rR0YR+Zmy4bhYS818TTaVDT9VVwH0I3xyX+lG2vnlsPkUf3CJRzoZX712biy74J5dZZb/K6ECiEORwemCs2IaSF1VhnxpcP7Z2LdRoFoUTpJjyNP3fPZQ==", "spki": "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwGw2ixQUXQE/onshx92lLbZdPHUUgV40hy1/WMNfMxyFlLmNn2XMMrDDj93KWeXNmRGfHP89JkPyV2CFq2lm2VEf5l3LZJlrZ79SpyapN6Vn9Z7bg3OWtuVtXLy50t5XYg3za5kAKkWcRYAon57tphm5OnOVTEJqEKfrQTHvzoaUb1/97iWE1N6F1RnMTdmmdnsxsRdJuMXQkFvZcrpoCU7qhW5VnLPLHdxIb0ie91c3C2MxiAoySAkXJdGaOylCZwLnEREg1MOacSIGCkhNVUafGYVSYW63aJ75pCdrXMlz3AFQI5pfIV7Dx55RTb1AQrXFbG2/vIga1rZGr7D5VQIDAQAB", "jwk": {"kty": "RSA", "n": "wGw2ixQUXQE_onshx92lLbZdPHUUgV40hy1_WMNfMxyFlLmNn2XMMrDDj93KWeXNmRGfHP89JkPyV2CFq2lm2VEf5l3LZJlrZ79SpyapN6Vn9Z7bg3OWtuVtXLy50t5XYg3za5kAKkWcRYAon57tphm5OnOVTEJqEKfrQTHvzoaUb1_97iWE1N6F1RnMTdmmdnsxsRdJuMXQkFvZcrpoCU7qhW5VnLPLHdxIb0ie91c3C2MxiAoySAkXJdGaOylCZwLnEREg1MOacSIGCkhNVUafGYVSYW63aJ75pCdrXMlz3AFQI5pfIV7Dx55RTb1AQrXFbG2_vIga1rZGr7D5VQ", "e": "AQAB", "d": "CVW2l6ypCDyv75v1mZKWbs9IBU97Z9iVcnFcmjEa2d8_rmVfX3o6xm1uL06H1dtLdr-KGTKwrr3hGygNlAaQUhPuGOjincYWQHmMSEZHM0c3nIzRArba0D31E5NRmHnngf7smNhapQes0G-qiNksQkCWjHq1pXYbWyTU9DFjUYDULNGhHxD_EohNXEiH4nDGQ-r8L6bWia6jBR8pvPLw7bPFHBfidvcP4Hs_K2wE12r-pXfAaKqZBSpcJmcCoEwx7eaynnSSCaEahRBzCJ850o_TWfGaq7fSLI6-BYN4IZvGuZ1j9LH9fBcQGxY_7_swCiKPX4a5PfKOvLUChwGLAQ", "p": "-7A6Ic8gk-MroPIgsqr-adVFXKu6nloaN0OVLXl3OvQ6lnNeDrzti8Ipk4sMF5l1rAMhzT9nioUejFYPF4nFOBCGA873ok40IEGeNLWBlWHzzGFgEf99QtWvppBRO7Ju-3FJYCEH6n-UztisVK7x30qTV-E41DcjWIryUpg7gDU", "q": "w7gT739P0Ep7c4VdJWvVwiE-aZwREpu3nstyN7GZPCsV7VaIa-YKFb1AZXHo38T1uLr6VE6ewwzGr3ehk1X2Fd8NkTIrD8SFzYmDDuxZA7XH5_7D4VDw0eSdoW4BpFUrsC-Nx5UD-W4NCoAsvNRwA4NixrMHjV2vv54TyJwK-KE", "dp": "ViDxU76IvHMB7BrPm7SuSVNFYDgYLbZRwFWtSBmH9rG7Ft818b8vXyM7jRUJN045mXqc55rp-NojIQ0WLwzjY5Mr-UOrNGyko-EwnYL7bD5P6sHr2Vzf5a4wZMSAN_iQyBT1ciL7jYDJUJuPJY-Uj7_6ehlFlEGmI9ewoxkbS30", "dq": "EF5PxILoQOpJwtKPhLatDOxM1PZJcz30sGIhbkj7IM4VqmDHTgbSJxlJznIlYLmPN2Dj2LMuke96mmgt6i2RRCkAcHk6ornz2sm6XUAk_atxSZTD-w8S5Oryx_J0TrMU0UpY2C09RNoQWyV3GF_H8nNFioqkgg0oyqTE0M1EGaE", "qi": "AVemKpHBv6Sw0qniqq3RxXYq-4h68WUZh_76YSf9nJ5wZ41EYmFsm960dGEfmZsuG4WEvNfE02lQ0_VVcB9CN8cl_pRtr55bD5FH9wiUc6GV-9dm4su-CeXWWW_yuhAohDkcHpgrNiGkhdVYZ8aXD-2di3UaBaFE6SY8jT93z2U"}}, "P-256": {"pkcs8": "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgOq/P+6BwTb8AbDalFr2mfrMEJPP2NHb/DQ0wjKQbVqyhRANCAATi5b5Ro1KGUX9JGNTMCzlwlX2xxjcsCOHZwN9hfFf2MrInGMxaonAwG7COPPX0sdD0bPaIMC7j2WNyzv7byHfx", "spki": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE4uW+UaNShlF/SRjUzAs5cJV9scY3LAjh2cDfYXxX9jKyJxjMWqJwMBuwjjz19LHQ9Gz2iDAu49ljcs7+28h38Q==", "jwk": {"kty": "EC", "x": "4uW-UaNShlF_SRjUzAs5cJV9scY3LAjh2cDfYXxX9jI", "y": "sicYzFqicDAbsI489fSx0PRs9ogwLuPZY3LO_tvId_E", "crv": "P-256", "d": "Oq_P-6BwTb8AbDalFr2mfrMEJPP2NHb_DQ0wjKQbVqw"}}, "P-384": {"pkcs8": "MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDDnHCyFQev6B7/1IyVI14+iWauT7DOJPNH9TGLJcoK5smGvC4P3vW+mSe3WS7VUrLahZANiAAR9x0opet3JDZGa5sekShDCzigEmzlXo4rq5d2QcnQgnd175oMqp5FYFV0E88f/Gzy8W1kELCITUZqJlI7kUjqwD3QI7hhUa7Namb88jq/nWsvBZSwN5j2lukZUDnMo5Wc=", "spki": "MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAEfcdKKXrdyQ2RmubHpEoQws4oBJs5V6OK6uXdkHJ0IJ3de+aDKqeRWBVdBPPH/xs8vFtZBCwiE1GaiZSO5FI6sA90CO4YVGuzWpm/PI6v51rLwWUsDeY9pbpGVA5zKOVn", "jwk": {"kty": "EC", "x": "fcdKKXrdyQ2RmubHpEoQws4oBJs5V6OK6uXdkHJ0IJ3de-aDKqeRWBVdBPPH_xs8", "y": "vFtZBCwiE1GaiZSO5FI6sA90CO4YVGuzWpm_PI6v51rLwWUsDeY9pbpGVA5zKOVn", "crv": "P-384", "d": "5xwshUHr-ge_9SMlSNePolmrk-wziTzR_UxiyXKCubJhrwuD971vpknt1ku1VKy2"}}, "P-521": {"pkcs8": "MIHuAgEAMBAGByqGSM49AgEGBSuBBAAjBIHWMIHTAgEBBEIBC/+heXGQIiMGwZFv+Sz/IRUdfzkt9qEPPFndK47Ar+jgWjjTrIGjJpGsK7E8fD18+7UYoM0kw29Yd4Lko1Hzj1ShgYkDgYYABACngv5JSFw5G2siw56uiXRGFX4kuKPy81C96xTVEnRSLiWqBByeC/BJ49xm9BoNZXUd7eeXPLmmbQ9XRfVz/QSFvgFMLcVpHSkqjU7dK2gWD3CiMFvoiuVzYgRkywRlasKj7uWdObdqdU0qwYLHK+nYzevCUvq8DQRJateBZfrjCM/Rqg==", "spki": "MIGbMBAGByqGSM49AgEGBSuBBAAjA4GGAAQAp4L+SUhcORtrIsOerol0RhV+JLij8vNQvesU1RJ0Ui4lqgQcngvwSePcZvQaDWV1He3nlzy5pm0PV0X1c/0Ehb4BTC3FaR0pKo1O3StoFg9wojBb6Irlc2IEZMsEZWrCo+7lnTm3anVNKsGCxyvp2M3rwlL6vA0ESWrXgWX64wjP0ao=", "jwk": {"kty": "EC", "x": "AKeC_klIXDkbayLDnq6JdEYVfiS4o_LzUL3rFNUSdFIuJaoEHJ4L8Enj3Gb0Gg1ldR3t55c8uaZtD1dF9XP9BIW-", "y": "AUwtxWkdKSqNTt0raBYPcKIwW-iK5XNiBGTLBGVqwqPu5Z05t2p1TSrBgscr6djN68JS-rwNBElq14Fl-uMIz9Gq", "crv": "P-521", "d": "AQv_oXlxkCIjBsGRb_ks_yEVHX85LfahDzxZ3SuOwK_o4Fo406yBoyaRrCuxPHw9fPu1GKDNJMNvWHeC5KNR849U"}}, "ecdhB": {"pkcs8": "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgE+4nXhogIr9bkfEDL2i8S5nX8XBxMj0lBqfO00Iy/hahRANCAARlNflkLCplDK2tMGrD02BBV+6NZaUJ5ABaMmeWXdnv/ETD7WQGk7B/5EYe5pt+3kmqJdDTK5j74zswALDiMKTJ", "spki": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEZTX5ZCwqZQytrTBqw9NgQVfujWWlCeQAWjJnll3Z7/xEw+1kBpOwf+RGHuabft5JqiXQ0yuY++M7MACw4jCkyQ==", "jwk": {"kty": "EC", "x": "ZTX5ZCwqZQytrTBqw9NgQVfujWWlCeQAWjJnll3Z7_w", "y": "RMPtZAaTsH_kRh7mm37eSaol0NMrmPvjOzAAsOIwpMk", "crv": "P-256", "d": "E-4nXhogIr9bkfEDL2i8S5nX8XBxMj0lBqfO00Iy_hY"}}, "ed": {"pkcs8": "MC4CAQAwBQYDK2VwBCIEIGFyaChWtzaZF1waXxKoaAnLfZ1mhus7ndt8DkdtNL29", "spki": "MCowBQYDK2VwAyEAHvWnQgudUsGEVpFlttuCrHf+yyNRR48rzFew5GfCvrI=", "jwk": {"crv": "Ed25519", "d": "YXJoKFa3NpkXXBpfEqhoCct9nWaG6zud23wOR200vb0", "x": "HvWnQgudUsGEVpFlttuCrHf-yyNRR48rzFew5GfCvrI", "kty": "OKP"}}, "xA": {"pkcs8": "MC4CAQAwBQYDK2VuBCIEIBgXvg+gJt08yH1Dq59fjUdLS6vyQjpfuAKWDtqB0t5a", "spki": "MCowBQYDK2VuAyEAg85YqBPJHiVZValZufZYKQwBZ7ZHT0ZMlYNztdMTS1U=", "jwk": {"crv": "X25519", "d": "GBe-D6Am3TzIfUOrn1-NR0tLq_JCOl-4ApYO2oHS3lo", "x": "g85YqBPJHiVZValZufZYKQwBZ7ZHT0ZMlYNztdMTS1U", "kty": "OKP"}}, "xB": {"pkcs8": "MC4CAQAwBQYDK2VuBCIEICBrv4EKkW00y5+ov4g8fkNr3QRCakdrrpP9tGTezGFm", "spki": "MCowBQYDK2VuAyEA5SbxIJW4ZisdlEluOrm7vjCjG1QEZmdLg+B/FhneGFM=", "jwk": {"crv": "X25519", "d": "IGu_gQqRbTTLn6i_iDx-Q2vdBEJqR2uuk_20ZN7MYWY", "x": "5SbxIJW4ZisdlEluOrm7vjCjG1QEZmdLg-B_FhneGFM", "kty": "OKP"}}};
const VEC = {"ecdsa-P-256": "T0cuHkUs6edHTL9iqFNcv5XvIKZCdKP2nGoSW/iAZ11sfh1OMzi1G+DaXUtIqGf+m9VzT7vFFzoI/q+y97BLkA==", "ecdsa-P-384": "W0wQ+hg9PfGJKQ3XvtvbCM8lJDYFKbUWlzDEjsI24JJx6hy82HLkXLjYGVdLJV/QNvxbo/G6Y4NhKSJVcM7w8FXIuP8nxXqpr1meydm/r1DXI5/SoTb5Rqn1bqO9NWGd", "ecdsa-P-521": "AZ6Md3Q02h8xhruP8BufS6aLMkX0XfAIYV/WUcl6on+Xsc/4ePOqnaiS3oWZhuYv87QjRv6NMhGoKYuP2/gBSL4BABA6hrMNUupP8K9SGJaxq4xRLHvS4HX/0s0suNRtOBHPPN2si35CAfmThH+MXgWqj2aZqVpZwltk0hSwuyZ1pkNb", "pss32": "mW1tWLIUSAk103tYcqg6PnNcUEdAGm5h3PKEh1pXZiJ0UaUNMsNhjVV415BFbRQs71HokxwexvinykAXwfiJNMaDXcJdNkmBdCQpjPbitQSEvUoYsLfaLEz6WIMtQMZIGo8d1MaqPZmjyFsdcLSZFcDw5Lz70K5IuLFR5StLypIxBVgat1zP31RZwqpqKLQtQpaZa0sQ6/Ll+mb3nlL+eZiOrp4VkyiexEAjMsWSNkh3mFgJkzt+xcKf4lgJWKiVuWv22lpbeHUs7FLRO0sGGTRZirRKgAXWwF9LA8Zu6liRQU9f/fS51nXABSBqTMiGAOpm++JQNBocB8vETNrMeg==", "oaep": "K3+vyaBHbpJAe4iyHTkfSfYKOTieITdFFnMkBf3chA14Vqe05vfZPuNhsMPyiCBNfZ5WCH7A4+Kp6e9pXswp8A+8kzFoFUJqbDXYcuq6Ih+a2CXgz8HQ3r5Ds5LICo+6kyuBk1hO1jaBvK8Bm4f+9ELi/qtsUAxM3DMMP2vfng9kWZtIlL7DZi7fKWImJhXUJlUg4hTKsKvugU+AFRkehhtVKmv2E5QcEYj5m9HnWttj9OeBPi5puAypFYcJtfymQawFIzEyq4hSMTrRpLgHdMltwJ/WTo8DGoweVrrqRTTuBbNDnw4P1wstBKd45lq7x9aubVnpD3NnBchoaXk4PA=="};

const s = crypto.subtle;
const enc = new TextEncoder();
const MSG = enc.encode("cellhost webcrypto vector");
const b64d = (x) => Uint8Array.from(atob(x), (c) => c.charCodeAt(0));
const hex = (ab) => [...new Uint8Array(ab)].map((b) => b.toString(16).padStart(2, "0")).join("");
const bytes = (n, f = (i) => i) => Uint8Array.from({ length: n }, (_, i) => f(i) & 255);
const HASH = { "P-256": "SHA-256", "P-384": "SHA-384", "P-521": "SHA-512" };

async function t(f) {
  try {
    const v = await f();
    if (v instanceof ArrayBuffer) return "hex:" + hex(v);
    return v;
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
}
const pub = (jwk) => { const { d, p, q, dp, dq, qi, ...rest } = jwk; return rest; };
const shape = (k) => ({ type: k.type, extractable: k.extractable, algorithm: JSON.parse(JSON.stringify(k.algorithm)), usages: k.usages });
const sorted = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)));

async function api() {
  const hk = await s.importKey("raw", enc.encode("secret"), { name: "HMAC", hash: "SHA-256" }, true, ["sign", "verify"]);
  return {
    globals: [typeof CryptoKey, typeof SubtleCrypto, typeof Crypto, crypto instanceof Crypto, crypto.subtle instanceof SubtleCrypto, hk instanceof CryptoKey],
    tag: Object.prototype.toString.call(hk),
    own: Object.keys(hk),
    shape: shape(hk),
    sameAlgorithm: hk.algorithm === hk.algorithm,
    subtle: Object.getOwnPropertyNames(SubtleCrypto.prototype),
    ctor: await t(() => new CryptoKey()),
    ctor2: await t(() => new SubtleCrypto()),
    signNull: await t(() => s.sign("HMAC", null, MSG)),
    signPlain: await t(() => s.sign("HMAC", { type: "secret" }, MSG)),
    signString: await t(() => s.sign("HMAC", hk, "text")),
    noName: await t(() => s.sign({}, hk, MSG)),
    usagesString: await t(() => s.importKey("raw", MSG, { name: "HMAC", hash: "SHA-256" }, true, "sign")),
    rawObject: await t(() => s.importKey("raw", {}, { name: "HMAC", hash: "SHA-256" }, true, ["sign"])),
    jwkBuffer: await t(() => s.importKey("jwk", MSG, { name: "HMAC", hash: "SHA-256" }, true, ["sign"])),
    badFormat: await t(() => s.importKey("pem", MSG, "HMAC", true, ["sign"])),
    badAlg: await t(() => s.importKey("raw", MSG, "FOO", true, ["sign"])),
    genBad: await t(() => s.generateKey("PBKDF2", false, ["deriveBits"])),
    digest: await t(() => s.digest({ name: "sha-384" }, MSG)),
    digestMD5: await t(() => s.digest("MD5", MSG)),
    digestBad: await t(() => s.digest("SHA-3", MSG)),
    clone: await t(() => structuredClone(hk)),
    cloneInMap: await t(() => structuredClone(new Map([["k", hk]]))),
    cryptoShape: {
      own: Object.getOwnPropertyNames(crypto),
      proto: Object.getOwnPropertyNames(Object.getPrototypeOf(crypto)).sort(),
      subtleOwn: Object.getOwnPropertyNames(crypto.subtle),
      same: crypto.subtle === crypto.subtle,
      str: [String(crypto), String(crypto.subtle)],
      ctorName: [crypto.constructor.name, crypto.subtle.constructor.name],
      json: JSON.stringify(crypto),
      keyProto: Object.getOwnPropertyNames(CryptoKey.prototype).sort(),
    },
    detachedRandom: await t(() => { const g = crypto.getRandomValues; return g(new Uint8Array(2)).length; }),
    detachedSubtle: await t(() => { const d = crypto.subtle.digest; try { return d("SHA-1", MSG).then(() => "resolved", (e) => "rejected " + e.name); } catch (e) { return "threw " + e.name; } }),
    cloneCrypto: await t(() => structuredClone(crypto)),
    pairKeys: Object.keys(await s.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign"])),
  };
}

async function hmac() {
  const out = {};
  for (const h of ["SHA-1", "SHA-256", "SHA-384", "SHA-512"]) {
    const k = await s.importKey("raw", enc.encode("key material"), { name: "HMAC", hash: { name: h } }, true, ["sign", "verify"]);
    const sig = await s.sign("HMAC", k, MSG);
    out[h] = {
      sig: hex(sig),
      ok: await s.verify({ name: "hmac" }, k, sig, MSG),
      bad: await s.verify("HMAC", k, sig.slice(1), MSG),
      jwk: sorted(await s.exportKey("jwk", k)),
      algorithm: k.algorithm,
    };
  }
  const jk = await s.importKey("jwk", { kty: "oct", k: "AAECAwQFBgcICQoLDA0ODw", alg: "HS256", ext: true }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]);
  out.jwkImport = { shape: shape(jk), sig: await t(() => s.sign("HMAC", jk, MSG)) };
  out.length = shape(await s.importKey("raw", bytes(16), { name: "HMAC", hash: "SHA-1", length: 125 }, true, ["sign"]));
  out.lengthBad = await t(() => s.importKey("raw", bytes(16), { name: "HMAC", hash: "SHA-1", length: 120 }, true, ["sign"]));
  out.algMismatch = await t(() => s.importKey("jwk", { kty: "oct", k: "AAECAwQFBgcICQoLDA0ODw", alg: "HS384" }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]));
  out.kty = await t(() => s.importKey("jwk", { kty: "RSA", k: "AAEC" }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]));
  out.extFalse = await t(() => s.importKey("jwk", { kty: "oct", k: "AAEC", ext: false }, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]));
  out.noHash = await t(() => s.importKey("raw", MSG, "HMAC", true, ["sign"]));
  out.badUsage = await t(() => s.importKey("raw", MSG, { name: "HMAC", hash: "SHA-256" }, true, ["encrypt"]));
  out.noUsage = await t(() => s.importKey("raw", MSG, { name: "HMAC", hash: "SHA-256" }, true, []));
  out.spki = await t(async () => s.exportKey("spki", await s.importKey("raw", MSG, { name: "HMAC", hash: "SHA-256" }, true, ["sign"])));
  out.wrongUsage = await t(async () => s.verify("HMAC", await s.importKey("raw", MSG, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]), MSG, MSG));
  out.wrongAlg = await t(async () => s.sign("ECDSA", await s.importKey("raw", MSG, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]), MSG));
  out.gen = await t(async () => { const k = await s.generateKey({ name: "HMAC", hash: "SHA-384" }, true, ["sign"]); return [shape(k), (await s.exportKey("raw", k)).byteLength]; });
  out.genLen = await t(async () => { const k = await s.generateKey({ name: "HMAC", hash: "SHA-256", length: 100 }, true, ["sign"]); return [shape(k), (await s.exportKey("raw", k)).byteLength]; });
  out.genZero = await t(() => s.generateKey({ name: "HMAC", hash: "SHA-256", length: 0 }, true, ["sign"]));
  return out;
}

async function aes() {
  const out = {};
  const key = bytes(32, (i) => i * 7 + 1);
  const iv16 = bytes(16, (i) => 255 - i);
  const iv12 = iv16.slice(0, 12);
  const gcm = await s.importKey("raw", key, "AES-GCM", true, ["encrypt", "decrypt"]);
  const ct = await s.encrypt({ name: "AES-GCM", iv: iv12, additionalData: enc.encode("aad") }, gcm, MSG);
  out.gcm = {
    ct: hex(ct),
    pt: await t(async () => new TextDecoder().decode(await s.decrypt({ name: "AES-GCM", iv: iv12, additionalData: enc.encode("aad") }, gcm, ct))),
    badAad: await t(() => s.decrypt({ name: "AES-GCM", iv: iv12 }, gcm, ct)),
    tag96: await t(() => s.encrypt({ name: "AES-GCM", iv: iv16, tagLength: 96 }, gcm, MSG)),
    tag32rt: await t(async () => new TextDecoder().decode(await s.decrypt({ name: "AES-GCM", iv: iv16, tagLength: 32 }, gcm, await s.encrypt({ name: "AES-GCM", iv: iv16, tagLength: 32 }, gcm, MSG)))),
    tag33: await t(() => s.encrypt({ name: "AES-GCM", iv: iv12, tagLength: 33 }, gcm, MSG)),
    noIv: await t(() => s.encrypt({ name: "AES-GCM" }, gcm, MSG)),
    emptyIv: await t(() => s.encrypt({ name: "AES-GCM", iv: new Uint8Array(0) }, gcm, MSG)),
    short: await t(() => s.decrypt({ name: "AES-GCM", iv: iv12 }, gcm, bytes(8))),
    empty: await t(() => s.encrypt({ name: "AES-GCM", iv: iv12 }, gcm, new Uint8Array(0))),
    jwk: sorted(await s.exportKey("jwk", gcm)),
  };
  const cbc = await s.importKey("jwk", { kty: "oct", k: "AAECAwQFBgcICQoLDA0ODw", alg: "A128CBC" }, "AES-CBC", false, ["encrypt", "decrypt"]);
  const cbcCt = await s.encrypt({ name: "AES-CBC", iv: iv16 }, cbc, MSG);
  out.cbc = {
    shape: shape(cbc),
    ct: hex(cbcCt),
    block: await t(() => s.encrypt({ name: "AES-CBC", iv: iv16 }, cbc, bytes(16))),
    pt: await t(async () => new TextDecoder().decode(await s.decrypt({ name: "AES-CBC", iv: iv16 }, cbc, cbcCt))),
    badPad: await t(() => s.decrypt({ name: "AES-CBC", iv: iv16 }, cbc, cbcCt.slice(0, 16))),
    iv12: await t(() => s.encrypt({ name: "AES-CBC", iv: iv12 }, cbc, MSG)),
    iv12d: await t(() => s.decrypt({ name: "AES-CBC", iv: iv12 }, cbc, cbcCt)),
    export: await t(() => s.exportKey("raw", cbc)),
  };
  const ctr = await s.importKey("raw", key.slice(0, 24), { name: "AES-CTR" }, true, ["encrypt", "decrypt"]);
  const counter = bytes(16, (i) => (i < 15 ? 0 : 254));
  out.ctr = {
    ct: await t(() => s.encrypt({ name: "AES-CTR", counter, length: 64 }, ctr, bytes(64))),
    wrap: await t(() => s.encrypt({ name: "AES-CTR", counter, length: 1 }, ctr, bytes(32))),
    repeat: await t(() => s.encrypt({ name: "AES-CTR", counter, length: 1 }, ctr, bytes(48))),
    rt: await t(async () => hex(await s.decrypt({ name: "AES-CTR", counter, length: 8 }, ctr, await s.encrypt({ name: "AES-CTR", counter, length: 8 }, ctr, MSG))) === hex(MSG)),
    noCounter: await t(() => s.encrypt({ name: "AES-CTR", length: 8 }, ctr, MSG)),
    shortCounter: await t(() => s.encrypt({ name: "AES-CTR", counter: iv12, length: 8 }, ctr, MSG)),
    zeroLen: await t(() => s.encrypt({ name: "AES-CTR", counter, length: 0 }, ctr, MSG)),
    algorithm: ctr.algorithm,
  };
  out.badLen = await t(() => s.importKey("raw", bytes(20), "AES-GCM", true, ["encrypt"]));
  out.badUsage = await t(() => s.importKey("raw", bytes(16), "AES-KW", true, ["encrypt"]));
  out.jwkAlg = await t(() => s.importKey("jwk", { kty: "oct", k: "AAECAwQFBgcICQoLDA0ODw", alg: "A256GCM" }, "AES-GCM", true, ["encrypt"]));
  out.jwkOps = await t(() => s.importKey("jwk", { kty: "oct", k: "AAECAwQFBgcICQoLDA0ODw", key_ops: ["encrypt"] }, "AES-GCM", true, ["decrypt"]));
  out.pkcs8 = await t(() => s.exportKey("pkcs8", gcm));
  out.gen = await t(async () => { const k = await s.generateKey({ name: "AES-CBC", length: 192 }, true, ["encrypt", "decrypt"]); const c = await s.encrypt({ name: "AES-CBC", iv: iv16 }, k, MSG); return [shape(k), hex(await s.decrypt({ name: "AES-CBC", iv: iv16 }, k, c)) === hex(MSG), (await s.exportKey("raw", k)).byteLength]; });
  out.genBad = await t(() => s.generateKey({ name: "AES-GCM", length: 100 }, true, ["encrypt"]));
  out.genNoLen = await t(() => s.generateKey({ name: "AES-GCM" }, true, ["encrypt"]));
  out.genNoUsage = await t(() => s.generateKey({ name: "AES-GCM", length: 128 }, true, []));
  return out;
}

async function rsa() {
  const out = {};
  const R = KEYS.rsa;
  const priv = await s.importKey("pkcs8", b64d(R.pkcs8), { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, ["sign"]);
  const pubk = await s.importKey("spki", b64d(R.spki), { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, ["verify"]);
  const sig = await s.sign("RSASSA-PKCS1-v1_5", priv, MSG);
  out.pkcs1 = {
    shapes: [shape(priv), shape(pubk)],
    sig: hex(sig),
    ok: await s.verify("RSASSA-PKCS1-v1_5", pubk, sig, MSG),
    bad: await s.verify("RSASSA-PKCS1-v1_5", pubk, sig, MSG.slice(1)),
    jwkPriv: sorted(await s.exportKey("jwk", priv)),
    jwkPub: sorted(await s.exportKey("jwk", pubk)),
    spki: hex(await s.exportKey("spki", pubk)) === hex(b64d(R.spki)),
    pkcs8FromPriv: await t(() => s.exportKey("spki", priv)),
    spkiFromPub: await t(() => s.exportKey("pkcs8", pubk)),
    raw: await t(() => s.exportKey("raw", pubk)),
    signWithPublic: await t(() => s.sign("RSASSA-PKCS1-v1_5", pubk, MSG)),
  };
  const jpriv = await s.importKey("jwk", R.jwk, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
  out.jwkSig = hex(await s.sign("RSASSA-PKCS1-v1_5", jpriv, MSG)) === hex(sig);
  const jpub = await s.importKey("jwk", pub(R.jwk), { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, ["verify"]);
  out.jwkPubShape = shape(jpub);
  out.jwkAlg = await t(() => s.importKey("jwk", R.jwk, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-384" }, false, ["sign"]));
  out.pssImport = await t(() => s.importKey("jwk", R.jwk, { name: "RSA-PSS", hash: "SHA-256" }, false, ["sign"]));
  const pss = await s.importKey("pkcs8", b64d(R.pkcs8), { name: "RSA-PSS", hash: "SHA-256" }, true, ["sign"]);
  const psp = await s.importKey("spki", b64d(R.spki), { name: "RSA-PSS", hash: "SHA-256" }, true, ["verify"]);
  out.pss = {
    node: await s.verify({ name: "RSA-PSS", saltLength: 32 }, psp, b64d(VEC.pss32), MSG),
    rt: await s.verify({ name: "RSA-PSS", saltLength: 20 }, psp, await s.sign({ name: "RSA-PSS", saltLength: 20 }, pss, MSG), MSG),
    noSalt: await t(() => s.sign({ name: "RSA-PSS" }, pss, MSG)),
    bigSalt: await t(() => s.sign({ name: "RSA-PSS", saltLength: 300 }, pss, MSG)),
    jwk: (await s.exportKey("jwk", psp)).alg,
  };
  const oaepPriv = await s.importKey("pkcs8", b64d(R.pkcs8), { name: "RSA-OAEP", hash: "SHA-256" }, true, ["decrypt", "unwrapKey"]);
  const oaepPub = await s.importKey("spki", b64d(R.spki), { name: "RSA-OAEP", hash: "SHA-256" }, true, ["encrypt", "wrapKey"]);
  out.oaep = {
    node: await t(async () => new TextDecoder().decode(await s.decrypt({ name: "RSA-OAEP", label: enc.encode("lbl") }, oaepPriv, b64d(VEC.oaep)))),
    badLabel: await t(() => s.decrypt({ name: "RSA-OAEP" }, oaepPriv, b64d(VEC.oaep))),
    rt: await t(async () => new TextDecoder().decode(await s.decrypt("RSA-OAEP", oaepPriv, await s.encrypt("RSA-OAEP", oaepPub, MSG)))),
    withPriv: await t(() => s.encrypt("RSA-OAEP", oaepPriv, MSG)),
    jwk: [(await s.exportKey("jwk", oaepPub)).alg, (await s.exportKey("jwk", await s.importKey("spki", b64d(R.spki), { name: "RSA-OAEP", hash: "SHA-1" }, true, ["encrypt"]))).alg],
    badUsage: await t(() => s.importKey("spki", b64d(R.spki), { name: "RSA-OAEP", hash: "SHA-256" }, true, ["sign"])),
    privUsage: await t(() => s.importKey("pkcs8", b64d(R.pkcs8), { name: "RSA-OAEP", hash: "SHA-256" }, true, ["encrypt"])),
  };
  out.badSpki = await t(() => s.importKey("spki", MSG, { name: "RSA-PSS", hash: "SHA-256" }, true, ["verify"]));
  out.badPkcs8 = await t(() => s.importKey("pkcs8", MSG, { name: "RSA-PSS", hash: "SHA-256" }, true, ["sign"]));
  out.gen = await t(async () => {
    const p = await s.generateKey({ name: "RSA-OAEP", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-384" }, true, ["encrypt", "decrypt", "wrapKey", "unwrapKey"]);
    const c = await s.encrypt({ name: "RSA-OAEP" }, p.publicKey, MSG);
    return [shape(p.publicKey), shape(p.privateKey), hex(await s.decrypt({ name: "RSA-OAEP" }, p.privateKey, c)) === hex(MSG)];
  });
  out.genExp = await t(() => s.generateKey({ name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 0]), hash: "SHA-256" }, true, ["sign"]));
  out.genNoExp = await t(() => s.generateKey({ name: "RSA-PSS", modulusLength: 2048, hash: "SHA-256" }, true, ["sign"]));
  out.genNoPriv = await t(() => s.generateKey({ name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["verify"]));
  return out;
}

async function ec() {
  const out = {};
  for (const c of ["P-256", "P-384", "P-521"]) {
    const E = KEYS[c];
    const priv = await s.importKey("pkcs8", b64d(E.pkcs8), { name: "ECDSA", namedCurve: c }, true, ["sign"]);
    const pubk = await s.importKey("spki", b64d(E.spki), { name: "ECDSA", namedCurve: c }, true, ["verify"]);
    const raw = await s.exportKey("raw", pubk);
    const fromRaw = await s.importKey("raw", raw, { name: "ECDSA", namedCurve: c }, true, ["verify"]);
    const jpriv = await s.importKey("jwk", E.jwk, { name: "ECDSA", namedCurve: c }, true, ["sign"]);
    const sig = await s.sign({ name: "ECDSA", hash: HASH[c] }, jpriv, MSG);
    out[c] = {
      shapes: [shape(priv), shape(pubk)],
      node: await s.verify({ name: "ECDSA", hash: HASH[c] }, fromRaw, b64d(VEC["ecdsa-" + c]), MSG),
      rt: await s.verify({ name: "ECDSA", hash: HASH[c] }, pubk, sig, MSG),
      sigLen: sig.byteLength,
      wrongHash: await s.verify({ name: "ECDSA", hash: "SHA-1" }, pubk, sig, MSG),
      shortSig: await s.verify({ name: "ECDSA", hash: HASH[c] }, pubk, sig.slice(2), MSG),
      raw: hex(raw).slice(0, 10) + "/" + raw.byteLength,
      jwkPub: sorted(await s.exportKey("jwk", pubk)),
      jwkPriv: sorted(await s.exportKey("jwk", priv)).d === E.jwk.d,
      spki: hex(await s.exportKey("spki", fromRaw)) === hex(b64d(E.spki)),
      rawPriv: await t(() => s.exportKey("raw", priv)),
    };
  }
  out.noHash = await t(async () => s.sign("ECDSA", await s.importKey("jwk", KEYS["P-256"].jwk, { name: "ECDSA", namedCurve: "P-256" }, true, ["sign"]), MSG));
  out.curveMismatch = await t(() => s.importKey("spki", b64d(KEYS["P-256"].spki), { name: "ECDSA", namedCurve: "P-384" }, true, ["verify"]));
  out.jwkCrv = await t(() => s.importKey("jwk", KEYS["P-256"].jwk, { name: "ECDSA", namedCurve: "P-384" }, true, ["sign"]));
  out.jwkAlg = await t(() => s.importKey("jwk", { ...KEYS["P-256"].jwk, alg: "ES384" }, { name: "ECDSA", namedCurve: "P-256" }, true, ["sign"]));
  out.badCurve = await t(() => s.importKey("raw", MSG, { name: "ECDSA", namedCurve: "P-192" }, true, ["verify"]));
  out.noCurve = await t(() => s.importKey("raw", MSG, { name: "ECDSA" }, true, ["verify"]));
  out.badRaw = await t(() => s.importKey("raw", MSG, { name: "ECDSA", namedCurve: "P-256" }, true, ["verify"]));
  out.wrongType = await t(() => s.importKey("spki", b64d(KEYS.rsa.spki), { name: "ECDSA", namedCurve: "P-256" }, true, ["verify"]));
  // ECDH: the ECDSA P-256 key and ecdhB
  const a = await s.importKey("pkcs8", b64d(KEYS["P-256"].pkcs8), { name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits", "deriveKey"]);
  const bPub = await s.importKey("spki", b64d(KEYS.ecdhB.spki), { name: "ECDH", namedCurve: "P-256" }, true, []);
  const bPriv = await s.importKey("jwk", KEYS.ecdhB.jwk, { name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
  const aPub = await s.importKey("spki", b64d(KEYS["P-256"].spki), { name: "ECDH", namedCurve: "P-256" }, true, []);
  const ab = await s.deriveBits({ name: "ECDH", public: bPub }, a, 256);
  out.ecdh = {
    shapes: [shape(a), shape(bPub)],
    bits: hex(ab),
    same: hex(await s.deriveBits({ name: "ECDH", public: aPub }, bPriv, null)) === hex(ab),
    short: await t(() => s.deriveBits({ name: "ECDH", public: bPub }, a, 12)),
    long: await t(() => s.deriveBits({ name: "ECDH", public: bPub }, a, 264)),
    key: await t(async () => { const k = await s.deriveKey({ name: "ECDH", public: bPub }, a, { name: "AES-GCM", length: 128 }, true, ["encrypt"]); return [shape(k), hex(await s.exportKey("raw", k))]; }),
    hmacKey: await t(async () => { const k = await s.deriveKey({ name: "ECDH", public: bPub }, a, { name: "HMAC", hash: "SHA-1", length: 256 }, true, ["sign"]); return [shape(k), hex(await s.exportKey("raw", k))]; }),
    pubUsage: await t(() => s.importKey("spki", b64d(KEYS.ecdhB.spki), { name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])),
    noPublic: await t(() => s.deriveBits({ name: "ECDH" }, a, 256)),
    privAsPublic: await t(() => s.deriveBits({ name: "ECDH", public: bPriv }, a, 256)),
    fromPublic: await t(() => s.deriveBits({ name: "ECDH", public: bPub }, bPub, 256)),
    jwkPub: sorted(await s.exportKey("jwk", bPub)),
    wrongUsage: await t(() => s.deriveKey({ name: "ECDH", public: aPub }, bPriv, { name: "AES-GCM", length: 128 }, true, ["encrypt"])),
    badDerived: await t(() => s.deriveKey({ name: "ECDH", public: bPub }, a, { name: "ECDSA", namedCurve: "P-256" }, true, ["sign"])),
  };
  out.gen = await t(async () => {
    const p = await s.generateKey({ name: "ECDSA", namedCurve: "P-384" }, false, ["sign", "verify"]);
    const sg = await s.sign({ name: "ECDSA", hash: "SHA-256" }, p.privateKey, MSG);
    return [shape(p.publicKey), shape(p.privateKey), await s.verify({ name: "ECDSA", hash: "SHA-256" }, p.publicKey, sg, MSG), await t(() => s.exportKey("pkcs8", p.privateKey))];
  });
  out.genEcdh = await t(async () => {
    const x = await s.generateKey({ name: "ECDH", namedCurve: "P-521" }, true, ["deriveBits"]);
    const y = await s.generateKey({ name: "ECDH", namedCurve: "P-521" }, true, ["deriveBits"]);
    const b1 = await s.deriveBits({ name: "ECDH", public: y.publicKey }, x.privateKey, null);
    const b2 = await s.deriveBits({ name: "ECDH", public: x.publicKey }, y.privateKey, null);
    return [shape(x.publicKey), shape(x.privateKey), b1.byteLength, hex(b1) === hex(b2)];
  });
  out.genBadCurve = await t(() => s.generateKey({ name: "ECDH", namedCurve: "curve25519" }, true, ["deriveBits"]));
  out.genBadUsage = await t(() => s.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["encrypt"]));
  return out;
}

async function okp() {
  const out = {};
  const E = KEYS.ed;
  const priv = await s.importKey("pkcs8", b64d(E.pkcs8), "Ed25519", true, ["sign"]);
  const pubk = await s.importKey("spki", b64d(E.spki), { name: "Ed25519" }, true, ["verify"]);
  const sig = await s.sign("Ed25519", priv, MSG);
  out.ed = {
    shapes: [shape(priv), shape(pubk)],
    sig: hex(sig),
    ok: await s.verify("Ed25519", pubk, sig, MSG),
    bad: await s.verify("Ed25519", pubk, sig, MSG.slice(1)),
    shortSig: await t(() => s.verify("Ed25519", pubk, sig.slice(1), MSG)),
    jwkPub: sorted(await s.exportKey("jwk", pubk)),
    jwkPriv: sorted(await s.exportKey("jwk", priv)).d === E.jwk.d,
    raw: hex(await s.exportKey("raw", pubk)),
    rawPriv: await t(() => s.exportKey("raw", priv)),
    pkcs8: hex(await s.exportKey("pkcs8", priv)) === hex(b64d(E.pkcs8)),
    jwkSig: hex(await s.sign("Ed25519", await s.importKey("jwk", E.jwk, "Ed25519", false, ["sign"]), MSG)) === hex(sig),
    rawImport: await t(async () => s.verify("Ed25519", await s.importKey("raw", await s.exportKey("raw", pubk), "Ed25519", false, ["verify"]), sig, MSG)),
    rawShort: await t(() => s.importKey("raw", bytes(31), "Ed25519", false, ["verify"])),
    jwkKty: await t(() => s.importKey("jwk", { ...E.jwk, kty: "EC" }, "Ed25519", false, ["sign"])),
    jwkCrv: await t(() => s.importKey("jwk", { ...E.jwk, crv: "Ed448" }, "Ed25519", false, ["sign"])),
  };
  const node = await s.importKey("pkcs8", b64d(E.pkcs8), { name: "NODE-ED25519", namedCurve: "NODE-ED25519" }, true, ["sign"]);
  const nodePub = await s.importKey("raw", await s.exportKey("raw", pubk), { name: "NODE-ED25519", namedCurve: "NODE-ED25519" }, true, ["verify"]);
  out.nodeEd = {
    shapes: [shape(node), shape(nodePub)],
    same: hex(await s.sign("NODE-ED25519", node, MSG)) === hex(sig),
    verify: await s.verify({ name: "NODE-ED25519" }, nodePub, sig, MSG),
    jwk: sorted(await s.exportKey("jwk", nodePub)),
    badCurve: await t(() => s.importKey("raw", bytes(32), { name: "NODE-ED25519", namedCurve: "Ed25519" }, true, ["verify"])),
  };
  const xa = await s.importKey("pkcs8", b64d(KEYS.xA.pkcs8), "X25519", true, ["deriveBits", "deriveKey"]);
  const xbPub = await s.importKey("spki", b64d(KEYS.xB.spki), "X25519", true, []);
  const xb = await s.importKey("jwk", KEYS.xB.jwk, { name: "X25519" }, true, ["deriveBits"]);
  const xaPub = await s.importKey("raw", await s.exportKey("raw", await s.importKey("spki", b64d(KEYS.xA.spki), "X25519", true, [])), "X25519", true, []);
  const bits = await s.deriveBits({ name: "X25519", public: xbPub }, xa, 256);
  out.x25519 = {
    shapes: [shape(xa), shape(xbPub)],
    bits: hex(bits),
    same: hex(await s.deriveBits({ name: "X25519", public: xaPub }, xb, null)) === hex(bits),
    long: await t(() => s.deriveBits({ name: "X25519", public: xbPub }, xa, 512)),
    key: await t(async () => hex(await s.exportKey("raw", await s.deriveKey({ name: "X25519", public: xbPub }, xa, { name: "HMAC", hash: "SHA-256", length: 128 }, true, ["sign"])))),
    mixed: await t(async () => s.deriveBits({ name: "X25519", public: await s.importKey("spki", b64d(KEYS.ecdhB.spki), { name: "ECDH", namedCurve: "P-256" }, true, []) }, xa, 256)),
    jwkPub: sorted(await s.exportKey("jwk", xbPub)),
    pubUsage: await t(() => s.importKey("spki", b64d(KEYS.xB.spki), "X25519", true, ["deriveBits"])),
    pkcs8: hex(await s.exportKey("pkcs8", xa)) === hex(b64d(KEYS.xA.pkcs8)),
  };
  out.gen = await t(async () => {
    const p = await s.generateKey("Ed25519", true, ["sign", "verify"]);
    const x = await s.generateKey({ name: "X25519" }, true, ["deriveKey", "deriveBits"]);
    const n = await s.generateKey({ name: "NODE-ED25519", namedCurve: "NODE-ED25519" }, true, ["sign", "verify"]);
    const sg = await s.sign("Ed25519", p.privateKey, MSG);
    return [shape(p.publicKey), shape(p.privateKey), await s.verify("Ed25519", p.publicKey, sg, MSG), shape(x.publicKey), shape(x.privateKey), shape(n.privateKey), (await s.exportKey("raw", x.publicKey)).byteLength];
  });
  out.genNoPriv = await t(() => s.generateKey("Ed25519", true, ["verify"]));
  return out;
}

async function kdf() {
  const out = {};
  const pw = await s.importKey("raw", enc.encode("password"), "PBKDF2", false, ["deriveBits", "deriveKey"]);
  out.pbkdf2 = {
    shape: shape(pw),
    sha1: await t(() => s.deriveBits({ name: "PBKDF2", hash: "SHA-1", salt: enc.encode("salt"), iterations: 2 }, pw, 160)),
    sha256: await t(() => s.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("salt"), iterations: 4096 }, pw, 256)),
    sha512: await t(() => s.deriveBits({ name: "PBKDF2", hash: { name: "SHA-512" }, salt: new Uint8Array(0), iterations: 1 }, pw, 512)),
    key: await t(async () => { const k = await s.deriveKey({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("salt"), iterations: 1000 }, pw, { name: "AES-KW", length: 256 }, true, ["wrapKey"]); return [shape(k), hex(await s.exportKey("raw", k))]; }),
    hmacKey: await t(async () => { const k = await s.deriveKey({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("salt"), iterations: 1000 }, pw, { name: "HMAC", hash: "SHA-256" }, true, ["sign"]); return [shape(k), (await s.exportKey("raw", k)).byteLength]; }),
    nullLen: await t(() => s.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("salt"), iterations: 1 }, pw, null)),
    odd: await t(() => s.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("salt"), iterations: 1 }, pw, 12)),
    zeroIter: await t(() => s.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("salt"), iterations: 0 }, pw, 128)),
    noSalt: await t(() => s.deriveBits({ name: "PBKDF2", hash: "SHA-256", iterations: 1 }, pw, 128)),
    noIter: await t(() => s.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("salt") }, pw, 128)),
    noHash: await t(() => s.deriveBits({ name: "PBKDF2", salt: enc.encode("salt"), iterations: 1 }, pw, 128)),
    extractable: await t(() => s.importKey("raw", enc.encode("password"), "PBKDF2", true, ["deriveBits"])),
    jwk: await t(() => s.importKey("jwk", { kty: "oct", k: "AAEC" }, "PBKDF2", false, ["deriveBits"])),
    badUsage: await t(() => s.importKey("raw", enc.encode("password"), "PBKDF2", false, ["sign"])),
    export: await t(() => s.exportKey("raw", pw)),
    badAesLen: await t(() => s.deriveKey({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("salt"), iterations: 1 }, pw, { name: "AES-GCM", length: 100 }, true, ["encrypt"])),
    noAesLen: await t(() => s.deriveKey({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("salt"), iterations: 1 }, pw, { name: "AES-GCM" }, true, ["encrypt"])),
    toPbkdf2: await t(() => s.deriveKey({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode("salt"), iterations: 1 }, pw, { name: "PBKDF2" }, false, ["deriveBits"])),
  };
  const ikm = await s.importKey("raw", bytes(22, () => 0x0b), "HKDF", false, ["deriveBits", "deriveKey"]);
  // RFC 5869 test case 1
  out.hkdf = {
    shape: shape(ikm),
    rfc5869: await t(() => s.deriveBits({ name: "HKDF", hash: "SHA-256", salt: bytes(13), info: bytes(10, (i) => 0xf0 + i) }, ikm, 336)),
    empty: await t(() => s.deriveBits({ name: "HKDF", hash: "SHA-1", salt: new Uint8Array(0), info: new Uint8Array(0) }, ikm, 128)),
    zero: await t(() => s.deriveBits({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new Uint8Array(0) }, ikm, 0)),
    tooLong: await t(() => s.deriveBits({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new Uint8Array(0) }, ikm, 255 * 256 + 8)),
    odd: await t(() => s.deriveBits({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new Uint8Array(0) }, ikm, 7)),
    noInfo: await t(() => s.deriveBits({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0) }, ikm, 128)),
    negative: await t(() => s.deriveBits({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new Uint8Array(0) }, ikm, -8)),
    key: await t(async () => { const k = await s.deriveKey({ name: "HKDF", hash: "SHA-384", salt: enc.encode("s"), info: enc.encode("i") }, ikm, { name: "AES-CTR", length: 192 }, true, ["encrypt"]); return [shape(k), hex(await s.exportKey("raw", k))]; }),
    wrongAlg: await t(() => s.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: new Uint8Array(0), iterations: 1 }, ikm, 128)),
    bitsOnly: await t(async () => s.deriveKey({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new Uint8Array(0) }, await s.importKey("raw", bytes(8), "HKDF", false, ["deriveBits"]), { name: "AES-GCM", length: 128 }, true, ["encrypt"])),
  };
  return out;
}

async function wrap() {
  const out = {};
  // RFC 3394 4.1: 128-bit KEK wraps 128 bits of key data
  const kek = await s.importKey("raw", bytes(16), "AES-KW", true, ["wrapKey", "unwrapKey"]);
  const data = await s.importKey("raw", Uint8Array.from([0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]), "AES-GCM", true, ["encrypt", "decrypt"]);
  const w = await s.wrapKey("raw", data, kek, "AES-KW");
  out.kw = {
    rfc3394: hex(w),
    unwrapped: await t(async () => { const k = await s.unwrapKey("raw", w, kek, { name: "AES-KW" }, "AES-GCM", true, ["decrypt"]); return [shape(k), hex(await s.exportKey("raw", k))]; }),
    tampered: await t(() => s.unwrapKey("raw", Uint8Array.from(new Uint8Array(w), (b, i) => (i === 3 ? b ^ 1 : b)), kek, "AES-KW", "AES-GCM", true, ["decrypt"])),
    short: await t(() => s.unwrapKey("raw", bytes(16), kek, "AES-KW", "AES-GCM", true, ["decrypt"])),
    odd: await t(() => s.unwrapKey("raw", bytes(30), kek, "AES-KW", "AES-GCM", true, ["decrypt"])),
    jwk: await t(async () => {
      const hk = await s.importKey("raw", bytes(20), { name: "HMAC", hash: "SHA-256" }, true, ["sign"]);
      const wj = await s.wrapKey("jwk", hk, kek, "AES-KW");
      const back = await s.unwrapKey("jwk", wj, kek, "AES-KW", { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      return [wj.byteLength % 8, shape(back), hex(await s.sign("HMAC", back, MSG)) === hex(await s.sign("HMAC", hk, MSG))];
    }),
    notMultiple: await t(async () => s.wrapKey("raw", await s.importKey("raw", bytes(20), { name: "HMAC", hash: "SHA-256" }, true, ["sign"]), kek, "AES-KW")),
    encrypt: await t(() => s.encrypt("AES-KW", kek, bytes(16))),
  };
  const gk = await s.importKey("raw", bytes(16, (i) => i * 3), "AES-GCM", false, ["wrapKey", "unwrapKey"]);
  const iv = bytes(12);
  const gw = await s.wrapKey("raw", data, gk, { name: "AES-GCM", iv });
  out.gcm = {
    wrapped: hex(gw),
    back: await t(async () => hex(await s.exportKey("raw", await s.unwrapKey("raw", gw, gk, { name: "AES-GCM", iv }, { name: "AES-CBC" }, true, ["encrypt"])))),
    jwkRt: await t(async () => { const wj = await s.wrapKey("jwk", data, gk, { name: "AES-GCM", iv }); const k = await s.unwrapKey("jwk", wj, gk, { name: "AES-GCM", iv }, "AES-GCM", true, ["encrypt"]); return shape(k); }),
    corrupt: await t(async () => { const wj = await s.encrypt({ name: "AES-GCM", iv }, await s.importKey("raw", bytes(16, (i) => i * 3), "AES-GCM", false, ["encrypt"]), enc.encode("{not json")); return s.unwrapKey("jwk", wj, gk, { name: "AES-GCM", iv }, "AES-GCM", true, ["encrypt"]); }),
    nonExtractable: await t(async () => s.wrapKey("raw", gk, gk, { name: "AES-GCM", iv })),
    noUsage: await t(async () => s.wrapKey("raw", data, await s.importKey("raw", bytes(16), "AES-GCM", false, ["encrypt"]), { name: "AES-GCM", iv })),
    wrongAlg: await t(() => s.wrapKey("raw", data, gk, { name: "AES-CBC", iv: bytes(16) })),
  };
  const oaepPub = await s.importKey("spki", b64d(KEYS.rsa.spki), { name: "RSA-OAEP", hash: "SHA-256" }, true, ["wrapKey"]);
  const oaepPriv = await s.importKey("pkcs8", b64d(KEYS.rsa.pkcs8), { name: "RSA-OAEP", hash: "SHA-256" }, true, ["unwrapKey"]);
  out.oaep = await t(async () => {
    const wk = await s.wrapKey("pkcs8", await s.importKey("pkcs8", b64d(KEYS.ed.pkcs8), "Ed25519", true, ["sign"]), oaepPub, "RSA-OAEP");
    const k = await s.unwrapKey("pkcs8", wk, oaepPriv, { name: "RSA-OAEP" }, "Ed25519", true, ["sign"]);
    return [wk.byteLength, shape(k), hex(await s.sign("Ed25519", k, MSG)).slice(0, 16)];
  });
  out.noUsages = await t(() => s.unwrapKey("raw", w, kek, "AES-KW", "AES-GCM", true, []));
  return out;
}

async function args() {
  const typ = async (f) => { try { return typeof (await f()); } catch (e) { return `${e.name}: ${e.message}`; } };
  const aes = await s.importKey("raw", new Uint8Array(16), "AES-GCM", false, ["encrypt", "decrypt", "wrapKey", "unwrapKey"]);
  const hk = await s.importKey("raw", new Uint8Array(16), { name: "HMAC", hash: "SHA-256" }, true, ["sign", "verify"]);
  return {
    ivStr: await typ(() => s.encrypt({ name: "AES-GCM", iv: "abc" }, aes, new Uint8Array(1))),
    encNull: await typ(() => s.encrypt(null, aes, new Uint8Array(1))),
    signUndefined: await typ(() => s.sign(undefined, hk, new Uint8Array(1))),
    digestNull: await typ(() => s.digest(null, new Uint8Array(1))),
    genNull: await typ(() => s.generateKey(null, true, ["sign"])),
    deriveNull: await typ(() => s.deriveBits(null, hk, 8)),
    wrapNull: await typ(() => s.wrapKey("raw", hk, aes, null)),
    unwrapNull: await typ(() => s.unwrapKey("raw", new Uint8Array(16), aes, { name: "AES-GCM", iv: new Uint8Array(12) }, null, true, ["sign"])),
    hashNum: await typ(() => s.importKey("raw", new Uint8Array(16), { name: "HMAC", hash: 5 }, true, ["sign"])),
    saltStr: await typ(() => s.deriveBits({ name: "HKDF", hash: "SHA-256", salt: "x", info: new Uint8Array(0) }, hk, 8)),
    lenStr: await typ(() => s.generateKey({ name: "AES-GCM", length: "128" }, true, ["encrypt"])),
    lenNaN: await typ(() => s.generateKey({ name: "AES-GCM", length: "abc" }, true, ["encrypt"])),
    usagesNull: await typ(() => s.generateKey({ name: "AES-GCM", length: 128 }, true, null)),
    usageNotStr: await typ(() => s.generateKey({ name: "AES-GCM", length: 128 }, true, [5])),
    formatNum: await typ(() => s.exportKey(5, hk)),
    counterStr: await typ(() => s.encrypt({ name: "AES-CTR", counter: "x", length: 8 }, aes, new Uint8Array(1))),
    jwkNull: await typ(() => s.importKey("jwk", null, "AES-GCM", true, ["encrypt"])),
    pubExpArr: await typ(() => s.generateKey({ name: "RSA-PSS", modulusLength: 1024, publicExponent: [1, 0, 1], hash: "SHA-256" }, true, ["sign"])),
    noArgs: await typ(() => s.sign()),
    digestNoData: await typ(() => s.digest("SHA-1")),
    digestDataView: await t(() => s.digest("SHA-1", new DataView(new ArrayBuffer(3)))),
    publicNotKey: await typ(async () => s.deriveBits({ name: "ECDH", public: {} }, await s.importKey("pkcs8", b64d(KEYS["P-256"].pkcs8), { name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]), 8)),
    usageOrder: await t(async () => (await s.importKey("raw", new Uint8Array(16), "AES-GCM", true, ["unwrapKey", "decrypt", "encrypt", "encrypt"])).usages),
    frozen: [Object.isFrozen(hk.usages), Object.isFrozen(hk.algorithm)],
  };
}

async function more() {
  const pw = await s.importKey("raw", enc.encode("pw"), "PBKDF2", false, ["deriveKey", "deriveBits"]);
  const p2 = { name: "PBKDF2", hash: "SHA-256", salt: new Uint8Array(4), iterations: 2 };
  const ecPriv = await s.importKey("pkcs8", b64d(KEYS["P-256"].pkcs8), { name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits", "deriveKey"]);
  const ecPub = await s.importKey("spki", b64d(KEYS.ecdhB.spki), { name: "ECDH", namedCurve: "P-256" }, true, []);
  const rsaPub = await s.importKey("spki", b64d(KEYS.rsa.spki), { name: "RSA-OAEP", hash: "SHA-256" }, true, ["wrapKey", "encrypt"]);
  const rsaPriv = await s.importKey("pkcs8", b64d(KEYS.rsa.pkcs8), { name: "RSA-OAEP", hash: "SHA-256" }, true, ["unwrapKey", "decrypt"]);
  const hk = await s.importKey("raw", new Uint8Array(16), { name: "HMAC", hash: "SHA-256" }, true, ["sign", "verify"]);
  const key = async (f) => { const k = await f(); return shape(k); };
  return {
    hmac512: await t(() => key(() => s.deriveKey(p2, pw, { name: "HMAC", hash: "SHA-512" }, true, ["sign"]))),
    hmacNoHash: await t(() => s.deriveKey(p2, pw, { name: "HMAC" }, true, ["sign"])),
    hmacLen0: await t(() => s.deriveKey(p2, pw, { name: "HMAC", hash: "SHA-1", length: 0 }, true, ["sign"])),
    badUsage: await t(() => s.deriveKey(p2, pw, { name: "AES-GCM", length: 128 }, true, ["sign"])),
    noUsage: await t(() => s.deriveKey(p2, pw, { name: "AES-GCM", length: 128 }, true, [])),
    toHkdf: await t(() => s.deriveKey(p2, pw, "HKDF", false, ["deriveBits"])),
    keyOnly: await t(async () => s.deriveBits(p2, await s.importKey("raw", enc.encode("pw"), "PBKDF2", false, ["deriveKey"]), 128)),
    pbkdf2Zero: await t(() => s.deriveBits(p2, pw, 0)),
    pbkdf2Md5: await t(() => s.deriveBits({ ...p2, hash: "MD5" }, pw, 128)),
    ecdhZero: await t(() => s.deriveBits({ name: "ECDH", public: ecPub }, ecPriv, 0)),
    ecdhUndefined: await t(() => s.deriveBits({ name: "ECDH", public: ecPub }, ecPriv)),
    genEcdhSign: await t(() => s.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["sign"])),
    genEcdhNone: await t(() => s.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [])),
    genEdNone: await t(() => s.generateKey("Ed25519", true, [])),
    genXVerify: await t(() => s.generateKey("X25519", true, ["verify"])),
    genRsaBadExp: await t(() => s.generateKey({ name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 0, 0, 1]), hash: "SHA-256" }, true, ["sign"])),
    genRsaNoHash: await t(() => s.generateKey({ name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, true, ["sign"])),
    genRsaNoLen: await t(() => s.generateKey({ name: "RSA-PSS", publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign"])),
    genRsaBadUsage: await t(() => s.generateKey({ name: "RSA-OAEP", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign"])),
    genHmacNoHash: await t(() => s.generateKey({ name: "HMAC" }, true, ["sign"])),
    genUnknown: await t(() => s.generateKey({ name: "AES-XTS", length: 256 }, true, ["encrypt"])),
    ecdhJwkUse: await t(() => s.importKey("jwk", { ...KEYS.ecdhB.jwk, use: "sig" }, { name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])),
    aesJwkUseSig: await t(() => s.importKey("jwk", { kty: "oct", k: "AAAAAAAAAAAAAAAAAAAAAA", use: "sig" }, "AES-GCM", true, ["encrypt"])),
    aesJwkDup: await t(() => s.importKey("jwk", { kty: "oct", k: "AAAAAAAAAAAAAAAAAAAAAA", key_ops: ["encrypt", "encrypt"] }, "AES-GCM", true, ["encrypt"])),
    aesJwkNoK: await t(() => s.importKey("jwk", { kty: "oct" }, "AES-GCM", true, ["encrypt"])),
    exportFoo: await t(() => s.exportKey("foo", ecPub)),
    verifyWithPrivate: await t(async () => s.verify({ name: "ECDSA", hash: "SHA-256" }, await s.importKey("pkcs8", b64d(KEYS["P-256"].pkcs8), { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]), new Uint8Array(64), MSG)),
    ctr128: await t(async () => s.encrypt({ name: "AES-CTR", counter: new Uint8Array(16).fill(255), length: 128 }, await s.importKey("raw", new Uint8Array(16), "AES-CTR", false, ["encrypt"]), new Uint8Array(40))),
    oaepLabel: await t(async () => new TextDecoder().decode(await s.decrypt({ name: "RSA-OAEP", label: enc.encode("L") }, rsaPriv, await s.encrypt({ name: "RSA-OAEP", label: enc.encode("L") }, rsaPub, enc.encode("hi"))))),
    oaepTooLong: await t(() => s.encrypt("RSA-OAEP", rsaPub, new Uint8Array(200))),
    oaepWrapJwk: await t(async () => { const w = await s.wrapKey("jwk", hk, rsaPub, "RSA-OAEP"); const k = await s.unwrapKey("jwk", w, rsaPriv, "RSA-OAEP", { name: "HMAC", hash: "SHA-256" }, true, ["verify"]); return [w.byteLength, k.algorithm.length, k.usages]; }),
    unwrapBadFormat: await t(() => s.unwrapKey("pem", new Uint8Array(16), rsaPriv, "RSA-OAEP", "AES-GCM", true, ["encrypt"])),
    wrapBadFormat: await t(() => s.wrapKey("pem", hk, rsaPub, "RSA-OAEP")),
    spkiOaepVerify: await t(() => s.importKey("spki", b64d(KEYS.rsa.spki), { name: "RSA-OAEP", hash: "SHA-256" }, true, ["verify"])),
    edPrivJwkNoD: await t(() => s.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: KEYS.ed.jwk.x }, "Ed25519", true, ["sign"])),
    edPubJwk: await t(() => key(() => s.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: KEYS.ed.jwk.x }, "Ed25519", true, ["verify"]))),
    edPubJwkShort: await t(() => s.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: "AAAA" }, "Ed25519", true, ["verify"])),
    xJwkPriv: await t(() => key(() => s.importKey("jwk", { kty: "OKP", crv: "X25519", x: KEYS.xA.jwk.x, d: KEYS.xA.jwk.d }, "X25519", true, ["deriveBits"]))),
    xJwkCrv: await t(() => s.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: KEYS.xA.jwk.x }, "X25519", true, [])),
  };
}

export class Vault extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url);
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS keys (name TEXT PRIMARY KEY, jwk TEXT)");
    if (url.pathname === "/vault/put") {
      const k = await s.generateKey({ name: "HMAC", hash: "SHA-256" }, true, ["sign", "verify"]);
      const fixed = await s.importKey("jwk", { kty: "oct", k: "c2VjcmV0LWtleS1mb3ItdGhlLXZhdWx0", alg: "HS256" }, { name: "HMAC", hash: "SHA-256" }, true, ["sign", "verify"]);
      sql.exec("INSERT OR REPLACE INTO keys VALUES (?, ?)", "random", JSON.stringify(await s.exportKey("jwk", k)));
      sql.exec("INSERT OR REPLACE INTO keys VALUES (?, ?)", "fixed", JSON.stringify(await s.exportKey("jwk", fixed)));
      this.mac = hex(await s.sign("HMAC", k, MSG));
      let stored;
      try {
        await this.ctx.storage.put("key", k);
        stored = "stored";
      } catch (e) {
        stored = `${e.name}: ${e.message}`;
      }
      return Response.json({ stored: sql.exec("SELECT count(*) AS n FROM keys").one().n, putKey: stored });
    }
    const out = {};
    for (const { name, jwk } of sql.exec("SELECT name, jwk FROM keys ORDER BY name")) {
      const k = await s.importKey("jwk", JSON.parse(jwk), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      const mac = hex(await s.sign("HMAC", k, MSG));
      out[name] = name === "fixed" ? mac : mac === this.mac;
    }
    return Response.json(out);
  }
}

const routes = { api, hmac, aes, rsa, ec, okp, kdf, wrap, args, more };

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/vault/")) return env.VAULT.get(env.VAULT.idFromName("v")).fetch(request);
    const f = routes[url.pathname.slice(1)];
    if (!f) return new Response("not found", { status: 404 });
    return Response.json(await f());
  },
};
