// "Your games", as lichess's "playing now" tiles: the running games of this browser's
// seats and of the signed-in account, those waiting for your move first. Shown on the
// home page and in the lobby.

/** @import { GameState } from "./types.js" */

import { api, request } from "./api.js";
import { t } from "./i18n.js";
import { h, seatTokenIds, storageGet, tokenKey } from "./util.js";

/**
 * Whether it is the viewer's turn in ``g``.
 * @param {GameState} g
 * @returns {boolean}
 */
function yourTurn(g) {
  const waiting = g.mode === "online" && g.seats && !(g.seats.black && g.seats.white);
  return !waiting && (g.your_color === g.turn || g.your_color === "both");
}

/**
 * A running game of the viewer, in words: its opponent, its ply, whose turn.
 * @param {GameState} g
 * @returns {HTMLLIElement}
 */
function myGameItem(g) {
  // the opponent's name: the PDN tag of the other side ("White" when you play Black)
  const opponentName = g.your_color === "black" ? g.tags.White : g.your_color === "white" ? g.tags.Black : "";
  const who =
    g.mode === "engine"
      ? t("vs engine (level {level})", { level: g.level ?? "?" })
      : g.mode === "local"
        ? t("two players")
        : opponentName
          ? t("vs {name}", { name: opponentName })
          : t("online");
  const waiting = g.mode === "online" && g.seats && !(g.seats.black && g.seats.white);
  const mine = yourTurn(g) && g.your_color !== "both";
  const turn = waiting
    ? t("waiting for your opponent to join")
    : g.turn === "black"
      ? mine ? t("Black to move (your turn)") : t("Black to move")
      : mine ? t("White to move (your turn)") : t("White to move");
  return h(
    "li",
    { class: mine ? "your-turn" : "", "data-game": g.id },
    h("a", { href: `/play/${encodeURIComponent(g.id)}` }, t("{who}, ply {ply}", { who, ply: g.ply })),
    ` — ${turn}`,
  );
}

/**
 * Fill ``box`` (hidden while empty) with the viewer's running games, their turn
 * first; the ids shown (so that "Watch" can leave them out).
 * @param {HTMLElement} box
 * @returns {Promise<Set<string>>}
 */
export async function listMyGames(box) {
  const ids = new Set(seatTokenIds());
  try {
    // the account's games (its seats), whatever the device
    /** @type {{games: {id: string}[]}} */
    const account = await request("GET", "/api/games?status=running&mine=true&limit=20");
    for (const g of account.games) ids.add(g.id);
  } catch {
    // the list of this device's games still shows
  }
  if (!ids.size) return new Set();
  const states = await Promise.all(
    [...ids].map((id) => api.getGame(id, storageGet(tokenKey(id))).catch(() => null)),
  );
  const games = /** @type {GameState[]} */ (states.filter((g) => g !== null && g.status === "running" && g.your_color))
    .sort((a, b) => Number(yourTurn(b)) - Number(yourTurn(a)) || (b.version ?? 0) - (a.version ?? 0))
    .slice(0, 12);
  if (!games.length) return new Set();
  box.hidden = false;
  box.append(h("ul", { class: "my-games-list" }, ...games.map(myGameItem)));
  return new Set(games.map((g) => g.id));
}
