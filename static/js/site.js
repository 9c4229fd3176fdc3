// The few things htmx can't do: the "your turn" cue in the tab title, claim countdowns, invite link copy,
// the keyboard at the table (focus kept across updates, arrow keys).
(function () {
  "use strict";
  var baseTitle = document.title;

  function updateTitle() {
    var status = document.getElementById("status");
    var mine = status && status.hasAttribute("data-your-turn");
    document.title = (mine ? "▶ Your turn · " : "") + baseTitle;
  }

  // The claim countdown: from the seconds the server gave (to the one deadline the claim is decided on) down to
  // zero; then its notice says the claim is open instead (the wait's sentence replaced, never both) and its
  // buttons come alive.
  var timer = null;
  function startCountdowns() {
    if (timer) { clearInterval(timer); timer = null; }
    var nodes = document.querySelectorAll(".countdown[data-seconds]");
    if (!nodes.length) { return; }
    var started = Date.now();
    var initial = Array.prototype.map.call(nodes, function (n) { return parseInt(n.getAttribute("data-seconds"), 10) || 0; });
    function tick() {
      var elapsed = (Date.now() - started) / 1000;
      nodes.forEach(function (node, i) {
        var left = Math.max(0, Math.ceil(initial[i] - elapsed));
        node.textContent = String(left);
        var notice = node.closest("[data-claim-notice]");
        if (left === 0 && notice) {
          notice.querySelectorAll(".claim-wait").forEach(function (n) {
            var open = document.createElement("span");
            open.className = "claim-open";
            open.textContent = n.getAttribute("data-open") || "";
            n.replaceWith(open);
          });
          notice.querySelectorAll("[data-claim-button]").forEach(function (b) { b.disabled = false; });
        }
      });
    }
    timer = setInterval(tick, 250);
  }

  // The last move's cards arrive with a short animation (tables.css), once: a board or hand drawn again for
  // the same move (a selection, a presence change) is marked settled before it is painted.
  var shownMove = {};  // a board or hand's place -> the move it showed
  function settle() {
    document.querySelectorAll(".table-area [data-move]").forEach(function (node) {
      if (node.cardClubSeen) { return; }
      node.cardClubSeen = true;
      var section = node.closest("section[id]");
      var place = section ? section.id : "";
      var move = node.getAttribute("data-move");
      if (shownMove[place] === move) { node.classList.add("settled"); }
      else if (shownMove[place] !== undefined && node.getAttribute("data-cue")) { newCue = node.getAttribute("data-cue"); }
      shownMove[place] = move;
    });
  }

  // Countdowns of the table's own (Columbo's card action, its slap window): "in 4 s", then the data-done text.
  var ticker = null;
  function tableCountdowns() {
    if (ticker) { clearInterval(ticker); ticker = null; }
    var nodes = document.querySelectorAll("[data-countdown]");
    if (!nodes.length) { return; }
    var started = Date.now();
    ticker = setInterval(function () {
      var elapsed = Math.floor((Date.now() - started) / 1000);
      nodes.forEach(function (node) {
        var left = (parseInt(node.getAttribute("data-countdown"), 10) || 0) - elapsed;
        node.textContent = left > 0 ? "in " + left + " s" : node.getAttribute("data-done");
      });
    }, 250);
  }

  // Sound cues, made in the browser (WebAudio, no sound files): your turn, a slap, a gather or lay-down (the
  // board's data-cue, for a new move only), the end. Off until the person turns them on (kept on their account,
  // or in this browser when signed out). A hidden tab may also show a notification when it becomes your turn.
  var TUNES = {
    turn: [[660, 0, 0.12], [880, 0.12, 0.18]],
    slap: [[180, 0, 0.09], [120, 0.05, 0.12]],
    gather: [[523, 0, 0.1], [659, 0.09, 0.1], [784, 0.18, 0.2]],
    meld: [[392, 0, 0.16], [523, 0.08, 0.16], [659, 0.16, 0.24]],
    end: [[523, 0, 0.15], [659, 0.15, 0.15], [784, 0.3, 0.15], [1047, 0.45, 0.35]]
  };
  var audio = null;
  function pressed(id) { var node = document.getElementById(id); return !!node && node.getAttribute("aria-pressed") === "true"; }
  function play(cue) {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!TUNES[cue] || !Context) { return; }
    audio = audio || new Context();
    if (audio.state === "suspended") { audio.resume(); }
    var start = audio.currentTime;
    TUNES[cue].forEach(function (note) {
      var osc = audio.createOscillator();
      var gain = audio.createGain();
      osc.type = cue === "slap" ? "square" : "sine";
      osc.frequency.value = note[0];
      gain.gain.setValueAtTime(0.0001, start + note[1]);
      gain.gain.exponentialRampToValueAtTime(0.18, start + note[1] + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + note[1] + note[2]);
      osc.connect(gain);
      gain.connect(audio.destination);
      osc.start(start + note[1]);
      osc.stop(start + note[1] + note[2] + 0.02);
    });
  }
  var newCue = null;       // the cue of a new move's board, found by settle()
  var wasMyTurn = null;
  var wasOver = null;
  function cues() {
    var status = document.getElementById("status");
    if (!status) { return; }
    var mine = status.hasAttribute("data-your-turn");
    var over = !!status.querySelector(".outcome");
    var turnNow = mine && wasMyTurn === false;
    var cue = over && wasOver === false ? "end" : newCue || (turnNow ? "turn" : null);
    newCue = null;
    wasMyTurn = mine;
    wasOver = over;
    if (!cue) { return; }
    document.documentElement.setAttribute("data-last-cue", cue);  // what the tests read
    if (pressed("sound-toggle")) { play(cue); }
    if (turnNow && document.hidden && pressed("notify-toggle") &&
        window.Notification && Notification.permission === "granted") {
      new Notification("Your turn", { body: document.title.replace(/^▶ Your turn · /, ""), tag: "card-club-turn" });
    }
  }
  function saveSounds(on) {
    var toggle = document.getElementById("sound-toggle");
    var url = toggle.getAttribute("data-save");
    if (!url) { try { localStorage.setItem("cardclub-sounds", on ? "1" : "0"); } catch (e) { /* private mode */ } return; }
    var headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    fetch(url, { method: "POST", headers: headers, body: "on=" + (on ? "1" : "0"), credentials: "same-origin" });
  }
  function setupToggles() {
    var sound = document.getElementById("sound-toggle");
    if (!sound || sound.cardClubReady) { return; }
    sound.cardClubReady = true;
    if (!sound.getAttribute("data-save")) {
      try { sound.setAttribute("aria-pressed", localStorage.getItem("cardclub-sounds") === "1" ? "true" : "false"); } catch (e) { /* private mode */ }
    }
    sound.addEventListener("click", function () {
      var on = !pressed("sound-toggle");
      sound.setAttribute("aria-pressed", on ? "true" : "false");
      saveSounds(on);
      if (on) { play("turn"); }  // a click may start the sound: browsers allow it only after a gesture
    });
    var notify = document.getElementById("notify-toggle");
    if (!notify || !window.Notification) { return; }
    notify.hidden = false;
    try { notify.setAttribute("aria-pressed", localStorage.getItem("cardclub-notify") === "1" && Notification.permission === "granted" ? "true" : "false"); } catch (e) { /* private mode */ }
    notify.addEventListener("click", function () {
      function set(on) {
        notify.setAttribute("aria-pressed", on ? "true" : "false");
        try { localStorage.setItem("cardclub-notify", on ? "1" : "0"); } catch (e) { /* private mode */ }
      }
      if (pressed("notify-toggle")) { set(false); return; }
      // The browser asks for permission only now, when the person turned the notification on.
      Notification.requestPermission().then(function (answer) { set(answer === "granted"); });
    });
  }

  // Once the match is over (finished or called off) the sounds and the turn's notification have nothing left to
  // do: hidden, after the end's own cue has played.
  function retireToggles() {
    var status = document.getElementById("status");
    var tools = document.querySelector(".table-tools");
    if (tools && status && status.hasAttribute("data-over")) { tools.hidden = true; }
  }

  function refresh() { updateTitle(); startCountdowns(); tableCountdowns(); setupRoving(); settle(); cues(); setupToggles(); retireToggles(); }

  // Keyboard at the table. A hand or a board marked data-roving is one Tab stop: the arrow keys move between
  // its items ([data-key], each with a stable id), Home and End go to its ends. The socket swaps whole
  // fragments, which drops the focus: it comes back to the element with the same id, or, right after this
  // page sent something, to the next useful one the server marked (data-focus-next: the first legal cell
  // once a card is chosen); when its element is gone, to a control marked data-focus-fallback (Rummy's
  // lay-down) or the hand's current card; never to the page's body.
  var remembered = {};  // a roving box's place ("board grid") -> the id of its item that had the focus last

  function boxPlace(box) {
    if (box.id) { return box.id; }  // one of several boxes in a section (Columbo's players' cards)
    var section = box.closest("section[id]");
    return (section ? section.id : "") + " " + box.getAttribute("data-roving");
  }
  function itemsOf(box) { return Array.prototype.slice.call(box.querySelectorAll("[data-key]")); }
  function makeCurrent(box, item) {
    itemsOf(box).forEach(function (node) { node.setAttribute("tabindex", node === item ? "0" : "-1"); });
  }
  function setupRoving() {
    document.querySelectorAll("[data-roving]").forEach(function (box) {
      var items = itemsOf(box);
      if (!items.length) { return; }
      var id = remembered[boxPlace(box)];
      var current = (id && items.filter(function (n) { return n.id === id; })[0]) ||
        box.querySelector("[data-focus-next]") || box.querySelector("button[data-key]") || items[0];
      makeCurrent(box, current);
    });
  }
  function moveFrom(item, key) {
    var box = item.closest("[data-roving]");
    var items = itemsOf(box);
    var at = items.indexOf(item);
    var next = null;
    if (key === "Home") { next = items[0]; }
    else if (key === "End") { next = items[items.length - 1]; }
    else if (box.getAttribute("data-roving") === "grid" && (key === "ArrowUp" || key === "ArrowDown")) {
      var rows = Array.prototype.slice.call(box.querySelectorAll("[role=row]"));
      var row = item.closest("[role=row]");
      var column = Array.prototype.indexOf.call(row.querySelectorAll("[role=gridcell]"), item.closest("[role=gridcell]"));
      var other = rows[rows.indexOf(row) + (key === "ArrowUp" ? -1 : 1)];
      var cell = other && other.querySelectorAll("[role=gridcell]")[column];
      next = cell && (cell.matches("[data-key]") ? cell : cell.querySelector("[data-key]"));
    } else {
      // A list goes by what lies beside on the screen (Columbo's cards stand in columns of two; a hand may wrap),
      // else by its order: left and right go on to the next row, up and down only in a list of one row.
      next = beside(items, item, key);
      var across = key === "ArrowLeft" || key === "ArrowRight";
      if (!next && (across || items.every(function (node) { return overlap(node, item, true) > 0; }))) {
        next = items[at + (key === "ArrowRight" || key === "ArrowDown" ? 1 : -1)];
      }
    }
    if (next) { makeCurrent(box, next); next.focus(); }
  }
  // How much two items share of the same row (across) or column on the screen.
  function overlap(a, b, across) {
    var p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
    return across ? Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) : Math.min(p.right, q.right) - Math.max(p.left, q.left);
  }
  function beside(items, item, key) {
    var across = key === "ArrowLeft" || key === "ArrowRight";
    var sign = key === "ArrowRight" || key === "ArrowDown" ? 1 : -1;
    var here = item.getBoundingClientRect();
    var best = null, nearest = Infinity;
    items.forEach(function (node) {
      if (node === item || overlap(node, item, across) <= 0) { return; }
      var r = node.getBoundingClientRect();
      var gap = sign * (across ? r.left + r.right - here.left - here.right : r.top + r.bottom - here.top - here.bottom);
      var off = Math.abs(across ? r.top + r.bottom - here.top - here.bottom : r.left + r.right - here.left - here.right);
      if (gap > 0 && gap + off < nearest) { best = node; nearest = gap + off; }  // the nearest, the straightest
    });
    return best;
  }
  document.addEventListener("focusin", function (event) {
    var item = event.target;
    var box = item && item.closest && item.matches("[data-key]") ? item.closest("[data-roving]") : null;
    if (box) { makeCurrent(box, item); remembered[boxPlace(box)] = item.id; }
  });
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) { return; }
    var item = event.target;
    if (!item || !item.matches || !item.matches("[data-roving] [data-key]")) { return; }
    if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].indexOf(event.key) < 0) { return; }
    event.preventDefault();
    moveFrom(item, event.key);
  });

  var before = null;  // the element that had the focus when an update came: {id, inTable}
  var sent = false;   // this page sent something, and the next update is the answer
  var escapeTo = null;  // Escape cleared a selection: the focus goes back to the chosen card
  document.addEventListener("htmx:wsConfigSend", function () { sent = true; });
  document.addEventListener("htmx:wsBeforeMessage", function () {
    var active = document.activeElement;
    before = active && active !== document.body ? { id: active.id, inTable: !!active.closest(".table-area") } : null;
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    setupRoving();
    var active = document.activeElement;
    var lost = !active || active === document.body || !document.contains(active);
    var answer = sent;
    sent = false;
    var target = null;
    if (escapeTo) { target = document.getElementById(escapeTo); escapeTo = null; }
    if (!target && answer && before && before.inTable) {
      target = document.querySelector(".table-area [data-focus-next]");
      // Unless the focus was on a control in the same box, still there and not the chosen one: the player went
      // there on purpose (a Ruhd tile turned with R while on a legal cell stays on that cell).
      var kept = before.id && document.getElementById(before.id);
      if (target && kept && kept.tagName === "BUTTON" && kept.getAttribute("aria-pressed") !== "true" &&
          kept.closest("[data-roving]") && kept.closest("[data-roving]") === target.closest("[data-roving]")) {
        target = kept;
      }
    }
    if (!target && lost && before) {
      target = (before.id && document.getElementById(before.id)) || (before.inTable &&
        (document.querySelector(".table-area [data-focus-fallback]") ||
         document.querySelector(".table-area [data-key][tabindex='0']") ||
         document.querySelector("#status[data-over]")));  // the match is over and the table has nothing left
    }
    if (target && target !== active) { target.focus({ preventScroll: true }); }
    before = null;
  });
  // Escape clears a selection (the button marked data-escape), and the focus returns to the chosen card.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || event.defaultPrevented) { return; }
    var tag = (event.target && event.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") { return; }
    var cancel = document.querySelector(".table-area [data-escape]");
    if (!cancel) { return; }
    var chosen = document.querySelector(".table-area [data-key][aria-pressed='true']");
    escapeTo = chosen ? chosen.id : null;
    event.preventDefault();
    cancel.click();
  });

  // Quick pairing and accepted challenges: the notification socket moves the page to the match its person was
  // seated at (#notify-go's data-go), once. A challenge's expiry is the server's (its runner closes it and the
  // socket redraws the notices with "expired"), not a timer here, so every page says the same.
  // One navigation at a time: an accepted challenge's answer (htmx's HX-Redirect) and the socket's frame both send
  // the page to the new match, and whichever came second would abort the first. A page already on its way somewhere
  // is left to go there (that page's socket sends it on to the match if it has not been opened).
  var going = false;
  window.addEventListener("beforeunload", function () { going = true; });
  function follow() {
    var go = document.getElementById("notify-go");
    var url = go && go.getAttribute("data-go");
    if (url && !going) { going = true; go.removeAttribute("data-go"); window.location.assign(url); }
  }
  document.addEventListener("htmx:beforeOnLoad", function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (going && xhr && xhr.getResponseHeader("HX-Redirect")) { event.preventDefault(); }
  });
  document.addEventListener("htmx:wsAfterMessage", follow);
  document.addEventListener("DOMContentLoaded", follow);

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

// When a page's socket closes. The server closes for good with a reason (static codes: accounts/sessions.py,
// games/play/frames.py): the page says why, offers what to do, and its controls stop answering. Anything else
// is a network drop or a restart: the page says it is reconnecting and does so (htmx's extension retries
// 1006 and 1011-1013 by itself; the other codes are retried here), and on reconnecting the server draws the
// whole table again.
(function () {
  "use strict";
  var unloading = false;
  window.addEventListener("pagehide", function () { unloading = true; });
  window.addEventListener("beforeunload", function () { unloading = true; });

  function here() { return window.location.pathname + window.location.search; }
  function link(text, href) { var a = document.createElement("a"); a.href = href; a.textContent = text; return a; }
  function why(code) {
    if (code === 4423) {
      return ["This account is suspended: the table stopped, and it can no longer play here.", link("Home", "/")];
    }
    if (code === 4401) {
      return ["You were signed out (in another tab or window), so this page stopped.",
              link("Sign in again", "/accounts/login/?next=" + encodeURIComponent(here()))];
    }
    if (code === 4403) { return ["This table is not open to you any more.", link("Back to the lobby", "/play/")]; }
    if (code === 4404) { return ["This match no longer exists.", link("Back to the lobby", "/play/")]; }
    if (code === 4429) { return ["Too many messages too fast: the connection was closed.", link("Reload the page", here())]; }
    return null;
  }
  var RETRIED = [1006, 1011, 1012, 1013];

  function banner() {
    var node = document.getElementById("socket-state");
    if (!node) {
      node = document.createElement("div");
      node.id = "socket-state";
      node.className = "notice socket-state";
      node.setAttribute("role", "alert");
      var main = document.querySelector("main") || document.body;
      main.insertBefore(node, main.firstChild);
    }
    return node;
  }
  function stop(source, state) {
    // The table under it is still shown, but nothing in it can be pressed: it would go nowhere.
    source.setAttribute("data-socket", state);
    if (source.matches(".match")) { source.inert = true; }
  }

  document.addEventListener("htmx:wsClose", function (event) {
    if (unloading) { return; }
    var source = event.target;
    var close = event.detail && event.detail.event;
    var code = close ? close.code : 1006;
    var told = why(code);
    var node = banner();
    node.textContent = "";
    if (told) {
      node.dataset.closed = String(code);
      node.append(told[0] + " ", told[1]);
      stop(source, "closed");
      return;
    }
    if (node.dataset.closed) { return; }  // a socket closed for good has said why; another one's drop adds nothing
    node.dataset.reconnecting = "1";
    // 1013: the server's database is away for a moment (accounts/sessions.py); anything else: the network or a restart.
    node.append(code === 1013 ? "The server is busy for a moment: reconnecting…" : "Connection lost: reconnecting…");
    stop(source, "reconnecting");
    if (RETRIED.indexOf(code) < 0 && event.detail && event.detail.socketWrapper) {
      setTimeout(function () { event.detail.socketWrapper.reconnect(); }, 1000 + Math.random() * 2000);
    }
  });
  document.addEventListener("htmx:wsOpen", function (event) {
    var source = event.target;
    if (source.getAttribute && source.getAttribute("data-socket") === "reconnecting") {
      source.removeAttribute("data-socket");
      if (source.matches(".match")) { source.inert = false; }
    }
    // The notice goes once every socket of the page is back (the table's and the notification one).
    var node = document.getElementById("socket-state");
    if (node && !node.dataset.closed && !document.querySelector("[data-socket='reconnecting']")) { node.remove(); }
  });
})();

// Due times in the browser's own time zone: a <time datetime="...Z" data-local-time> (a correspondence match's
// due move, written by the server in UTC for a person who chose no zone in their profile) is rewritten as
// "Sat 28 Nov, 14:05" in this browser's zone, the format of games/play/due.py's date_text. Run on every page,
// and again after each htmx swap (the table's fragments come over its socket): a node done once is marked.
(function () {
  "use strict";
  // Names of our own rather than the locale's: Python's %a and %b ("Sep"), where a browser's en-GB says "Sept".
  var DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  var format = null;
  function text(date) {
    if (!format) {
      format = new Intl.DateTimeFormat("en-GB", {
        year: "numeric", month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23",
      });
    }
    var parts = {};
    format.formatToParts(date).forEach(function (p) { parts[p.type] = p.value; });
    var year = parseInt(parts.year, 10), month = parseInt(parts.month, 10), day = parseInt(parts.day, 10);
    var weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();  // of the local date, not UTC's
    return DAYS[weekday] + " " + day + " " + MONTHS[month - 1] + ", " + parts.hour + ":" + parts.minute;
  }
  function localTimes() {
    document.querySelectorAll("time[data-local-time][datetime]:not([data-localized])").forEach(function (node) {
      var date = new Date(node.getAttribute("datetime"));
      if (isNaN(date.getTime())) { return; }
      node.textContent = text(date);
      node.setAttribute("data-localized", "");
    });
  }
  document.addEventListener("DOMContentLoaded", localTimes);
  document.addEventListener("htmx:wsAfterMessage", localTimes);
  document.addEventListener("htmx:afterSwap", localTimes);
})();

// A history's name field (data-suggest, a combobox): the names htmx puts under it as one types
// (games.history.views.name_suggestions). The arrows move through them with the focus kept in the field (so the
// field never fires its "change" for half a name), Enter or a tap picks one and the form filters at once, as a
// choice in its menus does; Escape or leaving the field closes the list.
(function () {
  "use strict";
  function listFor(field) { return document.getElementById(field.getAttribute("aria-controls") || ""); }
  function options(field) {
    var list = listFor(field);
    return list ? Array.prototype.slice.call(list.querySelectorAll("[role='option']")) : [];
  }
  function current(field) {
    return options(field).filter(function (o) { return o.getAttribute("aria-selected") === "true"; })[0] || null;
  }
  function show(field, open) {
    var list = listFor(field);
    open = open && options(field).length > 0;
    if (list) { list.hidden = !open; }
    field.setAttribute("aria-expanded", open ? "true" : "false");
    if (!open) { highlight(field, null); }
  }
  function highlight(field, option) {
    options(field).forEach(function (o) { o.setAttribute("aria-selected", o === option ? "true" : "false"); });
    if (option) {
      field.setAttribute("aria-activedescendant", option.id);
      option.scrollIntoView({ block: "nearest" });
    } else {
      field.removeAttribute("aria-activedescendant");
    }
  }
  function pick(field, option) {
    field.value = option.getAttribute("data-name") || "";
    show(field, false);
    field.dispatchEvent(new Event("change", { bubbles: true }));
  }
  function suggesting(node) {
    return node instanceof HTMLInputElement && node.hasAttribute("data-suggest") ? node : null;
  }
  document.addEventListener("keydown", function (event) {
    var field = suggesting(event.target);
    if (!field) { return; }
    var all = options(field), at = all.indexOf(current(field));
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (!all.length) { return; }
      event.preventDefault();
      show(field, true);
      var step = event.key === "ArrowDown" ? 1 : -1;
      highlight(field, all[(at + step + all.length + (at < 0 && step < 0 ? 1 : 0)) % all.length]);
    } else if (event.key === "Enter" && at >= 0 && field.getAttribute("aria-expanded") === "true") {
      event.preventDefault();  // the pick, not the form's submit
      pick(field, all[at]);
    } else if (event.key === "Escape" && field.getAttribute("aria-expanded") === "true") {
      event.preventDefault();
      show(field, false);
    }
  });
  document.addEventListener("input", function (event) {
    var field = suggesting(event.target);
    if (field) { highlight(field, null); }
  });
  document.addEventListener("focusout", function (event) {
    var field = suggesting(event.target);
    if (field) { show(field, false); }
  });
  // A press on the list keeps the focus in the field (no "change" for what was typed so far); the click picks.
  document.addEventListener("mousedown", function (event) {
    if (event.target instanceof Element && event.target.closest(".name-suggestions")) { event.preventDefault(); }
  });
  document.addEventListener("click", function (event) {
    var option = event.target instanceof Element ? event.target.closest(".name-suggestions [role='option']") : null;
    var list = option && option.closest(".name-suggestions");
    var field = list && document.querySelector("input[data-suggest][aria-controls='" + list.id + "']");
    if (option && field) { pick(field, option); }
  });
  // The new list arrives: open under the field if it is still being typed in and there is something to offer.
  document.addEventListener("htmx:afterSettle", function (event) {
    var list = event.target instanceof Element && event.target.classList.contains("name-suggestions") ? event.target : null;
    var field = list && document.querySelector("input[data-suggest][aria-controls='" + list.id + "']");
    if (field) { show(field, document.activeElement === field && field.value.trim() !== ""); }
  });
})();
