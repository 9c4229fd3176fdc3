// The few things htmx can't do: the "your turn" cue in the tab title, claim countdowns, invite link copy.
(function () {
  "use strict";
  var baseTitle = document.title;

  function updateTitle() {
    var status = document.getElementById("status");
    var mine = status && status.hasAttribute("data-your-turn");
    document.title = (mine ? "▶ Your turn · " : "") + baseTitle;
  }

  var timer = null;
  function startCountdowns() {
    if (timer) { clearInterval(timer); timer = null; }
    var nodes = document.querySelectorAll(".countdown[data-seconds]");
    if (!nodes.length) { return; }
    var started = Date.now();
    var initial = Array.prototype.map.call(nodes, function (n) { return parseInt(n.getAttribute("data-seconds"), 10) || 0; });
    timer = setInterval(function () {
      var elapsed = Math.floor((Date.now() - started) / 1000);
      nodes.forEach(function (node, i) { node.textContent = String(Math.max(0, initial[i] - elapsed)); });
    }, 1000);
  }

  function refresh() { updateTitle(); startCountdowns(); }

  // The socket swaps whole fragments, which drops the keyboard focus: put it back on the control with the
  // same id when it is still there (every table gives its controls stable ids).
  var focusedId = null;
  document.addEventListener("htmx:wsBeforeMessage", function () {
    var active = document.activeElement;
    focusedId = active && active !== document.body && active.id ? active.id : null;
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var active = document.activeElement;
    if (focusedId && (!active || active === document.body || !document.contains(active))) {
      var again = document.getElementById(focusedId);
      if (again) { again.focus({ preventScroll: true }); }
    }
    focusedId = null;
  });

  document.addEventListener("DOMContentLoaded", refresh);
  document.addEventListener("htmx:wsAfterMessage", refresh);
  document.addEventListener("htmx:afterSwap", refresh);
  document.addEventListener("focusin", function (event) {
    if (event.target && event.target.classList && event.target.classList.contains("invite-link")) { event.target.select(); }
  });
  // The R key turns the selected tile in Ruhd: any element marked data-hotkey="r" is clicked.
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) { return; }
    var tag = (event.target && event.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") { return; }
    var key = event.key && event.key.toLowerCase();
    var button = key && document.querySelector('[data-hotkey="' + key + '"]');
    if (button) { event.preventDefault(); button.click(); }
  });
})();
