// A player's page: ratings per category with the rating-history plot, the games
// being played now, results against each opponent, and the games, paginated and
// filtered by result, time-control category and rated/casual. The filters and the
// page live in the URL query (?result=&category=&rated=&page=), so a filtered view
// can be shared and reloaded. Display only: every game fact comes from the server.

import { request } from "./api.js";
import { playerLink, ratingText } from "./community.js";
import { h } from "./util.js";

const RESULT = { win: "Won", loss: "Lost", draw: "Drawn" };
const CATEGORIES = ["bullet", "blitz", "rapid", "classical", "correspondence"];
const RATED = { true: "Rated", false: "Casual" };
const PAGE_SIZE = 20;
let drawn = 0; // the latest view asked for: an older answer arriving late is dropped

function nameCell(name, rating) {
  const who = name === "Anonymous" || name === "Engine" ? name : playerLink(name);
  return h("td", {}, who, rating ? ` (${rating})` : "");
}

function typeText(g) {
  return `${g.rated ? "Rated" : "Casual"}${g.category ? " " + g.category : ""}`;
}

/** The view asked for by the URL query, with unknown values dropped. */
function readQuery(search) {
  const q = new URLSearchParams(search);
  const pick = (key, allowed) => (allowed.includes(q.get(key)) ? q.get(key) : "");
  const page = Number.parseInt(q.get("page") || "1", 10);
  return {
    result: pick("result", Object.keys(RESULT)),
    category: pick("category", CATEGORIES),
    rated: pick("rated", Object.keys(RATED)),
    page: Number.isFinite(page) && page > 1 ? page : 1,
  };
}

function queryString(view) {
  const q = new URLSearchParams();
  for (const key of ["result", "category", "rated"]) if (view[key]) q.set(key, view[key]);
  if (view.page > 1) q.set("page", String(view.page));
  const text = q.toString();
  return text ? `?${text}` : "";
}

function filterSelect(label, key, options, view, go) {
  return h(
    "select",
    { "aria-label": label, name: key, onchange: (e) => go({ ...view, [key]: e.target.value, page: 1 }) },
    ...options.map(([value, text]) => h("option", { value, selected: value === view[key] }, text)),
  );
}

function currentSection(page) {
  if (!page.current.length) return null;
  return h(
    "section",
    { class: "card current-games", "aria-label": "Playing now" },
    h("h2", {}, `Playing now (${page.current.length})`),
    h(
      "ul",
      { class: "current" },
      ...page.current.map((g) =>
        h(
          "li",
          { dataset: { game: g.id } },
          h("a", { href: `/play/${encodeURIComponent(g.id)}` }, `${g.black} – ${g.white}`),
          ` · ${typeText(g)}`,
          g.ply ? ` · move ${Math.ceil(g.ply / 2)}` : " · no move yet",
        ),
      ),
    ),
  );
}

function gamesSection(page, view, go) {
  const first = page.total ? (view.page - 1) * PAGE_SIZE + 1 : 0;
  const last = (view.page - 1) * PAGE_SIZE + page.games.length;
  const pages = Math.max(1, Math.ceil(page.total / PAGE_SIZE));
  const rows = page.games.map((g) =>
    h(
      "tr",
      { dataset: { game: g.id } },
      h("td", {}, h("a", { href: `/play/${encodeURIComponent(g.id)}` }, g.status === "running" ? "Playing" : g.result || g.status)),
      nameCell(g.black, g.black_rating),
      nameCell(g.white, g.white_rating),
      h("td", {}, typeText(g)),
      h("td", {}, RESULT[g.player_result] || ""),
    ),
  );
  const step = (delta, text, disabled) =>
    h("button", { type: "button", class: `page-${delta < 0 ? "prev" : "next"}`, disabled, onclick: () => go({ ...view, page: view.page + delta }) }, text);
  return h(
    "section",
    { class: "card", "aria-label": "Games" },
    h("h2", {}, "Games"),
    h(
      "div",
      { class: "game-filters" },
      filterSelect("Result", "result", [["", "All results"], ...Object.entries(RESULT)], view, go),
      filterSelect("Time control", "category", [["", "All time controls"], ...CATEGORIES.map((c) => [c, c[0].toUpperCase() + c.slice(1)])], view, go),
      filterSelect("Rated or casual", "rated", [["", "Rated and casual"], ...Object.entries(RATED)], view, go),
    ),
    h("p", { class: "games-count", "aria-live": "polite" }, page.total ? `Games ${first}–${last} of ${page.total}` : "No games match."),
    h(
      "div",
      { class: "table-scroll" },
      h(
        "table",
        { class: "player-games" },
        h("thead", {}, h("tr", {}, ...["Game", "Black", "White", "Type", "Result"].map((t) => h("th", {}, t)))),
        h("tbody", {}, ...(rows.length ? rows : [h("tr", {}, h("td", { colspan: 5 }, "No games."))])),
      ),
    ),
    pages > 1
      ? h(
          "nav",
          { class: "pager", "aria-label": "Pages of games" },
          step(-1, "← Previous", view.page <= 1),
          h("span", {}, ` Page ${view.page} of ${pages} `),
          step(1, "Next →", view.page >= pages),
        )
      : null,
  );
}

async function draw(root, name, view, rivals) {
  const who = encodeURIComponent(name);
  const q = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String((view.page - 1) * PAGE_SIZE) });
  for (const key of ["result", "category", "rated"]) if (view[key]) q.set(key, view[key]);
  const asked = ++drawn;
  const page = await request("GET", `/api/users/${who}?${q}`);
  if (asked !== drawn) return;
  if (view.page > 1 && !page.games.length && page.total) {
    // past the last page (a shared link, games since removed): show the last one
    const lastPage = { ...view, page: Math.ceil(page.total / PAGE_SIZE) };
    window.history.replaceState(null, "", window.location.pathname + queryString(lastPage));
    return draw(root, name, lastPage, rivals);
  }
  const go = (next) => {
    window.history.pushState(null, "", window.location.pathname + queryString(next));
    draw(root, name, next, rivals);
  };
  const ratings = Object.entries(page.ratings);
  root.replaceChildren(
    h("h1", {}, page.username),
    currentSection(page),
    h(
      "section",
      { class: "card", "aria-label": "Ratings" },
      h("h2", {}, "Ratings"),
      ratings.length
        ? h("ul", { class: "ratings" }, ...ratings.map(([cat, perf]) => h("li", { dataset: { category: cat } }, `${cat}: `, h("strong", {}, ratingText(perf)), ` (${perf.games} game${perf.games === 1 ? "" : "s"})`)))
        : h("p", {}, "No rated game yet."),
      ratings.length
        ? h("img", { class: "rating-plot", src: `/api/users/${who}/rating-history.svg`, alt: `Rating history of ${page.username}`, width: 800, height: 320 })
        : null,
    ),
    rivals.length
      ? h(
          "section",
          { class: "card", "aria-label": "Against each opponent" },
          h("h2", {}, "Against each opponent"),
          h("ul", { class: "rivals" }, ...rivals.map((r) => h("li", {}, r.opponent === "Anonymous" || r.opponent === "Engine" ? r.opponent : playerLink(r.opponent), ` +${r.wins} =${r.draws} −${r.losses}`))),
        )
      : null,
    gamesSection(page, view, go),
  );
}

export async function render(root, name) {
  const rivals = await request("GET", `/api/users/${encodeURIComponent(name)}/head-to-head`);
  const show = () => draw(root, name, readQuery(window.location.search), rivals);
  window.addEventListener("popstate", show);
  await show();
}
