// ddz-table: live updates (Server-Sent Events, polling as a fallback), the match clock,
// the camera toggle, confirmations and the hand's list on the referee page, arrow keys in a replay.
(function () {
  "use strict";

  var live = document.getElementById("live");
  var conn = document.getElementById("conn");
  var clockTimer = null;
  var polls = 0;
  var shown = null;  // the panels' HTML last put on the page (the first message replaces the server's)

  function setConn(on) {
    if (!conn) return;
    conn.className = "conn " + (on ? "on" : "off");
    conn.title = on ? conn.dataset.on : conn.dataset.off;
  }

  // The match clock counts down locally between updates.
  function startClock() {
    if (clockTimer) clearInterval(clockTimer);
    var board = live && live.querySelector(".board");
    var clock = document.getElementById("clock");
    if (!board || !clock || !board.dataset.remaining) return;
    var end = Date.now() + Number(board.dataset.remaining) * 1000;
    clockTimer = setInterval(function () {
      var s = Math.max(0, Math.round((end - Date.now()) / 1000));
      clock.textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    }, 1000);
  }

  function show(data) {
    // A new update, or the camera's state changing (the same seq): the panels' HTML differs.
    if (data.html && data.html !== shown) {
      shown = data.html;
      live.innerHTML = data.html;
      live.dispatchEvent(new CustomEvent("ddz:update", { detail: data.seq }));
      startClock();
    }
  }

  function poll() {
    fetch(live.dataset.fragment, { cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (data) { setConn(true); show(data); })
      .catch(function () { setConn(false); })
      .finally(function () {
        if (--polls > 0) setTimeout(poll, 2000); else listen();
      });
  }

  function listen() {
    if (!window.EventSource) { polls = Infinity; poll(); return; }
    var source = new EventSource(live.dataset.events);
    source.addEventListener("state", function (e) {
      setConn(true);
      try { show(JSON.parse(e.data)); } catch (err) { /* a torn message: the next one repairs it */ }
    });
    source.onopen = function () { setConn(true); };
    source.onerror = function () {
      setConn(false);
      // The browser retries by itself; a refused stream (too many viewers, a restart in
      // progress) closes for good: poll for a minute, then try the stream again.
      if (source.readyState === EventSource.CLOSED) {
        polls = 30;
        poll();
      }
    };
  }

  if (live) { startClock(); listen(); }

  var toggle = document.getElementById("camera-toggle");
  if (toggle) {
    toggle.addEventListener("click", function () {
      var img = document.getElementById("camera-view");
      var on = img.hidden;
      img.hidden = !on;
      img.src = on ? img.dataset.src : "";
      toggle.textContent = on ? toggle.dataset.hide : toggle.dataset.show;
    });
  }

  // The referee page has no live panels: it asks for the camera's state every few seconds.
  var camState = document.getElementById("camera-state");
  if (camState && camState.dataset.refresh && !live) {
    setInterval(function () {
      fetch(camState.dataset.refresh, { cache: "no-store" })
        .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
        .then(function (data) {
          var holder = document.createElement("div");
          holder.innerHTML = data.club || "";  // the copy to the club server (run --club)
          var club = document.getElementById("club-state"), freshClub = holder.querySelector("#club-state");
          if (club && freshClub) club.replaceWith(freshClub);
          holder.innerHTML = data.camera || "";
          var fresh = holder.querySelector("#camera-state");
          if (!fresh) return;
          fresh.dataset.refresh = camState.dataset.refresh;
          camState.replaceWith(fresh);
          camState = fresh;
        })
        .catch(function () { /* the next try repairs it */ });
    }, 5000);
  }

  // A confirmation names who and what from the button's form: {who} the seat chosen, {points}
  // and {reason} what was typed, so the referee reads what will be recorded before it is.
  function confirmText(button) {
    var form = button.form || button.closest("form");
    var text = button.dataset.confirm;
    if (!form) return text;
    var seat = form.querySelector("select[name=seat]");
    var option = seat && seat.options[seat.selectedIndex];
    var points = form.querySelector("[name=points]");
    var reason = form.querySelector("[name=reason]");
    // a seat's option reads "2 · 李四" (i18n seat_option): the name is what follows the number
    return text.replace(/\{who\}/g, option ? option.text.replace(/^\d+ · /, "") : "")
      .replace(/\{points\}/g, points ? points.value : "")
      .replace(/\{reason\}/g, reason && reason.value.trim() ? reason.value.trim() : "–");
  }

  document.addEventListener("click", function (e) {
    var button = e.target.closest("[data-confirm]");
    if (button && !window.confirm(confirmText(button))) e.preventDefault();
  });

  if (document.body.classList.contains("replay-page")) {
    document.addEventListener("keydown", function (e) {
      var link = { ArrowLeft: "step-prev", ArrowRight: "step-next", Home: "step-first", End: "step-last" }[e.key];
      if (link && !e.target.closest("input, textarea")) document.getElementById(link).click();
    });
  }

  // The referee corrects recent events most: show the end of the hand's list.
  var timeline = document.getElementById("timeline");
  if (timeline) timeline.scrollTop = timeline.scrollHeight;

})();
