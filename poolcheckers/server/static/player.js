// A player's page: ratings per category with the rating-history plot, the games
// being played now, results against each opponent, and the games, paginated and
// filtered by result, time-control category and rated/casual. The filters and the
// page live in the URL query (?result=&category=&rated=&page=), so a filtered view
// can be shared and reloaded. Display only: every game fact comes from the server.

/** @import { HeadToHeadRow, PerfInfo, PlayerGame, PlayerPage, TournamentSummary } from "./types.js" */

import { request } from "./api.js";
import { challengeForm } from "./challenges.js";
import { currentAccount, playerLink, ratingText } from "./community.js";
import { ruleOptions } from "./rules.js";
import { describe } from "./tournaments.js";
import { t, tn } from "./i18n.js";
import { h } from "./util.js";

/** @type {Record<string, string>} */
const RESULT = { win: t("Won"), loss: t("Lost"), draw: t("Drawn") };
/** A game decided by forfeit: a side did not make its first move (a tournament's rule). */
const FORFEIT = { win: t("Won by forfeit"), loss: t("Lost by forfeit") };
const CATEGORIES = ["bullet", "blitz", "rapid", "classical", "correspondence"];
/** @type {Record<string, string>} the time-control categories in words, as in "Rated blitz" */
const CATEGORY_WORD = { bullet: t("bullet"), blitz: t("blitz"), rapid: t("rapid"), classical: t("classical"), correspondence: t("correspondence") };
/** @type {Record<string, string>} the same, as a choice of the filter */
const CATEGORY_TITLE = { bullet: t("Bullet"), blitz: t("Blitz"), rapid: t("Rapid"), classical: t("Classical"), correspondence: t("Correspondence") };
/** @type {Record<string, string>} */
const RATED = { true: t("Rated"), false: t("Casual") };
/** @type {Record<string, string>} a game's or an event's status (the server's word) in words */
const STATUS = { created: t("created"), running: t("running"), finished: t("finished"), aborted: t("aborted") };
const PAGE_SIZE = 20;
let drawn = 0; // the latest view asked for: an older answer arriving late is dropped

/**
 * The games' view of the URL query: filters ("" for all) and the page (1-based).
 * @typedef {{result: string, category: string, rated: string, page: number}} View
 */

/** @typedef {"result" | "category" | "rated"} FilterKey */

/** @type {FilterKey[]} */
const FILTERS = ["result", "category", "rated"];

/** @typedef {(view: View) => void} Go */

/**
 * @param {string} name
 * @param {number | null} rating
 * @param {number | null} [level] the engine's, in a game against it
 * @returns {HTMLTableCellElement}
 */
function nameCell(name, rating, level) {
  return h("td", {}, playerName(name, level), rating ? ` (${rating})` : "");
}

/**
 * A player's name, linked to their page; the server's "Anonymous" and "Engine" (no
 * account, no page) in words, the engine with its level when the game has one.
 * @param {string} name
 * @param {number | null} [level]
 * @returns {HTMLElement | string}
 */
function playerName(name, level) {
  return name === "Anonymous" || name === "Engine" ? nameText(name, level) : playerLink(name);
}

/**
 * A player's name as text (no link), the server's "Anonymous" and "Engine" in words.
 * @param {string} name
 * @param {number | null} [level]
 * @returns {string}
 */
function nameText(name, level) {
  if (name === "Anonymous") return t("Anonymous");
  if (name === "Engine") return typeof level === "number" ? t("Engine (level {level})", { level }) : t("Engine");
  return name;
}

/**
 * @param {PlayerGame} g
 * @returns {string}
 */
function typeText(g) {
  if (!g.category) return g.rated ? t("Rated") : t("Casual");
  const category = CATEGORY_WORD[g.category] ?? g.category;
  return g.rated ? t("Rated {category}", { category }) : t("Casual {category}", { category });
}

/**
 * The view asked for by the URL query, with unknown values dropped.
 * @param {string} search
 * @returns {View}
 */
function readQuery(search) {
  const q = new URLSearchParams(search);
  const pick = (/** @type {string} */ key, /** @type {string[]} */ allowed) => {
    const value = q.get(key) ?? "";
    return allowed.includes(value) ? value : "";
  };
  const page = Number.parseInt(q.get("page") || "1", 10);
  return {
    result: pick("result", Object.keys(RESULT)),
    category: pick("category", CATEGORIES),
    rated: pick("rated", Object.keys(RATED)),
    page: Number.isFinite(page) && page > 1 ? page : 1,
  };
}

/**
 * @param {View} view
 * @returns {string}
 */
function queryString(view) {
  const q = new URLSearchParams();
  for (const key of FILTERS) if (view[key]) q.set(key, view[key]);
  if (view.page > 1) q.set("page", String(view.page));
  const text = q.toString();
  return text ? `?${text}` : "";
}

/**
 * A filter of the games: choosing a value shows its first page.
 * @param {string} label
 * @param {FilterKey} key
 * @param {[string, string][]} options value and words
 * @param {View} view
 * @param {Go} go
 * @returns {HTMLSelectElement}
 */
function filterSelect(label, key, options, view, go) {
  const select = h(
    "select",
    { "aria-label": label, name: key },
    ...options.map(([value, text]) => h("option", { value, selected: value === view[key] }, text)),
  );
  select.addEventListener("change", () => go({ ...view, [key]: select.value, page: 1 }));
  return select;
}

/**
 * @param {PlayerPage} page
 * @returns {HTMLElement | null}
 */
function currentSection(page) {
  if (!page.current.length) return null;
  return h(
    "section",
    { class: "card current-games", "aria-label": t("Playing now") },
    h("h2", {}, t("Playing now ({count})", { count: page.current.length })),
    h(
      "ul",
      { class: "current" },
      ...page.current.map((g) =>
        h(
          "li",
          { dataset: { game: g.id } },
          h("a", { href: `/play/${encodeURIComponent(g.id)}` }, `${nameText(g.black, g.level)} – ${nameText(g.white, g.level)}`),
          ` · ${typeText(g)}`,
          " · ",
          g.ply ? t("move {number}", { number: Math.ceil(g.ply / 2) }) : t("no move yet"),
        ),
      ),
    ),
  );
}

/**
 * A row of the games table.
 * @param {PlayerGame} g
 * @returns {HTMLTableRowElement}
 */
function gameRow(g) {
  return h(
    "tr",
    { dataset: { game: g.id } },
    h("td", {}, h("a", { href: `/play/${encodeURIComponent(g.id)}` }, g.status === "running" ? t("Playing") : g.result || STATUS[g.status] || g.status)),
    nameCell(g.black, g.black_rating, g.level),
    nameCell(g.white, g.white_rating, g.level),
    h("td", {}, typeText(g)),
    h("td", {}, (g.player_result && g.forfeit && g.player_result !== "draw" ? FORFEIT[g.player_result] : g.player_result && RESULT[g.player_result]) || ""),
  );
}

/**
 * The pager's buttons and where they are, when the games fill more than a page.
 * @param {View} view
 * @param {number} pages
 * @param {Go} go
 * @returns {HTMLElement | null}
 */
function pager(view, pages, go) {
  if (pages <= 1) return null;
  const step = (/** @type {number} */ delta, /** @type {string} */ text, /** @type {boolean} */ disabled) =>
    h("button", { type: "button", class: `page-${delta < 0 ? "prev" : "next"}`, disabled, onclick: () => go({ ...view, page: view.page + delta }) }, text);
  return h(
    "nav",
    { class: "pager", "aria-label": t("Pages of games") },
    step(-1, t("← Previous"), view.page <= 1),
    h("span", {}, " ", t("Page {page} of {pages}", { page: view.page, pages }), " "),
    step(1, t("Next →"), view.page >= pages),
  );
}

/**
 * The games: filters, count, table and pager.
 * @param {PlayerPage} page
 * @param {View} view
 * @param {Go} go
 * @returns {HTMLElement}
 */
function gamesSection(page, view, go) {
  const first = page.total ? (view.page - 1) * PAGE_SIZE + 1 : 0;
  const last = (view.page - 1) * PAGE_SIZE + page.games.length;
  const pages = Math.max(1, Math.ceil(page.total / PAGE_SIZE));
  const rows = page.games.map(gameRow);
  return h(
    "section",
    { class: "card", "aria-label": t("Games") },
    h("h2", {}, t("Games")),
    h(
      "div",
      { class: "game-filters" },
      filterSelect(t("Result"), "result", [["", t("All results")], ...Object.entries(RESULT)], view, go),
      filterSelect(t("Time control"), "category", [["", t("All time controls")], ...CATEGORIES.map((c) => /** @type {[string, string]} */ ([c, CATEGORY_TITLE[c]]))], view, go),
      filterSelect(t("Rated or casual"), "rated", [["", t("Rated and casual")], ...Object.entries(RATED)], view, go),
    ),
    h("p", { class: "games-count", "aria-live": "polite" }, page.total ? t("Games {first}–{last} of {total}", { first, last, total: page.total }) : t("No games match.")),
    h(
      "div",
      { class: "table-scroll" },
      h(
        "table",
        { class: "player-games" },
        h("thead", {}, h("tr", {}, ...[t("Game"), t("Black"), t("White"), t("Type"), t("Result")].map((label) => h("th", {}, label)))),
        h("tbody", {}, ...(rows.length ? rows : [h("tr", {}, h("td", { colspan: 5 }, t("No games.")))])),
      ),
    ),
    pager(view, pages, go),
  );
}

/**
 * The ratings with the rating-history plot.
 * @param {PlayerPage} page
 * @returns {HTMLElement}
 */
function ratingsSection(page) {
  const ratings = Object.entries(page.ratings);
  const who = encodeURIComponent(page.username);
  const stats = page.stats || {};
  // each category: the rating, its rated games and their results (the same games: those
  // that changed the rating), and the best rating reached
  const line = (/** @type {string} */ cat, /** @type {PerfInfo} */ perf) => {
    const s = stats[cat];
    const best = s && s.best !== null ? ` · ${t("best {rating}", { rating: String(s.best) })}` : "";
    const record = s ? h("span", { class: "record", title: t("won, drawn, lost") }, `: +${s.wins} =${s.draws} −${s.losses}`) : "";
    const games = h("span", { class: "rated-games" }, tn("{n} rated game", "{n} rated games", perf.games));
    return h("li", { dataset: { category: cat } }, `${CATEGORY_WORD[cat] ?? cat}: `, h("strong", {}, ratingText(perf)), " · ", games, record, best);
  };
  // the chart over a time range, drawn for the screen it is seen on (larger type on a phone)
  const small = window.matchMedia("(max-width: 600px)").matches;
  const plot = h("img", { class: "rating-plot", alt: t("Rating history of {name}", { name: page.username }), width: small ? 420 : 800, height: small ? 340 : 320 });
  const show = (/** @type {string} */ span) => {
    plot.setAttribute("src", `/api/users/${who}/rating-history.svg?range=${span}&size=${small ? "phone" : "wide"}`);
    for (const b of spans.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.getAttribute("data-range") === span));
  };
  const spans = h(
    "div",
    { class: "row chart-range", role: "group", "aria-label": t("Time range") },
    ...[["month", t("Past month")], ["year", t("Past year")], ["all", t("All time")]].map(([span, label]) =>
      h("button", { type: "button", class: "small", "data-range": span, "aria-pressed": "false", onclick: () => show(span) }, label),
    ),
  );
  if (ratings.length) show("all");
  return h(
    "section",
    { class: "card", "aria-label": t("Ratings") },
    h("h2", {}, t("Ratings")),
    ratings.length ? h("ul", { class: "ratings" }, ...ratings.map(([cat, perf]) => line(cat, perf))) : h("p", {}, t("No rated game yet.")),
    ratings.length ? spans : null,
    ratings.length ? plot : null,
  );
}

/**
 * The results against each opponent (none: no section).
 * @param {HeadToHeadRow[]} rivals
 * @returns {HTMLElement | null}
 */
function rivalsSection(rivals) {
  if (!rivals.length) return null;
  return h(
    "section",
    { class: "card", "aria-label": t("Against each opponent") },
    h("h2", {}, t("Against each opponent")),
    h("ul", { class: "rivals" }, ...rivals.map((r) => h("li", {}, playerName(r.opponent), ` +${r.wins} =${r.draws} −${r.losses}`))),
  );
}

/**
 * The events the player joined, newest first.
 * @param {TournamentSummary[]} events
 * @returns {HTMLElement | null}
 */
function eventsSection(events) {
  if (!events.length) return null;
  return h(
    "section",
    { class: "card", "aria-label": t("Tournaments") },
    h("h2", {}, t("Tournaments")),
    h(
      "ul",
      { class: "events" },
      ...events.map((e) => h("li", {}, h("a", { href: `/tournaments/${encodeURIComponent(e.id)}` }, e.name), ` — ${describe(e)} · ${STATUS[e.status] ?? e.status}`)),
    ),
  );
}

/**
 * Show the player's page for `view`, asked of the server (a later view wins).
 * @param {HTMLElement} root
 * @param {string} name
 * @param {View} view
 * @param {HeadToHeadRow[]} rivals
 * @param {TournamentSummary[]} events
 * @returns {Promise<void>}
 */
async function draw(root, name, view, rivals, events) {
  const who = encodeURIComponent(name);
  const q = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String((view.page - 1) * PAGE_SIZE) });
  for (const key of FILTERS) if (view[key]) q.set(key, view[key]);
  const asked = ++drawn;
  /** @type {PlayerPage} */
  const page = await request("GET", `/api/users/${who}?${q}`);
  if (asked !== drawn) return;
  if (view.page > 1 && !page.games.length && page.total) {
    // past the last page (a shared link, games since removed): show the last one
    const lastPage = { ...view, page: Math.ceil(page.total / PAGE_SIZE) };
    window.history.replaceState(null, "", window.location.pathname + queryString(lastPage));
    return draw(root, name, lastPage, rivals, events);
  }
  /** @type {Go} */
  const go = (next) => {
    window.history.pushState(null, "", window.location.pathname + queryString(next));
    draw(root, name, next, rivals, events);
  };
  const account = await currentAccount();
  const canChallenge = account !== null && account.username.toLowerCase() !== page.username.toLowerCase();
  const sections = [
    canChallenge ? challengeForm(page.username, await ruleOptions().catch(() => null)) : null,
    currentSection(page),
    ratingsSection(page),
    rivalsSection(rivals),
    eventsSection(events),
    gamesSection(page, view, go),
  ];
  // replaceChildren would write a missing section (null) as the text "null".
  // a bot account is marked as on lichess: BOT before the name
  const title = h("h1", {}, page.bot ? h("span", { class: "bot-mark", title: t("a bot account: a program plays") }, t("BOT"), " ") : "", h("span", { translate: "no" }, page.username));
  root.replaceChildren(title, ...sections.filter((s) => s !== null));
}

/**
 * @param {HTMLElement} root
 * @param {string} name the player's name (from the URL)
 */
export async function render(root, name) {
  /** @type {HeadToHeadRow[]} */
  const rivals = await request("GET", `/api/users/${encodeURIComponent(name)}/head-to-head`);
  /** @type {TournamentSummary[]} */
  const events = await request("GET", `/api/users/${encodeURIComponent(name)}/tournaments`);
  const show = () => draw(root, name, readQuery(window.location.search), rivals, events);
  window.addEventListener("popstate", show);
  await show();
}
