// The board editor (/editor): set up any position by clicking (men, kings, the side to
// move, the counts), the FEN kept in step and checked by the server's rules library
// (R5), then play it against the engine, analyse it, make it a puzzle, or share its
// link (/editor?fen=…).

/** @import { PositionInfo } from "./types.js" */

import { api, errorText } from "./api.js";
import { BoardView } from "./board.js";
import { currentAccount, send } from "./community.js";
import { t, tn } from "./i18n.js";
import { boardPosition, h } from "./util.js";
import { gameEnding } from "./outcome.js";

/** @type {[string, string][]} the palette: a piece letter ("" empties) and its words */
const PALETTE = [
  ["b", t("Black man")],
  ["B", t("Black king")],
  ["w", t("White man")],
  ["W", t("White king")],
  ["", t("Empty square")],
];
const CHECK_DELAY_MS = 250;

/**
 * The FEN of a position (R5), with the counts when not zero.
 * @param {Map<number, string>} pieces
 * @param {"black" | "white"} turn
 * @param {number} plies the R18 count
 * @param {number} kingsCount the R19 count
 * @returns {string}
 */
export function toFen(pieces, turn, plies, kingsCount) {
  /** @param {string} color */
  const side = (color) =>
    [...pieces.entries()]
      .filter(([, p]) => p.toLowerCase() === color)
      .sort(([a], [b]) => a - b)
      .map(([s, p]) => (p === p.toUpperCase() ? `K${s}` : String(s)))
      .join(",");
  let fen = `${turn === "black" ? "B" : "W"}:W${side("w")}:B${side("b")}`;
  if (plies > 0) fen += `:H${plies}`;
  if (kingsCount > 0) fen += `:C${kingsCount}`;
  return fen;
}

class EditorPage {
  /**
   * @param {HTMLElement} root
   * @param {boolean} signedIn
   */
  constructor(root, signedIn) {
    this.root = root;
    this.signedIn = signedIn;
    /** @type {Map<number, string>} */
    this.pieces = new Map();
    /** @type {"black" | "white"} */
    this.turn = "black";
    this.brush = "b";
    this.boardBox = h("div", { class: "board-box", id: "board" });
    this.board = new BoardView(this.boardBox, { onSquare: (s) => this.paint(s), label: t("Board editor: click a square to place or remove a piece") });
    this.fenInput = h("input", { type: "text", id: "editor-fen", "aria-label": t("FEN"), spellcheck: "false", autocomplete: "off", autocapitalize: "characters" });
    this.turnSelect = h("select", { id: "editor-turn", "aria-label": t("Side to move") }, h("option", { value: "black" }, t("Black to move")), h("option", { value: "white" }, t("White to move")));
    this.plies = h("input", { type: "number", id: "editor-plies", min: "0", max: "100", value: "0", "aria-label": t("Moves without a man moved or a capture (plies)") });
    this.kingsCount = h("input", { type: "number", id: "editor-kings-count", min: "0", max: "13", value: "0", "aria-label": t("Three kings against one: moves already made") });
    this.status = h("p", { class: "status", id: "editor-status", role: "status" });
    this.error = h("p", { class: "error", id: "editor-error", role: "alert" });
    this.actions = h("div", { class: "actions", id: "editor-actions" });
    this.note = h("p", { class: "hint", id: "editor-note" });
    /** @type {number | undefined} */
    this.timer = undefined;
    this.valid = false;
    this.checked = "";
  }

  async start() {
    const palette = h(
      "div",
      { class: "palette", role: "radiogroup", "aria-label": t("Piece to place") },
      ...PALETTE.map(([letter, words]) => {
        const input = h("input", { type: "radio", name: "brush", value: letter, checked: letter === this.brush });
        input.addEventListener("change", () => (this.brush = letter));
        return h("label", { class: "choice" }, input, h("span", {}, words));
      }),
    );
    const clear = h("button", { type: "button", class: "small", onclick: () => this.setAll(new Map()) }, t("Empty board"));
    const initial = h("button", { type: "button", class: "small", onclick: () => this.loadFen("B:W21-32:B1-12") }, t("Start position"));
    const flip = h("button", { type: "button", class: "small", onclick: () => this.board.setFlipped(!this.board.flipped) }, t("Flip board"));
    this.turnSelect.addEventListener("change", () => {
      this.turn = /** @type {"black" | "white"} */ (this.turnSelect.value);
      this.changed();
    });
    for (const input of [this.plies, this.kingsCount]) input.addEventListener("input", () => this.changed());
    this.fenInput.addEventListener("change", () => this.loadFen(this.fenInput.value.trim()));
    this.fenInput.addEventListener("keydown", (event) => {
      if (event.key === "Enter") this.loadFen(this.fenInput.value.trim());
    });
    this.root.replaceChildren(
      h(
        "div",
        { class: "play editor" },
        h("section", { class: "board-col", "aria-label": t("Board") }, this.boardBox, h("div", { class: "board-tools" }, clear, initial, flip)),
        h(
          "aside",
          { class: "side" },
          h("h1", {}, t("Board editor")),
          h("section", { class: "card", "aria-label": t("Set up") }, palette, h("p", { class: "hint" }, t("Click a square to place the piece; click it again to remove it.")), h("label", { class: "field" }, h("span", { class: "label" }, t("Side to move")), this.turnSelect), h("label", { class: "field" }, h("span", { class: "label" }, t("Moves without a man moved or a capture (plies)")), this.plies), h("label", { class: "field" }, h("span", { class: "label" }, t("Three kings against one: moves already made")), this.kingsCount)),
          h("section", { class: "card", "aria-label": t("Position") }, h("label", { class: "field" }, h("span", { class: "label" }, t("FEN")), this.fenInput), this.status, this.error, this.actions, this.note),
        ),
      ),
    );
    const fen = new URLSearchParams(window.location.search).get("fen");
    await this.loadFen(fen || "B:W21-32:B1-12");
  }

  /** @param {number} s */
  paint(s) {
    const pieces = new Map(this.pieces);
    if (!this.brush || pieces.get(s) === this.brush) pieces.delete(s);
    else pieces.set(s, this.brush);
    this.setAll(pieces);
  }

  /** @param {Map<number, string>} pieces */
  setAll(pieces) {
    this.pieces = pieces;
    this.board.setPosition({ turn: this.turn, pieces }, { animate: false });
    this.changed();
  }

  changed() {
    const fen = toFen(this.pieces, this.turn, Number(this.plies.value) || 0, Number(this.kingsCount.value) || 0);
    this.fenInput.value = fen;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.check(fen), CHECK_DELAY_MS);
  }

  /** @param {string} fen */
  async loadFen(fen) {
    try {
      /** @type {PositionInfo} */
      const info = await api.position(fen, [], null);
      this.turn = info.turn;
      this.turnSelect.value = info.turn;
      this.plies.value = String(info.counters.r18_plies);
      this.kingsCount.value = String(info.counters.r19_moves);
      this.pieces = boardPosition(info.board, info.turn).pieces;
      this.board.setPosition({ turn: this.turn, pieces: this.pieces }, { animate: false });
      this.show(info);
    } catch (err) {
      this.invalid(err);
    }
  }

  /** @param {string} fen */
  async check(fen) {
    if (fen !== this.fenInput.value) return;
    try {
      this.show(await api.position(fen, [], null));
    } catch (err) {
      this.invalid(err);
    }
  }

  /** @param {PositionInfo} info */
  show(info) {
    this.valid = true;
    this.checked = info.fen;
    this.fenInput.value = info.fen;
    this.error.textContent = "";
    const moves = info.legal_moves.length;
    const toMove =
      info.turn === "black"
        ? tn("Black to move: {n} legal move.", "Black to move: {n} legal moves.", moves)
        : tn("White to move: {n} legal move.", "White to move: {n} legal moves.", moves);
    this.status.textContent = info.outcome ? t("A finished game: {reason}", { reason: gameEnding(info.outcome, info.board).text }) : toMove;
    window.history.replaceState(null, "", `/editor?fen=${encodeURIComponent(info.fen)}`);
    this.renderActions(!info.outcome);
  }

  /** @param {unknown} err */
  invalid(err) {
    this.valid = false;
    this.status.textContent = "";
    this.error.textContent = errorText(err);
    this.renderActions(false);
  }

  /** @param {boolean} playable */
  renderActions(playable) {
    const fen = encodeURIComponent(this.checked);
    const items = [];
    if (this.valid && playable) {
      items.push(h("a", { class: "button", id: "editor-play", href: `/?fen=${fen}` }, t("Play it against the engine")));
      items.push(h("a", { class: "button", id: "editor-analyse", href: `/analysis?fen=${fen}` }, t("Analyse it")));
      items.push(h("button", { type: "button", id: "editor-puzzle", onclick: () => this.makePuzzle() }, t("Make it a puzzle")));
    }
    if (this.valid) items.push(h("button", { type: "button", id: "editor-share", onclick: () => this.share() }, t("Share its link")));
    this.actions.replaceChildren(...items.flatMap((b, i) => (i ? [" ", b] : [b])));
  }

  async share() {
    const url = `${window.location.origin}/editor?fen=${encodeURIComponent(this.checked)}`;
    try {
      await navigator.clipboard.writeText(url);
      this.note.textContent = t("Link copied: {url}", { url });
    } catch {
      this.note.textContent = t("The link: {url}", { url });
    }
  }

  async makePuzzle() {
    if (!this.signedIn) {
      this.note.textContent = t("Sign in to make puzzles.");
      return;
    }
    this.note.textContent = t("The engine looks for the one winning line…");
    try {
      /** @type {{id: string, goal_text: string}} */
      const made = await send("POST", "/api/puzzles/propose", { fen: this.checked });
      // the line stays on the server: the puzzle is solved like any other
      const puzzle = t("A puzzle: {goal}.", { goal: made.goal_text });
      this.note.replaceChildren(`${puzzle} `, h("a", { href: `/puzzles/${encodeURIComponent(made.id)}`, id: "editor-puzzle-link" }, t("Open it")));
    } catch (err) {
      this.note.textContent = errorText(err);
    }
  }
}

/** @param {HTMLElement} root */
export async function render(root) {
  const account = await currentAccount();
  await new EditorPage(root, account !== null).start();
}
