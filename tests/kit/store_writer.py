"""A writer the durability test (tests/tracker/test_store.py) runs as a subprocess,
``python -m tests.kit.store_writer DB SEED``, and kills with SIGKILL.

It creates a match in the store at argv[1] and appends the events of seeded random hands
(``scripted_log``), printing each acknowledged seq on its own line, flushed, after
``append`` returns.
"""

from __future__ import annotations

import sys

from sim.scripted import random_hand
from tracker.records import Alert, Record
from tracker.store import EventStore

PLAYERS = ("甲", "乙", "丙")


def scripted_log(seed: int, hands: int = 4) -> list[tuple[int, Record]]:
    """(hand number, event) in append order; an alert after every tenth event."""
    log: list[tuple[int, Record]] = []
    for number in range(1, hands + 1):
        hand = random_hand("classic", seed * 100 + number, first_bidder=(number - 1) % 3)
        for i, event in enumerate(hand.log):
            log.append((number, event))
            if i % 10 == 9:
                log.append((number, Alert("uncertain_read", f"event {i} looked doubtful", seat=i % 3)))
    return log


def main() -> int:
    path, seed = sys.argv[1], int(sys.argv[2])
    store = EventStore(path)
    match_id = store.create_match(PLAYERS, "classic")
    print(f"match {match_id}", flush=True)
    for number, event in scripted_log(seed):
        seq = store.append(match_id, number, event)
        print(seq, flush=True)
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
