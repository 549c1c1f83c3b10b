// The account page: sign up, sign in, sign out, change the password.

import { currentAccount, playerLink, send, setAccount } from "./community.js";
import { announce, h } from "./util.js";

function field(label, attrs) {
  return h("label", { class: "field" }, label, " ", h("input", attrs));
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

function credentialsForm(title, path, submitText, autocomplete) {
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "card", "aria-label": title },
    h("h2", {}, title),
    field("Username", { name: "username", required: true, minlength: 2, maxlength: 20, autocomplete: "username" }),
    " ",
    field("Password", { name: "password", type: "password", required: true, minlength: 8, maxlength: 256, autocomplete }),
    " ",
    h("button", { type: "submit", class: "primary" }, submitText),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const data = new FormData(form);
    try {
      const account = await send("POST", path, {
        username: data.get("username"),
        password: data.get("password"),
      });
      setAccount(account);
      announce(`Signed in as ${account.username}.`);
      window.location.assign(sitePath(new URLSearchParams(window.location.search).get("next")));
    } catch (err) {
      error.textContent = err.message;
    }
  });
  return form;
}

function signedIn(root, account) {
  const error = h("p", { class: "error", role: "alert" });
  const notice = h("p", { class: "notice", role: "status" });
  const password = h(
    "form",
    { class: "card", "aria-label": "Change the password" },
    h("h2", {}, "Change the password"),
    field("Current password", { name: "old", type: "password", required: true, autocomplete: "current-password" }),
    " ",
    field("New password", { name: "new", type: "password", required: true, minlength: 8, autocomplete: "new-password" }),
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
      setAccount(await send("POST", "/api/account/password", { old: data.get("old"), new: data.get("new") }));
      notice.textContent = "Password changed; your other devices are signed out.";
      password.reset();
    } catch (err) {
      error.textContent = err.message;
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

export async function render(root) {
  const account = await currentAccount(true);
  if (account) {
    signedIn(root, account);
    return;
  }
  root.replaceChildren(
    h("h1", {}, "Account"),
    h("p", {}, "An account gives you a name, a rating and your games on every device. Playing the engine, on one screen or by an invitation link needs none."),
    credentialsForm("Sign in", "/api/account/login", "Sign in", "current-password"),
    credentialsForm("Create an account", "/api/account/signup", "Sign up", "new-password"),
  );
}
