// Switchboard UI: the MCP servers' prompts and resources in the chat.
// Typing "/" at the start of the composer lists the prompts the user may
// run (GET /api/v1/prompts), filtered as they type; choosing one opens a
// small form for its arguments, whose values are completed by the server
// (POST /api/v1/complete), and running it sends the prompt as the turn
// (chat.js SB.chat.runPrompt). "@" followed by letters, or the "Attach
// resource" button, lists the resources and resource templates
// (GET /api/v1/resources); a chosen one is attached to the next message
// as a chip, and the server reads it when the message is sent.
"use strict";

(() => {
  const { el, api } = SB;
  const $ = (id) => document.getElementById(id);
  const input = $("input"), box = $("suggest"), form = $("prompt-form"), chips = $("resource-chips");

  let prompts = null;     // the prompts, once listed
  let resources = null;   // {items, templates}, once listed
  let picked = [];        // URIs attached to the next message
  let shown = [];         // the suggestions shown: {label, detail, choose}
  let active = 0;         // the highlighted suggestion
  let picker = false;     // the list was opened by the button, not by typing

  async function loadPrompts() {
    if (!prompts) {
      try { prompts = (await api("GET", "/api/v1/prompts")).items || []; } catch (_) { prompts = []; }
    }
    return prompts;
  }
  async function loadResources() {
    if (!resources) {
      try { resources = await api("GET", "/api/v1/resources"); } catch (_) { resources = { items: [], templates: [] }; }
    }
    return resources;
  }

  // ---- the suggestion list -------------------------------------------

  function hide() { box.hidden = true; shown = []; box.replaceChildren(); }

  function show(items, byButton) {
    shown = items; active = 0; picker = !!byButton;
    if (!items.length) { hide(); return; }
    render();
    box.hidden = false;
  }

  function render() {
    box.replaceChildren(...shown.map((s, i) => el("div", {
      class: "option" + (i === active ? " active" : ""), role: "option", "aria-selected": i === active ? "true" : "false",
      "data-value": s.value, onmousedown: (e) => { e.preventDefault(); choose(i); },
    }, el("span", { class: "name", text: s.label }), s.detail ? el("span", { class: "muted", text: " " + s.detail }) : null)));
  }

  function choose(i) {
    const s = shown[i];
    hide();
    if (s) s.choose();
  }

  const matches = (q, ...fields) => fields.some((f) => (f || "").toLowerCase().includes(q.toLowerCase()));

  // update looks at the text before the caret: "/query" alone lists
  // prompts, "@query" at a word's start lists resources.
  let asked = 0; // the latest update; an older one's answer is dropped
  async function update() {
    const mine = ++asked;
    const before = input.value.slice(0, input.selectionStart);
    const slash = /^\/(\S*)$/.exec(before);
    if (slash) {
      const q = slash[1];
      const ps = (await loadPrompts()).filter((p) => matches(q, p.name, p.title));
      if (mine !== asked) return;
      show(ps.map((p) => ({ value: p.name, label: "/" + p.name, detail: p.title || p.description || "", choose: () => { input.value = ""; openPrompt(p); } })));
      return;
    }
    const at = /(^|\s)@(\S+)$/.exec(before);
    if (at) {
      const q = at[2], start = before.length - q.length - 1;
      const cut = () => { input.value = input.value.slice(0, start) + input.value.slice(before.length); input.focus(); };
      const opts = await resourceOptions(q, cut);
      if (mine === asked) show(opts);
      return;
    }
    hide();
    asked++;
  }

  async function resourceOptions(q, cut) {
    const rs = await loadResources();
    const out = [];
    for (const r of rs.items || []) {
      if (matches(q, r.name, r.uri, r.title)) out.push({ value: r.uri, label: "@" + r.name, detail: r.uri, choose: () => { cut(); attach(r.uri); } });
    }
    for (const t of rs.templates || []) {
      if (matches(q, t.name, t.uriTemplate, t.title)) out.push({ value: t.uriTemplate, label: "@" + t.name, detail: t.uriTemplate, choose: () => { cut(); openTemplate(t); } });
    }
    return out.slice(0, 50);
  }

  // ---- attached resources ---------------------------------------------

  function attach(uri) {
    if (!picked.includes(uri)) picked.push(uri);
    showChips();
  }

  function showChips() {
    chips.replaceChildren(...picked.map((uri, i) => el("span", { class: "chip resource", title: uri },
      "📎 " + uri.replace(/^switchboard:\/\//, ""),
      el("button", { type: "button", class: "secondary", "aria-label": "Remove " + uri, text: "✕", onclick: () => { picked.splice(i, 1); showChips(); } }))));
  }

  SB.chat.takeResources = () => { const r = picked; picked = []; showChips(); return r; };

  // ---- the arguments form ---------------------------------------------

  // openForm asks for fields [{name, title, description, required}];
  // each value is completed through ref as the user types, with the other
  // values as context; submit(values) gets the values filled in.
  function openForm(title, description, fields, ref, submit) {
    const inputs = {};
    const rows = fields.map((f) => {
      const id = "arg-" + f.name.replace(/[^A-Za-z0-9_-]/g, "_");
      const list = el("datalist", { id: id + "-values" });
      const field = el("input", { id, name: f.name, list: id + "-values", autocomplete: "off", required: !!f.required, "data-arg": f.name });
      let seq = 0;
      const complete = async () => {
        const mine = ++seq;
        const context = {};
        for (const [k, v] of Object.entries(inputs)) if (k !== f.name && v.value) context[k] = v.value;
        try {
          const r = await api("POST", "/api/v1/complete", { ref, argument: f.name, value: field.value, context });
          if (mine === seq) list.replaceChildren(...(r.values || []).map((v) => el("option", { value: v })));
        } catch (_) { /* the server offers no completion: the field stays free text */ }
      };
      field.addEventListener("input", complete);
      field.addEventListener("focus", complete);
      inputs[f.name] = field;
      return el("div", { class: "field" },
        el("label", { for: id, text: (f.title || f.name) + (f.required ? " *" : "") }),
        field, list,
        f.description ? el("span", { class: "muted", text: " " + f.description }) : null);
    });
    // A div, not a form: the composer is a form already, and forms do not
    // nest. Enter in a field runs, as the Run button does.
    const submitForm = () => {
      const values = {};
      for (const f of fields) {
        const v = inputs[f.name].value.trim();
        if (f.required && !v) { inputs[f.name].focus(); SB.notice((f.title || f.name) + " is required."); return; }
        if (v) values[f.name] = v;
      }
      SB.notice("");
      close();
      submit(values);
      input.focus();
    };
    const run = el("button", { type: "button", class: "run", text: "Run", onclick: submitForm });
    const cancel = el("button", { type: "button", class: "secondary", text: "Cancel", onclick: () => { close(); input.focus(); } });
    const inner = el("div", { class: "args", role: "group", "aria-label": title },
      el("strong", { text: title }), description ? el("p", { class: "muted", text: description }) : null,
      ...rows, el("div", { class: "row end" }, cancel, run));
    inner.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.isComposing) { e.preventDefault(); e.stopPropagation(); submitForm(); }
      if (e.key === "Escape") { e.preventDefault(); close(); input.focus(); }
    });
    form.replaceChildren(inner);
    form.hidden = false;
    const first = fields.length ? inputs[fields[0].name] : run;
    first.focus();
  }

  function close() { form.hidden = true; form.replaceChildren(); }

  function openPrompt(p) {
    const args = p.arguments || [];
    if (!args.length) { SB.chat.runPrompt(p.name, {}); return; }
    openForm("/" + p.name, p.description, args, { prompt: p.name }, (values) => SB.chat.runPrompt(p.name, values));
  }

  // openTemplate asks for a template's variables ({name} in RFC 6570's
  // simplest form) and attaches the resource they make.
  function openTemplate(t) {
    const vars = [...new Set([...t.uriTemplate.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]))];
    openForm("@" + t.name, t.description, vars.map((name) => ({ name, required: true })), { template: t.uriTemplate }, (values) => {
      attach(t.uriTemplate.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(values[name] || "")));
    });
  }

  // ---- wiring ------------------------------------------------------------

  input.addEventListener("input", () => { update().catch((e) => SB.notice(e.message)); });
  // Registered in the capture phase so that, while the list is open,
  // Enter chooses instead of sending (chat.js listens after this).
  input.addEventListener("keydown", (e) => {
    if (box.hidden || !shown.length) return;
    const take = () => { e.preventDefault(); e.stopImmediatePropagation(); };
    switch (e.key) {
      case "ArrowDown": take(); active = (active + 1) % shown.length; render(); break;
      case "ArrowUp": take(); active = (active + shown.length - 1) % shown.length; render(); break;
      case "Enter": case "Tab": take(); choose(active); break;
      case "Escape": take(); hide(); break;
    }
  }, { capture: true });
  input.addEventListener("blur", () => setTimeout(() => { if (!picker) hide(); }, 150));
  $("pick-resource").addEventListener("click", async () => {
    if (!box.hidden) { hide(); return; }
    const opts = await resourceOptions("", () => {});
    if (!opts.length) { SB.notice("No resources: no MCP server you may use offers any."); return; }
    show(opts, true);
  });
})();
