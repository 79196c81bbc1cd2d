// The hall screen: the server's hall snapshots as server-sent events (/api/hall/stream), each
// redrawing the clock, the tables and the leaderboard. When the stream is refused (too many
// open) or the browser has no EventSource, it polls /api/hall once a second for a minute (the
// ETag makes an unchanged hall a 304), then tries the stream again.
(function () {
  const W = JSON.parse(document.getElementById('words').textContent);
  const $ = (id) => document.getElementById(id);
  const fmt = (s, v) => s.replace(/\{(\w+)\}/g, (_, k) => (k in v ? v[k] : ''));
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
  let clock = null, fetchedAt = 0;

  const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
  function mmss(sec) { sec = Math.max(0, Math.round(sec)); return Math.floor(sec / 60) + ':' + String(sec % 60).padStart(2, '0'); }
  function tickClock() {
    if (!clock) return;
    let left = clock.remaining;
    if (clock.state === 'running') left -= (Date.now() - fetchedAt) / 1000;
    $('clock').textContent = clock.minutes ? mmss(left) : mmss(clock.elapsed + (clock.state === 'running' ? (Date.now() - fetchedAt) / 1000 : 0));
    $('clock-state').textContent = W.ck[clock.state] || clock.state;
  }
  function card(t) {
    const who = t.players.map((p, i) => {
      const cls = [t.landlord === p.name ? 'll' : '', t.out.includes(p.name) ? 'gone' : ''].join(' ');
      return `<span class="${cls}">${esc(p.name)} ${t.totals[i]}</span>`;
    }).join(' · ');
    // The hands in the club's three counts, in the order and words of every page (webkit.counts.hands_line).
    const counts = [fmt(t.finished === 1 ? W.finished_hands_1 : W.finished_hands, { n: t.finished })];
    if (t.void) counts.push(fmt(t.void === 1 ? W.void_hands_1 : W.void_hands, { n: t.void }));
    if (t.in_play !== null) counts.push(fmt(W.hand_in_play, { n: t.in_play }));
    const hands = cap(counts.join(' · '));
    const live = t.in_play !== null && t.hand === t.in_play ? ` · <span class="nowrap">${W.multiplier} ×${t.multiplier}</span>` : '';
    const win = t.winners.length ? ` · ${W.winner} ${t.winners.map(esc).join(W.lang === 'zh' ? '、' : ', ')}` : '';
    return `<div class="tcard ${t.status} ${t.online ? '' : 'offline'}" data-table="${t.table}" data-hand="${t.hand}" data-acked="${t.acked}">
      <h3><span>${fmt(W.table_n, { n: t.table })}</span><span class="meta">${t.online ? W.online : W.offline}</span></h3>
      <div class="who">${who}</div><div class="meta"><span class="hands">${hands}</span>${live}</div>
      <div class="meta status"><b>${W.st[t.status] || t.status}</b>${win}</div></div>`;
  }
  function draw(d) {
    $('empty').hidden = !!d.tournament && !!d.session;
    $('empty').textContent = d.tournament ? W.no_session : W.no_tournament;
    if (d.tournament) $('event-name').textContent = d.tournament.name;
    $('session').textContent = d.session ? fmt(W.session_n, { stage: d.session['stage_' + W.lang], n: d.session.number, of: d.session.of }) : '';
    clock = d.clock; fetchedAt = Date.now(); tickClock();
    $('tables').innerHTML = d.tables.map(card).join('');
    $('leaderboard').querySelector('tbody').innerHTML = d.leaderboard.slice(0, 30).map((r) =>
      `<tr class="${r.playoff ? 'tie' : ''}"><td>${r.rank_text}</td><td>${esc(r.name)}</td><td>${r.points}${r.playoff ? ' · ' + W.playoff_short : ''}</td></tr>`).join('');
    document.body.dataset.loaded = String(Date.now());
  }
  let polls = 0;
  async function poll() {
    try {
      const r = await fetch('/api/hall', { cache: 'no-cache' });
      if (r.ok) draw(await r.json());
    } catch (e) { /* the server is away: keep the last picture, try again */ }
    if (--polls > 0) setTimeout(poll, 1000); else listen();
  }
  function listen() {
    if (!window.EventSource) { polls = Infinity; poll(); return; }
    const source = new EventSource('/api/hall/stream');
    source.addEventListener('hall', (e) => {
      try { draw(JSON.parse(e.data)); } catch (err) { /* a torn message: the next one repairs it */ }
    });
    source.onerror = () => {
      // The browser reconnects by itself after a stream ends; a refused one is closed for good.
      if (source.readyState === EventSource.CLOSED) { polls = 60; poll(); }
    };
  }
  setInterval(tickClock, 250);
  polls = 1;
  poll();  // the first picture at once, then the stream
})();
