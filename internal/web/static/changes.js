// Switchboard UI: the held-tools page (tool pinning): each held tool with
// the diff of its definition and an Accept button.
"use strict";

(() => {
  const { el, api } = SB;
  const root = document.getElementById("changes");

  // diffView renders a unified diff line by line, each line's class saying
  // whether it was added, removed or is context. Text only: the diff holds
  // whatever a server wrote into its tool's description.
  function diffView(diff) {
    const pre = el("pre", { class: "diff" });
    for (const line of (diff || "").split("\n")) {
      let cls = "ctx";
      if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("@@")) cls = "hunk";
      else if (line.startsWith("+")) cls = "add";
      else if (line.startsWith("-")) cls = "del";
      pre.append(el("span", { class: "diff-" + cls, text: line + "\n" }));
    }
    return pre;
  }

  function card(c) {
    const state = el("p", { class: "muted", role: "status" });
    const accept = el("button", { type: "button", text: "Accept", "aria-label": "Accept the change of " + c.name });
    accept.addEventListener("click", async () => {
      accept.disabled = true;
      state.textContent = "Accepting…";
      try {
        // The hash shown: if the server changed the tool again meanwhile,
        // the acceptance is refused rather than accepting an unseen change.
        await api("POST", "/api/v1/tools/changes/accept", { names: [c.name], hashes: { [c.name]: c.pendingHash } });
        state.textContent = "Accepted: " + c.name + " is available again.";
        setTimeout(load, 800);
      } catch (e) { state.textContent = e.message; accept.disabled = false; }
    });
    return el("article", { class: "card change", "data-tool": c.name },
      el("div", { class: "head" }, el("h2", { text: c.name }), el("span", { class: "badge state-failed", text: "held" })),
      el("p", { class: "muted", text: "Server " + c.server + ", held since " + SB.time(c.heldSince) }),
      diffView(c.diff),
      el("div", { class: "row" }, accept),
      state);
  }

  async function load() {
    let r;
    try { r = await api("GET", "/api/v1/tools/changes"); }
    catch (e) { root.replaceChildren(el("p", { class: "note error", text: e.message })); return; }
    const items = r.items || [];
    if (!items.length) { root.replaceChildren(el("p", { class: "muted", text: "No held tools: every tool's definition is the accepted one." })); return; }
    root.replaceChildren(...items.map(card));
  }

  document.getElementById("refresh").addEventListener("click", load);
  load();
})();
