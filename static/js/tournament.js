// A tournament's page: its countdowns (the arena's time left, the start) from the end the server gave, and its
// invite link made absolute. The clock difference with the server is measured once, at the page's load, so a
// header the socket draws again (with the same end) never makes the countdown jump back.
(function () {
  "use strict";
  var offset = null;  // the server's clock minus this browser's, in ms

  function measure() {
    var page = document.querySelector("[data-server-now]");
    if (offset === null && page) { offset = (parseInt(page.getAttribute("data-server-now"), 10) || Date.now()) - Date.now(); }
  }
  function text(seconds) {
    var whole = Math.max(0, Math.ceil(seconds));
    var h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = whole % 60;
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    return h ? h + ":" + two(m) + ":" + two(s) : m + ":" + two(s);
  }
  function tick() {
    measure();
    document.querySelectorAll(".tournament-countdown[data-until]").forEach(function (node) {
      var left = (parseInt(node.getAttribute("data-until"), 10) - (Date.now() + (offset || 0))) / 1000;
      node.textContent = left > 0 ? text(left) : node.getAttribute("data-done");
    });
  }
  function links() {
    document.querySelectorAll(".invite-link[data-path]").forEach(function (input) {
      input.value = new URL(input.getAttribute("data-path"), window.location.href).href;
    });
  }
  document.addEventListener("DOMContentLoaded", function () { tick(); links(); setInterval(tick, 250); });
  document.addEventListener("htmx:wsAfterMessage", function () { tick(); links(); });
})();
