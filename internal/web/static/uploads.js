// Switchboard UI: files a person uploads into the conversation for its
// tools (read_upload, or a file tool when uploads.dir is set). A file
// chosen or dropped on the composer is sent at once (POST
// /api/v1/conversations/{id}/uploads, creating the conversation first
// when the page has none); its chip waits until the message is sent,
// which attaches the uploads by id. The server reads the type from the
// bytes and bounds the size; its refusal is shown as it says it.
"use strict";

(() => {
  const { el, headers } = SB;
  const $ = (id) => document.getElementById(id);
  const chooser = $("upload-file"), chips = $("upload-chips"), errBox = $("upload-error"), composer = $("composer");

  // Uploads done for the next message: {id, name, size, conversation}.
  let pending = [];

  function size(n) {
    if (n < 1024) return n + " B";
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KiB";
    return (n / 1024 / 1024).toFixed(1) + " MiB";
  }

  function chip(up, remove) {
    return el("span", { class: "chip upload", title: up.name + " · " + size(up.size) + (up.id ? " · " + up.id : ""), "data-upload": up.id || "" },
      "📄 " + up.name + " (" + size(up.size) + ")",
      remove ? el("button", { type: "button", class: "secondary", "aria-label": "Remove " + up.name, text: "✕", onclick: remove }) : null);
  }

  // Uploads made in another conversation (the person opened another one,
  // or started a new chat) cannot be attached here, so they are dropped.
  function mine() { return pending.filter((u) => u.conversation === SB.chat.conversation()); }

  function show() {
    pending = mine();
    chips.replaceChildren(...pending.map((up) => chip(up, () => { pending = pending.filter((u) => u !== up); show(); })));
  }

  function fail(msg) {
    errBox.textContent = msg || "";
    errBox.hidden = !msg;
  }

  async function upload(file) {
    const conv = await SB.chat.ensureConversation(file.name || "Uploaded file");
    const resp = await fetch("/api/v1/conversations/" + encodeURIComponent(conv) + "/uploads?name=" + encodeURIComponent(file.name || "file"),
      { method: "POST", headers: headers({ "Content-Type": "application/octet-stream" }), body: file });
    if (!resp.ok) {
      let msg = resp.status + " " + resp.statusText;
      try { const j = await resp.json(); if (j && j.error && j.error.message) msg = j.error.message; } catch (_) { /* the status says it */ }
      throw new Error(file.name + " was not uploaded: " + msg);
    }
    const up = await resp.json();
    pending.push({ id: up.id, name: up.name, size: up.size, conversation: conv });
  }

  // uploadAll sends the files one after another; each failure is shown,
  // the others still go.
  async function uploadAll(files) {
    const errors = [];
    for (const f of files) {
      try { await upload(f); } catch (e) { errors.push(e.message); }
      show();
    }
    fail(errors.join("\n"));
  }

  chooser.addEventListener("change", () => {
    const files = [...chooser.files];
    chooser.value = "";
    uploadAll(files);
  });
  composer.addEventListener("dragover", (e) => {
    if (e.dataTransfer && [...e.dataTransfer.types].includes("Files")) { e.preventDefault(); composer.classList.add("dropping"); }
  });
  composer.addEventListener("dragleave", () => composer.classList.remove("dropping"));
  composer.addEventListener("drop", (e) => {
    composer.classList.remove("dropping");
    const files = [...(e.dataTransfer ? e.dataTransfer.files : [])];
    if (!files.length) return;
    e.preventDefault();
    uploadAll(files);
  });

  // A stored message names each upload it attached in a text part the
  // server wrote for the model ([Attached file "name" (type, N bytes),
  // upload up_...: ...]); it is shown as a chip, not as text.
  const NOTE = /^\[Attached file ("(?:[^"\\]|\\.)*") \([^,]+, (\d+) bytes\), upload (up_[A-Za-z0-9]+): /;
  function storedUploads(m) {
    const uploads = [], rest = [];
    for (const p of m.content || []) {
      const g = p.type === "text" && !p.uri ? NOTE.exec(p.text || "") : null;
      let name = null;
      if (g) { try { name = JSON.parse(g[1]); } catch (_) { name = null; } }
      if (name === null) { rest.push(p); continue; }
      uploads.push({ id: g[3], name, size: Number(g[2]) });
    }
    if (!uploads.length) return { message: m, uploads };
    const text = rest.filter((p) => p.type === "text" && !p.uri).map((p) => p.text).join("");
    return { message: Object.assign({}, m, { content: rest, text }), uploads };
  }

  SB.chat.takeUploads = () => { const r = mine(); pending = []; show(); fail(""); return r; };
  SB.chat.uploadChip = (up) => chip(up, null);
  SB.chat.storedUploads = storedUploads;
  // Another conversation opened: the chips of this one's uploads go.
  SB.chat.conversationChanged = () => { if (pending.length) show(); };
})();
