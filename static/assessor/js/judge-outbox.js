// The judging page's outbox (issue 16): each submit, and each report that an item fetched ahead was shown, is kept in
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
  const status = document.getElementById("sync-status");
  const problems = document.getElementById("sync-problems");
  const listeners = [];
  const idleWaiters = [];
  let sending = false;
  let retry = null;
  let delay = 1000;
  let trouble = "";       // why the last attempt failed, while records wait
  let answered = false;   // the server has answered a submit of this page

  function read(name) {
    try { return JSON.parse(localStorage.getItem(name) || "[]"); } catch (error) { return []; }
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

  // One attempt: {ok, body} when the server took it, {refused, errors} when it never will, {retry, why} otherwise.
  async function attempt(record) {
    const body = new FormData();
    record.fields.forEach(([name, value]) => body.append(name, value));
    body.set("csrfmiddlewaretoken", csrfToken());   // this page's: a token kept from before a new sign-in is stale
    if (record.kind === "submit") body.set("submit_key", record.key);
    let response;
    try {
      response = await fetch(record.url, {method: "POST", body, credentials: "same-origin", redirect: "manual",
                                          headers: {Accept: "application/json"}});
    } catch (error) {
      return {retry: true, why: navigator.onLine ? "the server cannot be reached" : "offline"};
    }
    if (response.type === "opaqueredirect") return {retry: true, why: "signed out: sign in again (another tab) to send"};
    let answer = null;
    try { answer = await response.json(); } catch (error) { answer = null; }
    if (response.ok && answer) return {ok: true, body: answer};
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
          if (outcome.refused) refuse(record, outcome.errors);
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

  function refuse(record, errors) {
    write(REFUSED, read(REFUSED).concat([{label: record.label, url: record.itemUrl, errors}]));
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

  window.JudgeOutbox = {
    // Keeps a record ({kind, url, fields: [[name, value]], label, itemUrl}) and sends it; returns it with its key,
    // or null when this browser cannot keep it (the page then posts the plain form).
    add(record) {
      const kept = Object.assign({key: newKey(), at: Date.now()}, record);
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
  };

  window.addEventListener("online", () => { delay = 1000; drain(); });
  window.addEventListener("offline", () => { trouble = "offline"; render(); });
  window.addEventListener("storage", (event) => { if (event.key === STORE || event.key === REFUSED) render(); });
  render();
  drain();   // what an earlier page left unsent
})();
