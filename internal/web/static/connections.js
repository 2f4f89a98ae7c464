// Switchboard UI: the connections page (the user's own credentials for
// per-user servers: connect, replace, disconnect; never shown back).
"use strict";

(() => {
  const { el, api } = SB;
  const rows = document.getElementById("conn-rows"), status = document.getElementById("conn-status");

  function row(c) {
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
    const state = c.connected
      ? el("span", {}, el("span", { class: "badge ok", text: "connected" }), " since ", el("time", { datetime: c.since, text: SB.time(c.since) }))
      : el("span", { class: "badge warn", text: "not connected" });
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

  load();
})();
