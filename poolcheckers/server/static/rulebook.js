// The rules page /rules: every rule in plain words with a position that shows it
// (the server's words and the rules library's moves: GET /api/rulebook). Each rule
// is an anchor (/rules#R11), so that a refused move elsewhere can link to its rule.

/** @import { Color } from "./types.js" */

import { errorText, request } from "./api.js";
import { t } from "./i18n.js";
import { h, miniBoard } from "./util.js";
import "./community.js";

/**
 * @typedef {object} RuleEntry
 * @property {string} id the anchor (never shown)
 * @property {string} section
 * @property {string} title
 * @property {string} text
 * @property {string} note what to see in the position
 * @property {string | null} board the 32 squares (b/w men, B/W kings, .)
 * @property {Color | null} turn
 * @property {string[]} moves the legal moves of the position
 */

/**
 * The moves the side to move has, in words: "Black to move: 9-14, 10-15."
 * @param {Color} turn
 * @param {string[]} moves
 * @returns {string}
 */
function movesText(turn, moves) {
  if (!moves.length) return turn === "white" ? t("White to move, and no move left.") : t("Black to move, and no move left.");
  const list = moves.join(", ");
  return turn === "white" ? t("White to move: {moves}.", { moves: list }) : t("Black to move: {moves}.", { moves: list });
}

/**
 * One rule: its words and its position with the moves the side to move has.
 * @param {RuleEntry} rule
 * @returns {HTMLElement}
 */
function ruleCard(rule) {
  /** @type {HTMLElement[]} */
  const parts = [h("h3", {}, rule.title), h("p", {}, rule.text)];
  if (rule.board && rule.turn) {
    const moves = movesText(rule.turn, rule.moves);
    parts.push(
      h(
        "figure",
        { class: "rule-figure" },
        miniBoard(rule.board, { numbers: true, label: `${rule.title}: ${rule.note || moves}` }),
        h("figcaption", {}, rule.note ? `${rule.note} ` : "", h("span", { class: "rule-moves" }, moves)),
      ),
    );
  }
  return h("section", { class: "card rule", id: rule.id, tabindex: "-1" }, ...parts);
}

/** @param {HTMLElement} root */
export async function render(root) {
  root.replaceChildren(h("h1", {}, t("The rules")), h("p", { class: "loading" }, t("Loading…")));
  /** @type {{rules: RuleEntry[]}} */
  let data;
  try {
    data = await request("GET", "/api/rulebook");
  } catch (err) {
    root.replaceChildren(h("h1", {}, t("The rules")), h("p", { class: "error", role: "alert" }, errorText(err)));
    return;
  }
  /** @type {Map<string, RuleEntry[]>} */
  const sections = new Map();
  for (const rule of data.rules) {
    const list = sections.get(rule.section) || [];
    list.push(rule);
    sections.set(rule.section, list);
  }
  const contents = h("nav", { class: "rule-contents", "aria-label": t("Sections") }, ...[...sections.keys()].map((name, i) => h("a", { href: `#section-${i + 1}` }, name)));
  root.replaceChildren(
    h("div", { class: "rules-page" },
      h("h1", {}, t("The rules of American pool checkers")),
      h("p", { class: "lead" }, t("Pool checkers is checkers with flying kings, men that capture backward, and free choice of captures. These are the rules of the American Pool Checker Association, which this site plays.")),
      contents,
      ...[...sections.entries()].map(([name, rules], i) => h("section", { class: "rule-section", "aria-labelledby": `section-${i + 1}` }, h("h2", { id: `section-${i + 1}` }, name), ...rules.map(ruleCard))),
    ),
  );
  // the rule a link points to (/rules#R11): in view, and announced by its heading
  const target = window.location.hash ? document.getElementById(window.location.hash.slice(1)) : null;
  if (target) {
    target.classList.add("linked");
    target.scrollIntoView({ block: "start" });
    target.focus({ preventScroll: true });
  }
}
