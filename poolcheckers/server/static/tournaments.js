// Tournaments: the list of events (upcoming, running, finished) and the form that
// makes one. Round robins of one- or two-game matches (the APCA way), Swiss and arenas.

/** @import { TournamentSummary } from "./types.js" */

import { errorText, request } from "./api.js";
import { clockText, currentAccount, send } from "./community.js";
import { h } from "./util.js";

export const SYSTEM_NAMES = {
  round_robin: "Round robin",
  swiss: "Swiss",
  arena: "Arena",
};

/**
 * What an event is, in a line: "Round robin · 10+5 rapid · 2 games a pairing · rated".
 * @param {TournamentSummary} t
 * @returns {string}
 */
export function describe(t) {
  const parts = [SYSTEM_NAMES[t.system], `${clockText(t.clock)} ${t.category}`];
  if (t.system === "swiss") parts.push(`${t.rounds} rounds`);
  if (t.system === "arena") parts.push(`${t.duration_minutes} minutes`);
  if (t.games_per_pairing === 2) parts.push("2 games a pairing, colours swapped");
  if (t.double) parts.push("double round robin");
  parts.push(t.rated ? "rated" : "casual");
  if (t.private) parts.push("club event (password)");
  return parts.join(" · ");
}

/**
 * @param {TournamentSummary} t
 * @returns {HTMLElement}
 */
function eventItem(t) {
  const when =
    t.status === "created"
      ? t.starts_at
        ? `starts ${new Date(t.starts_at * 1000).toLocaleString()}`
        : "starts when its creator starts it"
      : t.status === "running"
        ? t.system === "arena"
          ? "running"
          : `round ${t.round}`
        : "finished";
  return h(
    "li",
    { dataset: { id: t.id } },
    h("a", { href: `/tournaments/${encodeURIComponent(t.id)}` }, t.name),
    ` — ${describe(t)} · ${t.players} player${t.players === 1 ? "" : "s"} · ${when}`,
  );
}

/**
 * @param {HTMLElement} root
 */
export async function render(root) {
  const [upcoming, running, finished] = await Promise.all(
    ["created", "running", "finished"].map(
      (s) => /** @type {Promise<TournamentSummary[]>} */ (request("GET", `/api/tournaments?status=${s}`)),
    ),
  );
  const account = await currentAccount();
  /** @type {[string, TournamentSummary[]][]} */
  const sections = [
    ["Running", running],
    ["Upcoming", upcoming],
    ["Finished", finished],
  ];
  root.replaceChildren(
    h("h1", {}, "Tournaments"),
    h(
      "p",
      {},
      "Round robins of two-game matches as in APCA divisions, Swiss events and arenas, all on the APCA rules. " +
        "Every game is an ordinary game of the site, with its clock, its PDN and your rating.",
    ),
    ...(account
      ? [createForm(), importForm()]
      : [h("p", {}, h("a", { href: "/account" }, "Sign in"), " to make or join an event.")]),
    ...sections.map(([title, list]) =>
      h(
        "section",
        { class: "card", "aria-label": title },
        h("h2", {}, title),
        list.length ? h("ul", { class: "events" }, ...list.map(eventItem)) : h("p", {}, "None."),
      ),
    ),
  );
}

/**
 * A labelled field.
 * @param {string} label
 * @param {HTMLElement} input
 * @returns {HTMLElement}
 */
function field(label, input) {
  return h("label", { class: "field" }, `${label} `, input);
}

/** @returns {HTMLElement} */
function createForm() {
  const name = h("input", { name: "name", required: true, maxlength: "60", value: "Club round robin" });
  const system = h(
    "select",
    { name: "system" },
    ...Object.entries(SYSTEM_NAMES).map(([value, text]) => h("option", { value }, text)),
  );
  const minutes = h("input", { name: "minutes", type: "number", min: "0.25", step: "0.25", value: "10" });
  const increment = h("input", { name: "increment", type: "number", min: "0", max: "60", value: "5" });
  const days = h("input", { name: "days", type: "number", min: "0", max: "14", value: "0" });
  const games = h("select", { name: "games" }, h("option", { value: "2" }, "2, colours swapped"), h("option", { value: "1" }, "1"));
  const double = h("input", { name: "double", type: "checkbox" });
  const rounds = h("input", { name: "rounds", type: "number", min: "1", max: "20", value: "5" });
  const duration = h("input", { name: "duration", type: "number", min: "10", max: "1440", value: "60" });
  const rated = h("input", { name: "rated", type: "checkbox", checked: true });
  const maxPlayers = h("input", { name: "max_players", type: "number", min: "2", max: "1000" });
  const startsAt = h("input", { name: "starts_at", type: "datetime-local" });
  const password = h("input", { name: "password", type: "text", maxlength: "64", autocomplete: "off" });
  const roundMinutes = h("input", { name: "round_minutes", type: "number", min: "1", max: "20160" });
  const ratingLow = h("input", { name: "rating_low", type: "number", min: "400", max: "2900" });
  const ratingHigh = h("input", { name: "rating_high", type: "number", min: "400", max: "2900" });
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "card", "aria-label": "New tournament" },
    h("h2", {}, "New tournament"),
    field("Name", name),
    field("System", system),
    field("Minutes each", minutes),
    field("Increment (seconds)", increment),
    field("Or days a move (correspondence)", days),
    field("Games a pairing", games),
    field("Double round robin", double),
    field("Rounds (Swiss)", rounds),
    field("Duration in minutes (arena)", duration),
    field("Rated", rated),
    field("Most players", maxPlayers),
    field("Starts at (optional)", startsAt),
    field("Password for a club event (optional)", password),
    field("Minutes between round starts (optional)", roundMinutes),
    field("Lowest rating (optional)", ratingLow),
    field("Highest rating (optional)", ratingHigh),
    h("button", { type: "submit" }, "Create"),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const kind = /** @type {"round_robin" | "swiss" | "arena"} */ (system.value);
    const clock = Number(days.value) > 0
      ? { days: Number(days.value) }
      : { initial: Math.round(Number(minutes.value) * 60), increment: Number(increment.value) };
    /** @type {Record<string, unknown>} */
    const body = { name: name.value, system: kind, clock, rated: rated.checked };
    if (kind !== "arena") body.games_per_pairing = Number(games.value);
    if (kind === "round_robin") body.double = double.checked;
    if (kind === "swiss") body.rounds = Number(rounds.value);
    if (kind === "arena") body.duration_minutes = Number(duration.value);
    if (maxPlayers.value) body.max_players = Number(maxPlayers.value);
    if (startsAt.value) body.starts_at = Math.round(new Date(startsAt.value).getTime() / 1000);
    if (password.value) body.password = password.value;
    if (roundMinutes.value && kind !== "arena") body.round_minutes = Number(roundMinutes.value);
    if (ratingLow.value || ratingHigh.value) body.rating_range = [Number(ratingLow.value || 400), Number(ratingHigh.value || 2900)];
    try {
      /** @type {TournamentSummary} */
      const made = await send("POST", "/api/tournaments", body);
      window.location.assign(`/tournaments/${encodeURIComponent(made.id)}`);
    } catch (err) {
      error.textContent = errorText(err);
    }
  });
  return form;
}

/**
 * A Swiss event begun elsewhere (a pairing program's FIDE TRF file, whose player
 * names are the players' usernames here): it goes on from its next round, or is
 * published when all its rounds are played.
 * @returns {HTMLElement}
 */
function importForm() {
  const file = h("input", { name: "trf", type: "file", accept: ".trf,.txt,text/plain", required: true });
  const minutes = h("input", { name: "minutes", type: "number", min: "0.25", step: "0.25", value: "10" });
  const increment = h("input", { name: "increment", type: "number", min: "0", max: "60", value: "5" });
  const rated = h("input", { name: "rated", type: "checkbox", checked: true });
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "card", "aria-label": "Import a Swiss event" },
    h("h2", {}, "Import a Swiss event"),
    h(
      "p",
      {},
      "From a FIDE TRF file of your pairing program, with each player's username as the name. " +
        "The rounds already played count; the site pairs the rest when you start it.",
    ),
    field("TRF file", file),
    field("Minutes each", minutes),
    field("Increment (seconds)", increment),
    field("Rated", rated),
    h("button", { type: "submit" }, "Import"),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = /** @type {HTMLInputElement} */ (file).files?.[0];
    if (!chosen) {
      error.textContent = "Choose a TRF file first.";
      return;
    }
    const body = {
      trf: await chosen.text(),
      clock: { initial: Math.round(Number(minutes.value) * 60), increment: Number(increment.value) },
      rated: rated.checked,
    };
    try {
      /** @type {TournamentSummary} */
      const made = await send("POST", "/api/tournaments/import", body);
      window.location.assign(`/tournaments/${encodeURIComponent(made.id)}`);
    } catch (err) {
      error.textContent = errorText(err);
    }
  });
  return form;
}
