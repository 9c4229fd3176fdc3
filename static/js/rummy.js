// Rummy table: drag a card of your hand to another place, and keep the keyboard focus across the socket's updates.
// A drop sends the hand's selection (data-rm-ui) with a "move" operation through the hidden ws-send form; the
// server applies it (games/tables/rummy.py, clean_ui) and re-renders the hand. Keyboard users have the
// Move left / Move right buttons; this only adds the mouse way.
(function () {
  "use strict";
  if (window.rummyTable) { return; }
  window.rummyTable = true;

  // Every update replaces the hand and the table: put the focus back on the control with the same id, or, when
  // that control is gone (a pack made, a card discarded), on the lay-down button or the first card of the hand.
  var focusId = null;
  document.addEventListener("htmx:wsBeforeMessage", function () {
    var active = document.activeElement;
    focusId = active && active.id && active.closest && active.closest(".match-rummy") ? active.id : null;
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var id = focusId;
    focusId = null;
    var active = document.activeElement;
    if (!id || (active && active !== document.body && document.contains(active))) { return; }
    var next = document.getElementById(id) || document.getElementById("rm-lay") || document.getElementById("rm-card-0");
    if (next) { next.focus({ preventScroll: true }); }
  });

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
