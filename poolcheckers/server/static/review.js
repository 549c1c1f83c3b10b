// The game review's judgement, as pure functions (tested in tests/e2e/test_frontend_modules.py):
// an evaluation becomes an expected score on a logistic curve, a move is judged
// by the expected score it lost (as lichess does), and a forced move (the only
// legal move, as the server counts them) is never judged: what is lost across
// it belongs to its side's last real choice before it. And an evaluation in words
// that say who is better.

/** @import { Color } from "./types.js" */

import { formatNumber, t, tn } from "./i18n.js";

/**
 * A class of bad moves: its name (the id the page's classes and values use), its
 * words for players (one, several), the least loss of expected score it takes, and
 * its mark after the move ("??").
 * @typedef {{name: string, label: string, plural: string, loss: number, mark: string}} MoveClass
 */

/**
 * A judged move: its ply, its side, the expected score it lost, its class, and
 * the plies of the forced moves after it whose loss is charged to it.
 * @typedef {{ply: number, mover: Color, loss: number, cls: MoveClass, forced: number[]}} JudgedMove
 */

/**
 * Centi-men per unit of the logistic's exponent: expected score =
 * 1 / (1 + exp(-score / SCALE)). Fitted by maximum likelihood to 308 of the
 * engine's own games (31,593 positions; 95 % interval 174..270) by
 * benchmarks/expected_score_scale.py (benchmarks/results/expected_score_scale.json):
 * a man ahead is an expected score of 0.61, two men 0.71.
 * On 800 games of the full-strength engine (benchmarks/results/*.pdn, --pdn) the
 * fit is 177 (158..201): strong players convert a lead more surely than the site's.
 */
export const SCALE = 223;

/**
 * The classes, worst first: a move that loses at least `loss` of expected score
 * (0..1). These are lichess's 0.1 / 0.2 / 0.3 on its winning-chances scale
 * (-1..1, twice the expected score less one), so a man given away in an even
 * position (0.50 -> 0.39) is a mistake.
 */
/** @type {MoveClass[]} */
export const CLASSES = [
  { name: "blunder", label: t("blunder"), plural: t("blunders"), loss: 0.15, mark: "??" },
  { name: "mistake", label: t("mistake"), plural: t("mistakes"), loss: 0.1, mark: "?" },
  { name: "inaccuracy", label: t("inaccuracy"), plural: t("inaccuracies"), loss: 0.05, mark: "?!" },
];

/**
 * The expected score (0 lost .. 1 won, a draw 0.5) of an evaluation in
 * centi-men from one side's view; a proven win (winIn > 0, the server's
 * win_in) is 1, a proven loss 0.
 * @param {number} score
 * @param {number | null} [winIn]
 * @returns {number}
 */
export function expectedScore(score, winIn = null) {
  if (winIn !== null && winIn !== undefined) return winIn > 0 ? 1 : 0;
  return 1 / (1 + Math.exp(-score / SCALE));
}

/**
 * The class of a loss of expected score (null below the smallest).
 * @param {number} loss
 * @returns {MoveClass | null}
 */
export function classify(loss) {
  return CLASSES.find((c) => loss >= c.loss - 1e-9) || null;
}

/**
 * What each real choice of a line lost: ply of the choice -> {loss, forced, known}.
 * The loss is the mover's expected score before the choice less after it, plus what
 * the forced moves of the same side after it lost (their plies in `forced`); `known`:
 * the choice's own two positions are evaluated. Arguments as judgeMoves's.
 * @param {(number | undefined)[]} blackScores
 * @param {{mover: Color, forced: boolean}[]} plies
 * @returns {Map<number, {loss: number, forced: number[], known: boolean}>}
 */
function chargedLosses(blackScores, plies) {
  /** @type {Map<number, {loss: number, forced: number[], known: boolean}>} */
  const charged = new Map();
  /** @type {Record<Color, number | null>} */
  const lastChoice = { black: null, white: null };
  for (let k = 1; k <= plies.length; k++) {
    const { mover, forced } = plies[k - 1];
    const before = blackScores[k - 1];
    const after = blackScores[k];
    if (!forced) {
      lastChoice[mover] = k;
      charged.set(k, { loss: 0, forced: [], known: false });
    }
    const at = lastChoice[mover];
    if (at === null || before === undefined || after === undefined) continue;
    const own = (/** @type {number} */ v) => (mover === "black" ? v : 1 - v);
    const entry = charged.get(at);
    if (!entry) continue; // every choice is in `charged` from its own ply on
    entry.loss += own(before) - own(after);
    if (forced) entry.forced.push(k);
    else entry.known = true;
  }
  return charged;
}

/**
 * Judge the moves of a line.
 *  blackScores[k]: Black's expected score in the position after k moves
 *    (0..n; undefined where not evaluated yet);
 *  plies[k - 1] = {mover: "black"|"white", forced: bool} for the move from
 *    position k - 1 to k (forced: the only legal move there).
 * Returns one entry per judged real choice with a loss in a class:
 *  {ply, mover, loss, cls, forced: [plies of forced moves whose loss is charged here]}.
 * A forced move is never an entry; its loss goes to the last non-forced move of
 * the same side before it (none: nobody chose, nothing is charged).
 * @param {(number | undefined)[]} blackScores
 * @param {{mover: Color, forced: boolean}[]} plies
 * @returns {JudgedMove[]}
 */
export function judgeMoves(blackScores, plies) {
  /** @type {JudgedMove[]} */
  const out = [];
  for (const [ply, entry] of chargedLosses(blackScores, plies)) {
    if (!entry.known) continue;
    const cls = classify(entry.loss);
    if (cls) out.push({ ply, mover: plies[ply - 1].mover, loss: entry.loss, cls, forced: entry.forced });
  }
  return out.sort((a, b) => a.ply - b.ply);
}

/**
 * A move's accuracy, 0 to 100, from the expected score (0..1) its side lost, as
 * lichess counts it on its win percentage (100 times the expected score):
 * 103.1668 e^(-0.04354 d) - 3.1669 for a loss of d percentage points, 100 for none.
 * Half a man given away in an even position (0.50 -> 0.44) is 78, a man 61, a
 * won game thrown away 0.
 * @param {number} loss
 * @returns {number}
 */
export function moveAccuracy(loss) {
  if (loss <= 0) return 100;
  return Math.min(100, Math.max(0, 103.1668 * Math.exp(-0.04354 * 100 * loss) - 3.1669));
}

/**
 * How much the game was swinging around position k: the standard deviation, in
 * percentage points of Black's expected score, of the `size` positions up to k
 * (the first `size` near the start), held to 0.5..12. It weighs the move to k:
 * a move in a sharp stretch of the game counts more than one in a dead position.
 * @param {(number | undefined)[]} blackScores
 * @param {number} k
 * @param {number} size
 * @returns {number}
 */
function volatility(blackScores, k, size) {
  const from = Math.max(0, Math.min(k - size + 1, blackScores.length - size));
  const xs = blackScores.slice(from, from + size).filter((v) => v !== undefined).map((v) => 100 * v);
  if (xs.length < 2) return 0.5;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length);
  return Math.min(12, Math.max(0.5, sd));
}

/**
 * Each player's accuracy over the reviewed moves, 0 to 100, as lichess counts a
 * game's: each real choice has its moveAccuracy (of the loss judgeMoves charges it,
 * its forced moves' included; forced moves are not counted themselves), and a
 * player's accuracy is the mean of two means of those: one weighted by the game's
 * volatility at each move (windows of a tenth of the game, 2 to 8 positions), and the
 * harmonic mean (each accuracy at least 1), which a few bad moves pull far down.
 * So moves played once the game is decided, where nothing is left to lose, cannot
 * lift a player who gave the game away to a high accuracy. null: no move known.
 * @param {(number | undefined)[]} blackScores Black's expected score after each ply (0: the start)
 * @param {{mover: Color, forced: boolean}[]} plies
 * @returns {Record<Color, number | null>}
 */
export function accuracy(blackScores, plies) {
  const size = Math.min(8, Math.max(2, Math.floor(plies.length / 10)));
  /** @type {Record<Color, {acc: number, weight: number}[]>} */
  const moves = { black: [], white: [] };
  for (const [ply, entry] of chargedLosses(blackScores, plies)) {
    if (!entry.known) continue;
    moves[plies[ply - 1].mover].push({ acc: moveAccuracy(entry.loss), weight: volatility(blackScores, ply, size) });
  }
  const game = (/** @type {{acc: number, weight: number}[]} */ xs) => {
    if (!xs.length) return null;
    const weighted = xs.reduce((a, m) => a + m.acc * m.weight, 0) / xs.reduce((a, m) => a + m.weight, 0);
    const harmonic = xs.length / xs.reduce((a, m) => a + 1 / Math.max(1, m.acc), 0);
    return (weighted + harmonic) / 2;
  };
  return { black: game(moves.black), white: game(moves.white) };
}

/** Up to this many men ahead (inclusive), a side is "slightly better". */
export const SLIGHTLY = 0.2;

/**
 * An engine's evaluation in words that say who is better, whichever side is to move:
 * the side ahead, named, with its lead in men always positive ("White is slightly
 * better (+0.07)", short "White +0.07"), "Even (0.00)", or a proven end ("Black wins
 * in 3", counting the winner's moves; "White wins (tables)").
 * @param {string | null | undefined} text the engine facade's score_text, from the side
 *   to move's view: "+0.35", "-0.07", "win in 3", "loss in 2", "tablebase win"
 * @param {Color} turn the side to move in the evaluated position
 * @param {boolean} [short] the short form, for a line of the engine's
 * @returns {string}
 */
export function evaluationWords(text, turn, short = false) {
  const other = turn === "black" ? "white" : "black";
  const proven = /^(win|loss) in (\d+)$/.exec(text || "");
  if (proven) {
    const n = Number(proven[2]);
    const winner = proven[1] === "win" ? turn : other;
    return winner === "black" ? tn("Black wins in {n}", "Black wins in {n}", n) : tn("White wins in {n}", "White wins in {n}", n);
  }
  const tables = /^tablebase (win|loss)$/.exec(text || "");
  if (tables) {
    const winner = tables[1] === "win" ? turn : other;
    return t("{result} (tables)", { result: winner === "black" ? t("Black wins") : t("White wins") });
  }
  const men = Number(text);
  if (!text || !Number.isFinite(men)) return text ?? "";
  const black = turn === "black" ? men : -men;
  const score = formatNumber(Math.abs(black), { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  if (Math.abs(black) < 0.005) return t("Even ({score})", { score });
  if (short) return black > 0 ? t("Black +{score}", { score }) : t("White +{score}", { score });
  if (Math.abs(black) <= SLIGHTLY + 1e-9) return black > 0 ? t("Black is slightly better (+{score})", { score }) : t("White is slightly better (+{score})", { score });
  return black > 0 ? t("Black is better (+{score})", { score }) : t("White is better (+{score})", { score });
}
