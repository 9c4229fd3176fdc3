// Rummy table: drag a card of your hand to another place (the keyboard focus across updates is site.js's).
// A drop sends the hand's selection (data-rm-ui) with a "move" operation through the hidden ws-send form; the
// server applies it (games/tables/rummy.py, clean_ui) and re-renders the hand. Keyboard users have the
// Move left / Move right buttons; this only adds the mouse way.
(function () {
  "use strict";
  if (window.rummyTable) { return; }
  window.rummyTable = true;

  var from = null;

  function slot(target) {
    return target && target.closest ? target.closest(".rm-hand-cards li[data-pos]") : null;
  }

  function clearMarks() {
    document.querySelectorAll(".rm-hand-cards .rm-dragging, .rm-hand-cards .rm-drop").forEach(function (node) {
      node.classList.remove("rm-dragging", "rm-drop");
    });
  }

  function sendMove(start, to) {
    var list = document.querySelector(".rm-hand-cards[data-rm-ui]");
    var form = document.querySelector("form.rm-drag");
    if (!list || !form || start === to) { return; }
    var ui = JSON.parse(list.getAttribute("data-rm-ui"));
    ui.op = "move";
    ui.from = start;
    ui.to = to;
    form.querySelector("input[name=ui]").value = JSON.stringify(ui);
    if (form.requestSubmit) { form.requestSubmit(); } else { form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true })); }
  }

  document.addEventListener("dragstart", function (event) {
    var item = slot(event.target);
    if (!item) { return; }
    from = parseInt(item.getAttribute("data-pos"), 10);
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", String(from));
    item.classList.add("rm-dragging");
  });

  document.addEventListener("dragover", function (event) {
    var item = slot(event.target);
    if (from === null || !item) { return; }
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    if (!item.classList.contains("rm-drop")) {
      clearMarks();
      item.classList.add("rm-drop");
    }
  });

  document.addEventListener("drop", function (event) {
    var item = slot(event.target);
    if (from === null || !item) { return; }
    event.preventDefault();
    var start = from;
    from = null;
    clearMarks();
    sendMove(start, parseInt(item.getAttribute("data-pos"), 10));
  });

  document.addEventListener("dragend", function () {
    from = null;
    clearMarks();
  });
})();
