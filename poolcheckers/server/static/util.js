// Shared helpers: DOM building, board geometry for drawing (R1-R2), the server's
// board text, move rows, clocks and scores. No rules here: positions, legal moves,
// crowning, FEN and PDN come from the server (the rules library), never from JS.

const SVG_NS = "http://www.w3.org/2000/svg";

/** Build an HTML element: h("button", {class: "x", onclick: f}, "text", child). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  appendChildren(el, children);
  return el;
}

/** Build an SVG element. */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  appendChildren(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
}

function appendChildren(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Square s (1..32) -> {r, c} on the 8x8 board, Black's side at the top (R2). */
export function squareToRC(s) {
  const r = Math.floor((s - 1) / 4);
  const k = (s - 1) % 4;
  return { r, c: r % 2 === 0 ? 2 * k + 1 : 2 * k };
}

/** {r, c} -> square number, or 0 for a light square / off the board. */
export function rcToSquare(r, c) {
  if (r < 0 || r > 7 || c < 0 || c > 7) return 0;
  if ((r + c) % 2 === 0) return 0;
  return r * 4 + Math.floor(c / 2) + 1;
}

export const SQUARES = Array.from({ length: 32 }, (_, i) => i + 1);

export const COLOR_NAME = { black: "Black", white: "White" };

export function opponent(color) {
  return color === "black" ? "white" : "black";
}

/**
 * The server's board text (GameState.board, Board.squares(): 32 characters,
 * square 1 first, "b"/"w" men, "B"/"W" kings, "." empty) as a position for
 * the board view: {turn, pieces} with pieces a Map square -> letter.
 */
export function boardPosition(text, turn) {
  const pieces = new Map();
  const board = String(text || "");
  for (let i = 0; i < board.length && i < 32; i++) {
    if (board[i] !== ".") pieces.set(i + 1, board[i]);
  }
  return { turn, pieces };
}

export function pieceName(p) {
  if (!p) return "empty";
  const color = p.toLowerCase() === "b" ? "black" : "white";
  return `${color} ${p === p.toUpperCase() ? "king" : "man"}`;
}

/** Move list rows for PDN display: [{number, black: {ply, text}|null, white: {...}|null}]. */
export function moveRows(moves, startTurn) {
  const rows = [];
  let ply = 0;
  let number = 1;
  let row = null;
  let side = startTurn;
  for (const text of moves) {
    ply += 1;
    if (side === "black" || row === null) {
      if (row) rows.push(row);
      row = { number, black: null, white: null };
      number += 1;
    }
    row[side] = { ply, text };
    if (side === "white") {
      rows.push(row);
      row = null;
    }
    side = opponent(side);
  }
  if (row) rows.push(row);
  return rows;
}

/**
 * "3." or "3...": the PDN move number of the move at ply (1-based), from the
 * side to move at the start (the server's start_turn): Black's turn and
 * White's reply share a number.
 */
export function moveNumber(ply, startTurn) {
  const offset = startTurn === "white" ? 1 : 0;
  const n = Math.floor((ply - 1 + offset) / 2) + 1;
  return (ply - 1 + offset) % 2 === 0 ? `${n}.` : `${n}...`;
}

/** "1 move", "2 moves": a count with its noun, singular or plural ("ply" -> "plies"). */
export function plural(n, word, many = null) {
  const count = Number(n);
  return `${n} ${count === 1 ? word : many ?? `${word}s`}`;
}

export function formatClock(seconds) {
  const s = Math.max(0, seconds);
  if (s < 10) return s.toFixed(1);
  const total = Math.floor(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

export function storageGet(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function storageSet(key, value) {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    /* private mode: the seat token lives only for this page */
  }
}

export function tokenKey(gameId) {
  return `poolcheckers.token.${gameId}`;
}

export function inviteKey(gameId) {
  return `poolcheckers.invite.${gameId}`;
}

/** The aria-live announcer shared by all pages. */
export function announce(text, assertive = false) {
  const region = document.getElementById(assertive ? "alerts" : "announcer");
  if (!region) return;
  region.textContent = "";
  // A fresh text node after a tick makes screen readers read repeated messages too.
  window.setTimeout(() => {
    region.textContent = text;
  }, 30);
}

/** Scroll the move list (only the list, never the page) so that el is visible. */
export function keepInView(list, el) {
  const top = el.offsetTop;
  const bottom = top + el.offsetHeight;
  if (top < list.scrollTop || bottom > list.scrollTop + list.clientHeight) {
    list.scrollTop = Math.max(0, top - list.clientHeight / 2);
  }
}
