// Switchboard UI: the tools page (search, and a "try it" form built from
// each tool's JSON input schema, with a raw JSON fallback).
"use strict";

(() => {
  const { el, api } = SB;
  const root = document.getElementById("tools"), search = document.getElementById("search"), count = document.getElementById("count");
  let all = [];

  // simpleField reports whether the form can render the property schema p.
  function simpleField(p) {
    if (!p || typeof p !== "object") return false;
    if (Array.isArray(p.enum) && p.enum.every((v) => typeof v === "string" || typeof v === "number")) return true;
    if (["string", "number", "integer", "boolean"].includes(p.type)) return true;
    return p.type === "array" && p.items && p.items.type === "string" && !p.items.enum;
  }

  // formable reports whether every property of the schema renders as a field.
  function formable(s) {
    if (!s || s.type !== "object" && !s.properties) return false;
    if (s.oneOf || s.anyOf || s.allOf || s.$ref) return false;
    return Object.values(s.properties || {}).every(simpleField);
  }

  function field(toolName, name, p, required) {
    const id = "f-" + toolName + "-" + name;
    const label = el("label", { for: id }, name, required ? el("span", { class: "req", "aria-hidden": "true", text: " *" }) : "");
    let input;
    if (Array.isArray(p.enum)) {
      input = el("select", { id }, required ? null : el("option", { value: "", text: "(not set)" }), p.enum.map((v) => el("option", { value: String(v), text: String(v) })));
    } else if (p.type === "boolean") {
      input = el("select", { id }, required ? null : el("option", { value: "", text: "(not set)" }), el("option", { value: "true", text: "true" }), el("option", { value: "false", text: "false" }));
    } else if (p.type === "array") {
      input = el("textarea", { id, rows: 3, placeholder: "one value per line" });
    } else if (p.type === "number" || p.type === "integer") {
      input = el("input", { id, type: "number", step: p.type === "integer" ? "1" : "any" });
    } else {
      input = el("input", { id, type: "text" });
    }
    if (p.default !== undefined && input.tagName !== "SELECT") input.value = Array.isArray(p.default) ? p.default.join("\n") : String(p.default);
    if (required) input.required = true;
    input.dataset.name = name;
    const desc = p.description ? el("span", { class: "desc", id: id + "-desc", text: p.description }) : null;
    if (desc) input.setAttribute("aria-describedby", id + "-desc");
    return el("div", { class: "field" }, label, input, desc);
  }

  // valueOf converts a field's text to the schema's type; undefined leaves
  // the argument out.
  function valueOf(input, p) {
    const v = input.value;
    if (v === "") return undefined;
    if (Array.isArray(p.enum)) { const hit = p.enum.find((e) => String(e) === v); return hit === undefined ? v : hit; }
    switch (p.type) {
      case "boolean": return v === "true";
      case "integer": case "number": return Number(v);
      case "array": return v.split("\n").map((s) => s.trim()).filter(Boolean);
    }
    return v;
  }

  function tryForm(t) {
    const schema = t.inputSchema || {};
    const result = el("div", { class: "result", "aria-live": "polite" });
    const props = schema.properties || {}, req = schema.required || [];
    const useForm = formable(schema);
    const fields = useForm ? Object.entries(props).map(([n, p]) => field(t.name, n, p, req.includes(n))) : [];
    const rawId = "raw-" + t.name;
    const raw = useForm ? null : el("textarea", { id: rawId, rows: 6, text: "{}" });
    const run = el("button", { type: "submit", text: "Run " + t.name });
    const form = el("form", { class: "tool-form", "data-tool": t.name },
      useForm && !fields.length ? el("p", { class: "muted", text: "This tool takes no arguments." }) : null,
      ...fields,
      raw ? el("div", { class: "field" }, el("label", { for: rawId, text: "Arguments (JSON)" }), raw,
        el("span", { class: "desc", text: "The schema is too complex for a form; write the arguments as JSON." }),
        el("details", {}, el("summary", { text: "Input schema" }), el("pre", { text: SB.pretty(schema) }))) : null,
      el("div", { class: "row" }, run), result);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      let args = {};
      if (raw) {
        try { args = JSON.parse(raw.value || "{}"); } catch (err) { result.replaceChildren(el("p", { class: "note error", text: "The arguments are not valid JSON: " + err.message })); return; }
      } else {
        for (const f of form.querySelectorAll("[data-name]")) {
          const v = valueOf(f, props[f.dataset.name]);
          if (v !== undefined) args[f.dataset.name] = v;
        }
      }
      run.disabled = true;
      result.replaceChildren(el("p", { class: "muted" }, el("span", { class: "spinner", "aria-hidden": "true" }), " Running…"));
      // A call the approval policy asks about waits on a stored approval:
      // show it here, with the exact arguments, until the call answers.
      let waiting = true;
      const asked = new Set();
      const watch = async () => {
        while (waiting) {
          await new Promise((r) => setTimeout(r, 700));
          if (!waiting) return;
          let l;
          try { l = await api("GET", "/api/v1/approvals"); } catch (err) { continue; }
          for (const a of (l.items || [])) {
            if (a.conversationId || a.tool !== t.name || asked.has(a.id) || !waiting) continue;
            asked.add(a.id);
            result.replaceChildren(approvalPrompt(a));
          }
        }
      };
      watch();
      try {
        const r = await api("POST", "/api/v1/tools/" + encodeURIComponent(t.name) + "/call", { arguments: args });
        const text = (r.content || []).map((c) => c.type === "text" ? c.text : "[" + c.type + (c.mimeType ? " " + c.mimeType : "") + "]").join("\n");
        result.className = "result" + (r.isError ? " error" : "");
        result.replaceChildren(
          el("div", { class: "head" }, el("strong", { text: "Result" }), el("span", { class: "badge " + (r.isError ? "bad" : "ok"), text: r.isError ? "isError" : "ok" })),
          el("pre", { class: "result-text", text: text || "(no text)" }));
        if (r.structuredContent) result.append(el("details", {}, el("summary", { text: "Structured content" }), el("pre", { text: SB.pretty(r.structuredContent) })));
      } catch (err) {
        result.className = "result error";
        result.replaceChildren(el("p", { class: "note error", text: err.message }));
      } finally { waiting = false; run.disabled = false; }
    });
    return form;
  }

  // approvalPrompt asks the person to approve one call made from this
  // page. It is approved once: a call outside a conversation has nothing
  // to approve it for beyond itself.
  function approvalPrompt(a) {
    const state = el("span", { class: "muted" });
    const buttons = [];
    const decide = async (decision) => {
      buttons.forEach((b) => { b.disabled = true; });
      try {
        await api("POST", "/api/v1/approvals/" + encodeURIComponent(a.id), { decision });
        state.textContent = decision === "deny" ? "Declined." : "Approved; running…";
      } catch (err) {
        state.textContent = err.message;
        buttons.forEach((b) => { b.disabled = false; });
      }
    };
    buttons.push(
      el("button", { type: "button", class: "approve", text: "Approve this call", onclick: () => decide("approve") }),
      el("button", { type: "button", class: "danger deny", text: "Decline", onclick: () => decide("deny") }));
    return el("div", { class: "card approval", "data-approval": a.id, role: "group", "aria-label": "Approval needed for " + a.tool },
      el("div", { class: "head" }, el("strong", { text: "Approve " + a.tool + "?" }), a.server ? el("span", { class: "muted", text: "on " + a.server }) : null),
      el("p", { class: "muted", text: "The approval policy asks before this tool runs. Approving runs this one call, with these arguments." }),
      el("pre", { text: SB.pretty(a.arguments) || "{}" }),
      el("div", { class: "row" }, ...buttons), state);
  }

  // description shows a tool's first line, and the whole text (rendered
  // as safe markdown) on demand: some descriptions are pages long.
  function description(d) {
    if (!d) return null;
    const first = d.split(/\n\s*\n/)[0].replace(/\s+/g, " ").trim();
    const short = first.length > 160 ? first.slice(0, 157) + "…" : first;
    if (short === d.trim()) return el("p", {}, ...SB.inline(d));
    return el("div", {}, el("p", {}, ...SB.inline(short)),
      el("details", { class: "desc-full" }, el("summary", { text: "Full description" }), el("div", {}, SB.markdown(d))));
  }

  function card(t) {
    const o = t.origin || {};
    const a = t.annotations || {};
    const tags = [];
    if (a.readOnlyHint) tags.push(el("span", { class: "badge ok", text: "read-only" }));
    if (a.destructiveHint || (!a.readOnlyHint && a.destructiveHint !== false)) tags.push(el("span", { class: "badge warn", text: "may change things" }));
    const tryBox = el("details", { class: "try" }, el("summary", { text: "Try it" }));
    tryBox.addEventListener("toggle", () => { if (tryBox.open && tryBox.children.length === 1) tryBox.append(tryForm(t)); }, { once: false });
    return el("article", { class: "card tool", "data-tool": t.name },
      el("div", { class: "head" }, el("h2", {}, el("code", { text: t.name })), ...tags),
      el("p", { class: "muted", text: (o.kind || "") + (o.server ? " · " + o.server : "") + (o.name && o.name !== t.name ? " · " + o.name : "") }),
      description(t.description),
      tryBox);
  }

  function show() {
    const q = search.value.trim().toLowerCase();
    const hits = all.filter((t) => !q || [t.name, t.title, t.description, t.origin && t.origin.server, t.origin && t.origin.kind]
      .some((s) => s && String(s).toLowerCase().includes(q)));
    root.replaceChildren(...hits.map((t) => t.card));
    count.textContent = hits.length + " of " + all.length + " tools";
  }

  async function load() {
    try {
      const page = await api("GET", "/api/v1/tools");
      all = (page.items || []).map((t) => Object.assign(t, { card: card(t) }));
      show();
    } catch (e) { root.replaceChildren(el("p", { class: "note error", text: e.message })); }
  }

  search.addEventListener("input", show);
  load();
})();
