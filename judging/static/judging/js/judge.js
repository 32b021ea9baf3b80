// The judging page: keyboard shortcuts, active time, and submits. Without JavaScript the page still works: grades are
// radio buttons in a plain form. With it (docs/judging.md), a submit that completes the item is kept in the browser and sent
// by the outbox (judge-outbox.js) while the next item, fetched ahead (judge-ahead.js), is swapped in at once; a
// submit that only the server can answer (a grade or a required comment missing: it says which) is posted as the
// plain form. A closed topic's page has neither script: its form has no submit button. The characterisation page
// (characterise.html) uses this script too, for the same keys: its questions are stepped through as instances are.
(function () {
  "use strict";
  const pane = document.getElementById("item-pane");
  if (!pane) return;
  const Outbox = window.JudgeOutbox;
  const Ahead = window.JudgeAhead;
  const fast = Boolean(Outbox && Ahead);
  // Shortcut key -> grade, as the page's buttons declare them (the server names the keys).
  const keys = {};
  pane.querySelectorAll("input[type=radio][data-key]").forEach((input) => { keys[input.dataset.key] = input.value; });

  // Active time: seconds with the tab visible and some input in the last minute (docs/judging.md), counted from when the
  // item is shown (an item swapped in starts from zero).
  const IDLE_MS = 60 * 1000;
  let active = 0;
  let lastInput = Date.now();
  let lastTick = Date.now();
  const touch = () => { lastInput = Date.now(); };
  ["keydown", "mousemove", "mousedown", "wheel", "scroll", "touchstart"].forEach(
    (type) => document.addEventListener(type, touch, {passive: true, capture: true}));
  setInterval(() => {
    const now = Date.now();
    if (document.visibilityState === "visible" && now - lastInput < IDLE_MS) active += now - lastTick;
    lastTick = now;
  }, 1000);

  // The item shown, and its instances (Task 2) or questions (characterisation): units graded one after the other.
  let view = null;
  let form = null;
  let formulas = false;
  let instances = [];
  let current = 0;
  let settled = false;   // a grade key graded the last unit still open: the next one would overwrite it unseen
  let sending = false;   // a plain submit is on its way: a second click or Enter does nothing

  function activate(n, scroll = true) {
    if (!instances.length) return;
    const to = Math.max(0, Math.min(instances.length - 1, n));
    if (settled || to !== current) note(instances[current], "");   // what it said of the unit left is past
    settled = false;
    current = to;
    instances.forEach((el, i) => el.classList.toggle("active", i === current));
    if (scroll) instances[current].scrollIntoView({block: "nearest", behavior: "smooth"});
  }

  function bind(shown) {
    view = shown;
    form = view.querySelector("form");
    form.tabIndex = -1;   // focusable, so that focus can come back to it (returning to the tab)
    instances = Array.from(form.querySelectorAll(".instance, .question"));
    formulas = instances.length > 0;
    current = 0;
    settled = false;
    sending = false;
    active = 0;
    lastTick = Date.now();
    if (!view.dataset.bound) {
      view.dataset.bound = "1";
      instances.forEach((el, i) => el.addEventListener("focusin", () => { if (el.closest(".item-view") === view) activate(i); }));
    }
    // After a partial save (or a refused submission) the page comes back with some instances graded: the highlight
    // starts on the first one still without a grade, not on the first instance.
    const firstOpen = instances.findIndex((el) => !el.querySelector("input[type=radio]:checked"));
    activate(Math.max(firstOpen, 0), firstOpen > 0);
    refocus();
  }
  bind(pane.querySelector(".item-view"));
  document.addEventListener("judge:shown", (event) => bind(event.detail.view));

  // A line of the page's own under a unit's buttons (role alert: read out); empty text removes it.
  function note(scope, text) {
    const set = scope && (scope.matches("fieldset") ? scope : scope.querySelector("fieldset.grades"));
    if (!set) return;
    let line = set.querySelector(".judge-note");
    if (!text) { if (line) line.remove(); return; }
    if (!line) {
      line = document.createElement("p");
      line.className = "judge-note";
      line.setAttribute("role", "alert");
      set.append(line);
    }
    line.textContent = text;
  }

  // System failure or Do not know chosen and the comment box empty: says so (the server would refuse it).
  function commentNeeded(scope) {
    const input = scope.querySelector("input[type=radio]:checked");
    const box = scope.querySelector("textarea");
    const needed = Boolean(input && box && input.hasAttribute("data-needs-comment") && !box.value.trim());
    note(scope, needed ? `A comment is required with ${input.closest("label").title.split(":")[0]}: ` +
                         "write it here, then Ctrl+Enter submits." : "");
    return needed;
  }
  const unitOf = (el) => el.closest(".instance, .question") || el.closest("form");
  document.addEventListener("change", (event) => {
    if (form && form.contains(event.target) && event.target.matches("input[type=radio]")) commentNeeded(unitOf(event.target));
  });
  document.addEventListener("input", (event) => {
    if (form && form.contains(event.target) && event.target.matches("textarea")) commentNeeded(unitOf(event.target));
  });

  function grade(value) {
    const scope = formulas ? instances[current] : form;
    if (!scope) return;
    const input = scope.querySelector(`input[type=radio][value="${value}"]`);
    if (!input || input.disabled) return;
    if (settled) {   // every unit graded by keys in turn: a further key would change the last one without a sign
      note(scope, "Every one is graded: Enter submits; j / k (or a click) picks one to change.");
      return;
    }
    input.checked = true;
    if (fast) Ahead.stale();   // a submit is coming: what follows is asked again if the list is old
    commentNeeded(scope);
    if (input.hasAttribute("data-needs-comment")) {
      // A comment goes with it: the cursor goes to the box whatever it holds already (a comment written before Back),
      // so that what is typed next is the comment, never shortcuts.
      const box = scope.querySelector("textarea");
      box.focus();
      box.setSelectionRange(box.value.length, box.value.length);
      return;
    }
    if (formulas) {
      const open = (el, i) => i !== current && !el.querySelector("input[type=radio]:checked");
      let next = instances.findIndex((el, i) => i > current && open(el, i));
      if (next === -1) next = instances.findIndex(open);   // one left open before this one
      if (next !== -1) activate(next); else settled = true;
    }
  }

  // Focus back on the form unless it is in one of its fields (the comment box, a grade button): left on a link or a
  // button (a Thread opened in another tab), on nothing, or in an item swapped out, the keys then work at once.
  function refocus() {
    const el = document.activeElement;
    if (!form || (el && el.matches("input, textarea, select") && view.contains(el))) return;
    form.focus({preventScroll: true});
  }
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") refocus(); });
  // A link opening another tab (Thread) leaves the focus here on the form, whatever the browser tells this tab later.
  document.addEventListener("click", (event) => {
    if (event.target.closest("a[target=_blank]")) setTimeout(refocus, 0);
  });
  window.addEventListener("focus", refocus);

  // "complete": every unit graded (a comment where required); "nothing": no grade at all; else "incomplete". The
  // server checks again; this only decides whether the page can move on before its answer.
  // A unit is graded by a grade (or mark), or, in a scheme with facets, by an option of every facet.
  function answered(unit) {
    const facets = Array.from(unit.querySelectorAll("fieldset.facet"));
    return unit.querySelector("fieldset.grades:not(.facet) input[type=radio]:checked")
      || (facets.length && facets.every((set) => set.querySelector("input[type=radio]:checked")));
  }

  // What is missing before a first submit: the questions of a scheme with facets left unanswered (by their
  // wording), else a grade.
  function unanswered() {
    const unit = formulas ? instances[current] : form;
    const open = Array.from(unit.querySelectorAll("fieldset.facet"))
      .filter((set) => !set.querySelector("input[type=radio]:checked"))
      .map((set) => `“${set.querySelector("legend").textContent.trim()}”`);
    if (!open.length) return "Choose a grade first.";
    const marks = unit.querySelector("fieldset.grades:not(.facet) input[type=radio]") ? " (or choose a mark)" : "";
    return `Answer ${open.join(" and ")} first${marks}.`;
  }

  function readiness() {
    const units = formulas ? instances : [form];
    const graded = units.filter(answered);
    if (!graded.length) return "nothing";
    const commented = graded.every((unit) => !unit.querySelector("input[type=radio]:checked[data-needs-comment]")
                                             || unit.querySelector("textarea").value.trim());
    return graded.length === units.length && commented ? "complete" : "incomplete";
  }

  function plainSubmit(target) {
    sending = true;
    const button = document.getElementById("submit");
    if (button) button.setAttribute("aria-busy", "true");
    // The outbox first, so that the server knows every judgment made before this one.
    const go = () => HTMLFormElement.prototype.submit.call(target);
    if (fast) Outbox.idle(5000).then(() => Outbox.go(go)); else go();
  }

  document.addEventListener("submit", (event) => {
    const target = event.target;
    if (target.id === "skip-form" && fast) {
      event.preventDefault();
      if (navigator.onLine) plainSubmit(target); else Ahead.leave(null);   // offline: says so, stays
      return;
    }
    if (target !== form) return;
    event.preventDefault();
    if (sending || (fast && Ahead.moving())) return;
    if (form.elements.active_seconds) form.elements.active_seconds.value = (active / 1000).toFixed(1);
    if (!fast) { plainSubmit(form); return; }
    const state = readiness();
    if (state === "nothing") { Ahead.tell(view, unanswered()); return; }
    if (state === "incomplete") {
      if (navigator.onLine) plainSubmit(form);   // the server says what is missing, or keeps part of a formula
      else Ahead.tell(view, "Offline: grade every instance (with a comment where one is required) to keep it in this browser.");
      return;
    }
    const fields = Array.from(new FormData(form), ([name, value]) => [name, String(value)])
      .filter(([name]) => name !== "csrfmiddlewaretoken");
    // `after`: this item's submit made before from this page, whose answer gives the revision this one saw.
    const record = Outbox.add({kind: "submit", url: form.action, fields, label: view.dataset.title,
                               itemUrl: view.dataset.url, after: view.dataset.lastKey});
    if (!record) { plainSubmit(form); return; }   // this browser keeps nothing: the server answers first
    view.dataset.lastKey = record.key;
    pendingMark(view, record);
    if (view.dataset.complete !== "1" && !view.dataset.counted) {
      view.dataset.counted = "1";
      const bar = document.querySelector("#progress progress");
      progress(Number(bar.value) + 1, Number(bar.max));
    }
    Ahead.next(view);
  });

  function progress(done, total) {
    const box = document.getElementById("progress");
    const bar = box.querySelector("progress");
    bar.max = total;
    bar.value = done;
    box.lastChild.textContent = ` ${done} of ${total} judged`;
  }

  function pendingMark(target, record) {
    const line = target.querySelector(".item-sync");
    line.textContent = "Saved in this browser, sending…";
    line.dataset.key = record.key;
    line.hidden = false;
  }

  // The grades the server took, shown under each set of buttons as the page shows a saved judgment.
  function savedLines(target, fields) {
    const values = new Map(fields);
    target.querySelectorAll("fieldset.grades").forEach((set) => {
      const radio = set.querySelector("input[type=radio]");
      const chosen = radio && set.querySelector(`input[type=radio][value="${values.get(radio.name)}"]`);
      if (!chosen) return;
      let line = set.querySelector(".saved");
      if (!line) {
        line = document.createElement("p");
        line.className = "saved";
        set.append(line);
      }
      const strong = document.createElement("strong");
      strong.textContent = chosen.closest("label").title.split(":")[0];
      line.replaceChildren("Saved: ", strong, ".");
    });
  }

  if (fast) {
    Outbox.onAnswer((record, outcome) => {
      if (record.kind !== "submit") return;
      document.querySelectorAll(".item-sync").forEach((line) => {
        if (line.dataset.key !== record.key) return;
        if (outcome.refused) line.textContent = "Not saved: " + outcome.errors.join("; ");
        else line.textContent = outcome.body.complete ? "Saved." : "Saved, not complete: grade every instance.";
        if (outcome.ok) savedLines(line.closest(".item-view"), record.fields);
      });
      if (outcome.ok && !Outbox.waiting()) progress(outcome.body.progress.done, outcome.body.progress.total);
      // The item's revision the server answered is the one a plain submit of it from this page saw.
      document.querySelectorAll(".item-view").forEach((shown) => {
        const last = shown.dataset.lastKey;
        if (!last || (last !== record.key && last !== record.replaces)) return;
        const revision = Outbox.revisionAfter(last);
        if (revision === undefined) return;
        shown.querySelector("input[name=seen_revision]").value = String(revision);
        delete shown.dataset.lastKey;
      });
    });
    // Reopened with this item's submit still in the browser: the grades as submitted, not as the server had them.
    const kept = Outbox.waitingFor(view.dataset.url);
    if (kept) {
      kept.fields.forEach(([name, value]) => {
        const field = form.elements.namedItem(name);
        if (field instanceof RadioNodeList) field.value = value;
        else if (field instanceof HTMLTextAreaElement) field.value = value;
      });
      pendingMark(view, kept);
      view.dataset.lastKey = kept.key;
    }
    pane.addEventListener("click", (event) => {
      const link = event.target.closest("a#back, a#next");
      if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      if (link.id === "back") Ahead.back(); else Ahead.leave(link.href);
    });
  }

  function click(id) {
    const el = document.getElementById(id);
    if (el) el.click();
  }

  // The grade definitions stay open from item to item (in this browser) once opened; Escape closes them.
  const definitions = document.getElementById("definitions");
  const OPEN = "judge-definitions-open";
  if (definitions) {
    try { definitions.open = localStorage.getItem(OPEN) === "1"; } catch (error) { /* nothing kept */ }
    definitions.addEventListener("toggle", () => {
      try { localStorage.setItem(OPEN, definitions.open ? "1" : "0"); } catch (error) { /* nothing kept */ }
    });
  }

  // A text field has the focus (the comment box, any input one types in, a select, an editable element): keys are
  // text there, no shortcut acts (Enter submits only with Ctrl).
  const NOT_TEXT = ["radio", "checkbox", "button", "submit", "reset", "image", "hidden"];
  function typingIn(el) {
    if (!(el instanceof HTMLElement)) return false;
    if (el.isContentEditable || el.matches("textarea, select")) return true;
    return el instanceof HTMLInputElement && !NOT_TEXT.includes(el.type);
  }

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.metaKey) return;
    const typing = typingIn(event.target);
    if (event.key === "Enter" && (event.ctrlKey || !typing)) {
      // Enter on a link or button keeps its meaning until a grade is chosen; then it submits wherever the focus is
      // (say, on a Thread link opened a moment ago).
      if (event.target.matches("a, button") && !event.ctrlKey && !form.querySelector("input[type=radio]:checked")) return;
      event.preventDefault();
      if (!event.repeat && document.getElementById("submit")) form.requestSubmit();
      return;
    }
    if (typing || event.ctrlKey) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    if (event.key === "Escape" && definitions && definitions.open) { definitions.open = false; return; }
    const key = event.key.toLowerCase();
    if (key in keys) { event.preventDefault(); grade(keys[key]); }
    else if (key === "b") click("back");
    else if (key === "n") click("next");
    else if (key === "s") click("skip");
    else if (key === "j" && formulas) activate(current + 1);
    else if (key === "k" && formulas) activate(current - 1);
    else if (key === "?" && definitions) {
      definitions.open = !definitions.open;
      if (definitions.open) definitions.scrollIntoView({block: "nearest", behavior: "smooth"});  // below the fold
    }
  });
})();
