// Shared helpers: DOM building, board geometry for drawing (R1-R2), the server's
// board text, move rows, clocks and scores. No rules here: positions, legal moves,
// crowning, FEN and PDN come from the server (the rules library), never from JS.

/** @import { Color } from "./types.js" */

import { t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * An element's attributes for h() and svg(): a value is set as text (true: present,
 * false, null or undefined: left out), `dataset` fills data-*, and a function under
 * an on* name listens to that event (addEventListener). The types refuse what a
 * Content-Security-Policy without inline script and style refuses: an on* attribute
 * that is not a function (an inline handler) and a style attribute (classes style).
 * @typedef {{[name: string]: AttrValue, [event: `on${string}`]: ((event: Event) => void) | null | undefined, style?: never}} Attrs
 */
/** @typedef {string | number | boolean | null | undefined | Record<string, string> | ((event: Event) => void)} AttrValue */

/**
 * What an element may hold: nodes, text (numbers become text), nothing (null,
 * undefined, false), or arrays of these.
 * @typedef {Node | string | number | null | undefined | false | ChildList} Child
 */
/** @typedef {Child[]} ChildList */

/**
 * Build an HTML element: h("button", {class: "x", onclick: f}, "text", child).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  appendChildren(el, children);
  return el;
}

/**
 * Build an SVG element.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...Child} children
 * @returns {SVGElementTagNameMap[K]}
 */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  appendChildren(el, children);
  return el;
}

/**
 * @param {HTMLElement | SVGElement} el
 * @param {Attrs} attrs
 */
function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) {
      // A listener, never an inline handler (a string here would be script in markup).
      if (typeof value === "function") el.addEventListener(key.slice(2), value);
    } else if (key === "dataset" && typeof value === "object") {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
}

/**
 * @param {Element} el
 * @param {Child[]} children
 */
function appendChildren(el, children) {
  for (const child of children) {
    if (Array.isArray(child)) appendChildren(el, child);
    else if (child !== null && child !== undefined && child !== false) {
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
}

/**
 * Square s (1..32) -> {r, c} on the 8x8 board, Black's side at the top (R2).
 * @param {number} s
 * @returns {{r: number, c: number}}
 */
export function squareToRC(s) {
  const r = Math.floor((s - 1) / 4);
  const k = (s - 1) % 4;
  return { r, c: r % 2 === 0 ? 2 * k + 1 : 2 * k };
}

/**
 * {r, c} -> square number, or 0 for a light square / off the board.
 * @param {number} r
 * @param {number} c
 * @returns {number}
 */
export function rcToSquare(r, c) {
  if (r < 0 || r > 7 || c < 0 || c > 7) return 0;
  if ((r + c) % 2 === 0) return 0;
  return r * 4 + Math.floor(c / 2) + 1;
}

/**
 * A position as the board view draws it: the side to move, and the piece letter
 * ("b", "w" men, "B", "W" kings) on each occupied square.
 * @typedef {{turn: Color, pieces: Map<number, string>}} Position
 */

/**
 * A move of a move list: its ply (1-based) and its PDN text.
 * @typedef {{ply: number, text: string}} MoveCell
 */

/**
 * A numbered row of a move list: Black's move and White's reply (null: none).
 * @typedef {{number: number, black: MoveCell | null, white: MoveCell | null}} MoveRow
 */

/** The playable squares, 1 to 32 (R2). */
export const SQUARES = Array.from({ length: 32 }, (_, i) => i + 1);

/**
 * The sides' names in English: the PDN tags of their players ("Black", "White",
 * "BlackElo"), never translated. Players read colorName().
 * @type {Record<Color, string>}
 */
export const COLOR_NAME = { black: "Black", white: "White" };

/**
 * A side's name as players read it: "Black" or "White" in the page's language.
 * @param {Color} color
 * @returns {string}
 */
export function colorName(color) {
  return color === "black" ? t("Black") : t("White");
}

/**
 * @param {Color} color
 * @returns {Color}
 */
export function opponent(color) {
  return color === "black" ? "white" : "black";
}

/**
 * The server's board text (GameState.board, Board.squares(): 32 characters,
 * square 1 first, "b"/"w" men, "B"/"W" kings, "." empty) as a position for
 * the board view: {turn, pieces} with pieces a Map square -> letter.
 * @param {string | null | undefined} text
 * @param {Color} turn
 * @returns {Position}
 */
export function boardPosition(text, turn) {
  const pieces = new Map();
  const board = String(text || "");
  for (let i = 0; i < board.length && i < 32; i++) {
    if (board[i] !== ".") pieces.set(i + 1, board[i]);
  }
  return { turn, pieces };
}

/**
 * A piece's letter ("b", "W", ...) in words: "black man", "white king"; "empty".
 * @param {string | undefined} p
 * @returns {string}
 */
export function pieceName(p) {
  if (!p) return t("empty");
  const king = p === p.toUpperCase();
  if (p.toLowerCase() === "b") return king ? t("black king") : t("black man");
  return king ? t("white king") : t("white man");
}

/**
 * Move list rows for PDN display: [{number, black: {ply, text}|null, white: {...}|null}].
 * @param {string[]} moves
 * @param {Color} startTurn
 * @returns {MoveRow[]}
 */
export function moveRows(moves, startTurn) {
  /** @type {MoveRow[]} */
  const rows = [];
  let ply = 0;
  let number = 1;
  /** @type {MoveRow | null} */
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
 * @param {number} ply
 * @param {Color} startTurn
 * @returns {string}
 */
export function moveNumber(ply, startTurn) {
  const offset = startTurn === "white" ? 1 : 0;
  const n = Math.floor((ply - 1 + offset) / 2) + 1;
  return (ply - 1 + offset) % 2 === 0 ? `${n}.` : `${n}...`;
}

/**
 * A clock's time: "9.5" under ten seconds, "1:15", "1:02:05".
 * @param {number} seconds
 * @returns {string}
 */
export function formatClock(seconds) {
  const s = Math.max(0, seconds);
  if (s < 10) return s.toFixed(1);
  const total = Math.floor(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/**
 * @param {string} key
 * @returns {string | null}
 */
export function storageGet(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * @param {string} key
 * @param {string} value
 */
export function storageSet(key, value) {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    /* private mode: the seat token lives only for this page */
  }
}

/**
 * The localStorage key of a game's seat token.
 * @param {string} gameId
 * @returns {string}
 */
export function tokenKey(gameId) {
  return `poolcheckers.token.${gameId}`;
}

/** @returns {string[]} the ids of the games this browser holds a seat token of */
export function seatTokenIds() {
  /** @type {string[]} */
  const ids = [];
  try {
    for (let i = 0; i < window.localStorage.length; i++) {
      const key = window.localStorage.key(i);
      if (key && key.startsWith(tokenKey(""))) ids.push(key.slice(tokenKey("").length));
    }
  } catch {
    // storage refused: no seats kept here
  }
  return ids;
}

/**
 * The localStorage key of a game's invitation link.
 * @param {string} gameId
 * @returns {string}
 */
export function inviteKey(gameId) {
  return `poolcheckers.invite.${gameId}`;
}

/**
 * The aria-live announcer shared by all pages.
 * @param {string} text
 * @param {boolean} [assertive]
 */
export function announce(text, assertive = false) {
  const region = document.getElementById(assertive ? "alerts" : "announcer");
  if (!region) return;
  region.textContent = "";
  // A fresh text node after a tick makes screen readers read repeated messages too.
  window.setTimeout(() => {
    region.textContent = text;
  }, 30);
}

/**
 * Scroll the move list (only the list, never the page) so that el is visible.
 * @param {HTMLElement} list
 * @param {HTMLElement} el
 */
export function keepInView(list, el) {
  const top = el.offsetTop;
  const bottom = top + el.offsetHeight;
  if (top < list.scrollTop || bottom > list.scrollTop + list.clientHeight) {
    list.scrollTop = Math.max(0, top - list.clientHeight / 2);
  }
}

/**
 * A small picture of a position, without moves (pages that load no board module).
 * @param {string} squares the 32 squares as the server writes them (b/w men, B/W kings, .)
 * @param {{flipped?: boolean, numbers?: boolean, label?: string}} [options]
 *   flipped: Black's side at the bottom; numbers: each dark square's number (R2)
 * @returns {SVGSVGElement}
 */
export function miniBoard(squares, { flipped = false, numbers = false, label = t("A position") } = {}) {
  const cells = [];
  for (let r = 0; r < 8; r++) {
    for (let c = 0; c < 8; c++) {
      const s = rcToSquare(r, c);
      const x = (flipped ? 7 - c : c) * 10;
      const y = (flipped ? 7 - r : r) * 10;
      cells.push(svg("rect", { x, y, width: 10, height: 10, class: s ? "sq" : "light" }));
      const p = s ? squares[s - 1] : ".";
      if (p && p !== ".") {
        const black = p.toLowerCase() === "b";
        cells.push(svg("circle", { cx: x + 5, cy: y + 5.3, r: 3.7, class: `mini-piece ${black ? "black" : "white"}` }));
        if (p === p.toUpperCase()) cells.push(svg("circle", { cx: x + 5, cy: y + 5.3, r: 1.5, class: "mini-crown" }));
      }
      // the number over the piece, outlined so that it reads on either colour
      if (s && numbers) cells.push(svg("text", { x: x + 0.6, y: y + 2.8, class: "mini-number" }, String(s)));
    }
  }
  return svg("svg", { class: "board mini", viewBox: "0 0 80 80", role: "img", "aria-label": label }, ...cells);
}

/**
 * A message of the server in plain words: the rule ids it cites (R11, R7, §9, the
 * rule book's name) are for developers and the API; players read the words, and the
 * first rule cited becomes a link to it on the rules page.
 * @param {string} text
 * @returns {{text: string, rule: string | null}}
 */
export function plainWords(text) {
  const cited = text.match(/\bR(?:[1-9]|1\d|2[01])\b/);
  const plain = text
    // "(R7, R9, R10; legal: 13x26)" keeps what follows the ids
    .replace(/\((?:\s*(?:R\d{1,2}\b|§\s?9|docs\/RULES\.md)[\s,;–-]*)+(?=[^)\s])/g, "(")
    // "(R16)", "(APCA, R15)", "(docs/RULES.md §9)": nothing but ids
    .replace(/\s*\((?:\s*(?:R\d{1,2}\b|§\s?9|docs\/RULES\.md|APCA)[\s,;–-]*)+\)/g, "")
    // ": R11," and "R18: "
    .replace(/:\s*R\d{1,2}\b/g, "")
    .replace(/\bR\d{1,2}:\s*/g, "")
    .replace(/\s*(?:\bR\d{1,2}\b|§\s?9|docs\/RULES\.md)/g, "")
    .replace(/\(\s*\)/g, "")
    .replace(/\s+([,.;:)])/g, "$1")
    .replace(/\s{2,}/g, " ")
    .trim();
  return { text: plain, rule: cited ? cited[0] : null };
}

/**
 * A server message for players: its plain words and, when it cites a rule, a link
 * to that rule on the rules page.
 * @param {string} text
 * @returns {HTMLElement}
 */
export function plainMessage(text) {
  return ruleMessage(plainWords(text));
}

/**
 * Words for players and, when they follow a rule, a link to it on the rules page.
 * @param {{text: string, rule: string | null}} said
 * @returns {HTMLElement}
 */
export function ruleMessage({ text, rule }) {
  return h("span", { class: "plain" }, text, rule ? " " : "", rule ? h("a", { href: `/rules#${rule}`, class: "rule-link" }, t("Why?")) : "");
}
