// The rules panel beside a live table (templates/games/_rules_panel.html). The "?" in the match header opens
// it; htmx fills it with the game's rules on the first open. The page never navigates, so the table's socket
// stays connected. What htmx can't do: open and close the <dialog>, move the focus into it and back to the
// "?", close it with Escape, and keep the keys typed inside it away from the table's own shortcuts.
(function () {
  "use strict";
  var opener = null;

  function openPanel(button) {
    var panel = document.getElementById(button.getAttribute("aria-controls"));
    if (!panel || panel.open) { return; }
    opener = button;
    // Not modal: the table stays usable beside it (the socket keeps updating it while the rules are read).
    panel.show();
    button.setAttribute("aria-expanded", "true");
    var title = panel.querySelector("[data-rules-title]");
    (title || panel).focus();
  }

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (!(target instanceof Element)) { return; }
    var button = target.closest("[data-rules-open]");
    if (button) { openPanel(button); return; }
    var closer = target.closest("[data-rules-close]");
    var panel = closer && closer.closest("dialog");
    if (panel && panel.open) { panel.close(); }
  });

  function wire(panel) {
    // Keys typed in the panel are the panel's: the table's shortcuts (site.js, the tables' scripts) listen on
    // the document, and Escape here means "close", whatever the table makes of it.
    panel.addEventListener("keydown", function (event) {
      event.stopPropagation();
      if (event.key === "Escape") {
        event.preventDefault();
        panel.close();
      }
    });
    panel.addEventListener("close", function () {
      if (opener) {
        opener.setAttribute("aria-expanded", "false");
        if (document.contains(opener)) { opener.focus(); }
      }
    });
  }

  function wireAll() {
    document.querySelectorAll("dialog[data-rules-panel]").forEach(function (panel) {
      if (!panel.hasAttribute("data-rules-wired")) {
        panel.setAttribute("data-rules-wired", "");
        wire(panel);
      }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", wireAll);
  } else {
    wireAll();
  }
})();
