// Entry point: route by location.pathname and load the page's module on demand.

import { ApiError, errorText, request } from "./api.js";
import { t } from "./i18n.js";
import { h } from "./util.js";

/**
 * A page's module: render() fills the page's root, with the parts of the path its
 * route captures (a game's id, a player's name).
 * @typedef {{render: (root: HTMLElement, ...parts: string[]) => Promise<void>}} PageModule
 */

const routes = [
  { pattern: /^\/$/, module: "./home.js", title: t("New game") },
  { pattern: /^\/play\/([^/]+)\/?$/, module: "./play.js", title: t("Game") },
  { pattern: /^\/analysis\/?$/, module: "./analysis.js", title: t("Analysis") },
  { pattern: /^\/archive\/?$/, module: "./archive.js", title: t("Archive") },
  { pattern: /^\/lobby\/?$/, module: "./lobby.js", title: t("Lobby") },
  { pattern: /^\/account\/?$/, module: "./account.js", title: t("Account") },
  { pattern: /^\/players\/([^/]+)\/?$/, module: "./player.js", title: t("Player") },
  { pattern: /^\/leaderboard\/?$/, module: "./leaderboard.js", title: t("Leaderboards") },
  { pattern: /^\/tournaments\/?$/, module: "./tournaments.js", title: t("Tournaments") },
  { pattern: /^\/tournaments\/([^/]+)\/?$/, module: "./tournament.js", title: t("Tournament") },
  { pattern: /^\/puzzles\/?$/, module: "./puzzles.js", title: t("Puzzles") },
  { pattern: /^\/puzzles\/([^/]+)\/?$/, module: "./puzzles.js", title: t("Puzzle") },
  { pattern: /^\/practice\/?$/, module: "./practice.js", title: t("Endgame practice") },
  { pattern: /^\/learn\/?$/, module: "./learn.js", title: t("Learn to play") },
  { pattern: /^\/editor\/?$/, module: "./editor.js", title: t("Board editor") },
  { pattern: /^\/rules\/?$/, module: "./rulebook.js", title: t("Rules") },
];

/**
 * The header's account links on every page: "Sign in" (back to this page after), or
 * the signed-in name (the player's page), Settings and Sign out.
 */
async function showAccount() {
  const box = document.getElementById("account-nav");
  if (!box) return;
  /** @type {{account: {username: string, csrf_token: string} | null}} */
  let session;
  try {
    session = await request("GET", "/api/session");
  } catch {
    return; // the server answers nothing: the page says so itself
  }
  const here = window.location.pathname + window.location.search;
  if (!session.account) {
    const next = here.startsWith("/account") ? "" : `?next=${encodeURIComponent(here)}`;
    box.replaceChildren(h("a", { href: `/account${next}`, id: "header-sign-in" }, t("Sign in")));
    return;
  }
  const { username, csrf_token: csrf } = session.account;
  const out = h("button", { type: "button", class: "link", id: "header-sign-out" }, t("Sign out"));
  out.addEventListener("click", async () => {
    try {
      await fetch("/api/account/logout", { method: "POST", headers: { "X-CSRF-Token": csrf } });
    } finally {
      window.location.assign("/");
    }
  });
  box.replaceChildren(
    h("a", { href: `/players/${encodeURIComponent(username)}`, id: "header-user", class: "user", translate: "no" }, username),
    h("a", { href: "/account", id: "header-settings" }, t("Settings")),
    out,
  );
}

/** Show the page of the location's path, or "Page not found". */
async function start() {
  const root = document.getElementById("app");
  if (!root) return; // index.html always has it
  const path = window.location.pathname;
  for (const route of routes) {
    const match = path.match(route.pattern);
    if (!match) continue;
    document.title = pageTitle(route.title);
    for (const link of document.querySelectorAll(".site-header nav a")) {
      if (link.getAttribute("href") === path) link.setAttribute("aria-current", "page");
    }
    try {
      /** @type {PageModule} */
      const page = await import(route.module);
      await page.render(root, ...match.slice(1).map(decodeURIComponent));
    } catch (err) {
      // A game or player that does not exist is an answer, not a fault of the page:
      // it is shown, and only real faults go on to the browser's error reporting.
      const missing = err instanceof ApiError && err.status === 404;
      document.title = pageTitle(missing ? t("Not found") : route.title);
      root.replaceChildren(
        h("h1", {}, missing ? t("Not found") : t("Something went wrong")),
        h("p", { class: "error", role: "alert" }, errorText(err)),
        h("p", {}, h("a", { href: "/" }, t("Back to the start page"))),
      );
      if (!missing) throw err;
    }
    return;
  }
  document.title = pageTitle(t("Not found"));
  root.replaceChildren(
    h("h1", {}, t("Page not found")),
    h("p", {}, h("a", { href: "/" }, t("Start a new game"))),
  );
}

/**
 * The window's title of a page: "Lobby · Pool Checkers".
 * @param {string} title the page's title, in the page's language
 * @returns {string}
 */
function pageTitle(title) {
  return t("{title} · Pool Checkers", { title });
}

/**
 * The language menu at the foot of every page: the choice is kept by the server (the
 * account's, or the browser's cookie), and the page comes again in that language.
 */
function bindLanguageMenu() {
  const menu = document.getElementById("language");
  if (!(menu instanceof HTMLSelectElement)) return;
  let previous = menu.value;
  menu.addEventListener("change", async () => {
    const chosen = menu.value;
    try {
      // as the signed-in account when there is one (its X-CSRF-Token): the choice is
      // kept on the account too; loaded only now, the pages need it not
      const { send } = await import("./community.js");
      await send("POST", "/api/language", { locale: chosen });
    } catch (err) {
      const alerts = document.getElementById("alerts");
      if (alerts) alerts.textContent = errorText(err);
      menu.value = previous;
      return;
    }
    previous = chosen;
    window.location.reload();
  });
}

start();
showAccount();
bindLanguageMenu();
