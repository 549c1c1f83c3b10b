// The account page's API tokens: make one for a program (shown once), see them,
// revoke one. A bot program signs in with a token, never the password (docs/BOTS.md).

/** @import { ApiToken, TokenList } from "./types.js" */

import { errorText } from "./api.js";
import { send } from "./community.js";
import { formatDate, t } from "./i18n.js";
import { h } from "./util.js";

/**
 * @param {number | null} seconds
 * @returns {string}
 */
function when(seconds) {
  return seconds === null ? t("never") : formatDate(seconds * 1000);
}

/**
 * One token's row: its name, what it may do, when it was made and last used.
 * @param {ApiToken} token
 * @param {() => void} changed
 * @param {HTMLElement} error
 * @returns {HTMLElement}
 */
function row(token, changed, error) {
  const revoke = h("button", { type: "button" }, t("Revoke"));
  revoke.addEventListener("click", async () => {
    error.textContent = "";
    try {
      await send("DELETE", `/api/account/tokens/${encodeURIComponent(token.id)}`);
      changed();
    } catch (err) {
      error.textContent = errorText(err);
    }
  });
  return h(
    "li",
    { "data-token": token.id },
    h("strong", {}, token.label),
    " — ",
    t("{scopes}; made {made}, last used {used}", { scopes: token.scopes.join(", "), made: when(token.created), used: when(token.last_used) }),
    " ",
    revoke,
  );
}

/**
 * The tokens section of the account page.
 * @returns {HTMLElement}
 */
export function tokensSection() {
  const section = h("section", { class: "card", id: "tokens", "aria-label": t("API tokens") });
  const list = h("ul", { class: "tokens" });
  const error = h("p", { class: "error", role: "alert" });
  const shown = h("p", { class: "notice", role: "status" });
  const botLine = h("p", {});
  const scopeBoxes = h("fieldset", {}, h("legend", {}, t("It may")));
  const label = h("input", { name: "label", required: true, placeholder: t("my engine") });
  const form = h(
    "form",
    { "aria-label": t("New API token") },
    h("label", {}, t("Name"), " ", label),
    scopeBoxes,
    h("button", { type: "submit" }, t("Make a token")),
  );
  const refresh = async () => {
    /** @type {TokenList} */
    const data = await send("GET", "/api/account/tokens");
    botLine.textContent = data.bot ? t("This is a bot account: it plays through the bot API.") : "";
    if (!scopeBoxes.querySelector("input")) {
      for (const [scope, meaning] of Object.entries(data.scopes)) {
        scopeBoxes.append(h("label", {}, h("input", { type: "checkbox", name: "scope", value: scope }), ` ${scope}: ${meaning}`), h("br", {}));
      }
    }
    list.replaceChildren(...data.tokens.map((token) => row(token, () => refresh().catch(() => undefined), error)));
    if (!data.tokens.length) list.append(h("li", {}, t("No tokens.")));
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = shown.textContent = "";
    const scopes = [...form.querySelectorAll("input[name=scope]:checked")].map((box) => /** @type {HTMLInputElement} */ (box).value);
    try {
      /** @type {ApiToken & {token: string}} */
      const made = await send("POST", "/api/account/tokens", { label: label.value, scopes });
      shown.replaceChildren(t("Copy it now, it is shown only this once:"), " ", h("code", { id: "new-token" }, made.token));
      form.reset();
      await refresh();
    } catch (err) {
      error.textContent = errorText(err);
    }
  });
  section.append(
    h("h2", {}, t("API tokens")),
    h("p", {}, t("A program (a bot, a script) signs in with a token instead of your password. Make one for each program; revoke it when the program stops.")),
    botLine,
    list,
    form,
    shown,
    error,
  );
  refresh().catch((err) => (error.textContent = errorText(err)));
  return section;
}
