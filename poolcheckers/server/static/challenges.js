// Direct challenges: the form on a player's page (challenge them, or block them)
// and in the lobby (challenge a player by name), and the lobby's list of challenges
// sent and received (accept, decline with a reason, cancel), kept live by the lobby
// socket's challenge messages; and the account page's choice of whom the player
// takes challenges from.

/** @import { ChallengeInfo, ChallengePolicy, RulesInfo, TournamentSummary } from "./types.js" */

import { errorText } from "./api.js";
import { clockText, playerLink, send, withNodes } from "./community.js";
import { t, tn } from "./i18n.js";
import { ruleFields } from "./rules.js";
import { h, plainWords } from "./util.js";

const REASONS = {
  generic: t("Not now"),
  later: t("Later, please"),
  too_fast: t("Too fast"),
  too_slow: t("Too slow"),
  time_control: t("Not this time control"),
  rated: t("Rated only"),
  casual: t("Casual only"),
  rules: t("APCA rules only"),
};
/** @type {Record<string, string>} a challenge's status (the server's word) in words */
const STATUS = {
  open: t("open"),
  accepted: t("accepted"),
  declined: t("declined"),
  cancelled: t("cancelled"),
  expired: t("expired"),
};
/** @type {[string, import("./types.js").SeekClock][]} */
const CLOCKS = [
  ["3+2", { initial: 180, increment: 2 }],
  ["5+3", { initial: 300, increment: 3 }],
  ["10+5", { initial: 600, increment: 5 }],
  ["15+10", { initial: 900, increment: 10 }],
  ["30+20", { initial: 1800, increment: 20 }],
  [tn("{n} day a move", "{n} days a move", 1), { days: 1 }],
  [tn("{n} day a move", "{n} days a move", 3), { days: 3 }],
];

/**
 * The "Challenge" form: of a player's page (`username` given, with "Block"), or of
 * the lobby (the player's name typed). Casual challenges may choose the §9 options
 * (`rules`: the server's description of them; rated games play the APCA rules).
 * @param {string | null} username
 * @param {RulesInfo | null} rules
 * @returns {HTMLElement}
 */
export function challengeForm(username, rules) {
  const clock = h("select", { name: "challenge-clock", "aria-label": t("Clock") }, ...CLOCKS.map(([label], i) => h("option", { value: String(i) }, label)));
  clock.value = "2";
  const color = h(
    "select",
    { name: "challenge-color", "aria-label": t("Your colour") },
    h("option", { value: "random" }, t("Random colour")),
    h("option", { value: "black" }, t("I play Black (I start)")),
    h("option", { value: "white" }, t("I play White")),
  );
  const rated = h("input", { type: "checkbox", name: "challenge-rated", checked: true });
  const who = h("input", { name: "challenge-username", "aria-label": t("Player"), placeholder: t("Username"), maxlength: "20", autocomplete: "off", autocapitalize: "off", spellcheck: "false" });
  const options = rules ? ruleFields(rules, { idPrefix: username ? "challenge-rule" : "lobby-challenge-rule" }) : null;
  const rulesBox = options ? h("details", { class: "rules" }, h("summary", {}, t("Rule options (casual games)")), ...options.fields) : null;
  const showRules = () => {
    if (rulesBox) rulesBox.hidden = rated.checked;
  };
  rated.addEventListener("change", showRules);
  showRules();
  const note = h("p", { role: "status" });
  const challenge = async () => {
    note.textContent = "";
    const target = username ?? who.value.trim();
    if (!target) {
      note.textContent = t("Type the username of the player to challenge.");
      return;
    }
    /** @type {Record<string, unknown>} */
    const body = { username: target, clock: CLOCKS[Number(clock.value)][1], color: color.value, rated: rated.checked };
    if (!rated.checked && options) body.rules = options.read();
    try {
      /** @type {ChallengeInfo} */
      const sent = await send("POST", "/api/challenges", body);
      note.textContent = t("Challenge sent to {name}: it waits for an answer in your lobby.", { name: sent.challenged });
      who.value = "";
    } catch (err) {
      note.textContent = errorText(err);
    }
  };
  const block = async () => {
    try {
      await send("POST", "/api/blocks", { username });
      note.textContent = t("{name} is blocked: they cannot challenge you.", { name: username ?? "" });
    } catch (err) {
      note.textContent = errorText(err);
    }
  };
  const buttons = [h("button", { type: "button", class: "primary", onclick: challenge }, t("Challenge"))];
  if (username) buttons.push(h("button", { type: "button", onclick: block }, t("Block")));
  return h(
    username ? "section" : "div",
    username ? { class: "card", "aria-label": t("Challenge") } : { class: "challenge-form", "aria-label": t("Challenge a player") },
    username ? h("h2", {}, t("Challenge {name}", { name: username })) : h("h3", {}, t("Challenge a player")),
    h("p", {}, ...(username ? [] : [who, " "]), clock, " ", color, " ", h("label", {}, rated, " ", t("Rated"))),
    ...(rulesBox ? [rulesBox] : []),
    h("p", {}, ...buttons.flatMap((b, i) => (i ? [" ", b] : [b]))),
    note,
  );
}

/**
 * The lobby's challenges: received (accept, decline with a reason) and sent (cancel),
 * and (signed in) the form to challenge a player by name.
 * @param {RulesInfo | null} rules the §9 options (null: the form is not offered)
 * @returns {{section: HTMLElement, refresh: () => Promise<void>}}
 */
export function challengesSection(rules) {
  const list = h("ul", { class: "challenges" });
  const error = h("p", { class: "error", role: "alert" });
  const section = h(
    "section",
    { class: "card", "aria-label": t("Challenges") },
    h("h2", {}, t("Challenges")),
    list,
    error,
    ...(rules ? [challengeForm(null, rules)] : []),
  );
  /**
   * @param {string} path
   * @param {unknown} [body]
   */
  const act = async (path, body = undefined) => {
    try {
      /** @type {{game?: {id: string}}} */
      const got = await send("POST", `/api/challenges/${path}`, body);
      if (got.game) window.location.assign(`/play/${encodeURIComponent(got.game.id)}`);
      else await refresh();
    } catch (err) {
      error.textContent = errorText(err);
    }
  };
  const refresh = async () => {
    /** @type {{in: ChallengeInfo[], out: ChallengeInfo[]}} */
    const mine = await send("GET", "/api/challenges");
    /** @type {TournamentSummary[]} events that invite you (named by an imported file) */
    const invited = await send("GET", "/api/tournaments/invitations");
    const items = [
      ...invited.map(invitationItem),
      ...mine.in.map((c) => challengeItem(c, true, act)),
      ...mine.out.map((c) => challengeItem(c, false, act)),
    ];
    list.replaceChildren(...(items.length ? items : [h("li", {}, t("None yet."))]));
  };
  return { section, refresh };
}

/**
 * An event that invites you: answered on its page.
 * @param {TournamentSummary} e
 * @returns {HTMLLIElement}
 */
function invitationItem(e) {
  const link = h("a", { href: `/tournaments/${encodeURIComponent(e.id)}` }, e.name);
  return h("li", { dataset: { invitation: e.id } }, ...withNodes(t("{name} invites you to {event}: answer on its page"), { name: playerLink(e.creator), event: link }));
}

/**
 * A challenge of the lobby's list: one received and open (accept, or decline with a
 * reason), or one sent (cancel while open) or answered.
 * @param {ChallengeInfo} c
 * @param {boolean} incoming
 * @param {(path: string, body?: unknown) => Promise<void>} act
 * @returns {HTMLLIElement}
 */
function challengeItem(c, incoming, act) {
  const clock = clockText(c.clock);
  const what = c.rated ? t("{clock} rated", { clock }) : t("{clock} casual", { clock });
  const id = encodeURIComponent(c.id);
  if (incoming && c.status === "open") {
    const reason = h("select", { "aria-label": t("Reason") }, ...Object.entries(REASONS).map(([value, text]) => h("option", { value }, text)));
    const says =
      c.color === "black"
        ? t("{name} challenges you: {what} (they play black)", { what })
        : c.color === "white"
          ? t("{name} challenges you: {what} (they play white)", { what })
          : t("{name} challenges you: {what}", { what });
    return h(
      "li",
      { dataset: { challenge: c.id } },
      ...withNodes(says, { name: playerLink(c.challenger) }),
      " ",
      h("button", { type: "button", class: "small primary", onclick: () => act(`${id}/accept`) }, t("Accept")),
      " ",
      reason,
      h("button", { type: "button", class: "small", onclick: () => act(`${id}/decline`, { reason: reason.value }) }, t("Decline")),
    );
  }
  const who = playerLink(incoming ? c.challenger : c.challenged);
  const status = STATUS[c.status] ?? c.status;
  const cancel = !incoming && c.status === "open"
    ? h("button", { type: "button", class: "small", onclick: () => act(`${id}/cancel`) }, t("Cancel"))
    : "";
  const game = c.game ? [" ", h("a", { href: `/play/${encodeURIComponent(c.game)}` }, t("the game"))] : "";
  // the reason is the server's words
  const reason = c.reason ? ` — “${plainWords(c.reason).text}”` : "";
  return h(
    "li",
    { dataset: { challenge: c.id, status: c.status } },
    ...withNodes(incoming ? t("From {name}: {what} · {status}", { what, status }) : t("To {name}: {what} · {status}", { what, status }), { name: who }),
    `${reason} `,
    cancel,
    game,
  );
}

/**
 * The account page's "Challenges" card: whom the player takes challenges from
 * (everyone, the players they have played, nobody), saved when changed.
 * @returns {HTMLElement}
 */
export function challengePolicySection() {
  const choice = h(
    "select",
    { name: "accept-from" },
    h("option", { value: "everyone" }, t("Everyone")),
    h("option", { value: "played" }, t("Players I have played")),
    h("option", { value: "nobody" }, t("Nobody")),
  );
  const note = h("p", { role: "status" });
  /** @param {Promise<ChallengePolicy>} answer */
  const show = async (answer) => {
    try {
      choice.value = (await answer).accept_from;
      return true;
    } catch (err) {
      note.textContent = errorText(err);
      return false;
    }
  };
  void show(send("GET", "/api/challenges/policy"));
  choice.addEventListener("change", async () => {
    note.textContent = "";
    if (await show(send("POST", "/api/challenges/policy", { accept_from: choice.value }))) note.textContent = t("Saved.");
  });
  return h(
    "section",
    { class: "card", id: "challenge-policy", "aria-label": t("Challenges") },
    h("h2", {}, t("Challenges")),
    h("p", {}, h("label", {}, t("Accept challenges from"), " ", choice)),
    h("p", { class: "hint" }, t("A player you block can never challenge you; you may still challenge anyone.")),
    note,
  );
}
