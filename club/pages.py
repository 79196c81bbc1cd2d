"""The public pages: the hall screen, a player's own page, table cards, and the exports.

- ``/``: the hall screen for a projector (it follows ``/api/hall/stream``, or asks ``/api/hall`` once a second);
- ``/p/<code>``: a player's tables, hands and standing (the code is on the table card's QR);
- ``/cards``: printable table cards of the current session, one QR code per player (director);
- ``/export/event.json``, ``/export/results.csv``, ``/export/results`` (A4),
  ``/export/tables.json`` (every hand record by table): the director's, or anyone's once published.
"""

from __future__ import annotations

import csv
import io
import json
import time
from typing import NoReturn

from flask import Blueprint, Response, abort, redirect, render_template, url_for

from club.app import club, lang, public_url
from club.director import is_director
from club.storage import BoxEvent
from club.tables import TableFold
from club.tournament import standings
from club.words import t
from webkit.qr import qr_svg

bp = Blueprint("pages", __name__)


def refuse(code: int, key: str) -> NoReturn:
    """Stop with the error page, the reason in the visitor's language (``club.words``' ``err_*``)."""
    abort(code, t(key, lang()))


@bp.get("/")
def hall():
    return render_template("club_hall.html")


@bp.get("/p/<code>")
def player(code: str):
    live = club().live
    state = live.state
    found = None if state is None else next((p for p in state.players.values() if p.code == code), None)
    if state is None or found is None:
        refuse(404, "err_no_such_player")
    now = time.time()
    res = live.results(now)
    sittings = []
    for s in state.sessions:
        for table, r in res[s.key].items():
            if found.player_no in r.players:
                sittings.append({"session": s, "table": table, "result": r,
                                 "names": [state.name(p) for p in r.players],
                                 "winners": [state.name(p) for p in r.winners],
                                 "net": r.net[found.player_no]})
    stages = []
    for stage in state.format.stages:
        if any(s.stage.key == stage.key for s in state.sessions):
            rows = standings(state, res, stage.key)
            mine = next((row for row in rows if row["player"] == found.player_no), None)
            stages.append({"stage": stage, "row": mine, "of": len(rows)})
    return render_template("club_player.html", player=found, sittings=sittings, stages=stages, state=state)


@bp.get("/cards")
def cards():
    if not is_director():
        return redirect(url_for("director.login", next="/director"))
    state = club().live.state
    if state is None or state.current is None:
        refuse(404, "err_no_tables")
    base = public_url()
    tables = [{"table": t, "seats": [{"name": state.name(p), "qr": qr_svg(f"{base}/p/{state.players[p].code}")}
                                     for p in players if p in state.players]}
              for t, players in sorted(state.current.seating.items())]
    return render_template("club_cards.html", state=state, tables=tables)


# ---------------------------------------------------------------------- exports
def _may_export():
    state = club().live.state
    if state is None:
        refuse(404, "err_no_event")
    if not (is_director() or state.published):
        refuse(403, "err_not_published")
    return state


def event_data() -> dict:
    live = club().live
    state = _may_export()
    now = time.time()
    res = live.results(now)
    st = club().storage
    return {
        "format": "ddz-table/club-event", "version": 1,
        "tournament": {"id": state.tournament.id, "name": state.tournament.name, "format": state.format.key,
                       "settings": state.tournament.settings, "seed": state.tournament.seed,
                       "created": state.tournament.created},
        "players": [{"player": p.player_no, "name": p.name, "club_id": p.club_id,
                     "withdrawn": p.player_no in state.withdrawn} for p in state.players.values()],
        "actions": [{"seq": a.seq, "time": a.time, "action": a.action, "data": a.data}
                    for a in st.actions(state.tournament.id)],
        "sessions": [{"key": s.key, "stage": s.stage.key, "number": s.number, "clock": s.clock.to_dict(now),
                      "tables": [{"table": t, "players": list(r.players), "totals": r.totals, "hands": r.hands,
                                  "finished": r.finished, "void": r.void, "in_play": r.in_play,
                                  "status": r.reason, "winners": list(r.winners), "landlord": r.landlord}
                                 for t, r in res[s.key].items()]} for s in state.sessions],
        "standings": {stage.key: standings(state, res, stage.key) for stage in state.format.stages
                      if any(s.stage.key == stage.key for s in state.sessions)},
        "published": state.published,
    }


@bp.get("/export/event.json")
def export_event():
    body = json.dumps(event_data(), ensure_ascii=False, indent=1)
    return Response(body, mimetype="application/json",
                    headers={"Content-Disposition": 'attachment; filename="club-event.json"'})


def _rows(data: dict) -> list[list]:
    out = []
    for stage, rows in data["standings"].items():
        for row in rows:
            out.append([stage, row["rank_text"] if row["rank"] is not None else "", row["player"], row["name"], row["club_id"], row["points"],
                        "yes" if row["winner"] else "", "yes" if row["withdrawn"] else ""])
    return out


@bp.get("/export/results.csv")
def export_csv():
    data = event_data()
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["stage", "rank", "player", "name", "club_id", "points", "table_winner", "withdrawn"])
    writer.writerows(_rows(data))
    return Response("\ufeff" + buffer.getvalue(), mimetype="text/csv",  # the BOM: Excel reads UTF-8 Chinese
                    headers={"Content-Disposition": 'attachment; filename="club-results.csv"'})


@bp.get("/export/results")
def export_sheet():
    data = event_data()
    state = club().live.state
    assert state is not None  # event_data() answered 404 without an event
    stages = [(stage, data["standings"].get(stage.key, [])) for stage in state.format.stages]
    return render_template("club_sheet.html", data=data, stages=stages, printed=time.strftime("%Y-%m-%d"),
                           format_name=state.format.zh if lang() == "zh" else state.format.en)


def hand_records() -> list[dict]:
    """Every box match by table: its players, rules, meta and each hand's events in order."""
    _may_export()
    st = club().storage
    out = []
    for reg_table in sorted({r.table_no for r in st.registrations()}):
        fold = TableFold(reg_table)
        fold.add_matches(st.box_matches(reg_table))
        events: list[BoxEvent] = st.box_events(reg_table)
        matches = []
        for (box, mid), info in sorted(fold.infos.items()):
            mine = [e for e in events if e.box == box and e.match_id == mid]
            hands: dict[int, list] = {}
            for e in mine:
                hands.setdefault(e.hand, []).append({"seq": e.seq, "time": e.time, "source": e.source,
                                                     "event": e.payload})
            matches.append({"box": box, "match": mid, "players": list(info.players), "preset": info.rules,
                            "meta": info.meta, "created": info.created,
                            "hands": [{"hand": h, "events": evs} for h, evs in sorted(hands.items())]})
        out.append({"table": reg_table, "matches": matches})
    return out


@bp.get("/export/tables.json")
def export_tables():
    body = json.dumps({"format": "ddz-table/club-tables", "version": 1, "tables": hand_records()},
                      ensure_ascii=False, indent=1)
    return Response(body, mimetype="application/json",
                    headers={"Content-Disposition": 'attachment; filename="club-tables.json"'})


@bp.app_template_global()
def lang_name() -> str:
    return lang()
