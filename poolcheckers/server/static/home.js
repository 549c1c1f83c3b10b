// Home page: the new-game form (mode, level, colour, §9 rule options, clock, start FEN).

import { api, request } from "./api.js";
import { ruleFields, ruleOptions } from "./rules.js";
import { COLOR_NAME, announce, h, inviteKey, plural, storageSet, tokenKey } from "./util.js";

/** How often the list of games being played now is asked for again. */
const WATCH_POLL_MS = 10_000;

const MAX_MINUTES = 1440;
const MAX_INCREMENT = 3600;

/** What is wrong with a clock in the form's units (minutes each, seconds added), or null. */
export function clockProblem(minutes, increment) {
  if (!(minutes > 0)) return { field: "minutes", text: "The clock needs a time of more than 0 minutes each." };
  if (minutes > MAX_MINUTES) return { field: "minutes", text: `The clock is at most ${MAX_MINUTES} minutes (24 hours) each, not ${minutes}.` };
  if (!(increment >= 0)) return { field: "increment", text: "The increment is 0 seconds or more." };
  if (increment > MAX_INCREMENT) return { field: "increment", text: `The increment is at most ${MAX_INCREMENT} seconds (an hour) a move, not ${increment}.` };
  return null;
}

function field(label, control, hint = null) {
  return h("label", { class: "field" }, h("span", { class: "label" }, label), control, hint && h("small", {}, hint));
}

function radio(name, value, text, checked = false) {
  return h(
    "label",
    { class: "choice" },
    h("input", { type: "radio", name, value, checked }),
    h("span", {}, text),
  );
}

export async function render(root) {
  // The §9 options, their words and defaults come from the rules library (GET /api/rules).
  let rules = null;
  let rulesError = "";
  try {
    rules = ruleFields(await ruleOptions());
  } catch (err) {
    rulesError = `The rule options cannot be loaded (${err.message}): the game uses the APCA rules.`;
  }
  const levelSelect = h(
    "select",
    { name: "level", id: "level" },
    Array.from({ length: 10 }, (_, i) =>
      h("option", { value: i + 1, selected: i + 1 === 3 }, `${i + 1}${i === 0 ? " (beginner)" : i === 9 ? " (full strength)" : ""}`),
    ),
  );
  const colorSelect = h(
    "select",
    { name: "color", id: "color" },
    h("option", { value: "black" }, "Black (moves first)"),
    h("option", { value: "white" }, "White"),
    h("option", { value: "random" }, "Random"),
  );
  const useClock = h("input", { type: "checkbox", name: "use_clock" });
  // The server's limits (schemas.MAX_CLOCK_S, MAX_INCREMENT_S), in the form's units.
  const minutes = h("input", { type: "number", name: "minutes", min: 0.5, max: MAX_MINUTES, step: 0.5, value: 5, inputmode: "decimal" });
  const increment = h("input", { type: "number", name: "increment", min: 0, max: MAX_INCREMENT, step: 1, value: 3, inputmode: "numeric" });
  const fen = h("input", { type: "text", name: "fen", placeholder: "e.g. W:WK4,19:B11,K30", autocomplete: "off", autocapitalize: "characters", autocorrect: "off", spellcheck: "false" });
  // Read out through the assertive live region (announce), not a second alert role.
  const error = h("p", { class: "error", id: "new-game-error" });
  const submit = h("button", { type: "submit", class: "primary" }, "Start game");

  const engineOptions = h(
    "fieldset",
    { class: "engine-only" },
    h("legend", {}, "Engine"),
    field("Level (1-10)", levelSelect),
    field("Your colour", colorSelect),
  );
  const onlineOptions = h(
    "fieldset",
    { class: "online-only", hidden: true },
    h("legend", {}, "Online"),
    field("Your colour", colorSelect.cloneNode(true)),
    h("p", { class: "hint" }, "You get an invitation link to send to your opponent."),
  );
  const onlineColor = onlineOptions.querySelector("select");
  onlineColor.name = "online_color";
  onlineColor.id = "online-color";

  const clockBox = h("div", { class: "clock-fields", hidden: true }, field("Minutes each", minutes), field("Increment (s)", increment));
  useClock.addEventListener("change", () => {
    clockBox.hidden = !useClock.checked;
  });

  const form = h(
    "form",
    { class: "new-game card", id: "new-game", novalidate: true },
    h("h1", {}, "New game"),
    h(
      "fieldset",
      { class: "modes" },
      h("legend", {}, "Opponent"),
      radio("mode", "engine", "The engine", true),
      radio("mode", "local", "Two players on this screen"),
      radio("mode", "online", "A friend online (invitation link)"),
    ),
    engineOptions,
    onlineOptions,
    h(
      "details",
      { class: "rules" },
      h("summary", {}, "Rule options (§9)"),
      rules ? rules.fields : h("p", { class: "hint" }, rulesError),
    ),
    h(
      "fieldset",
      {},
      h("legend", {}, "Clock"),
      h("label", { class: "choice" }, useClock, h("span", {}, "Play with a clock")),
      clockBox,
    ),
    h("details", { class: "fen" }, h("summary", {}, "Start position (FEN, optional)"), field("FEN", fen, "Empty: the standard start (R3).")),
    error,
    h("div", { class: "actions" }, submit),
  );

  const modeInputs = form.querySelectorAll('input[name="mode"]');
  const syncMode = () => {
    const mode = form.querySelector('input[name="mode"]:checked').value;
    engineOptions.hidden = mode !== "engine";
    onlineOptions.hidden = mode !== "online";
  };
  for (const input of modeInputs) input.addEventListener("change", syncMode);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const mode = form.querySelector('input[name="mode"]:checked').value;
    // The server (the rules library) checks the options and the FEN (R5) and says what is wrong.
    const fenText = fen.value.trim();
    let color = mode === "online" ? onlineColor.value : colorSelect.value;
    if (color === "random") color = Math.random() < 0.5 ? "black" : "white";
    let clock = null;
    if (useClock.checked) {
      const initial = Math.round(Number(minutes.value) * 60);
      const inc = Number(increment.value);
      const problem = clockProblem(Number(minutes.value), inc);
      if (problem) {
        error.textContent = problem.text;
        announce(error.textContent, true);
        (problem.field === "minutes" ? minutes : increment).focus();
        return;
      }
      clock = { initial, increment: inc };
    }
    const body = {
      mode,
      rules: rules ? rules.read() : {},
      fen: fenText || null,
      level: Number(levelSelect.value),
      color: mode === "local" ? "black" : color,
      clock,
    };
    submit.disabled = true;
    submit.textContent = "Starting…";
    try {
      const created = await api.createGame(body);
      const id = created.game.id;
      storageSet(tokenKey(id), created.token);
      if (created.invite) storageSet(inviteKey(id), created.invite);
      window.location.assign(`/play/${encodeURIComponent(id)}`);
    } catch (err) {
      error.textContent = err.message;
      announce(`Could not start the game: ${err.message}`, true);
      // A refused start position or rule option: back to its field.
      const named = rules && Object.keys(rules.controls).find((name) => err.message.includes(name));
      if (named) {
        rules.controls[named].control.closest("details").open = true;
        rules.controls[named].control.focus();
      } else if (fenText && /FEN|position/i.test(err.message)) {
        fen.focus();
      }
      submit.disabled = false;
      submit.textContent = "Start game";
    }
  });

  const side = h(
    "section",
    { class: "card home-links" },
    h("h2", {}, "More"),
    h(
      "ul",
      {},
      h("li", {}, h("a", { href: "/analysis" }, "Analysis board"), " — set up a position or a PDN game and let the engine look."),
      h("li", {}, h("a", { href: "/archive" }, "Archive"), " — running and finished games, PDN import and export."),
    ),
    h(
      "p",
      { class: "hint" },
      "American pool checkers: men capture backward too, kings fly, captures are compulsory but the choice is free. Black moves first.",
    ),
  );

  const mine = h("section", { class: "card my-games", id: "my-games", hidden: true }, h("h2", {}, "Your games on this device"));
  const watch = h(
    "section",
    { class: "card watch", id: "watch", "aria-labelledby": "watch-title" },
    h("h2", { id: "watch-title" }, "Watch"),
    h("p", { class: "hint", id: "watch-empty" }, "No online game is being played right now."),
    h("ul", { id: "watch-games", "aria-live": "polite" }),
  );
  root.replaceChildren(h("div", { class: "home" }, form, h("div", {}, mine, watch, side)));
  syncMode();
  window.setTimeout(() => {
    checkEngine(engineOptions);
    listMyGames(mine);
    watchGames(watch);
  }, 0);
}

async function checkEngine(engineOptions) {
  try {
    const health = await request("GET", "/api/health");
    if (health && health.engine === false) {
      engineOptions.append(
        h("p", { class: "error", id: "engine-missing" }, "The engine is not available on this server: play a friend, or build the native core."),
      );
    }
  } catch {
    /* the form still works; the server answers for itself */
  }
}

/** Games this browser holds a seat in (seat tokens in localStorage), newest first. */
async function listMyGames(box) {
  const ids = [];
  try {
    for (let i = 0; i < window.localStorage.length; i++) {
      const key = window.localStorage.key(i);
      if (key && key.startsWith("poolcheckers.token.")) ids.push(key.slice("poolcheckers.token.".length));
    }
  } catch {
    return;
  }
  if (!ids.length) return;
  const states = await Promise.all(
    ids.map((id) => api.getGame(id, window.localStorage.getItem(tokenKey(id))).catch(() => null)),
  );
  const games = states
    .filter((g) => g && g.status === "running")
    .sort((a, b) => (b.version ?? 0) - (a.version ?? 0))
    .slice(0, 8);
  if (!games.length) return;
  box.hidden = false;
  box.append(
    h(
      "ul",
      {},
      ...games.map((g) => {
        const who = g.mode === "engine" ? `vs engine (level ${g.level ?? "?"})` : g.mode === "local" ? "two players" : "online";
        const waiting = g.mode === "online" && g.seats && !(g.seats.black && g.seats.white);
        const yours = g.your_color === g.turn || g.your_color === "both";
        const turn = waiting ? "waiting for your opponent to join" : `${COLOR_NAME[g.turn]} to move${yours && g.your_color !== "both" ? " (your turn)" : ""}`;
        return h("li", {}, h("a", { href: `/play/${encodeURIComponent(g.id)}` }, `${who}, ply ${g.ply}`), ` — ${turn}`);
      }),
    ),
  );
}

/** Online games being played now (both seats taken), for anyone to watch; asked for
 * again every few seconds while the page is visible. */
async function watchGames(box) {
  const list = box.querySelector("#watch-games");
  const empty = box.querySelector("#watch-empty");
  const refresh = async () => {
    if (document.hidden) return;
    let games;
    try {
      games = (await api.listGames("running", 20, 0, "online")).games || [];
    } catch {
      return; /* the list stays as it was */
    }
    const playing = games.filter((g) => g.seats && g.seats.black && g.seats.white);
    list.replaceChildren(
      ...playing.map((g) => {
        const tags = g.tags || {};
        const who = tags.Black || tags.White ? `${tags.Black || "?"} – ${tags.White || "?"}` : "Online game";
        return h(
          "li",
          { "data-game": g.id },
          h("a", { href: `/play/${encodeURIComponent(g.id)}`, "aria-label": `Watch game ${g.id}` }, "Watch"),
          ` ${who}${g.clock ? ` · ${clockText(g.clock)}` : ""} · ${g.moves_count ? plural(g.moves_count, "move") : "no move yet"}`,
        );
      }),
    );
    empty.hidden = playing.length > 0;
  };
  await refresh();
  window.setInterval(refresh, WATCH_POLL_MS);
  document.addEventListener("visibilitychange", refresh);
}

/** A time control as players say it: "5+3" (minutes + seconds a move), "0.5+0". */
export function clockText(clock) {
  return `${Math.round((clock.initial / 60) * 100) / 100}+${clock.increment}`;
}
