// A live table's few lines htmx can't do: move the page when the server says so (a rematch was made, a
// seat taken back), tick the players' clocks between updates (the server is the judge: every update
// brings its own figures), and show the invite link as a whole address.
(function () {
  "use strict";

  var leaving = false;
  function follow() {
    var goto = document.getElementById("goto");
    var url = goto && goto.getAttribute("data-goto");
    // Once: a later message (the other player leaving for the same rematch) must not start the navigation
    // again, which would abort the one under way.
    if (url && !leaving) {
      leaving = true;
      goto.removeAttribute("data-goto");
      window.location.assign(url);
    }
  }

  var ticking = null;
  function clocks() {
    if (ticking) { clearInterval(ticking); ticking = null; }
    var running = document.querySelectorAll(".clock.clock-running[data-clock]");
    if (!running.length) { return; }
    var started = Date.now();
    var initial = Array.prototype.map.call(running, function (n) { return parseFloat(n.getAttribute("data-clock")) || 0; });
    function draw() {
      var elapsed = (Date.now() - started) / 1000;
      running.forEach(function (node, i) {
        var left = Math.max(0, initial[i] - elapsed);
        var whole = Math.ceil(left);
        node.textContent = Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
        node.classList.toggle("clock-low", left < 20);
      });
    }
    ticking = setInterval(draw, 250);
  }

  function inviteLinks() {
    document.querySelectorAll(".invite-link[data-path]").forEach(function (input) {
      input.value = new URL(input.getAttribute("data-path"), window.location.href).href;
    });
  }

  function refresh() { follow(); clocks(); inviteLinks(); }
  document.addEventListener("DOMContentLoaded", function () { clocks(); inviteLinks(); });
  document.addEventListener("htmx:wsAfterMessage", refresh);
})();

// After a chat line is sent, its box is emptied for the next one (the socket's answer is the line itself).
document.addEventListener("htmx:wsAfterSend", function (event) {
  var form = event.target && event.target.closest ? event.target.closest("#chat-form") : null;
  if (form) { form.reset(); }
});

// The table is live once its socket's first message (the whole table, drawn again) has been swapped in:
// a person's first keys, and the browser tests, act on that page rather than on the one it replaces.
document.addEventListener("htmx:wsAfterMessage", function () { document.documentElement.dataset.live = "1"; });
document.addEventListener("htmx:wsClose", function () { delete document.documentElement.dataset.live; });
