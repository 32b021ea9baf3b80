// The judging page: keyboard shortcuts, active time, and one submission per click.
// Without JavaScript the page still works: grades are radio buttons in a plain form.
(function () {
  "use strict";
  const form = document.getElementById("judge-form");
  if (!form) return;
  const formulas = form.dataset.formulas === "1";
  // Shortcut key -> grade, as the page's buttons declare them (the server names the keys).
  const keys = {};
  form.querySelectorAll("input[type=radio][data-key]").forEach((input) => { keys[input.dataset.key] = input.value; });

  // Active time: seconds with the tab visible and some input in the last minute (SPEC 5.3).
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

  // A second click or Enter while the first submission is on its way does nothing (the server is idempotent
  // anyway: this only spares the request).
  let sending = false;
  form.addEventListener("submit", (event) => {
    if (sending) { event.preventDefault(); return; }
    sending = true;
    form.elements.active_seconds.value = (active / 1000).toFixed(1);
    const button = document.getElementById("submit");
    if (button) button.setAttribute("aria-busy", "true");
  });

  const instances = Array.from(form.querySelectorAll(".instance"));
  let current = 0;
  function activate(n) {
    if (!instances.length) return;
    current = Math.max(0, Math.min(instances.length - 1, n));
    instances.forEach((el, i) => el.classList.toggle("active", i === current));
    instances[current].scrollIntoView({block: "nearest", behavior: "smooth"});
  }
  instances.forEach((el, i) => el.addEventListener("focusin", () => activate(i)));
  // After a partial save (or a refused submission) the page comes back with some instances graded: the highlight
  // starts on the first one still without a grade, not on the first instance.
  const firstOpen = instances.findIndex((el) => !el.querySelector("input[type=radio]:checked"));
  if (firstOpen > 0) activate(firstOpen);

  function grade(value) {
    const scope = formulas ? instances[current] : form;
    if (!scope) return;
    const input = scope.querySelector(`input[type=radio][value="${value}"]`);
    if (!input || input.disabled) return;
    input.checked = true;
    if (value === "SF" || value === "DK") {
      scope.querySelector("textarea").focus();  // a comment is required: go write it
      return;
    }
    if (formulas) {
      const next = instances.findIndex((el, i) => i > current && !el.querySelector("input[type=radio]:checked"));
      if (next !== -1) activate(next);
    }
  }

  function click(id) {
    const el = document.getElementById(id);
    if (el) el.click();
  }

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.metaKey) return;
    const typing = event.target.matches("textarea, input[type=text], input[type=search]");
    if (event.key === "Enter" && (event.ctrlKey || !typing)) {
      if (event.target.matches("a, button") && !event.ctrlKey) return;  // Enter on a link or button keeps its meaning
      event.preventDefault();
      if (document.getElementById("submit")) form.requestSubmit();
      return;
    }
    if (typing || event.ctrlKey) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    const key = event.key.toLowerCase();
    if (key in keys) { event.preventDefault(); grade(keys[key]); }
    else if (key === "b") click("back");
    else if (key === "n") click("next");
    else if (key === "s") click("skip");
    else if (key === "j" && formulas) activate(current + 1);
    else if (key === "k" && formulas) activate(current - 1);
    else if (key === "?") {
      const d = document.getElementById("definitions");
      d.open = !d.open;
      if (d.open) d.scrollIntoView({block: "nearest", behavior: "smooth"});  // below the fold on a long item
    }
  });
})();
