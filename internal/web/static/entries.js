// Switchboard UI: the admin's part of the servers page: MCP servers and
// OpenAPI services added at run time (list, enable, disable, remove) and a
// form to add one, showing every problem the server's validation finds.
"use strict";

(() => {
  const { el, api } = SB;
  const root = document.getElementById("entries");
  if (!root) return;

  const base = (e) => "/api/v1/config/" + encodeURIComponent(e.kind) + "/" + encodeURIComponent(e.name);

  function row(e, reload) {
    const state = el("span", { class: "muted", role: "status" });
    const act = (label, method, path) => {
      const b = el("button", { type: "button", class: "secondary", text: label, "aria-label": label + " " + e.name });
      b.addEventListener("click", async () => {
        b.disabled = true;
        try { await api(method, path, method === "POST" ? {} : undefined); reload(); }
        catch (err) { state.textContent = err.message; b.disabled = false; }
      });
      return b;
    };
    // test runs the doctor's steps on the server in a process of its own
    // and shows each step's outcome.
    const report = el("ul", { class: "steps", "data-report": e.name });
    const test = el("button", { type: "button", class: "secondary", text: "Test", "aria-label": "Test " + e.name });
    test.addEventListener("click", async () => {
      test.disabled = true;
      state.textContent = "Testing…";
      try {
        const r = await api("POST", base(e) + "/test", {});
        state.textContent = r.OK ? "All checks passed." : "Some checks failed.";
        report.replaceChildren(...(r.Steps || []).map((st) => el("li", { class: st.OK ? "ok" : "error",
          text: st.Name + ": " + (st.Skipped ? "skipped" : st.OK ? "ok" + (st.Detail ? " — " + st.Detail : "") : "FAILED — " + st.Err + (st.Hint ? " (fix: " + st.Hint + ")" : "")) })));
      } catch (err) { state.textContent = err.message; }
      finally { test.disabled = false; }
    });
    const controls = e.source === "file"
      ? [el("span", { class: "badge", text: "from the file: change it there" })]
      : e.kind === "model" ? [act("Remove", "DELETE", base(e))]
      : [e.disabled ? act("Enable", "POST", base(e) + "/enable") : act("Disable", "POST", base(e) + "/disable"), act("Remove", "DELETE", base(e))];
    return el("li", { "data-entry": e.kind + "/" + e.name },
      el("code", { text: e.name }), " ", el("span", { class: "muted", text: e.kind + (e.disabled ? ", disabled" : "") + (e.updatedBy ? ", by " + e.updatedBy : "") }), " ",
      ...controls, " ", e.kind === "server" && !e.disabled ? test : null, " ", state,
      el("pre", { class: "entry", text: JSON.stringify(e.entry) }), report);
  }

  function form(reload) {
    const name = el("input", { id: "entry-name", required: "", placeholder: "files", autocomplete: "off" });
    const kind = el("select", { id: "entry-kind" }, el("option", { value: "server", text: "MCP server (stdio, http, sse)" }), el("option", { value: "openapi", text: "OpenAPI service" }), el("option", { value: "model", text: "Model" }));
    const body = el("textarea", { id: "entry-body", rows: "5", placeholder: '{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}' });
    const problems = el("pre", { id: "entry-problems", class: "note error", hidden: "" });
    const add = el("button", { type: "submit", text: "Add" });
    const f = el("form", { id: "entry-form" },
      el("label", { for: "entry-name", text: "Name" }), name,
      el("label", { for: "entry-kind", text: "Kind" }), kind,
      el("label", { for: "entry-body", text: "Entry (JSON, as in the config file; secrets are stored encrypted and never shown again)" }), body,
      el("div", { class: "row" }, add), problems);
    f.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      problems.hidden = true;
      let entry;
      try { entry = JSON.parse(body.value || "{}"); }
      catch (err) { problems.textContent = "The entry is not JSON: " + err.message; problems.hidden = false; return; }
      add.disabled = true;
      try {
        await api("POST", "/api/v1/config/" + encodeURIComponent(kind.value), { name: name.value.trim(), entry });
        name.value = ""; body.value = "";
        reload();
      } catch (err) { problems.textContent = err.message; problems.hidden = false; }
      finally { add.disabled = false; }
    });
    return f;
  }

  async function load() {
    let me, entries;
    try {
      me = await SB.me();
      if (me.role !== "admin") { root.hidden = true; return; }
      entries = await api("GET", "/api/v1/config/entries");
    } catch (e) {
      // 404: this server does not manage runtime entries; nothing to show.
      if (e.status === 404) { root.hidden = true; return; }
      root.hidden = false;
      root.replaceChildren(el("p", { class: "note error", text: e.message }));
      return;
    }
    root.hidden = false;
    const items = entries.items || [];
    root.replaceChildren(
      el("h2", { text: "Configured servers" }),
      el("p", { class: "muted", text: "Servers added here are kept in the database and applied by every replica within a second; the file's own are changed in the file." }),
      items.length ? el("ul", { id: "entry-list" }, items.map((e) => row(e, load))) : el("p", { class: "muted", text: "None yet." }),
      el("h2", { text: "Add a server" }),
      form(load));
  }
  load();
})();
