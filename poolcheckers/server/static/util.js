// Shared helpers: DOM building, board geometry (R1-R2), FEN (R5) and PDN text.

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
 * Parse a PDN FEN (R5): "B:W21,22,K30:B1-12". Returns {turn, pieces} where
 * pieces maps square -> "b" | "w" (men) | "B" | "W" (kings). Throws on bad text.
 */
export function parseFen(text) {
  let fen = String(text).trim();
  const tag = fen.match(/^\[FEN\s+"([^"]*)"\]$/i);
  if (tag) fen = tag[1];
  fen = fen.replace(/\.$/, "").replace(/\s+/g, "");
  const parts = fen.split(":");
  if (parts.length < 1 || !/^[BW]$/i.test(parts[0])) {
    throw new Error(`FEN must start with the side to move (B or W): ${text}`);
  }
  const turn = parts[0].toUpperCase() === "B" ? "black" : "white";
  const pieces = new Map();
  for (const part of parts.slice(1)) {
    if (part === "") continue;
    // ":H<n>" and ":C<n>" carry the R18 and R19 counts (R21): not pieces.
    if (/^[HC]\d+$/i.test(part)) continue;
    const side = part[0].toUpperCase();
    if (side !== "B" && side !== "W") throw new Error(`bad FEN field: ${part}`);
    const body = part.slice(1);
    if (body === "") continue;
    for (const item of body.split(",")) {
      const m = item.match(/^(K?)(\d{1,2})(?:-(\d{1,2}))?$/i);
      if (!m) throw new Error(`bad FEN square: ${item}`);
      const from = Number(m[2]);
      const to = m[3] ? Number(m[3]) : from;
      for (let s = from; s <= to; s++) {
        if (s < 1 || s > 32) throw new Error(`FEN square out of range: ${s}`);
        const letter = side === "B" ? "b" : "w";
        pieces.set(s, m[1] ? letter.toUpperCase() : letter);
      }
    }
  }
  return { turn, pieces };
}

export function fenTurn(fen) {
  try {
    return parseFen(fen).turn;
  } catch {
    return "black";
  }
}

/** Apply a move ({path, captured}) to a parsed position, returning a new one. */
export function applyMove(position, move) {
  const pieces = new Map(position.pieces);
  const origin = move.path[0];
  const dest = move.path[move.path.length - 1];
  let piece = pieces.get(origin);
  pieces.delete(origin);
  for (const c of move.captured || []) pieces.delete(c);
  if (piece) {
    const row = squareToRC(dest).r;
    if (piece === "b" && row === 7) piece = "B";
    if (piece === "w" && row === 0) piece = "W";
    pieces.set(dest, piece);
  }
  return { turn: opponent(position.turn), pieces };
}

export function pieceName(p) {
  if (!p) return "empty";
  const color = p.toLowerCase() === "b" ? "black" : "white";
  return `${color} ${p === p.toUpperCase() ? "king" : "man"}`;
}

/** Split PDN text into games: [{tags, moves: [str], result}] (a light reader for the analysis page). */
export function parsePdnLight(text) {
  const games = [];
  let current = null;
  const src = String(text).replace(/\r\n?/g, "\n");
  // "(" and ")" are tokens of their own: variations nest (PDN 3.0), and only
  // the main line's moves are read.
  const tokens = src.match(/\[[^\]]*\]|\{[^}]*\}|;[^\n]*|[()]|[^\s[\]{}();]+/g) || [];
  let depth = 0;
  const finish = () => {
    if (current && (current.moves.length > 0 || Object.keys(current.tags).length > 0)) {
      games.push(current);
    }
    current = null;
  };
  for (const tok of tokens) {
    if (tok === "(") {
      depth += 1;
      continue;
    }
    if (tok === ")") {
      depth = Math.max(0, depth - 1);
      continue;
    }
    if (depth > 0) continue;
    if (tok.startsWith("[")) {
      if (current && current.moves.length > 0) finish();
      if (!current) current = { tags: {}, moves: [], result: "*" };
      const m = tok.match(/^\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]$/);
      if (m) current.tags[m[1]] = m[2];
      continue;
    }
    if (tok.startsWith("{") || tok.startsWith(";")) continue;
    if (!current) current = { tags: {}, moves: [], result: "*" };
    if (/^(2-0|0-2|1-1|1-0|0-1|1\/2-1\/2|\*|0-0)$/.test(tok)) {
      current.result = tok;
      finish();
      continue;
    }
    const cleaned = tok.replace(/^\d+\.(\.\.)?/, "").replace(/[!?]+$/, "");
    if (cleaned === "" || /^\.+$/.test(cleaned) || /^\d+\.$/.test(tok)) continue;
    if (/^\d{1,2}([-x]\d{1,2})+$/.test(cleaned)) current.moves.push(cleaned);
  }
  finish();
  return games;
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

export function formatClock(seconds) {
  const s = Math.max(0, seconds);
  if (s < 10) return s.toFixed(1);
  const total = Math.floor(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** Engine score (centi-men, side to move) as text from the side to move's view. */
export function formatScore(score, mateIn) {
  if (mateIn !== null && mateIn !== undefined) {
    return mateIn > 0 ? `win in ${mateIn}` : `loss in ${-mateIn}`;
  }
  const v = (score / 100).toFixed(2);
  return score > 0 ? `+${v}` : v;
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

const DIAGONALS = [
  [-1, -1],
  [-1, 1],
  [1, -1],
  [1, 1],
];

function neighbour(s, dr, dc) {
  const { r, c } = squareToRC(s);
  return rcToSquare(r + dr, c + dc);
}

/**
 * Every capture path of the side to move in a parsed position (R7, R9, R10,
 * R13-R15): [{path: [origin, landing, ...], captured: [squares]}]. Men jump
 * forward or backward; kings fly and, after a jump, land on any empty square
 * beyond from which the capture goes on (R10), or any of them when none does.
 * Jumped pieces stay on the board and block (R14); the origin counts as empty.
 * crown: "pass" (R15, the man jumps on as a man) or "stop" (§9: crowned there,
 * the move ends). The server's legal moves stay the authority: this only
 * finds the other paths of a move (R4: same from, to and captured set).
 */
export function capturePaths(position, crown = "pass") {
  const own = position.turn === "black" ? "b" : "w";
  const kingRow = own === "b" ? 7 : 0;
  const out = [];
  const isOpp = (p) => p !== undefined && p.toLowerCase() !== own;
  for (const [origin, piece] of position.pieces) {
    if (piece.toLowerCase() !== own) continue;
    const king = piece === piece.toUpperCase();
    const occupied = (s) => s !== origin && position.pieces.has(s);
    const walk = (at, path, taken) => {
      const ends = [];
      for (const [dr, dc] of DIAGONALS) {
        let over = neighbour(at, dr, dc);
        if (king) while (over && !occupied(over)) over = neighbour(over, dr, dc);
        if (!over || !isOpp(position.pieces.get(over)) || taken.includes(over)) continue;
        const landings = [];
        let land = neighbour(over, dr, dc);
        while (land && !occupied(land)) {
          landings.push(land);
          if (!king) break;
          land = neighbour(land, dr, dc);
        }
        const next = taken.concat([over]);
        const goOn = [];
        const stop = [];
        for (const l of landings) {
          const crowned = !king && squareToRC(l).r === kingRow && crown === "stop";
          const further = crowned ? [] : walk(l, path.concat([l]), next);
          if (further.length) goOn.push(...further);
          else stop.push({ path: path.concat([l]), captured: next });
        }
        // R10: a king stops only where no landing lets the capture go on.
        ends.push(...(goOn.length ? goOn : stop));
      }
      return ends;
    };
    out.push(...walk(origin, [origin], []));
  }
  return out;
}

/**
 * The server's legal moves with every other path of each capture (R4: paths
 * with the same from, to and captured set are one move): each entry keeps the
 * move's notation, so whichever path the user walks, the same move is sent.
 */
export function withAllPaths(legal, position, rules = null) {
  if (!legal.length || !legal[0].captured || !legal[0].captured.length) return legal;
  const key = (path, captured) => `${path[0]}>${path[path.length - 1]}:${[...captured].sort((a, b) => a - b).join(",")}`;
  const byKey = new Map(legal.map((m) => [key(m.path, m.captured), m]));
  const seen = new Set(legal.map((m) => m.path.join("x")));
  const extra = [];
  const crowns = rules && rules.crown_during_capture ? [rules.crown_during_capture] : ["pass", "stop"];
  for (const crown of crowns) {
    let paths;
    try {
      paths = capturePaths(position, crown);
    } catch {
      return legal;
    }
    for (const p of paths) {
      const move = byKey.get(key(p.path, p.captured));
      const name = p.path.join("x");
      if (!move || seen.has(name)) continue;
      seen.add(name);
      extra.push({ notation: move.notation, path: p.path, captured: move.captured });
    }
  }
  return extra.length ? legal.concat(extra) : legal;
}

/**
 * The rule set named by a PDN "Rules" tag (our extension: RuleSet.name, e.g.
 * "apca+crown_during_capture=stop+king_only_move_limit=15"), or null when the
 * text names none. Unknown options are left out (the server checks the rest).
 */
export function rulesFromName(name) {
  if (!name || typeof name !== "string") return null;
  const rules = { crown_during_capture: "pass", three_kings_limit_result: "draw", king_only_move_limit: 25, repetition_draw: false };
  const parts = name.trim().split("+");
  if (parts[0].toLowerCase() !== "apca") return null;
  for (const part of parts.slice(1)) {
    const [key, value] = part.split("=");
    if (key === "king_only_move_limit" && /^\d+$/.test(value)) rules[key] = Number(value);
    else if (key === "repetition_draw") rules[key] = value === "true";
    else if (key in rules && value) rules[key] = value;
  }
  return rules;
}
