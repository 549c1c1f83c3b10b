// The lobby: post a seek (presets, custom clock, correspondence), the live list of
// open seeks (WS /ws/lobby), accept one: the game starts for both players at once.

/**
 * @import { AccountInfo, Color, LobbyMessage, PlayNow, RequestLimits, Rules, RulesInfo, SeekClock,
 *   SeekInfo } from "./types.js"
 */

import { LiveSocket, errorText } from "./api.js";
import { challengesSection } from "./challenges.js";
import { categoryWord, clockText, currentAccount, playerLink, ratingText, send, withNodes } from "./community.js";
import { t } from "./i18n.js";
import { listMyGames } from "./mygames.js";
import { ruleFields, ruleOptions } from "./rules.js";
import { announce, h } from "./util.js";

// lichess's quick-pairing clocks (minutes + increment seconds)
const PRESETS = [
  [1, 0], [2, 1], [3, 0], [3, 2], [5, 0], [5, 3], [10, 0], [10, 5], [15, 10], [30, 0], [30, 20],
];

/**
 * A seek as POST /api/seeks and /api/seeks/play-now take it.
 * @typedef {{clock: SeekClock, rated: boolean, color: Color | "random", rules?: Rules}} SeekRequest
 */

/**
 * A seek's kind in words: "Rated blitz", "Casual".
 * @param {boolean} rated
 * @param {string | null} category the server's word
 * @returns {string}
 */
function kindText(rated, category) {
  if (!category) return rated ? t("Rated") : t("Casual");
  const word = categoryWord(category);
  return rated ? t("Rated {category}", { category: word }) : t("Casual {category}", { category: word });
}

class LobbyPage {
  /**
   * @param {HTMLElement} root
   * @param {AccountInfo} account
   * @param {RulesInfo} rules the rule options and the limits of seeks
   */
  constructor(root, account, rules) {
    this.root = root;
    this.account = account;
    /** @type {RequestLimits} */
    this.limits = rules.limits;
    // docs/RULES.md §9 options for casual seeks (rated games use the APCA rules)
    this.rules = ruleFields(rules, { idPrefix: "seek-rule" });
    this.defaultRules = rules.default || {};
    this.rulesBox = h("details", { class: "rules" }, h("summary", {}, t("Rule options (casual games)")), ...this.rules.fields);
    /** @type {Map<string, SeekInfo>} */
    this.seeks = new Map();
    this.error = h("p", { class: "error", role: "alert" });
    this.list = h("tbody");
    // direct challenges sent and received, refreshed by the socket's challenge messages
    this.challenges = challengesSection(rules);
    /** @type {LiveSocket<LobbyMessage | LobbyMessage[]> | null} */
    this.socket = null;
    this.rated = h("input", { type: "checkbox", name: "rated", checked: true });
    this.rated.addEventListener("change", () => this.showRules());
    this.color = h(
      "select",
      { name: "color", "aria-label": t("Your colour") },
      h("option", { value: "random" }, t("Random colour")),
      h("option", { value: "black" }, t("Black (moves first)")),
      h("option", { value: "white" }, t("White")),
    );
  }

  /** The quick seeks: one button per preset clock. */
  presetButtons() {
    const presets = h("div", { class: "presets", role: "group", "aria-label": t("Quick seeks") });
    for (const [minutes, increment] of PRESETS) {
      presets.append(
        h("button", { type: "button", onclick: () => this.playNow({ initial: minutes * 60, increment }) }, `${minutes}+${increment}`),
        " ",
      );
    }
    return presets;
  }

  /** The forms of a custom clock and of correspondence, bounded as the server bounds seeks. */
  customForms() {
    const { seek_initial_seconds: initial, seek_increment_seconds: inc, seek_days: daysBounds } = this.limits;
    const minutes = h("input", { type: "number", name: "minutes", min: initial.minimum / 60, max: initial.maximum / 60, step: 0.25, value: 5, "aria-label": t("Minutes") });
    const increment = h("input", { type: "number", name: "increment", min: inc.minimum, max: inc.maximum, value: 3, "aria-label": t("Increment (seconds)") });
    const days = h("input", { type: "number", name: "days", min: daysBounds.minimum, max: daysBounds.maximum, value: 3, "aria-label": t("Days per move") });
    const custom = h(
      "form",
      { class: "custom" },
      minutes, " ", t("min"), " + ", increment, " ", t("s"), " ",
      h("button", { type: "submit" }, t("Post")),
    );
    custom.addEventListener("submit", (event) => {
      event.preventDefault();
      this.post({ initial: Math.round(Number(minutes.value) * 60), increment: Number(increment.value) });
    });
    const corr = h("form", { class: "custom" }, days, " ", t("days a move"), " ", h("button", { type: "submit" }, t("Post")));
    corr.addEventListener("submit", (event) => {
      event.preventDefault();
      this.post({ days: Number(days.value) });
    });
    return { custom, corr };
  }

  render() {
    const presets = this.presetButtons();
    const { custom, corr } = this.customForms();
    const mine = h("section", { class: "card my-games", id: "my-games", hidden: true }, h("h2", {}, t("Your games")));
    listMyGames(mine);
    this.root.replaceChildren(
      h("h1", {}, t("Lobby")),
      h(
        "p",
        {},
        ...withNodes(t("Signed in as {name}"), { name: playerLink(this.account.username) }),
        " · ",
        h("a", { href: "/account" }, t("account")),
        " · ",
        h("a", { href: "/leaderboard" }, t("leaderboards")),
      ),
      mine,
      h(
        "section",
        { class: "card", "aria-label": t("Post a seek") },
        h("h2", {}, t("Play now")),
        h("p", { class: "hint" }, t("A clock below takes the oldest matching seek, or posts yours.")),
        h("p", {}, h("label", {}, this.rated, " ", t("Rated (APCA rules)")), " ", this.color),
        this.rulesBox,
        presets,
        h("div", { class: "custom-row" }, t("Custom:"), " ", custom),
        h("div", { class: "custom-row" }, t("Correspondence:"), " ", corr),
        this.error,
      ),
      h(
        "section",
        { class: "card", "aria-label": t("Open seeks") },
        h("h2", {}, t("Open seeks")),
        h(
          "table",
          { class: "seeks" },
          h("thead", {}, h("tr", {}, ...[t("Player"), t("Game"), ""].map((label) => h("th", {}, label)))),
          this.list,
        ),
      ),
    );
    this.root.append(this.challenges.section);
    this.challenges.refresh().catch((err) => (this.error.textContent = errorText(err)));
    this.showRules();
    // batch=1: the changes that arrive together come in one frame, as an array
    this.socket = new LiveSocket("/ws/lobby?batch=1", {
      onMessage: (m) => (Array.isArray(m) ? m.forEach((one) => this.onMessage(one)) : this.onMessage(m)),
    });
  }

  showRules() {
    this.rulesBox.hidden = this.rated.checked;
  }

  /**
   * The seek of `clock` with the chosen options.
   * @param {SeekClock} clock
   * @returns {SeekRequest}
   */
  body(clock) {
    const color = this.color.value === "black" || this.color.value === "white" ? this.color.value : "random";
    /** @type {SeekRequest} */
    const body = { clock, rated: this.rated.checked, color };
    if (!this.rated.checked) body.rules = this.rules.read();
    return body;
  }

  /**
   * Take the oldest matching seek, or post this one.
   * @param {SeekClock} clock
   */
  async playNow(clock) {
    this.error.textContent = "";
    try {
      /** @type {PlayNow} */
      const got = await send("POST", "/api/seeks/play-now", this.body(clock));
      if (got.game) {
        window.location.assign(`/play/${encodeURIComponent(got.game.id)}`);
        return;
      }
      announce(t("Seek posted; waiting for an opponent."));
    } catch (err) {
      this.error.textContent = errorText(err);
    }
  }

  /**
   * Post a seek of `clock`.
   * @param {SeekClock} clock
   */
  async post(clock) {
    this.error.textContent = "";
    try {
      await send("POST", "/api/seeks", this.body(clock));
      announce(t("Seek posted; waiting for an opponent."));
    } catch (err) {
      this.error.textContent = errorText(err);
    }
  }

  /** @param {LobbyMessage} m */
  onMessage(m) {
    if (m.type === "seeks") {
      this.seeks = new Map(m.seeks.map((s) => [s.id, s]));
    } else if (m.type === "seek_added") {
      this.seeks.set(m.seek.id, m.seek);
    } else if (m.type === "seek_removed") {
      this.seeks.delete(m.id);
    } else if (m.type === "game") {
      window.location.assign(`/play/${encodeURIComponent(m.id)}`);
      return;
    } else if (m.type.startsWith("challenge") || m.type === "tournament_invitation") {
      // one challenge's news, or `challenges_changed` (some may have been missed): read them all
      this.challenges.refresh().catch(() => undefined); // shown again on the next message
      return;
    } else if (m.type === "pong") {
      return;
    }
    this.draw();
  }

  /**
   * A seek's row: who, which game, and Cancel (one's own) or Accept.
   * @param {SeekInfo} seek
   * @returns {HTMLTableRowElement}
   */
  seekRow(seek) {
    const mine = seek.author === this.account.username;
    const action = mine
      ? h("button", { type: "button", class: "small", onclick: () => this.act("DELETE", `/api/seeks/${encodeURIComponent(seek.id)}`) }, t("Cancel"))
      : h("button", { type: "button", class: "small primary", onclick: () => this.accept(seek) }, t("Accept"));
    return h(
      "tr",
      { dataset: { seek: seek.id } },
      h("td", {}, playerLink(seek.author), " ", h("span", { class: "rating" }, ratingText(seek.rating))),
      h(
        "td",
        {},
        h("strong", {}, clockText(seek.clock)),
        " ",
        kindText(seek.rated, seek.category),
        seek.color === "black" ? [" · ", t("{name} plays black", { name: seek.author })] : "",
        seek.color === "white" ? [" · ", t("{name} plays white", { name: seek.author })] : "",
        Object.keys(this.defaultRules).some((k) => seek.rules[k] !== this.defaultRules[k]) ? [" · ", t("other rules")] : "",
      ),
      h("td", { class: "act" }, action),
    );
  }

  draw() {
    const rows = [...this.seeks.values()].map((seek) => this.seekRow(seek));
    if (!rows.length) rows.push(h("tr", {}, h("td", { colspan: 3 }, t("No open seeks: post one."))));
    this.list.replaceChildren(...rows);
  }

  /**
   * Accept a seek: its game starts for both players.
   * @param {SeekInfo} seek
   */
  async accept(seek) {
    this.error.textContent = "";
    try {
      /** @type {{game: {id: string}}} */
      const answer = await send("POST", `/api/seeks/${encodeURIComponent(seek.id)}/accept`);
      window.location.assign(`/play/${encodeURIComponent(answer.game.id)}`);
    } catch (err) {
      this.error.textContent = errorText(err);
    }
  }

  /**
   * @param {string} method
   * @param {string} url
   */
  async act(method, url) {
    try {
      await send(method, url);
    } catch (err) {
      this.error.textContent = errorText(err);
    }
  }
}

/**
 * @param {HTMLElement} root
 */
export async function render(root) {
  const account = await currentAccount(true);
  if (!account) {
    root.replaceChildren(
      h("h1", {}, t("Lobby")),
      h(
        "p",
        {},
        ...withNodes(t("The lobby is for players with an account: {link}."), {
          link: h("a", { href: "/account?next=/lobby" }, t("sign in or sign up")),
        }),
      ),
    );
    return;
  }
  new LobbyPage(root, account, await ruleOptions()).render();
}
