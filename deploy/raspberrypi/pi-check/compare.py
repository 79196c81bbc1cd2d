"""The arm64 check's comparisons (``pi-check.sh``): standard library only, so the same file runs
on the PC and, inside the arm64 root, under the box's own venv.

    compare.py wheels                         # (in the venv) where each package came from, as JSON
    compare.py wheels-check wheels.json       # every binary package an aarch64 wheel or Debian's arm64 build
    compare.py plays arm64.db x86.db          # the stored plays of two runs of the same film
    compare.py detect arm64.jsonl x86.jsonl --tol 2   # `ddz-table detect --json` of two machines

Each check prints what it compared and exits 0 when it holds, 1 when it does not.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

#: The packages the box cannot run without whose builds differ by machine.
KEY_PACKAGES = ("onnxruntime", "ncnn", "opencv-python-headless", "numpy")
#: Event kinds that a camera run stores as the table's plays.
PLAY_KINDS = ("deal", "landlord", "kitty", "play", "pass")


# ---------------------------------------------------------------------- wheels
def installed() -> list[dict[str, Any]]:
    """Every distribution the running Python sees: name, version, wheel tags, and where it lies."""
    rows = []
    for dist in metadata.distributions():
        wheel = dist.read_text("WHEEL") or ""
        tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
        location = str(Path(str(dist.locate_file(""))).resolve())
        rows.append({"name": (dist.metadata["Name"] or "").lower(), "version": dist.version,
                     "tags": tags, "location": location})
    return sorted(rows, key=lambda r: (r["name"], r["location"]))


def judge_wheels(rows: list[dict[str, Any]], machine: str = "aarch64") -> tuple[bool, list[str]]:
    """Whether each key package is an ``machine`` wheel (or Debian's own build) and no binary
    wheel of another machine is installed; with one line per key package."""
    lines, good = [], True
    venv_rows = [r for r in rows if "/dist-packages" not in r["location"]]
    for name in KEY_PACKAGES:
        # The venv's own copy wins over Debian's (--system-site-packages puts the venv first).
        found = [r for r in venv_rows if r["name"] == name] or [r for r in rows if r["name"] == name]
        if not found:
            lines.append(f"{name}: missing")
            good = False
            continue
        row = found[0]
        if "/dist-packages" in row["location"]:
            lines.append(f"{name} {row['version']}: Debian's package ({row['location']})")
            continue
        ok = any(machine in tag for tag in row["tags"])
        good &= ok
        lines.append(f"{name} {row['version']}: {', '.join(row['tags']) or 'no wheel tag'}")
    foreign = [f"{r['name']} ({', '.join(r['tags'])})" for r in venv_rows
               if r["tags"] and not all(t.endswith("-any") or machine in t for t in r["tags"])]
    if foreign:
        good = False
        lines.append("built for another machine: " + "; ".join(foreign))
    return good, lines


# ---------------------------------------------------------------------- plays
def stored_plays(db: str | Path) -> list[tuple[Any, ...]]:
    """The camera's plays in an event store, in order: (hand, kind, seat, cards, film time).

    Wall-clock times differ between runs and are left out; the film time is rounded to 0.01 s.
    """
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT hand, kind, payload FROM events ORDER BY seq").fetchall()
    finally:
        con.close()
    plays = []
    for hand, kind, payload in rows:
        if kind not in PLAY_KINDS:
            continue
        data = json.loads(payload)
        cards = data.get("cards")
        if isinstance(cards, list):
            cards = " ".join(map(str, cards))
        t = data.get("time")
        plays.append((hand, kind, data.get("seat"), cards, round(t, 2) if isinstance(t, (int, float)) else None))
    return plays


def compare_plays(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> list[str]:
    """The differences between two play lists, one line each (empty when they agree)."""
    out = []
    for i in range(max(len(a), len(b))):
        left = a[i] if i < len(a) else None
        right = b[i] if i < len(b) else None
        if left != right:
            out.append(f"#{i + 1}: {left} vs {right}")
    return out


# ---------------------------------------------------------------------- detections
def read_jsonl(path: str | Path) -> dict[str, list[dict[str, Any]]]:
    """``ddz-table detect --json`` output: image name -> its detections."""
    out = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out[Path(row["image"]).name] = row["detections"]
    return out


def compare_detections(a: dict[str, list[dict[str, Any]]], b: dict[str, list[dict[str, Any]]],
                       tol_px: float, sure: float = 0.0) -> tuple[bool, float, list[str]]:
    """Same cards on each image, and each box within ``tol_px`` (every edge) of its partner's.

    Partners are matched greedily, nearest first, among detections of the same card. A
    detection under ``sure`` confidence needs no partner: a read that close to the detector's
    threshold may fall on either side of it on another machine (its partner, when there is
    one, is held to the box tolerance all the same). Returns (agree, the largest edge
    difference seen, one line per detection that disagrees).
    """
    problems, worst = [], 0.0
    for image in sorted(set(a) | set(b)):
        left, right = a.get(image), b.get(image)
        if left is None or right is None:
            problems.append(f"{image}: read on one machine only")
            continue
        pairs = sorted((_edge_gap(p, q), i, j) for i, p in enumerate(left) for j, q in enumerate(right)
                       if p["card"] == q["card"])
        used_l, used_r = set(), set()
        for gap, i, j in pairs:
            if i in used_l or j in used_r or gap > max(tol_px, 0.5 * _size(left[i])):
                continue  # (further apart than half an index: not the same corner)
            used_l.add(i)
            used_r.add(j)
            worst = max(worst, gap)
            if gap > tol_px:
                problems.append(f"{image}: {left[i]['card']} box {left[i]['box']} vs {right[j]['box']} ({gap:.1f} px)")
        for side, dets, used in (("first", left, used_l), ("second", right, used_r)):
            for k, d in enumerate(dets):
                if k not in used and d.get("confidence", 1.0) >= sure:
                    problems.append(f"{image}: {d['card']} at {d['box']} ({d.get('confidence', 1.0):.3f}) "
                                    f"only on the {side} machine")
    return not problems, worst, problems


def largest_confidence_gap(a: dict[str, list[dict[str, Any]]], b: dict[str, list[dict[str, Any]]]) -> float:
    """The largest confidence difference between same-card detections whose boxes lie within 2 px."""
    gaps = [abs(p["confidence"] - q["confidence"]) for image in set(a) & set(b) for p in a[image]
            for q in b[image] if p["card"] == q["card"] and _edge_gap(p, q) <= 2 and "confidence" in p
            and "confidence" in q]
    return max(gaps, default=0.0)


def _size(d: dict[str, Any]) -> float:
    x1, y1, x2, y2 = map(float, d["box"])
    return max(x2 - x1, y2 - y1)


def _edge_gap(p: dict[str, Any], q: dict[str, Any]) -> float:
    return max(abs(float(x) - float(y)) for x, y in zip(p["box"], q["box"], strict=True))


# ---------------------------------------------------------------------- command line
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("wheels")
    wc = sub.add_parser("wheels-check")
    wc.add_argument("listing")
    wc.add_argument("--machine", default="aarch64")
    pl = sub.add_parser("plays")
    pl.add_argument("db", nargs=2)
    de = sub.add_parser("detect")
    de.add_argument("jsonl", nargs=2)
    de.add_argument("--tol", type=float, default=2.0, help="largest edge difference in pixels")
    de.add_argument("--sure", type=float, default=0.0,
                    help="detections under this confidence need no partner (near the threshold)")
    args = parser.parse_args(argv)

    if args.command == "wheels":
        print(json.dumps(installed(), indent=1))
        return 0
    if args.command == "wheels-check":
        good, lines = judge_wheels(json.loads(Path(args.listing).read_text(encoding="utf-8")), args.machine)
        print("\n".join(lines))
        return 0 if good else 1
    if args.command == "plays":
        a, b = (stored_plays(db) for db in args.db)
        diff = compare_plays(a, b)
        print(f"{len(a)} vs {len(b)} events ({', '.join(PLAY_KINDS)}); "
              f"{sum(1 for p in a if p[1] == 'play')} plays; {len(diff)} differ")
        print("\n".join(diff[:20]))
        return 0 if a and not diff else 1
    one, two = (read_jsonl(p) for p in args.jsonl)  # the two machines' detections
    good, worst, problems = compare_detections(one, two, args.tol, args.sure)
    print(f"{len(one)} images, {sum(map(len, one.values()))} vs {sum(map(len, two.values()))} detections; "
          f"largest box edge difference {worst:.2f} px (tolerance {args.tol:g}), largest confidence "
          f"difference {largest_confidence_gap(one, two):.3f}; {len(problems)} disagree"
          + (f" (reads under {args.sure:g} need no partner)" if args.sure else ""))
    print("\n".join(problems))
    return 0 if good and any(one.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
