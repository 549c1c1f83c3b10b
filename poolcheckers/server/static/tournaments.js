// Tournaments: the list of events (upcoming, running, finished) and the form that
// makes one. Round robins of one- or two-game matches (the APCA way), Swiss and arenas.

/** @import { TournamentSummary } from "./types.js" */

import { errorText, request } from "./api.js";
import { categoryWord, clockText, currentAccount, send, withNodes } from "./community.js";
import { formatDate, t, tn } from "./i18n.js";
import { h } from "./util.js";

export const SYSTEM_NAMES = {
  round_robin: t("Round robin"),
  swiss: t("Swiss"),
  arena: t("Arena"),
};

/**
 * What an event is, in a line: "Round robin · 10+5 rapid · 2 games a pairing · rated".
 * @param {TournamentSummary} tour
 * @returns {string}
 */
export function describe(tour) {
  const parts = [SYSTEM_NAMES[tour.system], `${clockText(tour.clock)} ${categoryWord(tour.category)}`];
  if (tour.system === "swiss") parts.push(tn("{n} round", "{n} rounds", tour.rounds ?? 0));
  if (tour.system === "arena") parts.push(tn("{n} minute", "{n} minutes", tour.duration_minutes ?? 0));
  if (tour.games_per_pairing === 2) parts.push(t("2 games a pairing, colours swapped"));
  if (tour.double) parts.push(t("double round robin"));
  parts.push(tour.rated ? t("rated") : t("casual"));
  if (tour.private) parts.push(t("club event (password)"));
  return parts.join(" · ");
}

/**
 * @param {TournamentSummary} tour
 * @returns {HTMLElement}
 */
function eventItem(tour) {
  const when =
    tour.status === "created"
      ? tour.starts_at
        ? t("starts {date}", { date: formatDate(tour.starts_at * 1000) })
        : t("starts when its creator starts it")
      : tour.status === "running"
        ? tour.system === "arena"
          ? t("running")
          : t("round {round}", { round: tour.round })
        : t("finished");
  const players = tn("{n} player", "{n} players", tour.players);
  return h(
    "li",
    { dataset: { id: tour.id } },
    h("a", { href: `/tournaments/${encodeURIComponent(tour.id)}` }, tour.name),
    ` — ${describe(tour)} · ${players} · ${when}`,
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
    [t("Running"), running],
    [t("Upcoming"), upcoming],
    [t("Finished"), finished],
  ];
  root.replaceChildren(
    h("h1", {}, t("Tournaments")),
    h(
      "p",
      {},
      t(
        "Round robins of two-game matches as in APCA divisions, Swiss events and arenas, all on the APCA rules. Every game is an ordinary game of the site, with its clock, its PDN and your rating.",
      ),
    ),
    ...(account
      ? [createForm(), importForm()]
      : [h("p", {}, ...withNodes(t("{link} to make or join an event."), { link: h("a", { href: "/account" }, t("Sign in")) }))]),
    ...sections.map(([title, list]) =>
      h(
        "section",
        { class: "card", "aria-label": title },
        h("h2", {}, title),
        list.length ? h("ul", { class: "events" }, ...list.map(eventItem)) : h("p", {}, t("None.")),
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
  const name = h("input", { name: "name", required: true, maxlength: "60", value: t("Club round robin") });
  const system = h(
    "select",
    { name: "system" },
    ...Object.entries(SYSTEM_NAMES).map(([value, text]) => h("option", { value }, text)),
  );
  const minutes = h("input", { name: "minutes", type: "number", min: "0.25", step: "0.25", value: "10" });
  const increment = h("input", { name: "increment", type: "number", min: "0", max: "60", value: "5" });
  const days = h("input", { name: "days", type: "number", min: "0", max: "14", value: "0" });
  const games = h("select", { name: "games" }, h("option", { value: "2" }, t("2, colours swapped")), h("option", { value: "1" }, "1"));
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
    { class: "card", "aria-label": t("New tournament") },
    h("h2", {}, t("New tournament")),
    field(t("Name"), name),
    field(t("System"), system),
    field(t("Minutes each"), minutes),
    field(t("Increment (seconds)"), increment),
    field(t("Or days a move (correspondence)"), days),
    field(t("Games a pairing"), games),
    field(t("Double round robin"), double),
    field(t("Rounds (Swiss)"), rounds),
    field(t("Duration in minutes (arena)"), duration),
    field(t("Rated"), rated),
    field(t("Most players"), maxPlayers),
    field(t("Starts at (optional)"), startsAt),
    field(t("Password for a club event (optional)"), password),
    field(t("Minutes between round starts (optional)"), roundMinutes),
    field(t("Lowest rating (optional)"), ratingLow),
    field(t("Highest rating (optional)"), ratingHigh),
    h("button", { type: "submit" }, t("Create")),
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
    { class: "card", "aria-label": t("Import a Swiss event") },
    h("h2", {}, t("Import a Swiss event")),
    h(
      "p",
      {},
      t(
        "From a FIDE TRF file of your pairing program, with each player's username as the name. The rounds already played count; the site pairs the rest when you start it.",
      ),
    ),
    field(t("TRF file"), file),
    field(t("Minutes each"), minutes),
    field(t("Increment (seconds)"), increment),
    field(t("Rated"), rated),
    h("button", { type: "submit" }, t("Import")),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = /** @type {HTMLInputElement} */ (file).files?.[0];
    if (!chosen) {
      error.textContent = t("Choose a TRF file first.");
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
