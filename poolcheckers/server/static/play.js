// The game page /play/{id}: board, clocks, counters, actions, move list, live updates.

/**
 * @import { Color, CorrespondenceInfo, GameAction, GameMessage, GameState, LegalMove,
 *   PositionInfo } from "./types.js"
 */
/** @import { MoveCell } from "./util.js" */

import { ApiError, LiveSocket, api, errorText, request, seatProtocols } from "./api.js";
import { BoardView } from "./board.js";
import { formatNumber, t, tn } from "./i18n.js";
import { moveSound, setSound, soundOn } from "./sound.js";
import { MoveTree, moveLabel, rowNote } from "./tree.js";
import {
  COLOR_NAME,
  announce,
  boardPosition,
  colorName,
  formatClock,
  h,
  inviteKey,
  keepInView,
  moveNumber,
  moveRows,
  opponent,
  plainWords,
  ruleMessage,
  storageGet,
  storageSet,
  tokenKey,
} from "./util.js";
import { gameEnding } from "./outcome.js";
import { requestLimits } from "./rules.js";

const POLL_MS = 1500;
const AUTO_TURN_KEY = "poolcheckers.autoTurn";

/**
 * What an action's success says on the page.
 * @type {Record<GameAction, string>}
 */
const ACTION_WORDS = {
  resign: t("You resigned."),
  "draw-offer": t("Draw offered."),
  "draw-accept": t("Draw accepted."),
  "draw-decline": t("Draw declined."),
  takeback: t("Move taken back."),
  abort: t("Game aborted."),
  rematch: t("Rematch offered."),
  "rematch-decline": t("No rematch."),
};

/**
 * The time controls' categories as players read them (the server's ids are the keys).
 * @type {Record<string, string>}
 */
const CATEGORY_NAMES = {
  bullet: t("Bullet"),
  blitz: t("Blitz"),
  rapid: t("Rapid"),
  classical: t("Classical"),
  correspondence: t("Correspondence"),
};

/**
 * A player's name from the PDN tags as players read it: the server's "Anonymous" and
 * "Engine" (no account) in words.
 * @param {string} tag
 * @returns {string}
 */
function tagName(tag) {
  if (tag === "Anonymous") return t("Anonymous");
  if (tag === "Engine") return t("Engine");
  return tag;
}

/**
 * "Black to move" or "White to move".
 * @param {Color} color
 * @returns {string}
 */
function toMoveText(color) {
  return color === "black" ? t("Black to move") : t("White to move");
}

/**
 * The window's title of the game page: "Your turn · Pool Checkers".
 * @param {string} title
 * @returns {string}
 */
function pageTitle(title) {
  return t("{title} · Pool Checkers", { title });
}

/**
 * A player's line above or below the board: the name, then the clock.
 * @param {string} cls "top" or "bottom"
 * @returns {HTMLDivElement}
 */
function playerBox(cls) {
  return h("div", { class: `player ${cls}` }, h("span", { class: "name" }), h("span", { class: "clock", role: "timer", "aria-live": "off" }));
}

/**
 * A part of a player's line, made by playerBox().
 * @param {HTMLElement} box
 * @param {"name" | "clock"} part
 * @returns {HTMLElement}
 */
function playerPart(box, part) {
  const el = box.querySelector(`.${part}`);
  if (!(el instanceof HTMLElement)) throw new Error(`no ${part} in the player's line`);
  return el;
}

/** The field a move is typed in (R4 notation). */
function moveField() {
  return h("input", {
    type: "text",
    id: "move-input",
    name: "move",
    autocomplete: "off",
    autocapitalize: "off",
    autocorrect: "off",
    spellcheck: "false",
    enterkeyhint: "send",
    placeholder: t("{first} or {second}", { first: "11-15", second: "1x10x19" }),
    "aria-label": t("Type a move in PDN notation"),
  });
}

class GamePage {
  /**
   * @param {HTMLElement} root
   * @param {string} id the game's id
   */
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.token = storageGet(tokenKey(id));
    /** @type {GameState | null} */
    this.state = null;
    /** @type {number | null} */
    this.viewPly = null; // null: live; else the ply shown while navigating
    /** @type {number | null | undefined} where the last navigation goes (undefined: none yet) */
    this.targetPly = undefined;
    this.viewSeq = 0;
    /** @type {Map<number, PositionInfo>} */
    this.positionCache = new Map();
    this.pending = false;
    this.receivedAt = performance.now();
    /** @type {LiveSocket<GameMessage> | null} */
    this.socket = null;
    /** @type {number | undefined} */
    this.pollTimer = undefined;
    /** @type {string | null} the action whose button asks "Really …?" */
    this.confirming = null;
    this.networkError = false;
    this.userFlipped = false;
    this.flipDecided = false;
    this.leaving = false;
    this.holdUntil = 0;
    /** @type {number | undefined} */
    this.holdTimer = undefined;
    /** @type {number | null} */
    this.flagCheck = null;
    /** @type {Set<number>} the low-time marks already said */
    this.timeWarned = new Set();
    this.topPlayer = playerBox("top");
    this.bottomPlayer = playerBox("bottom");
    this.boardBox = h("div", { class: "board-box", id: "board" });
    // What the board refused or asks for, in words (the live regions read it out already).
    this.boardHint = h("p", { class: "board-hint", id: "board-hint", "aria-hidden": "true" });
    this.board = new BoardView(this.boardBox, { onMove: (m) => this.playMove(m), onHint: (text) => { this.boardHint.textContent = text; }, onSquare: (s) => this.premoveSquare(s), label: t("Game board") });
    /** @type {{from: number, to: number} | null} a move chosen while the opponent thinks */
    this.premove = null;
    /** @type {number | null} the premove's piece, picked, its landing not yet */
    this.premoveFrom = null;
    this.flipButton = h("button", { type: "button", class: "small", onclick: () => this.flip() }, t("Flip board"));
    this.numbersButton = h("button", { type: "button", class: "small", "aria-pressed": "false", onclick: () => this.toggleNumbers() }, t("Square numbers"));
    // On one screen the players may pass the device: the board turns for the side to move.
    this.autoTurn = storageGet(AUTO_TURN_KEY) === "on";
    this.soundButton = h("button", { type: "button", class: "small", id: "sound", "aria-pressed": String(soundOn()), title: t("Move sounds (pressed: on)"), onclick: () => this.toggleSound() }, t("Sound"));
    this.turnButton = h("button", { type: "button", class: "small", id: "auto-turn", "aria-pressed": String(this.autoTurn), hidden: true, title: t("Turn the board for the side to move"), onclick: () => this.toggleAutoTurn() }, t("Auto-flip"));
    this.status = h("div", { class: "status", id: "status" });
    // "Rated · Blitz 5+3", "Casual · Correspondence, 3 days a move", "Against the engine · level 4"
    this.kind = h("p", { class: "game-kind", id: "game-kind" });
    this.ratingChange = h("p", { class: "rating-change", id: "rating-change", hidden: true });
    // a rated game shorter than the server's minimum changes no rating: said before and after
    this.ratedNote = h("p", { class: "hint", id: "rated-note", hidden: true });
    /** @type {number} the plies a rated game must last to be rated (0: not known yet) */
    this.minRatedPlies = 0;
    /** @type {string | null} the game whose rating change is asked or shown */
    this.ratingAsked = null;
    this.outcome = h("div", { class: "outcome", id: "outcome", hidden: true });
    this.counters = h("div", { class: "counters", id: "counters" });
    this.rulesLine = h("p", { class: "hint rules-line", id: "rules-line", hidden: true });
    this.clockNote = h("p", { class: "hint", id: "clock-note", hidden: true }, t("The clocks start once each side has made its first move."));
    this.error = h("p", { class: "error", id: "error" });
    this.notice = h("p", { class: "notice", id: "notice" });
    this.moveInput = moveField();
    this.moveButton = h("button", { type: "submit" }, t("Play"));
    this.moveForm = h("form", { class: "move-form", id: "move-form" }, this.moveInput, this.moveButton);
    this.actions = h("div", { class: "actions", id: "actions" });
    this.invite = h("div", { class: "invite", id: "invite", hidden: true });
    this.moveList = h("ol", { class: "move-list", id: "move-list", "aria-label": t("Moves") });
    this.viewBanner = h("div", { class: "view-banner", id: "view-banner", hidden: true });
    this.links = h("p", { class: "links" });
    this.connection = h("span", { class: "connection", id: "connection" });
  }

  /** The game's state: the page draws only once the server has sent it. */
  game() {
    if (!this.state) throw new Error("the game's state has not come yet");
    return this.state;
  }

  async start() {
    const params = new URLSearchParams(window.location.search);
    const invite = params.get("invite");
    this.buildLayout();
    if (invite && !this.token) {
      try {
        const joined = await api.joinGame(this.id, invite);
        this.token = joined.token;
        storageSet(tokenKey(this.id), joined.token);
        const seat = joined.game.your_color;
        this.showNotice(
          seat === "black" ? t("You joined the game as Black.") : seat === "white" ? t("You joined the game as White.") : t("You joined the game as a player."),
        );
        this.applyState(joined.game, { force: true });
      } catch (err) {
        this.showError(t("Could not join: {error}", { error: errorText(err) }));
      }
    }
    if (invite) window.history.replaceState(null, "", `/play/${encodeURIComponent(this.id)}`);
    try {
      const state = await this.fetchState();
      this.applyState(state, { force: true, animate: false });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        document.title = pageTitle(t("Game not found"));
        this.root.replaceChildren(
          h("h1", {}, t("Game not found")),
          h("p", {}, t("There is no game with id {id} on this server.", { id: this.id })),
          h("p", {}, h("a", { href: "/" }, t("Start a new game")), " · ", h("a", { href: "/archive" }, t("Archive"))),
        );
        return;
      }
      this.showError(errorText(err));
    }
    this.connect();
    window.setInterval(() => this.tick(), 100);
    requestLimits()
      .then((limits) => {
        this.minRatedPlies = limits.min_rated_plies;
        if (this.state) this.renderStatus();
      })
      .catch(() => {
        /* without the limit the page says nothing of it */
      });
  }

  /**
   * The game's state from the server (GET).
   * @returns {Promise<GameState>}
   */
  fetchState() {
    return api.getGame(this.id, this.token).then((state) => {
      // GET has no seat token: keep the colour we learnt from the token-bearing channels.
      if (this.state && state.your_color === null && this.state.your_color) {
        state.your_color = this.state.your_color;
      }
      return state;
    });
  }

  // ---- layout ------------------------------------------------------------------

  /** Put the page's parts in place and listen to the move field and the keys. */
  buildLayout() {
    this.moveForm.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = normalizeMoveText(this.moveInput.value);
      if (text) this.sendMove(text, null);
    });
    const nav = h(
      "div",
      { class: "nav", role: "group", "aria-label": t("Move navigation") },
      h("button", { type: "button", "aria-label": t("First position"), id: "nav-first", onclick: () => this.view(0) }, "«"),
      h("button", { type: "button", "aria-label": t("Previous move"), id: "nav-prev", onclick: () => this.step(-1) }, "‹"),
      h("button", { type: "button", "aria-label": t("Next move"), id: "nav-next", onclick: () => this.step(1) }, "›"),
      h("button", { type: "button", "aria-label": t("Last move (live)"), id: "nav-last", onclick: () => this.view(null) }, "»"),
    );
    this.root.replaceChildren(
      h(
        "div",
        { class: "play" },
        h(
          "section",
          { class: "board-col", "aria-label": t("Board") },
          this.topPlayer,
          this.boardBox,
          this.bottomPlayer,
          h("div", { class: "board-tools" }, this.flipButton, this.numbersButton, this.soundButton, this.turnButton, this.connection),
          this.boardHint,
        ),
        h(
          "aside",
          { class: "side" },
          this.kind,
          this.status,
          this.outcome,
          this.ratingChange,
          this.ratedNote,
          this.rulesLine,
          this.clockNote,
          this.counters,
          this.invite,
          this.moveForm,
          this.error,
          this.notice,
          this.actions,
          h("h2", { class: "sub" }, t("Moves")),
          nav,
          this.viewBanner,
          this.moveList,
          this.links,
        ),
      ),
    );
    this.bindKeys();
  }

  /** Arrow keys, Home and End step through the game when no field or board has the focus. */
  bindKeys() {
    document.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
      if (e.target instanceof Element && e.target.closest(".board")) return;
      if (e.target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey) return;
      if (e.key === "ArrowLeft") this.step(-1);
      else if (e.key === "ArrowRight") this.step(1);
      else if (e.key === "Home") this.view(0);
      else if (e.key === "End") this.view(null);
      else return;
      e.preventDefault();
    });
  }

  flip() {
    this.userFlipped = !this.board.flipped;
    this.board.setFlipped(!this.board.flipped);
    this.renderPlayers();
  }

  toggleSound() {
    setSound(!soundOn());
    this.soundButton.setAttribute("aria-pressed", String(soundOn()));
    announce(soundOn() ? t("Move sounds on.") : t("Move sounds off."));
  }

  toggleAutoTurn() {
    this.autoTurn = !this.autoTurn;
    storageSet(AUTO_TURN_KEY, this.autoTurn ? "on" : "off");
    this.turnButton.setAttribute("aria-pressed", String(this.autoTurn));
    if (this.state) this.turnForSideToMove(this.state);
  }

  /**
   * One screen, with the option on: the side to move plays from the bottom.
   * @param {GameState} s
   */
  turnForSideToMove(s) {
    if (!this.autoTurn || s.mode !== "local" || s.status !== "running") return;
    const want = s.turn === "black";
    if (this.board.flipped === want) return;
    this.board.setFlipped(want);
    this.renderPlayers();
  }

  toggleNumbers() {
    const on = !this.board.showNumbers;
    this.board.setShowNumbers(on);
    this.numbersButton.setAttribute("aria-pressed", String(on));
  }

  /**
   * @param {string} text
   * @param {{network?: boolean}} [options] network: a lost connection (cleared once it is back)
   */
  showError(text, { network = false } = {}) {
    // Read out by the page's assertive live region (#alerts), which is always there.
    this.networkError = network; // cleared again when the live connection is back
    this.error.textContent = text;
    if (text) announce(text, true);
  }

  /** @param {string} text */
  showNotice(text) {
    this.notice.textContent = text;
    if (text) announce(text);
  }

  // ---- live updates ----------------------------------------------------------------

  connect() {
    this.socket = new LiveSocket(`/ws/games/${encodeURIComponent(this.id)}`, {
      protocols: seatProtocols(this.token),
      onMessage: (msg) => {
        if (msg.type === "state" && msg.game) this.applyState(msg.game);
        else if (msg.type === "error" && msg.error) this.showError(msg.error.message);
      },
      onRefused: (code) => {
        if (code === 4403 && this.token) {
          // A stale seat token: watch as a spectator instead.
          this.token = null;
          this.showError(t("Your seat token for this game is not valid any more; you are watching."));
          this.connect();
        }
      },
      onStatus: (status) => {
        const words = { open: "", connecting: t("connecting…"), closed: t("reconnecting…"), refused: t("live updates refused") };
        this.connection.textContent = words[status];
        this.connection.dataset.status = status;
        if (status === "open") {
          this.stopPolling();
          if (this.networkError) this.showError("");
        } else {
          this.startPolling();
        }
      },
    });
  }

  startPolling() {
    if (this.pollTimer) return;
    this.pollTimer = window.setInterval(async () => {
      try {
        this.applyState(await this.fetchState());
      } catch {
        /* still offline */
      }
    }, POLL_MS);
  }

  stopPolling() {
    window.clearInterval(this.pollTimer);
    this.pollTimer = undefined;
  }

  /**
   * Whether a GameState comes too early or too late to be shown now: older than
   * the shown one (lower version), or a fast engine's reply that waits until our
   * own move has been seen walking (then shown later).
   * @param {GameState} state
   * @param {GameState | null} old
   * @param {boolean} animate
   * @returns {boolean}
   */
  notNow(state, old, animate) {
    if (!old) return false;
    if (state.version !== undefined && old.version !== undefined && state.version < old.version) return true;
    if (state.version === undefined && state.ply < old.ply && state.status === old.status) return true;
    const hold = this.holdUntil - performance.now();
    if (hold > 0 && state.mode === "engine" && state.ply > old.ply && lastMover(state) === state.engine_color) {
      window.clearTimeout(this.holdTimer);
      this.holdTimer = window.setTimeout(() => this.applyState(state, { animate }), hold);
      return true;
    }
    return false;
  }

  /**
   * Take a GameState; older ones (lower version) are ignored.
   * @param {GameState} state
   * @param {{force?: boolean, animate?: boolean}} [options] force: show it whatever its version
   */
  applyState(state, { force = false, animate = true } = {}) {
    const old = this.state;
    if (!force && this.notNow(state, old, animate)) return;
    if (old && state.your_color == null && old.your_color) state.your_color = old.your_color;
    this.state = state;
    if (state.rematch_game && this.myColors().length && !this.leaving) {
      // The rematch has started: its seats are ours with the colours swapped (same token).
      this.leaving = true;
      if (this.token) storageSet(tokenKey(state.rematch_game), this.token);
      window.location.assign(`/play/${encodeURIComponent(state.rematch_game)}`);
    }
    this.receivedAt = performance.now();
    if (!old || (old.ply !== state.ply)) this.positionCache.clear();
    if (!this.flipDecided && !this.userFlipped && state.your_color) {
      this.flipDecided = true;
      if (this.board.flipped !== (state.your_color === "black")) this.board.setFlipped(state.your_color === "black");
    }
    this.turnButton.hidden = state.mode !== "local";
    if (this.viewPly === null) this.turnForSideToMove(state);
    const changedMoves = !old || old.ply !== state.ply || old.fen !== state.fen;
    if (this.viewPly === null) {
      this.board.setPosition(boardPosition(state.board, state.turn), { move: state.last_move, animate: animate && Boolean(old) });
    }
    this.renderAll();
    const moverColor = lastMover(state);
    if (old && changedMoves && state.ply > old.ply && state.moves.length && moverColor) {
      const text = state.moves[state.moves.length - 1];
      moveSound(state.last_move && state.last_move.captured.length ? "capture" : "move");
      const played = moverColor === "black" ? t("Black played {move}.", { move: text }) : t("White played {move}.", { move: text });
      announce(`${played}${state.outcome ? " " + gameEnding(state.outcome, state.board).text : ""}`);
    } else if (old && !old.outcome && state.outcome) {
      announce(t("Game over: {reason}", { reason: gameEnding(state.outcome, state.board).text }));
    }
    if (old) this.noticeChanges(old, state);
    if (this.premove || this.premoveFrom !== null) this.playPremove(state);
  }

  /**
   * Say in words what the other side did that the board does not show.
   * @param {GameState} old
   * @param {GameState} state
   */
  noticeChanges(old, state) {
    const mine = this.myColors();
    if (mine.length === 1 && state.rematch_offer === opponent(mine[0]) && old.rematch_offer !== state.rematch_offer) {
      announce(t("Your opponent offers a rematch."));
    }
    if (mine.length !== 1 || state.status !== "running") return;
    const seated = (/** @type {GameState} */ s) => Boolean(s.seats && s.seats.black && s.seats.white);
    if (state.mode === "online" && !seated(old) && seated(state)) {
      this.showNotice(t("Your opponent has joined: the game is on."));
    }
    const theirs = opponent(mine[0]);
    if (state.draw_offer === theirs && old.draw_offer !== theirs) {
      // Shown once, by the draw offer's own line next to its buttons (renderActions);
      // screen readers hear it here.
      this.showNotice("");
      announce(theirs === "black" ? t("Black offers a draw: accept or decline it, or just move.") : t("White offers a draw: accept or decline it, or just move."));
    } else if (old.draw_offer === mine[0] && !state.draw_offer && state.ply === old.ply) {
      this.showNotice(t("Your draw offer was declined."));
    }
  }

  // ---- rendering -------------------------------------------------------------------

  /** @returns {Color[]} the sides this page plays */
  myColors() {
    const c = this.state && this.state.your_color;
    if (c === "both") return ["black", "white"];
    if (c === "black" || c === "white") return [c];
    return [];
  }

  waitingForOpponent() {
    const s = this.state;
    return Boolean(s && s.mode === "online" && s.status === "running" && s.seats && !(s.seats.black && s.seats.white));
  }

  canMove() {
    const s = this.state;
    return Boolean(
      s &&
        s.status === "running" &&
        this.viewPly === null &&
        !this.pending &&
        !this.waitingForOpponent() &&
        this.myColors().includes(s.turn),
    );
  }

  /** Whether a move may be chosen now for the next turn (an online game, the opponent's turn). */
  canPremove() {
    const s = this.game();
    const mine = this.myColors();
    return s.mode === "online" && s.status === "running" && mine.length === 1 && s.turn !== mine[0] && this.viewPly === null && !this.waitingForOpponent();
  }

  /**
   * A click on the board while it takes no move: in an online game, while the opponent
   * thinks, it chooses a premove (a piece of ours, then where it goes), played as soon
   * as our turn comes if it is legal then; a second click on the piece cancels it.
   * @param {number} s
   */
  premoveSquare(s) {
    // a word of ours under the board goes when the board takes moves again
    this.board.idleHintShown = true;
    if (!this.canPremove()) {
      if (this.board.idleReason) this.board.hint(this.board.idleReason);
      return;
    }
    const mine = this.myColors()[0];
    const piece = this.game().board[s - 1] || ".";
    const own = piece !== "." && (piece.toLowerCase() === "b") === (mine === "black");
    if (this.premoveFrom === null || own) {
      if (this.premove && this.premove.from === s) return this.cancelPremove(t("Premove cancelled."));
      if (!own) return this.board.hint(t("{reason} Or premove: a piece of yours, then its square.", { reason: this.board.idleReason }));
      this.premove = null;
      this.premoveFrom = s;
      this.board.setPremove([s]);
      this.board.hint(t("Premove: where does the piece on {square} go?", { square: s }));
      return;
    }
    this.premove = { from: this.premoveFrom, to: s };
    this.premoveFrom = null;
    this.board.setPremove([this.premove.from, s]);
    this.board.hint(t("Premove {from} → {to}: played when your turn comes, if it is legal then.", { from: this.premove.from, to: s }));
  }

  /** @param {string} why said to the player */
  cancelPremove(why) {
    this.premove = null;
    this.premoveFrom = null;
    this.board.setPremove([]);
    if (why) this.board.hint(why);
  }

  /**
   * Our turn has come: play the premove if a legal move goes from its piece to its
   * square (a capture may pass other squares), else drop it and say so.
   * @param {GameState} s
   */
  playPremove(s) {
    const premove = this.premove;
    if (s.status !== "running") return this.cancelPremove("");
    if (!this.canMove()) return; // still the opponent's turn
    if (!premove) return this.cancelPremove(""); // a piece picked, no landing chosen
    const move = s.legal_moves.find((m) => m.path[0] === premove.from && m.path[m.path.length - 1] === premove.to);
    this.cancelPremove(move ? "" : t("Premove {from} → {to} cancelled: not a legal move now.", { from: premove.from, to: premove.to }));
    this.board.idleHintShown = false; // the word stays: it says what happened to the premove
    if (move) this.playMove(move);
  }

  /** Why the board takes no move now, in words ("" when it does). */
  idleReason() {
    const s = this.game();
    if (this.canMove()) return "";
    if (this.viewPly !== null) return t("This is an earlier position, for viewing: » (or End) goes back to the game.");
    if (s.status !== "running") return s.status === "aborted" && !forfeited(s) ? t("The game was aborted.") : t("The game is over.");
    if (this.waitingForOpponent()) return t("The game starts when your opponent joins.");
    const mine = this.myColors();
    if (!mine.length) return t("You are watching this game.");
    if (this.pending) return "";
    if (s.mode === "engine" && s.engine_color === s.turn) return t("The engine is thinking…");
    return s.turn === "black" ? t("Black to move: wait for your opponent's move.") : t("White to move: wait for your opponent's move.");
  }

  renderAll() {
    const s = this.game();
    this.board.setLegalMoves(this.viewPly === null ? s.legal_moves : [], this.canMove());
    this.board.idleReason = this.idleReason();
    this.renderPlayers();
    this.renderStatus();
    this.renderCounters();
    this.renderActions();
    this.renderInvite();
    this.renderMoves();
    this.moveInput.disabled = !this.canMove();
    this.moveButton.disabled = !this.canMove();
    // Only a player of a running game types moves; watchers and finished games get no field.
    this.moveForm.hidden = s.status !== "running" || this.myColors().length === 0;
    this.links.replaceChildren(
      h("a", { href: `/analysis?game=${encodeURIComponent(s.id)}` }, t("Analyse this game")),
      " · ",
      h("a", { href: `/api/games/${encodeURIComponent(s.id)}/pdn`, download: `game-${s.id}.pdn` }, t("Download PDN")),
    );
  }

  /**
   * A side's name above or below the board: its tag, the engine, "You", or the colour.
   * @param {Color} color
   * @returns {string}
   */
  playerName(color) {
    const s = this.game();
    const mine = this.myColors();
    const tag = s.tags && s.tags[COLOR_NAME[color]];
    const elo = s.tags && s.tags[`${COLOR_NAME[color]}Elo`]; // a site game's rating at the start
    const side = colorName(color);
    if (tag) return t("{player} ({color})", { player: elo && elo !== "-" ? `${tagName(tag)} ${elo}` : tagName(tag), color: side });
    if (s.mode === "engine") {
      if (s.engine_color === color) return t("Engine (level {level}) · {color}", { level: s.level ?? "?", color: side });
      return mine.includes(color) ? t("You · {color}", { color: side }) : side;
    }
    if (s.mode === "online") {
      if (mine.length === 1 && mine[0] === color) return t("You ({color})", { color: side });
      if (!s.seats || s.seats[color]) return mine.length === 1 ? t("{color} (opponent)", { color: side }) : side;
      return t("{color} — waiting for a player", { color: side });
    }
    return side;
  }

  renderPlayers() {
    const s = this.state;
    if (!s) return;
    /** @type {Color} */
    const topColor = this.board.flipped ? "white" : "black";
    /** @type {[HTMLElement, Color][]} */
    const lines = [
      [this.topPlayer, topColor],
      [this.bottomPlayer, opponent(topColor)],
    ];
    for (const [el, color] of lines) {
      el.dataset.color = color;
      // an online game's players are accounts (or "Anonymous"): their names lead to their pages
      const account = s.mode === "online" ? s.tags[COLOR_NAME[color]] : "";
      const name = this.playerName(color);
      const nameEl = playerPart(el, "name");
      // a bot account's PDN title (lichess's BlackTitle/WhiteTitle "BOT")
      const bot = s.tags && s.tags[`${COLOR_NAME[color]}Title`] === "BOT";
      const mark = bot ? h("span", { class: "bot-mark", title: t("a bot account: a program plays") }, t("BOT")) : "";
      if (account && account !== "Anonymous") {
        nameEl.replaceChildren(mark, bot ? " " : "", h("a", { href: `/players/${encodeURIComponent(account)}`, class: "player-link", translate: "no" }, name));
      } else {
        nameEl.replaceChildren(mark, bot ? " " : "", name);
      }
      el.classList.toggle("to-move", s.status === "running" && s.turn === color);
      playerPart(el, "clock").hidden = !s.clock && !s.correspondence;
    }
    this.tick();
  }

  /**
   * A correspondence game: the time left for the move, by the side whose deadline runs.
   * @param {GameState} s
   * @param {CorrespondenceInfo} c
   */
  tickCorrespondence(s, c) {
    const elapsed = (performance.now() - this.receivedAt) / 1000;
    for (const el of [this.topPlayer, this.bottomPlayer]) {
      const color = el.dataset.color === "white" ? "white" : "black";
      const left = s.status === "running" && c.running === color && c.left !== null ? Math.max(0, c.left - elapsed) : null;
      const clock = playerPart(el, "clock");
      clock.textContent = left !== null ? formatDaysLeft(left) : tn("{n} day a move", "{n} days a move", c.days);
      clock.classList.toggle("running", left !== null);
      clock.classList.toggle("low", left !== null && left < 3600);
      clock.setAttribute("aria-label", left !== null ? t("{color}: {time} left for the move", { color: colorName(color), time: formatDaysLeft(left) }) : clock.textContent);
    }
  }

  /** Show the clocks' time now (every 100 ms), and ask the server when ours runs out. */
  tick() {
    const s = this.state;
    if (s && s.correspondence) return this.tickCorrespondence(s, s.correspondence);
    if (!s || !s.clock) return;
    const elapsed = (performance.now() - this.receivedAt) / 1000;
    for (const el of [this.topPlayer, this.bottomPlayer]) {
      const color = el.dataset.color === "white" ? "white" : "black";
      let left = s.clock[color];
      const running = s.status === "running" && s.clock.running === color;
      if (running) left -= elapsed;
      const clock = playerPart(el, "clock");
      clock.textContent = formatClock(left);
      clock.classList.toggle("running", running);
      clock.classList.toggle("low", left < 20);
      const time = formatClock(left);
      clock.setAttribute("aria-label", color === "black" ? t("Black clock {time}", { time }) : t("White clock {time}", { time }));
      this.warnLowTime(color, left, running);
      if (running && left <= 0 && !this.flagCheck) {
        // The server decides the time loss (R20); ask it soon after our clock shows zero.
        this.flagCheck = window.setTimeout(async () => {
          this.flagCheck = null;
          try {
            this.applyState(await this.fetchState());
          } catch {
            /* retry on the next tick */
          }
        }, 600);
      }
    }
  }

  /**
   * Say once (screen readers too) when one's own running clock passes 30 and 10 seconds.
   * @param {Color} color
   * @param {number} left seconds
   * @param {boolean} running
   */
  warnLowTime(color, left, running) {
    const mine = this.myColors();
    if (mine.length !== 1 || mine[0] !== color) return;
    for (const mark of [30, 10]) {
      if (left > mark + 1) this.timeWarned.delete(mark); // an increment gave time back
      else if (running && left > 0 && left <= mark && !this.timeWarned.has(mark)) {
        this.timeWarned.add(mark);
        announce(tn("{n} second left on your clock.", "{n} seconds left on your clock.", mark), mark === 10);
      }
    }
  }

  /**
   * The status line's words: the game's end, or who is to move and why we wait.
   * @param {GameState} s
   * @returns {string}
   */
  statusText(s) {
    const mine = this.myColors();
    const toMove = toMoveText(s.turn);
    if (s.status !== "running") return endTitle(s);
    if (this.waitingForOpponent()) return t("{toMove} — waiting for the opponent to join", { toMove });
    if (s.mode === "engine" && s.engine_color === s.turn) return t("{toMove} — the engine is thinking…", { toMove });
    // a capture available is a capture to make: said before the player tries another move
    const must = s.legal_moves.length > 0 && s.legal_moves.every((m) => m.captured.length > 0);
    if (mine.includes(s.turn) && mine.length === 2) return must ? t("{toMove} — you must capture", { toMove }) : toMove;
    if (mine.includes(s.turn)) return must ? t("{toMove} — your turn — you must capture", { toMove }) : t("{toMove} — your turn", { toMove });
    if (s.mode === "online" && mine.length === 1) return t("{toMove} — your opponent's turn", { toMove });
    if (s.mode === "online" && s.seats && !s.seats[s.turn]) return t("{toMove} — waiting for the opponent to join", { toMove });
    if (!mine.length && s.mode !== "imported") return t("{toMove} — you are watching", { toMove });
    return toMove;
  }

  renderStatus() {
    const s = this.game();
    this.kind.textContent = gameKind(s);
    const short = shortOfRating(s, this.minRatedPlies);
    this.ratedNote.textContent = short;
    this.ratedNote.hidden = !short;
    if (!short) this.showRatingChange(s);
    const mine = this.myColors();
    const text = this.statusText(s);
    const dot = s.status === "running" ? h("span", { class: `turn-dot ${s.turn}`, "aria-hidden": "true" }) : null;
    this.status.replaceChildren(...(dot ? [dot, text] : [text]));
    const yourTurn = this.canMove() && mine.length === 1;
    document.title = pageTitle(s.status !== "running" ? endTitle(s) : yourTurn ? t("Your turn") : toMoveText(s.turn));
    const notes = (s.rules_notes || []).map((n) => plainWords(n).text);
    this.rulesLine.replaceChildren(...(notes.length ? [t("Rules: {notes}.", { notes: notes.join("; ") }), " ", h("a", { href: "/rules#section-7", class: "rule-link" }, t("About rule options"))] : []));
    this.rulesLine.hidden = !notes.length;
    // Each side's clock starts with its first move (the server says when one runs).
    this.clockNote.hidden = !(s.status === "running" && s.clock && !s.clock.running && s.can_abort);
    this.status.dataset.turn = s.turn;
    if (s.outcome) {
      this.outcome.hidden = false;
      const result = s.outcome.result && s.outcome.result !== "*" ? ` (${s.outcome.result})` : "";
      // an imported game without a result was not finished where it was played
      let head = s.status === "aborted" ? t("Aborted") : unfinished(s) ? t("Unfinished") : t("Draw");
      if (forfeited(s)) {
        // a tournament's forfeit: no game was played (status "aborted"), yet one side won
        head = s.outcome.winner === "black" ? t("Black wins by forfeit") : t("White wins by forfeit");
        if (mine.length === 1) head = mine[0] === s.outcome.winner ? t("You win by forfeit") : t("You lose by forfeit");
      } else if (s.outcome.winner) {
        head = s.outcome.winner === "black" ? t("Black wins") : t("White wins");
        if (mine.length === 1) head = mine[0] === s.outcome.winner ? t("You win") : t("You lose");
      }
      this.outcome.replaceChildren(h("strong", {}, `${head}${result}`), ruleMessage(gameEnding(s.outcome, s.board)));
    } else {
      this.outcome.hidden = true;
    }
  }

  /**
   * At the end of a rated game, what it did to both ratings (the rating update comes a
   * moment after the result: asked again a few times).
   * @param {GameState} s
   */
  async showRatingChange(s) {
    if (!s.rated || s.status !== "finished" || this.ratingAsked === s.id) return;
    this.ratingAsked = s.id;
    for (let attempt = 0; attempt < 8; attempt++) {
      try {
        /** @type {{category: string, black: {before: number, after: number, diff: number}, white: {before: number, after: number, diff: number}}} */
        const change = await request("GET", `/api/games/${encodeURIComponent(s.id)}/rating-change`);
        const side = (/** @type {Color} */ color) => {
          const c = change[color];
          const sign = c.diff > 0 ? "+" : c.diff < 0 ? "−" : "±";
          return `${tagName(s.tags[COLOR_NAME[color]] || "") || colorName(color)} ${c.before} → ${c.after} (${sign}${Math.abs(c.diff)})`;
        };
        this.ratingChange.textContent = t("Ratings: {black} · {white}", { black: side("black"), white: side("white") });
        this.ratingChange.hidden = false;
        return;
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 404) return;
        await new Promise((done) => window.setTimeout(done, 750));
      }
    }
  }

  renderCounters() {
    const s = this.game();
    const c = s.counters;
    const parts = [];
    if (c && c.r18_plies > 0 && s.status === "running") {
      const limit = c.r18_limit_plies;
      parts.push(
        h(
          "p",
          { class: "counter r18", id: "counter-r18" },
          tn(
            "Draw count: {moves} of {n} move each ({plies} of {limit} plies) with no man moved and no capture.",
            "Draw count: {moves} of {n} moves each ({plies} of {limit} plies) with no man moved and no capture.",
            limit / 2,
            { moves: Math.floor(c.r18_plies / 2), plies: c.r18_plies, limit },
          ),
          " ",
          h("a", { href: "/rules#R18", class: "rule-link" }, t("Why?")),
        ),
      );
    }
    if (c && c.r19_active && s.status === "running") {
      parts.push(
        h(
          "p",
          { class: "counter r19", id: "counter-r19" },
          t("Three kings against one: move {move} of {limit} for the three kings to catch the lone king.", { move: c.r19_moves, limit: c.r19_limit }),
          " ",
          h("a", { href: "/rules#R19", class: "rule-link" }, t("Why?")),
        ),
      );
    }
    this.counters.replaceChildren(...parts);
    this.counters.hidden = parts.length === 0;
  }

  /**
   * An action's button; with `confirm`, the first click asks again ("Really …?") for 4 s.
   * @param {string} id
   * @param {string} label
   * @param {() => void} handler
   * @param {{confirm?: string | null, cls?: string}} [options]
   * @returns {HTMLButtonElement}
   */
  actionButton(id, label, handler, { confirm = null, cls = "" } = {}) {
    const button = h("button", { type: "button", id, class: cls }, label);
    button.addEventListener("click", () => {
      if (confirm !== null && this.confirming !== id) {
        this.confirming = id;
        button.textContent = confirm;
        button.classList.add("confirm");
        window.setTimeout(() => {
          if (this.confirming === id) {
            this.confirming = null;
            this.renderActions();
          }
        }, 4000);
        return;
      }
      this.confirming = null;
      handler();
    });
    if (confirm !== null && this.confirming === id) {
      button.textContent = confirm;
      button.classList.add("confirm");
    }
    return button;
  }

  renderActions() {
    const s = this.game();
    const buttons = s.status === "running" ? this.runningActions(s) : this.endActions(s);
    this.actions.replaceChildren(...buttons);
  }

  /**
   * A running game's actions for its players: abort, resign, draw, take back.
   * @param {GameState} s
   * @returns {HTMLElement[]}
   */
  runningActions(s) {
    const mine = this.myColors();
    /** @type {HTMLElement[]} */
    const buttons = [];
    if (mine.length) {
      if (s.can_abort) {
        // Before both sides have moved: no result, unrated (a game nobody joined is cancelled).
        const cancel = this.waitingForOpponent();
        const label = cancel ? t("Cancel game") : t("Abort");
        buttons.push(this.actionButton("abort", label, () => this.action("abort"), { confirm: cancel ? t("Really cancel game?") : t("Really abort?") }));
      }
      const resignLabel = mine.length === 2 ? t("Resign ({color})", { color: colorName(s.turn) }) : t("Resign");
      // nothing to resign before the invited opponent has come: "Cancel game" is there
      if (!this.waitingForOpponent()) buttons.push(this.actionButton("resign", resignLabel, () => this.action("resign"), { confirm: t("Really resign?"), cls: "danger" }));
      const offerBy = s.draw_offer;
      const offerIsMine = offerBy && mine.includes(offerBy) && mine.length === 1;
      if (offerBy && !offerIsMine) {
        buttons.push(h("p", { class: "draw-offer" }, offerBy === "black" ? t("Black offers a draw.") : t("White offers a draw.")));
        buttons.push(this.actionButton("draw-accept", t("Accept draw"), () => this.action("draw-accept")));
        buttons.push(this.actionButton("draw-decline", t("Decline draw"), () => this.action("draw-decline")));
      } else if (offerIsMine) {
        buttons.push(h("p", { class: "draw-offer" }, t("You offered a draw; waiting for the answer.")));
      } else if (!this.waitingForOpponent()) {
        // No draw to offer before the opponent has joined.
        buttons.push(this.actionButton("draw-offer", t("Offer draw"), () => this.action("draw-offer")));
      }
      buttons.push(...this.berserkButton(s, mine));
      // Takeback needs a move of ours to undo (the engine may have moved first); on
      // one screen, the last move of either side.
      const firstOwnPly = s.start_turn === s.engine_color ? 2 : 1;
      if ((s.mode === "engine" && s.ply >= firstOwnPly) || (s.mode === "local" && s.ply > 0)) {
        buttons.push(this.actionButton("takeback", t("Take back"), () => this.action("takeback")));
      }
    }
    return buttons;
  }

  /**
   * An ended game's actions: rematch or a new game (a finished game is never reopened:
   * its result stands).
   * @param {GameState} s
   * @returns {HTMLElement[]}
   */
  endActions(s) {
    const event = s.tags.EventId;
    if (event) {
      // a tournament game has no rematch: the event pairs the next game
      return [h("a", { class: "button", id: "back-to-event", href: `/tournaments/${encodeURIComponent(event)}` }, t("Back to the tournament"))];
    }
    return [...this.rematchControls(), h("a", { class: "button", href: "/" }, t("New game"))];
  }

  /**
   * An arena player may halve their own clock before their first move (berserk): a
   * win then earns an extra point.
   * @param {GameState} s
   * @param {Color[]} mine
   * @returns {HTMLElement[]}
   */
  berserkButton(s, mine) {
    const event = s.tags.EventId;
    if (!event || s.tags.EventType !== "arena" || mine.length !== 1 || !s.clock) return [];
    const firstPly = mine[0] === s.start_turn ? 0 : 1;
    if (s.ply > firstPly) return [];
    const url = `/api/tournaments/${encodeURIComponent(event)}/berserk`;
    return [
      this.actionButton("berserk", t("Berserk (half your time)"), async () => {
        try {
          await request("POST", url, { game: this.id });
          this.applyState(await this.fetchState(), { force: true });
          this.showNotice(t("Berserk: your clock is halved; a win earns an extra point."));
        } catch (err) {
          this.showError(errorText(err));
        }
      }),
    ];
  }

  /** Rematch (colours swapped): one click against the engine or on one screen, an
   * offer the opponent accepts online; watchers get a link once it has started.
   * @returns {HTMLElement[]}
   */
  rematchControls() {
    const s = this.game();
    const mine = this.myColors();
    if (s.mode === "imported") return [];
    if (s.rematch_game) {
      return [h("a", { class: "button", id: "rematch-link", href: `/play/${encodeURIComponent(s.rematch_game)}` }, mine.length ? t("Go to the rematch") : t("Watch the rematch"))];
    }
    if (!mine.length) return s.rematch_offer ? [h("p", { class: "rematch-offer" }, s.rematch_offer === "black" ? t("Black offers a rematch.") : t("White offers a rematch."))] : [];
    if (s.mode === "online" && !(s.seats && s.seats.black && s.seats.white)) return [];
    const offerBy = s.rematch_offer;
    if (offerBy && mine.length === 1 && offerBy === mine[0]) {
      return [
        h("p", { class: "rematch-offer", id: "rematch-offer" }, t("You offered a rematch; waiting for the answer.")),
        this.actionButton("rematch-decline", t("Cancel rematch"), () => this.action("rematch-decline")),
      ];
    }
    if (offerBy) {
      return [
        h(
          "p",
          { class: "rematch-offer", id: "rematch-offer" },
          s.rated ? t("Your opponent offers a rated rematch (colours swapped).") : t("Your opponent offers a casual rematch (colours swapped)."),
        ),
        this.actionButton("rematch", t("Accept rematch"), () => this.action("rematch"), { cls: "primary" }),
        this.actionButton("rematch-decline", t("Decline"), () => this.action("rematch-decline")),
      ];
    }
    let label = t("Play again");
    // a rated game's rematch is rated too (unless the pair played its rated games today)
    if (s.mode === "online") label = s.rated ? t("Offer a rated rematch") : t("Offer a casual rematch");
    else if (mine.length === 1) label = opponent(mine[0]) === "black" ? t("Rematch as Black") : t("Rematch as White");
    return [this.actionButton("rematch", label, () => this.action("rematch"), { cls: "primary" })];
  }

  renderInvite() {
    const s = this.game();
    const invitePath = storageGet(inviteKey(s.id));
    if (!invitePath || !this.waitingForOpponent()) {
      this.invite.hidden = true;
      return;
    }
    const url = new URL(invitePath, window.location.origin).href;
    const field = h("input", { type: "text", readonly: true, value: url, id: "invite-link", "aria-label": t("Invitation link") });
    const copy = h("button", { type: "button", id: "copy-invite" }, t("Copy link"));
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(url);
      } catch {
        field.select();
        document.execCommand("copy");
      }
      copy.textContent = t("Copied");
      announce(t("Invitation link copied."));
    });
    this.invite.hidden = false;
    this.invite.replaceChildren(
      h("p", {}, t("Send this link to your opponent; the game starts when they open it.")),
      h("div", { class: "row" }, field, copy),
    );
  }

  renderMoves() {
    const s = this.game();
    const rows = moveRows(s.moves, s.start_turn);
    const current = this.viewPly === null ? s.moves.length : this.viewPly;
    // An imported game's comments and variations (its move tree): marks on the moves,
    // a note under each row; a variation's move opens the game on the analysis board.
    const tree = s.annotations ? MoveTree.of(s.annotations, s.moves) : null;
    const nodes = tree ? tree.path(s.moves) : [];
    const analyse = () => window.location.assign(`/analysis?game=${encodeURIComponent(s.id)}`);
    const cell = (/** @type {MoveCell | null} */ entry) => {
      if (!entry) return h("span", { class: "mv empty" }, entry === null ? "…" : "");
      const node = nodes[entry.ply - 1];
      return h(
        "button",
        {
          type: "button",
          class: `mv${entry.ply === current ? " current" : ""}`,
          "data-ply": entry.ply,
          "aria-current": entry.ply === current ? "true" : null,
          onclick: () => this.view(entry.ply === s.moves.length ? null : entry.ply),
        },
        node ? moveLabel(node) : entry.text,
      );
    };
    /** @type {HTMLElement[]} */
    const items = [];
    if (tree && tree.comment) items.push(h("li", { class: "note" }, h("span", { class: "comment" }, tree.comment)));
    for (const row of rows) {
      items.push(h("li", { value: row.number }, h("span", { class: "no" }, `${row.number}.`), cell(row.black), cell(row.white)));
      const plies = [row.black, row.white].flatMap((c) => (c ? [c.ply] : []));
      const note = tree ? rowNote(tree, nodes, plies, s.start_turn, analyse, null) : null;
      if (note) items.push(note);
    }
    this.moveList.replaceChildren(...items);
    if (!rows.length) this.moveList.append(h("li", { class: "empty-list" }, t("No moves yet.")));
    if (s.outcome && s.outcome.result && (s.status !== "aborted" || forfeited(s))) {
      this.moveList.append(h("li", { class: "result" }, s.outcome.result));
    }
    const currentEl = this.moveList.querySelector(".current");
    if (currentEl instanceof HTMLElement) keepInView(this.moveList, currentEl);
    this.renderViewBanner(s);
  }

  /**
   * Say that an earlier position is shown, with the way back to the game.
   * @param {GameState} s
   */
  renderViewBanner(s) {
    const ply = this.viewPly;
    this.viewBanner.hidden = ply === null;
    if (ply === null) return;
    this.viewBanner.replaceChildren(
      ply === 0
        ? t("Viewing the start position (view only).")
        : t("Viewing the position after {move} (view only).", { move: `${moveNumber(ply, s.start_turn)} ${s.moves[ply - 1]}` }),
      " ",
      h("button", { type: "button", class: "small", onclick: () => this.view(null) }, t("Back to the game")),
    );
  }

  // ---- navigation ----------------------------------------------------------------

  /**
   * Show the position `delta` plies from the one shown (or asked for).
   * @param {number} delta
   */
  step(delta) {
    const s = this.state;
    if (!s) return;
    // Step from where the last request is going, so quick presses add up.
    const target = this.targetPly === undefined ? this.viewPly : this.targetPly;
    const cur = target === null ? s.moves.length : target;
    const next = Math.max(0, Math.min(s.moves.length, cur + delta));
    this.view(next >= s.moves.length ? null : next);
  }

  /**
   * The server's position after `ply` moves of the game (asked once).
   * @param {number} ply
   * @returns {Promise<PositionInfo>}
   */
  async positionAt(ply) {
    const s = this.game();
    const known = this.positionCache.get(ply);
    if (known) return known;
    const info = await api.position(s.start_fen, s.moves.slice(0, ply), s.rules);
    this.positionCache.set(ply, info);
    return info;
  }

  /**
   * Show the position after `ply` moves; null (or the last ply): the game as it is.
   * @param {number | null} ply
   */
  async view(ply) {
    const s = this.state;
    if (!s) return;
    if (ply !== null && ply >= s.moves.length) ply = null;
    this.targetPly = ply;
    const from = this.viewPly === null ? s.moves.length : this.viewPly;
    if (ply === null) {
      this.viewSeq = (this.viewSeq || 0) + 1;
      this.viewPly = null;
      this.board.setPosition(boardPosition(s.board, s.turn), { move: s.last_move, animate: from === s.moves.length - 1 });
      this.renderAll();
      announce(t("Back to the current position."));
      return;
    }
    const seq = (this.viewSeq = (this.viewSeq || 0) + 1);
    try {
      // The server's position after `ply` moves, with the move that led there.
      const info = await this.positionAt(ply);
      if (seq !== this.viewSeq) return; // a later step overtook this one
      this.viewPly = ply;
      this.board.setPosition(boardPosition(info.board, info.turn), { move: info.last_move, animate: ply === from + 1 });
      this.renderAll();
      announce(ply === 0 ? t("Start position.") : t("Position after {move}, ply {ply}.", { move: s.moves[ply - 1], ply }));
    } catch (err) {
      this.showError(errorText(err));
    }
  }

  // ---- actions --------------------------------------------------------------------

  /**
   * A move made on the board.
   * @param {LegalMove} move
   */
  playMove(move) {
    // Show the move at once (the server's board after it: captures gone, a crowning);
    // the server's state confirms or corrects it.
    this.board.setPosition(boardPosition(move.board_after, opponent(this.game().turn)), { move });
    this.holdUntil = performance.now() + 190 * (move.path.length - 1) + 250;
    this.sendMove(move.notation, move);
  }

  /**
   * Send a move (typed: `move` null; made on the board: the move shown already).
   * @param {string} text
   * @param {LegalMove | null} move
   */
  async sendMove(text, move) {
    const s = this.state;
    if (!s || !this.canMove()) return;
    this.showError("");
    this.notice.textContent = ""; // an old notice ("Move taken back.") is over with a move
    this.pending = true;
    this.board.setLegalMoves([], false);
    try {
      const state = await api.move(this.id, text, s.ply, this.token);
      this.pending = false;
      this.moveInput.value = "";
      // A typed move is animated now; a clicked one was shown at once. The
      // answer may be older than a state the socket brought meanwhile (the
      // engine's reply): then it is ignored, but the page is drawn again
      // because we are not waiting any more.
      this.applyState(state, { animate: !move });
      this.renderAll();
    } catch (err) {
      this.pending = false;
      this.showError(errorText(err), { network: err instanceof ApiError && err.code === "network" });
      // The position is unchanged: show the server's board again.
      const shown = this.game();
      this.board.setPosition(boardPosition(shown.board, shown.turn), { move: shown.last_move, animate: false });
      this.renderAll();
      if (err instanceof ApiError && err.code === "stale_ply") {
        try {
          this.applyState(await this.fetchState(), { force: true, animate: false });
        } catch {
          /* the socket will bring it */
        }
      }
      if (!move) this.moveInput.focus();
    }
  }

  /**
   * Take an action (resign, offer a draw, …) and say what came of it.
   * @param {GameAction} name
   */
  async action(name) {
    this.showError("");
    try {
      const state = await api.action(this.id, name, this.token);
      if (state && state.id) {
        this.applyState(state, { force: name === "takeback" });
      } else {
        this.applyState(await this.fetchState(), { force: true });
      }
      const s = this.game();
      let notice = ACTION_WORDS[name];
      if (name === "rematch" && s.rematch_game) notice = t("The rematch starts.");
      if (name === "draw-offer" && s.mode === "engine") {
        notice = s.status === "finished" ? t("The engine accepted the draw.") : t("The engine declined the draw.");
      }
      this.showNotice(notice);
    } catch (err) {
      this.showError(errorText(err), { network: err instanceof ApiError && err.code === "network" });
    }
  }
}

/**
 * Typed notation as the server reads it (R4): phone keyboards turn "-" into a
 * dash and some people type "×" or blanks around the separator.
 * @param {string} text
 * @returns {string}
 */
export function normalizeMoveText(text) {
  return String(text)
    .trim()
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[×X]/g, "x")
    .replace(/\s*([-x])\s*/g, "$1");
}

/**
 * The side that made the last move of a GameState (null before the first).
 * @param {GameState} state
 * @returns {Color | null}
 */
function lastMover(state) {
  if (!state.ply) return null;
  return state.ply % 2 === 1 ? state.start_turn : opponent(state.start_turn);
}

/**
 * @param {HTMLElement} root
 * @param {string} id the game's id (from the URL)
 */
export async function render(root, id) {
  const page = new GamePage(root, id);
  // For debugging in the console and for the end-to-end tests.
  Object.assign(window, { poolcheckersGame: page });
  await page.start();
}

/**
 * Time left for a correspondence move: days and hours, then the clock format under a day.
 * @param {number} seconds
 * @returns {string}
 */
function formatDaysLeft(seconds) {
  if (seconds < 86400) return formatClock(seconds);
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  return t("{days}d {hours}h", { days, hours });
}

/**
 * An imported game recorded without a result (`*`): not over, only stopped.
 * @param {GameState} s
 * @returns {boolean}
 */
function unfinished(s) {
  return s.mode === "imported" && (!s.outcome || !s.outcome.result || s.outcome.result === "*");
}

/**
 * A tournament game lost by forfeit: a side did not make its first move. No game was
 * played (its status is "aborted", it is never rated), yet the event scores it.
 * @param {GameState} s
 * @returns {boolean}
 */
function forfeited(s) {
  return s.outcome?.termination === "no_show" && Boolean(s.outcome.winner);
}

/**
 * An ended game's heading (the status line, the window's title).
 * @param {GameState} s
 * @returns {string}
 */
function endTitle(s) {
  if (s.status === "aborted" && !forfeited(s)) return t("Game aborted");
  return unfinished(s) ? t("Unfinished game") : t("Game over");
}

/**
 * A rated game shorter than the plies the server rates (`minPlies`, 0 while unknown), in
 * words: while it runs, from when it counts; once ended, that it was too short to be
 * rated. "" for any other game.
 * @param {GameState} s
 * @param {number} minPlies
 * @returns {string}
 */
function shortOfRating(s, minPlies) {
  if (!s.rated || !minPlies || s.ply >= minPlies) return "";
  const moves = Math.ceil(minPlies / 2);
  if (s.status === "running") {
    return tn(
      "Rated once each side has made {n} move: a game ended sooner changes no rating.",
      "Rated once each side has made {n} moves: a game ended sooner changes no rating.",
      moves,
    );
  }
  if (s.status !== "finished") return ""; // an aborted game has no result to rate
  return tn("Too short to be rated: the game ended before each side had made {n} move.", "Too short to be rated: the game ended before each side had made {n} moves.", moves);
}

/**
 * What kind of game it is, as lichess heads a game: "Rated · Blitz 5+3", "Casual ·
 * Correspondence, 3 days a move", "Against the engine · level 4", "One screen".
 * @param {GameState} s
 * @returns {string}
 */
function gameKind(s) {
  const clock = s.clock ? `${formatNumber(s.clock.initial / 60, { maximumFractionDigits: 1, useGrouping: false })}+${s.clock.increment}` : "";
  const category = s.category ? CATEGORY_NAMES[s.category] || s.category[0].toUpperCase() + s.category.slice(1) : "";
  if (s.mode === "imported") return [t("Imported game"), s.tags.Event].filter((part) => part && part !== "?").join(" · ");
  if (s.mode === "engine") return [t("Against the engine"), t("level {level}", { level: s.level ?? "?" }), clock].filter(Boolean).join(" · ");
  if (s.mode === "local") return [t("One screen"), clock].filter(Boolean).join(" · ");
  const days = s.correspondence ? tn("Correspondence, {n} day a move", "Correspondence, {n} days a move", s.correspondence.days) : "";
  const time = days || (clock ? `${category} ${clock}`.trim() : t("Unlimited"));
  return [s.rated ? t("Rated") : t("Casual"), time].join(" · ");
}
