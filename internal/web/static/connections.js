// Switchboard UI: the connections page (the user's own credentials for
// per-user servers: connect, replace, disconnect; never shown back). A
// server the user signs in to (OAuth) has a Connect button that sends the
// browser to its authorization server; the browser comes back to
// /connections/oauth/callback, this page, which finishes the sign-in as
// the signed-in user and removes the answer from the address bar.
"use strict";

(() => {
  const { el, api } = SB;
  const rows = document.getElementById("conn-rows"), status = document.getElementById("conn-status");

  async function signIn(c) {
    try {
      const r = await api("POST", "/api/v1/connections/" + encodeURIComponent(c.server) + "/authorize");
      window.location.assign(r.authorizationURL);
    } catch (err) { status.textContent = err.message; }
  }

  function oauthActions(c) {
    const go = el("button", { type: "button", text: c.connected ? "Reconnect" : "Connect" });
    go.addEventListener("click", () => signIn(c));
    return [go];
  }

  function row(c) {
    if (c.oauth) return rowOf(c, oauthActions(c));
    const input = el("input", { type: "password", autocomplete: "off", "aria-label": "Value for " + c.server, placeholder: c.takes });
    const connect = el("button", { type: "submit", text: c.connected ? "Replace" : "Connect" });
    const form = el("form", { class: "inline" }, input, connect);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (!input.value) return;
      try {
        await api("PUT", "/api/v1/connections/" + encodeURIComponent(c.server), { value: input.value });
        input.value = "";
        load();
      } catch (err) { status.textContent = err.message; }
    });
    const actions = [form];
    if (c.connected) {
      const off = el("button", { type: "button", class: "danger", text: "Disconnect" });
      off.addEventListener("click", async () => {
        try {
          await api("DELETE", "/api/v1/connections/" + encodeURIComponent(c.server));
          load();
        } catch (err) { status.textContent = err.message; }
      });
      actions.push(off);
    }
    return rowOf(c, actions);
  }

  function rowOf(c, actions) {
    if (c.oauth && (c.connected || c.reconnect)) {
      const off = el("button", { type: "button", class: "danger", text: "Disconnect" });
      off.addEventListener("click", async () => {
        try {
          await api("DELETE", "/api/v1/connections/" + encodeURIComponent(c.server));
          load();
        } catch (err) { status.textContent = err.message; }
      });
      actions.push(off);
    }
    let state = c.connected
      ? el("span", {}, el("span", { class: "badge ok", text: "connected" }), " since ", el("time", { datetime: c.since, text: SB.time(c.since) }))
      : el("span", { class: "badge warn", text: "not connected" });
    if (c.reconnect) state = el("span", { title: c.reconnect }, el("span", { class: "badge warn", text: "needs reconnect" }));
    return el("tr", { "data-server": c.server },
      el("td", { "data-label": "Server" }, el("code", { text: c.server })),
      el("td", { "data-label": "Takes", text: c.takes }),
      el("td", { "data-label": "Status" }, state),
      el("td", { "data-label": "Action" }, ...actions));
  }

  async function load() {
    status.textContent = "Loading…";
    try {
      const page = await api("GET", "/api/v1/connections");
      const items = page.items || [];
      rows.replaceChildren(...items.map(row));
      status.textContent = items.length ? "" : "No server here takes your own credentials.";
    } catch (e) { status.textContent = e.message; }
  }

  // finish completes a sign-in when the authorization server sent the
  // browser back here, then shows the page without the answer in its URL.
  async function finish() {
    const q = new URLSearchParams(window.location.search);
    if (window.location.pathname !== "/connections/oauth/callback") return;
    history.replaceState(null, "", "/connections");
    const body = {};
    for (const k of ["state", "code", "iss", "error", "error_description"]) body[k] = q.get(k) || "";
    try {
      const c = await api("POST", "/api/v1/connections/oauth/callback", body);
      done = c.server + " connected.";
    } catch (err) { done = err.message; }
  }

  let done = "";
  finish().then(async () => {
    await load();
    if (done) status.textContent = done;
  });
})();
