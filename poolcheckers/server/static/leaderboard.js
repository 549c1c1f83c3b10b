// Leaderboards: the best settled ratings of each category (RD at most 75).

/** @import { LeaderboardRow } from "./types.js" */
/** @typedef {{username: string, rating: number, games: number, more_games: number}} WaitingRow */

import { request } from "./api.js";
import { playerLink } from "./community.js";
import { h, plural } from "./util.js";

const CATEGORIES = ["bullet", "blitz", "rapid", "classical", "correspondence"];

/**
 * @param {HTMLElement} root
 */
export async function render(root) {
  const boards = await Promise.all(
    CATEGORIES.map((c) => /** @type {Promise<LeaderboardRow[]>} */ (request("GET", `/api/leaderboard/${c}`))),
  );
  // an empty board says who is on the way and how far: "Ann needs about 3 more games"
  const waiting = await Promise.all(
    CATEGORIES.map((c, i) => (boards[i].length ? Promise.resolve([]) : /** @type {Promise<WaitingRow[]>} */ (request("GET", `/api/leaderboard/${c}/waiting`)))),
  );
  root.replaceChildren(
    h("h1", {}, "Leaderboards"),
    h("p", {}, "Players with a rated game in the last year whose rating has settled (rating deviation at most 75): about 15 to 25 rated games in a category."),
    ...CATEGORIES.map((category, i) =>
      h(
        "section",
        { class: "card", "aria-label": category, dataset: { category } },
        h("h2", {}, category[0].toUpperCase() + category.slice(1)),
        boards[i].length
          ? h("ol", { class: "leaderboard" }, ...boards[i].map((e) => h("li", {}, playerLink(e.username), ` ${e.rating} (${e.games} games)`)))
          : emptyBoard(category, waiting[i]),
      ),
    ),
  );
}

/**
 * What an empty leaderboard says: who plays this category and how many more rated
 * games settle each rating, or that nobody has played it lately.
 * @param {string} category
 * @param {WaitingRow[]} waiting
 * @returns {HTMLElement}
 */
function emptyBoard(category, waiting) {
  if (!waiting.length) return h("p", { class: "hint" }, `Nobody has played a rated ${category} game in the last year.`);
  return h(
    "div",
    { class: "waiting" },
    h("p", {}, "No rating has settled yet. Closest to qualifying:"),
    h("ul", { class: "leaderboard waiting-list" }, ...waiting.map((e) => h("li", {}, playerLink(e.username), ` ${e.rating}? (${plural(e.games, "game")}): about ${plural(e.more_games, "more rated game", "more rated games")}`))),
  );
}
