/* AgentHorizon run report: the item list, its filters and the item view.
   Every string that comes from data (instructions, judge reasoning, model
   output) is untrusted: it is only ever assigned through textContent, never
   parsed as HTML. */
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("report-data").textContent);
  var state = { run: 0, filter: "all", query: "" };
  var OUTCOME_TEXT = {
    correct: "correct",
    false_accept: "false accept",
    false_reject: "false reject",
    invalid: "invalid"
  };
  var tbody = document.querySelector("#items-table tbody");
  var countLabel = document.getElementById("item-count");
  var search = document.getElementById("item-search");
  var runSelect = document.getElementById("run-select");
  var dialog = document.getElementById("item-dialog");
  var filterButtons = Array.prototype.slice.call(document.querySelectorAll("[data-filter]"));

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function verdictText(verdict) {
    if (verdict.success === true) return "success";
    if (verdict.success === false) return "failure";
    return "no valid verdict";
  }

  function haystack(item, verdict) {
    return [item.id, item.instruction, verdict.reasoning || "", verdict.mistake_type || ""].join("\n").toLowerCase();
  }

  function renderRows() {
    var verdicts = data.runs[state.run].verdicts;
    var fragment = document.createDocumentFragment();
    data.items.forEach(function (item, index) {
      var verdict = verdicts[index];
      var row = el("tr");
      row.dataset.index = String(index);
      row.dataset.outcome = verdict.outcome;
      row.dataset.search = haystack(item, verdict);
      row.tabIndex = 0;
      var outcome = el("td");
      outcome.appendChild(el("span", "pill " + verdict.outcome, OUTCOME_TEXT[verdict.outcome]));
      row.appendChild(outcome);
      row.appendChild(el("td", null, item.label));
      row.appendChild(el("td", null, verdictText(verdict)));
      row.appendChild(el("td", "num", item.num_steps));
      row.appendChild(el("td", null, item.os || "—"));
      var instruction = el("td", "instruction", item.instruction);
      instruction.title = item.instruction;
      row.appendChild(instruction);
      row.appendChild(el("td", "mono small", item.id.slice(0, 8)));
      row.addEventListener("click", function () { openItem(index); });
      row.addEventListener("keydown", function (event) {
        if (event.key === "Enter") openItem(index);
      });
      fragment.appendChild(row);
    });
    tbody.replaceChildren(fragment);
    updateCounts();
    applyFilter();
  }

  function updateCounts() {
    var counts = { all: data.items.length, correct: 0, false_accept: 0, false_reject: 0, invalid: 0 };
    data.runs[state.run].verdicts.forEach(function (verdict) { counts[verdict.outcome] += 1; });
    filterButtons.forEach(function (button) {
      var badge = button.querySelector(".count");
      if (badge) badge.textContent = String(counts[button.dataset.filter]);
    });
  }

  function applyFilter() {
    var shown = 0;
    var query = state.query.trim().toLowerCase();
    Array.prototype.forEach.call(tbody.rows, function (row) {
      var visible = (state.filter === "all" || row.dataset.outcome === state.filter) &&
        (!query || row.dataset.search.indexOf(query) !== -1);
      row.hidden = !visible;
      if (visible) shown += 1;
    });
    countLabel.textContent = "Showing " + shown + " of " + data.items.length + " items";
    filterButtons.forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.dataset.filter === state.filter));
    });
  }

  function fact(list, name, value, className) {
    list.appendChild(el("dt", null, name));
    var dd = el("dd", className, value);
    list.appendChild(dd);
    return dd;
  }

  function openItem(index) {
    var item = data.items[index];
    var verdict = data.runs[state.run].verdicts[index];
    document.getElementById("dialog-title").textContent = "Item " + item.id;
    var body = document.getElementById("dialog-body");
    body.replaceChildren();

    body.appendChild(el("h3", null, "Instruction"));
    body.appendChild(el("p", "textblock", item.instruction)).id = "dialog-instruction";

    var facts = el("dl", "facts");
    var outcome = fact(facts, "Outcome", "");
    outcome.appendChild(el("span", "pill " + verdict.outcome, OUTCOME_TEXT[verdict.outcome]));
    fact(facts, "Judge", data.runs[state.run].label);
    fact(facts, "Verdict", verdictText(verdict)).id = "dialog-verdict";
    fact(facts, "Parse status", verdict.status, "mono").id = "dialog-status";
    if (verdict.confidence) fact(facts, "Confidence", verdict.confidence);
    if (verdict.mistake_type) fact(facts, "Predicted mistake type", verdict.mistake_type);
    if (verdict.images) fact(facts, "Screenshots sent", verdict.images).id = "dialog-images";
    if (verdict.answers) fact(facts, "Answers", verdict.answers).id = "dialog-answers";
    fact(facts, "Label", item.label + (item.mistake_type ? " · " + item.mistake_type : ""));
    fact(facts, "Steps", item.num_steps + (item.os ? " · " + item.os : ""));
    body.appendChild(facts);

    if (verdict.error) {
      body.appendChild(el("h3", null, "Error"));
      body.appendChild(el("pre", "textblock", verdict.error));
    }
    body.appendChild(el("h3", null, verdict.reasoning_is_raw ? "Raw judge output" : "Reasoning"));
    body.appendChild(el("pre", "textblock", verdict.reasoning || "(none)")).id = "dialog-reasoning";

    if (item.thumbnails.length) {
      body.appendChild(el("h3", null, "Screenshots"));
      var thumbs = el("div", "thumbs");
      item.thumbnails.forEach(function (thumb) {
        // Only the data URLs the report itself encoded are ever loaded.
        if (thumb.src.indexOf("data:image/") !== 0) return;
        var figure = el("figure");
        var image = el("img");
        image.alt = "Step " + thumb.step + " screenshot";
        image.src = thumb.src;
        figure.appendChild(image);
        figure.appendChild(el("figcaption", null, "Step " + thumb.step + (thumb.unreadable ? " (unreadable)" : "")));
        thumbs.appendChild(figure);
      });
      body.appendChild(thumbs);
    }
    dialog.showModal();
  }

  filterButtons.forEach(function (button) {
    button.addEventListener("click", function () {
      state.filter = button.dataset.filter;
      applyFilter();
    });
  });
  search.addEventListener("input", function () {
    state.query = search.value;
    applyFilter();
  });
  if (runSelect) {
    runSelect.addEventListener("change", function () {
      state.run = Number(runSelect.value);
      renderRows();
    });
  }
  document.getElementById("dialog-close").addEventListener("click", function () { dialog.close(); });
  dialog.addEventListener("click", function (event) {
    if (event.target === dialog) dialog.close();  // a click on the backdrop
  });

  renderRows();
})();
