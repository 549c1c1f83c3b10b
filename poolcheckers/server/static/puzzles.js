// The puzzle trainer (docs/PUZZLES.md), as on lichess: the position with the solver
// to move and the goal; the site plays the replies; a wrong move ends the attempt and
// the solution can then be replayed; a hint marks the piece to move; afterwards the
// puzzle opens on the analysis board. A signed-in player's first attempt at a puzzle
// is rated (their puzzle rating, apart from game ratings); signed out, attempts are
// unrated. The rules are the server's: every position and its legal moves come from
// it (POST /api/analysis/position). The solution stays there too: each move is posted
// to the attempt, the server answers right (with the reply to play) or wrong, and
// shows the line only when the attempt has ended.

/** @import { LegalMove, PositionInfo } from "./types.js" */

import { api, errorText, request } from "./api.js";
import { BoardView } from "./board.js";
import { currentAccount, send } from "./community.js";
import { formatNumber, t, tn } from "./i18n.js";
import { announce, boardPosition, h } from "./util.js";

/**
 * A puzzle as GET /api/puzzles/{id} gives it.
 * @typedef {object} PuzzleInfo
 * @property {string} id
 * @property {string} fen
 * @property {"material" | "win" | "draw"} goal
 * @property {string} goal_text
 * @property {number} rating
 * @property {string[]} themes
 * @property {{game: string, ply: number} | null} source
 * @property {number} plays
 * @property {{up: number, down: number}} votes
 */

/**
 * An attempt as POST /api/puzzles/{id}/attempts starts it (or goes on with it): the
 * line played so far.
 * @typedef {{attempt: string, ply: number, line: string[], hinted: boolean}} AttemptInfo
 */

/**
 * The answer to a move, a hint or giving up: the reply while the line goes on; the
 * solution and the rating once the attempt has ended.
 * @typedef {object} MoveResult
 * @property {boolean | null} correct
 * @property {string | null} move
 * @property {string | null} reply
 * @property {number} ply
 * @property {"solving" | "solved" | "failed"} state
 * @property {boolean} [hinted]
 * @property {string[]} [solution]
 * @property {{rated: boolean, before: number, after: number, diff: number, provisional: boolean} | null} [rating]
 */

const REPLY_DELAY_MS = 450;
const THEME_KEY = "puzzles:theme";

/**
 * "Your turn: you play Black." in the page's language.
 * @param {"black" | "white"} solver
 * @returns {string}
 */
function yourTurn(solver) {
  return solver === "white" ? t("Your turn: you play White.") : t("Your turn: you play Black.");
}

class PuzzlePage {
  /**
   * @param {HTMLElement} root
   * @param {boolean} signedIn
   */
  constructor(root, signedIn) {
    this.root = root;
    this.signedIn = signedIn;
    this.boardBox = h("div", { class: "board-box", id: "board" });
    this.boardHint = h("p", { class: "board-hint", id: "board-hint", "aria-hidden": "true" });
    this.board = new BoardView(this.boardBox, { onMove: (m) => this.userMove(m), onHint: (text) => { this.boardHint.textContent = text; }, label: t("Puzzle board") });
    this.title = h("h1", { class: "title" }, t("Puzzles"));
    this.status = h("p", { class: "status puzzle-status", id: "status", role: "status" });
    this.goal = h("p", { class: "puzzle-goal", id: "puzzle-goal" });
    this.feedback = h("p", { class: "puzzle-feedback", id: "puzzle-feedback" });
    this.ratingLine = h("p", { class: "puzzle-rating", id: "puzzle-rating" });
    /** the rating line's words before any thanks for a vote */
    this.ratingWords = "";
    this.actions = h("div", { class: "actions", id: "puzzle-actions" });
    this.replay = h("div", { class: "actions", id: "puzzle-replay", hidden: true });
    this.error = h("p", { class: "error", id: "error", role: "alert" });
    // the themes, their words and counts are the server's (GET /api/puzzles/themes)
    this.themeSelect = h("select", { id: "puzzle-theme", "aria-label": t("Theme") }, h("option", { value: "" }, t("All themes")));
    this.themeSelect.addEventListener("change", () => {
      window.localStorage?.setItem(THEME_KEY, this.themeSelect.value);
      this.next();
    });
    this.you = h("p", { class: "hint", id: "puzzle-you" });
    this.history = h("ol", { class: "puzzle-history", id: "puzzle-history", "aria-label": t("Your last puzzles") });
    /** @type {PuzzleInfo | null} */
    this.puzzle = null;
    /** @type {string | null} the attempt's key on the server */
    this.attemptId = null;
    /** @type {string[]} the moves of the line so far (solver's and replies) */
    this.played = [];
    /** @type {string[]} the solution, once the server has shown it (the attempt ended) */
    this.solution = [];
    /** @type {"solving" | "solved" | "failed"} */
    this.state = "solving";
    /** @type {PositionInfo | null} */
    this.info = null;
    /** @type {"black" | "white"} the side the player solves for */
    this.solver = "black";
    this.hintShown = false;
    this.showPly = 0;
    this.busy = false;
  }

  build() {
    const numbers = h("button", { type: "button", class: "small", "aria-pressed": "false" }, t("Square numbers"));
    numbers.addEventListener("click", () => {
      this.board.setShowNumbers(!this.board.showNumbers);
      numbers.setAttribute("aria-pressed", String(this.board.showNumbers));
    });
    const tools = h("div", { class: "board-tools" }, h("button", { type: "button", class: "small", onclick: () => this.board.setFlipped(!this.board.flipped) }, t("Flip board")), numbers);
    this.root.replaceChildren(
      h(
        "div",
        { class: "play puzzle" },
        h("section", { class: "board-col", "aria-label": t("Board") }, this.boardBox, tools, this.boardHint),
        h(
          "aside",
          { class: "side" },
          this.title,
          h("section", { class: "card puzzle-card", "aria-label": t("Puzzle") }, this.status, this.goal, this.feedback, this.ratingLine, this.actions, this.replay),
          this.error,
          h("section", { class: "card", "aria-label": t("Choose puzzles") }, h("label", { class: "field" }, h("span", { class: "label" }, t("Theme")), this.themeSelect), this.you),
          this.signedIn ? h("section", { class: "card", "aria-label": t("Your last puzzles") }, h("h2", {}, t("Your last puzzles")), this.history) : "",
        ),
      ),
    );
  }

  /** @param {string | null} id a puzzle to show, or null: the next one for the player */
  async start(id) {
    /** @type {{theme: string, name: string, count: number}[]} */
    const themes = await request("GET", "/api/puzzles/themes");
    this.themeSelect.append(...themes.filter((theme) => theme.count > 0).map((theme) => h("option", { value: theme.theme }, `${theme.name} (${formatNumber(theme.count)})`)));
    this.themeSelect.value = window.localStorage?.getItem(THEME_KEY) ?? "";
    if (this.themeSelect.selectedIndex < 0) this.themeSelect.value = "";
    this.build();
    await this.refreshYou();
    await this.load(id);
  }

  async refreshYou() {
    if (!this.signedIn) {
      this.you.textContent = t("Signed out, puzzles are not rated. Sign in to keep a puzzle rating.");
      return;
    }
    /** @type {{rating: {rating: number, provisional: boolean} | null, attempts: number, history: {puzzle: string, solved: boolean, rated: boolean, puzzle_rating: number}[]}} */
    const me = await request("GET", "/api/puzzles/me?limit=10");
    this.you.textContent = me.rating
      ? tn("Your puzzle rating: {rating} ({n} attempt)", "Your puzzle rating: {rating} ({n} attempts)", me.attempts, { rating: `${me.rating.rating}${me.rating.provisional ? "?" : ""}` })
      : t("Your puzzle rating starts at your first puzzle.");
    this.history.replaceChildren(
      ...me.history.map((a) =>
        h("li", { class: a.solved ? "solved" : "failed" }, h("a", { href: `/puzzles/${encodeURIComponent(a.puzzle)}` }, `${a.solved ? "✓" : "✗"} ${a.puzzle}`), ` (${a.puzzle_rating})`),
      ),
    );
  }

  async next() {
    window.history.pushState(null, "", "/puzzles");
    await this.load(null);
  }

  /** @param {string | null} id */
  async load(id) {
    this.error.textContent = "";
    try {
      const theme = this.themeSelect.value;
      /** @type {PuzzleInfo} */
      const puzzle = id
        ? await request("GET", `/api/puzzles/${encodeURIComponent(id)}`)
        : await request("GET", `/api/puzzles/next${theme ? `?theme=${encodeURIComponent(theme)}` : ""}`);
      /** @type {AttemptInfo} */
      const attempt = await send("POST", `/api/puzzles/${encodeURIComponent(puzzle.id)}/attempts`, {});
      this.puzzle = puzzle;
      this.attemptId = attempt.attempt;
      this.played = attempt.line;
      this.solution = [];
      this.state = "solving";
      this.hintShown = false;
      document.title = t("Puzzle {id} · Pool Checkers", { id: puzzle.id });
      // the side to move is the FEN's first letter (R5): the solver
      const solver = puzzle.fen.trim().toUpperCase().startsWith("W") ? "white" : "black";
      this.solver = solver;
      this.board.setFlipped(solver === "black");
      await this.show(this.played.length, false);
      this.status.textContent = yourTurn(solver);
      this.goal.textContent = puzzle.goal_text;
      this.feedback.textContent = "";
      this.feedback.className = "puzzle-feedback";
      this.ratingLine.textContent = this.ratingWords = "";
      this.replay.hidden = true;
      this.renderActions();
      announce(solver === "white" ? t("Puzzle. {goal}. You play White.", { goal: puzzle.goal_text }) : t("Puzzle. {goal}. You play Black.", { goal: puzzle.goal_text }));
    } catch (err) {
      this.error.textContent = errorText(err);
    }
  }

  /**
   * Show the position after `ply` moves of the line (the played moves, or the solution
   * when replaying it) and let the solver move while solving.
   * @param {number} ply
   * @param {boolean} animate
   */
  async show(ply, animate) {
    if (!this.puzzle) return;
    const line = this.state === "solving" ? this.played : this.solution;
    const info = await api.position(this.puzzle.fen, line.slice(0, ply), null);
    this.info = info;
    this.showPly = ply;
    this.board.hintSquare = null;
    this.board.setPosition(boardPosition(info.board, info.turn), { move: info.last_move, animate });
    const solving = this.state === "solving" && info.turn === this.solver && ply === this.played.length;
    this.board.setLegalMoves(solving ? info.legal_moves : [], solving);
  }

  /** @param {LegalMove} move */
  async userMove(move) {
    const puzzle = this.puzzle;
    if (!puzzle || this.state !== "solving" || this.busy || !this.attemptId) return;
    this.busy = true;
    try {
      /** @type {MoveResult} */
      const result = await send("POST", `/api/puzzles/attempts/${encodeURIComponent(this.attemptId)}/moves`, { ply: this.played.length, move: move.notation });
      this.played.push(move.notation);
      await this.show(this.played.length, false);
      if (result.state !== "solving") {
        await this.finish(result);
        return;
      }
      this.feedback.textContent = t("Best move! Keep going…");
      this.feedback.className = "puzzle-feedback good";
      await new Promise((resolve) => window.setTimeout(resolve, REPLY_DELAY_MS));
      if (result.reply) this.played.push(result.reply);
      await this.show(this.played.length, true);
      this.status.textContent = yourTurn(this.solver);
    } catch (err) {
      this.error.textContent = errorText(err);
    } finally {
      this.busy = false;
    }
  }

  /**
   * The attempt has ended (the server's answer to its last move, or to giving up):
   * the verdict, the rating, and the solution to replay.
   * @param {MoveResult} result
   */
  async finish(result) {
    const puzzle = this.puzzle;
    if (!puzzle) return;
    const solved = result.state === "solved";
    this.state = solved ? "solved" : "failed";
    this.solution = result.solution ?? [];
    this.board.setLegalMoves([], false);
    this.status.textContent = solved ? t("Solved!") : t("That is not the move.");
    this.feedback.textContent = solved
      ? t("Puzzle rated {rating}.", { rating: String(puzzle.rating) })
      : t("The move was {move}: see the whole solution below.", { move: this.solution[result.correct === false ? this.played.length - 1 : this.played.length] ?? "" });
    this.feedback.className = `puzzle-feedback ${solved ? "good" : "bad"}`;
    announce(this.status.textContent, !solved);
    const r = result.rating;
    if (r && r.rated) {
      const sign = r.diff >= 0 ? "+" : "−";
      this.ratingWords = t("Your puzzle rating: {rating} ({change})", { rating: `${r.after}${r.provisional ? "?" : ""}`, change: `${sign}${Math.abs(r.diff)}` });
      if (solved && result.hinted) this.ratingWords = `${t("Solved with a hint: rated as a miss.")} ${this.ratingWords}`;
    } else if (r) {
      this.ratingWords = t("Tried before: this attempt is not rated.");
    } else {
      this.ratingWords = t("Sign in to rate your attempts.");
    }
    this.ratingLine.textContent = this.ratingWords;
    this.renderActions();
    this.renderReplay();
    if (this.signedIn) this.refreshYou().catch(() => undefined);
  }

  renderActions() {
    const puzzle = this.puzzle;
    if (!puzzle) return;
    const buttons = [];
    if (this.state === "solving") {
      buttons.push(h("button", { type: "button", id: "puzzle-hint", onclick: () => this.hint() }, t("Hint")));
      buttons.push(h("button", { type: "button", id: "puzzle-give-up", onclick: () => this.giveUp() }, t("View the solution")));
    } else {
      buttons.push(h("button", { type: "button", class: "primary", id: "puzzle-next", onclick: () => this.next() }, t("Next puzzle")));
      const moves = this.solution.join(" ");
      buttons.push(h("a", { class: "button", id: "puzzle-analysis", href: `/analysis?fen=${encodeURIComponent(puzzle.fen)}&moves=${encodeURIComponent(moves)}` }, t("Analysis board")));
      if (this.signedIn) {
        buttons.push(h("button", { type: "button", class: "small", id: "vote-up", onclick: () => this.vote(1) }, t("Good puzzle")));
        buttons.push(h("button", { type: "button", class: "small", id: "vote-down", onclick: () => this.vote(-1) }, t("Bad puzzle")));
      }
    }
    this.actions.replaceChildren(...buttons.flatMap((b, i) => (i ? [" ", b] : [b])));
  }

  /** The solution, move by move: back and forth over it. */
  renderReplay() {
    const puzzle = this.puzzle;
    if (!puzzle) return;
    const solution = this.solution;
    const last = solution.length;
    const where = h("span", { class: "replay-where" });
    const update = async (/** @type {number} */ ply) => {
      await this.show(Math.max(0, Math.min(last, ply)), true);
      where.textContent = this.showPly ? `${this.showPly}/${last}: ${solution[this.showPly - 1]}` : t("start (0/{last})", { last });
    };
    this.replay.replaceChildren(
      h("span", {}, t("Solution:"), " "),
      h("button", { type: "button", class: "small", "aria-label": t("Back to the start"), onclick: () => update(0) }, "«"),
      h("button", { type: "button", class: "small", "aria-label": t("One move back"), onclick: () => update(this.showPly - 1) }, "◀"),
      where,
      h("button", { type: "button", class: "small", "aria-label": t("One move on"), id: "replay-next", onclick: () => update(this.showPly + 1) }, "▶"),
      h("button", { type: "button", class: "small", "aria-label": t("To the end"), onclick: () => update(last) }, "»"),
      h("p", { class: "hint" }, `${solution.join(" ")}`),
    );
    this.replay.hidden = false;
    where.textContent = `${this.showPly}/${last}`;
  }

  /** The server marks the piece to move (a solve after a hint is rated as a miss). */
  async hint() {
    if (!this.puzzle || !this.info || this.state !== "solving" || !this.attemptId) return;
    try {
      /** @type {{ply: number, square: number}} */
      const hint = await send("POST", `/api/puzzles/attempts/${encodeURIComponent(this.attemptId)}/hint`, {});
      this.hintShown = true;
      this.board.hintSquare = hint.square;
      this.board.refreshMarks();
      this.feedback.textContent = t("Move the piece on square {square}.", { square: hint.square });
      this.feedback.className = "puzzle-feedback";
    } catch (err) {
      this.error.textContent = errorText(err);
    }
  }

  /** Giving up counts as a miss: the server ends the attempt and shows the solution. */
  async giveUp() {
    if (!this.puzzle || this.state !== "solving" || this.busy || !this.attemptId) return;
    this.busy = true;
    try {
      /** @type {MoveResult} */
      const result = await send("POST", `/api/puzzles/attempts/${encodeURIComponent(this.attemptId)}/give-up`, {});
      await this.finish(result);
      await this.show(0, false);
      this.status.textContent = t("The solution:");
    } catch (err) {
      this.error.textContent = errorText(err);
    } finally {
      this.busy = false;
    }
  }

  /** @param {number} vote */
  async vote(vote) {
    if (!this.puzzle) return;
    try {
      /** @type {{up: number, down: number}} */
      const counts = await send("POST", `/api/puzzles/${encodeURIComponent(this.puzzle.id)}/vote`, { vote });
      const thanks = t("Thanks for your vote ({up} good, {down} bad).", { up: counts.up, down: counts.down });
      this.ratingLine.textContent = this.ratingWords ? `${this.ratingWords} ${thanks}` : thanks;
    } catch (err) {
      this.error.textContent = errorText(err);
    }
  }
}

/**
 * @param {HTMLElement} root
 * @param {string} [id]
 */
export async function render(root, id) {
  const account = await currentAccount();
  const page = new PuzzlePage(root, account !== null);
  await page.start(id ?? null);
}
