// The judging page's outbox (docs/judging.md): each submit, and each report that an item fetched ahead was shown, is kept in
// this browser (localStorage, per account) until the server has answered it, and sent in order: at once, again when
// the network is back, and by the next judging page opened after a reload or a closed tab. A submit carries a key
// that it keeps across resends; the server answers a key it has seen with its first answer and writes nothing, so
// a resend never makes a second judgment or revision (services.judgment_submit). Shown plainly in the page's bar:
// "Saved in this browser, sending..." until the server has them all, then "Saved".
(function () {
  "use strict";
  const bar = document.querySelector(".judge-bar[data-user]");
  if (!bar) return;
  const STORE = "judge-outbox:" + bar.dataset.user;
  const REFUSED = "judge-refused:" + bar.dataset.user;
  const CONFLICTS = "judge-conflicts:" + bar.dataset.user;   // submits refused because the item changed elsewhere
  const ANSWERED = "judge-answered:" + bar.dataset.user;     // submit key -> the item's revision after it
  const BROWSER = "judge-browser:" + bar.dataset.user;       // {id, count}: this browser's numbering of its submits
  const status = document.getElementById("sync-status");
  const problems = document.getElementById("sync-problems");
  const listeners = [];
  const idleWaiters = [];
  let sending = false;
  let retry = null;
  let delay = 1000;
  let trouble = "";       // why the last attempt failed, while records wait
  let answered = false;   // the server has answered a submit of this page

  function read(name, empty = "[]") {
    try { return JSON.parse(localStorage.getItem(name) || empty); } catch (error) { return JSON.parse(empty); }
  }
  function write(name, list) {   // false when the browser keeps nothing (storage disabled or full)
    try { localStorage.setItem(name, JSON.stringify(list)); return true; } catch (error) { return false; }
  }

  function newKey() {   // 128 random bits; crypto.randomUUID needs a secure context, getRandomValues does not
    return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function csrfToken() {
    const input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  // The revision of the item a submit saw: the server's answer to the submit of this item made before it from the
  // same page (`after`) once answered, else the one its page showed.
  function seenOf(record) {
    const prior = record.after && read(ANSWERED, "{}")[record.after];
    if (prior !== undefined && prior !== null && prior !== "") return String(prior);
    const field = record.fields.find(([name]) => name === "seen_revision");
    return field ? field[1] : "";
  }
  function answeredWith(record, revision) {
    const kept = read(ANSWERED, "{}");
    kept[record.key] = revision;
    const keys = Object.keys(kept);
    keys.slice(0, Math.max(0, keys.length - 200)).forEach((key) => delete kept[key]);   // the last 200 are plenty
    write(ANSWERED, kept);
  }

  function formOf(record) {
    const body = new FormData();
    record.fields.forEach(([name, value]) => body.append(name, value));
    body.set("csrfmiddlewaretoken", csrfToken());   // this page's: a token kept from before a new sign-in is stale
    if (record.kind === "submit") {
      body.set("submit_key", record.key);
      body.set("seen_revision", seenOf(record));
      if (record.number) { body.set("browser", record.browser); body.set("number", String(record.number)); }
    }
    return body;
  }

  // One attempt: {ok, body} when the server took it, {refused, errors} when it never will (with `conflict` when the
  // item changed elsewhere since its page showed it), {retry, why} otherwise.
  async function attempt(record) {
    const body = formOf(record);
    let response;
    try {
      response = await fetch(record.url, {method: "POST", body, credentials: "same-origin", redirect: "manual",
                                          keepalive: true, headers: {Accept: "application/json"}});
    } catch (error) {
      return {retry: true, why: navigator.onLine ? "the server cannot be reached" : "offline"};
    }
    if (response.type === "opaqueredirect") return {retry: true, why: "signed out: sign in again (another tab) to send"};
    let answer = null;
    try { answer = await response.json(); } catch (error) { answer = null; }
    if (response.ok && answer) return {ok: true, body: answer};
    if (response.status === 409 && answer && answer.conflict) {
      return {refused: true, conflict: answer.conflict, errors: answer.errors};
    }
    if (response.status === 400 || response.status === 404) {
      return {refused: true, errors: (answer && answer.errors) || ["this item is no longer in your assignment"]};
    }
    return {retry: true, why: "the server answered " + response.status + "; reload the page if this lasts"};
  }

  async function drain() {
    if (sending) return;
    sending = true;
    clearTimeout(retry);
    try {
      for (let list = read(STORE); list.length; list = read(STORE)) {
        if (!navigator.onLine) { trouble = "offline"; break; }
        const record = list[0];
        const outcome = await attempt(record);
        if (outcome.retry) {
          trouble = outcome.why;
          retry = setTimeout(drain, delay);
          delay = Math.min(delay * 2, 30000);
          break;
        }
        trouble = "";
        delay = 1000;
        write(STORE, read(STORE).filter((r) => r.key !== record.key));
        if (record.kind === "submit") {
          answered = true;
          const revision = outcome.ok ? outcome.body.revision : seenOf(record);
          answeredWith(record, revision);
          if (record.replaces) answeredWith({key: record.replaces}, revision);   // sent again after a conflict
          if (outcome.conflict) conflicted(record, outcome);
          else if (outcome.refused) refuse(record, outcome.errors);
          else if (!outcome.body.complete) refuse(record, ["saved, but not complete: grade every instance"]);
        }
        listeners.forEach((listener) => listener(record, outcome));
        render();
      }
    } finally {
      sending = false;
      render();
    }
  }

  // Kept once per submit: two tabs of this browser may both have sent it.
  function refuse(record, errors) {
    const others = read(REFUSED).filter((r) => r.key !== record.key);
    write(REFUSED, others.concat([{key: record.key, label: record.label, url: record.itemUrl, errors}]));
  }
  function conflicted(record, outcome) {
    const others = read(CONFLICTS).filter((c) => c.record.key !== record.key);
    write(CONFLICTS, others.concat([{record, errors: outcome.errors, revision: outcome.conflict.revision}]));
  }

  function render() {
    const waiting = read(STORE).filter((r) => r.kind === "submit").length;
    let text = "";
    if (waiting) {
      text = "Saved in this browser, sending… (" + waiting + ")";
      if (trouble === "offline") text = "Saved in this browser (" + waiting + "), offline: sent when the network is back";
      else if (trouble) text = "Saved in this browser (" + waiting + "), not sent yet: " + trouble;
    } else if (answered) {
      text = "Saved";
    }
    status.textContent = text;
    status.hidden = !text;
    status.dataset.state = waiting ? "waiting" : "saved";
    status.dataset.outbox = String(read(STORE).length);   // every record, reports of items shown included
    renderProblems();
    renderConflicts();
    if (!waiting && !sending && !read(STORE).length) idleWaiters.splice(0).forEach((resolve) => resolve(true));
  }

  function renderProblems() {
    const refused = read(REFUSED);
    problems.hidden = !refused.length;
    problems.replaceChildren();
    if (!refused.length) return;
    const title = document.createElement("h2");
    title.textContent = "Not saved: the server refused " + (refused.length === 1 ? "this judgment" : "these judgments");
    const list = document.createElement("ul");
    refused.forEach((r) => {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = r.url;
      link.textContent = r.label;
      item.append(link, ": " + r.errors.join("; "));
      list.append(item);
    });
    const dismiss = document.createElement("button");
    dismiss.type = "button";
    dismiss.textContent = "Dismiss";
    dismiss.addEventListener("click", () => { write(REFUSED, []); renderProblems(); });
    problems.append(title, list, dismiss);
  }

  // A submit refused because the item changed in another tab (or browser) since its page showed it: the assessor
  // keeps the other one, or sends theirs again as a new revision (with the server's revision as the one seen).
  function renderConflicts() {
    const box = document.getElementById("sync-conflicts");
    const conflicts = read(CONFLICTS);
    box.hidden = !conflicts.length;
    box.replaceChildren();
    if (!conflicts.length) return;
    const title = document.createElement("h2");
    title.textContent = "Not saved: changed in another tab";
    const list = document.createElement("ul");
    conflicts.forEach((c) => {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = c.record.itemUrl;
      link.textContent = c.record.label;
      const settle = (again) => {
        write(CONFLICTS, read(CONFLICTS).filter((other) => other.record.key !== c.record.key));
        if (again) {
          const fields = c.record.fields.map(([name, value]) => [name, name === "seen_revision" ? String(c.revision) : value]);
          window.JudgeOutbox.add({kind: "submit", url: c.record.url, fields, label: c.record.label,
                                  itemUrl: c.record.itemUrl, replaces: c.record.key});
        }
        render();
      };
      const keep = document.createElement("button");
      keep.type = "button";
      keep.className = "conflict-keep";
      keep.textContent = "Keep the other tab's";
      keep.addEventListener("click", () => settle(false));
      const again = document.createElement("button");
      again.type = "button";
      again.className = "conflict-again";
      again.textContent = "Submit mine again";
      again.addEventListener("click", () => settle(true));
      item.append(link, ": " + c.errors.join("; ") + " ", keep, " ", again);
      list.append(item);
    });
    box.append(title, list);
  }

  window.JudgeOutbox = {
    // Keeps a record ({kind, url, fields: [[name, value]], label, itemUrl}) and sends it; returns it with its key,
    // or null when this browser cannot keep it (the page then posts the plain form).
    add(record) {
      const kept = Object.assign({key: newKey(), at: Date.now()}, record);
      if (record.kind === "submit") {   // numbered in this browser, so that the server can tell one that never came
        const browser = read(BROWSER, "{}");
        if (!browser.id) Object.assign(browser, {id: newKey(), count: 0});
        browser.count += 1;
        if (write(BROWSER, browser)) Object.assign(kept, {browser: browser.id, number: browser.count});
      }
      if (!write(STORE, read(STORE).concat([kept]))) return null;
      setTimeout(() => { render(); drain(); }, 0);   // kept already; sent once the page has shown what comes next
      return kept;
    },
    // The last submit of an item still waiting for the server (a reload shows it, not the page's older state).
    waitingFor(itemUrl) {
      return read(STORE).filter((r) => r.kind === "submit" && r.itemUrl === itemUrl).pop() || null;
    },
    waiting() { return read(STORE).length; },
    // Resolves true once nothing waits, false after timeoutMs.
    idle(timeoutMs) {
      if (!read(STORE).length && !sending) return Promise.resolve(true);
      return new Promise((resolve) => {
        idleWaiters.push(resolve);
        setTimeout(() => resolve(false), timeoutMs);
      });
    },
    onAnswer(listener) { listeners.push(listener); },
    // The item's revision after the submit of this key, once the server has answered it (else undefined).
    revisionAfter(key) { return read(ANSWERED, "{}")[key]; },
    // The page leaves by itself (the next page sends what waits): no warning.
    go(navigate) { leaving = true; navigate(); },
  };

  // The page hidden (another tab, the window minimised, the tab closed): everything waiting is handed to the browser
  // at once, each record in a keepalive request that outlives the page. Sent again later under the same key, a record
  // the server took already changes nothing. One record per item and kind, the first: a later one of the same item
  // follows it in order, from this page or the next one opened in this browser.
  let flushed = new Set();
  function flush() {
    const first = new Set();
    read(STORE).forEach((record) => {
      const unit = record.kind + " " + record.itemUrl;
      if (first.has(unit)) return;
      first.add(unit);
      if (flushed.has(record.key) || sending && read(STORE)[0].key === record.key) return;   // on its way already
      flushed.add(record.key);
      try {
        fetch(record.url, {method: "POST", body: formOf(record), credentials: "same-origin", redirect: "manual",
                           keepalive: true, headers: {Accept: "application/json"}}).catch(() => {});
      } catch (error) { /* too much in flight for keepalive: the next page sends it */ }
    });
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") flush();
    else { flushed = new Set(); drain(); }
  });
  window.addEventListener("pagehide", flush);
  // Leaving with submits this browser has not sent: the browser asks first (they are sent on the way out, and by the
  // next judging page opened in this browser, but a browser that is closed or cleared keeps nothing).
  let leaving = false;
  window.addEventListener("beforeunload", (event) => {
    if (leaving || !read(STORE).some((r) => r.kind === "submit")) return;
    event.preventDefault();
    event.returnValue = "";
  });

  window.addEventListener("online", () => { delay = 1000; drain(); });
  window.addEventListener("offline", () => { trouble = "offline"; render(); });
  window.addEventListener("storage", (event) => {
    if ([STORE, REFUSED, CONFLICTS].includes(event.key)) render();
  });
  render();
  drain();   // what an earlier page left unsent
})();
