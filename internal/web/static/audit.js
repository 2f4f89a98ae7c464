// Switchboard UI: the audit page (tool calls, newest first, with filters).
"use strict";

(() => {
  const { el, api } = SB;
  const rows = document.getElementById("audit-rows"), status = document.getElementById("audit-status");
  const form = document.getElementById("filters");

  function badge(v, goodValues) {
    if (!v) return "";
    const cls = goodValues.includes(v) ? "ok" : v === "running" || v === "pending" ? "warn" : "bad";
    return el("span", { class: "badge " + cls, text: v });
  }

  function row(r) {
    const args = SB.pretty(r.arguments);
    return el("tr", { "data-id": r.id },
      el("td", { "data-label": "Time" }, el("time", { datetime: r.time, text: SB.time(r.time) })),
      el("td", { "data-label": "Tool" }, el("code", { text: r.tool }), r.server ? el("span", { class: "muted", text: " on " + r.server }) : ""),
      el("td", { "data-label": "User", text: r.user || "" }),
      el("td", { "data-label": "Outcome" }, badge(r.outcome, ["ok"]), r.error ? el("div", { class: "muted", text: r.error }) : ""),
      el("td", { "data-label": "Approval" }, badge(r.approval, ["approved", "auto", "policy", "granted", "allowed", "user"])),
      el("td", { "data-label": "Duration", text: SB.duration(r.durationMs) }),
      el("td", { "data-label": "Arguments" }, args ? el("details", {}, el("summary", { text: "Show" }), el("pre", { text: args })) : ""));
  }

  async function load() {
    const q = new URLSearchParams();
    const tool = form.tool.value.trim(), user = form.user.value.trim(), since = form.since.value;
    if (tool) q.set("tool", tool);
    if (user) q.set("user", user);
    if (since) {
      const d = new Date(since);
      if (!isNaN(d)) q.set("since", d.toISOString().replace(/\.\d{3}Z$/, "Z"));
    }
    q.set("limit", "100");
    status.textContent = "Loading…";
    try {
      const page = await api("GET", "/api/v1/audit?" + q.toString());
      const items = page.items || [];
      rows.replaceChildren(...items.map(row));
      status.textContent = items.length ? items.length + " call(s), newest first" : "No tool calls match.";
    } catch (e) { status.textContent = e.message; }
  }

  form.addEventListener("submit", (e) => { e.preventDefault(); load(); });
  // Only admins read other users' records: others lose the user filter.
  SB.me().then((me) => {
    if (me.role !== "admin") form.user.closest("div").hidden = true;
    form.dataset.role = me.role;
  });
  load();
})();
