// Leaderboards: the best settled ratings of each category (RD at most 75).

/** @import { LeaderboardRow } from "./types.js" */
/** @typedef {{username: string, rating: number, games: number, more_games: number}} WaitingRow */

import { request } from "./api.js";
import { categoryWord, playerLink } from "./community.js";
import { t, tn } from "./i18n.js";
import { h } from "./util.js";

const CATEGORIES = ["bullet", "blitz", "rapid", "classical", "correspondence"];
/** @type {Record<string, string>} each category's board title */
const CATEGORY_TITLE = { bullet: t("Bullet"), blitz: t("Blitz"), rapid: t("Rapid"), classical: t("Classical"), correspondence: t("Correspondence") };

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
    h("h1", {}, t("Leaderboards")),
    h("p", {}, t("Players with a rated game in the last year whose rating has settled (rating deviation at most 75): about 15 to 25 rated games in a category.")),
    ...CATEGORIES.map((category, i) =>
      h(
        "section",
        { class: "card", "aria-label": CATEGORY_TITLE[category], dataset: { category } },
        h("h2", {}, CATEGORY_TITLE[category]),
        boards[i].length
          ? h("ol", { class: "leaderboard" }, ...boards[i].map((e) => h("li", {}, playerLink(e.username), ` ${e.rating} `, tn("({n} game)", "({n} games)", e.games))))
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
  if (!waiting.length) return h("p", { class: "hint" }, t("Nobody has played a rated {category} game in the last year.", { category: categoryWord(category) }));
  /** @param {WaitingRow} e */
  const need = (e) => {
    // each count in its own words, then the sentence around them
    const games = tn("{n} game", "{n} games", e.games);
    const more = tn("{n} more rated game", "{n} more rated games", e.more_games);
    return t("({games}): about {more}", { games, more });
  };
  return h(
    "div",
    { class: "waiting" },
    h("p", {}, t("No rating has settled yet. Closest to qualifying:")),
    h("ul", { class: "leaderboard waiting-list" }, ...waiting.map((e) => h("li", {}, playerLink(e.username), ` ${e.rating}? `, need(e)))),
  );
}
