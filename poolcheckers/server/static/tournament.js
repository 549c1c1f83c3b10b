// One event's page: live standings, the crosstable of a round robin, each round's
// pairings with links to the games (watchable live), the countdown, the player's own
// game opening by itself, the podium at the end, and the downloads (PDN, CSV, TRF).

/** @import { StandingRow, TournamentEvent, TournamentPairing } from "./types.js" */

import { LiveSocket, errorText, request } from "./api.js";
import { currentAccount, playerLink, send, withNodes } from "./community.js";
import { formatNumber, t } from "./i18n.js";
import { describe } from "./tournaments.js";
import { h } from "./util.js";

/** The page reads the event when its socket says it changed, and every 10 s anyway
 * (that read also marks you present for an arena's pairings). */
const REFRESH_MS = 10000;
const TIEBREAK_NAMES = {
  head_to_head: t("Head-to-head"),
  sonneborn_berger: t("Sonneborn–Berger"),
  buchholz_cut1: t("Buchholz cut-1"),
  wins: t("Wins"),
};

/**
 * "2:05" until a time (epoch seconds), or "" when it has passed.
 * @param {number | null} at
 * @returns {string}
 */
function countdown(at) {
  if (!at) return "";
  const left = Math.max(0, Math.round(at - Date.now() / 1000));
  const hours = Math.floor(left / 3600);
  const minutes = Math.floor((left % 3600) / 60);
  const seconds = String(left % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** The quarters pool players write after a whole number of points. */
const QUARTERS = ["", "¼", "½", "¾"];

/**
 * Points as pool players write them, fractions kept: "2½", "1¾" (a Sonneborn–Berger
 * sums points times scores, so it may hold quarters), "½"; anything finer in the
 * page's language ("1.33", "1,33"), never rounded to a whole number.
 * @param {number} score
 * @returns {string}
 */
function points(score) {
  const quarters = Math.round(score * 4);
  if (Math.abs(score * 4 - quarters) > 1e-9) return formatNumber(score, { maximumFractionDigits: 2 });
  const whole = Math.floor(quarters / 4);
  const part = QUARTERS[quarters - whole * 4];
  return whole || !part ? `${formatNumber(whole)}${part}` : part;
}

/**
 * @param {TournamentEvent} tour
 * @returns {HTMLElement}
 */
function standingsTable(tour) {
  const breaks = tour.tiebreak_order;
  const arena = tour.system === "arena";
  /** @param {StandingRow} s */
  const row = (s) =>
    h(
      "tr",
      { class: s.withdrawn ? "withdrawn" : "", dataset: { player: s.username } },
      h("td", {}, s.rank),
      h("th", { scope: "row" }, playerLink(s.username), arena && s.fire ? " 🔥" : "", s.paused ? " " + t("(paused)") : s.withdrawn ? " " + t("(withdrawn)") : "", invitationMark(s)),
      h("td", {}, s.rating),
      h("td", { class: "score" }, arena ? String(s.score) : points(s.score)),
      // an arena's games: those counted (a game nobody scores is none), then the
      // points of each, oldest first (lichess's sheet)
      arena ? [h("td", { class: "games" }, s.games), h("td", { class: "sheet" }, (s.sheet ?? []).join(" "))] : h("td", {}, s.match_points),
      h("td", {}, `${s.wins}/${s.draws}/${s.losses}`),
      ...breaks.map((b) => h("td", {}, points(s.tiebreaks[b]))),
    );
  return h(
    "table",
    { class: "standings", "aria-label": t("Standings") },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "#"),
        h("th", { scope: "col" }, t("Player")),
        h("th", { scope: "col" }, t("Rating")),
        h("th", { scope: "col" }, t("Score")),
        arena ? [h("th", { scope: "col" }, t("Games")), h("th", { scope: "col" }, t("Points by game"))] : h("th", { scope: "col" }, t("Match points")),
        h("th", { scope: "col" }, t("Won/drawn/lost")),
        ...breaks.map((b) => h("th", { scope: "col" }, TIEBREAK_NAMES[/** @type {keyof typeof TIEBREAK_NAMES} */ (b)] ?? b)),
      ),
    ),
    h("tbody", {}, ...tour.standings.map(row)),
  );
}

/**
 * " (invited)" or " (declined)" after the name of a player an imported file named
 * who has not accepted (their results are the file's; they are not paired).
 * @param {StandingRow} s
 * @returns {string}
 */
function invitationMark(s) {
  if (s.invitation === "invited") return " " + t("(invited)");
  if (s.invitation === "declined") return " " + t("(declined)");
  return "";
}

/**
 * The invitation of a player an imported file named: what it means, Accept (with the
 * event's password, if it has one) and Decline.
 * @param {TournamentEvent} tour
 * @param {(path: string, body: () => unknown) => Promise<void>} post
 * @returns {HTMLElement | string}
 */
function invitation(tour, post) {
  const state = tour.you?.invitation;
  if (!state) return "";
  const password = h("input", { type: "password", "aria-label": t("Event password"), placeholder: t("password") });
  const says =
    state === "invited"
      ? tour.status === "finished"
        ? t("{name} lists you as a player of this event. Accept to confirm the results are yours and show it on your page.")
        : t("{name} invites you to play in this event. You are paired only once you accept.")
      : t("You declined {name}'s invitation to this event. You may still accept it.");
  return h(
    "div",
    { class: "invitation", role: "status", dataset: { invitation: state } },
    h("p", {}, ...withNodes(says, { name: playerLink(tour.creator) })),
    h(
      "p",
      {},
      tour.private ? password : "",
      h("button", { type: "button", class: "primary", onclick: () => post("accept", () => (tour.private ? { password: password.value } : {})) }, t("Accept")),
      state === "invited" ? [" ", h("button", { type: "button", onclick: () => post("decline", () => ({})) }, t("Decline"))] : "",
    ),
  );
}

/**
 * The classic grid of a round robin: what each row's player scored against each column's.
 * @param {{players: string[], rows: string[][]}} cross
 * @returns {HTMLElement}
 */
function crosstable(cross) {
  return h(
    "table",
    { class: "crosstable", "aria-label": t("Crosstable") },
    h("thead", {}, h("tr", {}, h("th", {}, ""), ...cross.players.map((_p, i) => h("th", { scope: "col" }, i + 1)))),
    h(
      "tbody",
      {},
      ...cross.rows.map((cells, i) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, `${i + 1}. ${cross.players[i]}`),
          ...cells.map((c) => h("td", { class: c === "–" ? "self" : "" }, c)),
        ),
      ),
    ),
  );
}

/**
 * A result decided by forfeit, saying who won as the game's page does ("0-2 (White
 * wins by forfeit)"; PDN results give Black's score first).
 * @param {string} result
 * @returns {string}
 */
function forfeitText(result) {
  if (result === "2-0") return t("{result} (Black wins by forfeit)", { result });
  if (result === "0-2") return t("{result} (White wins by forfeit)", { result });
  return t("{result} (both sides lost by forfeit)", { result });
}

/**
 * @param {TournamentPairing} p
 * @returns {HTMLElement}
 */
function pairingItem(p) {
  if (p.bye) return h("li", {}, t("{name} — bye", { name: p.black }));
  // data-result: the server's result, or the state in English ("playing", "to come")
  const result = p.result ?? (p.game ? "playing" : "to come");
  const shown = p.result ?? (p.game ? t("playing") : t("to come"));
  const names = { black: p.black, white: p.white ?? "" };
  const label = p.leg === 2 ? t("{black} (Black) – {white} (White), game 2", names) : t("{black} (Black) – {white} (White)", names);
  const berserk = p.berserk.length ? " · " + t("berserk: {names}", { names: p.berserk.join(", ") }) : "";
  return h(
    "li",
    { dataset: { result } },
    p.game ? h("a", { href: `/play/${encodeURIComponent(p.game)}` }, label) : label,
    " ",
    p.aborted ? t("{result} (no result: ended before both sides moved)", { result: shown }) : p.forfeit ? forfeitText(shown) : shown,
    berserk,
  );
}

/**
 * @param {TournamentEvent} tour
 * @returns {HTMLElement}
 */
function pairingsSection(tour) {
  /** @type {Map<number, TournamentPairing[]>} */
  const rounds = new Map();
  for (const p of tour.pairings) rounds.set(p.round, [...(rounds.get(p.round) ?? []), p]);
  const numbers = [...rounds.keys()].sort((a, b) => b - a);
  return h(
    "section",
    { class: "card", "aria-label": t("Pairings") },
    h("h2", {}, tour.system === "arena" ? t("Games") : t("Pairings")),
    numbers.length ? "" : h("p", {}, t("No games yet.")),
    ...numbers.map((n) =>
      h(
        "div",
        { class: "round", dataset: { round: String(n) } },
        tour.system === "arena" ? "" : h("h3", {}, t("Round {round}", { round: n })),
        h("ol", {}, ...(rounds.get(n) ?? []).map(pairingItem)),
      ),
    ),
  );
}

/**
 * @param {TournamentEvent} tour
 * @param {() => Promise<void>} refresh
 * @returns {HTMLElement}
 */
function actions(tour, refresh) {
  const error = h("p", { class: "error", role: "alert" });
  /**
   * @param {string} path
   * @param {() => unknown} body
   */
  const post = async (path, body) => {
    try {
      await send("POST", `/api/tournaments/${encodeURIComponent(tour.id)}/${path}`, body());
      error.textContent = "";
      await refresh();
    } catch (err) {
      error.textContent = errorText(err);
    }
  };
  /**
   * @param {string} text
   * @param {string} path
   * @param {unknown} [body]
   */
  const button = (text, path, body = {}) => h("button", { type: "button", onclick: () => post(path, () => body) }, text);
  const you = tour.you;
  const open = tour.status === "created" || (tour.status === "running" && tour.system !== "round_robin");
  const password = h("input", { type: "password", "aria-label": t("Event password"), placeholder: t("password") });
  const join = h(
    "span",
    {},
    tour.private ? password : "",
    h("button", { type: "button", onclick: () => post("join", () => (tour.private ? { password: password.value } : {})) }, t("Join")),
  );
  return h(
    "div",
    { class: "actions" },
    invitation(tour, post),
    you?.paused === "no_show" && open ? h("p", { class: "paused", role: "status" }, t("You are paused: you did not make your first move in time, so that game counts for nobody. Press Join to be paired again.")) : "",
    you && !you.joined && !you.invitation && open ? join : "",
    you?.joined && tour.status !== "finished" ? button(t("Withdraw"), "withdraw") : "",
    you?.creator && tour.status === "created" ? button(t("Start now"), "start") : "",
    you?.creator && tour.status === "running" ? button(tour.paused ? t("Resume") : t("Pause"), "pause", { paused: !tour.paused }) : "",
    you?.game && tour.system === "arena" ? button(t("Berserk (half your time)"), "berserk", { game: you.game }) : "",
    error,
  );
}

/**
 * @param {TournamentEvent} tour
 * @returns {HTMLElement}
 */
function header(tour) {
  const when =
    tour.status === "created"
      ? tour.starts_at ? t("Starts in {time}", { time: countdown(tour.starts_at) }) : t("Starts when its creator starts it")
      : tour.status === "running"
        ? tour.system === "arena"
          ? t("Ends in {time}", { time: countdown(tour.ends_at) })
          : roundText(tour)
        : t("Finished");
  return h(
    "header",
    {},
    h("h1", {}, tour.name),
    h("p", {}, describe(tour), " · ", ...withNodes(t("made by {name}"), { name: playerLink(tour.creator) })),
    h("p", { class: "when", "aria-live": "polite" }, when),
  );
}

/**
 * The round of a running round robin or Swiss event: "Round 2 of 5 · next round in 3:05".
 * @param {TournamentEvent} tour
 * @returns {string}
 */
function roundText(tour) {
  const numbers = { round: tour.round, total: tour.total_rounds ?? "?" };
  const round = tour.paused ? t("Round {round} of {total} (paused)", numbers) : t("Round {round} of {total}", numbers);
  const next = tour.next_round_at && tour.next_round_at > Date.now() / 1000 ? tour.next_round_at : null;
  return next ? round + " · " + t("next round in {time}", { time: countdown(next) }) : round;
}

/**
 * @param {TournamentEvent} tour
 * @returns {HTMLElement | string}
 */
function podium(tour) {
  if (tour.status !== "finished" || !tour.podium?.length) return "";
  return h(
    "section",
    { class: "card podium", "aria-label": t("Podium") },
    h("h2", {}, t("Winner: {name}", { name: tour.winner ?? "" })),
    h("ol", {}, ...tour.podium.map((name) => h("li", {}, playerLink(name)))),
  );
}

/**
 * @param {TournamentEvent} tour
 * @returns {HTMLElement}
 */
function downloads(tour) {
  const base = `/api/tournaments/${encodeURIComponent(tour.id)}`;
  return h(
    "p",
    { class: "downloads" },
    h("a", { href: `${base}/pdn`, download: "" }, t("All games (PDN)")),
    " · ",
    h("a", { href: `${base}/csv`, download: "" }, t("Standings (CSV)")),
    tour.system === "arena" ? "" : [" · ", h("a", { href: `${base}/trf`, download: "" }, t("FIDE TRF"))],
  );
}

/**
 * @param {HTMLElement} root
 * @param {string} id
 */
export async function render(root, id) {
  await currentAccount();
  const url = `/api/tournaments/${encodeURIComponent(id)}`;
  /** @type {string | null} */
  let seenGame = null;
  let shown = "";
  /** @type {number | undefined} */
  let timer;
  /** @type {TournamentEvent | null} */
  let latest = null;
  // the countdown to the start (or an arena's end) ticks every second
  const ticker = window.setInterval(() => {
    if (!root.isConnected) window.clearInterval(ticker);
    else if (latest) root.querySelector(".when")?.replaceWith(header(latest).querySelector(".when") ?? "");
  }, 1000);
  const draw = async () => {
    /** @type {TournamentEvent} */
    const tour = await request("GET", url);
    const mine = tour.you?.game ?? null;
    if (mine && seenGame !== null && mine !== seenGame) {
      window.location.assign(`/play/${encodeURIComponent(mine)}`); // your next game starts by itself
      return;
    }
    seenGame = mine ?? "";
    if (tour.status === "finished") window.clearInterval(timer);
    latest = tour;
    // the countdown changes every second; the rest only when the event does: the page
    // is drawn again only then, so that a click or a focused field is not lost
    const text = JSON.stringify(tour);
    if (text === shown) return;
    shown = text;
    document.title = t("{name} · Pool Checkers", { name: tour.name });
    root.replaceChildren(
      header(tour),
      actions(tour, draw),
      mine ? h("p", { class: "your-game" }, h("a", { href: `/play/${encodeURIComponent(mine)}` }, t("Your game is on: play it"))) : "",
      podium(tour),
      downloads(tour),
      h("section", { class: "card", "aria-label": t("Standings") }, h("h2", {}, t("Standings")), standingsTable(tour)),
      tour.crosstable ? h("section", { class: "card", "aria-label": t("Crosstable") }, h("h2", {}, t("Crosstable")), crosstable(tour.crosstable)) : "",
      pairingsSection(tour),
    );
  };
  const refresh = () => draw().catch(() => undefined); // a missed read is retried later
  timer = window.setInterval(() => {
    if (!root.isConnected) window.clearInterval(timer);
    else refresh();
  }, REFRESH_MS);
  const socket = new LiveSocket(`/ws/tournaments/${encodeURIComponent(id)}`, { onMessage: refresh });
  window.addEventListener("pagehide", () => socket.close());
  await draw();
}
