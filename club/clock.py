"""The session clock (比赛时钟), rebuilt from the director's stored start, pause and resume times.

No timer runs anywhere: the clock is what the stored times say at ``now``, so a server that is
restarted (or killed) mid-period shows the same clock when it comes back.

>>> c = Clock(minutes=30).started(1000).paused(1600).resumed(1660)
>>> c.remaining(1700), c.end_time, c.state(1700)
(1160.0, 2860.0, 'running')
>>> Clock(minutes=30).started(1000).remaining(5000), Clock(minutes=30).started(1000).state(5000)
(0.0, 'time_up')
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from club.formats import Refusal


class ClockError(Refusal):
    """A clock action that does not fit its state (pause a clock that is not running, ...)."""


@dataclass(frozen=True)
class Clock:
    minutes: int = 0  # 0: untimed
    start: float | None = None
    paused_at: float | None = None
    paused_total: float = 0.0
    ended_at: float | None = None  # the director ended the session (early, or after time)

    @property
    def duration(self) -> float:
        return self.minutes * 60.0

    def started(self, at: float) -> Clock:
        if self.start is not None:
            raise ClockError("the clock has already started / 时钟已经开始", "err_clock_started")
        return replace(self, start=at)

    def paused(self, at: float) -> Clock:
        if self.start is None or self.paused_at is not None or self.ended_at is not None:
            raise ClockError("the clock is not running / 时钟没有在走", "err_clock_not_running")
        return replace(self, paused_at=at)

    def resumed(self, at: float) -> Clock:
        if self.paused_at is None:
            raise ClockError("the clock is not paused / 时钟没有暂停", "err_clock_not_paused")
        return replace(self, paused_at=None, paused_total=self.paused_total + max(0.0, at - self.paused_at))

    def ended(self, at: float) -> Clock:
        if self.ended_at is not None:
            raise ClockError("the session has already ended / 本节已经结束", "err_session_ended")
        return replace(self, ended_at=at, paused_at=None,
                       paused_total=self.paused_total + (max(0.0, at - self.paused_at) if self.paused_at else 0.0))

    @property
    def end_time(self) -> float | None:
        """When time runs out (wall clock), while the clock runs; ``None`` before the start,
        during a pause, and for an untimed session."""
        if self.start is None or self.paused_at is not None or not self.minutes:
            return self.ended_at if self.ended_at is not None and self.start is not None else None
        natural = self.start + self.paused_total + self.duration
        return min(natural, self.ended_at) if self.ended_at is not None else natural

    def elapsed(self, now: float) -> float:
        if self.start is None:
            return 0.0
        stop = self.ended_at if self.ended_at is not None else self.paused_at if self.paused_at is not None else now
        return max(0.0, min(stop, now) - self.start - self.paused_total)

    def remaining(self, now: float) -> float:
        return max(0.0, self.duration - self.elapsed(now)) if self.minutes else 0.0

    def state(self, now: float) -> str:
        """not_started, running, paused, time_up or ended."""
        if self.ended_at is not None:
            return "ended"
        if self.start is None:
            return "not_started"
        if self.paused_at is not None:
            return "paused"
        if self.minutes and self.elapsed(now) >= self.duration:
            return "time_up"
        return "running"

    def to_dict(self, now: float) -> dict:
        return {"minutes": self.minutes, "state": self.state(now), "elapsed": round(self.elapsed(now), 1),
                "remaining": round(self.remaining(now), 1), "end_time": self.end_time, "start": self.start}
