// The lobby: post a seek (presets, custom clock, correspondence), the live list of
// open seeks (WS /ws/lobby), accept one: the game starts for both players at once.

import { LiveSocket } from "./api.js";
import { clockText, currentAccount, playerLink, ratingText, send } from "./community.js";
import { ruleFields, ruleOptions } from "./rules.js";
import { announce, h } from "./util.js";

// lichess's quick-pairing clocks (minutes + increment seconds)
const PRESETS = [
  [1, 0], [2, 1], [3, 0], [3, 2], [5, 0], [5, 3], [10, 0], [10, 5], [15, 10], [30, 0], [30, 20],
];

class LobbyPage {
  constructor(root, account, rules) {
    this.root = root;
    this.account = account;
    // RULES.md §9 options for casual seeks (rated games use the APCA rules)
    this.rules = ruleFields(rules, { idPrefix: "seek-rule" });
    this.defaultRules = rules.default || {};
    this.rulesBox = h("details", { class: "rules" }, h("summary", {}, "Rule options (casual games)"), ...this.rules.fields);
    this.seeks = new Map();
    this.error = h("p", { class: "error", role: "alert" });
    this.list = h("tbody");
    this.rated = h("input", { type: "checkbox", name: "rated", checked: true });
    this.rated.addEventListener("change", () => this.showRules());
    this.color = h(
      "select",
      { name: "color", "aria-label": "Your colour" },
      h("option", { value: "random" }, "Random colour"),
      h("option", { value: "black" }, "Black (moves first)"),
      h("option", { value: "white" }, "White"),
    );
  }

  render() {
    const presets = h("div", { class: "presets", role: "group", "aria-label": "Quick seeks" });
    for (const [minutes, increment] of PRESETS) {
      presets.append(
        h("button", { type: "button", onclick: () => this.playNow({ initial: minutes * 60, increment }) }, `${minutes}+${increment}`),
        " ",
      );
    }
    const minutes = h("input", { type: "number", name: "minutes", min: 0.25, max: 180, step: 0.25, value: 5, "aria-label": "Minutes" });
    const increment = h("input", { type: "number", name: "increment", min: 0, max: 180, value: 3, "aria-label": "Increment (seconds)" });
    const days = h("input", { type: "number", name: "days", min: 1, max: 14, value: 3, "aria-label": "Days per move" });
    const custom = h(
      "form",
      { class: "custom" },
      minutes, " min + ", increment, " s ",
      h("button", { type: "submit" }, "Post"),
    );
    custom.addEventListener("submit", (event) => {
      event.preventDefault();
      this.post({ initial: Math.round(Number(minutes.value) * 60), increment: Number(increment.value) });
    });
    const corr = h("form", { class: "custom" }, days, " days a move ", h("button", { type: "submit" }, "Post"));
    corr.addEventListener("submit", (event) => {
      event.preventDefault();
      this.post({ days: Number(days.value) });
    });
    this.root.replaceChildren(
      h("h1", {}, "Lobby"),
      h("p", {}, "Signed in as ", playerLink(this.account.username), " · ", h("a", { href: "/account" }, "account"), " · ", h("a", { href: "/leaderboard" }, "leaderboards")),
      h(
        "section",
        { class: "card", "aria-label": "Post a seek" },
        h("h2", {}, "Play now"),
        h("p", { class: "hint" }, "A clock below takes the oldest matching seek, or posts yours."),
        h("p", {}, h("label", {}, this.rated, " Rated (APCA rules)"), " ", this.color),
        this.rulesBox,
        presets,
        h("div", { class: "custom-row" }, "Custom: ", custom),
        h("div", { class: "custom-row" }, "Correspondence: ", corr),
        this.error,
      ),
      h(
        "section",
        { class: "card", "aria-label": "Open seeks" },
        h("h2", {}, "Open seeks"),
        h(
          "table",
          { class: "seeks" },
          h("thead", {}, h("tr", {}, ...["Player", "Game", ""].map((t) => h("th", {}, t)))),
          this.list,
        ),
      ),
    );
    this.showRules();
    this.socket = new LiveSocket("/ws/lobby", { onMessage: (m) => this.onMessage(m) });
  }

  showRules() {
    this.rulesBox.hidden = this.rated.checked;
  }

  body(clock) {
    const body = { clock, rated: this.rated.checked, color: this.color.value };
    if (!this.rated.checked) body.rules = this.rules.read();
    return body;
  }

  async playNow(clock) {
    this.error.textContent = "";
    try {
      const got = await send("POST", "/api/seeks/play-now", this.body(clock));
      if (got.game) {
        window.location.assign(`/play/${encodeURIComponent(got.game.id)}`);
        return;
      }
      announce("Seek posted; waiting for an opponent.");
    } catch (err) {
      this.error.textContent = err.message;
    }
  }

  async post(clock) {
    this.error.textContent = "";
    try {
      await send("POST", "/api/seeks", this.body(clock));
      announce("Seek posted; waiting for an opponent.");
    } catch (err) {
      this.error.textContent = err.message;
    }
  }

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
    }
    this.draw();
  }

  draw() {
    const rows = [];
    for (const seek of this.seeks.values()) {
      const mine = seek.author === this.account.username;
      const action = mine
        ? h("button", { type: "button", class: "small", onclick: () => this.act("DELETE", `/api/seeks/${encodeURIComponent(seek.id)}`) }, "Cancel")
        : h("button", { type: "button", class: "small primary", onclick: () => this.accept(seek) }, "Accept");
      rows.push(
        h(
          "tr",
          { dataset: { seek: seek.id } },
          h("td", {}, playerLink(seek.author), " ", h("span", { class: "rating" }, ratingText(seek.rating))),
          h(
            "td",
            {},
            h("strong", {}, clockText(seek.clock)),
            ` ${seek.rated ? "Rated" : "Casual"}${seek.category ? " " + seek.category : ""}`,
            seek.color === "random" ? "" : ` · ${seek.author} plays ${seek.color}`,
            Object.keys(this.defaultRules).some((k) => seek.rules[k] !== this.defaultRules[k]) ? " · other rules (§9)" : "",
          ),
          h("td", { class: "act" }, action),
        ),
      );
    }
    if (!rows.length) rows.push(h("tr", {}, h("td", { colspan: 3 }, "No open seeks: post one.")));
    this.list.replaceChildren(...rows);
  }

  async accept(seek) {
    this.error.textContent = "";
    try {
      const answer = await send("POST", `/api/seeks/${encodeURIComponent(seek.id)}/accept`);
      window.location.assign(`/play/${encodeURIComponent(answer.game.id)}`);
    } catch (err) {
      this.error.textContent = err.message;
    }
  }

  async act(method, url) {
    try {
      await send(method, url);
    } catch (err) {
      this.error.textContent = err.message;
    }
  }
}

export async function render(root) {
  const account = await currentAccount(true);
  if (!account) {
    root.replaceChildren(
      h("h1", {}, "Lobby"),
      h("p", {}, "The lobby is for players with an account: ", h("a", { href: "/account?next=/lobby" }, "sign in or sign up"), "."),
    );
    return;
  }
  new LobbyPage(root, account, await ruleOptions()).render();
}
