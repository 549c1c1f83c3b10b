// Direct challenges: the form on a player's page (challenge them, or block them)
// and in the lobby (challenge a player by name), and the lobby's list of challenges
// sent and received (accept, decline with a reason, cancel), kept live by the lobby
// socket's challenge messages.

/** @import { ChallengeInfo, RulesInfo } from "./types.js" */

import { errorText } from "./api.js";
import { clockText, playerLink, send } from "./community.js";
import { ruleFields } from "./rules.js";
import { h, plainWords } from "./util.js";

const REASONS = {
  generic: "Not now",
  later: "Later, please",
  too_fast: "Too fast",
  too_slow: "Too slow",
  time_control: "Not this time control",
  rated: "Rated only",
  casual: "Casual only",
  rules: "APCA rules only",
};
/** @type {[string, import("./types.js").SeekClock][]} */
const CLOCKS = [
  ["3+2", { initial: 180, increment: 2 }],
  ["5+3", { initial: 300, increment: 3 }],
  ["10+5", { initial: 600, increment: 5 }],
  ["15+10", { initial: 900, increment: 10 }],
  ["30+20", { initial: 1800, increment: 20 }],
  ["1 day a move", { days: 1 }],
  ["3 days a move", { days: 3 }],
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
  const clock = h("select", { name: "challenge-clock", "aria-label": "Clock" }, ...CLOCKS.map(([label], i) => h("option", { value: String(i) }, label)));
  clock.value = "2";
  const color = h(
    "select",
    { name: "challenge-color", "aria-label": "Your colour" },
    h("option", { value: "random" }, "Random colour"),
    h("option", { value: "black" }, "I play Black (I start)"),
    h("option", { value: "white" }, "I play White"),
  );
  const rated = h("input", { type: "checkbox", name: "challenge-rated", checked: true });
  const who = h("input", { name: "challenge-username", "aria-label": "Player", placeholder: "Username", maxlength: "20", autocomplete: "off", autocapitalize: "off", spellcheck: "false" });
  const options = rules ? ruleFields(rules, { idPrefix: username ? "challenge-rule" : "lobby-challenge-rule" }) : null;
  const rulesBox = options ? h("details", { class: "rules" }, h("summary", {}, "Rule options (casual games)"), ...options.fields) : null;
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
      note.textContent = "Type the username of the player to challenge.";
      return;
    }
    /** @type {Record<string, unknown>} */
    const body = { username: target, clock: CLOCKS[Number(clock.value)][1], color: color.value, rated: rated.checked };
    if (!rated.checked && options) body.rules = options.read();
    try {
      /** @type {ChallengeInfo} */
      const sent = await send("POST", "/api/challenges", body);
      note.textContent = `Challenge sent to ${sent.challenged}: it waits for an answer in your lobby.`;
      who.value = "";
    } catch (err) {
      note.textContent = errorText(err);
    }
  };
  const block = async () => {
    try {
      await send("POST", "/api/blocks", { username });
      note.textContent = `${username} is blocked: they cannot challenge you.`;
    } catch (err) {
      note.textContent = errorText(err);
    }
  };
  const buttons = [h("button", { type: "button", class: "primary", onclick: challenge }, "Challenge")];
  if (username) buttons.push(h("button", { type: "button", onclick: block }, "Block"));
  return h(
    username ? "section" : "div",
    username ? { class: "card", "aria-label": "Challenge" } : { class: "challenge-form", "aria-label": "Challenge a player" },
    username ? h("h2", {}, `Challenge ${username}`) : h("h3", {}, "Challenge a player"),
    h("p", {}, ...(username ? [] : [who, " "]), clock, " ", color, " ", h("label", {}, rated, " Rated")),
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
    { class: "card", "aria-label": "Challenges" },
    h("h2", {}, "Challenges"),
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
  /**
   * @param {ChallengeInfo} c
   * @param {boolean} incoming
   */
  const item = (c, incoming) => {
    const what = `${clockText(c.clock)} ${c.rated ? "rated" : "casual"}`;
    const id = encodeURIComponent(c.id);
    if (incoming && c.status === "open") {
      const reason = h("select", { "aria-label": "Reason" }, ...Object.entries(REASONS).map(([value, text]) => h("option", { value }, text)));
      return h(
        "li",
        { dataset: { challenge: c.id } },
        playerLink(c.challenger),
        ` challenges you: ${what}${c.color === "random" ? "" : ` (they play ${c.color})`} `,
        h("button", { type: "button", class: "small primary", onclick: () => act(`${id}/accept`) }, "Accept"),
        " ",
        reason,
        h("button", { type: "button", class: "small", onclick: () => act(`${id}/decline`, { reason: reason.value }) }, "Decline"),
      );
    }
    const who = incoming ? c.challenger : c.challenged;
    const cancel = !incoming && c.status === "open"
      ? h("button", { type: "button", class: "small", onclick: () => act(`${id}/cancel`) }, "Cancel")
      : "";
    const game = c.game ? [" ", h("a", { href: `/play/${encodeURIComponent(c.game)}` }, "the game")] : "";
    return h(
      "li",
      { dataset: { challenge: c.id, status: c.status } },
      incoming ? "From " : "To ",
      playerLink(who),
      `: ${what} · ${c.status}${c.reason ? ` — “${plainWords(c.reason).text}”` : ""} `,
      cancel,
      game,
    );
  };
  const refresh = async () => {
    /** @type {{in: ChallengeInfo[], out: ChallengeInfo[]}} */
    const mine = await send("GET", "/api/challenges");
    const items = [...mine.in.map((c) => item(c, true)), ...mine.out.map((c) => item(c, false))];
    list.replaceChildren(...(items.length ? items : [h("li", {}, "None yet.")]));
  };
  return { section, refresh };
}
