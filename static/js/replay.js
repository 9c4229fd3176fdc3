// Replay keys: ← and → step one move, Home and End jump to the deal and the last move.
// They click the page's own step links, so htmx fetches the position exactly as a click would.
(function () {
  "use strict";
  var steps = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    var step = steps[event.key];
    if (!step || event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) { return; }
    var tag = (event.target && event.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || (event.target && event.target.isContentEditable)) { return; }
    var link = document.querySelector('a[data-replay-step="' + step + '"]');
    if (link) { event.preventDefault(); link.click(); }
  });
})();
