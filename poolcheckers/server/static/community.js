// Accounts, lobby and player pages (docs/CONTRACTS.md §3.2): the signed-in account,
// requests that carry its CSRF token, and small shared views. Names from the server
// are always put in the page as text (h() makes text nodes), never as HTML.

import { request } from "./api.js";
import { h } from "./util.js";

let cached = undefined; // undefined: not asked yet; null: signed out

// The community pages' own styles (style.css stays the game pages').
if (!document.querySelector('link[href="/static/community.css"]')) {
  document.head.append(h("link", { rel: "stylesheet", href: "/static/community.css" }));
}

/** The signed-in account {username, csrf_token}, or null. */
export async function currentAccount(refresh = false) {
  if (cached !== undefined && !refresh) return cached;
  try {
    cached = await request("GET", "/api/account");
  } catch (err) {
    if (err.status !== 401) throw err;
    cached = null;
  }
  return cached;
}

export function setAccount(account) {
  cached = account;
}

/** A state-changing request as the signed-in account (X-CSRF-Token, as the server asks). */
export async function send(method, url, body = undefined) {
  const init = { method, headers: { Accept: "application/json" } };
  const account = await currentAccount();
  if (account) init.headers["X-CSRF-Token"] = account.csrf_token;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      const data = await response.json();
      if (data && data.error) message = data.error.message;
    } catch {
      /* not JSON */
    }
    const err = new Error(message);
    err.status = response.status;
    throw err;
  }
  return response.status === 204 ? null : response.json();
}

/** "1520" or "1500?" (provisional), as lichess shows a rating. */
export function ratingText(perf) {
  if (!perf) return "–";
  return `${perf.rating}${perf.provisional ? "?" : ""}`;
}

export function clockText(clock) {
  if (!clock) return "no clock";
  if (clock.days !== undefined) return `${clock.days} day${clock.days === 1 ? "" : "s"} a move`;
  const minutes = clock.initial / 60;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)}+${clock.increment}`;
}

export function playerLink(name) {
  return h("a", { href: `/players/${encodeURIComponent(name)}` }, name);
}
