// The items after the one shown, fetched ahead and typeset unseen (docs/judging.md), so that Enter swaps the next one in
// at once. The server says what comes next (ahead_views.ahead: the items next_item gives in turn); the address bar,
// Back (b), the browser's back button and reload follow the item shown (history.pushState). Showing an item is
// reported through the outbox with the item's stamp and the time from asking for the item to showing it (this
// browser's clock; ahead_views.shown adds it to the time the server rendered the item): its first-shown time is when
// it was shown, not when it was fetched, and an item the pools no longer hold (a forced rebuild since it was
// fetched) is loaded anew.
(function () {
  "use strict";
  const pane = document.getElementById("item-pane");
  const stack = document.getElementById("item-stack");
  const Outbox = window.JudgeOutbox;
  if (!pane || !stack || !Outbox) return;
  const FRESH_MS = 5000;       // a list older than this is asked again when the assessor picks a grade
  const REFRESH_MS = 60000;    // and this often while the page is seen
  const KEEP = 30;             // items shown in this page that Back and the back button swap in without a request
  const held = new Map();      // position -> {view, asked (Date.now() when requested), ready (typeset), shown, lastShown}
  const done = new Set();      // positions submitted complete from this page
  // Item address -> the address of the item Back left for it: the item Enter opens again after it. Kept for this tab
  // (sessionStorage) across the pages Back loads, so that in a finished topic (nothing fetched ahead) Enter after a
  // revision retraces the way Back came instead of going to My assignments.
  const LATER = "judge-later";
  const later = {
    all() { try { return JSON.parse(sessionStorage.getItem(LATER) || "{}"); } catch (error) { return {}; } },
    set(url, from) {
      const kept = this.all();
      kept[url] = from;
      try { sessionStorage.setItem(LATER, JSON.stringify(kept)); } catch (error) { /* nothing kept */ }
    },
    take(url) {
      const kept = this.all();
      const from = kept[url];
      delete kept[url];
      try { sessionStorage.setItem(LATER, JSON.stringify(kept)); } catch (error) { /* nothing kept */ }
      return from;
    },
  };
  const suffix = document.title.slice(document.title.indexOf(" · "));
  const label = document.getElementById("item-label");
  let order = [];              // positions of the items after the one shown, in the server's order
  let branch = null;           // an adaptive order's {position, grades}: next instead when the item shown is given
                               // one of these grades (ahead_views.ahead's if_relevant)
  let listed = 0;              // when the server gave `order` for the item shown (0: carried over from the last one)
  let pending = null;          // {view, promise}: the request for the list, in flight
  let waiting = null;          // the view whose next item is awaited (nothing fetched, the network down)
  let moving = false;          // between Enter and the next item shown

  const current = () => stack.querySelector(":scope > .item-view:not(.parked)");
  const positionOf = (view) => Number(view.dataset.position);

  function tell(view, text) {
    const line = view.querySelector(".item-sync");
    line.textContent = text;
    line.hidden = !text;
  }

  // -- typesetting, one call at a time, after MathJax's own first pass over the page
  let math = Promise.resolve();
  function mathJax() {
    return new Promise(function wait(resolve) {
      if (window.MathJax && MathJax.startup && MathJax.startup.promise) resolve(MathJax.startup.promise);
      else setTimeout(wait, 25, resolve);
    });
  }
  const breather = () => new Promise((resolve) => setTimeout(resolve, 0));
  function typeset(view) {
    const parts = Array.from(view.querySelectorAll(".tex2jax_process"));
    // One part (a post, a comment, a title) at a time, with a pause between: a key pressed meanwhile (Enter) waits
    // for one part's typesetting at most, not for a whole item's.
    math = math.then(mathJax).then(async () => {
      for (const part of parts) {
        await breather();
        await MathJax.typesetPromise([part]);
      }
    }).catch((e) => console.error(e));
    // Without MathJax (it failed to load) the item still comes, its TeX as text, as the page itself would show it.
    return Promise.race([math, new Promise((resolve) => setTimeout(resolve, 5000))]);
  }

  // -- the items held: in the item pane, under the one shown, unseen and inert (judge.css: .parked), their ids parked
  // so that the page's ids name the item shown only. They stay where they are in the page: showing one changes its
  // class, not its place, so that the browser keeps its layout and its typeset math as they are.
  function park(view) {
    [view, ...view.querySelectorAll("[id]")].forEach((el) => {
      if (el.id) { el.dataset.parkedId = el.id; el.removeAttribute("id"); }
    });
    view.classList.add("parked");
    view.inert = true;
    view.setAttribute("aria-hidden", "true");
  }
  function unpark(view) {
    [view, ...view.querySelectorAll("[data-parked-id]")].forEach((el) => {
      if (el.dataset.parkedId) { el.id = el.dataset.parkedId; delete el.dataset.parkedId; }
    });
    view.classList.remove("parked");
    view.inert = false;
    view.removeAttribute("aria-hidden");
  }
  function adopt(entry, asked) {
    const template = document.createElement("template");
    template.innerHTML = entry.html;
    const view = template.content.querySelector(".item-view");
    if (!view) return null;
    park(view);
    stack.append(view);
    const item = {view, asked, ready: typeset(view), shown: false, lastShown: 0};
    held.set(entry.position, item);
    return item;
  }
  function drop(position) {
    const item = held.get(position);
    if (!item || item.view === current()) return;
    held.delete(position);
    if (window.MathJax && MathJax.typesetClear) MathJax.typesetClear(Array.from(item.view.querySelectorAll(".tex2jax_process")));
    item.view.remove();
  }
  function evict() {
    Array.from(held.entries())
      .filter(([position, item]) => item.shown && item.view !== current() && !order.includes(position))
      .sort((a, b) => b[1].lastShown - a[1].lastShown)
      .slice(KEEP)
      .forEach(([position]) => drop(position));
  }

  // -- the list of what comes next, from the server, once the outbox has told it what was judged
  function refresh() {
    const view = current();
    if (!navigator.onLine) return Promise.resolve(false);
    if (pending && pending.view === view) return pending.promise;
    const have = Array.from(held.values(), (item) => item.view.dataset.poolItem).join(",");
    let asked = 0;
    const promise = Outbox.idle(10000)
      .then(() => {
        asked = Date.now();
        return fetch(view.dataset.url + "ahead/?have=" + have,
                     {credentials: "same-origin", redirect: "manual", headers: {Accept: "application/json"}});
      })
      .then((response) => (response.ok ? response.json() : null))
      .then((body) => {
        if (!body || current() !== view) return false;
        const next = [];
        for (const entry of body.items) {
          const item = held.get(entry.position);
          if (item && item.view.dataset.poolItem !== String(entry.pool_item)) drop(entry.position);  // rebuilt
          if (!held.has(entry.position) && !(entry.html && adopt(entry, asked))) break;
          next.push(entry.position);
        }
        branch = null;
        const alt = body.if_relevant;
        if (alt) {
          const item = held.get(alt.position);
          if (item && item.view.dataset.poolItem !== String(alt.pool_item)) drop(alt.position);
          if (held.has(alt.position) || (alt.html && adopt(alt, asked))) {
            branch = {position: alt.position, grades: body.relevant_grades || []};
          }
        }
        held.forEach((item, position) => {
          if (!item.shown && !next.includes(position) && !(branch && branch.position === position)) drop(position);
        });
        order = next;
        listed = Date.now();
        if (waiting === view) { waiting = null; next_(view); }
        return true;
      })
      .catch(() => false)
      .finally(() => { if (pending && pending.promise === promise) pending = null; });
    pending = {view, promise};
    return promise;
  }

  // -- showing an item (`forward`: Enter's next item, whose Back returns to the item it was opened from)
  function show(position, push, forward) {
    const item = held.get(position);
    const old = current();
    const from = positionOf(old);
    if (!held.has(from)) held.set(from, {view: old, asked: Date.now(), ready: Promise.resolve(), shown: true});
    held.get(from).lastShown = Date.now();
    park(old);
    unpark(item.view);
    const back = item.view.querySelector("#back");
    if (forward && back) back.href = old.dataset.url;
    item.shown = true;
    item.lastShown = Date.now();
    // Forward: the rest of the list. Back: the item left comes next again, then the list (the server's answer follows).
    const at = order.indexOf(position);
    order = at >= 0 ? order.slice(at + 1) : [from].concat(order).filter((p) => p !== position && !done.has(p));
    listed = 0;
    branch = null;
    document.title = item.view.dataset.title + suffix;
    label.textContent = item.view.dataset.label;
    document.querySelectorAll("#errors, main > .messages").forEach((el) => el.remove());
    pane.scrollTop = 0;
    if (push) history.pushState({judge: position}, "", item.view.dataset.url);
    Outbox.add({kind: "shown", url: item.view.dataset.url + "shown/", label: item.view.dataset.title,
                itemUrl: item.view.dataset.url,
                fields: [["stamp", item.view.dataset.stamp],
                         ["elapsed_ms", String(Math.max(0, Date.now() - item.asked))]]});
    document.dispatchEvent(new CustomEvent("judge:shown", {detail: {view: item.view, position, ready: item.ready}}));
    setTimeout(() => { evict(); refresh(); }, 0);   // after the item is on screen
  }

  // After a complete submit of `view`: the next item of the list, at once when it is here; when the server has
  // nothing after it, the continue page (the server's thank-you, or an item skipped earlier).
  // Whether the item in `view` was given one of `grades` (any instance of a formula): facets' answers are not grades.
  function given(view, grades) {
    return Array.from(view.querySelectorAll("input[type=radio]:checked"))
      .some((input) => !input.name.startsWith("facet-") && grades.includes(input.value));
  }

  async function next_(view) {
    done.add(positionOf(view));
    // Back then Enter: the item Back left, as it was shown after this one, before anything new.
    const back = later.take(view.dataset.url);
    const again = Array.from(held.keys()).find((p) => held.get(p).view.dataset.url === back);
    if (again !== undefined) {
      await held.get(again).ready;
      if (current() === view) show(again, true, true);
      return;
    }
    if (back && navigator.onLine) { leave(back); return; }   // left in a page before this one
    for (;;) {
      const relevant = branch && !done.has(branch.position) && held.has(branch.position) && given(view, branch.grades);
      const position = relevant ? branch.position : order.find((p) => !done.has(p) && held.has(p));
      if (position !== undefined) {
        await held.get(position).ready;
        if (current() === view) show(position, true, true);
        return;
      }
      if (!navigator.onLine || (listed && !pending) || !(await refresh()) || current() !== view) break;
    }
    if (current() !== view) return;
    if (listed && navigator.onLine) {
      Outbox.idle(10000).then(() => Outbox.go(() => location.assign(view.querySelector("#next").href)));
    } else {
      waiting = view;
      tell(view, "Saved in this browser. No further item was fetched: the next one opens when the network is back.");
    }
  }

  // Another page (Back past the items held, Next unjudged, Skip): once the outbox has told the server everything.
  function leave(url) {
    if (!navigator.onLine || !url) {
      tell(current(), "Offline: this opens when the network is back. Your judgments are kept in this browser.");
      return;
    }
    Outbox.idle(5000).then(() => Outbox.go(() => location.assign(url)));
  }

  window.JudgeAhead = {
    async next(view) {
      if (moving) return;
      moving = true;
      try { await next_(view); } finally { moving = false; }
    },
    moving: () => moving,
    back() {
      const link = current().querySelector("#back");
      if (!link) return;
      const url = new URL(link.href).pathname;
      for (const [position, item] of held) {
        if (item.view.dataset.url === url) {
          later.set(url, current().dataset.url);
          show(position, true, false);
          return;
        }
      }
      later.set(url, current().dataset.url);
      leave(link.href);
    },
    leave,
    tell,
    stale() { if (Date.now() - listed > FRESH_MS) refresh(); },
  };

  window.addEventListener("popstate", (event) => {
    const position = event.state && event.state.judge;
    if (typeof position === "number" && held.has(position)) { show(position, false, false); return; }
    if (navigator.onLine) { Outbox.go(() => location.reload()); return; }
    history.replaceState({judge: positionOf(current())}, "", current().dataset.url);
    tell(current(), "Offline: that item is no longer in this page; it opens when the network is back.");
  });
  // The server found the item shown stale (the pools were rebuilt since it was fetched): the position anew.
  Outbox.onAnswer((record, outcome) => {
    if (record.kind !== "shown" || !outcome.ok || outcome.body.current !== false) return;
    if (current().dataset.url === record.itemUrl) { Outbox.go(() => location.replace(record.itemUrl)); return; }
    held.forEach((item, position) => { if (item.view.dataset.url === record.itemUrl) drop(position); });
  });
  window.addEventListener("online", refresh);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && Date.now() - listed > REFRESH_MS) refresh();
  });
  setInterval(() => { if (document.visibilityState === "visible") refresh(); }, REFRESH_MS);

  const first = current();
  held.set(positionOf(first), {view: first, asked: performance.timeOrigin, ready: Promise.resolve(), shown: true,
                               lastShown: Date.now()});
  history.replaceState({judge: positionOf(first)}, "", location.href);
  refresh();
})();
