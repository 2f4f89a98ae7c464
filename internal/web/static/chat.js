// Switchboard UI: the chat page. A run is POST .../messages with Accept:
// text/event-stream, read with fetch and a stream reader (EventSource
// cannot POST); Stop asks the server to stop the run (DELETE
// /api/v1/runs/{id}) and aborts the fetch. The run goes on when the page is
// reloaded: the page keeps the running run's id in sessionStorage and, on
// load, re-attaches to it (GET /api/v1/runs/{id}/events), on whichever
// replica the balancer picks.
"use strict";

(() => {
  const { el, api } = SB;
  const $ = (id) => document.getElementById(id);
  const list = $("conv-list"), msgs = $("messages"), input = $("input"), form = $("composer");
  const agentSel = $("agent"), sendBtn = $("send"), stopBtn = $("stop"), status = $("status");

  const attachInput = $("attach"), attachList = $("attachments");
  const modelSel = $("model"), tools = $("thread-tools"), convLink = $("conv-link");
  // Images attached to the message being written: {mimeType, data (base64), name}.
  let attached = [];

  let current = null;   // the open conversation's id, or null before the first message
  let running = null;   // the AbortController of the run in flight
  let runID = null;     // the id of the run in flight, once its "run" event came

  // The run in flight survives a reload through sessionStorage (this tab
  // only): {conversation, run}.
  const RUN_KEY = "switchboard.run";
  function saveRun(v) {
    try { if (v) sessionStorage.setItem(RUN_KEY, JSON.stringify(v)); else sessionStorage.removeItem(RUN_KEY); } catch (_) { /* not kept: no resume */ }
  }
  function savedRun() {
    try { return JSON.parse(sessionStorage.getItem(RUN_KEY) || "null"); } catch (_) { return null; }
  }

  function setStatus(t) { status.textContent = t || ""; }

  // setCurrent makes id the open conversation and gives it an address:
  // /?c=<id> opens it again, in this tab after a reload or in another.
  function setCurrent(id) {
    current = id;
    tools.hidden = !id;
    const url = id ? "/?c=" + encodeURIComponent(id) : "/";
    convLink.href = url;
    if (location.pathname + location.search !== url) history.replaceState(null, "", url);
    if (SB.chat) SB.chat.conversationChanged();
  }

  // exportAs downloads the open conversation; the key goes in a header,
  // so a plain link cannot fetch it.
  async function exportAs(format) {
    if (!current) return;
    const resp = await fetch("/api/v1/conversations/" + encodeURIComponent(current) + "/export?format=" + format, { headers: SB.headers() });
    if (!resp.ok) { SB.notice("Export failed: " + resp.status + " " + resp.statusText); return; }
    const url = URL.createObjectURL(await resp.blob());
    const a = el("a", { href: url, download: "conversation-" + current + "." + format });
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  function clearThread() {
    msgs.replaceChildren(el("p", { class: "empty muted", id: "empty", text: "Ask something. Tools that change things ask for your approval first." }));
  }

  function add(node) {
    const empty = $("empty");
    if (empty) empty.remove();
    msgs.append(node);
    msgs.scrollTop = msgs.scrollHeight;
    return node;
  }

  function note(text, cls) { return add(el("p", { class: "note " + (cls || ""), text })); }

  function agentLabel(name) { return name ? "@" + name : "assistant"; }

  // ---- conversations -------------------------------------------------

  async function loadConversations() {
    let page;
    try { page = await api("GET", "/api/v1/conversations?limit=100"); } catch (e) { SB.notice(e.message); return; }
    list.replaceChildren();
    for (const c of page.items || []) {
      const title = c.title || "Untitled conversation";
      const del = el("button", { type: "button", class: "del", "aria-label": "Delete conversation " + title, title: "Delete", text: "✕" });
      let armed = false;
      del.addEventListener("click", async () => {
        // The first click arms, the second deletes: no modal dialog.
        if (!armed) { armed = true; del.textContent = "Delete?"; setTimeout(() => { armed = false; del.textContent = "✕"; }, 4000); return; }
        try {
          await api("DELETE", "/api/v1/conversations/" + encodeURIComponent(c.id));
          if (current === c.id) { setCurrent(null); clearThread(); }
          loadConversations();
        } catch (e) { SB.notice(e.message); }
      });
      const open = el("button", { type: "button", class: "open", text: title, title, onclick: () => openConversation(c.id) });
      if (c.id === current) open.setAttribute("aria-current", "true");
      list.append(el("li", { class: c.id === current ? "current" : "", "data-id": c.id }, open, del));
    }
  }

  // openConversation shows the conversation's stored messages; those of
  // the run skipRun (being re-attached, which replays them) are left out,
  // except the user's message that started it.
  async function openConversation(id, skipRun) {
    if (running) return;
    let c;
    try { c = await api("GET", "/api/v1/conversations/" + encodeURIComponent(id)); } catch (e) { SB.notice(e.message); return; }
    setCurrent(c.id);
    agentSel.value = c.agent || "";
    clearThread();
    const cards = {};
    for (const m of c.messages || []) {
      if (skipRun && m.runId === skipRun && m.role !== "user") continue;
      if (m.summaryOf) add(summaryBox("Summary of messages 1–" + m.summaryOf + ", written by the model to fit its context window", m.text));
      else if (m.role === "user") {
        // uploads.js takes the notes naming attached uploads out of the text.
        const st = SB.chat.storedUploads(m);
        add(userBubble(plainText(st.message), imagesOf(m.content), resourcesOf(m.content), st.uploads));
      }
      else if (m.role === "assistant") {
        if (m.text) assistantBubble(m.agent).set(m.text, true);
        for (const tc of m.toolCalls || []) cards[tc.id] = toolCard({ id: tc.id, name: tc.name, arguments: tc.arguments }, "done");
      } else if (m.role === "tool") {
        const card = cards[m.toolCallId];
        if (card) card.end({ outcome: m.isError ? "error" : "ok", text: m.text, isError: m.isError });
      }
    }
    loadConversations();
    input.focus();
  }

  // ---- rendering of a run ------------------------------------------

  // imagesOf returns the image parts of stored message content as
  // {mimeType, data}; data is base64, as the API sends bytes.
  function imagesOf(content) {
    return (content || []).filter((p) => p.type === "image" && p.data && p.mimeType).map((p) => ({ mimeType: p.mimeType, data: p.data }));
  }

  // resourcesOf returns the URIs of the MCP resources attached to a stored
  // message (parts marked with uri); plainText is the message's text
  // without them, which the resources' chips stand for.
  function resourcesOf(content) {
    return [...new Set((content || []).filter((p) => p.uri).map((p) => p.uri))];
  }
  function plainText(m) {
    if (!(m.content || []).some((p) => p.uri)) return m.text;
    return m.content.filter((p) => p.type === "text" && !p.uri).map((p) => p.text).join("");
  }

  // summaryBox shows the model's summary of the earlier conversation,
  // collapsed: the messages it stands for are still shown above it.
  function summaryBox(label, text) {
    return el("details", { class: "note summary" },
      el("summary", { text: label }),
      el("div", { class: "body" }, SB.markdown(text || "")));
  }

  function userBubble(text, images, resources, uploads) {
    const box = el("div", { class: "msg user" }, el("span", { text }));
    for (const im of images || []) {
      box.append(el("img", { class: "attached", alt: "attached image", src: "data:" + im.mimeType + ";base64," + im.data }));
    }
    for (const uri of resources || []) box.append(el("span", { class: "chip resource", title: uri, text: "📎 " + uri.replace(/^switchboard:\/\//, "") }));
    for (const up of uploads || []) box.append(SB.chat.uploadChip(up));
    return box;
  }

  // ---- attachments -------------------------------------------------

  const MAX_IMAGES = 8;

  function showAttached() {
    attachList.replaceChildren(...attached.map((im, i) => el("div", { class: "attachment" },
      el("img", { alt: im.name, title: im.name, src: "data:" + im.mimeType + ";base64," + im.data }),
      el("button", { type: "button", class: "secondary", "aria-label": "Remove " + im.name, text: "✕",
        onclick: () => { attached.splice(i, 1); showAttached(); } }))));
  }

  // attachFiles reads image files into attached; other files are refused
  // with a note, never dropped silently.
  async function attachFiles(files) {
    for (const f of files) {
      if (!/^image\/(png|jpeg|gif|webp)$/.test(f.type)) { SB.notice(f.name + " is not a PNG, JPEG, GIF or WebP image; it was not attached."); continue; }
      if (attached.length >= MAX_IMAGES) { SB.notice("At most " + MAX_IMAGES + " images fit in one message."); break; }
      const url = await new Promise((resolve, reject) => {
        const r = new FileReader();
        r.onload = () => resolve(r.result);
        r.onerror = () => reject(r.error);
        r.readAsDataURL(f);
      });
      attached.push({ mimeType: f.type, data: String(url).slice(String(url).indexOf(",") + 1), name: f.name || "pasted image" });
    }
    showAttached();
  }

  function assistantBubble(agent) {
    const body = el("div", { class: "body" });
    const box = add(el("div", { class: "msg assistant" }, el("span", { class: "who", text: agentLabel(agent) }), body));
    let text = "", queued = false;
    const render = () => { queued = false; body.replaceChildren(SB.markdown(text)); msgs.scrollTop = msgs.scrollHeight; };
    return {
      agent,
      box,
      append(t) { text += t; if (!queued) { queued = true; requestAnimationFrame(render); } },
      set(t) { text = t; render(); },
      finish() { box.classList.remove("streaming"); render(); },
      stream() { box.classList.add("streaming"); },
    };
  }

  function toolCard(call, state) {
    const badge = el("span", { class: "badge state-" + state });
    const spin = el("span", { class: "spinner", "aria-hidden": "true" });
    const res = el("div", { class: "result" });
    const args = SB.pretty(call.arguments);
    const card = add(el("div", { class: "card tool-card", "data-call": call.id || "" },
      el("div", { class: "head" }, el("strong", { text: call.name || "tool" }),
        call.server ? el("span", { class: "muted", text: "on " + call.server }) : null, badge, spin),
      args && args !== "{}" ? el("details", {}, el("summary", { text: "Arguments" }), el("pre", { text: args })) : null,
      res));
    const setState = (s, label) => {
      badge.className = "badge state-" + s;
      badge.textContent = label || s;
      spin.hidden = s !== "running" && s !== "pending";
    };
    setState(state);
    return {
      card,
      setState,
      end(r) {
        const failed = r.isError || (r.outcome && r.outcome !== "ok");
        setState(failed ? "failed" : "done", (failed ? "failed" : "done") + (r.durationMs !== undefined ? " · " + SB.duration(r.durationMs) : ""));
        if (r.outcome && r.outcome !== "ok") res.append(el("p", { class: "note " + (failed ? "error" : ""), text: "Outcome: " + r.outcome + (r.approval ? " (" + r.approval + ")" : "") }));
        if (r.text) res.append(el("details", {}, el("summary", { text: "Result" }), el("pre", { text: r.text })));
      },
    };
  }

  function approvalCard(a) {
    const reasonId = "reason-" + a.id;
    const reason = el("input", { id: reasonId, class: "reason", type: "text", placeholder: "optional" });
    const state = el("p", { class: "muted", role: "status" });
    const buttons = [];
    let resolved = false;
    const decide = async (decision) => {
      buttons.forEach((b) => { b.disabled = true; });
      try {
        await api("POST", "/api/v1/approvals/" + encodeURIComponent(a.id), { decision, reason: reason.value });
        if (!resolved) state.textContent = decision === "deny" ? "Declined." : "Approved.";
      } catch (e) {
        state.textContent = e.message;
        buttons.forEach((b) => { b.disabled = false; });
      }
    };
    buttons.push(
      el("button", { type: "button", class: "approve", text: "Approve once", onclick: () => decide("approve") }),
      el("button", { type: "button", class: "secondary approve-conv", text: "Approve for conversation",
        title: "Approve this call and every later call of " + a.tool + " in this conversation, with any arguments, without asking again. Other tools and other conversations still ask.",
        onclick: () => decide("approve_conversation") }),
      el("button", { type: "button", class: "danger deny", text: "Deny", onclick: () => decide("deny") }));
    const card = add(el("div", { class: "card approval", "data-approval": a.id, role: "group", "aria-label": "Approval needed for " + a.tool },
      el("div", { class: "head" }, el("strong", { text: "Approve " + a.tool + "?" }), a.server ? el("span", { class: "muted", text: "on " + a.server }) : null),
      el("pre", { text: SB.pretty(a.arguments) || "{}" }),
      el("label", { for: reasonId, text: "Reason (sent with Deny)" }), reason,
      el("div", { class: "row" }, ...buttons),
      el("p", { class: "muted", text: "Approve for conversation also runs later calls of " + a.tool + " in this conversation, with any arguments, without asking. Other tools and conversations still ask." }),
      state));
    buttons[0].focus();
    return {
      resolve(r) {
        resolved = true;
        buttons.forEach((b) => { b.disabled = true; });
        const s = r.state || "decided";
        state.textContent = s + (r.scope ? " (" + r.scope + ")" : "") + (r.reason ? ": " + r.reason : "") + (r.decidedBy ? " by " + r.decidedBy : "");
        state.className = "badge state-" + s;
        card.classList.add("resolved");
      },
    };
  }

  // ---- a run -----------------------------------------------------------

  // send runs a turn: text (or, with extra.prompt, an MCP prompt, which
  // text only labels), images and extra.resources (switchboard:// URIs).
  // ensureConversation returns the open conversation's id, creating one
  // titled title first when the page has none yet.
  async function ensureConversation(title) {
    if (!current) {
      const c = await api("POST", "/api/v1/conversations", { title: title.replace(/\s+/g, " ").slice(0, 60), agent: agentSel.value });
      setCurrent(c.id);
      loadConversations();
    }
    return current;
  }

  async function send(text, images, extra) {
    extra = extra || {};
    await ensureConversation(text);
    add(userBubble(text, images, extra.resources, extra.uploads));
    const body = { message: extra.prompt ? "" : text, agent: agentSel.value };
    if (extra.prompt) body.prompt = extra.prompt;
    if (extra.resources && extra.resources.length) body.resources = extra.resources;
    if (modelSel.value) body.model = modelSel.value;
    if (extra.uploads && extra.uploads.length) body.uploads = extra.uploads.map((u) => u.id);
    if (images.length) body.images = images.map((im) => ({ mimeType: im.mimeType, data: im.data }));
    await follow((signal, handle) => SB.stream("/api/v1/conversations/" + encodeURIComponent(current) + "/messages", body, signal, handle));
  }

  // resume re-attaches to a run left running by a reload of this tab.
  async function resume(saved) {
    await openConversation(saved.conversation, saved.run);
    if (current !== saved.conversation) { saveRun(null); return; }
    runID = saved.run;
    await follow((signal, handle) => SB.attach("/api/v1/runs/" + encodeURIComponent(saved.run) + "/events", signal, handle));
  }

  // follow shows one run's events as open(signal, handle) reads them.
  async function follow(open) {
    running = new AbortController();
    sendBtn.disabled = true; stopBtn.hidden = false; msgs.setAttribute("aria-busy", "true");
    setStatus("Thinking…");
    let bubble = null, finished = false, thinking = null;
    const cards = {}, approvals = {};
    const endBubble = () => { if (bubble) { bubble.finish(); bubble = null; } };
    const handle = (name, ev) => {
      switch (name) {
        case "run":
          runID = ev.runId;
          saveRun({ conversation: current, run: runID });
          break;
        case "interrupted":
          endBubble();
          note((ev.error && ev.error.message) || "The run was interrupted.", "error");
          break;
        case "text":
          thinking = null;
          if (!bubble || bubble.agent !== (ev.agent || "")) { endBubble(); bubble = assistantBubble(ev.agent || ""); bubble.stream(); }
          bubble.append(ev.text || "");
          setStatus("Answering…");
          break;
        case "reasoning":
          // Visible reasoning goes in a collapsed box, apart from the answer.
          if (!thinking) {
            endBubble();
            thinking = el("pre", { class: "reasoning" });
            add(el("details", { class: "note" }, el("summary", { text: "Reasoning" + (ev.agent ? " of @" + ev.agent : "") }), thinking));
          }
          thinking.textContent += ev.text || "";
          break;
        case "tool_start":
          endBubble();
          if (cards[ev.call.id]) cards[ev.call.id].setState("running");
          else cards[ev.call.id] = toolCard(ev.call, "running");
          setStatus("Running " + ev.call.name + "…");
          break;
        case "tool_end":
          endBubble();
          if (!cards[ev.call.id]) cards[ev.call.id] = toolCard(ev.call, "running");
          cards[ev.call.id].end(ev.result || {});
          break;
        case "progress":
          if (ev.call && cards[ev.call.id] && ev.progress) {
            const p = ev.progress;
            cards[ev.call.id].setState("running", "running " + (p.total ? Math.round(100 * p.progress / p.total) + "%" : p.progress) + (p.message ? " · " + p.message : ""));
          }
          break;
        case "approval":
          endBubble();
          // A server's question (elicitation.js), not a call to approve.
          if (ev.approval.tool === "elicitation") { approvals[ev.approval.id] = SBElicit.card(ev.approval, add); setStatus("Waiting for your answer"); break; }
          if (!cards[ev.approval.callId]) cards[ev.approval.callId] = toolCard({ id: ev.approval.callId, name: ev.approval.tool, server: ev.approval.server, arguments: ev.approval.arguments }, "pending");
          cards[ev.approval.callId].setState("pending", "waiting for approval");
          approvals[ev.approval.id] = approvalCard(ev.approval);
          setStatus("Waiting for your approval");
          break;
        case "approval_resolved":
          if (approvals[ev.approval.id]) approvals[ev.approval.id].resolve(ev.approval, ev.elicitation);
          if (cards[ev.approval.callId] && ev.approval.state === "approved") cards[ev.approval.callId].setState("running");
          break;
        case "handoff":
          endBubble();
          note(ev.handoff.back ? agentLabel(ev.handoff.from) + " answered; back to " + agentLabel(ev.handoff.to) : agentLabel(ev.handoff.from) + " hands over to " + agentLabel(ev.handoff.to), "handoff");
          break;
        case "context":
          // What was shortened or left out of the model request to fit
          // its window: said, never silent.
          note(ev.text || "", "context");
          if (ev.summary) add(summaryBox("Summary of the conversation so far, written by the model to fit its context window", ev.summary));
          break;
        case "router":
          note(ev.router.needsTools ? "Router: this needs tools" : "Router: plain chat, no tools", "router");
          break;
        case "error":
          if (ev.error && ev.error.code === "cancelled") {
            // Stop asked the server to stop the run: it did.
            endBubble();
            note("Stopped.", "error"); setStatus("Stopped"); finished = true;
            break;
          }
          // falls through
        case "shutdown":
          endBubble();
          note((ev.error && ev.error.message) || "The run failed.", "error");
          break;
        case "done":
          endBubble();
          finished = true;
          if (ev.done) {
            const tokens = ev.done.inputTokens + ev.done.outputTokens;
            setStatus("Done · " + ev.done.toolCalls + " tool call(s)" + (tokens ? " · " + tokens + " tokens" : "") + (ev.done.stopReason && ev.done.stopReason !== "end_turn" ? " · stopped: " + ev.done.stopReason : ""));
          }
          break;
      }
    };
    try {
      await open(running.signal, handle);
    } catch (e) {
      if (e.name === "AbortError") { note("Stopped.", "error"); setStatus("Stopped"); finished = true; }
      else note(e.message, "error");
    } finally {
      if (!finished) setStatus("");
      endBubble();
      running = null; runID = null;
      saveRun(null);
      sendBtn.disabled = false; stopBtn.hidden = true; msgs.setAttribute("aria-busy", "false");
      input.focus();
    }
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    // Surrounding blank lines and spaces are never meant to be sent.
    const text = input.value.trim();
    if (!text || running) return;
    input.value = "";
    const images = attached;
    attached = []; showAttached();
    const resources = SB.chat.takeResources();
    const uploads = SB.chat.takeUploads();
    send(text, images, { resources, uploads }).catch((err) => { note(err.message, "error"); });
  });
  // The hooks slash.js (prompts and resources) uses: running a prompt as a
  // turn, and the resources picked for the next message.
  SB.chat = {
    runPrompt: (name, args) => {
      if (running) return;
      send("/" + name + Object.entries(args).map(([k, v]) => " " + k + "=" + v).join(""), [], { prompt: { name, arguments: args }, resources: SB.chat.takeResources() })
        .catch((err) => { note(err.message, "error"); });
    },
    takeResources: () => [],
    // The hooks uploads.js sets: the uploads attached to the next message
    // ({id, name, size}), a chip showing one, and a stored user message
    // split into its text and the uploads it attached.
    takeUploads: () => [],
    uploadChip: (up) => el("span", { class: "chip upload", text: "📄 " + up.name }),
    storedUploads: (m) => ({ message: m, uploads: [] }),
    ensureConversation: (title) => ensureConversation(title),
    conversation: () => current,
    conversationChanged: () => {},
  };
  attachInput.addEventListener("change", () => {
    attachFiles([...attachInput.files]).catch((err) => SB.notice(err.message));
    attachInput.value = "";
  });
  // A pasted screenshot is attached like a chosen file.
  input.addEventListener("paste", (e) => {
    const files = [...(e.clipboardData ? e.clipboardData.files : [])];
    if (files.length) { e.preventDefault(); attachFiles(files).catch((err) => SB.notice(err.message)); }
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); form.requestSubmit(); }
  });
  stopBtn.addEventListener("click", async () => {
    if (!running) return;
    const ctl = running;
    // The run goes on without its page, so ask the server to stop it, then
    // stop reading.
    if (runID) { try { await api("DELETE", "/api/v1/runs/" + encodeURIComponent(runID)); } catch (_) { /* it has ended */ } }
    ctl.abort();
  });
  $("new-conv").addEventListener("click", () => {
    if (running) return;
    setCurrent(null); clearThread(); loadConversations(); input.focus();
  });

  async function loadAgents() {
    try {
      const page = await api("GET", "/api/v1/agents");
      for (const a of page.items || []) {
        if (a.name === "assistant") continue;
        agentSel.append(el("option", { value: a.name, text: a.name + (a.description ? " — " + a.description : "") }));
      }
    } catch (e) { SB.notice(e.message); }
  }

  // A missing model is not an error of the server (tools and audit work),
  // so /readyz says it with a hint, which the page shows.
  async function checkReady() {
    try {
      const r = await (await fetch("/readyz")).json();
      const hint = $("hint");
      if (r.hint) { hint.textContent = r.hint; hint.hidden = false; }
    } catch (_) { /* the API calls report problems */ }
  }

  // The model picker offers the configured models (not agents, which
  // have their own picker); empty keeps the agent's model.
  async function loadModels() {
    try {
      const page = await api("GET", "/v1/models");
      for (const m of page.data || []) {
        if (m.owned_by === "switchboard") modelSel.append(el("option", { value: m.id, text: m.id }));
      }
    } catch (e) { SB.notice(e.message); }
  }

  $("export-md").addEventListener("click", () => { exportAs("md").catch((e) => SB.notice(e.message)); });
  $("export-json").addEventListener("click", () => { exportAs("json").catch((e) => SB.notice(e.message)); });

  loadAgents();
  loadModels();
  checkReady();
  const saved = savedRun();
  const linked = new URLSearchParams(location.search).get("c");
  if (saved && saved.conversation && saved.run) resume(saved).catch((err) => { saveRun(null); note(err.message, "error"); });
  else if (linked) openConversation(linked).then(() => { if (!current) loadConversations(); });
  else loadConversations();
})();
