// ddz-table: the deck walk-through's grid of reads. A cell's select (a tap on the cell opens it)
// names the card lying there; the cell shows the choice and is marked while it differs from the read.
// While the deck's reader trains, the page follows it: the status endpoint's JSON every second or so
// moves the bar and the line, and once it is no longer training the page reloads to show the result.
(function () {
  "use strict";
  var training = document.getElementById("deck-training");
  if (training) {
    var bar = training.querySelector(".deck-bar");
    var follow = function () {
      fetch(training.dataset.status, { cache: "no-store", credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (s) {
          if (!s || s.state !== "training") { window.location.reload(); return; }
          bar.setAttribute("aria-valuenow", String(s.percent));
          bar.firstElementChild.style.width = s.percent + "%";
          document.getElementById("deck-progress").textContent = s.line;
          var elapsed = document.getElementById("deck-elapsed");
          elapsed.textContent = elapsed.textContent.replace(/\d+/, String(s.seconds));
          window.setTimeout(follow, 1200);
        })
        .catch(function () { window.setTimeout(follow, 3000); });
    };
    window.setTimeout(follow, 1200);
  }
  var grid = document.getElementById("deck-grid");
  if (!grid) return;
  grid.addEventListener("change", function (e) {
    var select = e.target.closest("select");
    var cell = select && select.closest(".cell");
    if (!cell) return;
    var option = select.options[select.selectedIndex];
    var want = cell.querySelector(".want");
    want.textContent = "";
    var shown = document.createElement("span");
    shown.className = option.value ? (option.dataset.colour || "") : "";
    shown.textContent = option.value ? option.textContent : "–";
    want.appendChild(shown);
    cell.classList.toggle("differs", select.value !== cell.dataset.read);
    cell.classList.toggle("none", !select.value);
  });
})();
