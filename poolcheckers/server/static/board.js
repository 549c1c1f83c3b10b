// The SVG board: R2 numbering, pieces, legal-move highlights, click-click, drag,
// landing-by-landing multi-capture choice, keyboard play and move animation.

/** @import { LastMove, LegalMove } from "./types.js" */
/** @import { Position } from "./util.js" */

import { t } from "./i18n.js";
import { SQUARES, announce, pieceName, rcToSquare, squareToRC, svg } from "./util.js";

const CELL = 100;
const STEP_MS = 190;
const CROWN = "M30 60 L27 36 L39 47 L50 31 L61 47 L73 36 L70 60 Z";

/**
 * Squares to choose from, in words: "15 or 31", "9 or 13 or 18".
 * @param {number[]} squares
 * @returns {string}
 */
function eitherOf(squares) {
  const words = squares.map(String);
  return words.length ? words.reduce((first, second) => t("{first} or {second}", { first, second })) : "";
}

/**
 * A piece drawn on the board: its element, its letter ("b", "W", ...), the square
 * it stands on, and the walk (animation) it is on, if any.
 * @typedef {{el: SVGGElement, kind: string, sq: number, anim?: symbol}} PieceEntry
 */

/**
 * A piece being dragged: where from, its drawing, whether it has left its square,
 * whether it was picked before, and where the pointer went down.
 * @typedef {{sq: number, entry: PieceEntry | undefined, moved: boolean, wasSelected: boolean, start: {x: number, y: number}, pointerId: number}} Drag
 */

/**
 * What the page gives the board: the move the user made, what to say on the page
 * about a refused or half-made move, and the board's name for screen readers.
 * A page may also take clicks on squares while the board takes no move (`onSquare`:
 * the board editor places and removes pieces so).
 * @typedef {{onMove?: ((move: LegalMove) => void) | null, onHint?: ((text: string) => void) | null, onSquare?: ((square: number) => void) | null, label?: string}} BoardOptions
 */

export class BoardView {
  /**
   * @param {HTMLElement} container
   * @param {BoardOptions} [options]
   */
  constructor(container, { onMove = null, onHint = null, onSquare = null, label = t("Board") } = {}) {
    this.container = container;
    this.onMove = onMove;
    this.onSquare = onSquare;
    this.onHint = onHint; // (text) => void: say on the page what the board refused or asks

    this.flipped = false;
    this.showNumbers = false;
    /** @type {Position} */
    this.position = { turn: "black", pieces: new Map() };
    /** @type {Map<number, PieceEntry>} */
    this.entries = new Map(); // square -> {el, kind, sq}
    /** @type {LegalMove[]} one entry per path of each legal move */
    this.legal = [];
    /** @type {LegalMove[] | null} the moves still open after an ambiguous landing */
    this.legalFilter = null;
    this.interactive = false;
    this.idleReason = ""; // why the board takes no move now, in words (set by the page)
    /** @type {number[]} the squares of a premove the page keeps (from, then to) */
    this.premoveSquares = [];
    this.idleHintShown = false;
    /** @type {number[] | null} */
    this.prefix = null; // [origin, landing, ...] of the move being built
    /** @type {number[] | null} the landings walked before the chosen move was sent */
    this.walked = null;
    /** @type {number | null} the square of the piece drawn on a landing of its walk */
    this.walker = null;
    /** @type {LastMove | null} */
    this.lastMove = null;
    /** @type {number | null} a square the page points to (a puzzle's hint) */
    this.hintSquare = null;
    this.cursor = 29;
    /** @type {Drag | null} */
    this.drag = null;
    this.root = svg("svg", {
      class: "board",
      viewBox: `0 0 ${8 * CELL} ${8 * CELL}`,
      role: "group",
      "aria-label": t("{label}. Arrow keys move between squares, Enter picks a piece and drops it.", { label }),
    });
    this.squareLayer = svg("g", { class: "squares" });
    this.markLayer = svg("g", { class: "marks", "aria-hidden": "true" });
    this.numberLayer = svg("g", { class: "numbers", "aria-hidden": "true" });
    this.pieceLayer = svg("g", { class: "pieces", "aria-hidden": "true" });
    // an arrow over the pieces (the engine's best move on the analysis board)
    this.arrowLayer = svg("g", { class: "arrows", "aria-hidden": "true" });
    /** @type {number[] | null} the squares the arrow goes through */
    this.arrowPath = null;
    /** @type {Map<number, SVGRectElement>} */
    this.squareEls = new Map();
    /** @type {Map<number, SVGTextElement>} */
    this.numberEls = new Map();
    this.build();
  }

  /** Draw the squares and their numbers, and listen to the pointer and the keys. */
  build() {
    // Numbers above the pieces, so that a piece never hides its square's number.
    this.root.append(
      svg("defs", {}, svg("marker", { id: "arrow-head", viewBox: "0 0 10 10", refX: 5, refY: 5, markerWidth: 3, markerHeight: 3, orient: "auto-start-reverse" }, svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrow-head" }))),
      this.squareLayer,
      this.markLayer,
      this.pieceLayer,
      this.arrowLayer,
      this.numberLayer,
    );
    for (let r = 0; r < 8; r++) {
      for (let c = 0; c < 8; c++) {
        if (rcToSquare(r, c) === 0) {
          this.squareLayer.append(
            svg("rect", { class: "light", x: c * CELL, y: r * CELL, width: CELL, height: CELL }),
          );
        }
      }
    }
    for (const s of SQUARES) {
      const rect = svg("rect", {
        class: "sq",
        width: CELL,
        height: CELL,
        tabindex: s === this.cursor ? 0 : -1,
        role: "button",
        "data-square": s,
      });
      rect.addEventListener("focus", () => this.setCursor(s, false));
      this.squareEls.set(s, rect);
      this.squareLayer.append(rect);
      const text = svg("text", { class: "num", "data-square": s }, String(s));
      this.numberEls.set(s, text);
      this.numberLayer.append(text);
    }
    this.root.addEventListener("pointerdown", (e) => this.pointerDown(e));
    this.root.addEventListener("pointermove", (e) => this.pointerMove(e));
    this.root.addEventListener("pointerup", (e) => this.pointerUp(e));
    this.root.addEventListener("pointercancel", () => this.cancelDrag());
    this.root.addEventListener("keydown", (e) => this.keyDown(e));
    this.container.replaceChildren(this.root);
    this.layout();
  }

  // ---- geometry ------------------------------------------------------------

  /**
   * The top left corner of square s as drawn (flipped or not).
   * @param {number} s
   * @returns {{x: number, y: number}}
   */
  xy(s) {
    const { r, c } = squareToRC(s);
    const dr = this.flipped ? 7 - r : r;
    const dc = this.flipped ? 7 - c : c;
    return { x: dc * CELL, y: dr * CELL };
  }

  /**
   * The square under the pointer (0: none).
   * @param {PointerEvent} e
   * @returns {number}
   */
  squareAtEvent(e) {
    const ctm = this.root.getScreenCTM();
    if (!ctm) return 0;
    const pt = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    let dc = Math.floor(pt.x / CELL);
    let dr = Math.floor(pt.y / CELL);
    if (this.flipped) {
      dc = 7 - dc;
      dr = 7 - dr;
    }
    return rcToSquare(dr, dc);
  }

  /**
   * The pointer's place in the board's own units.
   * @param {PointerEvent} e
   * @returns {{x: number, y: number}}
   */
  eventPoint(e) {
    const ctm = this.root.getScreenCTM();
    if (!ctm) return { x: 0, y: 0 };
    const pt = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    return { x: pt.x, y: pt.y };
  }

  layout() {
    for (const s of SQUARES) {
      const { x, y } = this.xy(s);
      this.squareEls.get(s)?.setAttribute("x", String(x));
      this.squareEls.get(s)?.setAttribute("y", String(y));
      this.numberEls.get(s)?.setAttribute("x", String(x + 4));
      this.numberEls.get(s)?.setAttribute("y", String(y + 19));
    }
    this.root.classList.add("no-anim");
    for (const entry of this.entries.values()) this.place(entry.el, entry.sq);
    // Force a style flush so the jump is not animated, then restore transitions.
    void this.root.getBoundingClientRect();
    this.root.classList.remove("no-anim");
    this.root.classList.toggle("flipped", this.flipped);
    this.root.classList.toggle("show-numbers", this.showNumbers);
    this.refreshMarks();
    this.refreshLabels();
    this.drawArrow();
  }

  /**
   * Show a premove's squares (none: []): the page plays it when its turn comes.
   * @param {number[]} squares
   */
  setPremove(squares) {
    this.premoveSquares = squares;
    this.refreshMarks();
  }

  /**
   * Point out a move with an arrow through its squares (null: none).
   * @param {number[] | null} path
   */
  setArrow(path) {
    this.arrowPath = path && path.length > 1 ? path : null;
    this.drawArrow();
  }

  drawArrow() {
    const path = this.arrowPath;
    if (!path) {
      this.arrowLayer.replaceChildren();
      return;
    }
    const points = path.map((s) => {
      const { x, y } = this.xy(s);
      return `${x + CELL / 2},${y + CELL / 2}`;
    });
    this.arrowLayer.replaceChildren(svg("polyline", { class: "arrow", points: points.join(" "), "marker-end": "url(#arrow-head)", "data-path": path.join("-") }));
  }

  /** @param {boolean} flipped White's side at the top */
  setFlipped(flipped) {
    this.flipped = flipped;
    this.layout();
  }

  /** @param {boolean} show */
  setShowNumbers(show) {
    this.showNumbers = show;
    this.root.classList.toggle("show-numbers", show);
  }

  // ---- pieces --------------------------------------------------------------

  /**
   * Move a piece's drawing onto square s.
   * @param {SVGGElement} el
   * @param {number} s
   */
  place(el, s) {
    const { x, y } = this.xy(s);
    el.style.transform = `translate(${x}px, ${y}px)`;
  }

  /**
   * @param {string} kind the piece's letter
   * @param {number} s
   * @returns {SVGGElement}
   */
  makePiece(kind, s) {
    const color = kind.toLowerCase() === "b" ? "black" : "white";
    const king = kind === kind.toUpperCase();
    const el = svg("g", { class: `piece ${color}${king ? " king" : ""}`, "data-square": s });
    el.append(
      svg("circle", { class: "body", cx: 50, cy: 53, r: 38 }),
      svg("circle", { class: "top", cx: 50, cy: 48, r: 38 }),
      svg("circle", { class: "ring", cx: 50, cy: 48, r: 27 }),
    );
    if (king) {
      el.append(svg("path", { class: "crown", d: CROWN }));
    }
    this.place(el, s);
    return el;
  }

  /**
   * Crown (or uncrown) a piece's drawing.
   * @param {SVGGElement} el
   * @param {string} kind
   */
  restyle(el, kind) {
    const king = kind === kind.toUpperCase();
    el.classList.toggle("king", king);
    const crown = el.querySelector(".crown");
    if (king && !crown) {
      el.append(svg("path", { class: "crown", d: CROWN }));
    } else if (!king && crown) {
      crown.remove();
    }
  }

  /**
   * @param {Map<number, string>} pieces
   * @returns {boolean} the pieces drawn are these
   */
  samePieces(pieces) {
    if (pieces.size !== this.entries.size) return false;
    for (const [s, kind] of pieces) {
      const entry = this.entries.get(s);
      if (!entry || entry.kind !== kind) return false;
    }
    return true;
  }

  /**
   * Show a position ({turn, pieces}); with move = {path, captured} the piece on
   * path[0] walks its landings and the captured pieces fade.
   * @param {Position} position
   * @param {{move?: LastMove | null, animate?: boolean}} [options]
   */
  setPosition(position, { move = null, animate = true } = {}) {
    // The same position again (a draw offer, a join, a clock): a pick in progress stays.
    const same = position.turn === this.position.turn && this.samePieces(position.pieces);
    this.position = position;
    this.lastMove = move;
    // The landings the user walked before the move was made: its walk goes on from there.
    const walked = this.walked;
    this.walked = null;
    const goesOn = Boolean(move && walked && walked.length > 1 && walked.every((sq, i) => move.path[i] === sq));
    const walkedFrom = goesOn && walked ? walked : null;
    // Finish any animation still running (the walked piece stays on its landing).
    for (const entry of this.entries.values()) {
      if (!(walkedFrom && entry.sq === walkedFrom[0])) this.place(entry.el, entry.sq);
    }
    const reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    const changed = !this.samePieces(position.pieces);
    if (changed && move && (animate || goesOn) && !reduce && this.entries.has(move.path[0])) {
      this.animateMove(move, walkedFrom ? walkedFrom.length - 1 : 0);
    }
    this.walker = null;
    this.sync(position.pieces);
    if (!same) {
      this.prefix = null;
      this.legalFilter = null;
    }
    this.refreshMarks();
    this.refreshLabels();
  }

  /** Walk the piece of `move` along its landings, from path[from] (a walk the user
   * made landing by landing goes on from where the piece is drawn).
   * @param {LastMove} move
   * @param {number} [from]
   */
  animateMove(move, from = 0) {
    const origin = move.path[0];
    const dest = move.path[move.path.length - 1];
    const entry = this.entries.get(origin);
    if (!entry) return; // setPosition animates a piece it draws
    this.entries.delete(origin);
    for (const c of move.captured || []) {
      const victim = this.entries.get(c);
      if (!victim) continue;
      this.entries.delete(c);
      this.fadeOut(victim.el, STEP_MS * (move.path.length - 1));
    }
    const occupant = this.entries.get(dest);
    if (occupant) occupant.el.remove();
    entry.sq = dest;
    entry.el.dataset.square = String(dest);
    this.entries.set(dest, entry);
    this.pieceLayer.append(entry.el); // on top while moving
    const token = Symbol("anim");
    entry.anim = token;
    move.path.slice(from + 1).forEach((s, i) => {
      window.setTimeout(() => {
        if (entry.anim === token) this.place(entry.el, s);
      }, STEP_MS * i);
    });
  }

  /**
   * Fade a captured piece out (after `delay` ms, when its capturer has walked).
   * @param {SVGGElement} el
   * @param {number} [delay]
   */
  fadeOut(el, delay = 0) {
    const fade = () => {
      el.classList.add("captured");
      window.setTimeout(() => el.remove(), 320);
    };
    // At once when there is no walk to wait for: the piece is gone from the position now.
    if (delay > 0) window.setTimeout(fade, delay);
    else fade();
  }

  /**
   * Draw `pieces`: a piece gone fades, a piece crowned is restyled, a new one appears.
   * @param {Map<number, string>} pieces
   */
  sync(pieces) {
    for (const [s, entry] of [...this.entries]) {
      const kind = pieces.get(s);
      if (kind === undefined) {
        this.entries.delete(s);
        this.fadeOut(entry.el);
      } else if (kind !== entry.kind) {
        if (kind.toLowerCase() === entry.kind.toLowerCase()) {
          // Crowned (or uncrowned by a takeback): restyle the same element, so a
          // walk in progress goes on; a crowning shows when the walk ends.
          const path = this.lastMove ? this.lastMove.path : [];
          const walking = path[path.length - 1] === s;
          const delay = walking ? STEP_MS * (path.length - 1) : 0;
          entry.kind = kind;
          const el = entry.el;
          window.setTimeout(() => {
            if (entry.kind === kind) this.restyle(el, kind);
          }, delay);
        } else {
          entry.el.remove();
          this.entries.delete(s);
        }
      }
    }
    for (const [s, kind] of pieces) {
      if (this.entries.has(s)) continue;
      const el = this.makePiece(kind, s);
      el.classList.add("appearing");
      this.pieceLayer.append(el);
      this.entries.set(s, { el, kind, sq: s });
      window.requestAnimationFrame(() => el.classList.remove("appearing"));
    }
  }

  // ---- legal moves and selection --------------------------------------------

  /**
   * legal: the server's [{notation, path, paths, captured, board_after}];
   * interactive: may the user move now. Each of a move's paths (R4: one move,
   * several roads) can be walked landing by landing; whichever is walked, the
   * move's notation is sent. The board computes no move itself.
   * @param {LegalMove[] | null | undefined} legal
   * @param {boolean} interactive
   */
  setLegalMoves(legal, interactive) {
    this.legal = (legal || []).flatMap((m) =>
      (m.paths && m.paths.length ? m.paths : [m.path]).map((path) => ({ ...m, path })),
    );
    this.legalFilter = null;
    this.interactive = Boolean(interactive);
    if (this.prefix && (!this.interactive || !this.candidates(this.prefix).length)) this.prefix = null;
    this.root.classList.toggle("interactive", this.interactive);
    if (this.interactive && this.idleHintShown) {
      this.idleHintShown = false;
      if (this.onHint) this.onHint(""); // "wait for ..." is over
    }
    // Tabbing in lands on a piece that can move, unless the user is on the board already.
    if (this.interactive && !this.root.contains(document.activeElement)) {
      const origins = [...this.origins()].sort((a, b) => a - b);
      if (origins.length && !origins.includes(this.cursor)) this.setCursor(origins[0], false);
    }
    this.refreshMarks();
    this.refreshLabels();
  }

  /** @returns {Set<number>} the squares of the pieces that can move */
  origins() {
    return new Set(this.legal.map((m) => m.path[0]));
  }

  /**
   * The moves (one per path) that begin with the landings `prefix`.
   * @param {number[]} prefix
   * @returns {LegalMove[]}
   */
  candidates(prefix) {
    const pool = this.legalFilter || this.legal;
    return pool.filter(
      (m) => m.path.length >= prefix.length && prefix.every((s, i) => m.path[i] === s),
    );
  }

  /**
   * Pick the piece on `origin`.
   * @param {number} origin
   */
  select(origin) {
    if (this.onHint) this.onHint("");
    this.legalFilter = null;
    this.prefix = [origin];
    this.refreshMarks();
    this.refreshLabels();
    const cands = this.candidates(this.prefix);
    const dests = [...new Set(cands.map((m) => m.path[m.path.length - 1]))].sort((a, b) => a - b);
    const picked = { piece: pieceName(this.position.pieces.get(origin)), square: origin, squares: dests.join(", ") };
    announce(t("Picked {piece} on {square}. Destinations: {squares}.", picked));
  }

  clear() {
    if (this.onHint) this.onHint("");
    this.prefix = null;
    this.legalFilter = null;
    this.refreshMarks();
    this.refreshLabels();
  }

  /**
   * A click (or Enter, or drop) on square s.
   * @param {number} s
   */
  activate(s) {
    if (s === 0) return;
    if (!this.interactive && this.onSquare) {
      this.onSquare(s);
      return;
    }
    if (!this.interactive) {
      // Say why nothing happens (the page knows: not your turn, watching, ...).
      if (this.idleReason) {
        this.hint(this.idleReason);
        this.idleHintShown = true;
      }
      return;
    }
    if (this.prefix === null) this.pick(s);
    else this.land(this.prefix, s);
  }

  /**
   * With nothing picked: pick the piece on s, or say why it cannot move.
   * @param {number} s
   */
  pick(s) {
    if (this.origins().has(s)) {
      this.select(s);
      return;
    }
    const piece = this.position.pieces.get(s);
    if (piece === undefined) return;
    const mover = this.position.turn === "black" ? "b" : "w";
    const mustCapture = this.legal.some((m) => m.captured && m.captured.length);
    const words = { piece: pieceName(piece), square: s };
    if (piece.toLowerCase() !== mover) {
      this.hint(
        this.position.turn === "black"
          ? t("Square {square} holds a {piece}; Black is to move.", words)
          : t("Square {square} holds a {piece}; White is to move.", words),
      );
    } else {
      this.hint(mustCapture ? t("The {piece} on {square} cannot capture, and capturing is a must.", words) : t("The {piece} on {square} has no legal move.", words));
    }
  }

  /**
   * With the landings `prefix` walked: land on s (the next landing or a move's
   * last), drop the pick, pick another piece, or say that s is no landing.
   * @param {number[]} prefix
   * @param {number} s
   */
  land(prefix, s) {
    const cands = this.candidates(prefix);
    const next = cands.filter((m) => m.path[prefix.length] === s);
    if (next.length) {
      this.walkTo([...prefix, s], next);
      return;
    }
    const ending = cands.filter((m) => m.path[m.path.length - 1] === s);
    if (ending.length) {
      this.endOn(s, ending);
      return;
    }
    if (s === prefix[0] && prefix.length === 1) {
      this.clear();
      announce(t("Selection cleared."));
      return;
    }
    if (this.origins().has(s)) {
      this.select(s);
      return;
    }
    this.hint(t("{square} is not a legal landing square.", { square: s }), true);
  }

  /**
   * The next landing of the moves `next`: the move when only one is left, else
   * walk on and ask for the landing after.
   * @param {number[]} newPrefix
   * @param {LegalMove[]} next
   */
  walkTo(newPrefix, next) {
    const continuing = next.filter((m) => m.path.length > newPrefix.length);
    const finishing = next.filter((m) => m.path.length === newPrefix.length);
    if (finishing.length && !continuing.length) {
      this.choose(finishing[0]);
      return;
    }
    if (new Set(next.map((m) => m.notation)).size === 1) {
      this.choose(next[0]);
      return;
    }
    this.prefix = newPrefix;
    this.legalFilter = next;
    this.refreshMarks();
    this.refreshLabels();
    const options = [...new Set(next.map((m) => m.path[newPrefix.length]).filter((x) => x !== undefined))].sort((a, b) => a - b);
    this.hint(t("Landed on {square}. Several ways on: next landing {squares}.", { square: newPrefix[newPrefix.length - 1], squares: eitherOf(options) }));
  }

  /**
   * A click on the last square of the moves `ending`: the move when it is one,
   * else several capture paths end on s: walk the common part and ask for the next
   * landing.
   * @param {number} s
   * @param {LegalMove[]} ending
   */
  endOn(s, ending) {
    if (ending.length === 1 || new Set(ending.map((m) => m.notation)).size === 1) {
      this.choose(ending[0]);
      return;
    }
    let common = [...ending[0].path];
    for (const m of ending) {
      let i = 0;
      while (i < common.length && i < m.path.length && common[i] === m.path[i]) i++;
      common = common.slice(0, i);
    }
    this.prefix = common;
    this.legalFilter = ending;
    this.refreshMarks();
    this.refreshLabels();
    const options = [...new Set(ending.map((m) => m.path[common.length]))].sort((a, b) => a - b);
    this.hint(t("Several capture paths reach {square}: choose the next landing, {squares}.", { square: s, squares: eitherOf(options) }));
  }

  /**
   * Tell the user (screen reader and page) what the board refused or asks for.
   * @param {string} text
   * @param {boolean} [assertive]
   */
  hint(text, assertive = false) {
    announce(text, assertive);
    if (this.onHint) this.onHint(text);
  }

  /**
   * The user's move is made: give it to the page.
   * @param {LegalMove} move
   */
  choose(move) {
    if (this.onHint) this.onHint("");
    this.walked = this.prefix; // the move's walk goes on from the last landing shown
    this.prefix = null;
    this.legalFilter = null;
    this.refreshMarks();
    if (this.onMove) this.onMove(move);
  }

  // ---- highlights --------------------------------------------------------------

  /**
   * Mark square s: "last" (the last move), "picked", "dest", "target", "threat" or
   * "hint" (the square a puzzle's hint points to).
   * @param {number} s
   * @param {string} cls
   */
  mark(s, cls) {
    const { x, y } = this.xy(s);
    if (cls === "target" || cls === "dest") {
      this.markLayer.append(
        svg("circle", { class: `mark ${cls}`, cx: x + CELL / 2, cy: y + CELL / 2, r: cls === "target" ? 15 : 40 }),
      );
    } else {
      this.markLayer.append(svg("rect", { class: `mark ${cls}`, x, y, width: CELL, height: CELL }));
    }
  }

  /**
   * While a capture is walked landing by landing, draw its piece on the current
   * landing (the last of the prefix); back on its square when the walk is dropped.
   * After a chosen move (this.walked) it stays there until the move is shown.
   */
  showWalk() {
    const origin = this.prefix ? this.prefix[0] : null;
    if (this.walker && this.walker !== origin && !this.walked) {
      const left = this.entries.get(this.walker);
      if (left) this.place(left.el, left.sq);
      this.walker = null;
    }
    if (!this.prefix || this.walked || origin === null) return;
    const entry = this.entries.get(origin);
    if (!entry || (this.drag && this.drag.moved)) return;
    const at = this.prefix[this.prefix.length - 1];
    if (this.prefix.length > 1) {
      this.pieceLayer.append(entry.el); // above the pieces it passes
      this.place(entry.el, at);
      this.walker = origin;
    } else if (this.walker === origin) {
      this.place(entry.el, entry.sq);
      this.walker = null;
    }
  }

  refreshMarks() {
    this.showWalk();
    this.markLayer.replaceChildren();
    if (this.lastMove) {
      for (const s of this.lastMove.path) this.mark(s, "last");
    }
    if (this.hintSquare) this.mark(this.hintSquare, "hint");
    for (const s of this.premoveSquares) this.mark(s, "premove");
    if (this.prefix) {
      for (const s of this.prefix) this.mark(s, "picked");
      const cands = this.candidates(this.prefix);
      const k = this.prefix.length;
      const nextSquares = new Set(cands.map((m) => m.path[k]).filter((x) => x !== undefined));
      const ends = new Set(cands.map((m) => m.path[m.path.length - 1]));
      for (const s of ends) if (!nextSquares.has(s)) this.mark(s, "dest");
      for (const s of nextSquares) this.mark(s, "target");
      const threatened = new Set(cands.flatMap((m) => m.captured || []));
      for (const c of threatened) this.mark(c, "threat");
    }
  }

  refreshLabels() {
    /** @type {Set<number>} */
    const targets = new Set();
    if (this.prefix) {
      const k = this.prefix.length;
      for (const m of this.candidates(this.prefix)) {
        if (m.path[k] !== undefined) targets.add(m.path[k]);
        targets.add(m.path[m.path.length - 1]);
      }
    }
    const origins = this.interactive ? this.origins() : new Set();
    // every legal move a capture: the pieces that must take are pointed out
    const mustCapture = this.legal.length > 0 && this.legal.every((m) => m.captured.length > 0);
    for (const s of SQUARES) {
      const parts = [t("Square {square}", { square: s }), pieceName(this.position.pieces.get(s))];
      const movable = this.prefix === null && origins.has(s);
      if (this.prefix && this.prefix[0] === s) parts.push(t("picked"));
      else if (targets.has(s)) parts.push(t("legal landing"));
      else if (movable) parts.push(mustCapture ? t("must capture") : t("can move"));
      this.squareEls.get(s)?.setAttribute("aria-label", parts.join(", "));
      this.squareEls.get(s)?.classList.toggle("can-move", movable);
      this.squareEls.get(s)?.classList.toggle("must-capture", movable && mustCapture);
    }
  }

  // ---- pointer -------------------------------------------------------------------

  /** @param {PointerEvent} e */
  pointerDown(e) {
    if (e.button !== 0) return;
    if (!this.interactive) {
      this.activate(this.squareAtEvent(e));
      return;
    }
    const s = this.squareAtEvent(e);
    if (!s) return;
    this.setCursor(s, false);
    const startsPick = this.origins().has(s) && (this.prefix === null || this.prefix.length === 1);
    if (startsPick) {
      const wasSelected = this.prefix !== null && this.prefix[0] === s;
      if (!wasSelected) this.select(s);
      const entry = this.entries.get(s);
      this.drag = { sq: s, entry, moved: false, wasSelected, start: this.eventPoint(e), pointerId: e.pointerId };
      try {
        this.root.setPointerCapture(e.pointerId);
      } catch {
        /* synthetic events */
      }
      e.preventDefault();
      return;
    }
    e.preventDefault();
    this.activate(s);
  }

  /** @param {PointerEvent} e */
  pointerMove(e) {
    const drag = this.drag;
    if (!drag || !drag.entry) return;
    const p = this.eventPoint(e);
    if (!drag.moved && Math.hypot(p.x - drag.start.x, p.y - drag.start.y) < 12) return;
    drag.moved = true;
    const el = drag.entry.el;
    el.classList.add("dragging");
    this.pieceLayer.append(el);
    el.style.transform = `translate(${p.x - CELL / 2}px, ${p.y - CELL / 2}px)`;
  }

  /** @param {PointerEvent} e */
  pointerUp(e) {
    const drag = this.drag;
    if (!drag) return;
    this.drag = null;
    if (drag.entry) {
      drag.entry.el.classList.remove("dragging");
    }
    if (!drag.moved) {
      if (drag.wasSelected) {
        this.clear();
      }
      return;
    }
    const s = this.squareAtEvent(e);
    if (drag.entry) this.place(drag.entry.el, drag.entry.sq);
    if (s && s !== drag.sq) this.activate(s);
  }

  cancelDrag() {
    if (this.drag && this.drag.entry) {
      this.drag.entry.el.classList.remove("dragging");
      this.place(this.drag.entry.el, this.drag.entry.sq);
    }
    this.drag = null;
  }

  // ---- keyboard -------------------------------------------------------------------

  /**
   * Move the keyboard's square (the one square in the tab order) to s.
   * @param {number} s
   * @param {boolean} [focus]
   */
  setCursor(s, focus = true) {
    if (this.cursor !== s) {
      const old = this.squareEls.get(this.cursor);
      if (old) old.setAttribute("tabindex", "-1");
      this.cursor = s;
    }
    const el = this.squareEls.get(s);
    el?.setAttribute("tabindex", "0");
    if (focus) el?.focus();
  }

  focus() {
    this.squareEls.get(this.cursor)?.focus();
  }

  /**
   * The nearest dark square from the cursor in a direction as drawn (0: none): a
   * row up or down (the left one first on a tie), or along the row.
   * @param {number} ddr rows down (-1 up, 0 along the row)
   * @param {number} ddc columns right (along the row)
   * @returns {number}
   */
  squareToward(ddr, ddc) {
    const here = this.xy(this.cursor);
    const dr = here.y / CELL;
    const dc = here.x / CELL;
    let best = 0;
    let bestCost = Infinity;
    for (const s of SQUARES) {
      const p = this.xy(s);
      const r = p.y / CELL;
      const c = p.x / CELL;
      if (ddr !== 0) {
        if (r !== dr + ddr) continue;
        const cost = Math.abs(c - dc) + (c < dc ? 0.1 : 0);
        if (cost < bestCost) [best, bestCost] = [s, cost];
      } else {
        if (r !== dr || Math.sign(c - dc) !== ddc) continue;
        const cost = Math.abs(c - dc);
        if (cost < bestCost) [best, bestCost] = [s, cost];
      }
    }
    return best;
  }

  /** @param {KeyboardEvent} e */
  keyDown(e) {
    /** @type {Record<string, [number, number]>} */
    const dirs = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (e.key in dirs) {
      e.preventDefault();
      const best = this.squareToward(...dirs[e.key]);
      if (best) this.setCursor(best);
      return;
    }
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      this.activate(this.cursor);
      return;
    }
    if (e.key === "Escape" && this.prefix) {
      e.preventDefault();
      this.clear();
      announce(t("Selection cleared."));
    }
  }
}
