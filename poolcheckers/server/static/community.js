// Accounts, lobby and player pages (docs/CONTRACTS.md §3.2): the signed-in account,
// requests that carry its CSRF token, and small shared views. Names from the server
// are always put in the page as text (h() makes text nodes), never as HTML.

/** @import { AccountInfo, PerfInfo, SeekClock } from "./types.js" */

import { parseError, request } from "./api.js";
import { formatNumber, t, tn } from "./i18n.js";
import { h } from "./util.js";

/** @type {AccountInfo | null | undefined} */
let cached = undefined; // undefined: not asked yet; null: signed out

// The community pages' own styles (style.css stays the game pages').
if (!document.querySelector('link[href="/static/community.css"]')) {
  document.head.append(h("link", { rel: "stylesheet", href: "/static/community.css" }));
}

/**
 * The signed-in account {username, csrf_token}, or null.
 * @param {boolean} [refresh] ask the server again
 * @returns {Promise<AccountInfo | null>}
 */
export async function currentAccount(refresh = false) {
  if (cached !== undefined && !refresh) return cached;
  // GET /api/session: a signed-out visitor is a null account, not a 401 (which the
  // browser would log as an error on every page)
  /** @type {{account: AccountInfo | null}} */
  const session = await request("GET", "/api/session");
  cached = session.account;
  return cached;
}

/** @param {AccountInfo | null} account */
export function setAccount(account) {
  cached = account;
}

/**
 * A state-changing request as the signed-in account (X-CSRF-Token, as the server asks).
 * The answer's type T is the caller's word for the route's JSON (schemas.py).
 * @template T
 * @param {string} method
 * @param {string} url
 * @param {unknown} [body]
 * @returns {Promise<T>}
 */
export async function send(method, url, body = undefined) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  /** @type {RequestInit} */
  const init = { method, headers };
  const account = await currentAccount();
  if (account) headers["X-CSRF-Token"] = account.csrf_token;
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  if (!response.ok) throw await parseError(response);
  // The caller's T: null for "204 No Content", else the JSON.
  return /** @type {T} */ (response.status === 204 ? null : await response.json());
}

/**
 * "1520" or "1500?" (provisional), as lichess shows a rating.
 * @param {PerfInfo | null | undefined} perf
 * @returns {string}
 */
export function ratingText(perf) {
  if (!perf) return "–";
  return `${perf.rating}${perf.provisional ? "?" : ""}`;
}

/**
 * A seek's clock as players say it: "5+3", "3 days a move".
 * @param {SeekClock | null} clock
 * @returns {string}
 */
export function clockText(clock) {
  if (!clock) return t("no clock");
  if ("days" in clock) return tn("{n} day a move", "{n} days a move", clock.days);
  const minutes = clock.initial / 60;
  const shown = Number.isInteger(minutes) ? String(minutes) : formatNumber(minutes, { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false });
  return `${shown}+${clock.increment}`;
}

/** @type {Record<string, string>} the time-control categories (the server's words) in words, as in "Rated blitz" */
const CATEGORY_WORD = { bullet: t("bullet"), blitz: t("blitz"), rapid: t("rapid"), classical: t("classical"), correspondence: t("correspondence") };

/**
 * A time-control category (the server's "blitz") as players read it.
 * @param {string} category
 * @returns {string}
 */
export function categoryWord(category) {
  return CATEGORY_WORD[category] ?? category;
}

/**
 * A translated sentence with elements in its holes, as children of h():
 * withNodes(t("Signed in as {name}"), { name: playerLink(name) }).
 * @param {string} text the sentence in the page's language, its holes left unfilled
 * @param {Record<string, Node | string>} nodes what goes in each hole
 * @returns {(Node | string)[]}
 */
export function withNodes(text, nodes) {
  return text
    .split(/\{(\w+)\}/)
    .map((part, i) => (i % 2 ? nodes[part] ?? `{${part}}` : part))
    .filter((part) => part !== "");
}

/**
 * A link to a player's page.
 * @param {string} name
 * @returns {HTMLAnchorElement}
 */
export function playerLink(name) {
  return h("a", { href: `/players/${encodeURIComponent(name)}`, translate: "no" }, name);
}
