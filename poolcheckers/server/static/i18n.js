// The page's language: the words come from the server with the app's frame (the
// catalog in index.html's #i18n block, from the gettext catalogs of the js domain);
// this module keeps no copies. Messages are the English words with {name} holes;
// numbers and dates are formatted by Intl in the page's language.

/** @typedef {{locale: string, messages: Record<string, string | string[]>}} Catalog */

/** @returns {Catalog} */
function readCatalog() {
  const block = typeof document === "undefined" ? null : document.getElementById("i18n");
  try {
    /** @type {Partial<Catalog>} */
    const data = block && block.textContent ? JSON.parse(block.textContent) : {};
    return { locale: data.locale || "en", messages: data.messages || {} };
  } catch {
    return { locale: "en", messages: {} };
  }
}

const catalog = readCatalog();

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
