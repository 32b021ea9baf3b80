// Sortable score tables, and a leaderboard that follows new judgments (polls the evaluation API, which gives the
// last scores computed, "updating" while newer judgments are scored); a page whose scores are being computed for the
// first time shows them when they are in.
(function () {
  "use strict";
  var MEASURES = ["ndcg_prime", "map_prime", "p10_prime", "unjudged_10"];
  var TASK3_MEASURES = ["ar", "p1", "lo"];
  var POLL_MS = 30000;
  var COMPUTING_POLL_MS = 5000;

  function naturalKey(text) {
    return text.split(/(\d+)/).filter(Boolean).map(function (part) {
      return /^\d+$/.test(part) ? [0, Number(part), part] : [1, 0, part];
    });
  }

  function compareKeys(a, b) {
    for (var i = 0; i < Math.min(a.length, b.length); i++) {
      for (var j = 0; j < 3; j++) {
        if (a[i][j] < b[i][j]) return -1;
        if (a[i][j] > b[i][j]) return 1;
      }
    }
    return a.length - b.length;
  }

  function cellValue(row, index, kind) {
    var cell = row.cells[index];
    if (kind === "number") {
      var raw = cell.getAttribute("data-value");
      return raw === "" || raw === null ? null : Number(raw);
    }
    return cell.textContent.trim();
  }

  function sortBy(table, index, descending) {
    var th = table.tHead.rows[0].cells[index];
    var kind = th.getAttribute("data-sort");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r1, r2) {
      var a = cellValue(r1, index, kind), b = cellValue(r2, index, kind);
      if (a === null || b === null) return (a === null) - (b === null); // n/a last either way
      var order = kind === "natural" ? compareKeys(naturalKey(a), naturalKey(b))
        : kind === "number" ? a - b : a.localeCompare(b);
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) { cell.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    table.setAttribute("data-sorted", index + (descending ? ":desc" : ":asc"));
  }

  function makeSortable(table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      if (!th.hasAttribute("data-sort")) return;
      th.tabIndex = 0;
      th.classList.add("sort");
      var activate = function () {
        // Scores read best first; names read from the top.
        var first = th.getAttribute("data-sort") === "number" && th.textContent.indexOf("Unjudged") < 0;
        var current = th.getAttribute("aria-sort");
        sortBy(table, index, current ? current === "ascending" : first);
      };
      th.addEventListener("click", activate);
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); activate(); }
      });
    });
  }

  function resort(table) {
    var sorted = table.getAttribute("data-sorted");
    if (!sorted) return;
    var parts = sorted.split(":");
    sortBy(table, Number(parts[0]), parts[1] === "desc");
  }

  function format(value) { return value === null || value === undefined ? "n/a" : value.toFixed(4); }

  // The rows of a table from the API's runs: its measures in columns 2, 3, ..., then the topics; how many runs it
  // does not show (new runs: a reload shows them).
  function fill(table, runs, measures) {
    var known = {};
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) { known[row.getAttribute("data-run")] = row; });
    var missing = 0;
    runs.forEach(function (run) {
      var row = known[run.run];
      if (!row) { missing += 1; return; }
      measures.forEach(function (name, i) {
        var cell = row.cells[2 + i];
        cell.setAttribute("data-value", run[name] === null ? "" : run[name]);
        cell.textContent = format(run[name]);
      });
      var topics = row.cells[2 + measures.length];
      topics.setAttribute("data-value", run.topics);
      topics.textContent = run.topics;
    });
    resort(table);
    return missing;
  }

  // Rank 1 for the best; tied values share the better rank (as the page ranks them); null for no value.
  function ranks(values) {
    return values.map(function (value) {
      if (value === null || value === undefined) return null;
      return 1 + values.filter(function (other) { return other !== null && other !== undefined && other > value; }).length;
    });
  }

  function setCell(cell, value, text) {
    cell.setAttribute("data-value", value === null || value === undefined ? "" : value);
    cell.textContent = text === undefined ? format(value) : text;
  }

  // The LLM judge's part (docs/evaluation.md): its scores beside the people's, each ranking, and the taus of the subset shown.
  function updateLlm(data) {
    var board = document.getElementById("llm-leaderboard");
    var taus = document.getElementById("llm-correlation");
    if (!board || !taus || !data.llm || data.llm.problem) return;
    var people = {}, judge = {};
    data.runs.forEach(function (run) { people[run.run] = run; });
    data.llm.runs.forEach(function (run) { judge[run.run] = run; });
    var rows = Array.prototype.slice.call(board.tBodies[0].rows);
    var name = function (row) { return row.getAttribute("data-run"); };
    var value = function (found, row) { return found[name(row)] ? found[name(row)].ndcg_prime : null; };
    var peopleRanks = ranks(rows.map(function (row) { return value(people, row); }));
    var judgeRanks = ranks(rows.map(function (row) { return value(judge, row); }));
    rows.forEach(function (row, i) {
      setCell(row.cells[2], peopleRanks[i], peopleRanks[i] === null ? "n/a" : String(peopleRanks[i]));
      setCell(row.cells[3], judgeRanks[i], judgeRanks[i] === null ? "n/a" : String(judgeRanks[i]));
      MEASURES.slice(0, 3).forEach(function (measure, m) {
        var mine = people[name(row)], its = judge[name(row)];
        setCell(row.cells[4 + 2 * m], mine ? mine[measure] : null);
        setCell(row.cells[5 + 2 * m], its ? its[measure] : null);
      });
    });
    var subset = taus.getAttribute("data-subset") === "without" ? data.llm.without : data.llm.correlations;
    subset.forEach(function (found) {
      var row = taus.querySelector('tr[data-measure="' + found.measure + '"]');
      if (!row) return;
      row.cells[1].textContent = found.runs;
      row.cells[2].textContent = found.topics;
      row.cells[3].textContent = format(found.kendall_tau);
      row.cells[4].textContent = "[" + format(found.tau_low) + ", " + format(found.tau_high) + "]";
      row.cells[5].textContent = format(found.tau_ap);
      row.cells[6].textContent = "[" + format(found.tau_ap_low) + ", " + format(found.tau_ap_high) + "]";
    });
  }

  function update(table, data) {
    var status = document.getElementById("poll-status");
    updateLlm(data);
    var missing = fill(table, data.runs, MEASURES);
    var answers = document.getElementById("task3-leaderboard");  // an answers campaign's ARQMath-3 Task 3 runs
    if (data.answer_runs) missing += answers ? fill(answers, data.answer_runs, TASK3_MEASURES) : data.answer_runs.length;
    table.setAttribute("data-version", data.version);
    var count = document.getElementById("judgment-count");
    if (count) {
      var noun = count.getAttribute("data-noun");
      var plural = function (n, word) { return n + " " + word + (n === 1 ? "" : "s"); };
      count.textContent = plural(data.judgments, noun) + " in " + plural(data.qrels_topics, "topic") +
        (data.instances === null || data.instances === undefined ? "" :
          " (" + plural(data.instances, "formula instance") + ")");
    }
    var scores = document.getElementById("scores-status");
    if (scores && data.computed_at) {
      scores.textContent = "Scores computed at " + new Date(data.computed_at).toLocaleTimeString() +
        (data.updating ? "; updating with the newest judgments…" : ", with the newest judgments.");
    }
    if (status) {
      status.textContent = "Updated at " + new Date().toLocaleTimeString() + " with " + data.judgments +
        " official judgments in the qrels." + (missing ? " New runs: reload the page to see them." : "");
    }
  }

  function poll(table) {
    var url = table.getAttribute("data-poll");
    window.setInterval(function () {
      if (document.hidden) return;
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          if (data && data.runs && data.version !== table.getAttribute("data-version")) update(table, data);
        })
        .catch(function () { /* offline for a moment: the next poll tries again */ });
    }, POLL_MS);
  }

  // The first scores of what the page asked for are being computed: show the page with them once the API has them
  // (the reusability page, which has no API, reloads itself).
  function awaitFirst(status) {
    var url = status.getAttribute("data-poll");
    window.setInterval(function () {
      if (document.hidden) return;
      if (!url) { window.location.reload(); return; }
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { if (response.status !== 202) window.location.reload(); })
        .catch(function () { /* offline for a moment: the next poll tries again */ });
    }, COMPUTING_POLL_MS);
  }

  var first = document.querySelector("#scores-status[data-computing]");
  if (first) awaitFirst(first);

  document.querySelectorAll("table.sortable").forEach(function (table) {
    makeSortable(table);
    if (table.hasAttribute("data-poll")) poll(table);
  });
})();
