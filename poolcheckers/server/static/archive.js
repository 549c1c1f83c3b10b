// The archive page: running and finished games, open / replay / analyse,
// PDN export (one game or all) and PDN import with errors per game.

/** @import { GameSummary, ImportError, ImportResult } from "./types.js" */

import { api, errorText } from "./api.js";
import { pdnTooLong } from "./rules.js";
import { currentAccount } from "./community.js";
import { formatDate, formatNumber, t, tn } from "./i18n.js";
import { announce, h, seatTokenIds, storageGet, tokenKey } from "./util.js";
import { endingOfReason } from "./outcome.js";

const PAGE = 50;

/** @typedef {"running" | "finished"} ListStatus */

/**
 * A game of the lists: a summary, or (in the home page's list) a full state.
 * @typedef {Pick<GameSummary, "mode" | "level" | "engine_color" | "tags">} GamePlayers
 */

/**
 * When the game started (the lists are newest first by that), or last changed.
 * @param {GameSummary} g
 * @param {"created" | "updated"} [key]
 * @returns {string}
 */
function when(g, key = "created") {
  // an imported game was played on its PDN Date, not on the day it was imported
  if (key === "created" && g.mode === "imported") return g.tags.Date && !g.tags.Date.startsWith("?") ? g.tags.Date : g.played_on || "";
  const seconds = g[key] ?? g.updated ?? g.created;
  const date = typeof seconds === "number" ? new Date(seconds * 1000) : null;
  if (!date || Number.isNaN(date.getTime())) return "";
  return formatDate(date);
}

/**
 * A player's name of the PDN tags, the server's "Anonymous" (no account) in words.
 * @param {string} name
 * @returns {string}
 */
function tagWords(name) {
  return name === "Anonymous" ? t("Anonymous") : name;
}

/**
 * Black – White, in words anyone reading the archive can take; "You" only where this
 * browser holds the game's seat (`yours`: its seat token is stored here).
 * @param {GamePlayers} g
 * @param {boolean} [yours]
 * @returns {string}
 */
export function players(g, yours = false) {
  const tags = g.tags || {};
  // the engine has no tag: a signed-in player's game against it names only the player
  if (g.mode === "engine") {
    const engine = t("Engine (level {level})", { level: g.level ?? "?" });
    const named = tags[g.engine_color === "black" ? "White" : "Black"];
    const human = named ? tagWords(named) : yours ? t("You") : t("Human");
    return g.engine_color === "black" ? `${engine} – ${human}` : `${human} – ${engine}`;
  }
  if (tags.Black || tags.White) return `${tags.Black || "?"} – ${tags.White || "?"}`;
  if (g.mode === "local") return yours ? t("Human – Human (one screen, yours)") : t("Human – Human (one screen)");
  if (g.mode === "online") return yours ? t("Human – Human (online, you play)") : t("Human – Human (online)");
  if (g.mode === "imported") return t("Imported game");
  return g.mode || t("Game");
}

/**
 * A finished game's result and its reason in words; "running" for a running one.
 * @param {GameSummary} g
 * @returns {string}
 */
function resultText(g) {
  if (g.status === "running") return t("running");
  if (g.mode === "imported" && (!g.result || g.result === "*")) return t("unfinished");
  let result = g.result ?? "";
  const reason = endingOfReason(g.reason).text;
  // "*" (no result) says nothing that the reason does not say in words.
  if ((result === "*" || reason.includes(result)) && reason) result = "";
  return [result, reason].filter(Boolean).join(" — ");
}

/**
 * A list of games: its table's body, its "Show more" button and its count.
 * @typedef {{body: HTMLTableSectionElement, more: HTMLButtonElement, count: HTMLElement}} GameTable
 */

/** The archive's filters, as the URL query and the form carry them. */
const FILTERS = /** @type {const} */ (["player", "event", "result", "date_from", "date_to"]);


/**
 * A PDN text's import, in words: how many games, and a list each of the imported
 * games, of those already stored, and of the errors.
 * @typedef {{summary: HTMLElement, lists: HTMLElement[]}} ImportReport
 */

/**
 * Where an import error is: "Game 2, line 3, column 7" (its numbers as the PDN text has them).
 * @param {ImportError} e
 * @returns {string}
 */
function errorPlace(e) {
  const place = { game: String(e.game), line: String(e.line), column: String(e.column) };
  if (e.line && e.column) return t("Game {game}, line {line}, column {column}", place);
  if (e.line) return t("Game {game}, line {line}", place);
  if (e.column) return t("Game {game}, column {column}", place);
  return t("Game {game}", place);
}

/**
 * The message of an import error without the place it repeats ("game 2, line 3: ").
 * @param {ImportError} e
 * @returns {HTMLLIElement}
 */
function importErrorItem(e) {
  const message = String(e.message).replace(/^game \d+, line \d+(, column \d+)?:\s*/i, "");
  return h("li", { class: "error" }, `${errorPlace(e)}: ${message}`);
}

/**
 * The players' tags of each game of a PDN text by its place in the text, as the
 * server reads it (the rules library's PDN reader, nothing stored); none when the
 * server cannot say (the names are a nicety: the games are imported).
 * @param {string} text
 * @returns {Promise<Map<number, Record<string, string>>>}
 */
async function tagsByPlace(text) {
  /** @type {Map<number, Record<string, string>>} */
  const tagsOf = new Map();
  try {
    const read = await api.analysisPdn(text);
    for (const g of read.games || []) tagsOf.set(g.game, g.tags || {});
  } catch {
    /* no names */
  }
  return tagsOf;
}

/**
 * The imported games, each named by its place in the text (the games that had no
 * error, in order) and its players rather than by its database id.
 * @param {string} text
 * @param {ImportResult} res
 * @returns {Promise<HTMLUListElement>}
 */
async function importedList(text, res) {
  const failed = new Set([...res.errors.map((e) => e.game), ...(res.duplicates || []).map((d) => d.game)]);
  /** @type {number[]} */
  const places = [];
  for (let n = 1; places.length < res.imported.length; n++) if (!failed.has(n)) places.push(n);
  const tagsOf = await tagsByPlace(text);
  return h(
    "ul",
    { class: "imported", id: "imported-games" },
    ...res.imported.map((id, i) => {
      const tags = tagsOf.get(places[i]) || {};
      const named = { game: String(places[i]), players: `${tags.Black || "?"} – ${tags.White || "?"}` };
      const both = tags.Black || tags.White;
      return h(
        "li",
        {},
        h("a", { href: `/play/${encodeURIComponent(id)}` }, both ? t("Game {game} ({players})", named) : t("Game {game}", named)),
        " · ",
        h("a", { href: `/analysis?game=${encodeURIComponent(id)}`, "aria-label": both ? t("Analyse game {game} ({players})", named) : t("Analyse game {game}", named) }, t("analyse")),
      );
    }),
  );
}

/**
 * What an import did: its summary line, then its lists.
 * @param {string} text
 * @param {ImportResult} res
 * @returns {Promise<ImportReport>}
 */
async function importReport(text, res) {
  const { imported, errors } = res;
  const duplicates = res.duplicates || [];
  // one clause per count (each its own plural), joined as a list: "…; …; …."
  const clauses = [tn("Imported {n} game", "Imported {n} games", imported.length)];
  if (duplicates.length) clauses.push(tn("{n} game already in the archive, not stored again", "{n} games already in the archive, not stored again", duplicates.length));
  if (errors.length) clauses.push(tn("{n} with errors", "{n} with errors", errors.length));
  const summary = h("p", { class: imported.length ? "ok" : "hint", id: "import-summary" }, `${clauses.join("; ")}.`);
  const lists = [];
  if (imported.length) lists.push(await importedList(text, res));
  if (duplicates.length) {
    lists.push(
      h(
        "ul",
        { class: "import-duplicates", id: "import-duplicates" },
        ...duplicates.map((d) =>
          h("li", {}, t("Game {game} is already in the archive:", { game: String(d.game) }), " ", h("a", { href: `/play/${encodeURIComponent(d.id)}` }, t("open it"))),
        ),
      ),
    );
  }
  if (errors.length) lists.push(h("ul", { class: "import-errors", id: "import-errors" }, ...errors.map(importErrorItem)));
  return { summary, lists };
}

class ArchivePage {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    /** @type {Record<ListStatus, number>} */
    this.offsets = { running: 0, finished: 0 };
    /** @type {Record<ListStatus, GameTable>} */
    this.tables = { running: this.table("running"), finished: this.table("finished") };
    const query = new URLSearchParams(window.location.search);
    // the games of this browser without an account, as many as one request may name
    this.ids = seatTokenIds().slice(-500);
    // "My games" first for a visitor who has any here or an account; ?view= says
    /** @type {boolean | null} null: decided at start */
    this.mine = query.has("view") ? query.get("view") === "mine" : null;
    this.filterForm = this.filters(query);
    this.mineButton = h("button", { type: "button", id: "view-mine", "aria-pressed": "false" }, t("My games"));
    this.allButton = h("button", { type: "button", id: "view-all", "aria-pressed": "false" }, t("All games"));
    this.mineButton.addEventListener("click", () => this.show(true));
    this.allButton.addEventListener("click", () => this.show(false));
    this.fileInput = h("input", { type: "file", id: "import-file", accept: ".pdn,.txt,text/plain", "aria-label": t("PDN file to import") });
    this.importText = h("textarea", { id: "import-text", rows: 5, spellcheck: "false", "aria-label": t("PDN text to import"), placeholder: t("…or paste PDN text here") });
    this.importResult = h("div", { id: "import-result", "aria-live": "polite" });
  }

  async start() {
    this.build();
    if (this.mine === null) this.mine = this.ids.length > 0 || (await currentAccount()) !== null;
    await this.show(this.mine, false);
  }

  /**
   * Show my games or everyone's, with the filters of the form.
   * @param {boolean} mine
   * @param {boolean} [remember] keep the choice in the URL
   */
  async show(mine, remember = true) {
    this.mine = mine;
    this.mineButton.setAttribute("aria-pressed", String(mine));
    this.allButton.setAttribute("aria-pressed", String(!mine));
    if (remember) window.history.replaceState(null, "", `/archive?${this.query()}`);
    await Promise.all([this.load("running"), this.load("finished")]);
  }

  /**
   * The filters' form, filled from the URL's query.
   * @param {URLSearchParams} query
   * @returns {HTMLFormElement}
   */
  filters(query) {
    const input = (/** @type {string} */ name, /** @type {string} */ label, /** @type {Record<string, string>} */ extra = {}) =>
      h("label", { class: "field" }, h("span", { class: "label" }, label), h("input", { name, value: query.get(name) || "", ...extra }));
    const result = h(
      "select",
      { name: "result" },
      ...[["", t("Any result")], ["2-0", t("Black won (2-0)")], ["0-2", t("White won (0-2)")], ["1-1", t("Draw (1-1)")], ["unfinished", t("Unfinished")]].map(([value, text]) =>
        h("option", { value, selected: (query.get("result") || "") === value }, text),
      ),
    );
    const form = h(
      "form",
      { class: "archive-filters", id: "archive-filters", "aria-label": t("Search the games") },
      input("player", t("Player"), { maxlength: "64", type: "search" }),
      input("event", t("Event"), { maxlength: "64", type: "search" }),
      h("label", { class: "field" }, h("span", { class: "label" }, t("Result")), result),
      input("date_from", t("Played from"), { type: "date" }),
      input("date_to", t("to"), { type: "date" }),
      h("button", { type: "submit", class: "primary" }, t("Search")),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.show(Boolean(this.mine));
    });
    return form;
  }

  /** @returns {URLSearchParams} the view and the filters, as the URL keeps them */
  query() {
    const q = new URLSearchParams();
    q.set("view", this.mine ? "mine" : "all");
    const data = new FormData(this.filterForm);
    for (const name of FILTERS) {
      const value = String(data.get(name) || "").trim();
      if (value) q.set(name, value);
    }
    return q;
  }

  /**
   * @param {ListStatus} status
   * @returns {GameTable}
   */
  table(status) {
    const body = h("tbody", { id: `${status}-games` });
    const more = h("button", { type: "button", class: "small", hidden: true, id: `${status}-more` }, t("Show more"));
    more.addEventListener("click", () => this.load(status, true));
    const count = h("span", { class: "count hint", id: `${status}-count` });
    return { body, more, count };
  }

  /**
   * A list's section: its title, its table and its "Show more" button.
   * @param {ListStatus} status
   * @param {string} title
   * @returns {HTMLElement}
   */
  section(status, title) {
    const { body, more, count } = this.tables[status];
    return h(
        "section",
        { class: "card games", "aria-labelledby": `${status}-title` },
        h("h2", { id: `${status}-title` }, title, " ", count),
        h(
          "div",
          { class: "table-wrap" },
          h(
            "table",
            {},
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Game")), h("th", { scope: "col" }, t("Moves")), h("th", { scope: "col" }, t("Result")), h("th", { scope: "col", class: "date" }, t("Played")), h("th", { scope: "col" }, h("span", { class: "sr-only" }, t("Actions"))))),
            body,
          ),
        ),
      more,
    );
  }

  build() {
    const importForm = h(
      "form",
      { id: "import-form" },
      h("div", { class: "row" }, this.fileInput),
      this.importText,
      h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, t("Import"))),
      this.importResult,
    );
    importForm.addEventListener("submit", (e) => {
      e.preventDefault();
      this.importPdn();
    });
    this.root.replaceChildren(
      h("h1", {}, t("Archive")),
      h(
        "div",
        { class: "archive" },
        h(
          "div",
          {},
          h("div", { class: "row view-switch", role: "group", "aria-label": t("Whose games") }, this.mineButton, this.allButton),
          this.filterForm,
          this.section("running", t("Running games")),
          this.section("finished", t("Finished games")),
        ),
        h(
          "aside",
          { class: "side" },
          h(
            "section",
            { class: "card" },
            h("h2", {}, t("Export")),
            h("p", {}, h("a", { class: "button", id: "export-all", href: "/api/export.pdn", download: "poolcheckers-games.pdn" }, t("Download all games (PDN)"))),
          ),
          h("section", { class: "card" }, h("h2", {}, t("Import PDN")), importForm),
        ),
      ),
    );
  }

  /**
   * Show a list's first page, or (more) its next one.
   * @param {ListStatus} status
   * @param {boolean} [more]
   */
  async load(status, more = false) {
    const { body, more: moreButton, count } = this.tables[status];
    if (!more) {
      this.offsets[status] = 0;
      body.replaceChildren(h("tr", {}, h("td", { colspan: 5, class: "hint" }, t("Loading…"))));
    }
    try {
      const query = this.query();
      query.delete("view");
      query.set("status", status);
      query.set("limit", String(PAGE));
      query.set("offset", String(this.offsets[status]));
      if (this.mine) {
        query.set("mine", "true");
        if (this.ids.length) query.set("ids", this.ids.join(","));
      }
      const data = await api.searchGames(query);
      const games = data.games || [];
      if (!more) body.replaceChildren();
      for (const g of games) body.append(this.row(g));
      this.offsets[status] += games.length;
      const total = data.total ?? this.offsets[status];
      count.textContent = total ? (this.offsets[status] < total ? t("({shown} of {total})", { shown: this.offsets[status], total }) : `(${formatNumber(total)})`) : "";
      if (!body.children.length) {
        const none = this.query().toString() !== `view=${this.mine ? "mine" : "all"}` ? t("No game matches the search.") : status === "running" ? t("No game in progress.") : t("No finished game yet.");
        body.append(h("tr", {}, h("td", { colspan: 5, class: "hint" }, none)));
      }
      moreButton.hidden = this.offsets[status] >= total;
    } catch (err) {
      body.replaceChildren(h("tr", {}, h("td", { colspan: 5, class: "error" }, errorText(err))));
    }
  }

  /**
   * @param {GameSummary} g
   * @returns {HTMLTableRowElement}
   */
  row(g) {
    const id = encodeURIComponent(g.id);
    // Moves as PDN numbers them (Black's turn and White's reply: the server counts).
    const moves = g.moves_count ?? "";
    return h(
      "tr",
      { "data-game": g.id },
      h("td", {}, h("a", { href: `/play/${id}`, translate: g.tags?.Black || g.tags?.White ? "no" : null }, players(g, Boolean(storageGet(tokenKey(g.id))))), h("span", { class: "sub-date" }, when(g))),
      h("td", { class: "num", title: g.ply !== undefined ? tn("{n} ply", "{n} plies", g.ply) : null }, String(moves)),
      h("td", {}, resultText(g)),
      h("td", { class: "date", title: t("Last change: {date}", { date: when(g, "updated") }) }, when(g)),
      h(
        "td",
        {},
        h(
          "span",
          { class: "row-actions" },
          h("a", { href: `/play/${id}`, "aria-label": t("Open game {id}", { id: g.id }) }, g.status === "running" ? t("Open") : t("Replay")),
          h("a", { href: `/analysis?game=${id}`, "aria-label": t("Analyse game {id}", { id: g.id }) }, t("Analyse")),
          h("a", { href: `/api/games/${id}/pdn`, download: `game-${g.id}.pdn`, "aria-label": t("Download PDN of game {id}", { id: g.id }) }, t("PDN")),
        ),
      ),
    );
  }

  /** Import the chosen file's or the pasted PDN text, and say what came of it. */
  async importPdn() {
    let text = this.importText.value;
    const file = this.fileInput.files && this.fileInput.files[0];
    if (file) text = await file.text();
    const problem = !text.trim() ? t("Choose a PDN file or paste PDN text first.") : await pdnTooLong(text);
    if (problem) {
      this.importResult.replaceChildren(h("p", { class: "error" }, problem));
      return;
    }
    this.importResult.replaceChildren(h("p", { class: "hint" }, t("Importing…")));
    try {
      const res = await api.importPdn(text);
      const { summary, lists } = await importReport(text, res);
      this.importResult.replaceChildren(summary, ...lists);
      announce(summary.textContent || "", res.errors.length > 0);
      await this.load("finished");
      await this.load("running");
    } catch (err) {
      this.importResult.replaceChildren(h("p", { class: "error" }, t("Import failed: {error}", { error: errorText(err) }))); // #import-result is a live region
    }
  }
}

/** @param {HTMLElement} root */
export async function render(root) {
  const page = new ArchivePage(root);
  await page.start();
}
