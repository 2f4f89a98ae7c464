// Switchboard UI: an MCP server's question to the person (elicitation),
// shown in the chat as a card. Form mode renders the requested schema as a
// form (title as label, description as help, defaults filled, required
// marked) and answers accept with its values, decline or cancel: three
// distinct answers the server receives as such. The server checks the
// values against the schema again and refuses what does not fit (422),
// which the card shows, leaving the question open. URL mode shows the
// page's host, opens it only when the person clicks, then Done (accept),
// Decline or Cancel. Text from the server is only ever set as text.
"use strict";

const SBElicit = (() => {
  const { el, api } = SB;
  let seq = 0;

  // field renders one property; it returns {row, value()} where value()
  // is the JSON value to send, or undefined to leave the field out.
  function field(name, p, required) {
    const id = "elicit-" + (++seq) + "-" + name;
    const label = el("label", { for: id, text: (p.title || name) + (required ? " *" : "") });
    const help = p.description ? el("small", { class: "muted help", text: p.description }) : null;
    const choices = (p.oneOf || (p.enum || []).map((v, i) => ({ const: v, title: (p.enumNames || [])[i] || v })));
    const items = p.items || {};
    const many = p.type === "array" ? (items.anyOf || (items.enum || []).map((v) => ({ const: v, title: v }))) : null;
    let input, value;
    if (many) {
      const def = Array.isArray(p.default) ? p.default : [];
      const boxes = many.map((c) => el("label", { class: "choice" },
        el("input", { type: "checkbox", value: c.const, checked: def.includes(c.const) }), " " + (c.title || c.const)));
      input = el("fieldset", { id, class: "multi" }, ...boxes);
      value = () => boxes.map((b) => b.firstChild).filter((b) => b.checked).map((b) => b.value);
      input.check = () => {
        const n = value().length;
        if (p.minItems !== undefined && n < p.minItems) return "Choose at least " + p.minItems + " for " + (p.title || name) + ".";
        if (p.maxItems !== undefined && n > p.maxItems) return "Choose at most " + p.maxItems + " for " + (p.title || name) + ".";
        return "";
      };
    } else if (choices.length) {
      input = el("select", { id, required },
        el("option", { value: "", text: required ? "Choose…" : "(none)" }),
        ...choices.map((c) => el("option", { value: c.const, text: c.title || c.const, selected: c.const === p.default })));
      value = () => input.value === "" ? undefined : input.value;
    } else if (p.type === "boolean") {
      input = el("input", { id, type: "checkbox", checked: p.default === true });
      value = () => input.checked;
    } else if (p.type === "number" || p.type === "integer") {
      input = el("input", { id, type: "number", required, step: p.type === "integer" ? "1" : "any",
        min: p.minimum, max: p.maximum, value: p.default !== undefined ? String(p.default) : undefined });
      value = () => input.value === "" ? undefined : Number(input.value);
    } else {
      const type = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" }[p.format] || "text";
      input = el("input", { id, type, required, minLength: p.minLength, maxLength: p.maxLength,
        pattern: p.pattern, value: typeof p.default === "string" ? p.default : undefined });
      // datetime-local has no zone: what the person picks is local time,
      // sent as RFC 3339 in UTC.
      value = () => input.value === "" ? undefined : (type === "datetime-local" ? new Date(input.value).toISOString() : input.value);
    }
    input.setAttribute("name", name);
    return { name, value, input, row: el("div", { class: "field" }, label, input, help) };
  }

  function formBody(args) {
    const schema = args.schema || {};
    const req = new Set(schema.required || []);
    const fields = Object.entries(schema.properties || {}).map(([n, p]) => field(n, p || {}, req.has(n)));
    const content = () => {
      const c = {};
      for (const f of fields) { const v = f.value(); if (v !== undefined) c[f.name] = v; }
      return c;
    };
    const problem = () => fields.map((f) => (f.input.check ? f.input.check() : "")).find((m) => m) || "";
    return { fields, content, problem };
  }

  // card shows approval a (tool "elicitation") through add and returns
  // {resolve(approval, elicitation)} for its approval_resolved event.
  function card(a, add) {
    const args = a.arguments || {};
    const url = args.mode === "url";
    const state = el("p", { class: "muted", role: "status" });
    const buttons = [];
    let resolved = false;
    const answer = async (decision, content) => {
      buttons.forEach((b) => { b.disabled = true; });
      try {
        const body = { decision };
        if (content) body.content = content;
        await api("POST", "/api/v1/approvals/" + encodeURIComponent(a.id), body);
        if (!resolved) state.textContent = { accept: url ? "Done." : "Sent.", decline: "Declined.", cancel: "Cancelled." }[decision];
      } catch (e) {
        state.textContent = e.message;
        state.className = "note error";
        buttons.forEach((b) => { b.disabled = false; });
      }
    };
    const decline = el("button", { type: "button", class: "secondary decline", text: "Decline", onclick: () => answer("decline") });
    const cancel = el("button", { type: "button", class: "secondary cancel", text: "Cancel", onclick: () => answer("cancel") });
    const head = el("div", { class: "head" }, el("strong", { text: (a.server || "A server") + " asks" }));
    let body;
    if (url) {
      let target = null;
      try { target = new URL(args.url); } catch (_) { /* shown as unusable below */ }
      const usable = target && (target.protocol === "https:" || target.protocol === "http:");
      const done = el("button", { type: "button", class: "accept", text: "Done", disabled: true, onclick: () => answer("accept") });
      const open = el("button", { type: "button", class: "open-url", text: "Open " + (usable ? target.host : "link"), disabled: !usable,
        onclick: () => { window.open(target.href, "_blank", "noopener,noreferrer"); done.disabled = false; done.focus(); } });
      buttons.push(open, done, decline, cancel);
      body = [
        el("p", { class: "message", text: args.message || "" }),
        el("p", {}, "Opens a page on ", el("strong", { class: "host", text: usable ? target.host : "(not a web address)" })),
        el("p", { class: "muted url", text: args.url || "" }),
        el("div", { class: "row" }, ...buttons),
      ];
    } else {
      const f = formBody(args);
      const submit = el("button", { type: "submit", class: "accept", text: "Submit" });
      buttons.push(submit, decline, cancel, ...f.fields.map((x) => x.input));
      const form = el("form", { class: "elicit-form", novalidate: false }, ...f.fields.map((x) => x.row), el("div", { class: "row" }, submit, decline, cancel));
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        const why = f.problem();
        if (why) { state.textContent = why; state.className = "note error"; return; }
        answer("accept", f.content());
      });
      body = [el("p", { class: "message", text: args.message || "" }), form];
    }
    const box = add(el("div", { class: "card approval elicitation", "data-approval": a.id, role: "group", "aria-label": "Question from " + (a.server || "a server") },
      head, ...body, state));
    (buttons[0] && !buttons[0].disabled ? buttons[0] : (box.querySelector("input,select") || cancel)).focus();
    return {
      resolve(r, e) {
        resolved = true;
        box.querySelectorAll("button,input,select").forEach((b) => { b.disabled = true; });
        const action = (e && e.action) || { approved: "accept", denied: "decline" }[r.state] || "cancel";
        state.textContent = { accept: url ? "Done" : "Sent", decline: "Declined", cancel: "Cancelled" }[action] +
          (r.decidedBy ? " by " + r.decidedBy : "") + (action !== "accept" && r.reason ? " (" + r.reason + ")" : "");
        state.className = "badge state-" + (action === "accept" ? "approved" : action === "decline" ? "denied" : "expired");
        box.classList.add("resolved");
      },
    };
  }

  return { card };
})();
