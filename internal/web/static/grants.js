// Switchboard UI: the apps page (the user's OAuth grants: list, revoke).
"use strict";

(() => {
  const { el, api } = SB;
  const rows = document.getElementById("grant-rows"), status = document.getElementById("grants-status");

  function row(g) {
    const revoke = el("button", { type: "button", class: "danger", text: "Revoke" });
    revoke.addEventListener("click", async () => {
      try {
        await api("DELETE", "/api/v1/oauth/grants/" + encodeURIComponent(g.id));
        load();
      } catch (err) { status.textContent = err.message; }
    });
    return el("tr", { "data-grant": g.id },
      el("td", { "data-label": "App" }, el("strong", { text: g.clientName || "(unnamed app)" }), " ", el("code", { text: g.clientId })),
      el("td", { "data-label": "Resource" }, el("code", { text: g.resource })),
      el("td", { "data-label": "Since" }, el("time", { datetime: g.createdAt, text: SB.time(g.createdAt) })),
      el("td", { "data-label": "Action" }, revoke));
  }

  async function load() {
    status.textContent = "Loading…";
    try {
      const page = await api("GET", "/api/v1/oauth/grants");
      const items = page.items || [];
      rows.replaceChildren(...items.map(row));
      status.textContent = items.length ? "" : "No app is authorized to act as you.";
    } catch (e) { status.textContent = e.message; }
  }

  load();
})();
