// ddz-table: the deck walk-through's grid of reads. A cell's select (a tap on the cell opens it)
// names the card lying there; the cell shows the choice and is marked while it differs from the read.
(function () {
  "use strict";
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
