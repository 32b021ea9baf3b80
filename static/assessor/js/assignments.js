// The assignment form (templates/assessor/campaign_assignments.html) and the new training round's form
// (templates/assessor/training_rounds.html), enhanced: "All" boxes for the assessor and topic grids, a button that
// ticks only the topics nobody holds yet, and the round field shown for training only. Without JavaScript every box
// is ticked by hand and the round field is always there (the server ignores nothing: a round given for another kind
// is refused with its message).
(function () {
  "use strict";
  ["assign-form", "round-form"].forEach(function (id) {
    var form = document.getElementById(id);
    if (form) enhance(form);
  });

  function enhance(form) {
    function boxes(name) { return Array.prototype.slice.call(form.querySelectorAll("input[name='" + name + "']")); }

    function sync(name) {   // the "All" box is ticked exactly when every box of its grid is
      var all = form.querySelector("[data-select-all='" + name + "']");
      var list = boxes(name);
      if (all) all.checked = list.length > 0 && list.every(function (b) { return b.checked; });
    }
    form.querySelectorAll("[data-select-all]").forEach(function (all) {
      var name = all.getAttribute("data-select-all");
      all.closest(".select-all").hidden = false;
      all.addEventListener("change", function () { boxes(name).forEach(function (b) { b.checked = all.checked; }); });
      form.addEventListener("change", function (event) { if (event.target.name === name) sync(name); });
    });
    form.querySelectorAll("[data-select-unassigned]").forEach(function (button) {
      var name = button.getAttribute("data-select-unassigned");
      button.addEventListener("click", function () {
        boxes(name).forEach(function (b) { b.checked = !b.closest("label").classList.contains("assigned"); });
        sync(name);
      });
    });

    var kind = form.querySelector("select[name='kind']");
    var round = document.getElementById("round-field");
    function showRound() {
      var training = kind.value === "training";
      round.hidden = !training;
      round.querySelector("input").disabled = !training;   // a hidden round is not sent
    }
    if (kind && round) { kind.addEventListener("change", showRound); showRound(); }
  }
})();
