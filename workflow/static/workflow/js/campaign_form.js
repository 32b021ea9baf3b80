// The new-campaign form (workflow/templates/workflow/campaign_list.html), enhanced: Task 2's fields show for Task 2 only,
// and the new collection's name only when "Create a new collection" is picked. Without JavaScript every field is
// shown with its label saying when it applies, and the server ignores Task 2's fields for Task 1.
(function () {
  "use strict";
  var form = document.getElementById("campaign-form");
  if (!form) return;
  var task = form.querySelector("select[name='task']");
  var collection = form.querySelector("select[name='collection']");
  var newName = document.getElementById("field-new_collection");
  function update() {
    form.querySelectorAll("[data-task]").forEach(function (field) {
      var shown = field.getAttribute("data-task") === task.value;
      field.hidden = !shown;
      field.querySelectorAll("input, select").forEach(function (input) { input.disabled = !shown; });
    });
    var creating = collection.value === "+new";
    newName.hidden = !creating;
    newName.querySelector("input").disabled = !creating;
    newName.querySelector("small").hidden = true;
  }
  task.addEventListener("change", update);
  collection.addEventListener("change", update);
  update();
})();
