// A player's page: ratings per category and games (filter by result).

import { request } from "./api.js";
import { playerLink, ratingText } from "./community.js";
import { h } from "./util.js";

const RESULT = { win: "Won", loss: "Lost", draw: "Drawn" };

async function draw(root, name, result) {
  const query = result ? `?result=${result}` : "";
  const who = encodeURIComponent(name);
  const [page, rivals] = await Promise.all([
    request("GET", `/api/users/${who}${query}`),
    request("GET", `/api/users/${who}/head-to-head`),
  ]);
  const ratings = Object.entries(page.ratings);
  const filter = h(
    "select",
    { "aria-label": "Show games", onchange: (e) => draw(root, name, e.target.value) },
    h("option", { value: "" }, "All games"),
    ...Object.entries(RESULT).map(([v, t]) => h("option", { value: v, selected: v === result }, t)),
  );
  const games = page.games.map((g) =>
    h(
      "tr",
      { dataset: { game: g.id } },
      h("td", {}, h("a", { href: `/play/${encodeURIComponent(g.id)}` }, g.status === "running" ? "Playing" : g.result || g.status)),
      h("td", {}, g.black === "Anonymous" || g.black === "Engine" ? g.black : playerLink(g.black), g.black_rating ? ` (${g.black_rating})` : ""),
      h("td", {}, g.white === "Anonymous" || g.white === "Engine" ? g.white : playerLink(g.white), g.white_rating ? ` (${g.white_rating})` : ""),
      h("td", {}, `${g.rated ? "Rated" : "Casual"}${g.category ? " " + g.category : ""}`),
      h("td", {}, RESULT[g.player_result] || ""),
    ),
  );
  root.replaceChildren(
    h("h1", {}, page.username),
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
    h(
      "section",
      { class: "card", "aria-label": "Games" },
      h("h2", {}, "Games ", filter),
      h(
        "table",
        { class: "player-games" },
        h("thead", {}, h("tr", {}, ...["Game", "Black", "White", "Type", "Result"].map((t) => h("th", {}, t)))),
        h("tbody", {}, ...(games.length ? games : [h("tr", {}, h("td", { colspan: 5 }, "No games."))])),
      ),
    ),
  );
}

export async function render(root, name) {
  await draw(root, name, "");
}
