// The account page: sign up, sign in, sign out, change the password, whom challenges
// come from, API tokens.

/** @import { AccountInfo, Bounds, RequestLimits } from "./types.js" */
/** @import { Attrs } from "./util.js" */

import { errorText } from "./api.js";
import { challengePolicySection } from "./challenges.js";
import { currentAccount, playerLink, send, setAccount, withNodes } from "./community.js";
import { requestLimits } from "./rules.js";
import { tokensSection } from "./tokens.js";
import { t, tn } from "./i18n.js";
import { announce, h } from "./util.js";

/** A reset code's shape (the placeholder of its field): letters of the code, the same in every language. */
const CODE_SHAPE = "ABCD-EFGH-JKMN";

/**
 * @param {string} label
 * @param {Attrs} attrs
 * @returns {HTMLLabelElement}
 */
function field(label, attrs) {
  return h("label", { class: "field" }, label, " ", h("input", attrs));
}

/**
 * The length attributes of a field the server bounds (none when its limits are unknown:
 * the server still checks).
 * @param {Bounds | undefined} bounds
 * @returns {Attrs}
 */
function lengths(bounds) {
  return bounds ? { minlength: bounds.minimum, maxlength: bounds.maximum } : {};
}

/**
 * Where to go after signing in: `next` when it is a page of this site, else the lobby.
 * Resolved as the browser would (which turns `\` into `/` and drops tabs), so that
 * `/\evil.example/` or `/<tab>/evil.example/` cannot lead to another site.
 * @param {string | null} next
 * @returns {string}
 */
function sitePath(next) {
  if (!next) return "/lobby";
  let url;
  try {
    url = new URL(next, window.location.origin);
  } catch {
    return "/lobby";
  }
  if (url.origin !== window.location.origin) return "/lobby";
  return url.pathname + url.search + url.hash;
}

/**
 * A field whose length the server bounds: no `maxlength` (which cuts a pasted text
 * short without a word); the server's own rule is said as soon as the text breaks it.
 * @param {HTMLInputElement} input
 * @param {Bounds | undefined} bounds
 * @param {"username" | "password"} what
 */
function checkLength(input, bounds, what) {
  if (!bounds) return;
  input.addEventListener("input", () => {
    const n = input.value.length;
    const said = { min: bounds.minimum, max: bounds.maximum, n };
    const rule = what === "username" ? t("Username must be {min} to {max} characters, not {n}.", said) : t("Password must be {min} to {max} characters, not {n}.", said);
    const message = n > bounds.maximum ? rule : "";
    input.setCustomValidity(message);
    const hint = input.closest("label")?.querySelector(".limit");
    if (hint) hint.textContent = message;
  });
}

/**
 * The form that signs in, signs up or sets a forgotten password (`path`), then goes on
 * to ?next= or the lobby. While the server answers, the button says so and waits; after
 * a refusal the password is cleared, the username kept.
 * @param {{title: string, path: string, submit: string, busy: string, autocomplete: string, rule?: boolean, code?: boolean}} kind
 * @param {RequestLimits | null} limits
 * @returns {HTMLFormElement}
 */
function credentialsForm(kind, limits) {
  const error = h("p", { class: "error", role: "alert" });
  const usernameBounds = kind.rule ? limits?.username_length : undefined;
  const username = h("input", { name: "username", required: true, autocomplete: "username", ...(usernameBounds ? { minlength: usernameBounds.minimum } : {}) });
  const password = h("input", { name: "password", type: "password", required: true, autocomplete: kind.autocomplete, ...(kind.rule && limits ? { minlength: limits.password_length.minimum } : {}) });
  checkLength(username, usernameBounds, "username");
  checkLength(password, kind.rule ? limits?.password_length : undefined, "password");
  const ruleText = usernameBounds ? t("{min} to {max} characters: letters, digits, _ and -, starting with a letter or a digit.", { min: usernameBounds.minimum, max: usernameBounds.maximum }) : "";
  const code = kind.code ? h("input", { name: "code", required: true, autocomplete: "one-time-code", autocapitalize: "characters", spellcheck: "false", placeholder: CODE_SHAPE }) : null;
  const button = h("button", { type: "submit", class: "primary" }, kind.submit);
  const form = h(
    "form",
    { class: "card", "aria-label": kind.title },
    h("h2", {}, kind.title),
    h("label", { class: "field" }, t("Username"), " ", username, ruleText ? h("span", { class: "hint" }, ruleText) : "", h("span", { class: "limit error", "aria-live": "polite" })),
    " ",
    code ? h("label", { class: "field" }, t("Reset code"), " ", code, h("span", { class: "hint" }, t("The site's administrator gives it to you: it works once, for an hour."))) : "",
    h("label", { class: "field" }, kind.code ? t("New password") : t("Password"), " ", password, kind.rule && limits ? h("span", { class: "hint" }, tn("At least {n} character.", "At least {n} characters.", limits.password_length.minimum)) : "", h("span", { class: "limit error", "aria-live": "polite" })),
    " ",
    button,
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (button.disabled) return;
    error.textContent = "";
    const data = new FormData(form);
    button.disabled = true;
    form.setAttribute("aria-busy", "true");
    button.textContent = kind.busy;
    try {
      /** @type {AccountInfo} */
      const account = await send("POST", kind.path, {
        username: data.get("username"),
        ...(code ? { code: data.get("code") } : {}),
        password: data.get("password"),
      });
      setAccount(account);
      announce(t("Signed in as {name}.", { name: account.username }));
      window.location.assign(sitePath(new URLSearchParams(window.location.search).get("next")));
    } catch (err) {
      error.textContent = errorText(err);
      password.value = "";
      button.disabled = false;
      form.removeAttribute("aria-busy");
      button.textContent = kind.submit;
      password.focus();
    }
  });
  return form;
}

/**
 * "Sign out everywhere": every other session of the account ends and every API token
 * is revoked (a lost phone, a password perhaps seen); this browser stays signed in.
 * @param {() => void} tokensGone called once the tokens are revoked
 * @returns {HTMLElement}
 */
function everywhereSection(tokensGone) {
  const error = h("p", { class: "error", role: "alert" });
  const notice = h("p", { class: "notice", role: "status" });
  const button = h("button", { type: "button" }, t("Sign out everywhere"));
  button.addEventListener("click", async () => {
    error.textContent = notice.textContent = "";
    try {
      /** @type {AccountInfo} */
      const renewed = await send("POST", "/api/account/logout-everywhere");
      setAccount(renewed);
      notice.textContent = t("Signed out on every other device; every API token is revoked.");
      tokensGone();
    } catch (err) {
      error.textContent = errorText(err);
    }
  });
  return h(
    "section",
    { class: "card", id: "everywhere", "aria-label": t("Sign out everywhere") },
    h("h2", {}, t("Sign out everywhere")),
    h("p", {}, t("Ends your account's sessions on every other device and revokes every API token (each program then needs a new one). This browser stays signed in.")),
    button,
    error,
    notice,
  );
}

/**
 * The page of a signed-in account: its name, sign out, the password form, sign out
 * everywhere and the API tokens.
 * @param {HTMLElement} root
 * @param {AccountInfo} account
 * @param {RequestLimits | null} limits
 */
function signedIn(root, account, limits) {
  const error = h("p", { class: "error", role: "alert" });
  const notice = h("p", { class: "notice", role: "status" });
  const password = h(
    "form",
    { class: "card", "aria-label": t("Change the password") },
    h("h2", {}, t("Change the password")),
    field(t("Current password"), { name: "old", type: "password", required: true, autocomplete: "current-password" }),
    " ",
    field(t("New password"), { name: "new", type: "password", required: true, ...lengths(limits?.password_length), autocomplete: "new-password" }),
    " ",
    h("button", { type: "submit" }, t("Change")),
    h("p", { class: "hint" }, t("Changing the password signs you out on every other device and revokes every API token.")),
    error,
    notice,
  );
  let tokens = tokensSection();
  const tokensGone = () => {
    const fresh = tokensSection();
    tokens.replaceWith(fresh);
    tokens = fresh;
  };
  password.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = notice.textContent = "";
    const data = new FormData(password);
    try {
      /** @type {AccountInfo} */
      const changed = await send("POST", "/api/account/password", { old: data.get("old"), new: data.get("new") });
      setAccount(changed);
      notice.textContent = t("Password changed; your other devices are signed out and every API token is revoked.");
      password.reset();
      tokensGone();
    } catch (err) {
      error.textContent = errorText(err);
    }
  });
  const out = h("button", { type: "button" }, t("Sign out"));
  out.addEventListener("click", async () => {
    await send("POST", "/api/account/logout");
    setAccount(null);
    window.location.assign("/account");
  });
  root.replaceChildren(
    h("h1", {}, t("Account")),
    h("p", {}, ...withNodes(t("Signed in as {name}."), { name: playerLink(account.username) }), " ", h("a", { href: "/lobby" }, t("To the lobby")), " ", out),
    password,
    everywhereSection(tokensGone),
    challengePolicySection(),
    tokens,
  );
}

/**
 * @param {HTMLElement} root
 */
export async function render(root) {
  const account = await currentAccount(true);
  // The forms bound the lengths as the server does; without its limits the server alone checks.
  const limits = await requestLimits().catch(() => null);
  if (account) {
    signedIn(root, account, limits);
    return;
  }
  root.replaceChildren(
    h("h1", {}, t("Account")),
    h("p", {}, t("An account gives you a name, a rating and your games on every device. Playing the engine, on one screen or by an invitation link needs none.")),
    credentialsForm({ title: t("Sign in"), path: "/api/account/login", submit: t("Sign in"), busy: t("Signing in…"), autocomplete: "current-password" }, limits),
    credentialsForm({ title: t("Create an account"), path: "/api/account/signup", submit: t("Sign up"), busy: t("Signing up…"), autocomplete: "new-password", rule: true }, limits),
    h(
      "details",
      { class: "forgot", id: "forgot" },
      h("summary", {}, t("Forgot your password?")),
      h("p", {}, t("Ask the site's administrator for a reset code (the site sends no e-mail), then set a new password here.")),
      credentialsForm({ title: t("Set a new password"), path: "/api/account/reset", submit: t("Set the password"), busy: t("Setting…"), autocomplete: "new-password", rule: true, code: true }, limits),
    ),
  );
}
