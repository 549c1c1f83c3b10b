// One event's page: live standings, the crosstable of a round robin, each round's
// pairings with links to the games (watchable live), the countdown, the player's own
// game opening by itself, the podium at the end, and the downloads (PDN, CSV, TRF).

/** @import { StandingRow, TournamentEvent, TournamentPairing } from "./types.js" */

import { LiveSocket, errorText, request } from "./api.js";
import { currentAccount, playerLink, send } from "./community.js";
import { describe } from "./tournaments.js";
import { h } from "./util.js";

/** The page reads the event when its socket says it changed, and every 10 s anyway
 * (that read also marks you present for an arena's pairings). */
const REFRESH_MS = 10000;
const TIEBREAK_NAMES = {
  head_to_head: "Head-to-head",
  sonneborn_berger: "Sonneborn–Berger",
  buchholz_cut1: "Buchholz cut-1",
  wins: "Wins",
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

/**
 * @param {number} score
 * @returns {string}
 */
function points(score) {
  const whole = Math.floor(score);
  return score - whole >= 0.5 ? `${whole || ""}½` : String(whole);
}

/**
 * @param {TournamentEvent} t
 * @returns {HTMLElement}
 */
function standingsTable(t) {
  const breaks = t.tiebreak_order;
  const arena = t.system === "arena";
  /** @param {StandingRow} s */
  const row = (s) =>
    h(
      "tr",
      { class: s.withdrawn ? "withdrawn" : "", dataset: { player: s.username } },
      h("td", {}, s.rank),
      h("th", { scope: "row" }, playerLink(s.username), arena && s.fire ? " 🔥" : "", s.withdrawn ? " (withdrawn)" : ""),
      h("td", {}, s.rating),
      h("td", { class: "score" }, arena ? String(s.score) : points(s.score)),
      arena ? h("td", {}, (s.sheet ?? []).join(" ")) : h("td", {}, s.match_points),
      h("td", {}, `${s.wins}/${s.draws}/${s.losses}`),
      ...breaks.map((b) => h("td", {}, points(s.tiebreaks[b]))),
    );
  return h(
    "table",
    { class: "standings", "aria-label": "Standings" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "#"),
        h("th", { scope: "col" }, "Player"),
        h("th", { scope: "col" }, "Rating"),
        h("th", { scope: "col" }, "Score"),
        h("th", { scope: "col" }, arena ? "Games" : "Match points"),
        h("th", { scope: "col" }, "Won/drawn/lost"),
        ...breaks.map((b) => h("th", { scope: "col" }, TIEBREAK_NAMES[/** @type {keyof typeof TIEBREAK_NAMES} */ (b)] ?? b)),
      ),
    ),
    h("tbody", {}, ...t.standings.map(row)),
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
    { class: "crosstable", "aria-label": "Crosstable" },
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
 * @param {TournamentPairing} p
 * @returns {HTMLElement}
 */
function pairingItem(p) {
  if (p.bye) return h("li", {}, p.black, " — bye");
  const result = p.result ?? (p.game ? "playing" : "to come");
  const label = `${p.black} (Black) – ${p.white} (White)${p.leg === 2 ? ", game 2" : ""}`;
  const berserk = p.berserk.length ? ` · berserk: ${p.berserk.join(", ")}` : "";
  return h(
    "li",
    { dataset: { result } },
    p.game ? h("a", { href: `/play/${encodeURIComponent(p.game)}` }, label) : label,
    ` ${result}${p.forfeit ? " (forfeit)" : ""}${berserk}`,
  );
}

/**
 * @param {TournamentEvent} t
 * @returns {HTMLElement}
 */
function pairingsSection(t) {
  /** @type {Map<number, TournamentPairing[]>} */
  const rounds = new Map();
  for (const p of t.pairings) rounds.set(p.round, [...(rounds.get(p.round) ?? []), p]);
  const numbers = [...rounds.keys()].sort((a, b) => b - a);
  return h(
    "section",
    { class: "card", "aria-label": "Pairings" },
    h("h2", {}, t.system === "arena" ? "Games" : "Pairings"),
    numbers.length ? "" : h("p", {}, "No games yet."),
    ...numbers.map((n) =>
      h(
        "div",
        { class: "round", dataset: { round: String(n) } },
        t.system === "arena" ? "" : h("h3", {}, `Round ${n}`),
        h("ol", {}, ...(rounds.get(n) ?? []).map(pairingItem)),
      ),
    ),
  );
}

/**
 * @param {TournamentEvent} t
 * @param {() => Promise<void>} refresh
 * @returns {HTMLElement}
 */
function actions(t, refresh) {
  const error = h("p", { class: "error", role: "alert" });
  /**
   * @param {string} path
   * @param {() => unknown} body
   */
  const post = async (path, body) => {
    try {
      await send("POST", `/api/tournaments/${encodeURIComponent(t.id)}/${path}`, body());
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
  const you = t.you;
  const open = t.status === "created" || (t.status === "running" && t.system !== "round_robin");
  const password = h("input", { type: "password", "aria-label": "Event password", placeholder: "password" });
  const join = h(
    "span",
    {},
    t.private ? password : "",
    h("button", { type: "button", onclick: () => post("join", () => (t.private ? { password: password.value } : {})) }, "Join"),
  );
  return h(
    "div",
    { class: "actions" },
    you && !you.joined && open ? join : "",
    you?.joined && t.status !== "finished" ? button("Withdraw", "withdraw") : "",
    you?.creator && t.status === "created" ? button("Start now", "start") : "",
    you?.creator && t.status === "running" ? button(t.paused ? "Resume" : "Pause", "pause", { paused: !t.paused }) : "",
    you?.game && t.system === "arena" ? button("Berserk (half your time)", "berserk", { game: you.game }) : "",
    error,
  );
}

/**
 * @param {TournamentEvent} t
 * @returns {HTMLElement}
 */
function header(t) {
  const when =
    t.status === "created"
      ? t.starts_at ? `Starts in ${countdown(t.starts_at)}` : "Starts when its creator starts it"
      : t.status === "running"
        ? t.system === "arena"
          ? `Ends in ${countdown(t.ends_at)}`
          : `Round ${t.round} of ${t.total_rounds}${t.paused ? " (paused)" : ""}` +
            (t.next_round_at && t.next_round_at > Date.now() / 1000 ? ` · next round in ${countdown(t.next_round_at)}` : "")
        : "Finished";
  return h(
    "header",
    {},
    h("h1", {}, t.name),
    h("p", {}, describe(t), ` · made by `, playerLink(t.creator)),
    h("p", { class: "when", "aria-live": "polite" }, when),
  );
}

/**
 * @param {TournamentEvent} t
 * @returns {HTMLElement | string}
 */
function podium(t) {
  if (t.status !== "finished" || !t.podium?.length) return "";
  return h(
    "section",
    { class: "card podium", "aria-label": "Podium" },
    h("h2", {}, `Winner: ${t.winner}`),
    h("ol", {}, ...t.podium.map((name) => h("li", {}, playerLink(name)))),
  );
}

/**
 * @param {TournamentEvent} t
 * @returns {HTMLElement}
 */
function downloads(t) {
  const base = `/api/tournaments/${encodeURIComponent(t.id)}`;
  return h(
    "p",
    { class: "downloads" },
    h("a", { href: `${base}/pdn`, download: "" }, "All games (PDN)"),
    " · ",
    h("a", { href: `${base}/csv`, download: "" }, "Standings (CSV)"),
    t.system === "arena" ? "" : [" · ", h("a", { href: `${base}/trf`, download: "" }, "FIDE TRF")],
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
    const t = await request("GET", url);
    const mine = t.you?.game ?? null;
    if (mine && seenGame !== null && mine !== seenGame) {
      window.location.assign(`/play/${encodeURIComponent(mine)}`); // your next game starts by itself
      return;
    }
    seenGame = mine ?? "";
    if (t.status === "finished") window.clearInterval(timer);
    latest = t;
    // the countdown changes every second; the rest only when the event does: the page
    // is drawn again only then, so that a click or a focused field is not lost
    const text = JSON.stringify(t);
    if (text === shown) return;
    shown = text;
    document.title = `${t.name} · Pool Checkers`;
    root.replaceChildren(
      header(t),
      actions(t, draw),
      mine ? h("p", { class: "your-game" }, h("a", { href: `/play/${encodeURIComponent(mine)}` }, "Your game is on: play it")) : "",
      podium(t),
      downloads(t),
      h("section", { class: "card", "aria-label": "Standings" }, h("h2", {}, "Standings"), standingsTable(t)),
      t.crosstable ? h("section", { class: "card", "aria-label": "Crosstable" }, h("h2", {}, "Crosstable"), crosstable(t.crosstable)) : "",
      pairingsSection(t),
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
