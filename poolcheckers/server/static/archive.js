// The archive page: running and finished games, open / replay / analyse,
// PDN export (one game or all) and PDN import with errors per game.

import { api } from "./api.js";
import { COLOR_NAME, announce, h, plural, storageGet, tokenKey } from "./util.js";

const PAGE = 50;

/** When the game started (the lists are newest first by that), or last changed. */
function when(g, key = "created") {
  const seconds = g[key] ?? g.updated ?? g.created;
  const date = typeof seconds === "number" ? new Date(seconds * 1000) : null;
  if (!date || Number.isNaN(date.getTime())) return "";
  return date.toLocaleString();
}

/**
 * Black – White, in words anyone reading the archive can take; "You" only where this
 * browser holds the game's seat (`yours`: its seat token is stored here).
 */
export function players(g, yours = false) {
  const tags = g.tags || {};
  if (tags.Black || tags.White) return `${tags.Black || "?"} – ${tags.White || "?"}`;
  if (g.mode === "engine") {
    const engine = `Engine (level ${g.level ?? "?"})`;
    const human = yours ? "You" : "Human";
    return g.engine_color === "black" ? `${engine} – ${human}` : `${human} – ${engine}`;
  }
  if (g.mode === "local") return `Human – Human (one screen${yours ? ", yours" : ""})`;
  if (g.mode === "online") return `Human – Human (online${yours ? ", you play" : ""})`;
  if (g.mode === "imported") return "Imported game";
  return g.mode || "Game";
}

function resultText(g) {
  if (g.status === "running") {
    return g.turn ? `${COLOR_NAME[g.turn] || g.turn} to move` : "running";
  }
  const outcome = g.outcome || {};
  let result = g.result ?? outcome.result ?? "";
  const reason = g.reason ?? outcome.reason ?? "";
  // "*" (no result) says nothing that the reason does not say in words.
  if ((result === "*" || reason.includes(result)) && reason) result = "";
  return [result, reason].filter(Boolean).join(" — ");
}

class ArchivePage {
  constructor(root) {
    this.root = root;
    this.offsets = { running: 0, finished: 0 };
  }

  async start() {
    this.build();
    await Promise.all([this.load("running"), this.load("finished")]);
  }

  build() {
    this.tables = {};
    const section = (status, title) => {
      const body = h("tbody", { id: `${status}-games` });
      const more = h("button", { type: "button", class: "small", hidden: true, id: `${status}-more` }, "Show more");
      more.addEventListener("click", () => this.load(status, true));
      this.tables[status] = { body, more };
      return h(
        "section",
        { class: "card games", "aria-labelledby": `${status}-title` },
        h("h2", { id: `${status}-title` }, title),
        h(
          "div",
          { class: "table-wrap" },
          h(
            "table",
            {},
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Game"), h("th", { scope: "col" }, "Moves"), h("th", { scope: "col" }, "Result"), h("th", { scope: "col", class: "date" }, "Started"), h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Actions")))),
            body,
          ),
        ),
        more,
      );
    };
    this.fileInput = h("input", { type: "file", id: "import-file", accept: ".pdn,.txt,text/plain", "aria-label": "PDN file to import" });
    this.importText = h("textarea", { id: "import-text", rows: 5, spellcheck: "false", "aria-label": "PDN text to import", placeholder: "…or paste PDN text here" });
    this.importResult = h("div", { id: "import-result", "aria-live": "polite" });
    const importForm = h(
      "form",
      { id: "import-form" },
      h("div", { class: "row" }, this.fileInput),
      this.importText,
      h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, "Import")),
      this.importResult,
    );
    importForm.addEventListener("submit", (e) => {
      e.preventDefault();
      this.importPdn();
    });
    this.root.replaceChildren(
      h("h1", {}, "Archive"),
      h(
        "div",
        { class: "archive" },
        h(
          "div",
          {},
          section("running", "Running games"),
          section("finished", "Finished games"),
        ),
        h(
          "aside",
          { class: "side" },
          h(
            "section",
            { class: "card" },
            h("h2", {}, "Export"),
            h("p", {}, h("a", { class: "button", id: "export-all", href: "/api/export.pdn", download: "poolcheckers-games.pdn" }, "Download all games (PDN)")),
          ),
          h("section", { class: "card" }, h("h2", {}, "Import PDN"), importForm),
        ),
      ),
    );
  }

  async load(status, more = false) {
    const { body, more: moreButton } = this.tables[status];
    if (!more) {
      this.offsets[status] = 0;
      body.replaceChildren(h("tr", {}, h("td", { colspan: 5, class: "hint" }, "Loading…")));
    }
    try {
      const data = await api.listGames(status, PAGE, this.offsets[status]);
      const games = data.games || [];
      if (!more) body.replaceChildren();
      for (const g of games) body.append(this.row(g));
      this.offsets[status] += games.length;
      if (!body.children.length) {
        body.append(h("tr", {}, h("td", { colspan: 5, class: "hint" }, status === "running" ? "No game in progress." : "No finished game yet.")));
      }
      moreButton.hidden = games.length < PAGE;
    } catch (err) {
      body.replaceChildren(h("tr", {}, h("td", { colspan: 5, class: "error" }, err.message)));
    }
  }

  row(g) {
    const id = encodeURIComponent(g.id);
    // Moves as PDN numbers them (Black's turn and White's reply: the server counts).
    const moves = g.moves_count ?? "";
    return h(
      "tr",
      { "data-game": g.id },
      h("td", {}, h("a", { href: `/play/${id}` }, players(g, Boolean(storageGet(tokenKey(g.id)))))),
      h("td", { class: "num", title: g.ply !== undefined ? plural(g.ply, "ply", "plies") : null }, String(moves)),
      h("td", {}, resultText(g)),
      h("td", { class: "date", title: `Last change: ${when(g, "updated")}` }, when(g)),
      h(
        "td",
        {},
        h(
          "span",
          { class: "row-actions" },
          h("a", { href: `/play/${id}`, "aria-label": `Open game ${g.id}` }, g.status === "running" ? "Open" : "Replay"),
          h("a", { href: `/analysis?game=${id}`, "aria-label": `Analyse game ${g.id}` }, "Analyse"),
          h("a", { href: `/api/games/${id}/pdn`, download: `game-${g.id}.pdn`, "aria-label": `Download PDN of game ${g.id}` }, "PDN"),
        ),
      ),
    );
  }

  async importPdn() {
    let text = this.importText.value;
    const file = this.fileInput.files && this.fileInput.files[0];
    if (file) text = await file.text();
    if (!text.trim()) {
      this.importResult.replaceChildren(h("p", { class: "error" }, "Choose a PDN file or paste PDN text first."));
      return;
    }
    this.importResult.replaceChildren(h("p", { class: "hint" }, "Importing…"));
    try {
      const res = await api.importPdn(text);
      const imported = res.imported || [];
      const errors = res.errors || [];
      const duplicates = res.duplicates || [];
      const parts = [
        h(
          "p",
          { class: imported.length ? "ok" : "hint", id: "import-summary" },
          `Imported ${plural(imported.length, "game")}` +
            (duplicates.length ? `; ${plural(duplicates.length, "game")} already in the archive, not stored again` : "") +
            (errors.length ? `; ${errors.length} with errors` : "") +
            ".",
        ),
      ];
      if (imported.length) {
        // Name each imported game by its place in the text (the games that had no
        // error, in order) and its players, rather than by its database id.
        const failed = new Set([...errors.map((e) => e.game), ...duplicates.map((d) => d.game)]);
        const places = [];
        for (let n = 1; places.length < imported.length; n++) if (!failed.has(n)) places.push(n);
        // The players' names: the server reads the text again (the rules library's
        // PDN reader, nothing stored); game n of the text is games[].game === n.
        const tagsOf = new Map();
        try {
          const read = await api.analysisPdn(text);
          for (const g of read.games || []) tagsOf.set(g.game, g.tags || {});
        } catch {
          /* names are a nicety: the games are imported */
        }
        parts.push(
          h(
            "ul",
            { class: "imported", id: "imported-games" },
            ...imported.map((id, i) => {
              const tags = tagsOf.get(places[i]) || {};
              const who = tags.Black || tags.White ? ` (${tags.Black || "?"} – ${tags.White || "?"})` : "";
              return h(
                "li",
                {},
                h("a", { href: `/play/${encodeURIComponent(id)}` }, `Game ${places[i]}${who}`),
                " · ",
                h("a", { href: `/analysis?game=${encodeURIComponent(id)}`, "aria-label": `Analyse game ${places[i]}${who}` }, "analyse"),
              );
            }),
          ),
        );
      }
      if (duplicates.length) {
        parts.push(
          h(
            "ul",
            { class: "import-duplicates", id: "import-duplicates" },
            ...duplicates.map((d) =>
              h("li", {}, `Game ${d.game} is already in the archive: `, h("a", { href: `/play/${encodeURIComponent(d.id)}` }, "open it")),
            ),
          ),
        );
      }
      if (errors.length) {
        parts.push(
          h(
            "ul",
            { class: "import-errors", id: "import-errors" },
            ...errors.map((e) => {
              // The message may repeat the place; say it once.
              const message = String(e.message).replace(/^game \d+, line \d+(, column \d+)?:\s*/i, "");
              const where = `Game ${e.game}${e.line ? `, line ${e.line}` : ""}${e.column ? `, column ${e.column}` : ""}`;
              return h("li", { class: "error" }, `${where}: ${message}`);
            }),
          ),
        );
      }
      this.importResult.replaceChildren(...parts);
      announce(parts[0].textContent, errors.length > 0);
      await this.load("finished");
      await this.load("running");
    } catch (err) {
      this.importResult.replaceChildren(h("p", { class: "error" }, `Import failed: ${err.message}`)); // #import-result is a live region
    }
  }
}

export async function render(root) {
  const page = new ArchivePage(root);
  await page.start();
}
