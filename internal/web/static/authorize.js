// Switchboard UI: the OAuth consent page. The server showed it for a
// checked authorization request; this asks the consent API, as the
// signed-in user, what the request is, and sends the person's answer.
// The answer is a JSON POST with the user's credential, which no other
// site can forge; the server returns where to send the browser.
"use strict";

(() => {
  const { el, api } = SB;
  const status = document.getElementById("consent-status");
  const box = document.getElementById("consent");
  const query = location.search.replace(/^\?/, "");
  const set = (id, ...nodes) => document.getElementById(id).replaceChildren(...nodes);

  async function decide(approve) {
    for (const b of box.querySelectorAll("button")) b.disabled = true;
    status.textContent = approve ? "Approving…" : "Denying…";
    try {
      const r = await api("POST", "/api/v1/oauth/consent", { query, approve });
      status.textContent = "Returning to the app…";
      location.assign(r.redirect);
    } catch (e) {
      status.textContent = e.message;
      for (const b of box.querySelectorAll("button")) b.disabled = false;
    }
  }

  async function load() {
    try {
      const c = await api("GET", "/api/v1/oauth/consent?" + query);
      set("consent-client", el("strong", { text: c.client.name || "(unnamed app)" }), " ", el("code", { text: c.client.id }));
      set("consent-source", c.client.source === "metadata"
        ? "its metadata document at " + c.client.id
        : "it registered itself with this server (its name is its own claim)");
      set("consent-redirect", el("strong", { text: c.client.redirectHost }), " ", el("code", { text: c.client.redirectUri }));
      set("consent-resource", el("code", { text: c.resource }));
      set("consent-scopes", c.scopes.length ? c.scopes.join(" ") : "none");
      set("consent-user", el("strong", { text: c.user.name }), " (" + c.user.role + ")");
      set("consent-tools", c.tools.length ? c.tools.join(", ") : "none");
      box.hidden = false;
      status.textContent = "";
    } catch (e) {
      status.textContent = e.message;
    }
  }

  document.getElementById("consent-approve").addEventListener("click", () => decide(true));
  document.getElementById("consent-deny").addEventListener("click", () => decide(false));
  load();
})();
