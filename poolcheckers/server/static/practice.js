// Endgame practice (docs/PRACTICE.md): the endings every pool player must know, played
// against perfect defence from the endgame tables. The target is shown ("Win within
// the count", "Hold the draw"), the counts run on the page, and after each move the
// page says whether it kept the result and how many plies it cost against the best.
// The rules and the tables are the server's: the page sends the line and shows.

/** @import { LegalMove, PositionInfo } from "./types.js" */

import { api, errorText, request } from "./api.js";
import { BoardView } from "./board.js";
import { send } from "./community.js";
import { t, tn } from "./i18n.js";
import { announce, boardPosition, h } from "./util.js";
import { endingOfReason } from "./outcome.js";

/**
 * @typedef {{id: string, title: string, about: string, fen: string, target: "win" | "draw"}} Exercise
 * @typedef {{before: string, after: string, kept: boolean, cost: number, best: string, move: string}} Verdict
 * @typedef {{verdict: Verdict, reply: string | null, over: {winner: string | null, reason: string} | null, value?: string}} MoveAnswer
 */

const TARGET_TEXT = { win: t("Win within the count"), draw: t("Hold the draw") };
const REPLY_DELAY_MS = 350;

/**
 * What a move did, in words: whether it kept the result, and what it cost.
 * @param {Verdict} v
 * @returns {string}
 */
function verdictText(v) {
  const params = { move: v.move, best: v.best };
  if (!v.kept) {
    // the move's value is worse than the position's (before: the best value)
    if (v.before === "win" && v.after === "draw") return t("{move} turns the win into a draw: {best} was the move.", params);
    if (v.before === "win") return t("{move} turns the win into a loss: {best} was the move.", params);
    return t("{move} turns the draw into a loss: {best} was the move.", params);
  }
  if (v.cost === 0) return t("{move}: best move.", params);
  if (v.before === "win") return tn("{move} keeps the win, {n} ply slower than {best}.", "{move} keeps the win, {n} plies slower than {best}.", v.cost, params);
  return v.before === "draw" ? t("{move} keeps the draw.", params) : t("{move} keeps the loss.", params);
}

class PracticePage {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    this.boardBox = h("div", { class: "board-box", id: "board" });
    this.boardHint = h("p", { class: "board-hint", id: "board-hint", "aria-hidden": "true" });
    this.board = new BoardView(this.boardBox, { onMove: (m) => this.userMove(m), onHint: (text) => { this.boardHint.textContent = text; }, label: t("Practice board") });
    this.title = h("h1", { class: "title", id: "practice-title" }, t("Endgame practice"));
    this.target = h("p", { class: "puzzle-goal", id: "practice-target" });
    this.about = h("p", { class: "hint", id: "practice-about" });
    this.status = h("p", { class: "status puzzle-status", id: "status", role: "status" });
    this.verdict = h("p", { class: "puzzle-feedback", id: "practice-verdict" });
    this.counts = h("div", { class: "counters", id: "practice-counts" });
    this.line = h("p", { class: "hint practice-line", id: "practice-line" });
    this.actions = h("div", { class: "actions", id: "practice-actions" });
    this.error = h("p", { class: "error", id: "error", role: "alert" });
    this.list = h("ul", { class: "exercises", id: "exercises" });
    this.fenInput = h("input", { type: "text", id: "practice-fen", "aria-label": t("FEN"), spellcheck: "false", autocomplete: "off", placeholder: t("e.g. {fen}", { fen: "W:WK1,K2,K3:BK32" }) });
    /** @type {Exercise | null} */
    this.exercise = null;
    this.fen = "";
    /** @type {string[]} */
    this.moves = [];
    /** @type {"black" | "white"} */
    this.player = "white";
    this.busy = false;
    this.over = false;
  }

  async start() {
    /** @type {Exercise[]} */
    const exercises = await request("GET", "/api/practice");
    const own = h(
      "form",
      { class: "practice-own", "aria-label": t("Your own position") },
      h("label", { class: "field" }, h("span", { class: "label" }, t("Or any position of up to four pieces (FEN)")), this.fenInput),
      h("button", { type: "submit" }, t("Practise it")),
    );
    own.addEventListener("submit", (event) => {
      event.preventDefault();
      const fen = this.fenInput.value.trim();
      if (fen) this.open({ id: "", title: t("Your position"), about: t("Play it against the endgame tables."), fen, target: "win" }, true);
    });
    this.list.replaceChildren(
      ...exercises.map((e) =>
        h(
          "li",
          {},
          h("button", { type: "button", class: "exercise", "data-exercise": e.id, onclick: () => this.open(e, false) }, h("strong", {}, e.title), h("span", {}, ` — ${TARGET_TEXT[e.target]}`)),
          h("p", { class: "hint" }, e.about),
        ),
      ),
    );
    this.root.replaceChildren(
      h(
        "div",
        { class: "play practice" },
        h("section", { class: "board-col", "aria-label": t("Board") }, this.boardBox, this.boardHint),
        h(
          "aside",
          { class: "side" },
          this.title,
          h("section", { class: "card", "aria-label": t("Practice") }, this.target, this.about, this.status, this.verdict, this.counts, this.line, this.actions),
          this.error,
          h("section", { class: "card", "aria-label": t("Endings to practise") }, h("h2", {}, t("Endings to practise")), this.list, own),
        ),
      ),
    );
    this.status.textContent = t("Choose an ending below.");
    const wanted = new URLSearchParams(window.location.search).get("exercise");
    const first = exercises.find((e) => e.id === wanted);
    if (first) await this.open(first, false);
  }

  /**
   * @param {Exercise} exercise
   * @param {boolean} own a position typed by the player: its target is what the tables say
   */
  async open(exercise, own) {
    this.error.textContent = "";
    try {
      /** @type {{fen: string, value: string}} */
      const start = await send("POST", "/api/practice/start", { fen: exercise.fen });
      const target = own ? (start.value === "loss" ? "draw" : /** @type {"win" | "draw"} */ (start.value)) : exercise.target;
      this.exercise = { ...exercise, target };
      this.fen = start.fen;
      this.moves = [];
      this.over = false;
      this.player = start.fen.toUpperCase().startsWith("W") ? "white" : "black";
      this.board.setFlipped(this.player === "black");
      this.title.textContent = exercise.title;
      this.target.textContent = own && start.value === "loss"
        ? t("The tables say this position is lost: resist as long as you can.")
        : TARGET_TEXT[target];
      this.about.textContent = exercise.about;
      this.verdict.textContent = "";
      this.verdict.className = "puzzle-feedback";
      await this.show(true);
      const about = { title: exercise.title, target: this.target.textContent };
      announce(this.player === "white" ? t("{title}. {target}. You play White.", about) : t("{title}. {target}. You play Black.", about));
    } catch (err) {
      this.error.textContent = errorText(err);
    }
  }

  /** @param {boolean} yourTurn */
  async show(yourTurn) {
    /** @type {PositionInfo} */
    const info = await api.position(this.fen, this.moves, null);
    this.info = info;
    this.board.setPosition(boardPosition(info.board, info.turn), { move: info.last_move, animate: this.moves.length > 0 });
    const canMove = yourTurn && !this.over && info.turn === this.player && !info.outcome;
    this.board.setLegalMoves(canMove ? info.legal_moves : [], canMove);
    const play = this.player === "white" ? t("Your turn: you play White.") : t("Your turn: you play Black.");
    if (!this.over) this.status.textContent = canMove ? play : t("The tables answer…");
    this.renderCounts(info);
    this.renderActions();
    this.line.dataset.moves = this.moves.join(" ");
    this.line.textContent = this.moves.length ? t("Moves: {moves}", { moves: this.moves.join(" ") }) : "";
  }

  /** @param {PositionInfo} info */
  renderCounts(info) {
    const c = info.counters;
    const parts = [];
    if (c.r19_active) parts.push(h("p", { class: "counter", id: "count-three-kings" }, t("Three kings against one: move {move} of {limit} for the three kings.", { move: c.r19_moves, limit: c.r19_limit })));
    if (c.r18_plies >= 2) parts.push(h("p", { class: "counter", id: "count-kings" }, tn("Kings only, no capture: {done} of {n} move each.", "Kings only, no capture: {done} of {n} moves each.", c.r18_limit_plies / 2, { done: Math.floor(c.r18_plies / 2) })));
    this.counts.replaceChildren(...parts);
  }

  renderActions() {
    if (!this.exercise) {
      this.actions.replaceChildren();
      return;
    }
    const exercise = this.exercise;
    this.actions.replaceChildren(
      h("button", { type: "button", id: "practice-restart", onclick: () => this.open(exercise, !exercise.id) }, t("Start again")),
      " ",
      h("a", { class: "button", href: `/analysis?fen=${encodeURIComponent(this.fen)}&moves=${encodeURIComponent(this.moves.join(" "))}` }, t("Analysis board")),
    );
  }

  /** @param {LegalMove} move */
  async userMove(move) {
    if (this.busy || this.over) return;
    this.busy = true;
    this.board.setLegalMoves([], false);
    this.moves.push(move.notation);
    try {
      /** @type {MoveAnswer} */
      const answer = await send("POST", "/api/practice/move", { fen: this.fen, moves: this.moves });
      this.say(answer.verdict);
      if (answer.reply) {
        await this.show(false);
        await new Promise((resolve) => window.setTimeout(resolve, REPLY_DELAY_MS));
        this.moves.push(answer.reply);
      }
      if (answer.over) this.end(answer.over);
      await this.show(true);
    } catch (err) {
      this.moves.pop();
      this.error.textContent = errorText(err);
      await this.show(true);
    } finally {
      this.busy = false;
    }
  }

  /** @param {Verdict} v */
  say(v) {
    const text = verdictText(v);
    this.verdict.textContent = text;
    this.verdict.className = `puzzle-feedback ${v.kept ? "good" : "bad"}`;
    announce(text, !v.kept);
  }

  /** @param {{winner: string | null, reason: string}} over */
  end(over) {
    this.over = true;
    const target = this.exercise?.target ?? "win";
    const won = over.winner === this.player;
    const met = target === "win" ? won : over.winner === null || won;
    // the reason names its rule for the API; the page says it in plain words
    const reason = endingOfReason(over.reason).text;
    this.status.textContent = met ? t("Well done! {reason}", { reason }) : reason;
    this.status.className = `status puzzle-status ${met ? "good" : "bad"}`;
  }
}

/** @param {HTMLElement} root */
export async function render(root) {
  await new PracticePage(root).start();
}
