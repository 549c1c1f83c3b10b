// Home page: the new-game form (mode, level, colour, §9 rule options, clock, start FEN).

/**
 * @import { Color, CreateGame, GameSummary, PlayNow, RequestLimits, RulesInfo,
 *   TimeControlInfo } from "./types.js"
 */
/** @import { RuleForm } from "./rules.js" */

import { api, errorText, parseError, request } from "./api.js";
import { ruleFields, ruleOptions } from "./rules.js";
import { listMyGames } from "./mygames.js";
import { formatNumber, t, tn } from "./i18n.js";
import { announce, h, inviteKey, miniBoard, storageSet, tokenKey } from "./util.js";

/** How often the list of games being played now is asked for again. */
const WATCH_POLL_MS = 10_000;

/** The level the form offers first (within the server's levels): a gentle start. */
const FIRST_LEVEL = 3;

/**
 * What is wrong with a clock in the form's units (minutes each, seconds added), or
 * null; the largest values are the server's (`limits`, when known).
 * @param {number} minutes
 * @param {number} increment
 * @param {RequestLimits | null} limits
 * @returns {{field: "minutes" | "increment", text: string} | null}
 */
export function clockProblem(minutes, increment, limits) {
  const maxMinutes = limits ? limits.clock_initial_seconds / 60 : Infinity;
  const maxIncrement = limits ? limits.clock_increment_seconds : Infinity;
  // the numbers as typed in the form (1440, not 1,440), with the language's decimal sign
  const number = (/** @type {number} */ x) => formatNumber(x, { useGrouping: false, maximumFractionDigits: 2 });
  if (!(minutes > 0)) return { field: "minutes", text: t("The clock needs a time of more than 0 minutes each.") };
  if (minutes > maxMinutes) {
    const text = tn(
      "The clock is at most {minutes} minutes ({n} hour) each, not {value}.",
      "The clock is at most {minutes} minutes ({n} hours) each, not {value}.",
      maxMinutes / 60,
      { minutes: number(maxMinutes), value: number(minutes) },
    );
    return { field: "minutes", text };
  }
  if (!(increment >= 0)) return { field: "increment", text: t("The increment is 0 seconds or more.") };
  if (increment > maxIncrement) {
    const text = tn(
      "The increment is at most {seconds} seconds ({n} minute) a move, not {value}.",
      "The increment is at most {seconds} seconds ({n} minutes) a move, not {value}.",
      maxIncrement / 60,
      { seconds: number(maxIncrement), value: number(increment) },
    );
    return { field: "increment", text };
  }
  return null;
}

/**
 * @param {string} label
 * @param {HTMLElement} control
 * @param {string | null} [hint]
 * @returns {HTMLLabelElement}
 */
function field(label, control, hint = null) {
  return h("label", { class: "field" }, h("span", { class: "label" }, label), control, hint && h("small", {}, hint));
}

/**
 * @param {string} name
 * @param {string} value
 * @param {string} text
 * @param {boolean} [checked]
 * @returns {HTMLLabelElement}
 */
function radio(name, value, text, checked = false) {
  return h(
    "label",
    { class: "choice" },
    h("input", { type: "radio", name, value, checked }),
    h("span", {}, text),
  );
}

/**
 * The engine's levels, from the server's (without them: its default level alone).
 * @param {RequestLimits | null} limits
 * @returns {HTMLSelectElement}
 */
function levelSelect(limits) {
  if (!limits) return h("select", { name: "level", id: "level" }, h("option", { value: "" }, t("the server's default")));
  const { minimum, maximum } = limits.level;
  const first = Math.min(maximum, Math.max(minimum, FIRST_LEVEL));
  const words = (/** @type {number} */ n) =>
    n === minimum ? t("{level} (beginner)", { level: n }) : n === maximum ? t("{level} (full strength)", { level: n }) : String(n);
  return h(
    "select",
    { name: "level", id: "level" },
    Array.from({ length: maximum - minimum + 1 }, (_, i) => minimum + i).map((n) =>
      h("option", { value: n, selected: n === first }, words(n)),
    ),
  );
}

/**
 * A colour choice, Black first.
 * @param {string} name
 * @param {string} id
 * @returns {HTMLSelectElement}
 */
function colorSelect(name, id) {
  return h(
    "select",
    { name, id },
    h("option", { value: "black" }, t("Black (moves first)")),
    h("option", { value: "white" }, t("White")),
    h("option", { value: "random" }, t("Random")),
  );
}

/** The "More" card: the other pages and the rules in a sentence. */
function moreLinks() {
  return h(
    "section",
    { class: "card home-links" },
    h("h2", {}, t("More")),
    h(
      "ul",
      {},
      h("li", {}, h("a", { href: "/analysis" }, t("Analysis board")), " — ", t("set up a position or a PDN game and let the engine look.")),
      h("li", {}, h("a", { href: "/archive" }, t("Archive")), " — ", t("running and finished games, PDN import and export.")),
    ),
    h(
      "p",
      { class: "hint" },
      t("American pool checkers: men capture backward too, kings fly, captures are compulsory but the choice is free. Black moves first."),
    ),
  );
}

/**
 * The new-game form: its controls, the request they make, and the server's refusals
 * shown next to the field they concern.
 */
class NewGameForm {
  /**
   * @param {RuleForm | null} rules the §9 options (null: not loaded, the APCA rules)
   * @param {string} rulesError why the options are missing
   * @param {RequestLimits | null} limits the server's bounds of a game
   */
  constructor(rules, rulesError, limits) {
    this.rules = rules;
    this.rulesError = rulesError;
    this.limits = limits;
    this.level = levelSelect(limits);
    this.color = colorSelect("color", "color");
    this.onlineColor = colorSelect("online_color", "online-color");
    this.useClock = h("input", { type: "checkbox", name: "use_clock" });
    // The server's bounds (schemas.MAX_CLOCK_S, MAX_INCREMENT_S), in the form's units.
    this.minutes = h("input", { type: "number", name: "minutes", min: 0.5, max: limits ? limits.clock_initial_seconds / 60 : null, step: 0.5, value: 5, inputmode: "decimal" });
    this.increment = h("input", { type: "number", name: "increment", min: 0, max: limits ? limits.clock_increment_seconds : null, step: 1, value: 3, inputmode: "numeric" });
    this.fen = h("input", { type: "text", name: "fen", placeholder: t("e.g. {fen}", { fen: "W:WK4,19:B11,K30" }), autocomplete: "off", autocapitalize: "characters", autocorrect: "off", spellcheck: "false" });
    // Read out through the assertive live region (announce), not a second alert role.
    this.error = h("p", { class: "error", id: "new-game-error" });
    this.submit = h("button", { type: "submit", class: "primary" }, t("Start game"));
    const levels = limits ? t("Level ({min}-{max})", { min: limits.level.minimum, max: limits.level.maximum }) : t("Level (default)");
    this.engineOptions = h("fieldset", { class: "engine-only" }, h("legend", {}, t("Engine")), field(levels, this.level), field(t("Your colour"), this.color));
    this.onlineOptions = h(
      "fieldset",
      { class: "online-only", hidden: true },
      h("legend", {}, t("Online")),
      field(t("Your colour"), this.onlineColor),
      h("p", { class: "hint" }, t("You get an invitation link to send to your opponent.")),
    );
    this.clockBox = h("div", { class: "clock-fields", hidden: true }, field(t("Minutes each"), this.minutes), field(t("Increment (s)"), this.increment));
    this.useClock.addEventListener("change", () => {
      this.clockBox.hidden = !this.useClock.checked;
    });
    this.form = this.build();
  }

  /** @returns {HTMLFormElement} */
  build() {
    const form = h(
      "form",
      { class: "new-game card", id: "new-game", novalidate: true },
      h("h1", {}, t("New game")),
      h(
        "fieldset",
        { class: "modes" },
        h("legend", {}, t("Opponent")),
        radio("mode", "engine", t("The engine"), true),
        radio("mode", "local", t("Two players on this screen")),
        radio("mode", "online", t("A friend online (invitation link)")),
      ),
      this.engineOptions,
      this.onlineOptions,
      h("details", { class: "rules" }, h("summary", {}, t("Rule options")), this.rules ? this.rules.fields : h("p", { class: "hint" }, this.rulesError)),
      h("fieldset", {}, h("legend", {}, t("Clock")), h("label", { class: "choice" }, this.useClock, h("span", {}, t("Play with a clock"))), this.clockBox),
      h("details", { class: "fen" }, h("summary", {}, t("Start position (FEN, optional)")), field("FEN", this.fen, t("Empty: the standard start."))),
      this.error,
      h("div", { class: "actions" }, this.submit),
    );
    for (const input of form.querySelectorAll('input[name="mode"]')) input.addEventListener("change", () => this.syncMode());
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.start();
    });
    return form;
  }

  /** The chosen opponent: engine, local or online. */
  mode() {
    const checked = this.form.querySelector('input[name="mode"]:checked');
    const mode = checked instanceof HTMLInputElement ? checked.value : "engine";
    return mode === "local" || mode === "online" ? mode : "engine";
  }

  /** Show the options of the chosen opponent only. */
  syncMode() {
    const mode = this.mode();
    this.engineOptions.hidden = mode !== "engine";
    this.onlineOptions.hidden = mode !== "online";
  }

  /**
   * The chosen clock in seconds (null: none); undefined when it is out of bounds
   * (said on the page, the focus on its field).
   * @returns {TimeControlInfo | null | undefined}
   */
  readClock() {
    if (!this.useClock.checked) return null;
    const inc = Number(this.increment.value);
    const problem = clockProblem(Number(this.minutes.value), inc, this.limits);
    if (problem) {
      this.error.textContent = problem.text;
      announce(problem.text, true);
      (problem.field === "minutes" ? this.minutes : this.increment).focus();
      return undefined;
    }
    return { initial: Math.round(Number(this.minutes.value) * 60), increment: inc };
  }

  /**
   * The new game as POST /api/games takes it (undefined: the clock is refused).
   * @returns {CreateGame | undefined}
   */
  request() {
    const mode = this.mode();
    const clock = this.readClock();
    if (clock === undefined) return undefined;
    const chosen = mode === "online" ? this.onlineColor.value : this.color.value;
    /** @type {Color} */
    const color = chosen === "black" || chosen === "white" ? chosen : Math.random() < 0.5 ? "black" : "white";
    return {
      mode,
      rules: this.rules ? this.rules.read() : {},
      fen: this.fen.value.trim() || null,
      level: this.level.value ? Number(this.level.value) : null,
      color: mode === "local" ? "black" : color,
      clock,
    };
  }

  /** Create the game (the server checks the options and the FEN, R5) and go to it. */
  async start() {
    this.error.textContent = "";
    const body = this.request();
    if (!body) return;
    this.submit.disabled = true;
    this.submit.textContent = t("Starting…");
    try {
      const created = await api.createGame(body);
      const id = created.game.id;
      storageSet(tokenKey(id), created.token);
      if (created.invite) storageSet(inviteKey(id), created.invite);
      window.location.assign(`/play/${encodeURIComponent(id)}`);
    } catch (err) {
      this.showRefusal(errorText(err), Boolean(body.fen));
    }
  }

  /**
   * The server refused the game: say why, and go back to the field it names.
   * @param {string} message
   * @param {boolean} hasFen
   */
  showRefusal(message, hasFen) {
    this.error.textContent = message;
    announce(t("Could not start the game: {message}", { message }), true);
    const named = this.rules && Object.keys(this.rules.controls).find((name) => message.includes(name));
    if (this.rules && named) {
      const control = this.rules.controls[named].control;
      const details = control.closest("details");
      if (details) details.open = true;
      control.focus();
    } else if (hasFen && /FEN|position/i.test(message)) {
      this.fen.focus();
    }
    this.submit.disabled = false;
    this.submit.textContent = t("Start game");
  }
}

/**
 * @param {HTMLElement} root
 */
export async function render(root) {
  // The §9 options, their words and defaults come from the rules library (GET /api/rules),
  // with the server's limits of a game.
  /** @type {RulesInfo | null} */
  let spec = null;
  let rulesError = "";
  try {
    spec = await ruleOptions();
  } catch (err) {
    rulesError = t("The rule options cannot be loaded ({error}): the game uses the APCA rules.", { error: errorText(err) });
  }
  const form = new NewGameForm(spec && ruleFields(spec), rulesError, spec && spec.limits);
  // a position sent here from the board editor (/?fen=…) is the new game's start
  const sent = new URLSearchParams(window.location.search).get("fen");
  if (sent) {
    form.fen.value = sent;
    const details = form.fen.closest("details");
    if (details) details.open = true;
  }
  const mine = h("section", { class: "card my-games", id: "my-games", hidden: true }, h("h2", {}, t("Your games")));
  const watch = h(
    "section",
    { class: "card watch", id: "watch", "aria-labelledby": "watch-title" },
    h("h2", { id: "watch-title" }, t("Watch")),
    h("p", { class: "hint", id: "watch-empty" }, t("No online game is being played right now.")),
    h("ul", { id: "watch-games", "aria-live": "polite" }),
  );
  const daily = h("section", { class: "card daily-puzzle", id: "daily-puzzle", "aria-labelledby": "daily-title", hidden: true });
  root.replaceChildren(h("div", { class: "home" }, form.form, h("div", {}, quickPairing(), mine, daily, watch, moreLinks())));
  form.syncMode();
  window.setTimeout(() => {
    showDailyPuzzle(daily);
    checkEngine(form.engineOptions);
    // your own games are under "Your games", not under "Watch"
    listMyGames(mine).then((yours) => watchGames(watch, yours));
  }, 0);
}

/**
 * The puzzle of the day: its position on a small board and a link to solve it.
 * @param {HTMLElement} section
 */
async function showDailyPuzzle(section) {
  try {
    /** @type {{id: string, fen: string, goal_text: string}} */
    const puzzle = await request("GET", "/api/puzzles/daily");
    const info = await api.position(puzzle.fen, [], null);
    const href = `/puzzles/${encodeURIComponent(puzzle.id)}`;
    // the goal is the server's words (already in the page's language)
    const goal = info.turn === "black" ? t("Black to play. {goal}.", { goal: puzzle.goal_text }) : t("White to play. {goal}.", { goal: puzzle.goal_text });
    section.replaceChildren(
      h("h2", { id: "daily-title" }, t("Puzzle of the day")),
      h("a", { href, "aria-label": t("Solve the puzzle of the day") }, miniBoard(info.board, { flipped: info.turn === "black", label: t("The puzzle's position") })),
      h("p", {}, goal, " ", h("a", { href, class: "button primary" }, t("Solve it"))),
    );
    section.hidden = false;
  } catch {
    section.hidden = true; // no puzzles on this server: the card is not shown
  }
}

/**
 * Say so on the form when the server has no engine.
 * @param {HTMLElement} engineOptions
 */
async function checkEngine(engineOptions) {
  try {
    const health = await api.health();
    if (health && health.engine === false) {
      engineOptions.append(
        h("p", { class: "error", id: "engine-missing" }, t("The engine is not available on this server: play a friend, or build the native core.")),
      );
    }
  } catch {
    /* the form still works; the server answers for itself */
  }
}

/**
 * Online games being played now (both seats taken), for anyone to watch; asked for
 * again every few seconds while the page is visible; the viewer's own are left out.
 * @param {HTMLElement} box
 * @param {Set<string>} [yours] the ids of the viewer's games
 */
async function watchGames(box, yours = new Set()) {
  const list = box.querySelector("#watch-games");
  const empty = box.querySelector("#watch-empty");
  if (!(list instanceof HTMLElement && empty instanceof HTMLElement)) return; // render() made both
  const refresh = async () => {
    if (document.hidden) return;
    /** @type {GameSummary[]} */
    let games;
    try {
      games = (await api.listGames("running", 20, 0, "online")).games || [];
    } catch {
      return; /* the list stays as it was */
    }
    const playing = games.filter((g) => g.seats && g.seats.black && g.seats.white && !yours.has(g.id));
    list.replaceChildren(
      ...playing.map((g) => {
        const tags = g.tags || {};
        const who = tags.Black || tags.White ? `${tags.Black || "?"} – ${tags.White || "?"}` : t("Online game");
        return h(
          "li",
          { "data-game": g.id },
          h("a", { href: `/play/${encodeURIComponent(g.id)}`, "aria-label": t("Watch game {id}", { id: g.id }) }, t("Watch")),
          ` ${who}${g.clock ? ` · ${clockText(g.clock)}` : ""} · `,
          g.moves_count ? tn("{n} move", "{n} moves", g.moves_count) : t("no move yet"),
        );
      }),
    );
    empty.hidden = playing.length > 0;
    box.dataset.loaded = "true";
  };
  await refresh();
  window.setInterval(refresh, WATCH_POLL_MS);
  document.addEventListener("visibilitychange", refresh);
}

/**
 * A time control as players say it: "5+3" (minutes + seconds a move), "0.5+0".
 * @param {TimeControlInfo} clock
 * @returns {string}
 */
export function clockText(clock) {
  return `${Math.round((clock.initial / 60) * 100) / 100}+${clock.increment}`;
}

/** The quick pairing grid's clocks, minutes + seconds a move, as on lichess. */
const QUICK = [[1, 0], [3, 0], [3, 2], [5, 3], [10, 0], [10, 5], [15, 10], [30, 0], [30, 20]];

/**
 * Quick pairing: a clock pairs with the oldest matching seek of the lobby or posts a
 * rated one (then the lobby shows it until someone takes it). Signed-out visitors are
 * asked to sign in first, and come back here.
 * @returns {HTMLElement}
 */
function quickPairing() {
  const note = h("p", { class: "error", id: "quick-error", role: "alert" });
  const pair = async (/** @type {Record<string, number>} */ clock) => {
    note.textContent = "";
    /** @type {{account: {csrf_token: string} | null}} */
    const session = await request("GET", "/api/session");
    if (!session.account) {
      window.location.assign("/account?next=%2F");
      return;
    }
    const answer = await fetch("/api/seeks/play-now", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": session.account.csrf_token },
      body: JSON.stringify({ clock, rated: true, color: "random" }),
    });
    if (!answer.ok) {
      note.textContent = errorText(await parseError(answer));
      return;
    }
    /** @type {PlayNow} */
    const got = await answer.json();
    window.location.assign(got.game ? `/play/${encodeURIComponent(got.game.id)}` : "/lobby");
  };
  // data-clock: the clock as players write it ("3+2", "3 days"), the same in every language
  const button = (/** @type {string} */ key, /** @type {string} */ label, /** @type {Record<string, number>} */ clock) =>
    h("button", { type: "button", class: "quick", "data-clock": key, onclick: () => pair(clock).catch((err) => { note.textContent = errorText(err); }) }, label);
  return h(
    "section",
    { class: "card quick-pairing", id: "quick-pairing", "aria-labelledby": "quick-title" },
    h("h2", { id: "quick-title" }, t("Quick pairing")),
    h("p", { class: "hint" }, t("A rated game: the first player waiting for the same clock, or yours waits in the lobby.")),
    h(
      "div",
      { class: "quick-grid", role: "group", "aria-label": t("Clocks") },
      ...QUICK.map(([m, i]) => button(`${m}+${i}`, `${m}+${i}`, { initial: m * 60, increment: i })),
      button("3 days", tn("{n} day", "{n} days", 3), { days: 3 }),
    ),
    note,
  );
}
