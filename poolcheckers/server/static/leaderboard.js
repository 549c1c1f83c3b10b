// Leaderboards: the best settled ratings of each category (RD at most 75).

/** @import { LeaderboardRow } from "./types.js" */

import { request } from "./api.js";
import { playerLink } from "./community.js";
import { h } from "./util.js";

const CATEGORIES = ["bullet", "blitz", "rapid", "classical", "correspondence"];

/**
 * @param {HTMLElement} root
 */
export async function render(root) {
  const boards = await Promise.all(
    CATEGORIES.map((c) => /** @type {Promise<LeaderboardRow[]>} */ (request("GET", `/api/leaderboard/${c}`))),
  );
  root.replaceChildren(
    h("h1", {}, "Leaderboards"),
    h("p", {}, "Players with a rated game in the last year whose rating has settled (rating deviation at most 75)."),
    ...CATEGORIES.map((category, i) =>
      h(
        "section",
        { class: "card", "aria-label": category, dataset: { category } },
        h("h2", {}, category[0].toUpperCase() + category.slice(1)),
        boards[i].length
          ? h("ol", { class: "leaderboard" }, ...boards[i].map((e) => h("li", {}, playerLink(e.username), ` ${e.rating} (${e.games} games)`)))
          : h("p", {}, "Nobody yet."),
      ),
    ),
  );
}
