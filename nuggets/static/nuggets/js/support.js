// The support judging pages (docs/nuggets.md, "Support judging"): keys for every label, j/k between the units (the
// answer's nuggets, or each sentence's citations), Enter submits and goes on to the next answer. Submits go through
// the judging page's outbox (judging/static/judging/js/judge-outbox.js, unchanged): kept in this browser under a
// key until the server answers, resent under the same key, which the server answers once. Without JavaScript (or
// without storage) the form posts as a plain form.
(function () {
  "use strict";
  const form = document.getElementById("support-form");
  if (!form) return;
  const Outbox = window.JudgeOutbox;
  const readOnly = Boolean(form.dataset.readOnly);
  const units = Array.from(form.querySelectorAll(".unit"));
  const answer = document.getElementById("answer-text");
  const what = form.dataset.units === "citation" ? "citation" : "nugget";
  let current = 0;

  // A record of this page still waiting in the outbox (a reload before the server answered): the page shows it.
  const waiting = Outbox && Outbox.waitingFor(location.pathname);
  if (waiting) {
    waiting.fields.forEach(([name, value]) => {
      const radio = form.querySelector(`input[type=radio][name="${name}"][value="${value}"]`);
      if (radio) radio.checked = true;
      const hidden = form.querySelector(`input[type=hidden][name="${name}"].span-field`);
      if (hidden) showSpan(hidden.closest(".unit"), value);
    });
  }

  function open() { return units.filter((unit) => !unit.querySelector("input[type=radio]:checked")); }

  function activate(n, scroll = true) {
    if (!units.length) return;
    current = Math.max(0, Math.min(units.length - 1, n));
    units.forEach((unit, i) => unit.classList.toggle("active", i === current));
    if (scroll) units[current].scrollIntoView({block: "nearest"});
  }
  units.forEach((unit, i) => unit.addEventListener("click", () => activate(i, false)));
  const first = open()[0];
  activate(first ? units.indexOf(first) : 0, false);

  function note(text) {
    let line = form.querySelector(".support-note");
    if (!text) { if (line) line.remove(); return; }
    if (!line) {
      line = document.createElement("p");
      line.className = "support-note";
      line.setAttribute("role", "alert");
      form.querySelector(".support-nav").before(line);
    }
    line.textContent = text;
  }

  function showSpan(unit, text) {
    if (!unit) return;
    const field = unit.querySelector(".span-field");
    const shown = unit.querySelector(".span-shown");
    if (!field || !shown) return;
    field.value = text;
    shown.hidden = !text;
    shown.replaceChildren("Span: ", Object.assign(document.createElement("q"), {textContent: text}));
  }

  function label(key) {
    const unit = units[current];
    if (!unit) return false;
    const input = unit.querySelector(`input[type=radio][data-key="${key}"], input[type=radio][data-alt="${key}"]`);
    if (!input || input.disabled) return false;
    input.checked = true;
    note("");
    if (current < units.length - 1) activate(current + 1);
    return true;
  }

  // The text selected inside the answer, whitespace squeezed as the server compares it.
  function selected() {
    const selection = window.getSelection();
    if (!answer || !selection || selection.isCollapsed) return "";
    if (!answer.contains(selection.anchorNode) || !answer.contains(selection.focusNode)) return "";
    return selection.toString().split(/\s+/).filter(Boolean).join(" ");
  }

  function submit() {
    if (readOnly) return;
    const left = open();
    if (left.length) {
      note(`Label every ${what} first: ${left.length} left.`);
      activate(units.indexOf(left[0]));
      return;
    }
    const fields = Array.from(new FormData(form).entries()).filter(([name]) => name !== "csrfmiddlewaretoken");
    const record = Outbox && Outbox.add({kind: "submit", url: form.action, fields,
                                         label: document.getElementById("answer-label").textContent.trim(),
                                         itemUrl: location.pathname});
    if (!record) { form.submit(); return; }   // this browser keeps nothing: the plain form
    Outbox.go(() => location.assign(form.dataset.next));
  }

  form.addEventListener("submit", (event) => { event.preventDefault(); submit(); });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.matches && target.matches("textarea, input[type=text], input[type=search], select")) return;
    const key = event.key;
    if (key === "Enter") {
      if (target.matches && target.matches("a, button:not(#submit)")) return;   // a link or button does its own
      event.preventDefault();
      submit();
    } else if (key === "j" || key === "ArrowDown") {
      event.preventDefault();
      activate(current + 1);
    } else if (key === "k" || key === "ArrowUp") {
      event.preventDefault();
      activate(current - 1);
    } else if (key === "b") {
      if (form.dataset.previous) { event.preventDefault(); location.assign(form.dataset.previous); }
    } else if (key === "m" && what === "nugget" && !readOnly) {
      const text = selected();
      if (text) { event.preventDefault(); showSpan(units[current], text); }
      else note("Select the words of the answer that support the nugget first, then m.");
    } else if (key === "x" && what === "nugget" && !readOnly) {
      showSpan(units[current], "");
    } else if (!readOnly && label(key)) {
      event.preventDefault();
    }
  });

  // A selection made with the mouse in the answer marks the current nugget's span at once.
  if (answer && !readOnly) {
    answer.addEventListener("mouseup", () => { const text = selected(); if (text) showSpan(units[current], text); });
  }
})();
