  // ---------------------------------------------------------------- Intl
  // goja has no Intl. The classes here read and check options as V8 does
  // (with V8's messages) and format through intl.go: number and date
  // patterns for the locales intl.go lists (others format as en-US),
  // x/text's CLDR plural rules and collation, uniseg's segmentation.
  // workerd's default locale is en-US and its default time zone UTC.
  // makeIntl builds Intl and what the built-ins' locale methods use; a
  // runtime does it on first use (Intl is an accessor until then).
  let intlAPI;
  function intl() {
    if (intlAPI === undefined) intlAPI = makeIntl();
    return intlAPI;
  }
  function makeIntl() {
    const Intl = {};
    const DEFAULT_LOCALE = "en-US";
    function canonicalLocales(locales) {
      if (locales === undefined) return [];
      const list = typeof locales === "string" || (isObject(locales) && intlLocaleTags.has(locales)) ? [locales] : Array.from(Object(locales));
      const out = [];
      // indexed loops over our own arrays: no iterator objects (a
      // construction's hot path)
      for (let i = 0; i < list.length; i++) {
        const l = list[i];
        if (typeof l !== "string" && !isObject(l)) throw new TypeError("Language ID should be string or object.");
        const tag = native.intlCanonical(isObject(l) && intlLocaleTags.has(l) ? intlLocaleTags.get(l) : String(l));
        if (!out.includes(tag)) out.push(tag);
      }
      return out;
    }
    // lookupLocale: ECMA-402's LookupMatcher over ICU's available locales
    // (CLDR's, with default-content and script-implied ones): the first
    // requested tag with a supported prefix, else en-US; ext holds the
    // tag's -u- keywords.
    function lookupLocale(locales) {
      const tags = canonicalLocales(locales);
      for (let i = 0; i < tags.length; i++) {
        const tag = tags[i];
        const base = native.intlLookup(tag);
        if (base !== "") return { base, ext: unicodeExtension(tag) };
      }
      return { base: DEFAULT_LOCALE, ext: {} };
    }
    function unicodeExtension(tag) {
      const ext = {};
      const i = tag.indexOf("-u-");
      if (i < 0) return ext;
      const parts = tag.slice(i + 3).split("-");
      let key;
      for (let i = 0; i < parts.length; i++) {
        const p = parts[i];
        if (p.length === 1) break;
        if (p.length === 2) {
          key = p;
          ext[key] = "true";
        } else if (key !== undefined) ext[key] = ext[key] === "true" ? p : ext[key] + "-" + p;
      }
      return ext;
    }
    function resolveLocale(locales) {
      return lookupLocale(locales).base;
    }
    function intlOptions(options) {
      if (options === undefined) return Object.create(null);
      if (options === null) throw new TypeError("Cannot convert undefined or null to object");
      return Object(options);
    }
    function getOption(opts, prop, values, fallback, ctor) {
      let v = opts[prop];
      if (v === undefined) return fallback;
      if (values === "boolean") return Boolean(v);
      v = `${v}`; // ToString: a Symbol throws a TypeError
      if (values !== undefined && !values.includes(v)) throw new RangeError(`Value ${v} out of range for ${ctor} options property ${prop}`);
      return v;
    }
    function getNumberOption(opts, prop, min, max, fallback) {
      let v = opts[prop];
      if (v === undefined) return fallback;
      v = Number(v);
      if (Number.isNaN(v) || v < min || v > max) throw new RangeError(`${prop} value is out of range.`);
      return Math.floor(v);
    }
    function intlBrand(map, x, method) {
      const s = isObject(x) ? map.get(x) : undefined;
      if (s === undefined) throw new TypeError(`Method ${method} called on incompatible receiver ${typeof x === "string" ? x : String(x)}`);
      return s;
    }
    function partsOf(flat) {
      const out = [];
      for (let i = 0; i < flat.length; i += 2) out.push({ type: flat[i], value: flat[i + 1] });
      return out;
    }
    function joinParts(flat) {
      let s = "";
      for (let i = 1; i < flat.length; i += 2) s += flat[i];
      return s;
    }
    // defineIntl makes a constructor callable without new (as the ECMA-402
    // constructors of the first edition are: NumberFormat, DateTimeFormat,
    // Collator) or not, with methods and a toStringTag.
    function intlClass(name, init, callable, methods, getters) {
      const ctor = function (locales, options) {
        if (new.target === undefined && !callable) throw new TypeError(`Constructor Intl.${name} requires 'new'`);
        const self = new.target === undefined ? Object.create(ctor.prototype) : this;
        init(self, locales, options);
        return self;
      };
      Object.defineProperty(ctor, "name", { value: name });
      Object.defineProperty(ctor, "length", { value: name === "DisplayNames" ? 2 : name === "Locale" ? 1 : 0 });
      Object.defineProperty(ctor, "prototype", { writable: false });
      for (const k of Object.keys(methods)) {
        Object.defineProperty(ctor.prototype, k, { value: methods[k], writable: true, configurable: true });
      }
      for (const k of Object.keys(getters || {})) {
        Object.defineProperty(getters[k], "name", { value: "get " + k });
        Object.defineProperty(ctor.prototype, k, { get: getters[k], configurable: true });
      }
      Object.defineProperty(ctor.prototype, Symbol.toStringTag, { value: "Intl." + name, configurable: true });
      Object.defineProperty(ctor, "supportedLocalesOf", {
        value: {
          supportedLocalesOf(locales) {
            return canonicalLocales(locales).filter((t) => native.intlLookup(t) !== "");
          },
        }.supportedLocalesOf,
        writable: true,
        configurable: true,
      });
      Object.defineProperty(Intl, name, { value: ctor, writable: true, configurable: true });
      return ctor;
    }

    // ---- NumberFormat
    const numberFormats = new WeakMap();
    const sanctionedUnits = ["acre", "bit", "byte", "celsius", "centimeter", "day", "degree", "fahrenheit", "fluid-ounce", "foot", "gallon", "gigabit", "gigabyte", "gram", "hectare", "hour", "inch", "kilobit", "kilobyte", "kilogram", "kilometer", "liter", "megabit", "megabyte", "meter", "microsecond", "mile", "mile-scandinavian", "milliliter", "millimeter", "millisecond", "minute", "month", "nanosecond", "ounce", "percent", "petabyte", "pound", "second", "stone", "terabit", "terabyte", "week", "yard", "year"];
    function isSanctionedUnit(u) {
      if (sanctionedUnits.includes(u)) return true;
      const i = u.indexOf("-per-");
      return i > 0 && sanctionedUnits.includes(u.slice(0, i)) && sanctionedUnits.includes(u.slice(i + 5));
    }
    function defaultNumberOption(v, min, max, fallback, prop) {
      if (v === undefined) return fallback;
      v = Number(v);
      if (Number.isNaN(v) || v < min || v > max) throw new RangeError(`${prop} value is out of range.`);
      return Math.floor(v);
    }
    function initNumberFormat(self, locales, options) {
      const opts = intlOptions(options);
      const C = "Intl.NumberFormat";
      getOption(opts, "localeMatcher", ["lookup", "best fit"], "best fit", C);
      const nuOpt = getOption(opts, "numberingSystem", undefined, undefined, C);
      if (nuOpt !== undefined && !/^[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*$/.test(nuOpt)) throw new RangeError("Invalid numberingSystem : " + nuOpt);
      const { base, ext } = lookupLocale(locales);
      let locale = base;
      let nu = "";
      if (nuOpt !== undefined && native.intlNumberingSystem(nuOpt)) nu = nuOpt;
      else if (ext.nu !== undefined && native.intlNumberingSystem(ext.nu)) {
        nu = ext.nu;
        if (nuOpt === undefined) locale += "-u-nu-" + ext.nu;
      }
      const style = getOption(opts, "style", ["decimal", "percent", "currency", "unit"], "decimal", C);
      let currency = getOption(opts, "currency", undefined, undefined, C);
      if (currency !== undefined) {
        if (!/^[A-Za-z]{3}$/.test(currency)) throw new RangeError("Invalid currency code : " + currency);
        currency = currency.toUpperCase();
      }
      const currencyDisplay = getOption(opts, "currencyDisplay", ["code", "symbol", "narrowSymbol", "name"], "symbol", C);
      const currencySign = getOption(opts, "currencySign", ["standard", "accounting"], "standard", C);
      const unit = getOption(opts, "unit", undefined, undefined, C);
      if (unit !== undefined && !isSanctionedUnit(unit)) throw new RangeError("Invalid unit argument for Intl.NumberFormat() '" + unit + "'");
      const unitDisplay = getOption(opts, "unitDisplay", ["short", "narrow", "long"], "short", C);
      if (style === "currency" && currency === undefined) throw new TypeError("Currency code is required with currency style.");
      if (style === "unit" && unit === undefined) throw new TypeError("Unit is required with unit style.");
      const notation = getOption(opts, "notation", ["standard", "scientific", "engineering", "compact"], "standard", C);
      const cd = style === "currency" ? native.intlCurrencyDigits(currency) : 0;
      let mnfdDefault = style === "currency" && notation === "standard" ? cd : 0;
      let mxfdDefault = style === "currency" && notation === "standard" ? cd : style === "percent" ? 0 : 3;
      // SetNumberFormatDigitOptions
      const minInt = getNumberOption(opts, "minimumIntegerDigits", 1, 21, 1);
      const mnfd = opts.minimumFractionDigits;
      const mxfd = opts.maximumFractionDigits;
      const mnsd = opts.minimumSignificantDigits;
      const mxsd = opts.maximumSignificantDigits;
      const roundingIncrement = getNumberOption(opts, "roundingIncrement", 1, 5000, 1);
      if (![1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000].includes(roundingIncrement)) throw new RangeError("roundingIncrement value is out of range.");
      const roundingMode = getOption(opts, "roundingMode", ["ceil", "floor", "expand", "trunc", "halfCeil", "halfFloor", "halfExpand", "halfTrunc", "halfEven"], "halfExpand", C);
      const roundingPriority = getOption(opts, "roundingPriority", ["auto", "morePrecision", "lessPrecision"], "auto", C);
      const trailingZeroDisplay = getOption(opts, "trailingZeroDisplay", ["auto", "stripIfInteger"], "auto", C);
      if (roundingIncrement !== 1) mxfdDefault = mnfdDefault;
      const hasSd = mnsd !== undefined || mxsd !== undefined;
      const hasFd = mnfd !== undefined || mxfd !== undefined;
      let needSd = true;
      let needFd = true;
      if (roundingPriority === "auto") {
        needSd = hasSd;
        if (needSd || (!hasFd && notation === "compact")) needFd = false;
      }
      const o = { Locale: base, NU: nu, Style: style, Currency: currency || "", CurrencyDisplay: currencyDisplay, CurrencySign: currencySign, Unit: unit || "", UnitDisplay: unitDisplay, MinInt: minInt, MinFrac: 0, MaxFrac: 0, MinSig: 0, MaxSig: 0, RoundingMode: roundingMode, Priority: "", TrailingZero: trailingZeroDisplay };
      let sd, fd;
      if (needSd) {
        if (hasSd) {
          const a = defaultNumberOption(mnsd, 1, 21, 1, "minimumSignificantDigits");
          sd = [a, defaultNumberOption(mxsd, a, 21, 21, "maximumSignificantDigits")];
        } else sd = [1, 21];
      }
      if (needFd) {
        if (hasFd) {
          let a = defaultNumberOption(mnfd, 0, 100, undefined, "minimumFractionDigits");
          let b = defaultNumberOption(mxfd, 0, 100, undefined, "maximumFractionDigits");
          if (a === undefined) a = Math.min(mnfdDefault, b);
          else if (b === undefined) b = Math.max(mxfdDefault, a);
          else if (a > b) throw new RangeError("maximumFractionDigits value is out of range.");
          fd = [a, b];
        } else fd = [mnfdDefault, mxfdDefault];
      }
      let priority = roundingPriority;
      if (!needSd && !needFd) {
        fd = [0, 0];
        sd = [1, 2];
        priority = "morePrecision";
      }
      if (fd) [o.MinFrac, o.MaxFrac] = fd;
      if (sd) [o.MinSig, o.MaxSig] = sd;
      if (sd && fd) o.Priority = priority;
      else if (!sd) o.MaxSig = 0;
      if (roundingIncrement !== 1) {
        if (sd) throw new TypeError("roundingIncrement is only supported with fraction digits");
        if (o.MaxFrac !== o.MinFrac) throw new RangeError("maximumFractionDigits and minimumFractionDigits must be equal with a rounding increment");
      }
      const resolved = { locale, numberingSystem: native.intlNumberingSystemOf(base, nu), style };
      if (style === "currency") Object.assign(resolved, { currency, currencyDisplay, currencySign });
      if (style === "unit") Object.assign(resolved, { unit, unitDisplay });
      resolved.minimumIntegerDigits = minInt;
      if (fd) {
        resolved.minimumFractionDigits = o.MinFrac;
        resolved.maximumFractionDigits = o.MaxFrac;
      }
      if (sd) {
        resolved.minimumSignificantDigits = o.MinSig;
        resolved.maximumSignificantDigits = o.MaxSig;
      }
      const compactDisplay = getOption(opts, "compactDisplay", ["short", "long"], "short", C);
      let useGrouping = opts.useGrouping;
      if (useGrouping === undefined) useGrouping = notation === "compact" ? "min2" : "auto";
      else if (useGrouping === true || useGrouping === "true") useGrouping = "always";
      else if (useGrouping === false || useGrouping === "false" || useGrouping === null || useGrouping === "") useGrouping = false;
      else {
        useGrouping = String(useGrouping);
        if (!["min2", "auto", "always"].includes(useGrouping)) throw new RangeError(`Value ${useGrouping} out of range for Intl.NumberFormat options property useGrouping`);
      }
      o.UseGrouping = String(useGrouping);
      o.Notation = notation;
      o.CompactDisplay = compactDisplay;
      const signDisplay = getOption(opts, "signDisplay", ["auto", "never", "always", "exceptZero", "negative"], "auto", C);
      o.SignDisplay = signDisplay;
      Object.assign(resolved, { useGrouping, notation });
      if (notation === "compact") resolved.compactDisplay = compactDisplay;
      Object.assign(resolved, { signDisplay, roundingIncrement, roundingMode, roundingPriority: sd && fd ? priority : "auto", trailingZeroDisplay });
      numberFormats.set(self, { o, resolved, bound: undefined });
    }
    function numberValue(x) {
      if (typeof x === "bigint") return x;
      if (typeof x === "string") {
        const t = x.trim();
        if (/^[+-]?\d+$/.test(t) && t.replace(/^[+-]?0*/, "").length > 15) return BigInt(t);
      }
      return Number(x);
    }
    function rangeParts(st, x, y, method) {
      if (x === undefined || y === undefined) throw new TypeError("start or end is undefined");
      const a = numberValue(x);
      const b = numberValue(y);
      if (typeof a === "number" && Number.isNaN(a) || typeof b === "number" && Number.isNaN(b)) throw new RangeError("Invalid start or end : NaN");
      return native.intlNumberRange(numberParts(st, a), numberParts(st, b), st.o.Locale, st.o.NU);
    }
    function numberParts(st, x) {
      let v = x;
      if (typeof v === "bigint") {
        const neg = v < 0n;
        const s = (neg ? -v : v).toString();
        const x = neg ? -Number(s) : Number(s);
      // exact digits only where the value is printed as it is
      if (st.o.Notation !== "standard" || st.o.Style === "percent") return native.intlNumber(x, st.o);
      return native.intlNumber(x, Object.assign({}, st.o, { Exact: s }));
      }
      return native.intlNumber(Number(v), st.o);
    }
    const NumberFormat = intlClass("NumberFormat", initNumberFormat, true, {
      formatRange(x, y) {
        const st = intlBrand(numberFormats, this, "Intl.NumberFormat.prototype.formatRange");
        const f = rangeParts(st, x, y);
        let s = "";
        for (let i = 1; i < f.length; i += 3) s += f[i];
        return s;
      },
      formatRangeToParts(x, y) {
        const st = intlBrand(numberFormats, this, "Intl.NumberFormat.prototype.formatRangeToParts");
        const f = rangeParts(st, x, y);
        const out = [];
        for (let i = 0; i < f.length; i += 3) out.push({ type: f[i], value: f[i + 1], source: f[i + 2] });
        return out;
      },
      formatToParts(x) {
        return partsOf(numberParts(intlBrand(numberFormats, this, "Intl.NumberFormat.prototype.formatToParts"), x));
      },
      resolvedOptions() {
        const r = intlBrand(numberFormats, this, "Intl.NumberFormat.prototype.resolvedOptions").resolved;
        return Object.assign({}, r);
      },
    }, {
      format() {
        const st = intlBrand(numberFormats, this, "get Intl.NumberFormat.prototype.format");
        if (st.bound === undefined) st.bound = (x) => joinParts(numberParts(st, x));
        return st.bound;
      },
    });

    // ---- DateTimeFormat
    const dateFormats = new WeakMap();
    const dateComponents = ["weekday", "era", "year", "month", "day", "dayPeriod", "hour", "minute", "second", "fractionalSecondDigits", "timeZoneName"];
    // initDateTimeFormat; required/defaults as ECMA-402's ToDateTimeOptions
    // ("date", "time" or "any" with "date", "time" or "all").
    // option value lists, made once (not per construction)
    const DTF_VALUES_0 = ["lookup", "best fit"];
    const DTF_VALUES_1 = ["h11", "h12", "h23", "h24"];
    const DTF_VALUES_2 = ["narrow", "short", "long"];
    const DTF_VALUES_3 = ["2-digit", "numeric"];
    const DTF_VALUES_4 = ["2-digit", "numeric", "narrow", "short", "long"];
    const DTF_VALUES_5 = ["short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"];
    const DTF_VALUES_6 = ["basic", "best fit"];
    const DTF_VALUES_7 = ["full", "long", "medium", "short"];
    const DTF_VALUES_8 = ["weekday", "era", "year", "month", "day", "dayPeriod", "hour", "minute", "second", "fractionalSecondDigits", "timeZoneName"];
    function initDateTimeFormat(self, locales, options, required = "any", defaults = "date") {
      const opts = intlOptions(options);
      const C = "Intl.DateTimeFormat";
      const { base, ext } = lookupLocale(locales);
      getOption(opts, "localeMatcher", DTF_VALUES_0, "best fit", C);
      const calendar = getOption(opts, "calendar", undefined, undefined, C);
      if (calendar !== undefined && !/^[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*$/.test(calendar)) throw new RangeError("Invalid calendar : " + calendar);
      const numberingSystem = getOption(opts, "numberingSystem", undefined, undefined, C);
      if (numberingSystem !== undefined && !/^[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*$/.test(numberingSystem)) throw new RangeError("Invalid numberingSystem : " + numberingSystem);
      const hour12 = opts.hour12 === undefined ? undefined : Boolean(opts.hour12);
      let hourCycle = getOption(opts, "hourCycle", DTF_VALUES_1, undefined, C);
      if (hour12 !== undefined) hourCycle = undefined;
      let timeZone = opts.timeZone;
      timeZone = timeZone === undefined ? "UTC" : native.intlZoneId(String(timeZone));
      const o = {
        Locale: base, NU: "", HC: "", Hour12: hour12 === undefined ? "" : String(hour12),
        Weekday: getOption(opts, "weekday", DTF_VALUES_2, "", C),
        Era: getOption(opts, "era", DTF_VALUES_2, "", C),
        Year: getOption(opts, "year", DTF_VALUES_3, "", C),
        Month: getOption(opts, "month", DTF_VALUES_4, "", C),
        Day: getOption(opts, "day", DTF_VALUES_3, "", C),
        DayPeriod: getOption(opts, "dayPeriod", DTF_VALUES_2, "", C),
        Hour: getOption(opts, "hour", DTF_VALUES_3, "", C),
        Minute: getOption(opts, "minute", DTF_VALUES_3, "", C),
        Second: getOption(opts, "second", DTF_VALUES_3, "", C),
        FracDigits: getNumberOption(opts, "fractionalSecondDigits", 1, 3, 0),
        TimeZoneName: getOption(opts, "timeZoneName", DTF_VALUES_5, "", C),
        DateStyle: "", TimeStyle: "",
      };
      getOption(opts, "formatMatcher", DTF_VALUES_6, "best fit", C);
      o.DateStyle = getOption(opts, "dateStyle", DTF_VALUES_7, "", C);
      o.TimeStyle = getOption(opts, "timeStyle", DTF_VALUES_7, "", C);
      const anyComponent = o.Weekday || o.Era || o.Year || o.Month || o.Day || o.DayPeriod || o.Hour || o.Minute || o.Second || o.FracDigits || o.TimeZoneName;
      if ((o.DateStyle || o.TimeStyle) && anyComponent) throw new TypeError("Invalid option : option");
      if (required === "date" && o.TimeStyle !== "" && o.DateStyle === "") throw new TypeError("Invalid option : timeStyle");
      if (required === "time" && o.DateStyle !== "" && o.TimeStyle === "") throw new TypeError("Invalid option : dateStyle");
      if (o.DateStyle === "" && o.TimeStyle === "") {
        let needDefaults = true;
        if ((required === "date" || required === "any") && (o.Weekday || o.Year || o.Month || o.Day)) needDefaults = false;
        if ((required === "time" || required === "any") && (o.DayPeriod || o.Hour || o.Minute || o.Second || o.FracDigits)) needDefaults = false;
        if (needDefaults && (defaults === "date" || defaults === "all")) o.Year = o.Month = o.Day = "numeric";
        if (needDefaults && (defaults === "time" || defaults === "all")) o.Hour = o.Minute = o.Second = "numeric";
      }
      let locale = base;
      const extKeys = [];
      if (hourCycle === undefined && hour12 === undefined && DTF_VALUES_1.includes(ext.hc)) {
        hourCycle = ext.hc;
        extKeys.push("hc-" + ext.hc);
      }
      o.HC = hourCycle || "";
      if (numberingSystem !== undefined && native.intlNumberingSystem(numberingSystem)) o.NU = numberingSystem;
      else if (ext.nu !== undefined && native.intlNumberingSystem(ext.nu)) {
        o.NU = ext.nu;
        if (numberingSystem === undefined) extKeys.push("nu-" + ext.nu);
      }
      // the calendar: the option, else -u-ca-, else the region's (an
      // unimplemented one resolves to the locale's default)
      o.CA = native.intlCalendar(base, calendar !== undefined ? calendar : ext.ca || "");
      const ca = native.intlCalendarName(o.CA);
      if (ext.ca !== undefined && (calendar === undefined || calendar === ext.ca) && native.intlCalendarName(native.intlCalendar("und", ext.ca)) === ext.ca) extKeys.unshift("ca-" + ext.ca);
      if (extKeys.length) locale += "-u-" + extKeys.join("-");
      const r = native.intlDateResolve(o);
      const resolved = { locale, calendar: ca, numberingSystem: r.numberingSystem, timeZone };
      if (o.Hour !== "" || o.TimeStyle !== "") {
        if (r.hourCycle !== undefined) {
          resolved.hourCycle = r.hourCycle;
          resolved.hour12 = r.hour12;
        }
      }
      if (o.DateStyle === "" && o.TimeStyle === "") {
        for (let i = 0; i < DTF_VALUES_8.length; i++) {
          const k = DTF_VALUES_8[i];
          if (r[k] !== undefined) resolved[k] = r[k];
        }
      }
      if (o.DateStyle) resolved.dateStyle = o.DateStyle;
      if (o.TimeStyle) resolved.timeStyle = o.TimeStyle;
      dateFormats.set(self, { o, pattern: r.pattern, locale: base, nu: o.NU, timeZone, resolved, bound: undefined, f: native.intlDateFormatter(base, o.NU, o.CA, r.pattern, timeZone) });
    }
    const dateNow = Date.now;
    function dateValue(date) {
      const x = date === undefined ? Date.now() : Number(date);
      if (!Number.isFinite(x) || Math.abs(x) > 8.64e15) throw new RangeError("Invalid time value");
      return x;
    }
    function dateRange(st, a, b) {
      if (a === undefined || b === undefined) throw new TypeError("startDate or endDate is undefined");
      const x = dateValue(a);
      const y = dateValue(b);
      return native.intlDateRange(st.f, x, y);
    }
    const DateTimeFormat = intlClass("DateTimeFormat", (self, l, o) => initDateTimeFormat(self, l, o), true, {
      formatRange(a, b) {
        const f = dateRange(intlBrand(dateFormats, this, "Intl.DateTimeFormat.prototype.formatRange"), a, b);
        let s = "";
        for (let i = 1; i < f.length; i += 3) s += f[i];
        return s;
      },
      formatRangeToParts(a, b) {
        const f = dateRange(intlBrand(dateFormats, this, "Intl.DateTimeFormat.prototype.formatRangeToParts"), a, b);
        const out = [];
        for (let i = 0; i < f.length; i += 3) out.push({ type: f[i], value: f[i + 1], source: f[i + 2] });
        return out;
      },
      formatToParts(date) {
        const st = intlBrand(dateFormats, this, "Intl.DateTimeFormat.prototype.formatToParts");
        return partsOf(native.intlDateFormat(st.f, dateValue(date)));
      },
      resolvedOptions() {
        return Object.assign({}, intlBrand(dateFormats, this, "Intl.DateTimeFormat.prototype.resolvedOptions").resolved);
      },
    }, {
      format() {
        const st = intlBrand(dateFormats, this, "get Intl.DateTimeFormat.prototype.format");
        if (st.bound === undefined) st.bound = native.intlDateBound(st.f, dateNow);
        return st.bound;
      },
    });

    // ---- Collator
    const collators = new WeakMap();
    function initCollator(self, locales, options) {
      const opts = intlOptions(options);
      const C = "Intl.Collator";
      const usage = getOption(opts, "usage", ["sort", "search"], "sort", C);
      getOption(opts, "localeMatcher", ["lookup", "best fit"], "best fit", C);
      getOption(opts, "collation", undefined, undefined, C);
      const numeric = getOption(opts, "numeric", "boolean", false, C);
      const caseFirst = getOption(opts, "caseFirst", ["upper", "lower", "false"], "false", C);
      const sensitivity = getOption(opts, "sensitivity", ["base", "accent", "case", "variant"], "variant", C);
      const ignorePunctuation = getOption(opts, "ignorePunctuation", "boolean", false, C);
      const locale = resolveLocale(locales, true);
      collators.set(self, { locale, usage, sensitivity, ignorePunctuation, numeric, caseFirst, bound: undefined });
    }
    function collatorCompare(st, a, b) {
      return native.intlCompare(st.locale, st.sensitivity, st.numeric, st.ignorePunctuation, String(a), String(b));
    }
    const Collator = intlClass("Collator", initCollator, true, {
      resolvedOptions() {
        const st = intlBrand(collators, this, "Intl.Collator.prototype.resolvedOptions");
        return { locale: st.locale, usage: st.usage, sensitivity: st.sensitivity, ignorePunctuation: st.ignorePunctuation, collation: "default", numeric: st.numeric, caseFirst: st.caseFirst };
      },
    }, {
      compare() {
        const st = intlBrand(collators, this, "get Intl.Collator.prototype.compare");
        if (st.bound === undefined) st.bound = (a, b) => collatorCompare(st, a, b);
        return st.bound;
      },
    });

    // ---- PluralRules
    const pluralRules = new WeakMap();
    const pluralOrder = ["zero", "one", "two", "few", "many", "other"];
    const PluralRules = intlClass("PluralRules", (self, locales, options) => {
      const opts = intlOptions(options);
      const type = getOption(opts, "type", ["cardinal", "ordinal"], "cardinal", "Intl.PluralRules");
      const locale = resolveLocale(locales, true);
      const minFrac = getNumberOption(opts, "minimumFractionDigits", 0, 100, 0);
      const maxFrac = getNumberOption(opts, "maximumFractionDigits", minFrac, 100, Math.max(minFrac, 3));
      pluralRules.set(self, { locale, type, minFrac, maxFrac, categories: native.intlPluralCategories(locale, type === "ordinal") });
    }, false, {
      select(n) {
        const st = intlBrand(pluralRules, this, "Intl.PluralRules.prototype.select");
        return native.intlPlural(st.locale, st.type === "ordinal", Number(n), st.minFrac, st.maxFrac);
      },
      selectRange(start, end) {
        const st = intlBrand(pluralRules, this, "Intl.PluralRules.prototype.selectRange");
        if (start === undefined || end === undefined) throw new TypeError("start or end is undefined");
        const x = Number(start);
        const y = Number(end);
        if (Number.isNaN(x) || Number.isNaN(y)) throw new RangeError("Invalid start or end : NaN");
        const a = native.intlPlural(st.locale, st.type === "ordinal", x, st.minFrac, st.maxFrac);
        const b = native.intlPlural(st.locale, st.type === "ordinal", y, st.minFrac, st.maxFrac);
        return native.intlPluralRange(st.locale, a, b);
      },
      resolvedOptions() {
        const st = intlBrand(pluralRules, this, "Intl.PluralRules.prototype.resolvedOptions");
        return {
          locale: st.locale, type: st.type, notation: "standard", minimumIntegerDigits: 1, minimumFractionDigits: st.minFrac, maximumFractionDigits: st.maxFrac,
          pluralCategories: st.categories.slice(), roundingIncrement: 1, roundingMode: "halfExpand", roundingPriority: "auto", trailingZeroDisplay: "auto",
        };
      },
    });

    // ---- Segmenter
    const segmenters = new WeakMap();
    const segmentsState = new WeakMap();
    const Segmenter = intlClass("Segmenter", (self, locales, options) => {
      const opts = intlOptions(options);
      const locale = resolveLocale(locales);
      getOption(opts, "localeMatcher", ["lookup", "best fit"], "best fit", "Intl.Segmenter");
      const granularity = getOption(opts, "granularity", ["grapheme", "word", "sentence"], "grapheme", "Intl.Segmenter");
      segmenters.set(self, { locale, granularity });
    }, false, {
      segment(string) {
        const st = intlBrand(segmenters, this, "Intl.Segmenter.prototype.segment");
        const input = String(string);
        const segs = Object.create(SegmentsProto);
        segmentsState.set(segs, { input, granularity: st.granularity, flat: null });
        return segs;
      },
      resolvedOptions() {
        const st = intlBrand(segmenters, this, "Intl.Segmenter.prototype.resolvedOptions");
        return { locale: st.locale, granularity: st.granularity };
      },
    });
    function segmentList(st) {
      if (st.flat === null) st.flat = native.intlSegment(st.input, st.granularity);
      return st.flat;
    }
    function segmentData(st, i) {
      const f = segmentList(st);
      const d = { segment: f[i], index: f[i + 1], input: st.input };
      if (st.granularity === "word") d.isWordLike = f[i + 2];
      return d;
    }
    const SegmentsProto = {
      containing(index) {
        const st = segmentsState.get(this);
        if (st === undefined) throw illegalInvocation();
        const n = index === undefined ? 0 : Math.trunc(Number(index)) || 0;
        if (n < 0 || n >= st.input.length) return undefined;
        const f = segmentList(st);
        for (let i = 0; i < f.length; i += 3) {
          if (n >= f[i + 1] && n < f[i + 1] + f[i].length) return segmentData(st, i);
        }
        return undefined;
      },
      [Symbol.iterator]() {
        const st = segmentsState.get(this);
        if (st === undefined) throw illegalInvocation();
        let i = 0;
        const it = Object.create(Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())));
        it.next = () => {
          const f = segmentList(st);
          if (i >= f.length) return { value: undefined, done: true };
          const d = segmentData(st, i);
          i += 3;
          return { value: d, done: false };
        };
        Object.defineProperty(it, Symbol.toStringTag, { value: "Segmenter String Iterator" });
        return it;
      },
    };

    // ---- RelativeTimeFormat (CLDR's relative fields; numbers through
    // NumberFormat, the plural category through PluralRules)
    const relativeFormats = new WeakMap();
    const rtfUnits = ["second", "minute", "hour", "day", "week", "month", "quarter", "year"];
    function rtfUnit(unit, method) {
      let u = String(unit);
      if (u.endsWith("s")) u = u.slice(0, -1);
      if (!rtfUnits.includes(u)) throw new RangeError(`Invalid unit argument for ${method}() '${String(unit)}'`);
      return u;
    }
    function rtfParts(st, value, unit, method) {
      const u = rtfUnit(unit, method);
      const v = Number(value);
      if (!Number.isFinite(v)) throw new RangeError("Invalid number value");
      let data = st.data[u];
      if (data === undefined) data = st.data[u] = native.intlRelativeData(st.locale, u, st.style);
      if (st.numeric === "auto" && Number.isInteger(v) && !Object.is(v, -0) && Math.abs(v) <= 2) {
        const w = data.rel[String(v)];
        if (w !== undefined) return [{ type: "literal", value: w }];
      }
      const past = v < 0 || Object.is(v, -0);
      const pats = past ? data.past : data.future;
      const nparts = st.nf.formatToParts(Math.abs(v));
      const cat = st.pr.select(Math.abs(v));
      const pat = pats[cat] !== undefined ? pats[cat] : pats.other;
      const i = pat.indexOf("{0}");
      if (i < 0) return [{ type: "literal", value: pat }];
      const out = [];
      if (i > 0) out.push({ type: "literal", value: pat.slice(0, i) });
      for (const p of nparts) out.push({ type: p.type, value: p.value, unit: u });
      if (i + 3 < pat.length) out.push({ type: "literal", value: pat.slice(i + 3) });
      return out;
    }
    const RelativeTimeFormat = intlClass("RelativeTimeFormat", (self, locales, options) => {
      const opts = intlOptions(options);
      const C = "Intl.RelativeTimeFormat";
      const { base, ext } = lookupLocale(locales);
      getOption(opts, "localeMatcher", ["lookup", "best fit"], "best fit", C);
      const nu = getOption(opts, "numberingSystem", undefined, undefined, C);
      const style = getOption(opts, "style", ["long", "short", "narrow"], "long", C);
      const numeric = getOption(opts, "numeric", ["always", "auto"], "always", C);
      const nf = new NumberFormat(base);
      relativeFormats.set(self, { locale: base, style, numeric, nf, pr: new PluralRules(base), data: {}, numberingSystem: nf.resolvedOptions().numberingSystem });
    }, false, {
      format(value, unit) {
        const st = intlBrand(relativeFormats, this, "Intl.RelativeTimeFormat.prototype.format");
        return rtfParts(st, value, unit, "Intl.RelativeTimeFormat.prototype.format").map((p) => p.value).join("");
      },
      formatToParts(value, unit) {
        const st = intlBrand(relativeFormats, this, "Intl.RelativeTimeFormat.prototype.formatToParts");
        return rtfParts(st, value, unit, "Intl.RelativeTimeFormat.prototype.formatToParts");
      },
      resolvedOptions() {
        const st = intlBrand(relativeFormats, this, "Intl.RelativeTimeFormat.prototype.resolvedOptions");
        return { locale: st.locale, style: st.style, numeric: st.numeric, numberingSystem: st.numberingSystem };
      },
    });

    // ---- ListFormat (CLDR's list patterns)
    const listFormats = new WeakMap();
    function listParts(st, list) {
      const items = [];
      if (list !== undefined) {
        for (const x of list) {
          if (typeof x !== "string") throw new TypeError("Iterable yielded " + (typeof x === "symbol" ? "Symbol()" : String(x)) + " which is not a string");
          items.push(x);
        }
      }
      if (items.length === 0) return [];
      if (items.length === 1) return [{ type: "element", value: items[0] }];
      if (st.data === undefined) st.data = native.intlListData(st.locale, st.type, st.style);
      const d = st.data;
      // fill(pattern, a, b): a and b are part arrays
      const fill = (pat, a, b) => {
        const out = [];
        const i0 = pat.indexOf("{0}");
        const i1 = pat.indexOf("{1}");
        const lit = (s) => { if (s) out.push({ type: "literal", value: s }); };
        lit(pat.slice(0, i0));
        out.push(...a);
        lit(pat.slice(i0 + 3, i1));
        out.push(...b);
        lit(pat.slice(i1 + 3));
        return out;
      };
      const el = (s) => [{ type: "element", value: s }];
      // ICU's ListFormatter adapts Hebrew's "ו" (and) to the word after
      // it: "ו-" before one that does not start with a Hebrew letter
      // (listformatter.cpp, shouldChangeToVavDash)
      const vav = (pat, next) => {
        if (pat !== "{0} ו{1}") return pat;
        const c = next.codePointAt(0);
        return c !== undefined && (c >= 0x590 && c <= 0x5ff || c >= 0xfb1d && c <= 0xfb4f) ? pat : "{0} ו-{1}";
      };
      const last = items[items.length - 1];
      if (items.length === 2) return fill(vav(d["2"], last), el(items[0]), el(last));
      let acc = fill(vav(d.end, last), el(items[items.length - 2]), el(last));
      for (let i = items.length - 3; i >= 0; i--) acc = fill(i === 0 ? d.start : d.middle, el(items[i]), acc);
      return acc;
    }
    const ListFormat = intlClass("ListFormat", (self, locales, options) => {
      const opts = intlOptions(options);
      const C = "Intl.ListFormat";
      const locale = resolveLocale(locales);
      getOption(opts, "localeMatcher", ["lookup", "best fit"], "best fit", C);
      const type = getOption(opts, "type", ["conjunction", "disjunction", "unit"], "conjunction", C);
      const style = getOption(opts, "style", ["long", "short", "narrow"], "long", C);
      listFormats.set(self, { locale, type, style, data: undefined });
    }, false, {
      format(list) {
        const st = intlBrand(listFormats, this, "Intl.ListFormat.prototype.format");
        return listParts(st, list).map((p) => p.value).join("");
      },
      formatToParts(list) {
        const st = intlBrand(listFormats, this, "Intl.ListFormat.prototype.formatToParts");
        return listParts(st, list);
      },
      resolvedOptions() {
        const st = intlBrand(listFormats, this, "Intl.ListFormat.prototype.resolvedOptions");
        return { locale: st.locale, type: st.type, style: st.style };
      },
    });

    // ---- DisplayNames (x/text's CLDR names; currencies in en)
    const displayNames = new WeakMap();
    intlClass("DisplayNames", (self, locales, options) => {
      const C = "Intl.DisplayNames";
      const locale = resolveLocale(locales, true);
      const opts = intlOptions(options);
      getOption(opts, "localeMatcher", ["lookup", "best fit"], "best fit", C);
      const style = getOption(opts, "style", ["narrow", "short", "long"], "long", C);
      const type = getOption(opts, "type", ["language", "region", "script", "currency", "calendar", "dateTimeField"], undefined, C);
      if (type === undefined) throw new TypeError("invalid_argument");
      const fallback = getOption(opts, "fallback", ["code", "none"], "code", C);
      const languageDisplay = getOption(opts, "languageDisplay", ["dialect", "standard"], "dialect", C);
      displayNames.set(self, { locale, style, type, fallback, languageDisplay });
    }, false, {
      of(code) {
        const st = intlBrand(displayNames, this, "Intl.DisplayNames.prototype.of");
        const [canon, name] = native.intlDisplayName(st.locale, st.type, String(code), st.languageDisplay, st.style);
        if (name !== "") return name;
        return st.fallback === "code" ? canon : undefined;
      },
      resolvedOptions() {
        const st = intlBrand(displayNames, this, "Intl.DisplayNames.prototype.resolvedOptions");
        const r = { locale: st.locale, style: st.style, type: st.type, fallback: st.fallback };
        if (st.type === "language") r.languageDisplay = st.languageDisplay;
        return r;
      },
    });

    // ---- DurationFormat (ECMA-402's, on NumberFormat's units and
    // ListFormat's unit lists)
    const durationFormats = new WeakMap();
    const durationUnits = ["years", "months", "weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"];
    const durationSingular = { years: "year", months: "month", weeks: "week", days: "day", hours: "hour", minutes: "minute", seconds: "second", milliseconds: "millisecond", microseconds: "microsecond", nanoseconds: "nanosecond" };
    function durationUnitOptions(unit, opts, baseStyle, styles, digitalBase, prevStyle, C) {
      let style = getOption(opts, unit, styles, undefined, C);
      let displayDefault = "always";
      if (style === undefined) {
        if (baseStyle === "digital") {
          if (unit !== "hours" && unit !== "minutes" && unit !== "seconds") displayDefault = "auto";
          style = digitalBase;
        } else if (prevStyle === "fractional" || prevStyle === "numeric" || prevStyle === "2-digit") {
          if (unit !== "minutes" && unit !== "seconds") displayDefault = "auto";
          style = "numeric";
        } else {
          displayDefault = "auto";
          style = baseStyle;
        }
      }
      const subSecond = unit === "milliseconds" || unit === "microseconds" || unit === "nanoseconds";
      if (style === "numeric" && subSecond) {
        style = "fractional";
        displayDefault = "auto";
      }
      const display = getOption(opts, unit + "Display", ["auto", "always"], displayDefault, C);
      if (display === "always" && style === "fractional") throw new RangeError(`Invalid option : ${unit}Display`);
      if (prevStyle === "fractional" && style !== "fractional") throw new RangeError(`Invalid option : ${unit}`);
      if (prevStyle === "numeric" || prevStyle === "2-digit") {
        if (style !== "fractional" && style !== "numeric" && style !== "2-digit") throw new RangeError(`Invalid option : ${unit}`);
        if (unit === "minutes" || unit === "seconds") style = "2-digit";
      }
      return { style, display };
    }
    function durationRecord(d) {
      if (!isObject(d)) {
        if (typeof d === "string") throw new RangeError("Invalid duration");
        throw new TypeError("Invalid duration");
      }
      const r = {};
      let any = false;
      for (const u of ["days", "hours", "microseconds", "milliseconds", "minutes", "months", "nanoseconds", "seconds", "weeks", "years"]) {
        const v = d[u];
        if (v === undefined) {
          r[u] = 0;
          continue;
        }
        any = true;
        const n = Number(v);
        if (!Number.isFinite(n) || !Number.isInteger(n)) throw new RangeError("Invalid duration");
        r[u] = n === 0 ? 0 : n;
      }
      if (!any) throw new TypeError("Invalid duration");
      let sign = 0;
      for (const u of durationUnits) {
        const s = Math.sign(r[u]);
        if (s !== 0) {
          if (sign !== 0 && s !== sign) throw new RangeError("Invalid duration");
          sign = s;
        }
      }
      if (Math.abs(r.years) >= 2 ** 32 || Math.abs(r.months) >= 2 ** 32 || Math.abs(r.weeks) >= 2 ** 32) throw new RangeError("Invalid duration");
      const secs = r.days * 86400 + r.hours * 3600 + r.minutes * 60 + r.seconds + r.milliseconds / 1e3 + r.microseconds / 1e6 + r.nanoseconds / 1e9;
      if (Math.abs(secs) >= 2 ** 53) throw new RangeError("Invalid duration");
      return r;
    }
    function durationParts(st, d) {
      const r = durationRecord(d);
      const negative = durationUnits.some((u) => r[u] < 0);
      const groups = []; // each: list of parts (one list element)
      let numeric = null; // the hours:minutes:seconds group being built
      let signShown = false;
      const nf = (o) => new Intl.NumberFormat(st.locale, Object.assign({ numberingSystem: st.numberingSystem }, o));
      for (let i = 0; i < durationUnits.length; i++) {
        const unit = durationUnits[i];
        const { style, display } = st.units[unit];
        let value = r[unit];
        if (style === "fractional") continue; // folded into the unit before
        let fractional = false;
        if (i + 1 < durationUnits.length && st.units[durationUnits[i + 1]].style === "fractional") {
          fractional = true;
          const scale = { seconds: 1e3, milliseconds: 1e3, microseconds: 1e3 }[unit];
          let sub = 0;
          for (let k = durationUnits.length - 1; k > i; k--) sub = sub / 1e3 + r[durationUnits[k]];
          value = value + sub / scale;
        }
        const isNumeric = style === "numeric" || style === "2-digit";
        if (isNumeric) {
          const hoursShown = unit === "hours";
          const skip = value === 0 && display === "auto" && !(unit === "minutes" && numeric && (r.seconds !== 0 || st.units.seconds.display === "always" || r.milliseconds || r.microseconds || r.nanoseconds));
          if (unit === "hours" && value === 0 && display === "auto") continue;
          if (skip && unit !== "minutes" && unit !== "seconds") continue;
          if (skip && unit === "seconds" && numeric === null) continue;
          if (skip && unit === "minutes" && numeric === null && !(r.seconds || st.units.seconds.display === "always")) continue;
          const o = { minimumIntegerDigits: style === "2-digit" ? 2 : 1, useGrouping: false };
          if (fractional) {
            o.maximumFractionDigits = st.fractionalDigits === undefined ? 9 : st.fractionalDigits;
            o.minimumFractionDigits = st.fractionalDigits === undefined ? 0 : st.fractionalDigits;
            o.roundingMode = "trunc";
          }
          if (negative && !signShown) {
            o.signDisplay = "negative";
            signShown = true;
          } else {
            o.signDisplay = "never";
            value = Math.abs(value);
          }
          if (negative && o.signDisplay === "negative" && value === 0) {
            o.signDisplay = "always";
            value = -0;
          }
          const p = nf(o).formatToParts(value).map((x) => ({ type: x.type === "minusSign" ? "minusSign" : x.type, value: x.value, unit: durationSingular[unit] }));
          if (numeric === null) {
            numeric = p;
            groups.push(numeric);
          } else {
            numeric.push({ type: "literal", value: ":" });
            for (const x of p) numeric.push(x);
          }
          void hoursShown;
          continue;
        }
        numeric = null;
        if (value === 0 && display === "auto") continue;
        const o = { style: "unit", unit: durationSingular[unit], unitDisplay: style };
        if (fractional) {
          o.maximumFractionDigits = st.fractionalDigits === undefined ? 9 : st.fractionalDigits;
          o.minimumFractionDigits = st.fractionalDigits === undefined ? 0 : st.fractionalDigits;
          o.roundingMode = "trunc";
        }
        if (negative && !signShown) {
          signShown = true;
          if (value === 0) {
            o.signDisplay = "always";
            value = -0;
          }
        } else {
          o.signDisplay = "never";
        }
        groups.push(nf(o).formatToParts(value).map((x) => ({ type: x.type, value: x.value, unit: durationSingular[unit] })));
      }
      const listStyle = st.style === "digital" ? "short" : st.style;
      const lf = new Intl.ListFormat(st.locale, { type: "unit", style: listStyle });
      const strings = groups.map((g) => g.map((x) => x.value).join(""));
      const out = [];
      let gi = 0;
      for (const p of lf.formatToParts(strings)) {
        if (p.type === "element") {
          for (const x of groups[gi++]) out.push(x);
        } else out.push({ type: "literal", value: p.value });
      }
      return out;
    }
    intlClass("DurationFormat", (self, locales, options) => {
      const C = "Intl.DurationFormat";
      const { base, ext } = lookupLocale(locales);
      const opts = intlOptions(options);
      getOption(opts, "localeMatcher", ["lookup", "best fit"], "best fit", C);
      const nuOpt = getOption(opts, "numberingSystem", undefined, undefined, C);
      if (nuOpt !== undefined && !/^[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*$/.test(nuOpt)) throw new RangeError("Invalid numberingSystem : " + nuOpt);
      let locale = base;
      let nu = nuOpt !== undefined && native.intlNumberingSystem(nuOpt) ? nuOpt : undefined;
      if (nu === undefined && ext.nu !== undefined && native.intlNumberingSystem(ext.nu)) {
        nu = ext.nu;
        if (nuOpt === undefined || nuOpt === ext.nu) locale += "-u-nu-" + ext.nu;
      }
      const numberingSystem = new Intl.NumberFormat(base, nu === undefined ? undefined : { numberingSystem: nu }).resolvedOptions().numberingSystem;
      const style = getOption(opts, "style", ["long", "short", "narrow", "digital"], "short", C);
      const units = {};
      let prev;
      for (const u of durationUnits) {
        const styles = u === "hours" || u === "minutes" || u === "seconds" ? ["long", "short", "narrow", "numeric", "2-digit"] : u.endsWith("seconds") ? ["long", "short", "narrow", "numeric"] : ["long", "short", "narrow"];
        const digitalBase = u === "years" || u === "months" || u === "weeks" || u === "days" ? "short" : "numeric";
        units[u] = durationUnitOptions(u, opts, style, styles, digitalBase, prev, C);
        prev = units[u].style;
      }
      const fractionalDigits = getNumberOption(opts, "fractionalDigits", 0, 9, undefined);
      durationFormats.set(self, { locale, numberingSystem, style, units, fractionalDigits });
    }, false, {
      format(d) {
        const st = intlBrand(durationFormats, this, "Intl.DurationFormat.prototype.format");
        return durationParts(st, d).map((p) => p.value).join("");
      },
      formatToParts(d) {
        const st = intlBrand(durationFormats, this, "Intl.DurationFormat.prototype.formatToParts");
        return durationParts(st, d);
      },
      resolvedOptions() {
        const st = intlBrand(durationFormats, this, "Intl.DurationFormat.prototype.resolvedOptions");
        const r = { locale: st.locale, numberingSystem: st.numberingSystem, style: st.style };
        for (const u of durationUnits) {
          r[u] = st.units[u].style === "fractional" ? "numeric" : st.units[u].style;
          r[u + "Display"] = st.units[u].display;
        }
        if (st.fractionalDigits !== undefined) r.fractionalDigits = st.fractionalDigits;
        return r;
      },
    });

    // ---- Locale (likely subtags, week data, hour cycles, calendars and
    // time zones from CLDR)
    const intlLocaleTags = new WeakMap();
    const localeKeys = [["calendar", "ca"], ["collation", "co"], ["hourCycle", "hc"], ["caseFirst", "kf"], ["numeric", "kn"], ["numberingSystem", "nu"], ["firstDayOfWeek", "fw"]];
    function localeTag(self, method) {
      return intlBrand(intlLocaleTags, self, method);
    }
    const Locale = intlClass("Locale", function (self, tag, options) {
      if (new.target === undefined && !(self instanceof Object)) throw new TypeError("Constructor Intl.Locale requires 'new'");
      if (typeof tag !== "string" && !isObject(tag)) throw new TypeError("First argument to Intl.Locale constructor can't be empty or missing");
      let t = native.intlCanonical(isObject(tag) && intlLocaleTags.has(tag) ? intlLocaleTags.get(tag) : String(tag));
      const opts = intlOptions(options);
      const C = "Intl.Locale";
      const parts = native.intlLocaleParts(t);
      const lang = getOption(opts, "language", undefined, undefined, C);
      const script = getOption(opts, "script", undefined, undefined, C);
      const region = getOption(opts, "region", undefined, undefined, C);
      if (lang !== undefined || script !== undefined || region !== undefined) {
        if (lang !== undefined && !/^([a-zA-Z]{2,3}|[a-zA-Z]{5,8})$/.test(lang)) throw new RangeError("Incorrect locale information provided");
        if (script !== undefined && !/^[a-zA-Z]{4}$/.test(script)) throw new RangeError("Incorrect locale information provided");
        if (region !== undefined && !/^([a-zA-Z]{2}|[0-9]{3})$/.test(region)) throw new RangeError("Incorrect locale information provided");
        t = native.intlCanonical([lang || parts[0], script || parts[1], region || parts[2]].filter((x) => x).join("-") + t.slice(parts[3].length));
      }
      const ext = unicodeExtension(t);
      let changed = false;
      for (const [prop, key] of localeKeys) {
        let v = key === "kn" ? (opts[prop] === undefined ? undefined : String(opts[prop])) : getOption(opts, prop, undefined, undefined, C);
        if (v === undefined) continue;
        if (key === "hc" && !["h11", "h12", "h23", "h24"].includes(v)) throw new RangeError(`Value ${v} out of range for Intl.Locale options property hourCycle`);
        if (key === "kf" && !["upper", "lower", "false"].includes(v)) throw new RangeError(`Value ${v} out of range for Intl.Locale options property caseFirst`);
        ext[key] = v;
        changed = true;
      }
      if (changed) {
        const base = t.split("-u-")[0];
        const kw = Object.keys(ext).sort().map((k) => (ext[k] === "true" ? k : k + "-" + ext[k])).join("-");
        t = native.intlCanonical(base + (kw ? "-u-" + kw : ""));
      }
      intlLocaleTags.set(self, t);
    }, false, {
      toString() { return localeTag(this, "Intl.Locale.prototype.toString"); },
      toJSON() { return localeTag(this, "Intl.Locale.prototype.toJSON"); },
      maximize() {
        const t = localeTag(this, "Intl.Locale.prototype.maximize");
        return new Locale(native.intlLikely(t, true));
      },
      minimize() {
        const t = localeTag(this, "Intl.Locale.prototype.minimize");
        return new Locale(native.intlLikely(t, false));
      },
      getWeekInfo() { return native.intlWeekInfo(localeTag(this, "Intl.Locale.prototype.getWeekInfo")); },
      getHourCycles() {
        const t = localeTag(this, "Intl.Locale.prototype.getHourCycles");
        const hc = unicodeExtension(t).hc;
        return hc !== undefined ? [hc] : [native.intlDefaultHourCycle(t.split("-u-")[0])];
      },
      getCalendars() {
        const t = localeTag(this, "Intl.Locale.prototype.getCalendars");
        const ca = unicodeExtension(t).ca;
        return ca !== undefined ? [ca] : native.intlCalendars(t);
      },
      getTimeZones() { return native.intlTimeZones(localeTag(this, "Intl.Locale.prototype.getTimeZones")); },
      getCollations() { return ["default"].concat([]).filter((c) => c !== "default").concat(["emoji", "eor"]); },
      getNumberingSystems() {
        const t = localeTag(this, "Intl.Locale.prototype.getNumberingSystems");
        const nu = unicodeExtension(t).nu;
        return nu !== undefined ? [nu] : [native.intlNumberingSystemOf(t.split("-u-")[0], "")];
      },
      getTextInfo() {
        const t = localeTag(this, "Intl.Locale.prototype.getTextInfo");
        return { direction: native.intlDirection(t) };
      },
    }, {
      baseName() { return localeTag(this, "get Intl.Locale.prototype.baseName").split("-u-")[0]; },
      language() { return native.intlLocaleParts(localeTag(this, "get Intl.Locale.prototype.language"))[0]; },
      script() { return native.intlLocaleParts(localeTag(this, "get Intl.Locale.prototype.script"))[1] || undefined; },
      region() { return native.intlLocaleParts(localeTag(this, "get Intl.Locale.prototype.region"))[2] || undefined; },
      calendar() { return unicodeExtension(localeTag(this, "get Intl.Locale.prototype.calendar")).ca; },
      collation() { return unicodeExtension(localeTag(this, "get Intl.Locale.prototype.collation")).co; },
      hourCycle() { return unicodeExtension(localeTag(this, "get Intl.Locale.prototype.hourCycle")).hc; },
      caseFirst() { return unicodeExtension(localeTag(this, "get Intl.Locale.prototype.caseFirst")).kf; },
      numeric() { const kn = unicodeExtension(localeTag(this, "get Intl.Locale.prototype.numeric")).kn; return kn === "true" || kn === ""; },
      numberingSystem() { return unicodeExtension(localeTag(this, "get Intl.Locale.prototype.numberingSystem")).nu; },
      firstDayOfWeek() { return unicodeExtension(localeTag(this, "get Intl.Locale.prototype.firstDayOfWeek")).fw; },
    });

    Object.defineProperty(Intl, "supportedValuesOf", {
      value: function supportedValuesOf(key) {
        const k = String(key);
        if (k === "unit") return sanctionedUnits.slice();
        if (k === "calendar") return ["gregory"];
        if (k === "collation") return ["default"].filter(() => false).concat(["emoji", "eor"]);
        if (["currency", "numberingSystem", "timeZone"].includes(k)) return native.intlSupportedValues(k);
        throw new RangeError("Invalid key : " + k);
      },
      writable: true,
      configurable: true,
    });
    Object.defineProperty(Intl, "getCanonicalLocales", { value: function getCanonicalLocales(locales) { return canonicalLocales(locales); }, writable: true, configurable: true });
    Object.defineProperty(Intl, Symbol.toStringTag, { value: "Intl", configurable: true });
    return { Intl, NumberFormat, DateTimeFormat, Collator, initDateTimeFormat, initCollator, collators, collatorCompare };
  }
  lazyGlobal("Intl", () => intl().Intl);

  // ---- the locale-sensitive methods of the built-ins
  let defaultNumberFormat;
  // a built-in method: no prototype, length 0 (toLocaleString & co.)
  function protoMethod(proto, name, f, length = 0) {
    // named parameters, not a rest parameter and apply (no array per
    // call; the methods read at most three arguments), length set back
    // to ECMA-402's (0; localeCompare 1)
    const m = {
      [name](a, b, c) {
        return f.call(this, a, b, c);
      },
    }[name];
    Object.defineProperty(m, "length", { value: length });
    Object.defineProperty(proto, name, { value: m, writable: true, configurable: true });
  }
  const numberValueOf = Number.prototype.valueOf;
  protoMethod(Number.prototype, "toLocaleString", function (locales, options) {
    const x = numberValueOf.call(this);
    if (locales === undefined && options === undefined) {
      if (defaultNumberFormat === undefined) defaultNumberFormat = new (intl().NumberFormat)();
      return defaultNumberFormat.format(x);
    }
    return new (intl().NumberFormat)(locales, options).format(x);
  });
  if (typeof BigInt === "function") {
    const bigintValueOf = BigInt.prototype.valueOf;
    protoMethod(BigInt.prototype, "toLocaleString", function (locales, options) {
      return new (intl().NumberFormat)(locales, options).format(bigintValueOf.call(this));
    });
  }
  const dateGetTime = Date.prototype.getTime;
  function dateLocale(required, defaults) {
    // without locales and options the formatter is always the same: made
    // once, as V8 caches it (the default locale and zone do not change)
    let byDefault;
    return function (locales, options) {
      const t = dateGetTime.call(this);
      if (Number.isNaN(t)) return "Invalid Date";
      const api = intl();
      if (locales === undefined && options === undefined) {
        if (byDefault === undefined) {
          const f = Object.create(api.DateTimeFormat.prototype);
          api.initDateTimeFormat(f, undefined, undefined, required, defaults);
          byDefault = f.format;
        }
        return byDefault(t);
      }
      const f = Object.create(api.DateTimeFormat.prototype);
      api.initDateTimeFormat(f, locales, options, required, defaults);
      return f.format(t);
    };
  }
  protoMethod(Date.prototype, "toLocaleString", dateLocale("any", "all"));
  protoMethod(Date.prototype, "toLocaleDateString", dateLocale("date", "date"));
  protoMethod(Date.prototype, "toLocaleTimeString", dateLocale("time", "time"));
  protoMethod(String.prototype, "localeCompare", function (that, locales, options) {
    if (this === undefined || this === null) throw new TypeError("String.prototype.localeCompare called on null or undefined");
    const api = intl();
    const c = Object.create(api.Collator.prototype);
    api.initCollator(c, locales, options);
    return api.collatorCompare(api.collators.get(c), String(this), that);
  }, 1);
