// The web API of docs/CONTRACTS.md §3: JSON over fetch, and WebSockets with reconnect.

/**
 * @import { CreateGame, CreatedGame, GameAction, GameList, GameState, Health, ImportResult,
 *   JoinedGame, PdnReadResult, PositionInfo, Rules, RulesInfo, TreeExport, TreeExportRequest } from "./types.js"
 */

import { t } from "./i18n.js";
import { plainWords } from "./util.js";

/** A refused or failed request: the HTTP status (0: no answer) and the server's code. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * An error answer: the server's ErrorBody, or FastAPI's own `detail` (words, or a
 * list of the request's problems).
 * @typedef {{error?: {code?: string, message?: string}, detail?: string | {msg?: string}[]}} ErrorAnswer
 */

/**
 * The server's error body (ErrorBody, or FastAPI's `detail`) as an ApiError.
 * @param {Response} response
 * @returns {Promise<ApiError>}
 */
export async function parseError(response) {
  let code = "http_" + response.status;
  let message = `${response.status} ${response.statusText}`;
  try {
    /** @type {ErrorAnswer | null} */
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
    } else if (body && typeof body.detail === "string") {
      message = body.detail;
    } else if (body && Array.isArray(body.detail)) {
      message = body.detail.map((d) => d.msg || JSON.stringify(d)).join("; ");
    }
  } catch {
    /* not JSON */
  }
  return new ApiError(response.status, code, message);
}

/**
 * A request to the web API. The answer's type T is the caller's word for the
 * server's JSON (schemas.py, by the route): `api` below names it per route.
 * @template T
 * @param {string} method
 * @param {string} url
 * @param {unknown} [body] a string is sent as text, anything else as JSON
 * @param {{text?: boolean, token?: string | null}} [options] text: the answer as text
 * @returns {Promise<T>}
 */
export async function request(method, url, body = undefined, { text = false, token = null } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  /** @type {RequestInit} */
  const init = { method, headers };
  // A seat token travels in a header, never in the URL (URLs end up in logs).
  if (token) headers["X-Seat-Token"] = token;
  if (body !== undefined) {
    if (typeof body === "string") {
      headers["Content-Type"] = "text/plain; charset=utf-8";
      init.body = body;
    } else {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    throw new ApiError(0, "network", t("The server cannot be reached ({reason}).", { reason: errorText(err) }));
  }
  if (!response.ok) throw await parseError(response);
  // The caller's T: a string for text, null for "204 No Content", else the JSON.
  if (text) return /** @type {T} */ (await response.text());
  if (response.status === 204) return /** @type {T} */ (null);
  return /** @type {T} */ (await response.json());
}

/**
 * What went wrong, in words, whatever was thrown.
 * @param {unknown} err
 * @returns {string}
 */
export function errorText(err) {
  // the server's messages cite rule ids for developers; players read the words
  return plainWords(err instanceof Error ? err.message : String(err)).text;
}

/** Answers after which a request may be sent again: no answer, or the proxy's. */
const PASSING_FAILURES = new Set([0, 502, 503, 504]);
/** The waits before each new try of a move (ms): about 7 s in all. */
const MOVE_RETRY_WAITS = [250, 500, 1000, 2000, 3500];

/**
 * A move sent again while the answer is none or the proxy's (a server process
 * restarting): the move carries its ply, so a repeat of one the server already
 * stored is answered with the game as it is, never played twice.
 * @param {string} id
 * @param {string} move
 * @param {number} ply
 * @param {string | null} token
 * @returns {Promise<GameState>}
 */
async function sendMove(id, move, ply, token) {
  const url = `/api/games/${encodeURIComponent(id)}/move`;
  for (const wait of MOVE_RETRY_WAITS) {
    try {
      return await request("POST", url, { move, ply, token });
    } catch (err) {
      if (!(err instanceof ApiError) || !PASSING_FAILURES.has(err.status)) throw err;
    }
    await new Promise((resolve) => window.setTimeout(resolve, wait));
  }
  return request("POST", url, { move, ply, token });
}

/** The routes the pages use, with the types of their answers (schemas.py). */
export const api = {
  /** @type {(body: CreateGame) => Promise<CreatedGame>} */
  createGame: (body) => request("POST", "/api/games", body),
  /** @type {(id: string, invite: string) => Promise<JoinedGame>} */
  joinGame: (id, invite) => request("POST", `/api/games/${encodeURIComponent(id)}/join`, { invite }),
  /** @type {(id: string, token?: string | null) => Promise<GameState>} */
  getGame: (id, token = null) => request("GET", `/api/games/${encodeURIComponent(id)}`, undefined, { token }),
  /** @type {(id: string, move: string, ply: number, token: string | null) => Promise<GameState>} */
  move: sendMove,
  /** @type {(id: string, action: GameAction, token: string | null) => Promise<GameState | null>} */
  action: (id, action, token) =>
    request("POST", `/api/games/${encodeURIComponent(id)}/${action}`, { token }),
  /** @type {(status: string, limit?: number, offset?: number, mode?: string | null) => Promise<GameList>} */
  listGames: (status, limit = 50, offset = 0, mode = null) =>
    request("GET", `/api/games?status=${status}&limit=${limit}&offset=${offset}${mode ? `&mode=${mode}` : ""}`),
  /** @type {(query: URLSearchParams) => Promise<GameList>} the archive's search */
  searchGames: (query) => request("GET", `/api/games?${query}`),
  /** @type {(id: string) => Promise<string>} */
  gamePdn: (id) => request("GET", `/api/games/${encodeURIComponent(id)}/pdn`, undefined, { text: true }),
  /** @type {(text: string) => Promise<ImportResult>} */
  importPdn: (text) => request("POST", "/api/import", text),
  /** @type {(pdn: string, rules?: Rules | null) => Promise<PdnReadResult>} */
  analysisPdn: (pdn, rules) =>
    request("POST", "/api/analysis/pdn", rules ? { pdn, rules } : { pdn }),
  /** @type {(body: TreeExportRequest) => Promise<TreeExport>} */
  exportTree: (body) => request("POST", "/api/analysis/export", body),
  /** @type {(fen: string | null, moves: string[], rules: Rules | null) => Promise<PositionInfo>} */
  position: (fen, moves, rules) =>
    request("POST", "/api/analysis/position", rules ? { fen, moves, rules } : { fen, moves }),
  /** @type {() => Promise<RulesInfo>} */
  rules: () => request("GET", "/api/rules"),
  /** @type {() => Promise<Health>} */
  health: () => request("GET", "/api/health"),
};

/**
 * @param {string} path
 * @returns {string}
 */
function wsUrl(path) {
  const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${window.location.host}${path}`;
}

/**
 * The WebSocket sub-protocols that present a seat token (never put in the URL).
 * @param {string | null} token
 * @returns {string[] | undefined}
 */
export function seatProtocols(token) {
  return token ? ["poolcheckers", `seat-token.${token}`] : undefined;
}

/** @typedef {"open" | "closed" | "connecting" | "refused"} SocketStatus */

/**
 * What a LiveSocket tells its page: each JSON message (of type M, the route's
 * messages in schemas.py), each change of status, each (re)connection, and a
 * refusal by the server (a close code 4400-4499).
 * @template M
 * @typedef {object} SocketHandlers
 * @property {(message: M) => void} [onMessage]
 * @property {(status: SocketStatus) => void} [onStatus]
 * @property {() => void} [onOpen]
 * @property {(code: number) => void} [onRefused]
 * @property {string[]} [protocols]
 */

/**
 * A WebSocket that reconnects with back-off. onMessage(obj) per JSON message,
 * onStatus("open" | "closed" | "connecting" | "refused") on every change.
 * @template M
 */
export class LiveSocket {
  /**
   * @param {string} path
   * @param {SocketHandlers<M>} [handlers]
   */
  constructor(path, { onMessage, onStatus, onOpen, onRefused, protocols } = {}) {
    this.path = path;
    this.protocols = protocols || undefined;
    this.onRefused = onRefused || null;
    this.onMessage = onMessage || (() => {});
    this.onStatus = onStatus || (() => {});
    this.onOpen = onOpen || (() => {});
    /** @type {WebSocket | null} */
    this.ws = null;
    this.closed = false;
    this.delay = 500;
    /** @type {number | undefined} */
    this.timer = undefined;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    this.onStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(wsUrl(this.path), this.protocols);
    } catch {
      this.schedule();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.delay = 500;
      this.onStatus("open");
      this.onOpen();
    });
    ws.addEventListener("message", (event) => {
      let data;
      try {
        // The server's message, of the route's types (the page's M).
        data = /** @type {M} */ (JSON.parse(event.data));
      } catch {
        return;
      }
      this.onMessage(data);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      // 4403 / 4404: the server refused this token or game; retrying cannot help.
      if (event.code >= 4400 && event.code < 4500) {
        this.onStatus("refused");
        if (this.onRefused) this.onRefused(event.code);
        return;
      }
      this.onStatus("closed");
      this.schedule();
    });
    ws.addEventListener("error", () => {
      /* a close event follows */
    });
  }

  schedule() {
    if (this.closed) return;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.connect(), this.delay);
    this.delay = Math.min(this.delay * 2, 8000);
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /**
   * Send a message as JSON; false when the socket is not open (nothing sent).
   * @param {unknown} obj
   * @returns {boolean}
   */
  send(obj) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  close() {
    this.closed = true;
    window.clearTimeout(this.timer);
    if (this.ws) this.ws.close();
    this.ws = null;
  }
}
