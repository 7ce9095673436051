// Follows one run's events (server-sent events) and sends the user's answers.
// Each event has a number; the browser resumes after the last one it had
// (Last-Event-ID), and any event already shown is skipped, so none is lost or doubled.
"use strict";

(function () {
  const root = document.getElementById("job");
  if (!root) return;
  const jobId = root.dataset.job;
  const csrf = root.dataset.csrf;
  const feed = document.getElementById("feed");
  const partsBody = document.querySelector("#parts tbody");
  const state = document.getElementById("state");
  const asks = document.getElementById("asks");
  let last = 0;
  let seen = 0;
  let source = null;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function line(id, text, cls) {
    const item = el("li", { "data-event": String(id) }, text);
    if (cls) item.className = cls;
    feed.appendChild(item);
  }

  function showParts(parts) {
    partsBody.replaceChildren();
    for (const p of parts) {
      const row = el("tr", { "data-part": p.id || "other" });
      const name = el("td");
      if (p.id) {
        name.appendChild(el("span", { class: "mono" }, p.id + " "));
        name.appendChild(document.createTextNode(p.text));
      } else {
        name.appendChild(el("span", { class: "muted" }, "other work"));
      }
      const status = el("td", { "data-label": "Status" });
      if (p.status) status.appendChild(el("span", { class: "state state-" + p.status.replace(/ /g, "-"), "data-status": p.status }, p.status));
      const figure = (label, value) =>
        p.id ? el("td", { class: "num", "data-label": label }, String(value || 0)) : el("td", { class: "num" });
      row.append(name, status, el("td", { class: "doing" }, p.doing || ""),
        figure("Pages", p.pages), figure("Evidence", p.evidence));
      partsBody.appendChild(row);
    }
  }

  function post(path, fields) {
    const body = new FormData();
    body.append("csrf", csrf);
    for (const [k, v] of Object.entries(fields)) body.append(k, v);
    return fetch(path, { method: "POST", body, headers: { Accept: "application/json" } })
      .then((r) => r.json().then((data) => ({ status: r.status, data })));
  }

  function approvalCard(ask, data) {
    const card = el("form", { class: "card ask", "data-ask": String(ask), "aria-label": "Approval" });
    card.appendChild(el("h2", {}, "Approve this call?"));
    card.appendChild(el("p", {}, data.stage + " wants to call " + data.tool + " with:"));
    const args = el("textarea", { rows: "4", name: "arguments", "aria-label": "Arguments (JSON)" });
    args.value = JSON.stringify(data.arguments, null, 2);
    const reason = el("input", { name: "reason", placeholder: "Reason (for a rejection)", "aria-label": "Reason" });
    card.append(args, reason);
    const buttons = el("p", { class: "buttons" });
    for (const action of ["approve", "reject", "edit"]) {
      const b = el("button", { type: "button", "data-action": action, class: action === "approve" ? "" : "secondary" },
        action === "edit" ? "Approve with these arguments" : action[0].toUpperCase() + action.slice(1));
      b.addEventListener("click", () => {
        const fields = { ask: String(ask), action, reason: reason.value };
        if (action === "edit") fields.arguments = args.value;
        post("/jobs/" + jobId + "/answer", fields).then((r) => {
          if (r.status !== 200) card.querySelector(".said").textContent = "Already answered.";
        });
      });
      buttons.appendChild(b);
    }
    card.append(buttons, el("p", { class: "said muted", role: "status" }));
    asks.appendChild(card);
    card.querySelector("button").focus();
  }

  function planCard(ask, data) {
    const card = el("form", { class: "card ask", "data-ask": String(ask), "aria-label": "Plan review" });
    card.appendChild(el("h2", {}, "Review the plan"));
    card.appendChild(el("p", {}, "One part a line: change, add (at most 6) or delete lines, then start."));
    const text = el("textarea", { rows: String(data.parts.length + 2), name: "parts", "aria-label": "Parts of the plan" });
    text.value = data.parts.map((p) => p.text).join("\n");
    const go = el("button", { type: "button" }, "Start the research");
    go.addEventListener("click", () => post("/jobs/" + jobId + "/answer", { ask: String(ask), parts: text.value }));
    card.append(text, el("p", {}, ""), go);
    asks.appendChild(card);
    text.focus();
  }

  function showResult() {
    fetch("/jobs/" + jobId + "/result").then((r) => (r.ok ? r.text() : "")).then((html) => {
      if (html) document.getElementById("result").innerHTML = html;
    });
  }

  const handlers = {
    state(id, data) {
      state.textContent = data.state;
      state.className = "state state-" + data.state;
      line(id, "Run " + data.state + (data.reason ? ": " + data.reason : ""), "state-line");
      if (["finished", "stopped", "failed", "cancelled"].includes(data.state)) {
        document.getElementById("stop-form").hidden = true;
        showResult();
      }
    },
    run(id, data) {
      const link = document.getElementById("run-link");
      link.replaceChildren(el("a", { href: "/runs/" + data.run_id }, "run " + data.run_id));
    },
    progress(id, data) {
      for (const text of data.lines || []) line(id, text, "line");
      if (data.parts) showParts(data.parts);
      if (data.pages !== undefined) {
        document.getElementById("pages").textContent =
          data.pages + (data.page_budget ? " of " + data.page_budget : "") + " pages read";
      }
      if (data.tokens && data.tokens.input) {
        let told = data.tokens.input + " tokens in, " + (data.tokens.output || 0) + " out";
        if (data.tokens.cost !== undefined) told += ", cost " + Number(data.tokens.cost).toFixed(4);
        document.getElementById("tokens").textContent = told;
      }
    },
    approval(id, data) { line(id, "Asks to call " + data.tool + ": waiting for you"); approvalCard(data.ask, data); },
    plan_review(id, data) { line(id, "The plan waits for your review"); planCard(data.ask, data); },
    answered(id, data) {
      line(id, data.action === "plan" ? "Plan reviewed" : "Answered: " + data.action);
      const card = asks.querySelector('[data-ask="' + data.ask + '"]');
      if (card) card.remove();
    },
    stopping(id, data) {
      const now = data && data.count > 1;
      line(id, now ? "Stopping now, without the report" : "Stopping: the report is written from what was found");
      document.getElementById("stop-now").hidden = now;
    },
  };

  function listen() {
    source = new EventSource("/jobs/" + jobId + "/events");
    for (const [kind, handle] of Object.entries(handlers)) {
      source.addEventListener(kind, (ev) => {
        const id = Number(ev.lastEventId);
        if (!id || id <= last) return; // shown already
        last = id;
        seen += 1;
        handle(id, JSON.parse(ev.data));
        root.dataset.last = String(last);
        root.dataset.seen = String(seen);
      });
    }
    source.addEventListener("end", () => { source.close(); root.dataset.ended = "true"; });
  }

  document.getElementById("stop-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const now = ev.submitter && ev.submitter.id === "stop-now";
    post("/jobs/" + jobId + "/stop", now ? { now: "on" } : {});
  });
  listen();
})();

// The start page: an example question fills the question and chooses the demo web.
(function () {
  const examples = document.getElementById("examples");
  if (!examples) return;
  examples.addEventListener("click", (ev) => {
    const button = ev.target.closest("button[data-example]");
    if (!button) return;
    const question = document.getElementById("question");
    question.value = button.dataset.example;
    document.getElementById("demo").checked = true;
    question.focus();
  });
})();

// The report in the page: a citation, or a source's stored copy, opens the stored page
// in a side panel (a bottom sheet on a narrow screen) over the report. Without this
// script the same links open the stored page on its own.
(function () {
  const ROUTES = [
    [/^\/runs\/([^/]+)\/cite\/(ev-[0-9a-f]+)$/, (m) => "/runs/" + m[1] + "/quote/" + m[2]],
    [/^\/runs\/([^/]+)\/workspace\/(.+\.md)$/, (m) => "/runs/" + m[1] + "/stored/" + m[2]],
  ];
  let panel = null;
  let body = null;
  let opener = null;
  let asked = 0;

  // Where the panel's content for a link of the report is, or null for another link.
  function panelSource(link) {
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin) return null;
    for (const [pattern, source] of ROUTES) {
      const m = url.pathname.match(pattern);
      if (m) return source(m);
    }
    return null;
  }

  function build() {
    panel = document.createElement("aside");
    panel.id = "source-panel";
    panel.className = "source-panel";
    panel.tabIndex = -1;
    panel.hidden = true;
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-labelledby", "source-panel-title");
    const head = document.createElement("div");
    head.className = "panel-head";
    const kind = document.createElement("span");
    kind.className = "muted";
    kind.textContent = "Source";
    const shut = document.createElement("button");
    shut.type = "button";
    shut.className = "secondary panel-close";
    shut.textContent = "Close";
    shut.setAttribute("aria-label", "Close the source");
    shut.addEventListener("click", close);
    head.append(kind, shut);
    body = document.createElement("div");
    body.className = "panel-body";
    panel.append(head, body);
    document.body.appendChild(panel);
  }

  function show(link, html) {
    if (!panel) build();
    opener = link;
    body.innerHTML = html; // sanitised by the server; the page's policy runs no inline script
    panel.hidden = false;
    document.body.classList.add("panel-open");
    body.scrollTop = 0;
    const mark = body.querySelector("mark");
    if (mark) body.scrollTop = mark.getBoundingClientRect().top - body.getBoundingClientRect().top - body.clientHeight / 3;
    panel.focus({ preventScroll: true });
  }

  function close() {
    if (!panel || panel.hidden) return;
    panel.hidden = true;
    document.body.classList.remove("panel-open");
    body.replaceChildren();
    if (opener && opener.isConnected) opener.focus({ preventScroll: true });
    opener = null;
  }

  document.addEventListener("click", (ev) => {
    if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    const link = ev.target.closest(".report-body a[href]");
    const source = link && panelSource(link);
    if (!source) return;
    ev.preventDefault();
    const ask = ++asked;
    fetch(source, { headers: { Accept: "text/html" } })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(String(r.status)))))
      .then((html) => { if (ask === asked) show(link, html); })
      .catch(() => { if (ask === asked) location.href = link.href; });
  });

  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && panel && !panel.hidden) {
      ev.preventDefault();
      close();
    }
  });
})();
