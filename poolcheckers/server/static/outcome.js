// How a game ended, in the page's language: the server sends the ending as data
// (termination and winner, OutcomeInfo) beside the rules library's English words;
// the words shown are made here from the data, and the rule the ending follows
// (R16-R20) links to the rules page. An ending this module does not know keeps the
// server's words.

/** @import { OutcomeInfo } from "./types.js" */

import { t, tn } from "./i18n.js";
import { plainWords } from "./util.js";

/**
 * The rule of each ending (docs/RULES.md), for the rules page's anchor.
 * @type {Record<string, string>}
 */
const RULE = { no_moves: "R16", move_limit: "R18", three_kings: "R19", agreement: "R17", resignation: "R20", time: "R20" };

/**
 * The words of a decided ending, by who won.
 * @param {string} termination
 * @param {boolean} blackWon
 * @param {{noPieces?: boolean, limit?: number}} facts
 * @returns {string | null}
 */
function wonBy(termination, blackWon, facts) {
  switch (termination) {
    case "no_moves":
      if (facts.noPieces) return blackWon ? t("White has no pieces left") : t("Black has no pieces left");
      return blackWon ? t("White has no legal move") : t("Black has no legal move");
    case "resignation":
      return blackWon ? t("White resigned: Black wins") : t("Black resigned: White wins");
    case "time":
      return blackWon ? t("White ran out of time: Black wins") : t("Black ran out of time: White wins");
    case "three_kings":
      return blackWon
        ? t("Black wins: White's three kings did not capture the lone king within 13 moves, a loss by the rule set's option")
        : t("White wins: Black's three kings did not capture the lone king within 13 moves, a loss by the rule set's option");
    default:
      return null;
  }
}

/**
 * The words of a drawn ending.
 * @param {string} termination
 * @param {{limit?: number}} facts
 * @returns {string | null}
 */
function drawnBy(termination, facts) {
  switch (termination) {
    case "move_limit":
      return facts.limit
        ? t("Draw: {limit} moves by each side with no man moved and no capture made", { limit: facts.limit })
        : t("Draw: no man moved and no capture made in the king-only move limit");
    case "three_kings":
      return t("Draw: three kings did not capture the lone king within 13 moves");
    case "repetition":
      return t("Draw: the same position occurred a third time");
    case "agreement":
      return t("Draw by agreement");
    default:
      return null;
  }
}

/**
 * A game's ending in words and the rule it follows.
 * @param {OutcomeInfo} outcome
 * @param {{noPieces?: boolean, limit?: number}} [facts] whether the loser has no
 *   pieces left (the final board), and the rules' move count (R18)
 * @returns {{text: string, rule: string | null}}
 */
export function endingWords(outcome, facts = {}) {
  const termination = outcome.termination || "";
  const said = outcome.winner ? wonBy(termination, outcome.winner === "black", facts) : drawnBy(termination, facts);
  if (said) return { text: said, rule: RULE[termination] ?? null };
  return plainWords(outcome.reason || "");
}

/** The rules library's English endings (Outcome.reason, Board.outcome_reason). */
const LIBRARY_ENDINGS = [
  { pattern: /^(Black|White) has no pieces left/, termination: "no_moves", loser: 1, noPieces: true },
  { pattern: /^(Black|White) (?:has no legal move|cannot move)/, termination: "no_moves", loser: 1 },
  { pattern: /^(Black|White) resigned/, termination: "resignation", loser: 1 },
  { pattern: /^(Black|White) ran out of time/, termination: "time", loser: 1 },
  { pattern: /^(Black|White) wins: .*three kings/, termination: "three_kings", winner: 1 },
  { pattern: /^Draw: (\d+) moves by each side/, termination: "move_limit", limit: 1 },
  { pattern: /^Draw: no man moved/, termination: "move_limit" },
  { pattern: /^Draw: three kings/, termination: "three_kings" },
  { pattern: /^Draw: the same position/, termination: "repetition" },
  { pattern: /^Draw by agreement/, termination: "agreement" },
];

/** Time spans of the server's words ("60 seconds", "2 days"), said again. */
const SPAN = /^(\d+) (second|minute|hour|day)s?$/;

/**
 * @param {string} span
 * @returns {string}
 */
function spanWords(span) {
  const match = span.match(SPAN);
  if (!match) return span;
  const n = Number(match[1]);
  switch (match[2]) {
    case "day":
      return tn("{n} day", "{n} days", n);
    case "hour":
      return tn("{n} hour", "{n} hours", n);
    case "minute":
      return tn("{n} minute", "{n} minutes", n);
    default:
      return tn("{n} second", "{n} seconds", n);
  }
}

/**
 * The server's words for games that ended without a result, and for imported games.
 * @type {[RegExp, (match: RegExpMatchArray) => string][]}
 */
const SITE_ENDINGS = [
  [/^(Black|White) resigned before both sides had moved/, (m) => (m[1] === "Black" ? t("Black resigned before both sides had moved: aborted, no result") : t("White resigned before both sides had moved: aborted, no result"))],
  [/^Draw agreed before both sides had moved/, () => t("Draw agreed before both sides had moved: aborted, no result")],
  [/^Cancelled by (Black|White): nobody joined/, (m) => (m[1] === "Black" ? t("Cancelled by Black: nobody joined") : t("Cancelled by White: nobody joined"))],
  [/^Aborted by (Black|White) before both sides had moved/, (m) => (m[1] === "Black" ? t("Aborted by Black before both sides had moved: no result") : t("Aborted by White before both sides had moved: no result"))],
  [/^Aborted: no first move within (.+); no result/, (m) => t("Aborted: no first move within {span}; no result", { span: spanWords(m[1]) })],
  [/^Abandoned: no move for (.+); closed without a result/, (m) => t("Abandoned: no move for {span}; closed without a result", { span: spanWords(m[1]) })],
  [/^(?:White wins by forfeit|Black wins by forfeit): (Black|White) did not make a first move within (.+) \(tournament rule\)/, (m) => (m[1] === "Black" ? t("White wins by forfeit: Black did not make a first move within {span} (tournament rule)", { span: spanWords(m[2]) }) : t("Black wins by forfeit: White did not make a first move within {span} (tournament rule)", { span: spanWords(m[2]) }))],
  [/^(?:White wins by forfeit|Black wins by forfeit): (Black|White) did not make a first move \(tournament rule, ended by the director\)/, (m) => (m[1] === "Black" ? t("White wins by forfeit: Black did not make a first move (tournament rule, ended by the director)") : t("Black wins by forfeit: White did not make a first move (tournament rule, ended by the director)"))],
  [/^Aborted: (Black|White) did not make a first move within (.+) \(arena rule/, (m) => (m[1] === "Black" ? t("Aborted: Black did not make a first move within {span} (arena rule: no result, Black is paused)", { span: spanWords(m[2]) }) : t("Aborted: White did not make a first move within {span} (arena rule: no result, White is paused)", { span: spanWords(m[2]) }))],
  [/^Aborted: (Black|White) did not make a first move \(arena rule, ended by the director/, (m) => (m[1] === "Black" ? t("Aborted: Black did not make a first move (arena rule, ended by the director: no result, Black is paused)") : t("Aborted: White did not make a first move (arena rule, ended by the director: no result, White is paused)"))],
  [/^Imported game, unfinished/, () => t("Imported game, unfinished (*)")],
  [/^Imported game, result (.+)$/, (m) => t("Imported game, result {result}", { result: m[1] })],
];

/**
 * An ending kept only as the rules library's English words (the archive's games,
 * practice): read back into data, and said in the page's language; words it does
 * not know stay as they are (an imported game's own words).
 * @param {string | null | undefined} reason
 * @returns {{text: string, rule: string | null}}
 */
export function endingOfReason(reason) {
  const text = reason || "";
  for (const [pattern, words] of SITE_ENDINGS) {
    const match = text.match(pattern);
    if (match) return { text: words(match), rule: null };
  }
  for (const known of LIBRARY_ENDINGS) {
    const match = text.match(known.pattern);
    if (!match) continue;
    /** @type {"black" | "white" | null} */
    let winner = null;
    if (known.loser) winner = match[known.loser] === "Black" ? "white" : "black";
    if (known.winner) winner = match[known.winner] === "Black" ? "black" : "white";
    const limit = known.limit ? Number(match[known.limit]) : undefined;
    const outcome = { termination: known.termination, winner, result: null, reason: text };
    return endingWords(outcome, { noPieces: Boolean(known.noPieces), limit });
  }
  return plainWords(text);
}

/**
 * A game's ending in words from its final position: the board (the server's text of
 * 32 squares, "." empty) tells whether the loser has no pieces left; the server's
 * words give the move count of an R18 draw.
 * @param {OutcomeInfo} outcome
 * @param {string | null | undefined} board
 * @returns {{text: string, rule: string | null}}
 */
export function gameEnding(outcome, board) {
  const termination = outcome.termination || "";
  if (!(termination in RULE) && termination !== "repetition") return endingOfReason(outcome.reason);
  const loser = outcome.winner === "black" ? "w" : "b";
  const noPieces = typeof board === "string" && board.length > 0 && !board.toLowerCase().includes(loser);
  const counted = (outcome.reason || "").match(/^Draw: (\d+) moves/);
  return endingWords(outcome, { noPieces, limit: counted ? Number(counted[1]) : undefined });
}
