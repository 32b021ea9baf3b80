// The nugget bank page (docs/nuggets.md, "Nugget banks"): text selected in an answer goes to that answer's form,
// ready to be added as a nugget. Without this script the form takes typed or pasted text the same way.
(function () {
  "use strict";
  function selected(container) {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed || selection.rangeCount === 0) return "";
    const range = selection.getRangeAt(0);
    if (!container.contains(range.commonAncestorContainer)) return "";
    return selection.toString().replace(/\s+/g, " ").trim();
  }
  document.querySelectorAll("[data-selects]").forEach(function (container) {
    const field = document.getElementById(container.dataset.selects);
    if (!field) return;
    function take() {
      const text = selected(container);
      if (text) field.value = text;
    }
    container.addEventListener("mouseup", take);
    container.addEventListener("keyup", take);
  });
})();
