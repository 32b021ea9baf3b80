// The assignment form (judging/templates/judging/campaign_assignments.html) and the new training round's form
// (agreement/templates/agreement/training_rounds.html), enhanced: "All" boxes for the assessor and topic grids, a button that
// ticks only the topics nobody holds yet, the round field shown for training only, and the topic search filtering
// the grid as one types. Without JavaScript every box is ticked by hand, the round field is always there (the server
// ignores nothing: a round given for another kind is refused with its message) and the search reloads the page with
// ?q= (the server filters the grid the same way: every word in the box's data-search). The "All" boxes and the
// "unassigned" button act on the topics shown; a ticked topic the search hides stays ticked.
(function () {
  "use strict";
  ["assign-form", "round-form"].forEach(function (id) {
    var form = document.getElementById(id);
    if (form) enhance(form);
  });

  function enhance(form) {
    function boxes(name) {
      return Array.prototype.slice.call(form.querySelectorAll("input[name='" + name + "']")).filter(function (b) {
        return !b.closest("label").hidden;
      });
    }

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

    var search = document.getElementById("topic-search");
    var query = search && form.id === "assign-form" && search.querySelector("input[name='q']");
    if (query) {
      var labels = Array.prototype.slice.call(form.querySelectorAll(".topic-boxes label[data-search]"));
      var count = search.querySelector(".search-count");
      var filter = function () {
        var words = query.value.toLowerCase().split(/\s+/).filter(Boolean);
        var shown = 0;
        labels.forEach(function (label) {
          var text = label.getAttribute("data-search");
          label.hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
          if (!label.hidden) shown += 1;
        });
        if (count) count.textContent = shown + " of " + count.getAttribute("data-total") + " topics";
        sync("topics");
      };
      query.addEventListener("input", filter);
      // A page opened with ?q= holds only the server's matches: its search goes back to the server.
      var whole = labels.length === Number(count && count.getAttribute("data-total"));
      search.addEventListener("submit", function (event) { if (whole) { event.preventDefault(); filter(); } });
    }
  }
})();
