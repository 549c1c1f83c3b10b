// The page's language: its words come from the server's gettext catalogs (the js
// domain), in the file that index.html names (<meta name="i18n-catalog">, fetched
// once and kept by the browser for good); this module keeps no copies. Every module
// that shows words imports this one, so the catalog is in before any page runs.
// Messages are the English words with {name} holes; numbers and dates are formatted
// by Intl in the page's language.

/** @typedef {{locale: string, messages: Record<string, string | string[]>}} Catalog */

/**
 * The page's catalog; English (the modules' own words) without one, or when it
 * cannot be loaded.
 * @returns {Promise<Catalog>}
 */
async function loadCatalog() {
  const english = { locale: "en", messages: {} };
  if (typeof document === "undefined") return english;
  const lang = document.documentElement.lang || "en";
  const url = document.querySelector('meta[name="i18n-catalog"]')?.getAttribute("content");
  if (!url) return { locale: lang, messages: {} };
  try {
    const response = await fetch(url, { credentials: "same-origin" });
    /** @type {Partial<Catalog>} */
    const data = response.ok ? await response.json() : {};
    return { locale: data.locale || lang, messages: data.messages || {} };
  } catch {
    return { locale: lang, messages: {} };
  }
}

const catalog = await loadCatalog();

/** The page's language as a BCP 47 tag ("en", "pt-BR", "es"). */
export const locale = catalog.locale;

/**
 * Fill a message's {name} holes.
 * @param {string} text
 * @param {Record<string, string | number>} [params]
 * @returns {string}
 */
function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    const value = params[name];
    if (value === undefined) return whole;
    return typeof value === "number" ? formatNumber(value) : value;
  });
}

/**
 * A message in the page's language: t("Your move"), t("{name} wins", {name}).
 * Numbers among the params are written as the language writes them.
 * @param {string} message the English words (what the catalogs are keyed by)
 * @param {Record<string, string | number>} [params]
 * @returns {string}
 */
export function t(message, params) {
  const found = catalog.messages[message];
  return fill(typeof found === "string" && found ? found : message, params);
}

const plurals = new Intl.PluralRules(locale);

/**
 * A message with a plural: tn("{n} move", "{n} moves", count). {n} is the count.
 * @param {string} singular
 * @param {string} plural
 * @param {number} n
 * @param {Record<string, string | number>} [params]
 * @returns {string}
 */
export function tn(singular, plural, n, params) {
  const forms = catalog.messages[singular];
  const index = plurals.select(n) === "one" ? 0 : 1;
  const text = Array.isArray(forms) && forms[index] ? forms[index] : index === 0 ? singular : plural;
  return fill(text, { n, ...params });
}

/**
 * A number as the page's language writes it (1,500.5 / 1.500,5).
 * @param {number} value
 * @param {Intl.NumberFormatOptions} [options]
 * @returns {string}
 */
export function formatNumber(value, options) {
  return new Intl.NumberFormat(locale, options).format(value);
}

/**
 * A date and time as the page's language writes it.
 * @param {Date | number | string} value
 * @param {Intl.DateTimeFormatOptions} [options] default: the date and the time, short
 * @returns {string}
 */
export function formatDate(value, options = { dateStyle: "medium", timeStyle: "short" }) {
  const date = value instanceof Date ? value : new Date(value);
  return new Intl.DateTimeFormat(locale, options).format(date);
}
