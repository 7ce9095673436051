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
  const ENDED = ["finished", "stopped", "failed", "cancelled"];
  const WAITING = "(waiting) ";
  const baseTitle = document.title.startsWith(WAITING) ? document.title.slice(WAITING.length) : document.title;
  const question = document.querySelector("h1.question").textContent;
  let last = 0;
  let seen = 0;
  let source = null;
  let runState = state.dataset.state || state.textContent.trim();
  let runReason = ""; // why a failed run failed, in words
  // the status in the server's words and style (once the run ends, its run page's words)
  let runTold = "";
  let runStyle = "";
  const pending = new Map(); // ask number -> "approval" or "plan_review", until answered
  const clock = { offset: 0, start: null, planned: null, end: null, timer: null };
  let steps = null;
  let note = null;

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

  // -- the run's status: its state, or "waiting for you" while a question waits ------

  function ended() {
    return ENDED.includes(runState);
  }

  function showState() {
    const waiting = pending.size > 0 && !ended();
    let word = waiting ? "waiting for you" : runTold || runState;
    if (!waiting && !runTold && runState === "failed" && runReason) word = "failed: " + runReason;
    state.textContent = word;
    state.dataset.state = runState;
    state.className = "state state-" + (waiting ? "waiting-for-you" : runStyle || runState);
    root.dataset.waiting = String(waiting);
    document.title = (waiting ? WAITING : "") + baseTitle;
    notify(waiting);
  }

  // A notification while the run waits and the page is hidden, if the user allowed them;
  // closed once the run goes on.
  function notify(waiting) {
    if (!waiting) {
      if (note) note.close();
      note = null;
      return;
    }
    if (note || document.visibilityState !== "hidden") return;
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    note = new Notification("Quartet is waiting for you", { body: question, tag: "quartet-" + jobId });
    note.addEventListener("click", () => window.focus());
  }

  function offerNotifications() {
    const offer = document.getElementById("notify-offer");
    const can = "Notification" in window && Notification.permission === "default";
    offer.hidden = !can || ended();
  }

  // -- parts -------------------------------------------------------------------------

  function failedSearches(failed) {
    const list = el("ul", { class: "failed" });
    for (const f of failed) {
      const item = el("li", { "data-source": f.source });
      item.appendChild(el("strong", {}, "Search on " + f.source + " failed: "));
      item.appendChild(document.createTextNode(f.reason + (f.query ? " (“" + f.query + "”)" : "")));
      list.appendChild(item);
    }
    return list;
  }

  function partRow(p) {
    const row = el("tr", { "data-part": p.id || "other" });
    const name = el("td");
    if (p.id) {
      name.appendChild(el("span", { class: "mono" }, p.id + " "));
      name.appendChild(document.createTextNode(p.text));
      if (p.failed && p.failed.length) name.appendChild(failedSearches(p.failed));
    } else {
      name.appendChild(el("span", { class: "muted" }, "other work"));
    }
    const status = el("td", { "data-label": "Status" });
    if (p.status) status.appendChild(el("span", { class: "state state-" + p.status.replace(/ /g, "-"), "data-status": p.status }, p.status));
    const figure = (label, value, shown) =>
      shown ? el("td", { class: "num", "data-label": label }, String(value || 0)) : el("td", { class: "num" });
    row.append(name, status, el("td", { class: "doing" }, p.doing || ""),
      figure("Pages read", p.pages, p.id || p.pages), figure("Evidence kept", p.evidence, p.id));
    return row;
  }

  function showParts(parts) {
    partsBody.replaceChildren(...parts.map(partRow));
  }

  // -- progress: steps of the plan done, time taken, time left (an estimate) --------------

  function duration(seconds) {
    const s = Math.max(0, Math.round(seconds));
    if (s < 60) return s + " s";
    const m = Math.floor(s / 60);
    return m + " min " + String(s % 60).padStart(2, "0") + " s";
  }

  function now() {
    return clock.end !== null ? clock.end : (Date.now() + clock.offset) / 1000;
  }

  function showProgress() {
    const bar = document.getElementById("progress-bar");
    const told = document.getElementById("progress-value");
    const elapsed = clock.start !== null ? now() - clock.start : null;
    document.getElementById("elapsed").textContent = elapsed === null ? "" : duration(elapsed) + " taken";
    let left = "";
    if (!steps && runState === "finished") steps = { done: 1, total: 1 }; // a run that ended before its plan
    if (steps && steps.total) {
      const percent = Math.round((100 * steps.done) / steps.total);
      bar.setAttribute("aria-valuenow", String(percent));
      document.getElementById("progress-fill").style.width = percent + "%";
      told.textContent = percent + "%";
      const since = clock.planned !== null ? now() - clock.planned : null;
      if (!ended() && steps.done > 0 && steps.done < steps.total && since !== null) {
        left = "about " + duration((since * (steps.total - steps.done)) / steps.done) + " left";
      }
      bar.setAttribute("aria-valuetext", percent + "%" + (left ? ", " + left : ""));
    }
    document.getElementById("estimate").textContent = left;
  }

  function tick() {
    if (clock.timer === null && !ended()) clock.timer = setInterval(showProgress, 1000);
    if (clock.timer !== null && ended()) {
      clearInterval(clock.timer);
      clock.timer = null;
    }
    showProgress();
  }

  // -- questions: approvals (in one card) and the plan --------------------------------

  function post(path, fields) {
    const body = new FormData();
    body.append("csrf", csrf);
    for (const [k, v] of Object.entries(fields)) body.append(k, v);
    return fetch(path, { method: "POST", body, headers: { Accept: "application/json" } })
      .then((r) => r.json().then((data) => ({ status: r.status, data })));
  }

  function approvalGroup() {
    let group = document.getElementById("approvals");
    if (!group) {
      group = el("section", { class: "card ask-group", id: "approvals", "aria-labelledby": "approvals-h" });
      group.append(el("h2", { id: "approvals-h" }), el("ul", { class: "approval-list" }));
      asks.prepend(group);
    }
    return group;
  }

  function countApprovals() {
    const group = document.getElementById("approvals");
    if (!group) return;
    const n = group.querySelectorAll(".ask[data-ask]").length;
    if (!n) return group.remove();
    group.querySelector("h2").textContent = n === 1 ? "A call waits for your approval" : n + " calls wait for your approval";
  }

  function argumentList(shown) {
    const list = el("dl", { class: "args" });
    for (const [key, value] of shown || []) list.append(el("dt", {}, key), el("dd", {}, value));
    return list;
  }

  // Fields to change the call's text arguments; the others are kept as they are.
  function argumentEditor(ask, args) {
    const edit = el("details", { class: "edit" });
    edit.appendChild(el("summary", {}, "Change the arguments"));
    const fields = {};
    for (const [key, value] of Object.entries(args || {})) {
      if (typeof value !== "string") continue;
      const id = "arg-" + ask + "-" + key;
      fields[key] = el("input", { id, name: key });
      fields[key].value = value;
      edit.append(el("label", { for: id }, key), fields[key]);
    }
    const edited = () => JSON.stringify(Object.assign({}, args, Object.fromEntries(
      Object.entries(fields).map(([k, input]) => [k, input.value]))));
    return { edit, edited };
  }

  function approvalItem(ask, data) {
    const words = data.words || data.tool;
    const item = el("li", { class: "ask approval", "data-ask": String(ask), "data-tool": data.tool, "aria-label": "Approve " + words });
    const head = el("p", { class: "asked" });
    head.append(el("strong", { class: "words" }, words[0].toUpperCase() + words.slice(1)),
      document.createTextNode(", asked by the " + data.stage + " task:"));
    const { edit, edited } = argumentEditor(ask, data.arguments);
    const reason = el("input", { name: "reason", placeholder: "Reason (for a rejection)", "aria-label": "Reason" });
    const said = el("p", { class: "said muted", role: "status" });
    const buttons = el("p", { class: "buttons" });
    const choices = [["approve", "Approve"], ["always", "Allow " + words + " for the rest of this run"], ["reject", "Reject"]];
    for (const [action, label] of choices) {
      buttons.appendChild(el("button", { type: "button", "data-action": action, class: action === "approve" ? "" : "secondary" }, label));
    }
    const change = el("button", { type: "button", "data-action": "edit", class: "secondary" }, "Approve with these arguments");
    edit.appendChild(el("p", { class: "buttons" })).appendChild(change);
    item.append(head, argumentList(data.shown), edit, reason, buttons, said);
    item.addEventListener("click", (ev) => {
      const button = ev.target.closest("button[data-action]");
      if (!button) return;
      const action = button.dataset.action;
      const fields = { ask: String(ask), action: action === "always" ? "approve" : action, reason: reason.value };
      if (action === "always") fields.always = "on";
      if (action === "edit") fields.arguments = edited();
      post("/jobs/" + jobId + "/answer", fields).then((r) => {
        if (r.status !== 200) said.textContent = "Already answered.";
      });
    });
    return item;
  }

  function approvalCard(ask, data) {
    const group = approvalGroup();
    const focused = asks.contains(document.activeElement);
    const item = approvalItem(ask, data);
    group.querySelector(".approval-list").appendChild(item);
    countApprovals();
    if (!focused) item.querySelector("button").focus();
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
      runState = data.state;
      runReason = data.reason || "";
      runTold = data.told || "";
      runStyle = data.style || "";
      if (data.state === "running" && clock.start === null) clock.start = data.at;
      const told = data.told || data.state + (data.reason ? ": " + data.reason : "");
      line(id, "Run " + told, "state-line");
      if (ended()) {
        clock.end = data.at;
        document.getElementById("stop-form").hidden = true;
        const empty = partsBody.querySelector("tr.empty td");
        if (empty) empty.textContent = "The run ended before it made a plan.";
        showResult();
      }
      offerNotifications();
    },
    run(id, data) {
      const link = document.getElementById("run-link");
      link.replaceChildren(el("a", { href: "/runs/" + data.run_id }, "run " + data.run_id));
    },
    progress(id, data) {
      for (const text of data.lines || []) line(id, text, "line");
      if (data.parts) showParts(data.parts);
      if (data.steps && data.steps.total) {
        if (clock.planned === null) clock.planned = data.at;
        steps = data.steps;
      }
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
    approval(id, data) {
      line(id, "Asks before " + (data.words || data.tool) + ": waiting for you");
      pending.set(data.ask, "approval");
      approvalCard(data.ask, data);
    },
    plan_review(id, data) {
      line(id, "The plan waits for your review");
      pending.set(data.ask, "plan_review");
      planCard(data.ask, data);
    },
    answered(id, data) {
      if (data.always) line(id, "Allowed for the rest of this run: " + (data.words || data.tool));
      else line(id, data.action === "plan" ? "Plan reviewed" : "Answered: " + data.action);
      pending.delete(data.ask);
      const card = asks.querySelector('[data-ask="' + data.ask + '"]');
      if (card) card.remove();
      countApprovals();
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
        const data = JSON.parse(ev.data);
        if (typeof data.at === "number") clock.offset = data.at * 1000 - Date.now();
        handle(id, data);
        showState();
        tick();
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
  document.getElementById("notify").addEventListener("click", () => {
    Notification.requestPermission().then(offerNotifications);
  });
  document.addEventListener("visibilitychange", showState);
  offerNotifications();
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
