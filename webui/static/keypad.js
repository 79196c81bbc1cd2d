// ddz-table: the referee page's card keypad, for entering a play on a phone without its keyboard.
// The keypad edits the cards field of the form it sits in: the field's text stays the one truth,
// so tapping and typing mix, and the form posts what it would have posted typed. It shows the
// cards and their type (牌型, worded by the server's /api/combination), and its record and pass
// keys press that form's own buttons ([data-kp-record], [data-kp-pass]).
(function () {
  "use strict";

  var pad = document.getElementById("keypad");
  if (!pad) return;
  var shown = document.getElementById("kp-cards");
  var typeLine = document.getElementById("kp-type");
  var suitRow = document.getElementById("kp-suits");
  var suitToggle = document.getElementById("kp-suit-toggle");
  var passKey = document.getElementById("kp-pass");
  var decks = Number(pad.dataset.decks) || 1;
  var form = null;   // the form the keypad works on
  var field = null;  // its cards field
  var asked = 0;     // the latest type question sent (older answers are dropped)
  var timer = null;

  // Card text as the engine reads it (engine/cards.py): 10h, Th, q♠, 3, BJ, 小王.
  var TOKEN = /^(?:(BJ|RJ|小王|大王|小鬼|大鬼)|(10|[2-9TJQKA])([SHDC♠♥♦♣♤♡♢♧])?)/i;
  var SEPARATORS = /[\s,，、;；+\/|]+/;
  var JOKERS = { BJ: "BJ", RJ: "RJ", "小王": "BJ", "大王": "RJ", "小鬼": "BJ", "大鬼": "RJ" };
  var SUIT_LETTERS = { "♠": "s", "♥": "h", "♦": "d", "♣": "c", "♤": "s", "♡": "h", "♢": "d", "♧": "c" };
  var SYMBOLS = { s: "♠", h: "♥", d: "♦", c: "♣" };
  var PLAIN_RANK = /^(10|[2-9JQKA])[shdc]?$/;

  // The field's text as cards (10h, 3, BJ); null when it holds something else (the server's
  // answer then says what it cannot read).
  function parse(text) {
    var cards = [];
    var parts = text.split(SEPARATORS);
    for (var i = 0; i < parts.length; i++) {
      var rest = parts[i];
      while (rest) {
        var m = TOKEN.exec(rest);
        if (!m) return null;
        if (m[1]) {
          cards.push(JOKERS[m[1].toUpperCase()]);
        } else {
          var rank = m[2].toUpperCase();
          var suit = m[3] ? (SUIT_LETTERS[m[3]] || m[3].toLowerCase()) : "";
          cards.push((rank === "T" ? "10" : rank) + suit);
        }
        rest = rest.slice(m[0].length);
      }
    }
    return cards;
  }

  function rankOf(card) { return card === "BJ" || card === "RJ" ? card : card.replace(/[shdc]$/, ""); }

  // What the keypad edits: the field's cards, or its words when it holds no card text.
  function entries() {
    return parse(field.value) || field.value.trim().split(/\s+/).filter(Boolean);
  }

  function write(list) {
    field.value = list.join(" ");
    refresh();
  }

  function face(card) {
    var chip = document.createElement("span");
    var joker = card === "BJ" || card === "RJ";
    var suit = joker ? "" : card.slice(rankOf(card).length);
    chip.className = "card" + (card === "RJ" || suit === "h" || suit === "d" ? " red" : "");
    chip.textContent = joker ? pad.dataset[card.toLowerCase()] : rankOf(card) + (SYMBOLS[suit] || "");
    return chip;
  }

  function say(text, how) {
    typeLine.textContent = text;
    typeLine.className = "kp-type " + how;
  }

  // No rank can be tapped more often than the decks hold it.
  function limitRanks(cards) {
    var counts = {};
    cards.forEach(function (c) { counts[rankOf(c)] = (counts[rankOf(c)] || 0) + 1; });
    pad.querySelectorAll(".kp-rank").forEach(function (key) {
      var rank = key.dataset.rank;
      var most = rank === "BJ" || rank === "RJ" ? decks : 4 * decks;
      key.disabled = (counts[rank] || 0) >= most;
    });
  }

  function fit(input) {
    if (input.classList.contains("fit-cards")) input.style.setProperty("--chars", Math.max(8, input.value.length));
  }

  function askType(text) {
    var mine = ++asked;
    var url = pad.dataset.url + (pad.dataset.url.indexOf("?") < 0 ? "?" : "&") + "cards=" + encodeURIComponent(text);
    fetch(url, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (data) {
        if (mine !== asked) return;
        if (data.error) say(data.error, "bad");
        else say(data.text, data.valid ? "ok" : "bad");
      })
      .catch(function () { if (mine === asked) say(pad.dataset.unknown, "wait"); });
  }

  function refresh() {
    var cards = parse(field.value);
    shown.textContent = "";
    if (cards === null) shown.textContent = field.value;
    else cards.forEach(function (c) { shown.appendChild(face(c)); });
    limitRanks(cards || []);
    fit(field);
    clearTimeout(timer);
    var text = field.value.trim();
    if (!text) { asked++; say(pad.dataset.hint, "hint"); return; }
    say(pad.dataset.checking, "wait");
    timer = setTimeout(function () { askType(text); }, 120);
  }

  // Put the keypad on ``target`` (a .kp-form): it edits that form's cards field from now on.
  function attach(target) {
    if (form) form.classList.remove("kp-on");
    form = target;
    field = form.querySelector("input[name=cards]");
    form.appendChild(pad);
    form.classList.add("kp-on");
    passKey.hidden = !button("[data-kp-pass]");
    pad.hidden = false;
    refresh();
  }

  function detach() {
    if (form) form.classList.remove("kp-on");
    pad.hidden = true;
    form = field = null;
  }

  // The form's own button matching ``selector``, also one tied to it from outside (form="...").
  function button(selector) {
    return form ? Array.prototype.filter.call(form.elements, function (el) { return el.matches(selector); })[0] : null;
  }

  function press(selector) {
    var submitter = button(selector);
    if (!submitter) return;
    if (form.requestSubmit) form.requestSubmit(submitter); else submitter.click();
  }

  function setSuits(on) {
    suitRow.hidden = !on;
    suitToggle.setAttribute("aria-pressed", on ? "true" : "false");
    try { localStorage.setItem("ddz-kp-suits", on ? "1" : ""); } catch (e) { /* private mode: not kept */ }
  }

  pad.addEventListener("click", function (e) {
    var key = e.target.closest("button");
    if (!key || !field) return;
    var list = entries();
    if (key.dataset.rank) {
      list.push(key.dataset.rank);
      write(list);
    } else if (key.dataset.suit) {
      // A suit goes on the last card tapped (replacing its suit); jokers have none.
      var last = list[list.length - 1];
      if (last && PLAIN_RANK.test(last)) {
        list[list.length - 1] = rankOf(last) + key.dataset.suit;
        write(list);
      } else {
        say(pad.dataset.suitFirst, "hint");
      }
    } else if (key.id === "kp-back") {
      list.pop();
      write(list);
    } else if (key.id === "kp-clear") {
      write([]);
    } else if (key.id === "kp-suit-toggle") {
      setSuits(suitRow.hidden);
    } else if (key.id === "kp-record") {
      press("[data-kp-record]");
    } else if (key.id === "kp-pass") {
      press("[data-kp-pass]");
    }
  });

  document.addEventListener("click", function (e) {
    var opener = e.target.closest("[data-kp-open]");
    if (!opener) return;
    var target = opener.closest(".kp-form");
    if (target === form && !pad.hidden) detach(); else attach(target);
  });

  document.addEventListener("input", function (e) {
    if (e.target === field) refresh();
    else if (e.target.classList && e.target.classList.contains("fit-cards")) fit(e.target);
  });

  var suitsWanted = false;
  try { suitsWanted = localStorage.getItem("ddz-kp-suits") === "1"; } catch (e) { /* not kept */ }
  setSuits(suitsWanted);
  // A refused correction keeps the keypad on its row; otherwise it waits on the play form.
  var start = document.querySelector(".kp-form[data-kp-start]") || document.getElementById("play-form");
  if (start) attach(start);
})();
