// Switchboard UI: helpers shared by every page. Plain JavaScript, no build
// step. Model and tool text is only ever put into the page as text nodes
// (textContent, createTextNode), never through innerHTML.
"use strict";

const SB = (() => {
  const KEY = "switchboard.apiKey";

  function key() {
    try { return localStorage.getItem(KEY) || ""; } catch (_) { return ""; }
  }

  // el builds an element: attrs are properties or attributes ("on*"
  // functions become listeners); children are nodes or strings (as text).
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
      else if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k in e && typeof v !== "string") e[k] = v;
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  function notice(msg) {
    const n = document.getElementById("notice");
    if (!n) return;
    n.textContent = msg || "";
    n.hidden = !msg;
  }

  // APIError carries the API's {"error":{"code","message"}} and the status.
  class APIError extends Error {
    constructor(status, code, message) { super(message); this.status = status; this.code = code; }
  }

  // Every request carries the CSRF header: the server refuses a
  // cookie-signed-in request that changes something without it, and a
  // page elsewhere cannot send it.
  function headers(extra) {
    const h = Object.assign({ "X-Switchboard-CSRF": "1" }, extra || {});
    const k = key();
    if (k) h["Authorization"] = "Bearer " + k;
    return h;
  }

  async function failure(resp) {
    let code = "http_" + resp.status, msg = resp.statusText || "request failed";
    try {
      const j = await resp.json();
      if (j && j.error) { code = j.error.code || code; msg = j.error.message || msg; }
    } catch (_) { /* not JSON */ }
    if (resp.status === 401) {
      msg += document.getElementById("sign-in")
        ? " — sign in at the top right, or open “API key” and paste your key."
        : " — open “API key” at the top right and paste your key.";
      const box = document.getElementById("key-box");
      if (box) box.open = true;
    }
    return new APIError(resp.status, code, msg);
  }

  // api calls the JSON API; it returns the decoded body (null for 204) or
  // throws an APIError.
  async function api(method, path, body, opts) {
    const init = { method, headers: headers(body !== undefined ? { "Content-Type": "application/json" } : {}) };
    if (body !== undefined) init.body = JSON.stringify(body);
    if (opts && opts.signal) init.signal = opts.signal;
    const resp = await fetch(path, init);
    if (!resp.ok) throw await failure(resp);
    if (resp.status === 204) return null;
    return resp.json();
  }

  // sseParser returns a function fed with decoded text chunks; it calls
  // onEvent(name, data, id) for each complete event (comments are skipped;
  // several data lines join with "\n"; the id persists, as in the HTML
  // SSE rules).
  function sseParser(onEvent) {
    let buf = "", name = "", data = [], id = "";
    function line(l) {
      if (l === "") {
        if (data.length) onEvent(name || "message", data.join("\n"), id);
        name = ""; data = [];
        return;
      }
      if (l[0] === ":") return;
      const i = l.indexOf(":");
      const field = i < 0 ? l : l.slice(0, i);
      let value = i < 0 ? "" : l.slice(i + 1);
      if (value[0] === " ") value = value.slice(1);
      if (field === "event") name = value;
      else if (field === "data") data.push(value);
      else if (field === "id") id = value;
    }
    return (chunk) => {
      buf += chunk;
      let m;
      while ((m = /\r\n|\r|\n/.exec(buf)) !== null) {
        // A lone "\r" at the end may be half of "\r\n": wait for more.
        if (m[0] === "\r" && m.index === buf.length - 1) break;
        line(buf.slice(0, m.index));
        buf = buf.slice(m.index + m[0].length);
      }
    };
  }

  // stream POSTs body and feeds the SSE response to onEvent(name, json, id).
  async function stream(path, body, signal, onEvent) {
    const resp = await fetch(path, {
      method: "POST", signal, body: JSON.stringify(body),
      headers: headers({ "Content-Type": "application/json", "Accept": "text/event-stream" }),
    });
    await readEvents(resp, onEvent);
  }

  // attach GETs an event stream (a run re-attached after a reload) and
  // feeds it to onEvent(name, json, id).
  async function attach(path, signal, onEvent) {
    const resp = await fetch(path, { signal, headers: headers({ "Accept": "text/event-stream" }) });
    await readEvents(resp, onEvent);
  }

  async function readEvents(resp, onEvent) {
    if (!resp.ok) throw await failure(resp);
    const reader = resp.body.getReader();
    const dec = new TextDecoder();
    const feed = sseParser((name, data, id) => {
      let v = null;
      try { v = JSON.parse(data); } catch (_) { v = { text: data }; }
      onEvent(name, v, id);
    });
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      feed(dec.decode(value, { stream: true }));
    }
    feed(dec.decode() + "\n\n");
  }

  // safeURL returns href when it is http(s) or mailto, else "".
  function safeURL(href) {
    try {
      const u = new URL(href, location.href);
      return ["http:", "https:", "mailto:"].includes(u.protocol) ? u.href : "";
    } catch (_) { return ""; }
  }

  // inline renders `code`, **bold** and [text](url) of one line as nodes.
  function inline(text) {
    const out = [];
    const re = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
    let last = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > last) out.push(document.createTextNode(text.slice(last, m.index)));
      if (m[1] !== undefined) out.push(el("code", { text: m[1] }));
      else if (m[2] !== undefined) out.push(el("strong", { text: m[2] }));
      else {
        const href = safeURL(m[4]);
        out.push(href ? el("a", { href, rel: "noopener noreferrer", target: "_blank", text: m[3] }) : document.createTextNode(m[0]));
      }
      last = re.lastIndex;
    }
    if (last < text.length) out.push(document.createTextNode(text.slice(last)));
    return out;
  }

  // markdown renders a small, safe subset of Markdown into a fragment:
  // fenced code blocks, bullet and numbered lists, paragraphs and the
  // inline forms above. Everything else stays plain text.
  function markdown(src) {
    const frag = document.createDocumentFragment();
    const lines = String(src).replace(/\r\n?/g, "\n").split("\n");
    let para = [], list = null;
    const flushPara = () => {
      if (!para.length) return;
      const p = el("p");
      para.forEach((l, i) => { if (i) p.append(el("br")); p.append(...inline(l)); });
      frag.append(p); para = [];
    };
    const flushList = () => { if (list) { frag.append(list); list = null; } };
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i];
      const fence = /^\s*```(\S*)\s*$/.exec(l);
      if (fence) {
        flushPara(); flushList();
        const body = [];
        for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++) body.push(lines[i]);
        const code = el("code", { text: body.join("\n") });
        if (fence[1]) code.className = "lang-" + fence[1].replace(/[^\w-]/g, "");
        frag.append(el("pre", {}, code));
        continue;
      }
      const bullet = /^\s*[-*+]\s+(.*)$/.exec(l);
      const num = /^\s*\d+[.)]\s+(.*)$/.exec(l);
      if (bullet || num) {
        flushPara();
        const tag = bullet ? "ul" : "ol";
        if (!list || list.tagName.toLowerCase() !== tag) { flushList(); list = el(tag); }
        list.append(el("li", {}, ...inline((bullet || num)[1])));
        continue;
      }
      if (l.trim() === "") { flushPara(); flushList(); continue; }
      flushList();
      para.push(l);
    }
    flushPara(); flushList();
    return frag;
  }

  function pretty(v) {
    if (v === undefined || v === null || v === "") return "";
    if (typeof v === "string") {
      try { return JSON.stringify(JSON.parse(v), null, 2); } catch (_) { return v; }
    }
    return JSON.stringify(v, null, 2);
  }

  function duration(ms) {
    if (ms === undefined || ms === null) return "";
    return ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
  }

  function time(s) {
    if (!s) return "";
    const d = new Date(s);
    return isNaN(d) ? String(s) : d.toLocaleString();
  }

  function setupKeyForm() {
    const form = document.getElementById("key-form");
    if (!form) return;
    const state = document.getElementById("key-state");
    const input = document.getElementById("key-input");
    const show = () => {
      state.textContent = key()
        ? "A key is saved in this browser; requests send it as a Bearer token."
        : "No key saved: requests go out anonymously (this works on loopback only).";
    };
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const v = input.value.trim();
      try { if (v) localStorage.setItem(KEY, v); } catch (_) { notice("This browser does not allow saving the key."); }
      input.value = "";
      show();
      location.reload();
    });
    document.getElementById("key-forget").addEventListener("click", () => {
      try { localStorage.removeItem(KEY); } catch (_) { /* nothing saved */ }
      show();
    });
    show();
  }

  // me resolves to the caller ({name, role, anonymous, tools}), fetched
  // once per page. Pages hide what the role may not do; the server refuses
  // it regardless, so on failure me resolves to an ordinary user.
  let mePromise = null;
  function me() {
    if (!mePromise) {
      mePromise = api("GET", "/api/v1/me").catch(() => ({ name: "", role: "user", anonymous: false, tools: [] }));
    }
    return mePromise;
  }

  // A refused edit of the config file is on /readyz until an edit is
  // applied: every page shows it, and looks again every 10 s so that the
  // notice comes and goes without a reload. Problems go in as text.
  async function checkConfig() {
    const box = document.getElementById("config-notice");
    if (!box) return;
    try {
      const r = await (await fetch("/readyz")).json();
      const problems = (r && r.config) || [];
      box.replaceChildren();
      if (problems.length) {
        box.append(el("p", { text: "The last edit of the config file was refused; the configuration before it is still running. Fix these and save the file again:" }),
          el("ul", {}, problems.map((p) => el("li", { text: p }))));
      }
      box.hidden = problems.length === 0;
    } catch (_) { /* the API calls report problems */ }
  }
  document.addEventListener("DOMContentLoaded", () => { checkConfig(); setInterval(checkConfig, 10000); });

  document.addEventListener("DOMContentLoaded", setupKeyForm);
  // Who is signed in: a session shows its user and a sign-out button in
  // place of the sign-in link; a key or anonymous access shows the name.
  document.addEventListener("DOMContentLoaded", () => {
    me().then((m) => {
      const who = document.getElementById("who");
      if (!who || !m.name) return;
      document.getElementById("who-name").textContent = (m.session ? "Signed in as " : "Using the key of ") + m.name;
      const out = document.getElementById("sign-out");
      out.hidden = !m.session;
      out.addEventListener("click", async () => {
        try { await api("POST", "/auth/logout"); } catch (e) { notice(e.message); return; }
        location.reload();
      });
      who.hidden = m.anonymous;
      const signIn = document.getElementById("sign-in");
      if (signIn && m.session) signIn.hidden = true;
      if (m.session) { const box = document.getElementById("key-box"); if (box) box.hidden = true; }
    });
  });
  // Reviewing held tools is an admin's: other users do not get the link.
  document.addEventListener("DOMContentLoaded", () => {
    me().then((m) => {
      if (m.role === "admin") return;
      document.querySelectorAll('nav a[href="/changes"]').forEach((a) => { a.closest("li").hidden = true; });
    });
  });

  return { el, api, headers, me, stream, attach, sseParser, markdown, inline, safeURL, pretty, duration, time, notice, APIError };
})();
