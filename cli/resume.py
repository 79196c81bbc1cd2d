"""``run`` on a video file or an image folder picks up where the store says, never re-reading
what the store holds.

A file's frames carry the video's own clock (seconds from its start, ``vision.sources``), and
so do the events the camera stores from them. A live camera has no start to go back to; a film
does, and reading it again from the start after a crash would store its hands a second time
(as new hands of the same match). So, for a film:

- a match ``run`` makes for a film names it in its meta (``{"video": {"path", "bytes"}}``);
- read again into that match, the film is read from the time of the last event the camera
  stored (:func:`resume_point`), frames before it skipped;
- read into a match that holds camera events on a film's clock from a film it cannot name (the
  match was made on the page, or by another film), ``run`` refuses until told which:
  ``--resume`` (the same film: skip to where the store's events end) or ``--from-start`` (another
  film of the same match: read it all).

>>> video_clock([3.5, 12.0, 1.7e9])
12.0
>>> video_clock([1.7e9]) is None
True
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: Camera event times below this are a film's clock, not Unix time (1e9 s is 2001: no table
#: was refereed by this program then, and no film runs for 31 years).
FILM_CLOCK_LIMIT = 1e9


class ResumeRefused(ValueError):
    """The store holds camera events of a film ``run`` cannot tell is this one (Chinese in ``zh``)."""

    def __init__(self, message: str, zh: str) -> None:
        super().__init__(message)
        self.zh = zh


def film_identity(spec: str) -> dict[str, Any] | None:
    """What names a film on disk: its absolute path and its size in bytes (a folder: its path and
    how many files it holds); None for a camera or a stream."""
    path = Path(spec)
    if path.is_file():
        return {"path": str(path.resolve()), "bytes": path.stat().st_size}
    if path.is_dir():
        return {"path": str(path.resolve()), "files": sum(1 for _ in os.scandir(path))}
    return None


def video_clock(times: Iterable[float | None]) -> float | None:
    """The latest of ``times`` that is on a film's clock, or None when none is."""
    on_film = [t for t in times if t is not None and 0 <= t < FILM_CLOCK_LIMIT]
    return max(on_film) if on_film else None


def resume_point(store: Any, match_id: int, film: dict[str, Any], resume: bool = False,
                 from_start: bool = False) -> float | None:
    """Seconds into ``film`` to read the match ``match_id`` on from: None reads it from the start.

    The film's time of the last event the camera stored for the match, when the match names
    ``film`` or ``resume`` says it is the same; ``from_start`` reads it all. A match holding
    camera events on a film's clock that names no film, or another, is :class:`ResumeRefused`.
    """
    if from_start:
        return None
    times = [getattr(e.event, "time", None) for e in store.events(match_id) if e.source == "camera"]
    last = video_clock(times)
    if last is None:
        return None
    named = store.match(match_id).meta.get("video")
    if resume or named == film:
        return last
    held = f"match {match_id} already holds camera events up to {last:.1f} s of a film"
    zh = f"第 {match_id} 场比赛已经有摄像头从视频记下的牌（到视频的 {last:.1f} 秒）"
    if named:
        held += f" ({named.get('path')})"
    raise ResumeRefused(
        f"{held}: to go on reading the same film from there give --resume; for another film of the same "
        f"match give --from-start; or start a new match with --new-match",
        f"{zh}：同一个视频从那里接着读请加 --resume；同一场比赛的另一个视频请加 --from-start；"
        f"或者用 --new-match 开新的一场")


def skip_to(source: Any, seconds: float) -> int:
    """Read and drop ``source``'s frames up to ``seconds`` of its clock; how many were dropped.
    The frame at ``seconds`` (the one the last stored event was seen on) is dropped too: the
    session starts on the frame after it."""
    dropped = 0
    while True:
        frame = source.read()
        if frame is None:
            return dropped
        dropped += 1
        if frame.time >= seconds - 1e-6:
            return dropped
