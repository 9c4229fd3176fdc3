// A live table's few lines htmx can't do: move the page when the server says so (a rematch was made, a
// seat taken back), tick the players' clocks between updates (the server is the judge: every update
// brings its own figures), show the invite link as a whole address, and bring the result into view.
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

  // The end is seen: a player scrolled down to their hand when the match ends is brought up to the result box
  // (announced too, from #announce: games.play.page). Only on the change itself, never for a page opened after it;
  // and again for the updates of the next few seconds (the rating changes), which grow the box and let the
  // browser's scroll anchoring move it off the top.
  var endedAt = null;
  function endSeen() {
    var box = document.getElementById("status");
    var outcome = box && box.querySelector(".outcome");
    if (endedAt === null) { endedAt = outcome ? 0 : -1; return; }
    if (!outcome || endedAt === 0) { return; }
    if (endedAt === -1) { endedAt = Date.now(); } else if (Date.now() - endedAt > 5000) { return; }
    var top = box.getBoundingClientRect().top;
    // At once, not smoothly: the next update would stop a smooth scroll half way.
    if (top < 0 || top > window.innerHeight - 80) { box.scrollIntoView({ block: "start" }); }
  }

  // A request the server has not answered within 1.5 s (the database restarting, or held by another program): the
  // page says it waits, until the answer comes. The server answers every move within its patience, made or refused
  // as busy (README, Durability).
  var pending = null;
  function waitingNote(on) {
    var node = document.getElementById("waiting-note");
    if (!on) { if (node) { node.remove(); } return; }
    var table = document.querySelector(".match");
    if (node || !table) { return; }
    node = document.createElement("p");
    node.id = "waiting-note";
    node.className = "notice waiting-note";
    node.setAttribute("role", "status");
    node.textContent = "Waiting for the server…";
    table.insertBefore(node, document.getElementById("status") || table.firstChild);
  }
  document.addEventListener("htmx:wsConfigSend", function () {
    clearTimeout(pending);
    pending = setTimeout(function () { waitingNote(true); }, 1500);
  });
  document.addEventListener("htmx:wsClose", function () { clearTimeout(pending); waitingNote(false); });

  function refresh() { clearTimeout(pending); waitingNote(false); follow(); clocks(); inviteLinks(); endSeen(); }
  document.addEventListener("DOMContentLoaded", function () { clocks(); inviteLinks(); endSeen(); });
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
