// The web API of docs/CONTRACTS.md §3: JSON over fetch, and WebSockets with reconnect.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function parseError(response) {
  let code = "http_" + response.status;
  let message = `${response.status} ${response.statusText}`;
  try {
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

export async function request(method, url, body = undefined, { text = false, token = null } = {}) {
  const init = { method, headers: { Accept: "application/json" } };
  // A seat token travels in a header, never in the URL (URLs end up in logs).
  if (token) init.headers["X-Seat-Token"] = token;
  if (body !== undefined) {
    if (typeof body === "string") {
      init.headers["Content-Type"] = "text/plain; charset=utf-8";
      init.body = body;
    } else {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    throw new ApiError(0, "network", `The server cannot be reached (${err.message}).`);
  }
  if (!response.ok) throw await parseError(response);
  if (text) return response.text();
  if (response.status === 204) return null;
  return response.json();
}

export const api = {
  createGame: (body) => request("POST", "/api/games", body),
  joinGame: (id, invite) => request("POST", `/api/games/${encodeURIComponent(id)}/join`, { invite }),
  getGame: (id, token = null) => request("GET", `/api/games/${encodeURIComponent(id)}`, undefined, { token }),
  move: (id, move, ply, token) =>
    request("POST", `/api/games/${encodeURIComponent(id)}/move`, { move, ply, token }),
  action: (id, action, token) =>
    request("POST", `/api/games/${encodeURIComponent(id)}/${action}`, { token }),
  listGames: (status, limit = 50, offset = 0, mode = null) =>
    request("GET", `/api/games?status=${status}&limit=${limit}&offset=${offset}${mode ? `&mode=${mode}` : ""}`),
  gamePdn: (id) => request("GET", `/api/games/${encodeURIComponent(id)}/pdn`, undefined, { text: true }),
  importPdn: (text) => request("POST", "/api/import", text),
  analysisPdn: (pdn, rules) =>
    request("POST", "/api/analysis/pdn", rules ? { pdn, rules } : { pdn }),
  position: (fen, moves, rules) =>
    request("POST", "/api/analysis/position", rules ? { fen, moves, rules } : { fen, moves }),
};

function wsUrl(path) {
  const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${window.location.host}${path}`;
}

/** The WebSocket sub-protocols that present a seat token (never put in the URL). */
export function seatProtocols(token) {
  return token ? ["poolcheckers", `seat-token.${token}`] : undefined;
}

/**
 * A WebSocket that reconnects with back-off. onMessage(obj) per JSON message,
 * onStatus("open" | "closed" | "connecting") on every change.
 */
export class LiveSocket {
  constructor(path, { onMessage, onStatus, onOpen, onRefused, protocols } = {}) {
    this.path = path;
    this.protocols = protocols || undefined;
    this.onRefused = onRefused || null;
    this.onMessage = onMessage || (() => {});
    this.onStatus = onStatus || (() => {});
    this.onOpen = onOpen || (() => {});
    this.ws = null;
    this.closed = false;
    this.delay = 500;
    this.timer = null;
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
        data = JSON.parse(event.data);
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

  send(obj) {
    if (!this.isOpen) return false;
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
