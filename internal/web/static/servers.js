// Switchboard UI: the servers page (state, transport, tools, stderr tail,
// restart).
"use strict";

(() => {
  const { el, api } = SB;
  const root = document.getElementById("servers");

  function kv(pairs) {
    const dl = el("dl", { class: "kv" });
    for (const [k, v] of pairs) if (v !== undefined && v !== null && v !== "") dl.append(el("dt", { text: k }), el("dd", { text: String(v) }));
    return dl;
  }

  function stderrBox(name) {
    const pre = el("pre", { text: "Loading…" });
    const box = el("details", {}, el("summary", { text: "stderr (last lines)" }), pre);
    box.addEventListener("toggle", async () => {
      if (!box.open) return;
      try {
        const r = await api("GET", "/api/v1/servers/" + encodeURIComponent(name) + "/stderr");
        pre.textContent = (r.lines || []).length ? r.lines.join("\n") : "(nothing written to stderr)";
      } catch (e) { pre.textContent = e.message; }
    });
    return box;
  }

  // card shows one server; restarting it and reading its stderr are for
  // admins, so other users get neither control.
  function card(s, tools, admin) {
    const state = el("p", { class: "muted", role: "status" });
    const restart = el("button", { type: "button", class: "secondary", text: "Restart", "aria-label": "Restart " + s.name });
    restart.addEventListener("click", async () => {
      restart.disabled = true;
      state.textContent = "Restarting…";
      try { await api("POST", "/api/v1/servers/" + encodeURIComponent(s.name) + "/restart", {}); state.textContent = "Restart requested."; setTimeout(load, 1000); }
      catch (e) { state.textContent = e.message; }
      finally { restart.disabled = false; }
    });
    const toolList = el("ul", {}, tools.map((t) => el("li", {}, el("code", { text: t.name }), t.description ? " — " + t.description.split("\n")[0] : "")));
    return el("article", { class: "card server", "data-server": s.name },
      el("div", { class: "head" }, el("h2", { text: s.name }), el("span", { class: "badge state-" + s.state, text: s.state })),
      kv([["Kind", s.kind], ["Transport", s.transport], ["Protocol", s.protocol], ["Tools", s.tools], ["Restarts", s.restarts], ["Since", SB.time(s.since)]]),
      s.error ? el("p", { class: "note error", text: "Last error: " + s.error }) : null,
      tools.length ? el("details", {}, el("summary", { text: tools.length + " tool(s)" }), toolList) : null,
      admin && s.kind === "mcp" ? stderrBox(s.name) : null,
      admin && s.kind !== "builtin" ? el("div", { class: "row" }, restart) : null,
      state);
  }

  async function load() {
    let servers, tools, me;
    try {
      [servers, tools, me] = await Promise.all([api("GET", "/api/v1/servers"), api("GET", "/api/v1/tools"), SB.me()]);
    } catch (e) { root.replaceChildren(el("p", { class: "note error", text: e.message })); return; }
    const byServer = {};
    for (const t of tools.items || []) {
      const k = (t.origin && t.origin.server) || (t.origin && t.origin.kind === "builtin" ? "builtin" : "");
      (byServer[k] = byServer[k] || []).push(t);
    }
    const items = servers.items || [];
    if (!items.length) { root.replaceChildren(el("p", { class: "muted", text: "No tool servers are configured. Add mcpServers or openapiServers to the config file." })); return; }
    const admin = me.role === "admin";
    const cards = items.map((s) => card(s, byServer[s.name] || [], admin));
    if (!admin) cards.push(el("p", { class: "muted", id: "admin-note", text: "Restarting servers and reading their stderr is for admins." }));
    root.replaceChildren(...cards);
  }

  document.getElementById("refresh").addEventListener("click", load);
  load();
})();
