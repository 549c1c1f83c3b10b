// The account page: sign up, sign in, sign out, change the password.

/** @import { AccountInfo, Bounds, RequestLimits } from "./types.js" */
/** @import { Attrs } from "./util.js" */

import { errorText } from "./api.js";
import { currentAccount, playerLink, send, setAccount } from "./community.js";
import { requestLimits } from "./rules.js";
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
 * The form that signs in or signs up (`path`), then goes on to ?next= or the lobby.
 * @param {string} title
 * @param {string} path
 * @param {string} submitText
 * @param {string} autocomplete the password field's: current-password or new-password
 * @param {RequestLimits | null} limits
 * @returns {HTMLFormElement}
 */
function credentialsForm(title, path, submitText, autocomplete, limits) {
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "card", "aria-label": title },
    h("h2", {}, title),
    field("Username", { name: "username", required: true, ...lengths(limits?.username_length), autocomplete: "username" }),
    " ",
    field("Password", { name: "password", type: "password", required: true, ...lengths(limits?.password_length), autocomplete }),
    " ",
    h("button", { type: "submit", class: "primary" }, submitText),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const data = new FormData(form);
    try {
      /** @type {AccountInfo} */
      const account = await send("POST", path, {
        username: data.get("username"),
        password: data.get("password"),
      });
      setAccount(account);
      announce(`Signed in as ${account.username}.`);
      window.location.assign(sitePath(new URLSearchParams(window.location.search).get("next")));
    } catch (err) {
      error.textContent = errorText(err);
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
    credentialsForm("Sign in", "/api/account/login", "Sign in", "current-password", limits),
    credentialsForm("Create an account", "/api/account/signup", "Sign up", "new-password", limits),
  );
}
