// The analysis page: set up from FEN, PDN or an archive game; live engine lines
// over /ws/analysis; an evaluation graph over the game with mistakes marked.

import { LiveSocket, api } from "./api.js";
import { BoardView } from "./board.js";
import {
  COLOR_NAME,
  announce,
  fenTurn,
  formatScore,
  h,
  keepInView,
  moveRows,
  opponent,
  parseFen,
  svg,
} from "./util.js";

const STANDARD_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";
const CLAMP = 600; // chart range in centi-men (six men)
const WIN = 1000;

function blackView(score, turn) {
  return turn === "black" ? score : -score;
}

function clampScore(score, mateIn) {
  if (mateIn !== null && mateIn !== undefined) return mateIn > 0 ? WIN : -WIN;
  return Math.max(-WIN, Math.min(WIN, score));
}

class AnalysisPage {
  constructor(root) {
    this.root = root;
    this.startFen = STANDARD_FEN;
    this.rules = null;
    this.line = [];
    this.ply = 0;
    this.infos = new Map();
    this.evals = [];
    this.engineOn = false;
    this.lastInfo = null;
    this.title = "";
    this.pdnGames = [];
    this.pdnErrors = [];
    this.requestId = 0;
  }

  async start() {
    this.build();
    this.bindKeys();
    const params = new URLSearchParams(window.location.search);
    let ok = false;
    if (params.get("game")) {
      ok = await this.loadArchiveGame(params.get("game"));
    } else if (params.get("fen")) {
      this.fenInput.value = params.get("fen");
      ok = await this.setup(params.get("fen"), [], null, "Position from the link");
    }
    if (!ok) {
      // Nothing (or nothing usable) in the link: the start position, and the error stays.
      const why = this.error.textContent;
      await this.setup(STANDARD_FEN, [], null, "Start position");
      if (why) this.showError(why);
    }
    this.fillArchiveList();
  }

  // ---- layout ----------------------------------------------------------------------

  build() {
    this.boardBox = h("div", { class: "board-box", id: "board" });
    this.boardHint = h("p", { class: "board-hint", id: "board-hint", "aria-hidden": "true" });
    this.board = new BoardView(this.boardBox, { onMove: (m) => this.userMove(m), onHint: (t) => { this.boardHint.textContent = t; }, label: "Analysis board" });
    this.heading = h("h1", { class: "title", id: "analysis-title" }, "Analysis");
    this.turnLine = h("p", { class: "status", id: "status" });
    this.error = h("p", { class: "error", id: "error" });

    this.fenInput = h("input", { type: "text", id: "fen-input", spellcheck: "false", autocomplete: "off", autocapitalize: "characters", autocorrect: "off", "aria-label": "FEN", placeholder: STANDARD_FEN });
    const fenForm = h(
      "form",
      { class: "row", id: "fen-form" },
      this.fenInput,
      h("button", { type: "submit" }, "Set up"),
    );
    fenForm.addEventListener("submit", (e) => {
      e.preventDefault();
      this.setup(this.fenInput.value.trim() || STANDARD_FEN, [], this.chosenRules(), "Position from FEN");
    });

    this.pdnText = h("textarea", { id: "pdn-input", rows: 4, spellcheck: "false", "aria-label": "PDN text", placeholder: '[Event "…"]\n1. 11-15 23-19 2. 8-11 22-17 *' });
    this.pdnFile = h("input", { type: "file", id: "pdn-file", accept: ".pdn,.txt,text/plain", "aria-label": "PDN file" });
    this.pdnFile.addEventListener("change", async () => {
      const file = this.pdnFile.files && this.pdnFile.files[0];
      if (file) {
        this.pdnText.value = await file.text();
        this.loadPdnText();
      }
    });
    this.pdnPick = h("select", { id: "pdn-pick", "aria-label": "Game in the PDN", hidden: true });
    this.pdnPick.addEventListener("change", () => this.loadPdnGame(Number(this.pdnPick.value)));
    const pdnForm = h(
      "form",
      { id: "pdn-form" },
      this.pdnText,
      h("div", { class: "row" }, this.pdnFile, h("button", { type: "submit" }, "Load PDN")),
      this.pdnPick,
    );
    pdnForm.addEventListener("submit", (e) => {
      e.preventDefault();
      this.loadPdnText();
    });

    // Rule options (RULES.md §9) for positions set up from FEN or PDN; an archive
    // game brings its own.
    this.ruleInputs = {
      crown_during_capture: h("select", { id: "rule-crown" }, h("option", { value: "pass" }, "pass (R15)"), h("option", { value: "stop" }, "stop")),
      three_kings_limit_result: h("select", { id: "rule-three-kings" }, h("option", { value: "draw" }, "draw (R19)"), h("option", { value: "loss" }, "loss")),
      king_only_move_limit: h("input", { type: "number", id: "rule-king-limit", min: 1, max: 200, value: 25 }),
      repetition_draw: h("input", { type: "checkbox", id: "rule-repetition" }),
    };
    const ri = this.ruleInputs;
    this.rulesBox = h(
      "details",
      { class: "rules", id: "analysis-rules" },
      h("summary", {}, "Rule options (§9) for FEN and PDN"),
      h("label", { class: "field" }, h("span", { class: "label" }, "Man reaching the king row in a capture"), ri.crown_during_capture),
      h("label", { class: "field" }, h("span", { class: "label" }, "Three kings v one not won in 13 moves"), ri.three_kings_limit_result),
      h("label", { class: "field" }, h("span", { class: "label" }, "King-only moves per side (R18)"), ri.king_only_move_limit),
      h("label", { class: "choice" }, ri.repetition_draw, h("span", {}, "Draw by threefold repetition")),
    );

    this.archivePick = h("select", { id: "archive-pick", "aria-label": "Archive game" }, h("option", { value: "" }, "Loading…"));
    const archiveForm = h(
      "form",
      { class: "row", id: "archive-form" },
      this.archivePick,
      h("button", { type: "submit" }, "Open"),
    );
    archiveForm.addEventListener("submit", (e) => {
      e.preventDefault();
      if (this.archivePick.value) this.loadArchiveGame(this.archivePick.value);
    });

    this.engineButton = h("button", { type: "button", id: "engine-toggle", "aria-pressed": "false", class: "primary" }, "Start engine");
    this.engineButton.addEventListener("click", () => this.toggleEngine());
    this.engineTime = h("input", { type: "number", id: "engine-time", min: 0.2, max: 120, step: 0.1, value: 5, "aria-label": "Seconds per analysis" });
    this.engineOut = h("div", { class: "engine-out", id: "engine-out", "aria-live": "off" });
    this.bestButton = h("button", { type: "button", id: "play-best", disabled: true }, "Play best move");
    this.bestButton.addEventListener("click", () => this.playBest());

    this.reviewButton = h("button", { type: "button", id: "review" }, "Evaluate the game");
    this.reviewButton.addEventListener("click", () => this.review());
    this.reviewTime = h("input", { type: "number", id: "review-time", min: 0.05, max: 10, step: 0.05, value: 0.3, "aria-label": "Seconds per position" });
    this.threshold = h("input", { type: "number", id: "threshold", min: 10, max: 2000, step: 10, value: 80, "aria-label": "Mistake threshold in centi-men" });
    this.threshold.addEventListener("change", () => this.renderReview());
    this.reviewStatus = h("p", { class: "hint", id: "review-status" });
    this.chart = h("div", { class: "chart", id: "eval-chart" });
    this.mistakes = h("ul", { class: "mistakes", id: "mistakes" });

    this.moveList = h("ol", { class: "move-list", id: "move-list", "aria-label": "Moves" });
    this.branchBanner = h("div", { class: "view-banner", id: "branch-banner", hidden: true });
    const nav = h(
      "div",
      { class: "nav", role: "group", "aria-label": "Move navigation" },
      h("button", { type: "button", id: "nav-first", "aria-label": "First position", onclick: () => this.go(0) }, "«"),
      h("button", { type: "button", id: "nav-prev", "aria-label": "Previous move", onclick: () => this.go(this.goal() - 1) }, "‹"),
      h("button", { type: "button", id: "nav-next", "aria-label": "Next move", onclick: () => this.go(this.goal() + 1) }, "›"),
      h("button", { type: "button", id: "nav-last", "aria-label": "Last move", onclick: () => this.go(this.line.length) }, "»"),
    );
    const tools = h(
      "div",
      { class: "board-tools" },
      h("button", { type: "button", class: "small", onclick: () => this.board.setFlipped(!this.board.flipped) }, "Flip board"),
      h("button", {
        type: "button",
        class: "small",
        "aria-pressed": "false",
        onclick: (e) => {
          this.board.setShowNumbers(!this.board.showNumbers);
          e.currentTarget.setAttribute("aria-pressed", String(this.board.showNumbers));
        },
      }, "Square numbers"),
    );
    this.fenOut = h("input", { type: "text", readonly: true, id: "fen-out", "aria-label": "FEN of the shown position" });

    this.root.replaceChildren(
      h(
        "div",
        { class: "play analysis" },
        h("section", { class: "board-col", "aria-label": "Board" }, this.heading, this.turnLine, this.boardBox, tools, this.boardHint, h("label", { class: "field" }, h("span", { class: "label" }, "FEN"), this.fenOut), this.chart),
        h(
          "aside",
          { class: "side" },
          this.error,
          h("section", { class: "card engine" }, h("h2", {}, "Engine"), h("div", { class: "row" }, this.engineButton, h("label", { class: "inline" }, "seconds ", this.engineTime), this.bestButton), this.engineOut),
          h("h2", { class: "sub" }, "Moves"),
          nav,
          this.branchBanner,
          this.moveList,
          h(
            "section",
            { class: "card review" },
            h("h2", {}, "Game review"),
            h("div", { class: "row" }, this.reviewButton, h("label", { class: "inline" }, "s/position ", this.reviewTime), h("label", { class: "inline" }, "mistake ≥ ", this.threshold, " cm")),
            this.reviewStatus,
            this.mistakes,
          ),
          h(
            "section",
            { class: "card setup" },
            h("h2", {}, "Set up"),
            this.rulesBox,
            h("h3", {}, "From FEN"),
            fenForm,
            h("h3", {}, "From PDN"),
            pdnForm,
            h("h3", {}, "From the archive"),
            archiveForm,
          ),
        ),
      ),
    );
  }

  showRules(rules) {
    if (!rules) return;
    const ri = this.ruleInputs;
    if (rules.crown_during_capture) ri.crown_during_capture.value = rules.crown_during_capture;
    if (rules.three_kings_limit_result) ri.three_kings_limit_result.value = rules.three_kings_limit_result;
    if (rules.king_only_move_limit) ri.king_only_move_limit.value = rules.king_only_move_limit;
    ri.repetition_draw.checked = Boolean(rules.repetition_draw);
  }

  chosenRules() {
    const ri = this.ruleInputs;
    const limit = Math.max(1, Math.round(Number(ri.king_only_move_limit.value) || 25));
    return {
      crown_during_capture: ri.crown_during_capture.value,
      three_kings_limit_result: ri.three_kings_limit_result.value,
      king_only_move_limit: limit,
      repetition_draw: ri.repetition_draw.checked,
    };
  }

  bindKeys() {
    // Arrow keys step through the line when the focus is not on the board or a field.
    document.addEventListener("keydown", (e) => {
      const t = e.target;
      if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return;
      if (t instanceof Element && t.closest(".board")) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "ArrowLeft") this.go(this.goal() - 1);
      else if (e.key === "ArrowRight") this.go(this.goal() + 1);
      else if (e.key === "Home") this.go(0);
      else if (e.key === "End") this.go(this.line.length);
      else return;
      e.preventDefault();
    });
  }

  showError(text) {
    // Read out by the page's assertive live region (#alerts), which is always there.
    this.error.textContent = text;
    if (text) announce(text, true);
  }

  // ---- loading ----------------------------------------------------------------------

  async setup(fen, moves, rules, title) {
    this.showError("");
    try {
      parseFen(fen);
    } catch (err) {
      this.showError(`FEN: ${err.message}`);
      return false;
    }
    const infos = new Map();
    try {
      infos.set(0, await api.position(fen, [], rules));
    } catch (err) {
      this.showError(`Position: ${err.message}`);
      return false;
    }
    let good = moves.length;
    if (moves.length) {
      try {
        infos.set(moves.length, await api.position(fen, moves, rules));
      } catch (err) {
        // Find how far the moves are legal, to show the first bad one.
        good = await this.legalPrefix(fen, moves, rules, infos);
        this.showError(`Only the first ${good} of ${moves.length} moves can be played: ${err.message}`);
      }
    }
    this.startFen = fen;
    this.rules = rules;
    this.line = moves.slice(0, good);
    this.loadedLine = this.line.slice();
    this.branchBanner.hidden = true;
    this.infos = infos;
    this.evals = [];
    this.title = title;
    this.heading.textContent = title;
    this.renderReview();
    await this.go(this.line.length, { animate: false });
    return true;
  }

  async legalPrefix(fen, moves, rules, infos) {
    let lo = 0;
    let hi = moves.length - 1;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      try {
        infos.set(mid, await api.position(fen, moves.slice(0, mid), rules));
        lo = mid;
      } catch {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** Read the PDN text on the server (POST /api/analysis/pdn): every game checked
   * by the rules, nothing stored. A bad game's legal part is still offered. */
  async loadPdnText() {
    const seq = (this.pdnSeq = (this.pdnSeq || 0) + 1);
    let data;
    try {
      data = await api.analysisPdn(this.pdnText.value, this.chosenRules());
    } catch (err) {
      if (seq === this.pdnSeq) this.showError(`PDN: ${err.message}`);
      return;
    }
    if (seq !== this.pdnSeq) return; // a later load overtook this one
    const errors = data.errors || [];
    const games = [
      ...(data.games || []).map((g) => ({ ...g, error: null })),
      ...errors.filter((e) => e.partial).map((e) => ({ ...e.partial, error: e })),
    ].sort((a, b) => a.game - b.game);
    this.pdnGames = games;
    this.pdnErrors = errors;
    if (!games.length) {
      this.pdnPick.hidden = true;
      this.showError(errors.length ? `No game can be loaded from the PDN: ${errors.map((e) => e.message).join("; ")}` : "No game found in the PDN text.");
      return;
    }
    this.pdnPick.replaceChildren(
      ...games.map((g, i) => {
        const name = [g.tags.Black, g.tags.White].filter(Boolean).join(" – ") || g.tags.Event || "Game";
        const bad = g.error ? ` · error at line ${g.error.line}` : "";
        return h("option", { value: i }, `${g.game}. ${name} (${g.moves.length} moves) ${g.result}${bad}`);
      }),
    );
    this.pdnPick.value = "0";
    this.pdnPick.hidden = games.length < 2;
    await this.loadPdnGame(0);
  }

  async loadPdnGame(index) {
    const g = this.pdnGames[index];
    if (!g) return;
    const name = [g.tags.Black, g.tags.White].filter(Boolean).join(" – ") || g.tags.Event || "PDN game";
    // The rules the server read the game with: its Rules tag, else the options chosen here.
    this.showRules(g.rules);
    const ok = await this.setup(g.start_fen, g.moves, g.rules, name);
    if (!ok) return;
    const notes = [];
    if (g.error) notes.push(`Only the first ${g.moves.length} moves can be played: ${g.error.message}`);
    const unread = this.pdnErrors.filter((e) => !e.partial);
    if (unread.length) notes.push(`Not loaded: ${unread.map((e) => e.message).join("; ")}`);
    if (notes.length) this.showError(notes.join(" · "));
  }

  async loadArchiveGame(id) {
    try {
      const game = await api.getGame(id);
      const names = game.tags && (game.tags.Black || game.tags.White) ? `${game.tags.Black || "?"} – ${game.tags.White || "?"}` : `Game ${game.id}`;
      const ok = await this.setup(game.start_fen, game.moves, game.rules, names);
      this.showRules(game.rules);
      return ok;
    } catch (err) {
      this.showError(`Archive game ${id}: ${err.message}`);
      return false;
    }
  }

  async fillArchiveList() {
    try {
      const [finished, running] = await Promise.all([api.listGames("finished", 100), api.listGames("running", 100)]);
      const games = [...(finished.games || []), ...(running.games || [])];
      if (!games.length) {
        this.archivePick.replaceChildren(h("option", { value: "" }, "No games yet"));
        return;
      }
      this.archivePick.replaceChildren(
        ...games.map((g) => h("option", { value: g.id }, summaryText(g))),
      );
    } catch (err) {
      this.archivePick.replaceChildren(h("option", { value: "" }, `Archive unavailable (${err.message})`));
    }
  }

  // ---- positions --------------------------------------------------------------------

  async info(ply) {
    if (this.infos.has(ply)) return this.infos.get(ply);
    const info = await api.position(this.startFen, this.line.slice(0, ply), this.rules);
    this.infos.set(ply, info);
    return info;
  }

  turnAt(ply) {
    const info = this.infos.get(ply);
    if (info && info.turn) return info.turn;
    const start = fenTurn(this.startFen);
    return ply % 2 === 0 ? start : opponent(start);
  }

  /** The ply being shown, or about to be: quick presses of "next" add up. */
  goal() {
    return this.target ?? this.ply;
  }

  async go(ply, { animate = true } = {}) {
    ply = Math.max(0, Math.min(this.line.length, ply));
    this.target = ply;
    const from = this.ply;
    const seq = (this.goSeq = (this.goSeq || 0) + 1);
    let info;
    let move = null;
    try {
      info = await this.info(ply);
      if (ply > 0) {
        const before = await this.info(ply - 1);
        move = findMove(before.legal_moves, this.line[ply - 1]);
      }
    } catch (err) {
      if (seq === this.goSeq) this.showError(err.message);
      return;
    }
    if (seq !== this.goSeq) return; // a later step overtook this one
    this.ply = ply;
    this.board.setPosition(parseFen(info.fen), { move, animate: animate && ply === from + 1 });
    this.board.setLegalMoves(info.legal_moves || [], true, info.rules || this.rules);
    this.fenOut.value = info.fen;
    const turn = info.turn || parseFen(info.fen).turn;
    const over = info.outcome ? ` — ${info.outcome.reason || info.outcome.result || "game over"}` : (info.legal_moves || []).length === 0 ? " — no legal move (R16)" : "";
    // The draw counts of the shown position (R18, R19), as on the game page.
    const c = info.counters || {};
    const counts = [];
    if (!over && c.r18_plies > 0) counts.push(`R18: ${c.r18_plies} of ${c.r18_limit_plies || 50} plies without a man move or capture`);
    if (!over && c.r19_active) counts.push(`R19: move ${c.r19_moves} of 13 for the three kings`);
    this.turnLine.textContent = `${COLOR_NAME[turn]} to move${over}${counts.length ? ` · ${counts.join(" · ")}` : ""}`;
    this.renderMoves();
    this.renderReview();
    if (ply !== from || !animate) announce(ply === 0 ? "Start position." : `After ${this.line[ply - 1]}.`);
    if (this.engineOn) this.analyse();
    else if (ply !== this.engineShownPly) this.clearEngine();
  }

  /** The engine is off and the position changed: its last line is not about this one. */
  clearEngine() {
    this.lastInfo = null;
    this.current = null;
    this.bestButton.disabled = true;
    if (this.engineOut.childElementCount) {
      this.engineOut.replaceChildren(h("p", { class: "hint" }, "Start the engine to analyse this position."));
    }
  }

  userMove(move) {
    const k = this.ply;
    if (this.line[k] !== move.notation) {
      this.replaceLine(k, [move.notation]);
      this.showBranch(k);
    }
    this.go(k + 1);
  }

  /** Keep the first k moves of the line and play `moves` after them. */
  replaceLine(k, moves) {
    this.line = [...this.line.slice(0, k), ...moves];
    for (const key of [...this.infos.keys()]) if (key > k) this.infos.delete(key);
    this.evals = this.evals.slice(0, k + 1);
    if (this.reviewStatus.textContent) this.reviewStatus.textContent = "The line changed: evaluate the game again for the new moves.";
  }

  /** A move on the board left the loaded game: say so, and offer the way back. */
  showBranch(k) {
    const loaded = this.loadedLine || [];
    const diverges = loaded.length > k && loaded.slice(0, k).every((m, i) => m === this.line[i]);
    if (!diverges) return;
    if (!this.branchBanner.hidden && this.branchAt !== undefined && this.branchAt <= k) return;
    this.branchAt = k;
    const back = h("button", { type: "button", class: "small", id: "back-to-game" }, "Back to the loaded game");
    back.addEventListener("click", () => {
      this.replaceLine(k, loaded.slice(k));
      this.branchBanner.hidden = true;
      this.renderReview();
      this.go(k);
      announce("Back to the loaded game.");
    });
    this.branchBanner.replaceChildren(
      `Your own line from ${moveNumber(k + 1, this.startFen)} on; the rest of the loaded game (${loaded.length - k} moves) is set aside. `,
      back,
    );
    this.branchBanner.hidden = false;
    announce(`New line from move ${moveNumber(k + 1, this.startFen)}; the loaded game's moves after it are set aside.`);
  }

  // ---- engine -----------------------------------------------------------------------

  ensureSocket() {
    if (this.socket) return;
    this.socket = new LiveSocket("/ws/analysis", {
      onMessage: (msg) => this.engineMessage(msg),
      onOpen: () => {
        this.outstanding = 0;
        if (this.engineOn) this.analyse();
      },
      onStatus: (status) => {
        this.engineButton.dataset.connection = status;
      },
    });
  }

  toggleEngine() {
    this.engineOn = !this.engineOn;
    this.engineButton.setAttribute("aria-pressed", String(this.engineOn));
    this.engineButton.textContent = this.engineOn ? "Stop engine" : "Start engine";
    if (this.engineOn) {
      this.ensureSocket();
      this.analyse();
    } else {
      if (this.socket && this.outstanding) this.socket.send({ type: "stop" });
      this.engineOut.append(h("p", { class: "hint" }, "Engine stopped."));
    }
  }

  async analyse() {
    const ply = this.ply;
    const info = await this.info(ply).catch(() => null);
    if (!info || !this.socket) return;
    this.current = { fen: info.fen };
    this.lastInfo = null;
    this.bestButton.disabled = true;
    if ((info.legal_moves || []).length === 0 || info.outcome) {
      if (this.outstanding) this.socket.send({ type: "stop" });
      const why = info.outcome ? info.outcome.reason || "the game is over" : "no legal move";
      this.engineOut.replaceChildren(h("p", {}, `Nothing to analyse: ${why}.`));
      return;
    }
    this.engineOut.replaceChildren(h("p", { class: "hint" }, "Thinking…"));
    if (this.outstanding) this.socket.send({ type: "stop" });
    this.engineShownPly = ply;
    // The start position and the moves, not the FEN alone: the engine then knows
    // the R18 / R19 counts and the positions met before (repetition option).
    this.requestId += 1;
    const sent = this.socket.send({
      type: "analyse",
      id: this.requestId,
      fen: this.startFen,
      moves: this.line.slice(0, ply),
      rules: this.rules || undefined,
      time: Number(this.engineTime.value) || 5,
    });
    // Each analyse request ends with exactly one "done" or "error", tagged with the
    // request's id: only the newest request's messages are shown.
    if (sent) this.outstanding = (this.outstanding || 0) + 1;
  }

  engineMessage(msg) {
    if (msg.type !== "info" && msg.type !== "done" && msg.type !== "error") return;
    // A server that does not echo the id: count the requests still running instead.
    const latest = msg.id !== undefined && msg.id !== null ? msg.id === this.requestId : (this.outstanding || 0) <= 1;
    if (msg.type === "done" || msg.type === "error") this.outstanding = Math.max(0, (this.outstanding || 0) - 1);
    if (!latest || !this.current || !this.engineOn) return;
    if (msg.type === "error") {
      this.engineOut.replaceChildren(h("p", { class: "error" }, `Engine: ${msg.error ? msg.error.message : "error"}`));
      return;
    }
    const pv = msg.pv && msg.pv.length ? msg.pv : msg.best ? [msg.best] : [];
    const data = { ...this.lastInfo, ...msg, pv: pv.length ? pv : this.lastInfo ? this.lastInfo.pv : [] };
    this.lastInfo = data;
    const turn = parseFen(this.current.fen).turn;
    const bv = blackView(clampScore(data.score ?? 0, data.mate_in), turn);
    this.engineOut.replaceChildren(
      h(
        "p",
        { class: "score", id: "engine-score" },
        h("strong", {}, formatScore(data.score ?? 0, data.mate_in)),
        ` for ${COLOR_NAME[turn]} · `,
        bv > 20 ? "Black is better" : bv < -20 ? "White is better" : "about equal",
      ),
      h("p", { class: "pv", id: "engine-pv" }, h("span", { class: "label" }, "Best line: "), data.pv.join(" ")),
      h(
        "p",
        { class: "hint", id: "engine-depth" },
        `depth ${data.depth ?? "?"} · ${formatCount(data.nodes)} nodes${data.nps ? ` · ${formatCount(data.nps)} n/s` : ""}${msg.type === "done" ? " · done" : ""}`,
      ),
    );
    this.bestButton.disabled = !data.pv.length;
  }

  playBest() {
    if (!this.lastInfo || !this.lastInfo.pv.length) return;
    const text = this.lastInfo.pv[0];
    const info = this.infos.get(this.ply);
    const move = info && findMove(info.legal_moves, text);
    if (move) this.userMove(move);
  }

  // ---- game review --------------------------------------------------------------------

  async review() {
    if (this.reviewing) {
      this.reviewing = false;
      return;
    }
    this.reviewing = true;
    this.reviewButton.textContent = "Stop review";
    const seconds = Number(this.reviewTime.value) || 0.3;
    const socket = await openSocket("/ws/analysis").catch((err) => {
      this.showError(`Engine: ${err.message}`);
      return null;
    });
    if (!socket) {
      this.reviewing = false;
      this.reviewButton.textContent = "Evaluate the game";
      return;
    }
    const lineAtStart = this.line.join(" ");
    try {
      for (let k = 0; k <= this.line.length && this.reviewing; k++) {
        if (this.line.join(" ") !== lineAtStart) break;
        if (this.evals[k] !== undefined) continue;
        this.reviewStatus.textContent = `Evaluating position ${k} of ${this.line.length}…`;
        const info = await this.info(k);
        const turn = info.turn || parseFen(info.fen).turn;
        let score;
        if (info.outcome) {
          // Decided by the rules (R16, R18, R19): no search needed.
          const w = info.outcome.winner;
          score = w === null || w === undefined ? 0 : w === turn ? WIN : -WIN;
        } else if (!(info.legal_moves || []).length) {
          score = -WIN; // no move: the side to move has lost (R16)
        } else {
          const done = await analyseOnce(socket, this.startFen, this.line.slice(0, k), this.rules, seconds);
          score = clampScore(done.score ?? 0, done.mate_in);
        }
        this.evals[k] = blackView(score, turn);
        this.renderReview();
      }
      this.reviewStatus.textContent = this.reviewing ? "Review done." : "Review stopped.";
      announce(this.reviewStatus.textContent);
    } catch (err) {
      this.showError(`Review: ${err.message}`);
    } finally {
      socket.close();
      this.reviewing = false;
      this.reviewButton.textContent = "Evaluate the game";
    }
  }

  mistakePlies() {
    const out = [];
    const threshold = Number(this.threshold.value) || 80;
    for (let k = 1; k <= this.line.length; k++) {
      const before = this.evals[k - 1];
      const after = this.evals[k];
      if (before === undefined || after === undefined) continue;
      const mover = this.turnAt(k - 1);
      const sign = mover === "black" ? 1 : -1;
      const drop = (before - after) * sign;
      if (drop >= threshold) out.push({ ply: k, drop, mover });
    }
    return out;
  }

  renderReview() {
    const n = this.line.length;
    const known = this.evals.filter((v) => v !== undefined).length;
    if (!known) {
      this.chart.replaceChildren();
      this.mistakes.replaceChildren();
      this.renderMoves();
      return;
    }
    const W = 600;
    const H = 160;
    const x = (k) => (n === 0 ? W / 2 : (k / n) * W);
    const y = (v) => H / 2 - (Math.max(-CLAMP, Math.min(CLAMP, v)) / CLAMP) * (H / 2 - 6);
    const points = [];
    for (let k = 0; k <= n; k++) if (this.evals[k] !== undefined) points.push(`${x(k).toFixed(1)},${y(this.evals[k]).toFixed(1)}`);
    const mistakes = this.mistakePlies();
    const chart = svg(
      "svg",
      { viewBox: `0 0 ${W} ${H}`, class: "eval-chart", role: "img", "aria-label": `Evaluation graph from Black's side over ${n} plies, ${mistakes.length} mistakes marked` },
      svg("rect", { class: "white-zone", x: 0, y: H / 2, width: W, height: H / 2 }),
      svg("line", { class: "axis", x1: 0, y1: H / 2, x2: W, y2: H / 2 }),
      points.length > 1 ? svg("polygon", { class: "area", points: `${points[0].split(",")[0]},${H / 2} ${points.join(" ")} ${points[points.length - 1].split(",")[0]},${H / 2}` }) : null,
      svg("polyline", { class: "line", points: points.join(" ") }),
      svg("line", { class: "cursor", x1: x(this.ply), y1: 0, x2: x(this.ply), y2: H }),
      ...mistakes.map((m) =>
        svg("circle", { class: `mistake ${m.mover}`, cx: x(m.ply), cy: y(this.evals[m.ply]), r: 5 }, svg("title", {}, `${this.line[m.ply - 1]}: ${(m.drop / 100).toFixed(2)} lost`)),
      ),
      svg("text", { x: 4, y: 14, class: "chart-label" }, "Black"),
      svg("text", { x: 4, y: H - 5, class: "chart-label" }, "White"),
    );
    chart.addEventListener("click", (e) => {
      const rect = chart.getBoundingClientRect();
      const k = Math.round(((e.clientX - rect.left) / rect.width) * n);
      this.go(k);
    });
    this.chart.replaceChildren(chart);
    this.mistakes.replaceChildren(
      ...mistakes.map((m) =>
        h(
          "li",
          {},
          h(
            "button",
            { type: "button", class: "link", onclick: () => this.go(m.ply) },
            `${moveNumber(m.ply, this.startFen)} ${this.line[m.ply - 1]}?`,
          ),
          ` ${COLOR_NAME[m.mover]} lost ${(m.drop / 100).toFixed(2)}`,
        ),
      ),
    );
    if (!mistakes.length && known > n) this.mistakes.replaceChildren(h("li", {}, "No mistakes above the threshold."));
    this.renderMoves();
  }

  renderMoves() {
    const rows = moveRows(this.line, fenTurn(this.startFen));
    const bad = new Set(this.mistakePlies().map((m) => m.ply));
    const cell = (entry) => {
      if (!entry) return h("span", { class: "mv empty" }, entry === null ? "…" : "");
      const cls = ["mv"];
      if (entry.ply === this.ply) cls.push("current");
      if (bad.has(entry.ply)) cls.push("mistake");
      return h(
        "button",
        { type: "button", class: cls.join(" "), "data-ply": entry.ply, "aria-current": entry.ply === this.ply ? "true" : null, onclick: () => this.go(entry.ply) },
        entry.text + (bad.has(entry.ply) ? "?" : ""),
      );
    };
    this.moveList.replaceChildren(
      ...rows.map((row) => h("li", { value: row.number }, h("span", { class: "no" }, `${row.number}.`), cell(row.black), cell(row.white))),
    );
    if (!rows.length) this.moveList.append(h("li", { class: "empty-list" }, "No moves yet: play on the board, or set up a game below."));
    const currentEl = this.moveList.querySelector(".current");
    if (currentEl) keepInView(this.moveList, currentEl);
  }
}

function moveNumber(ply, startFen) {
  const offset = fenTurn(startFen) === "white" ? 1 : 0;
  const n = Math.floor((ply - 1 + offset) / 2) + 1;
  return (ply - 1 + offset) % 2 === 0 ? `${n}.` : `${n}...`;
}

function formatCount(n) {
  if (n === undefined || n === null) return "?";
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

function findMove(legal, text) {
  if (!legal) return null;
  const exact = legal.find((m) => m.notation === text);
  if (exact) return exact;
  const path = String(text).split(/[-x]/).map(Number);
  return legal.find((m) => m.path.length === path.length && m.path.every((s, i) => s === path[i])) || null;
}

export function summaryText(g) {
  const who = g.tags && (g.tags.Black || g.tags.White) ? `${g.tags.Black || "?"} – ${g.tags.White || "?"}` : modeName(g);
  const result = g.result || (g.status === "running" ? "running" : "");
  const moves = g.ply ?? (Array.isArray(g.moves) ? g.moves.length : g.moves);
  const seconds = g.updated ?? g.created;
  const date = typeof seconds === "number" ? new Date(seconds * 1000) : null;
  const when = date && !Number.isNaN(date.getTime()) ? ` · ${date.toLocaleString([], { dateStyle: "short", timeStyle: "short" })}` : "";
  return `${who} · ${result}${moves !== undefined ? ` · ${moves} ${moves === 1 ? "ply" : "plies"}` : ""}${when}`;
}

function modeName(g) {
  if (g.mode === "engine") return `vs engine (level ${g.level ?? "?"})`;
  if (g.mode === "local") return "two players";
  if (g.mode === "online") return "online";
  if (g.mode === "import" || g.mode === "imported") return "imported";
  return g.mode || "game";
}

function openSocket(path) {
  return new Promise((resolve, reject) => {
    const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${window.location.host}${path}`);
    ws.addEventListener("open", () => resolve(ws));
    ws.addEventListener("error", () => reject(new Error("cannot connect to the engine")));
  });
}

let reviewId = 0;

function analyseOnce(ws, fen, moves, rules, seconds) {
  const id = `review-${++reviewId}`;
  return new Promise((resolve, reject) => {
    let last = null;
    const timer = window.setTimeout(() => {
      ws.removeEventListener("message", onMessage);
      if (last) resolve(last);
      else reject(new Error("the engine did not answer"));
    }, (seconds + 10) * 1000);
    const onMessage = (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.id !== undefined && msg.id !== null && msg.id !== id) return; // an earlier request's
      if (msg.type === "info") last = { ...last, ...msg };
      if (msg.type === "done") {
        window.clearTimeout(timer);
        ws.removeEventListener("message", onMessage);
        resolve({ ...last, ...msg });
      }
      if (msg.type === "error") {
        window.clearTimeout(timer);
        ws.removeEventListener("message", onMessage);
        reject(new Error(msg.error ? msg.error.message : "engine error"));
      }
    };
    ws.addEventListener("message", onMessage);
    ws.send(JSON.stringify({ type: "analyse", id, fen, moves, rules: rules || undefined, time: seconds }));
  });
}

export async function render(root) {
  const page = new AnalysisPage(root);
  await page.start();
}
