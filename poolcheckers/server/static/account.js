// The account page: sign up, sign in, sign out, change the password, API tokens.

/** @import { AccountInfo, Bounds, RequestLimits } from "./types.js" */
/** @import { Attrs } from "./util.js" */

import { errorText } from "./api.js";
import { currentAccount, playerLink, send, setAccount } from "./community.js";
import { requestLimits } from "./rules.js";
import { tokensSection } from "./tokens.js";
import { announce, h } from "./util.js";

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
 * @param {string} what "Username" or "Password"
 */
function checkLength(input, bounds, what) {
  if (!bounds) return;
  input.addEventListener("input", () => {
    const n = input.value.length;
    const message = n > bounds.maximum ? `${what} must be ${bounds.minimum} to ${bounds.maximum} characters, not ${n}.` : "";
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
  checkLength(username, usernameBounds, "Username");
  checkLength(password, kind.rule ? limits?.password_length : undefined, "Password");
  const ruleText = usernameBounds ? `${usernameBounds.minimum} to ${usernameBounds.maximum} characters: letters, digits, _ and -, starting with a letter or a digit.` : "";
  const code = kind.code ? h("input", { name: "code", required: true, autocomplete: "one-time-code", autocapitalize: "characters", spellcheck: "false", placeholder: "ABCD-EFGH-JKMN" }) : null;
  const button = h("button", { type: "submit", class: "primary" }, kind.submit);
  const form = h(
    "form",
    { class: "card", "aria-label": kind.title },
    h("h2", {}, kind.title),
    h("label", { class: "field" }, "Username ", username, ruleText ? h("span", { class: "hint" }, ruleText) : "", h("span", { class: "limit error", "aria-live": "polite" })),
    " ",
    code ? h("label", { class: "field" }, "Reset code ", code, h("span", { class: "hint" }, "The site's administrator gives it to you: it works once, for an hour.")) : "",
    h("label", { class: "field" }, kind.code ? "New password " : "Password ", password, kind.rule && limits ? h("span", { class: "hint" }, `At least ${limits.password_length.minimum} characters.`) : "", h("span", { class: "limit error", "aria-live": "polite" })),
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
      announce(`Signed in as ${account.username}.`);
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
 * The page of a signed-in account: its name, sign out, and the password form.
 * @param {HTMLElement} root
 * @param {AccountInfo} account
 * @param {RequestLimits | null} limits
 */
function signedIn(root, account, limits) {
  const error = h("p", { class: "error", role: "alert" });
  const notice = h("p", { class: "notice", role: "status" });
  const password = h(
    "form",
    { class: "card", "aria-label": "Change the password" },
    h("h2", {}, "Change the password"),
    field("Current password", { name: "old", type: "password", required: true, autocomplete: "current-password" }),
    " ",
    field("New password", { name: "new", type: "password", required: true, ...lengths(limits?.password_length), autocomplete: "new-password" }),
    " ",
    h("button", { type: "submit" }, "Change"),
    error,
    notice,
  );
  password.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = notice.textContent = "";
    const data = new FormData(password);
    try {
      /** @type {AccountInfo} */
      const changed = await send("POST", "/api/account/password", { old: data.get("old"), new: data.get("new") });
      setAccount(changed);
      notice.textContent = "Password changed; your other devices are signed out.";
      password.reset();
    } catch (err) {
      error.textContent = errorText(err);
    }
  });
  const out = h("button", { type: "button" }, "Sign out");
  out.addEventListener("click", async () => {
    await send("POST", "/api/account/logout");
    setAccount(null);
    window.location.assign("/account");
  });
  root.replaceChildren(
    h("h1", {}, "Account"),
    h("p", {}, "Signed in as ", playerLink(account.username), ". ", h("a", { href: "/lobby" }, "To the lobby"), " ", out),
    password,
    tokensSection(),
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
    h("h1", {}, "Account"),
    h("p", {}, "An account gives you a name, a rating and your games on every device. Playing the engine, on one screen or by an invitation link needs none."),
    credentialsForm({ title: "Sign in", path: "/api/account/login", submit: "Sign in", busy: "Signing in…", autocomplete: "current-password" }, limits),
    credentialsForm({ title: "Create an account", path: "/api/account/signup", submit: "Sign up", busy: "Signing up…", autocomplete: "new-password", rule: true }, limits),
    h(
      "details",
      { class: "forgot", id: "forgot" },
      h("summary", {}, "Forgot your password?"),
      h("p", {}, "Ask the site's administrator for a reset code (the site sends no e-mail), then set a new password here."),
      credentialsForm({ title: "Set a new password", path: "/api/account/reset", submit: "Set the password", busy: "Setting…", autocomplete: "new-password", rule: true, code: true }, limits),
    ),
  );
}
