// The analysis page: set up from FEN, PDN or an archive game; live engine lines
// over /ws/analysis; an evaluation graph over the game with mistakes marked.

/**
 * @import { AnalysisLine, AnalysisMessage, Color, GameSummary, LegalMove, PdnGameInfo, PdnReadError,
 *   AnalysisReport, GameState, PositionInfo, RequestLimits, Rules, RulesInfo, TablebaseInfo, TreeLine } from "./types.js"
 */
/** @import { TreeNode } from "./tree.js" */
/** @import { JudgedMove, MoveClass } from "./review.js" */
/** @import { RuleForm } from "./rules.js" */
/** @import { MoveCell } from "./util.js" */

import { LiveSocket, api, errorText } from "./api.js";
import { BoardView } from "./board.js";
import { formatDate, formatNumber, t, tn } from "./i18n.js";
import { CLASSES, accuracy, evaluationWords, expectedScore, judgeMoves } from "./review.js";
import { pdnTooLong, ruleFields, ruleOptions } from "./rules.js";
import { MoveTree, moveLabel, rowNote } from "./tree.js";
import {
  announce,
  boardPosition,
  h,
  keepInView,
  moveNumber,
  moveRows,
  opponent,
  storageGet,
  storageSet,
  svg,
  tokenKey,
} from "./util.js";
import { gameEnding } from "./outcome.js";
import { players } from "./archive.js";

// Every position shown here is the server's (POST /api/analysis/position: the rules
// library): its board, side to move, legal moves with their paths, counters and
// outcome. No FEN is read and no move is generated in the browser.
const WIN = 1000; // a proven win (win_in) on the evaluation's scale, in centi-men
// The engine's best lines (multi-PV): 1 to the server's bound (GET /api/rules
// `limits.analysis_lines`), 3 unless this browser chose otherwise.
const DEFAULT_LINES = 3;
const LINES_KEY = "poolcheckers.analysis.lines";
// Seconds per analysis the form offers: from a fifth of a second, 5 at first, at most
// what the server searches (`limits.analysis_seconds`).
const ENGINE_MIN_SECONDS = 0.2;
const ENGINE_SECONDS = 5;
// Seconds per position of a game review: short searches, many positions.
const REVIEW_MAX_SECONDS = 10;
// An example of PDN text for the form's placeholder: PDN itself, not words to translate.
const PDN_EXAMPLE = '[Event "…"]\n1. 11-15 23-19 2. 8-11 22-17 *';
// The tables' values ("win", "draw", "loss": the server's) as players read them: alone,
// and as a sentence names them ("a win").
const VALUE_WORDS = { win: t("win"), draw: t("draw"), loss: t("loss") };
const VALUE_NOUNS = { win: t("a win"), draw: t("a draw"), loss: t("a loss") };

/**
 * A position's evaluation in a review, from Black's view: centi-men and expected score.
 * @typedef {{score: number, es: number, best: string | null}} Evaluation
 *   best: the best move of the position (the engine's, or the tables'), for the review
 */

/**
 * The engine's latest word on the shown position: the search message with the lines
 * shown and the ply they are of.
 * @typedef {AnalysisReport & {lines: AnalysisLine[], ply: number}} EngineView
 */

/**
 * A game of a PDN text as it can be loaded: read whole, or its legal part with the
 * error that ended it.
 * @typedef {PdnGameInfo & {error: PdnReadError | null}} PdnChoice
 */

/**
 * @param {number} score
 * @param {Color} turn
 * @returns {number} the score from Black's view
 */
function blackView(score, turn) {
  return turn === "black" ? score : -score;
}

/**
 * A score in centi-men, a proven end (winIn: the winner's moves, signed) as ±WIN.
 * @param {number} score
 * @param {number | null | undefined} winIn
 * @returns {number}
 */
function clampScore(score, winIn) {
  if (winIn !== null && winIn !== undefined) return winIn > 0 ? WIN : -WIN;
  return Math.max(-WIN, Math.min(WIN, score));
}

/**
 * A number with two decimals, as an expected score is shown ("0.26").
 * @param {number} x
 * @returns {string}
 */
function twoDecimals(x) {
  return formatNumber(x, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/**
 * @param {Color} color
 * @returns {string} "Black to move"
 */
function toMoveText(color) {
  return color === "black" ? t("Black to move") : t("White to move");
}

/**
 * @param {Color} color
 * @returns {string} "Black wins"
 */
function winsText(color) {
  return color === "black" ? t("Black wins") : t("White wins");
}

/**
 * A class of #mark-from: "mistakes+ (≥ 0.10)", the worse classes with it ("+")
 * unless it is the worst.
 * @param {MoveClass} c
 * @returns {string}
 */
function markLabel(c) {
  const params = { kinds: c.plural, loss: twoDecimals(c.loss) };
  return c.name === "blunder" ? t("{kinds} (≥ {loss})", params) : t("{kinds}+ (≥ {loss})", params);
}

/**
 * The choice of how many engine lines to show, 1 to the server's bound.
 * @param {number} most
 * @returns {HTMLSelectElement}
 */
function linesSelect(most) {
  const select = h(
    "select",
    { id: "engine-lines-count", "aria-label": t("Engine lines") },
    ...Array.from({ length: most }, (_, i) => h("option", { value: i + 1 }, tn("{n} line", "{n} lines", i + 1))),
  );
  const stored = Number(storageGet(LINES_KEY));
  select.value = String(Number.isInteger(stored) && stored >= 1 && stored <= most ? stored : Math.min(DEFAULT_LINES, most));
  return select;
}

/**
 * Buttons that step through the line.
 * @param {AnalysisPage} page
 * @returns {HTMLDivElement}
 */
function navButtons(page) {
  return h(
    "div",
    { class: "nav", role: "group", "aria-label": t("Move navigation") },
    h("button", { type: "button", id: "nav-first", "aria-label": t("First position"), onclick: () => page.go(0) }, "«"),
    h("button", { type: "button", id: "nav-prev", "aria-label": t("Previous move"), onclick: () => page.go(page.goal() - 1) }, "‹"),
    h("button", { type: "button", id: "nav-next", "aria-label": t("Next move"), onclick: () => page.go(page.goal() + 1) }, "›"),
    h("button", { type: "button", id: "nav-last", "aria-label": t("Last move"), onclick: () => page.go(page.line.length) }, "»"),
  );
}

/**
 * The buttons that flip the board and show its square numbers.
 * @param {BoardView} board
 * @returns {HTMLDivElement}
 */
function boardTools(board) {
  const numbers = h("button", { type: "button", class: "small", "aria-pressed": "false" }, t("Square numbers"));
  numbers.addEventListener("click", () => {
    board.setShowNumbers(!board.showNumbers);
    numbers.setAttribute("aria-pressed", String(board.showNumbers));
  });
  return h("div", { class: "board-tools" }, h("button", { type: "button", class: "small", onclick: () => board.setFlipped(!board.flipped) }, t("Flip board")), numbers);
}

class AnalysisPage {
  // ---- the page's parts (put in place by build()) ----------------------------------
  boardBox = h("div", { class: "board-box", id: "board" });
  boardHint = h("p", { class: "board-hint", id: "board-hint", "aria-hidden": "true" });
  // Black's share of the expected score, left to right (engine or tables); its words
  evalFill = h("div", { class: "eval-fill" });
  evalText = h("span", { class: "eval-text" });
  evalBar = h("div", { class: "eval-bar", id: "eval-bar", role: "img", "aria-label": t("Evaluation"), hidden: true }, this.evalFill, this.evalText);
  board = new BoardView(this.boardBox, { onMove: (m) => this.userMove(m), onHint: (text) => { this.boardHint.textContent = text; }, label: t("Analysis board") });
  heading = h("h1", { class: "title", id: "analysis-title" }, t("Analysis"));
  turnLine = h("p", { class: "status", id: "status" });
  // Endgame tables (docs/EGDB.md): the position's value and every move's, when files cover it.
  // Shown as lichess shows its tablebase: the value as a headline, then every legal move
  // with the mover's value, best first, each a button that plays it.
  tablebaseValue = h("p", { class: "tb-value", id: "tablebase-value" });
  tablebaseMoves = h("ul", { class: "tb-moves", id: "tablebase-moves", "aria-label": t("Moves by their table value") });
  // the tables' line to the end of the game, with the winner's moves along it
  tablebaseLine = h("p", { class: "tb-line", id: "tablebase-line", hidden: true });
  tablebase = h("section", { class: "card tablebase", id: "tablebase", "aria-label": t("Endgame tables"), hidden: true }, h("h2", {}, t("Endgame tables")), this.tablebaseValue, this.tablebaseLine, this.tablebaseMoves);
  error = h("p", { class: "error", id: "error" });
  fenInput = h("input", { type: "text", id: "fen-input", spellcheck: "false", autocomplete: "off", autocapitalize: "characters", autocorrect: "off", "aria-label": t("FEN"), placeholder: t("e.g. W:WK4,19:B11,K30 (empty: the start position)") });
  pdnText = h("textarea", { id: "pdn-input", rows: 4, spellcheck: "false", "aria-label": t("PDN text"), placeholder: PDN_EXAMPLE });
  pdnFile = h("input", { type: "file", id: "pdn-file", accept: ".pdn,.txt,text/plain", "aria-label": t("PDN file") });
  pdnPick = h("select", { id: "pdn-pick", "aria-label": t("Game in the PDN"), hidden: true });
  // the set-up forms' errors, next to their fields
  fenError = h("p", { class: "error field-error", id: "fen-error", role: "alert" });
  pdnError = h("p", { class: "error field-error", id: "pdn-error", role: "alert" });
  archivePick = h("select", { id: "archive-pick", "aria-label": t("Archive game") }, h("option", { value: "" }, t("Loading…")));
  engineButton = h("button", { type: "button", id: "engine-toggle", "aria-pressed": "false", class: "primary" }, t("Start engine"));
  engineOut = h("div", { class: "engine-out", id: "engine-out", "aria-live": "off" });
  bestButton = h("button", { type: "button", id: "play-best", disabled: true }, t("Play best move"));
  reviewButton = h("button", { type: "button", id: "review" }, t("Evaluate the game"));
  // Which classes to mark: moves that lose at least this much expected score.
  markFrom = h(
    "select",
    { id: "mark-from", "aria-label": t("Moves to mark") },
    ...[...CLASSES].reverse().map((c) => h("option", { value: c.name }, markLabel(c))),
  );
  reviewStatus = h("p", { class: "hint", id: "review-status" });
  chart = h("div", { class: "chart", id: "eval-chart" });
  mistakes = h("ul", { class: "mistakes", id: "mistakes" });
  moveList = h("ol", { class: "move-list", id: "move-list", "aria-label": t("Moves") });
  branchBanner = h("div", { class: "view-banner", id: "branch-banner", hidden: true });
  // Editing the move tree: the shown move's comment, its line made the main line or
  // deleted; the whole tree exported as PDN (written by the server).
  commentInput = h("textarea", { id: "move-comment", rows: 2, maxlength: 2000, "aria-label": t("Comment on the shown move"), placeholder: t("A comment on this move") });
  promoteButton = h("button", { type: "button", class: "small", id: "promote-line" }, t("Make main line"));
  deleteButton = h("button", { type: "button", class: "small", id: "delete-move" }, t("Delete from here"));
  exportButton = h("button", { type: "button", class: "small", id: "export-pdn" }, t("Export PDN"));
  exportOut = h("textarea", { id: "pdn-export", rows: 6, readonly: true, spellcheck: "false", "aria-label": t("The analysis as PDN"), hidden: true });
  exportLink = h("a", { id: "pdn-download", download: "analysis.pdn", hidden: true }, t("Download"));
  fenOut = h("input", { type: "text", readonly: true, id: "fen-out", "aria-label": t("FEN of the shown position") });
  copyButton = h("button", { type: "button", class: "small", id: "copy-link", onclick: () => this.copyLink() }, t("Copy link"));

  // ---- what is shown --------------------------------------------------------------
  /** @type {string | null} null: the server's start position (R3) */
  startFen = null;
  /** @type {string | null} the archive game shown (its link is ?game=), null: a set-up */
  archiveId = null;
  /** @type {Color} */
  startTurn = "black";
  /** @type {Rules | null} */
  rules = null;
  /** @type {string[]} the line shown: from the start to the end of the chosen branch */
  line = [];
  /** The move tree: the loaded game as its main line, every line played here as a
   * variation, with comments (exported as PDN by the server). */
  tree = new MoveTree();
  /** @type {Record<string, string>} the loaded game's tags, kept for the export */
  tags = {};
  /** the loaded game's result, exported while its main line is unchanged */
  result = "*";
  /** @type {string[]} the main line as loaded */
  loadedMain = [];
  ply = 0;
  /** @type {number | undefined} the ply being gone to */
  target = undefined;
  goSeq = 0;
  /** @type {Map<number, PositionInfo>} the server's positions of the line, by ply */
  infos = new Map();
  /** @type {(Evaluation | undefined)[]} */
  evals = [];
  reviewing = false;
  title = "";
  /** @type {PdnChoice[]} */
  pdnGames = [];
  /** @type {PdnReadError[]} */
  pdnErrors = [];
  pdnSeq = 0;

  // ---- the engine -------------------------------------------------------------------
  /** @type {LiveSocket<AnalysisMessage> | null} */
  socket = null;
  engineOn = false;
  /** @type {EngineView | null} */
  lastInfo = null;
  /** @type {{turn: Color} | null} the position the running search is of */
  current = null;
  /** @type {number | undefined} the ply the engine's output is about */
  engineShownPly = undefined;
  requestId = 0;
  outstanding = 0;

  /**
   * @param {HTMLElement} root
   * @param {RuleForm | null} ruleForm the §9 options for FEN and PDN (null: not loaded)
   * @param {string} rulesError why the options are missing
   * @param {RequestLimits | null} limits the server's bounds of an analysis
   */
  constructor(root, ruleForm, rulesError, limits) {
    this.root = root;
    this.ruleForm = ruleForm;
    this.rulesError = rulesError;
    // Without the server's limits: one line, which every analysis request may ask for.
    this.maxLines = limits ? limits.analysis_lines : 1;
    const seconds = limits ? limits.analysis_seconds : null;
    this.engineTime = h("input", { type: "number", id: "engine-time", min: ENGINE_MIN_SECONDS, max: seconds, step: 0.1, value: Math.min(ENGINE_SECONDS, seconds ?? Infinity), "aria-label": t("Seconds per analysis") });
    this.reviewTime = h("input", { type: "number", id: "review-time", min: 0.05, max: Math.min(REVIEW_MAX_SECONDS, seconds ?? Infinity), step: 0.05, value: 0.3, "aria-label": t("Seconds per position") });
    // How many of the engine's best lines to show (the search is asked for as many).
    this.linesCount = linesSelect(this.maxLines);
  }

  async start() {
    this.build();
    this.bindKeys();
    const params = new URLSearchParams(window.location.search);
    const game = params.get("game");
    const fen = params.get("fen");
    let ok = false;
    if (game) {
      ok = await this.loadArchiveGame(game);
    } else if (fen || params.has("moves")) {
      this.fenInput.value = fen || "";
      // a shared line, or a puzzle's solution: the line is on the board
      const moves = (params.get("moves") || "").split(" ").filter(Boolean);
      let rules = null;
      try {
        rules = params.has("rules") ? JSON.parse(params.get("rules") || "null") : null;
      } catch {
        this.showError(t("The link's rule options cannot be read: the APCA rules are used."));
      }
      if (rules) this.showRules(rules);
      ok = await this.setup(fen || null, moves, rules, moves.length ? t("Shared line") : t("Position from the link"));
    }
    const ply = Number.parseInt(params.get("ply") || "", 10);
    if (ok && Number.isFinite(ply) && ply >= 0 && ply < this.line.length) await this.go(ply, { animate: false });
    if (!ok) {
      // Nothing (or nothing usable) in the link: the start position, and the error stays.
      const why = this.error.textContent;
      await this.setup(null, [], null, t("Start position"));
      if (why) this.showError(why);
    }
    this.fillArchiveList();
  }

  // ---- layout ----------------------------------------------------------------------

  build() {
    this.root.replaceChildren(
      h(
        "div",
        { class: "play analysis" },
        h("section", { class: "board-col", "aria-label": t("Board") }, this.heading, this.turnLine, this.evalBar, this.boardBox, boardTools(this.board), this.boardHint, h("label", { class: "field" }, h("span", { class: "label" }, t("FEN")), this.fenOut), h("div", { class: "row" }, this.copyButton), this.chart),
        h(
          "aside",
          { class: "side" },
          this.error,
          this.tablebase,
          this.engineSection(),
          h("h2", { class: "sub" }, t("Moves")),
          navButtons(this),
          this.branchBanner,
          this.moveList,
          this.treeTools(),
          this.reviewSection(),
          this.setupSection(),
        ),
      ),
    );
  }

  /** The engine's controls and output. */
  engineSection() {
    this.engineButton.addEventListener("click", () => this.toggleEngine());
    this.bestButton.addEventListener("click", () => this.playBest());
    this.linesCount.addEventListener("change", () => {
      storageSet(LINES_KEY, this.linesCount.value);
      if (this.engineOn) this.analyse();
    });
    return h("section", { class: "card engine" }, h("h2", {}, t("Engine")), h("div", { class: "row" }, this.engineButton, h("label", { class: "inline" }, `${t("seconds")} `, this.engineTime), this.linesCount, this.bestButton), this.engineOut);
  }

  /** The game review's controls, status and marked moves. */
  reviewSection() {
    this.reviewButton.addEventListener("click", () => this.review());
    this.markFrom.addEventListener("change", () => this.renderReview());
    return h(
      "section",
      { class: "card review" },
      h("h2", {}, t("Game review")),
      h("div", { class: "row" }, this.reviewButton, h("label", { class: "inline" }, `${t("s/position")} `, this.reviewTime), h("label", { class: "inline" }, `${t("mark")} `, this.markFrom)),
      this.reviewStatus,
      this.mistakes,
    );
  }

  /** Setting up a position: rule options, then from FEN, from PDN, from the archive. */
  setupSection() {
    // Rule options (docs/RULES.md §9) for positions set up from FEN or PDN; an archive
    // game brings its own.
    const rulesBox = h(
      "details",
      { class: "rules", id: "analysis-rules" },
      h("summary", {}, t("Rule options for FEN and PDN")),
      h("p", { class: "hint" }, h("a", { href: "/rules#section-7" }, t("What the rule options mean"))),
      this.ruleForm ? this.ruleForm.fields : h("p", { class: "hint" }, this.rulesError),
    );
    return h(
      "section",
      { class: "card setup" },
      h("h2", {}, t("Set up")),
      rulesBox,
      h("h3", {}, t("From FEN")),
      this.fenForm(),
      h("h3", {}, t("From PDN")),
      this.pdnForm(),
      h("h3", {}, t("From the archive")),
      this.archiveForm(),
    );
  }

  fenForm() {
    const form = h("form", { class: "row", id: "fen-form" }, this.fenInput, h("button", { type: "submit" }, t("Set up")));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      this.fenError.textContent = "";
      const ok = await this.setup(this.fenInput.value.trim() || null, [], this.chosenRules(), t("Position from FEN"));
      // next to the field as well, where the eyes are (on a phone the top is out of view)
      if (!ok) this.fenError.textContent = this.error.textContent;
      this.fenInput.setAttribute("aria-invalid", String(!ok));
    });
    return h("div", {}, form, this.fenError);
  }

  pdnForm() {
    this.pdnFile.addEventListener("change", async () => {
      const file = this.pdnFile.files && this.pdnFile.files[0];
      if (file) {
        this.pdnText.value = await file.text();
        this.loadPdnText();
      }
    });
    this.pdnPick.addEventListener("change", () => this.loadPdnGame(Number(this.pdnPick.value)));
    const form = h(
      "form",
      { id: "pdn-form" },
      this.pdnText,
      h("div", { class: "row" }, this.pdnFile, h("button", { type: "submit" }, t("Load PDN"))),
      this.pdnPick,
      this.pdnError,
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.loadPdnText();
    });
    return form;
  }

  archiveForm() {
    const form = h("form", { class: "row", id: "archive-form" }, this.archivePick, h("button", { type: "submit" }, t("Open")));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      if (this.archivePick.value) this.loadArchiveGame(this.archivePick.value);
    });
    return form;
  }

  /** @param {Rules | null | undefined} rules */
  showRules(rules) {
    if (rules && this.ruleForm) this.ruleForm.show(rules);
  }

  /** @returns {Rules | null} the options chosen for FEN and PDN (null: the server's APCA rules) */
  chosenRules() {
    return this.ruleForm ? this.ruleForm.read() : null;
  }

  bindKeys() {
    // Arrow keys step through the line when the focus is not on the board or a field.
    document.addEventListener("keydown", (e) => {
      const target = e.target;
      if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return;
      if (target instanceof Element && target.closest(".board")) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "ArrowLeft") this.go(this.goal() - 1);
      else if (e.key === "ArrowRight") this.go(this.goal() + 1);
      else if (e.key === "Home") this.go(0);
      else if (e.key === "End") this.go(this.line.length);
      else return;
      e.preventDefault();
    });
  }

  /** @param {string} text */
  showError(text) {
    // Read out by the page's assertive live region (#alerts), which is always there.
    this.error.textContent = text;
    if (text) announce(text, true);
  }

  // ---- loading ----------------------------------------------------------------------

  /**
   * Show a game from `fen` (null: the start position) with `moves` under `rules`: as
   * many of the moves as are legal, the first bad one said. False when the server
   * refuses the position itself.
   * @param {string | null} fen
   * @param {string[]} moves
   * @param {Rules | null} rules
   * @param {string} title
   * @param {{tree?: TreeLine | null, tags?: Record<string, string>, result?: string}} [game]
   *   a loaded game's move tree (comments, variations), tags and result
   * @returns {Promise<boolean>}
   */
  async setup(fen, moves, rules, title, game = {}) {
    this.showError("");
    const infos = new Map();
    let first;
    try {
      // The server reads the FEN (R5) and the rules (§9): its message says what is wrong.
      first = await api.position(fen, [], rules);
    } catch (err) {
      this.showError(t("Position: {error}", { error: errorText(err) }));
      return false;
    }
    infos.set(0, first);
    const start = first.start_fen;
    let good = moves.length;
    if (moves.length) {
      try {
        infos.set(moves.length, await api.position(start, moves, rules));
      } catch (err) {
        // Find how far the moves are legal, to show the first bad one.
        good = await this.legalPrefix(start, moves, rules, infos);
        this.showError(
          tn("Only the first {good} of {n} ply can be played: {error}", "Only the first {good} of {n} plies can be played: {error}", moves.length, { good, error: errorText(err) }),
        );
      }
    }
    this.archiveId = null;
    this.startFen = start;
    this.startTurn = first.start_turn;
    this.rules = rules;
    const whole = good === moves.length;
    this.tree = MoveTree.of(whole ? game.tree : null, moves.slice(0, good));
    this.line = this.tree.mainline();
    this.loadedMain = this.line.slice();
    this.tags = game.tags || {};
    this.result = whole ? game.result || "*" : "*";
    this.exportOut.hidden = true;
    this.exportLink.hidden = true;
    this.branchBanner.hidden = true;
    this.infos = infos;
    this.evals = [];
    this.title = title;
    this.heading.textContent = title;
    this.renderReview();
    await this.go(this.line.length, { animate: false });
    return true;
  }

  /**
   * How many of `moves` are legal (a binary search over the server's answers); the
   * positions found on the way go into `infos`.
   * @param {string} fen
   * @param {string[]} moves
   * @param {Rules | null} rules
   * @param {Map<number, PositionInfo>} infos
   * @returns {Promise<number>}
   */
  async legalPrefix(fen, moves, rules, infos) {
    let lo = 0;
    let hi = moves.length - 1;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      try {
        infos.set(mid, await api.position(fen, moves.slice(0, mid), rules));
        lo = mid;
      } catch {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** Read the PDN text on the server (POST /api/analysis/pdn): every game checked
   * by the rules, nothing stored. A bad game's legal part is still offered. */
  async loadPdnText() {
    const seq = (this.pdnSeq += 1);
    this.pdnError.textContent = "";
    const text = this.pdnText.value;
    let data;
    try {
      const tooLong = await pdnTooLong(text);
      if (tooLong) throw new Error(tooLong);
      data = await api.analysisPdn(text, this.chosenRules());
    } catch (err) {
      if (seq === this.pdnSeq) {
        this.showError(t("PDN: {error}", { error: errorText(err) }));
        this.pdnError.textContent = this.error.textContent;
      }
      return;
    }
    if (seq !== this.pdnSeq) return; // a later load overtook this one
    const errors = data.errors || [];
    /** @type {PdnChoice[]} */
    const games = (data.games || []).map((g) => ({ ...g, error: null }));
    for (const e of errors) if (e.partial) games.push({ ...e.partial, error: e });
    games.sort((a, b) => a.game - b.game);
    this.pdnGames = games;
    this.pdnErrors = errors;
    if (!games.length) {
      this.pdnPick.hidden = true;
      this.showError(errors.length ? t("No game can be loaded from the PDN: {errors}", { errors: errors.map((e) => e.message).join("; ") }) : t("No game found in the PDN text."));
      this.pdnError.textContent = this.error.textContent;
      return;
    }
    this.pdnPick.replaceChildren(
      ...games.map((g, i) => {
        const name = [g.tags.Black, g.tags.White].filter(Boolean).join(" – ") || g.tags.Event || t("Game");
        const bad = g.error ? ` · ${t("error at line {line}", { line: String(g.error.line) })}` : "";
        const moves = tn("{n} move", "{n} moves", g.moves_count ?? 0);
        return h("option", { value: i }, `${g.game}. ${name} (${moves}) ${g.result}${bad}`);
      }),
    );
    this.pdnPick.value = "0";
    this.pdnPick.hidden = games.length < 2;
    await this.loadPdnGame(0);
  }

  /**
   * Show the game of the PDN text chosen in #pdn-pick.
   * @param {number} index
   */
  async loadPdnGame(index) {
    const g = this.pdnGames[index];
    if (!g) return;
    const name = [g.tags.Black, g.tags.White].filter(Boolean).join(" – ") || g.tags.Event || t("PDN game");
    // The rules the server read the game with: its Rules tag, else the options chosen here.
    this.showRules(g.rules);
    const ok = await this.setup(g.start_fen, g.moves, g.rules, name, { tree: g.tree, tags: g.tags, result: g.result });
    if (!ok) return;
    const notes = [];
    if (g.error) notes.push(tn("Only the first {n} ply can be played: {error}", "Only the first {n} plies can be played: {error}", g.moves.length, { error: g.error.message }));
    const unread = this.pdnErrors.filter((e) => !e.partial);
    if (unread.length) notes.push(t("Not loaded: {errors}", { errors: unread.map((e) => e.message).join("; ") }));
    if (notes.length) {
      this.showError(notes.join(" · "));
      this.pdnError.textContent = this.error.textContent;
    }
  }

  /**
   * Show a game of the archive (it brings its own rules).
   * @param {string} id
   * @returns {Promise<boolean>}
   */
  async loadArchiveGame(id) {
    try {
      // with this browser's seat token the server says which side is the viewer's
      const game = await api.getGame(id, storageGet(tokenKey(id)));
      const result = (game.outcome && game.outcome.result) || "*";
      const ok = await this.setup(game.start_fen, game.moves, game.rules, gameTitle(game), { tree: game.annotations, tags: game.tags, result });
      this.showRules(game.rules);
      this.archiveId = ok ? game.id : null;
      // the viewer's side at the bottom, as on the game page
      if (ok && (game.your_color === "black" || game.your_color === "white")) this.board.setFlipped(game.your_color === "black");
      if (ok) this.shareLine();
      return ok;
    } catch (err) {
      this.showError(t("Archive game {id}: {error}", { id, error: errorText(err) }));
      return false;
    }
  }

  async fillArchiveList() {
    try {
      const [finished, running] = await Promise.all([api.listGames("finished", 100), api.listGames("running", 100)]);
      const games = [...(finished.games || []), ...(running.games || [])];
      if (!games.length) {
        this.archivePick.replaceChildren(h("option", { value: "" }, t("No games yet")));
        return;
      }
      this.archivePick.replaceChildren(
        ...games.map((g) => h("option", { value: g.id }, summaryText(g))),
      );
    } catch (err) {
      this.archivePick.replaceChildren(h("option", { value: "" }, t("Archive unavailable ({error})", { error: errorText(err) })));
    }
  }

  // ---- positions --------------------------------------------------------------------

  /**
   * The server's position after `ply` moves of the line (asked once).
   * @param {number} ply
   * @returns {Promise<PositionInfo>}
   */
  async info(ply) {
    const known = this.infos.get(ply);
    if (known) return known;
    const info = await api.position(this.startFen, this.line.slice(0, ply), this.rules);
    this.infos.set(ply, info);
    return info;
  }

  /**
   * The side to move after `ply` moves (the server's word when it is known).
   * @param {number} ply
   * @returns {Color}
   */
  turnAt(ply) {
    const info = this.infos.get(ply);
    if (info && info.turn) return info.turn;
    return ply % 2 === 0 ? this.startTurn : opponent(this.startTurn);
  }

  /** The ply being shown, or about to be: quick presses of "next" add up. */
  goal() {
    return this.target ?? this.ply;
  }

  /**
   * Show the position after `target` moves of the line (clamped to the line).
   * @param {number} target
   * @param {{animate?: boolean}} [options] animate: walk a single step forward
   */
  async go(target, { animate = true } = {}) {
    const ply = Math.max(0, Math.min(this.line.length, target));
    this.target = ply;
    const from = this.ply;
    const seq = (this.goSeq += 1);
    let info;
    try {
      info = await this.info(ply);
    } catch (err) {
      if (seq === this.goSeq) this.showError(errorText(err));
      return;
    }
    if (seq !== this.goSeq) return; // a later step overtook this one
    this.ply = ply;
    this.board.setPosition(boardPosition(info.board, info.turn), { move: info.last_move, animate: animate && ply === from + 1 });
    this.board.setArrow(null); // the engine's arrow was of the last position
    this.board.setLegalMoves(info.legal_moves || [], true);
    this.fenOut.value = info.fen;
    this.turnLine.textContent = statusText(info);
    // A finished game's end is in the status line (R16-R21): the tables have nothing to add.
    const tb = info.outcome ? null : info.tablebase;
    this.tablebase.hidden = !tb;
    this.evalBar.hidden = true; // shown again by the engine's or the tables' view
    if (tb) this.renderTablebase(tb, info);
    this.renderMoves();
    this.renderReview();
    this.shareLine();
    if (ply !== from || !animate) announce(ply === 0 ? t("Start position.") : t("After {move}.", { move: this.line[ply - 1] }));
    if (this.engineOn) this.analyse();
    else if (ply !== this.engineShownPly) this.clearEngine();
  }

  /** The tables' view of the shown position (GET /api/analysis/position's `tablebase`):
   * values are the server's, for the side to move under the running counts (R18, R19).
   * @param {TablebaseInfo} tb
   * @param {PositionInfo} info
   */
  renderTablebase(tb, info) {
    const conversion = (/** @type {number | null | undefined} */ d) => (d === null || d === undefined ? "" : `, ${tn("conversion in {n} ply", "conversion in {n} plies", d)}`);
    const loses = info.turn === "black" ? t("Black loses") : t("White loses");
    const headline = { win: winsText(info.turn), draw: t("Draw"), loss: loses }[tb.value];
    this.tablebaseEvaluation(tb, info);
    const line = tb.line || [];
    this.tablebaseLine.hidden = !line.length;
    if (line.length) {
      const winner = tb.value === "win" ? info.turn : opponent(info.turn);
      const winsIn = (/** @type {number} */ n) => (winner === "black" ? tn("Black wins in {n} move", "Black wins in {n} moves", n) : tn("White wins in {n} move", "White wins in {n} moves", n));
      const end = tb.win_in ? ` — ${winsIn(tb.win_in)}` : " …";
      this.tablebaseLine.replaceChildren(`${t("The tables' line:")} `, h("span", { class: "pv" }, variationText(line, this.ply + 1, this.startTurn)), end);
    }
    const cursed = tb.fresh_value !== tb.value ? ` (${t("{fresh} with fresh counts; the running counts make it {value}", { fresh: VALUE_NOUNS[tb.fresh_value], value: VALUE_NOUNS[tb.value] })})` : "";
    this.tablebaseValue.replaceChildren(
      h("strong", { class: `tb-${tb.value}` }, headline),
      tb.value === "draw" ? "" : conversion(tb.dtz),
      cursed,
    );
    const sorted = byTableValue(tb.moves);
    this.tablebaseMoves.replaceChildren(
      ...sorted.map((m) => {
        const legal = (info.legal_moves || []).find((l) => l.notation === m.move);
        const value = VALUE_WORDS[m.value];
        const title =
          m.dtz === null || m.dtz === undefined
            ? t("Play {move}: {value} (to the next capture or man move)", { move: m.move, value })
            : tn("Play {move}: {value}, conversion in {n} ply (to the next capture or man move)", "Play {move}: {value}, conversion in {n} plies (to the next capture or man move)", m.dtz, { move: m.move, value });
        const button = h(
          "button",
          { type: "button", class: `tb-move tb-${m.value}`, "data-move": m.move, "data-value": m.value, "data-dtz": m.dtz ?? "", title },
          h("span", { class: "tb-notation" }, m.move),
          h("span", { class: "tb-result" }, value),
          h("span", { class: "tb-dtz" }, m.dtz === null || m.dtz === undefined ? "" : t("DTZ {dtz}", { dtz: m.dtz })),
        );
        button.addEventListener("click", () => {
          if (legal) this.userMove(legal);
        });
        return h("li", {}, button);
      }),
    );
  }

  /**
   * The tables' exact view as the bar (a won position full for the winner) and their
   * best move as the arrow, when the engine is not running.
   * @param {TablebaseInfo} tb
   * @param {PositionInfo} info
   */
  tablebaseEvaluation(tb, info) {
    if (this.engineOn) return; // the engine's view, which uses the tables too, is shown
    const own = tb.value === "win" ? 1 : tb.value === "loss" ? 0 : 0.5;
    const black = info.turn === "black" ? own : 1 - own;
    this.evalFill.style.width = `${black * 100}%`;
    const words = { win: winsText(info.turn), loss: winsText(opponent(info.turn)), draw: t("Draw") }[tb.value];
    this.evalText.textContent = t("{result} (tables)", { result: words });
    this.evalBar.setAttribute("aria-label", t("Evaluation: {result}, by the endgame tables", { result: words }));
    this.evalBar.dataset.black = black.toFixed(3);
    this.evalBar.hidden = false;
    const [best] = byTableValue(tb.moves);
    const legal = best ? (info.legal_moves || []).find((m) => m.notation === best.move) : undefined;
    this.board.setArrow(legal ? legal.path : null);
  }

  /** The engine is off and the position changed: its last line is not about this one. */
  clearEngine() {
    this.lastInfo = null;
    this.current = null;
    this.bestButton.disabled = true;
    if (this.engineOut.childElementCount) {
      this.engineOut.replaceChildren(h("p", { class: "hint" }, t("Start the engine to analyse this position.")));
    }
  }

  /**
   * A move made on the board (or chosen from the tables): the tree's move if it has
   * it, else a new variation (the main line when nothing followed yet).
   * @param {LegalMove} move
   */
  userMove(move) {
    const k = this.ply;
    const nodes = this.tree.path(this.line.slice(0, k));
    const node = this.tree.add(k ? nodes[k - 1] : null, move.notation);
    this.showLine(this.tree.lineThrough(node));
    this.go(k + 1);
  }

  /**
   * Show `line` (from the start): the positions, evaluations and review of the old
   * line are kept up to where the two agree.
   * @param {string[]} line
   */
  showLine(line) {
    let same = 0;
    while (same < line.length && same < this.line.length && line[same] === this.line[same]) same += 1;
    const changed = same < line.length || same < this.line.length;
    this.line = line;
    if (changed) {
      for (const key of [...this.infos.keys()]) if (key > same) this.infos.delete(key);
      this.evals = this.evals.slice(0, same + 1);
      if (this.reviewStatus.textContent) this.reviewStatus.textContent = t("The line changed: evaluate the game again for the new moves.");
    }
    this.showBranch();
  }

  /** Off the main line: say where the shown line leaves it, and offer the way back. */
  showBranch() {
    const main = this.tree.mainline();
    let k = 0;
    while (k < main.length && k < this.line.length && main[k] === this.line[k]) k += 1;
    if (k >= main.length) {
      this.branchBanner.hidden = true;
      return;
    }
    const back = h("button", { type: "button", class: "small", id: "back-to-game" }, t("Back to the main line"));
    back.addEventListener("click", () => {
      this.showLine(main);
      this.renderReview();
      this.go(k);
      announce(t("Back to the main line."));
    });
    const wasHidden = this.branchBanner.hidden;
    const move = moveNumber(k + 1, this.startTurn);
    const banner = tn(
      "A variation from {move} on; the main line goes on from there with {n} ply, kept in the tree.",
      "A variation from {move} on; the main line goes on from there with {n} plies, kept in the tree.",
      main.length - k,
      { move },
    );
    this.branchBanner.replaceChildren(`${banner} `, back);
    this.branchBanner.hidden = false;
    if (wasHidden) announce(t("A variation from move {move}; the main line is kept.", { move }));
  }

  /**
   * The page's address names what is shown: the archive game (?game=) while its moves
   * are the line, else the start, the line and the rules (?fen=&moves=&rules=), and the
   * ply: copied from the address bar, or by "Copy link", it opens the same view.
   */
  shareLine() {
    const q = new URLSearchParams();
    const main = this.tree.mainline().join(" ") === this.loadedMain.join(" ") && this.line.join(" ") === this.loadedMain.join(" ");
    if (this.archiveId && main) {
      q.set("game", this.archiveId);
    } else {
      if (this.startFen) q.set("fen", this.startFen);
      if (this.line.length) q.set("moves", this.line.join(" "));
      if (this.rules) q.set("rules", JSON.stringify(this.rules));
    }
    if (this.ply !== this.line.length) q.set("ply", String(this.ply));
    const text = q.toString();
    window.history.replaceState(null, "", `/analysis${text ? `?${text}` : ""}`);
  }

  /** Copy the page's address (the shown position and line) for sharing. */
  async copyLink() {
    try {
      await navigator.clipboard.writeText(window.location.href);
      this.copyButton.textContent = t("Link copied");
    } catch {
      this.copyButton.textContent = t("Copy the address bar");
    }
    window.setTimeout(() => {
      this.copyButton.textContent = t("Copy link");
    }, 2500);
  }

  // ---- the move tree ----------------------------------------------------------------

  /** The shown move's node (null: the start position). */
  shownNode() {
    return this.ply ? this.tree.path(this.line.slice(0, this.ply))[this.ply - 1] || null : null;
  }

  /** The tools of the move tree: comment, make main line, delete, export. */
  treeTools() {
    this.commentInput.addEventListener("input", () => {
      const node = this.shownNode();
      if (node) node.comment = this.commentInput.value.trim();
      else this.tree.comment = this.commentInput.value.trim();
    });
    this.commentInput.addEventListener("change", () => this.renderMoves());
    this.promoteButton.addEventListener("click", () => {
      const node = this.shownNode();
      if (!node) return;
      this.tree.promote(node);
      this.showLine(this.tree.lineThrough(node));
      this.renderMoves();
      this.syncTreeTools();
      announce(t("This line is now the main line."));
    });
    this.deleteButton.addEventListener("click", () => {
      const node = this.shownNode();
      if (!node) return;
      const k = this.ply;
      this.tree.remove(node);
      this.showLine(this.tree.lineThrough(node.parent));
      this.renderReview();
      this.go(k - 1);
      announce(t("{move} and the moves after it are deleted.", { move: node.move }));
    });
    this.exportButton.addEventListener("click", () => this.exportPdn());
    return h(
      "section",
      { class: "tree-tools", "aria-label": t("Edit the moves") },
      h("label", { class: "field" }, h("span", { class: "label", id: "comment-label" }, t("Comment")), this.commentInput),
      h("div", { class: "row" }, this.promoteButton, this.deleteButton, this.exportButton, this.exportLink),
      this.exportOut,
    );
  }

  /** The tools follow the shown move. */
  syncTreeTools() {
    const node = this.shownNode();
    const main = this.tree.mainline();
    const onMain = this.line.slice(0, this.ply).every((m, i) => main[i] === m);
    this.commentInput.value = node ? node.comment : this.tree.comment;
    this.commentInput.placeholder = node ? t("A comment after {number} {move}", { number: moveNumber(this.ply, this.startTurn), move: node.move }) : t("A comment before the first move");
    this.promoteButton.disabled = !node || onMain;
    this.deleteButton.disabled = !node;
  }

  /** The tree as PDN, written by the server (every move of every line checked). */
  async exportPdn() {
    const unchanged = this.tree.mainline().join(" ") === this.loadedMain.join(" ");
    try {
      const { pdn } = await api.exportTree({ fen: this.startFen, rules: this.rules, tags: this.tags, result: unchanged ? this.result : "*", tree: this.tree.toLine() });
      this.exportOut.value = pdn;
      this.exportOut.hidden = false;
      this.exportLink.href = URL.createObjectURL(new Blob([pdn], { type: "application/x-pdn" }));
      this.exportLink.hidden = false;
      announce(t("The analysis is written as PDN below."));
    } catch (err) {
      this.showError(t("Export: {error}", { error: errorText(err) }));
    }
  }

  // ---- engine -----------------------------------------------------------------------

  ensureSocket() {
    if (this.socket) return;
    /** @type {LiveSocket<AnalysisMessage>} */
    const socket = new LiveSocket("/ws/analysis", {
      onMessage: (msg) => this.engineMessage(msg),
      onOpen: () => {
        this.outstanding = 0;
        if (this.engineOn) this.analyse();
      },
      onStatus: (status) => {
        this.engineButton.dataset.connection = status;
      },
    });
    this.socket = socket;
  }

  toggleEngine() {
    this.engineOn = !this.engineOn;
    this.engineButton.setAttribute("aria-pressed", String(this.engineOn));
    this.engineButton.textContent = this.engineOn ? t("Stop engine") : t("Start engine");
    if (this.engineOn) {
      this.ensureSocket();
      this.analyse();
    } else {
      if (this.socket && this.outstanding) this.socket.send({ type: "stop" });
      this.engineOut.append(h("p", { class: "hint" }, t("Engine stopped.")));
    }
  }

  async analyse() {
    const ply = this.ply;
    const info = await this.info(ply).catch(() => null);
    if (!info || !this.socket) return;
    this.current = { turn: info.turn };
    this.lastInfo = null;
    this.bestButton.disabled = true;
    if ((info.legal_moves || []).length === 0 || info.outcome) {
      if (this.outstanding) this.socket.send({ type: "stop" });
      const reason = info.outcome ? gameEnding(info.outcome, info.board).text : t("the game is over");
      const why = info.outcome ? reason : t("no legal move");
      this.engineOut.replaceChildren(h("p", {}, t("Nothing to analyse: {why}.", { why })));
      return;
    }
    this.engineOut.replaceChildren(h("p", { class: "hint" }, t("Thinking…")));
    if (this.outstanding) this.socket.send({ type: "stop" });
    this.engineShownPly = ply;
    // The start position and the moves, not the FEN alone: the engine then knows
    // the R18 / R19 counts and the positions met before (repetition option).
    this.requestId += 1;
    const sent = this.socket.send({
      type: "analyse",
      id: this.requestId,
      fen: this.startFen,
      moves: this.line.slice(0, ply),
      rules: this.rules || undefined,
      time: Number(this.engineTime.value) || ENGINE_SECONDS,
      multipv: this.wantedLines(),
    });
    // Each analyse request ends with exactly one "done" or "error", tagged with the
    // request's id: only the newest request's messages are shown.
    if (sent) this.outstanding += 1;
  }

  /** @param {AnalysisMessage} msg a message of /ws/analysis */
  engineMessage(msg) {
    if (msg.type !== "info" && msg.type !== "done" && msg.type !== "error") return;
    // A server that does not echo the id: count the requests still running instead.
    const latest = msg.id !== undefined && msg.id !== null ? msg.id === this.requestId : this.outstanding <= 1;
    if (msg.type === "done" || msg.type === "error") this.outstanding = Math.max(0, this.outstanding - 1);
    if (!latest || !this.current || !this.engineOn) return;
    if (msg.type === "error") {
      this.engineOut.replaceChildren(h("p", { class: "error" }, msg.error ? t("Engine: {error}", { error: msg.error.message }) : t("Engine: error")));
      return;
    }
    const data = this.engineView(msg);
    this.lastInfo = data;
    this.renderEngine(data, this.current.turn, msg.type === "done");
    this.showEvaluation(data, this.current.turn);
  }

  /**
   * The bar and the arrow of the engine's view of the shown position: Black's expected
   * score as the bar's dark part, the score's words on it, the best move as an arrow.
   * @param {EngineView} data
   * @param {Color} turn
   */
  showEvaluation(data, turn) {
    if (data.ply !== this.ply) return;
    const es = expectedScore(clampScore(data.score ?? 0, data.win_in), data.win_in ?? null);
    const black = turn === "black" ? es : 1 - es;
    this.evalFill.style.width = `${(black * 100).toFixed(1)}%`;
    this.evalText.textContent = evaluationWords(data.score_text, turn, true);
    this.evalBar.setAttribute("aria-label", t("Evaluation: {evaluation}", { evaluation: evaluationWords(data.score_text, turn) }));
    this.evalBar.dataset.black = black.toFixed(3);
    this.evalBar.hidden = false;
    const best = data.pv && data.pv.length ? data.pv[0] : null;
    const legal = (this.infos.get(this.ply)?.legal_moves || []).find((m) => m.notation === best);
    this.board.setArrow(legal ? legal.path : null);
  }

  /**
   * A search message as shown: its lines, or those of the last message when it has
   * no line yet.
   * @param {AnalysisReport} msg
   * @returns {EngineView}
   */
  engineView(msg) {
    const pv = msg.pv && msg.pv.length ? msg.pv : msg.best ? [msg.best] : [];
    const kept = pv.length ? null : this.lastInfo;
    // The server's lines of this depth, best first (each with its score text and its moves
    // as PDN move text); a server without multi-PV sends none: its one line is the PV.
    const own = pv.length ? [{ move: pv[0], pv, line: msg.line, score_text: msg.score_text }] : [];
    const lines = msg.lines && msg.lines.length ? msg.lines : kept ? kept.lines : own;
    return { ...kept, ...msg, pv: kept ? kept.pv : pv, line: kept ? kept.line : msg.line, lines, ply: this.engineShownPly ?? this.ply };
  }

  /**
   * The engine's output: the score in words, the lines, and the search's progress.
   * @param {EngineView} data
   * @param {Color} turn the side to move in the searched position
   * @param {boolean} done
   */
  renderEngine(data, turn, done) {
    const lines = data.lines;
    const legal = this.infos.get(data.ply)?.legal_moves || [];
    const progress = [t("depth {depth}", { depth: data.depth ?? "?" }), t("{count} nodes", { count: formatCount(data.nodes) })];
    if (data.nps) progress.push(t("{count} n/s", { count: formatCount(data.nps) }));
    if (legal.length && legal.length < this.wantedLines()) progress.push(legal.length === 1 ? t("the only legal move") : tn("{n} legal move", "{n} legal moves", legal.length));
    if (done) progress.push(t("done"));
    const linesLabel =
      turn === "black"
        ? tn("The engine's best {n} line, best first, for Black", "The engine's best {n} lines, best first, for Black", lines.length)
        : tn("The engine's best {n} line, best first, for White", "The engine's best {n} lines, best first, for White", lines.length);
    this.engineOut.replaceChildren(
      h(
        "p",
        { class: "score", id: "engine-score" },
        // Who is better and by how much (review.js evaluationWords): "White is slightly
        // better (+0.07)", "Black wins in 2" (the winner's moves, not plies).
        h("strong", {}, evaluationWords(data.score_text, turn)),
      ),
      h("ol", { class: "pv-lines", id: "engine-lines", "aria-label": linesLabel }, ...lines.map((line, i) => this.lineItem(line, i, data.ply, turn))),
      h("p", { class: "hint", id: "engine-depth" }, progress.join(" · ")),
    );
    this.bestButton.disabled = !data.pv.length;
  }

  /** How many lines the engine is asked for (the choice of #engine-lines-count). */
  wantedLines() {
    const n = Number(this.linesCount.value);
    return Number.isInteger(n) && n >= 1 && n <= this.maxLines ? n : Math.min(DEFAULT_LINES, this.maxLines);
  }

  /**
   * One of the engine's lines, as lichess shows them: its score, then its moves in the
   * server's PDN move text ("3... 22-17 4. 9-13"). The score plays the line's first move;
   * a move of the line steps into the line up to that move.
   * @param {AnalysisLine} line
   * @param {number} rank 0: the best
   * @param {number} ply the position's
   * @param {Color} turn the side to move in it
   * @returns {HTMLLIElement}
   */
  lineItem(line, rank, ply, turn) {
    /** @type {(HTMLElement | string)[]} */
    const moves = [];
    let k = 0;
    for (const token of (line.line || line.pv.join(" ")).split(/\s+/).filter(Boolean)) {
      if (moves.length) moves.push(" ");
      // The server's text: move numbers ("1.", "1...") between the moves of line.pv, in order.
      if (/^\d+\.+$/.test(token) || k >= line.pv.length) {
        moves.push(h("span", { class: "pv-no" }, token));
        continue;
      }
      const n = ++k;
      moves.push(
        h("button", { type: "button", class: "pv-move", "data-index": n - 1, title: t("Play the line up to {move}", { move: token }), onclick: () => this.playLine(line.pv, n, ply) }, token),
      );
    }
    return h(
      "li",
      { class: "pv-row", "data-rank": rank + 1, "data-move": line.move },
      h(
        "button",
        { type: "button", class: "pv-score", "data-move": line.move, title: t("Play {move}", { move: line.move }), "aria-label": t("Line {rank}, {score}: play {move}", { rank: rank + 1, score: evaluationWords(line.score_text, turn, true), move: line.move }), onclick: () => this.playLine(line.pv, 1, ply) },
        evaluationWords(line.score_text, turn, true),
      ),
      h("span", { class: "pv", id: rank === 0 ? "engine-pv" : null }, ...moves),
    );
  }

  /**
   * Play the first n moves of an engine line of the position at `ply` (the shown one).
   * @param {string[]} pv
   * @param {number} n
   * @param {number} ply
   */
  playLine(pv, n, ply) {
    if (ply !== this.ply || !pv.length) return; // a line of a position no longer shown
    if (n === 1) {
      const info = this.infos.get(this.ply);
      const move = info && (info.legal_moves || []).find((m) => m.notation === pv[0]);
      if (move) this.userMove(move);
      return;
    }
    const k = this.ply;
    const moves = pv.slice(0, n);
    let node = k ? this.tree.path(this.line.slice(0, k))[k - 1] : null;
    for (const m of moves) node = this.tree.add(node, m);
    this.showLine(this.tree.lineThrough(node));
    // The server checks every move of the line (POST /api/analysis/position).
    this.go(k + moves.length);
  }

  playBest() {
    if (!this.lastInfo || !this.lastInfo.pv.length) return;
    this.playLine(this.lastInfo.pv, 1, this.lastInfo.ply);
  }

  // ---- game review --------------------------------------------------------------------

  async review() {
    if (this.reviewing) {
      this.reviewing = false;
      return;
    }
    this.reviewing = true;
    this.reviewButton.textContent = t("Stop review");
    const seconds = Number(this.reviewTime.value) || 0.3;
    const socket = await openSocket("/ws/analysis").catch((err) => {
      this.showError(t("Engine: {error}", { error: errorText(err) }));
      return null;
    });
    if (!socket) {
      this.reviewing = false;
      this.reviewButton.textContent = t("Evaluate the game");
      return;
    }
    const lineAtStart = this.line.join(" ");
    try {
      for (let k = 0; k <= this.line.length && this.reviewing; k++) {
        if (this.line.join(" ") !== lineAtStart) break;
        if (this.evals[k] !== undefined) continue;
        this.reviewStatus.textContent = t("Evaluating position {k} of {n}…", { k, n: this.line.length });
        this.evals[k] = await this.evaluate(k, socket, seconds);
        this.renderReview();
      }
      this.reviewStatus.textContent = this.reviewing ? t("Review done.") : t("Review stopped.");
      announce(this.reviewStatus.textContent);
    } catch (err) {
      this.showError(t("Review: {error}", { error: errorText(err) }));
    } finally {
      socket.close();
      this.reviewing = false;
      this.reviewButton.textContent = t("Evaluate the game");
    }
  }

  /**
   * The position after k moves from Black's view: decided by the rules (R16, R18, R19)
   * or by the endgame tables with no search, else by a short search of the engine.
   * @param {number} k
   * @param {WebSocket} socket
   * @param {number} seconds
   * @returns {Promise<Evaluation>}
   */
  async evaluate(k, socket, seconds) {
    const info = await this.info(k);
    const turn = info.turn;
    let score;
    /** @type {number | null} */
    let mate = null;
    /** @type {string | null} */
    let best = null;
    if (info.outcome) {
      const w = info.outcome.winner;
      score = w === null || w === undefined ? 0 : w === turn ? WIN : -WIN;
      if (score) mate = score > 0 ? 1 : -1;
    } else if (info.tablebase) {
      // Endgame tables (docs/EGDB.md): the exact value under the running counts, so a
      // move that keeps a table win is never a mistake.
      const v = info.tablebase.value;
      score = v === "win" ? WIN : v === "loss" ? -WIN : 0;
      if (score) mate = score > 0 ? 1 : -1;
      const [first] = byTableValue(info.tablebase.moves);
      best = first ? first.move : null;
    } else {
      const done = await analyseOnce(socket, this.startFen, this.line.slice(0, k), this.rules, seconds);
      score = clampScore(done.score ?? 0, done.win_in);
      mate = done.win_in ?? null;
      best = done.best ?? (done.pv && done.pv.length ? done.pv[0] : null);
    }
    // Black's view: the evaluation in centi-men and the expected score (review.js).
    const es = expectedScore(score, mate);
    return { score: blackView(score, turn), es: turn === "black" ? es : 1 - es, best };
  }

  /**
   * Each ply of the line as the review judges it: its mover, and whether it was forced
   * (the server lists one legal move in its position).
   * @returns {{mover: Color, forced: boolean}[]}
   */
  reviewPlies() {
    const plies = [];
    for (let k = 1; k <= this.line.length; k++) {
      const before = this.infos.get(k - 1);
      plies.push({ mover: this.turnAt(k - 1), forced: Boolean(before && (before.legal_moves || []).length === 1) });
    }
    return plies;
  }

  /** @returns {(number | undefined)[]} Black's expected score after each ply (0: the start), where reviewed */
  blackScores() {
    return Array.from({ length: this.line.length + 1 }, (_, k) => this.evals[k]?.es);
  }

  /**
   * The judged moves (review.js judgeMoves): by the expected score lost, a forced
   * move (the server lists one legal move in its position) never, its loss charged
   * to its side's last real choice. Only the classes chosen in #mark-from.
   * @returns {JudgedMove[]}
   */
  mistakePlies() {
    const plies = this.reviewPlies();
    const scores = this.blackScores();
    const from = CLASSES.findIndex((c) => c.name === this.markFrom.value);
    const shown = new Set(CLASSES.slice(0, from < 0 ? CLASSES.length : from + 1).map((c) => c.name));
    return judgeMoves(scores, plies).filter((m) => shown.has(m.cls.name));
  }

  renderReview() {
    const n = this.line.length;
    const known = this.evals.filter((v) => v !== undefined).length;
    if (!known) {
      this.chart.replaceChildren();
      this.mistakes.replaceChildren();
      this.renderMoves();
      return;
    }
    const mistakes = this.mistakePlies();
    this.chart.replaceChildren(this.evalChart(mistakes), this.accuracyLine());
    this.mistakes.replaceChildren(...mistakes.map((m) => this.mistakeItem(m)));
    if (!mistakes.length && known > n) this.mistakes.replaceChildren(h("li", {}, t("No move marked: none lost that much expected score.")));
    this.renderMoves();
  }

  /** Each player's accuracy over the moves reviewed so far (review.js accuracy). */
  accuracyLine() {
    const acc = accuracy(this.blackScores(), this.reviewPlies());
    const parts = [];
    if (acc.black !== null) parts.push(t("Black {accuracy} %", { accuracy: Math.round(acc.black) }));
    if (acc.white !== null) parts.push(t("White {accuracy} %", { accuracy: Math.round(acc.white) }));
    return h("p", { class: "accuracy", id: "accuracy" }, parts.length ? t("Accuracy: {players}", { players: parts.join(" · ") }) : "");
  }

  /**
   * The evaluation graph: Black's expected score over the line, the shown ply and the
   * marked moves; a click goes to the ply under it.
   * @param {JudgedMove[]} mistakes
   * @returns {SVGSVGElement}
   */
  evalChart(mistakes) {
    const n = this.line.length;
    const W = 600;
    const H = 160;
    const x = (/** @type {number} */ k) => (n === 0 ? W / 2 : (k / n) * W);
    // Black's expected score, 1 at the top, 0 at the bottom (the units the marks use).
    const y = (/** @type {number} */ es) => 6 + (1 - es) * (H - 12);
    const esAt = (/** @type {number} */ k) => this.evals[k]?.es ?? 0.5;
    const points = [];
    for (let k = 0; k <= n; k++) if (this.evals[k] !== undefined) points.push(`${x(k).toFixed(1)},${y(esAt(k)).toFixed(1)}`);
    const marked = tn("{n} move marked", "{n} moves marked", mistakes.length);
    const chart = svg(
      "svg",
      { viewBox: `0 0 ${W} ${H}`, class: "eval-chart", role: "img", "aria-label": tn("Black's expected score over {n} ply, {marked}", "Black's expected score over {n} plies, {marked}", n, { marked }) },
      svg("rect", { class: "white-zone", x: 0, y: H / 2, width: W, height: H / 2 }),
      svg("line", { class: "axis", x1: 0, y1: H / 2, x2: W, y2: H / 2 }),
      points.length > 1 ? svg("polygon", { class: "area", points: `${points[0].split(",")[0]},${H / 2} ${points.join(" ")} ${points[points.length - 1].split(",")[0]},${H / 2}` }) : null,
      svg("polyline", { class: "line", points: points.join(" ") }),
      svg("line", { class: "cursor", x1: x(this.ply), y1: 0, x2: x(this.ply), y2: H }),
      ...mistakes.map((m) =>
        svg("circle", { class: `mistake ${m.cls.name} ${m.mover}`, cx: x(m.ply), cy: y(esAt(m.ply)), r: 5 }, svg("title", {}, t("{move} {kind}: −{loss} expected score", { move: `${this.line[m.ply - 1]}${m.cls.mark}`, kind: m.cls.label, loss: twoDecimals(m.loss) }))),
      ),
      svg("text", { x: 4, y: 14, class: "chart-label" }, t("Black")),
      svg("text", { x: 4, y: H - 5, class: "chart-label" }, t("White")),
    );
    chart.addEventListener("click", (e) => {
      const rect = chart.getBoundingClientRect();
      const k = Math.round(((e.clientX - rect.left) / rect.width) * n);
      this.go(k);
    });
    return chart;
  }

  /**
   * "2... 17-14? White, mistake: best was 21-17 (expected score 0.50 → 0.26, −0.24)":
   * what was better, in one unit (the mover's expected score).
   * @param {JudgedMove} m
   * @returns {HTMLLIElement}
   */
  mistakeItem(m) {
    const own = (/** @type {Evaluation} */ e) => (m.mover === "black" ? e.es : 1 - e.es);
    const last = m.forced.length ? m.forced[m.forced.length - 1] : m.ply;
    const before = this.evals[m.ply - 1];
    const after = this.evals[last];
    const kind = m.cls.label;
    const who = m.mover === "black" ? t("Black, {kind}", { kind }) : t("White, {kind}", { kind });
    const best = before && before.best && before.best !== this.line[m.ply - 1] ? `: ${t("best was {move}", { move: before.best })}` : "";
    const loss = twoDecimals(m.loss);
    const forced = m.forced.map((k) => this.line[k - 1]).join(", ");
    let scores = t("(−{loss} expected score)", { loss });
    if (before && after) {
      const params = { before: twoDecimals(own(before)), after: twoDecimals(own(after)), loss, moves: forced };
      scores = forced ? t("(expected score {before} → {after}, −{loss} with the forced {moves} after it)", params) : t("(expected score {before} → {after}, −{loss})", params);
    }
    return h(
      "li",
      { class: m.cls.name },
      h(
        "button",
        { type: "button", class: "link", onclick: () => this.go(m.ply) },
        `${moveNumber(m.ply, this.startTurn)} ${this.line[m.ply - 1]}${m.cls.mark}`,
      ),
      ` ${who}${best}`,
      ` ${scores}`,
    );
  }

  renderMoves() {
    const rows = moveRows(this.line, this.startTurn);
    const marks = new Map(this.mistakePlies().map((m) => [m.ply, m.cls]));
    const nodes = this.tree.path(this.line);
    const cell = (/** @type {MoveCell | null} */ entry) => {
      if (!entry) return h("span", { class: "mv empty" }, entry === null ? "…" : "");
      const cls = ["mv"];
      if (entry.ply === this.ply) cls.push("current");
      const mark = marks.get(entry.ply);
      if (mark) cls.push("mistake", mark.name);
      const node = nodes[entry.ply - 1];
      return h(
        "button",
        { type: "button", class: cls.join(" "), "data-ply": entry.ply, "aria-current": entry.ply === this.ply ? "true" : null, onclick: () => this.go(entry.ply) },
        (node ? moveLabel(node) : entry.text) + (mark ? mark.mark : ""),
      );
    };
    // a variation's move shows its line (the tree keeps every line)
    const pick = (/** @type {TreeNode} */ node, /** @type {number} */ ply) => {
      this.showLine(this.tree.lineThrough(node));
      this.renderReview();
      this.go(ply);
    };
    /** @type {HTMLElement[]} */
    const items = [];
    if (this.tree.comment) items.push(h("li", { class: "note" }, h("span", { class: "comment" }, this.tree.comment)));
    for (const row of rows) {
      items.push(h("li", { value: row.number }, h("span", { class: "no" }, `${row.number}.`), cell(row.black), cell(row.white)));
      const plies = [row.black, row.white].flatMap((c) => (c ? [c.ply] : []));
      const note = rowNote(this.tree, nodes, plies, this.startTurn, pick, null);
      if (note) items.push(note);
    }
    this.moveList.replaceChildren(...items);
    this.syncTreeTools();
    if (!rows.length) this.moveList.append(h("li", { class: "empty-list" }, t("No moves yet: play on the board, or set up a game below.")));
    const currentEl = this.moveList.querySelector(".current");
    if (currentEl instanceof HTMLElement) keepInView(this.moveList, currentEl);
  }
}

/**
 * Moves as PDN writes a line: "12. 30-26 14-18 13. 26-22" (a number before each of
 * Black's moves, and before the first).
 * @param {string[]} moves
 * @param {number} firstPly the first move's ply (1-based)
 * @param {Color} startTurn
 * @returns {string}
 */
function variationText(moves, firstPly, startTurn) {
  return moves
    .map((m, i) => {
      const number = moveNumber(firstPly + i, startTurn);
      return i === 0 || !number.endsWith("...") ? `${number} ${m}` : m;
    })
    .join(" ");
}

/**
 * A game of the archive as the analysis board heads it: its players (the tags of an
 * imported or online game), or who played it here.
 * @param {GameState} game
 * @returns {string}
 */
function gameTitle(game) {
  // the engine has no tag: the archive's words name it beside the player
  if (game.mode === "engine") return players(game, Boolean(game.your_color));
  const tags = game.tags || {};
  if (tags.Black || tags.White) return `${tags.Black || "?"} – ${tags.White || "?"}`;
  if (game.mode === "local") return t("A game on one screen");
  return t("Game {game}", { game: String(game.id) });
}

/**
 * The tables' moves best first for the mover: wins by the fastest conversion, then
 * draws, then losses by the slowest.
 * @template {{value: "win" | "draw" | "loss", dtz?: number | null}} M
 * @param {M[]} moves
 * @returns {M[]}
 */
function byTableValue(moves) {
  const rank = { win: 0, draw: 1, loss: 2 };
  return [...moves].sort((a, b) => {
    if (a.value !== b.value) return rank[a.value] - rank[b.value];
    const da = a.dtz ?? 0;
    const db = b.dtz ?? 0;
    return a.value === "win" ? da - db : db - da;
  });
}

/**
 * The status line of a position: who is to move, the end in the library's words
 * (R16-R21), or the draw counts (R18, R19) as on the game page.
 * @param {PositionInfo} info
 * @returns {string}
 */
function statusText(info) {
  const over = info.outcome ? ` — ${gameEnding(info.outcome, info.board).text}` : "";
  const c = info.counters;
  const counts = [];
  if (!over && c && c.r18_plies > 0) {
    counts.push(
      tn("draw count: {count} of {n} ply without a man move or capture", "draw count: {count} of {n} plies without a man move or capture", c.r18_limit_plies, { count: c.r18_plies }),
    );
  }
  if (!over && c && c.r19_active) counts.push(t("three kings against one: move {count} of {limit}", { count: c.r19_moves, limit: c.r19_limit }));
  return `${toMoveText(info.turn)}${over}${counts.length ? ` · ${counts.join(" · ")}` : ""}`;
}

/**
 * A count of nodes: "950", "12.3k", "4.5M".
 * @param {number | null | undefined} n
 * @returns {string}
 */
function formatCount(n) {
  if (n === undefined || n === null) return "?";
  const tenths = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
  if (n >= 1e6) return t("{count}M", { count: formatNumber(n / 1e6, tenths) });
  if (n >= 1e3) return t("{count}k", { count: formatNumber(n / 1e3, tenths) });
  return formatNumber(n);
}

/**
 * An archive game in a line: its players or mode, result, moves and when.
 * @param {GameSummary} g
 * @returns {string}
 */
export function summaryText(g) {
  const named = g.tags && (g.tags.Black || g.tags.White);
  const who = g.mode === "engine" && named ? players(g) : named ? `${g.tags.Black || "?"} – ${g.tags.White || "?"}` : modeName(g);
  const result = g.result || (g.status === "running" ? t("running") : "");
  const moves = g.moves_count;
  const seconds = g.updated ?? g.created;
  const date = typeof seconds === "number" ? new Date(seconds * 1000) : null;
  const when = date && !Number.isNaN(date.getTime()) ? ` · ${formatDate(date, { dateStyle: "short", timeStyle: "short" })}` : "";
  return `${who} · ${result}${moves !== undefined ? ` · ${tn("{n} move", "{n} moves", moves)}` : ""}${when}`;
}

/**
 * @param {GameSummary} g
 * @returns {string}
 */
function modeName(g) {
  if (g.mode === "engine") return t("vs engine (level {level})", { level: g.level ?? "?" });
  if (g.mode === "local") return t("two players");
  if (g.mode === "online") return t("online");
  if (g.mode === "import" || g.mode === "imported") return t("imported");
  return g.mode || t("game");
}

/**
 * A WebSocket to `path`, once open.
 * @param {string} path
 * @returns {Promise<WebSocket>}
 */
function openSocket(path) {
  return new Promise((resolve, reject) => {
    const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${window.location.host}${path}`);
    ws.addEventListener("open", () => resolve(ws));
    ws.addEventListener("error", () => reject(new Error(t("cannot connect to the engine"))));
  });
}

let reviewId = 0;

/**
 * One search of the position after `moves` from `fen` (a review's): its last word.
 * @param {WebSocket} ws
 * @param {string | null} fen
 * @param {string[]} moves
 * @param {Rules | null} rules
 * @param {number} seconds
 * @returns {Promise<AnalysisReport>}
 */
function analyseOnce(ws, fen, moves, rules, seconds) {
  const id = `review-${++reviewId}`;
  return new Promise((resolve, reject) => {
    /** @type {AnalysisReport | null} */
    let last = null;
    const timer = window.setTimeout(() => {
      ws.removeEventListener("message", onMessage);
      if (last) resolve(last);
      else reject(new Error(t("the engine did not answer")));
    }, (seconds + 10) * 1000);
    const onMessage = (/** @type {MessageEvent} */ event) => {
      /** @type {AnalysisMessage} */
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.id !== undefined && msg.id !== null && msg.id !== id) return; // an earlier request's
      if (msg.type === "info") last = { ...last, ...msg };
      else if (msg.type === "done") {
        window.clearTimeout(timer);
        ws.removeEventListener("message", onMessage);
        resolve({ ...last, ...msg });
      } else if (msg.type === "error") {
        window.clearTimeout(timer);
        ws.removeEventListener("message", onMessage);
        reject(new Error(msg.error ? msg.error.message : t("engine error")));
      }
    };
    ws.addEventListener("message", onMessage);
    ws.send(JSON.stringify({ type: "analyse", id, fen, moves, rules: rules || undefined, time: seconds }));
  });
}

/**
 * @param {HTMLElement} root
 */
export async function render(root) {
  // The §9 options, their words and defaults come from the rules library (GET /api/rules),
  // with the server's limits of an analysis.
  /** @type {RulesInfo | null} */
  let spec = null;
  let rulesError = "";
  try {
    spec = await ruleOptions();
  } catch (err) {
    rulesError = t("The rule options cannot be loaded ({error}): APCA rules.", { error: errorText(err) });
  }
  const page = new AnalysisPage(root, spec && ruleFields(spec, { idPrefix: "rule" }), rulesError, spec && spec.limits);
  // For debugging in the console and for the end-to-end tests.
  Object.assign(window, { poolcheckersAnalysis: page });
  await page.start();
}
