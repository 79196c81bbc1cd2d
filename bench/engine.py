"""Rules-engine benchmark, side by side with the peers (prints tables; not a test).

    python3 -m venv /tmp/ddz-benchvenv
    /tmp/ddz-benchvenv/bin/pip install rlcard && /tmp/ddz-benchvenv/bin/pip install --no-deps douzero
    /tmp/ddz-benchvenv/bin/pip install --no-deps -e .       # (or PYTHONPATH=. with the core built in place)
    /tmp/ddz-benchvenv/bin/python -m bench.engine            # --quick for a short run
    /tmp/ddz-benchvenv/bin/python -m bench.engine --sections 3 --presets four --brute-hands 2000
    .venv/bin/python -m bench.engine --sections 3 --presets five,dizhu --brute-hands 1000

A peer that is not installed is skipped with a message.

What is measured
  1. Classifications per second from rank text ("3 3 3 4"): ours (``classify``; cold = first
     sight of each input after every cache is cleared: where the solver's compiled core is built,
     a one-deck rule set's rank text is looked up in its table of every combination, made once
     per process (``engine.compiled_plays``; its making is timed apart), else parsed and
     classified; warm = the text cache holds the inputs; cards = lists of suited ``Card``
     objects through the rank-signature cache) against rlcard 1.2.0's card-type table, computed
     in advance and shipped as JSON (text -> its sorted key -> ``CARD_TYPE`` lookup). Inputs are
     half real combinations, half random card sets (mostly illegal).
  2. Legal-move generations per second for random 20-card hands after each kind of previous
     play: ours (``legal_plays`` on suited cards, cold and warm: the compiled core generates the
     plays and builds them on the cards where it is built; ``rank`` is the Python generators)
     against douzero 1.1.0's
     ``MovesGener`` + ``move_selector`` filters, exactly as its ``GameEnv`` calls them (its
     previous-play type is worked out once, outside the timing, as ours is a Combination).
  3. Illegal or missing moves against brute force (classify every sub-multiset of the hand)
     on random hands of 1 to 20 cards, the lead and three previous plays each, of the Python
     generators and (where it is built and plays the preset) the compiled core; every preset's
     own deck (two decks for four, five, dizhu). It prints how many plays of each type the
     check met, since random hands rarely hold the long two-deck shapes (a carrier, a spaceship).
  4. Where douzero's move lists differ from ours on the same hands (rule differences).
  5. rlcard's whole card-type table against every combination our classic rules allow.

Rule differences with the peers (classic preset against them)
  * douzero: airplane single wings are any cards outside the chain ranks, so it allows a trio
    next to the chain as wings (333444555+666, which we read only as a 4-trio chain), four of
    a rank as wings, and BJ+RJ as wings; four-with-two singles may take BJ+RJ (we refuse the
    rocket as kickers by default); a pass is one of its moves (``legal_plays`` lists plays
    only). Its trio-chain wings may not share a chain rank (same as ours).
  * rlcard: its table (every combination of up to 20 cards) holds exactly the card sets our
    classic rules accept, each read the same number of ways (section 5 checks this); it reads
    a sorted rank string only, so it never sees suits, and it has no rule options or presets.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from collections import Counter

from engine import classify as combos
from engine import compiled_plays
from engine import legal as moves
from engine.cards import RANK_TEXT, Card, full_deck, parse_cards, rank_counts
from engine.classify import beats, classify, to_combination
from engine.combination import TYPES
from engine.legal import brute_force_plays, legal_plays, prev_key, rank_legal_plays
from engine.rank_plays import generate
from engine.rules import CLASSIC, get_rules

RLCARD_CHAR = dict(zip(RANK_TEXT, "3456789TJQKA2BR", strict=True))
DOUZERO_INT = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30]

# One previous play of each kind, low so that most hands can answer it.
PREVIOUS = {
    "lead": None, "single": "3", "pair": "3 3", "trio": "3 3 3", "trio_single": "3 3 3 4",
    "trio_pair": "3 3 3 4 4", "straight": "3 4 5 6 7", "pair_straight": "3 3 4 4 5 5",
    "airplane": "3 3 3 4 4 4", "airplane_single": "3 3 3 4 4 4 5 6",
    "airplane_pair": "3 3 3 4 4 4 5 5 6 6", "four_two_single": "3 3 3 3 4 5",
    "four_two_pair": "3 3 3 3 4 4 5 5", "bomb": "3 3 3 3", "rocket": "BJ RJ",
}


CHUNK = 50


def rate(fn, items, passes: int, before=None) -> float:
    """Calls per second of ``fn`` over ``items``.

    The machine is shared, so a whole pass is easily pre-empted: items are timed in chunks
    of 50, each chunk ``passes`` times, and the fastest run of each chunk counts. ``before``
    runs ahead of every timed chunk (to clear caches for a cold measurement).
    """
    total = 0.0
    for i in range(0, len(items), CHUNK):
        chunk = items[i:i + CHUNK]
        best = float("inf")
        for _ in range(passes):
            if before is not None:
                before()
            start = time.perf_counter()
            for item in chunk:
                fn(item)
            best = min(best, time.perf_counter() - start)
        total += best
    return len(items) / total


def clear_all() -> None:
    combos.clear_caches()
    moves.clear_caches()


def load_rlcard():
    try:
        from rlcard.games.doudizhu.utils import CARD_TYPE, INDEX
    except ImportError as exc:
        print(f"  rlcard not installed ({exc}); skipping its column")
        return None
    table, order = CARD_TYPE[0], INDEX

    def lookup(text: str):
        key = "".join(sorted((RLCARD_CHAR[t] for t in text.split()), key=order.__getitem__))
        return table.get(key)

    return lookup


def load_douzero():
    try:
        from douzero.env import move_detector as md
        from douzero.env import move_selector as ms
        from douzero.env.move_generator import MovesGener
    except ImportError as exc:
        print(f"  douzero not installed ({exc}); skipping its column")
        return None

    gens = {
        md.TYPE_1_SINGLE: ("gen_type_1_single", ms.filter_type_1_single, False),
        md.TYPE_2_PAIR: ("gen_type_2_pair", ms.filter_type_2_pair, False),
        md.TYPE_3_TRIPLE: ("gen_type_3_triple", ms.filter_type_3_triple, False),
        md.TYPE_6_3_1: ("gen_type_6_3_1", ms.filter_type_6_3_1, False),
        md.TYPE_7_3_2: ("gen_type_7_3_2", ms.filter_type_7_3_2, False),
        md.TYPE_8_SERIAL_SINGLE: ("gen_type_8_serial_single", ms.filter_type_8_serial_single, True),
        md.TYPE_9_SERIAL_PAIR: ("gen_type_9_serial_pair", ms.filter_type_9_serial_pair, True),
        md.TYPE_10_SERIAL_TRIPLE: ("gen_type_10_serial_triple", ms.filter_type_10_serial_triple, True),
        md.TYPE_11_SERIAL_3_1: ("gen_type_11_serial_3_1", ms.filter_type_11_serial_3_1, True),
        md.TYPE_12_SERIAL_3_2: ("gen_type_12_serial_3_2", ms.filter_type_12_serial_3_2, True),
        md.TYPE_13_4_2: ("gen_type_13_4_2", ms.filter_type_13_4_2, False),
        md.TYPE_14_4_22: ("gen_type_14_4_22", ms.filter_type_14_4_22, False),
    }

    def legal(hand: list[int], rival: list[int], rival_type: dict) -> list[list[int]]:
        # The body of douzero.env.game.GameEnv.get_legal_card_play_actions.
        mg = MovesGener(hand)
        kind = rival_type["type"]
        if kind == md.TYPE_0_PASS:
            found = mg.gen_moves()
        elif kind == md.TYPE_4_BOMB:
            found = ms.filter_type_4_bomb(mg.gen_type_4_bomb() + mg.gen_type_5_king_bomb(), rival)
        elif kind == md.TYPE_5_KING_BOMB:
            found = []
        else:
            name, keep, by_len = gens[kind]
            made = getattr(mg, name)(repeat_num=rival_type.get("len", 1)) if by_len else getattr(mg, name)()
            found = keep(made, rival)
        if kind not in (md.TYPE_0_PASS, md.TYPE_4_BOMB, md.TYPE_5_KING_BOMB):
            found = found + mg.gen_type_4_bomb() + mg.gen_type_5_king_bomb()
        if rival:
            found = found + [[]]
        for m in found:
            m.sort()
        return found

    return legal, md.get_move_type


def to_douzero(cards) -> list[int]:
    return sorted(DOUZERO_INT[c.rank] for c in cards)


# --- 1. classification ---------------------------------------------------------------------


def classification_inputs(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    deck = full_deck(1)
    texts: list[str] = []
    while len(texts) < n:
        hand = rng.sample(deck, 20)
        plays = legal_plays(hand)
        texts.append(" ".join(c.rank_text for c in rng.choice(plays).cards))
        texts.append(" ".join(c.rank_text for c in sorted(rng.sample(deck, rng.randint(1, 12)))))
    return texts[:n]


def bench_classification(n: int, passes: int) -> None:
    print(f"\n1. Classifications per second from rank text ({n} inputs, fastest of {passes} runs per chunk)")
    compiled_plays.forget()
    start = time.perf_counter()
    built = compiled_plays.reading_table(CLASSIC)
    if built is None:
        print("  (the compiled core is not built: rank text is parsed and classified)")
    else:
        print(f"  (the table of every combination: {len(built[1]):,} card sets, made once in "
              f"{1000 * (time.perf_counter() - start):.0f} ms)")
    texts = classification_inputs(n, seed=1)
    card_lists = [parse_cards(t) for t in texts]

    rows = [("ours, text, cold (first sight of each input)", rate(classify, texts, passes, clear_all))]
    rows.append(("ours, text, warm cache", rate(classify, texts, passes)))
    rows.append(("ours, suited Card lists (signature cache)", rate(classify, card_lists, passes)))
    lookup = load_rlcard()
    if lookup is not None:
        peer = rate(lookup, texts, passes)
        rows.append(("rlcard 1.2.0 CARD_TYPE lookup", peer))
    print(f"  {'':48} {'per s':>11} {'vs rlcard':>9}")
    for name, value in rows:
        ratio = f"{value / peer:8.2f}x" if lookup is not None else "        -"
        print(f"  {name:48} {value:11,.0f} {ratio}")


# --- 2. legal moves --------------------------------------------------------------------------


def bench_legal_moves(n_hands: int, passes: int) -> None:
    print(f"\n2. Legal-move generations per second, 20-card hands ({n_hands} hands, fastest of {passes} runs per chunk)")
    print("   rank = rank-level plays from the hand (generate(), no answer cache; like douzero, no suits)")
    core = "the compiled core" if compiled_plays.generator(CLASSIC) is not None else "Python (core not built)"
    print(f"   cold = legal_plays ({core}), Combinations on the hand's cards, answer caches cleared before each chunk")
    print("   (rank and cold keep the table of built rank-level plays: it depends on no hand)")
    print("   warm = legal_plays again on the same hands (rank-level answers cached; cards mapped anew)")
    rng = random.Random(2)
    deck = full_deck(1)
    hands = [sorted(rng.sample(deck, 20)) for _ in range(n_hands)]
    dz_hands = [to_douzero(h) for h in hands]
    douzero = load_douzero()
    head = f"  {'previous play':16} {'moves':>6} {'rank':>9} {'cold':>9} {'warm':>9}"
    if douzero is not None:
        head += f" {'douzero':>9} {'rank/dz':>8} {'cold/dz':>8} {'warm/dz':>8}"
    print(head)
    worst = {}
    for kind, text in PREVIOUS.items():
        prev = classify(text)[0] if text else None
        key = None if prev is None else (prev.type, prev.main, prev.length, prev.size)
        found = sum(len(legal_plays(h, prev)) for h in hands)
        ranked = rate(lambda h, k=key: generate(tuple(rank_counts(h)), k, CLASSIC), hands, passes)
        cold = rate(lambda h, p=prev: legal_plays(h, p), hands, passes, clear_all)
        warm = rate(lambda h, p=prev: legal_plays(h, p), hands, passes)
        cells = f"{found / n_hands:6.1f} {ranked:9,.0f} {cold:9,.0f} {warm:9,.0f}"
        if douzero is not None:
            legal, move_type = douzero
            rival = to_douzero(prev.cards) if prev else []
            rival_type = move_type(list(rival))
            peer = rate(lambda h, r=rival, t=rival_type, f=legal: f(h, list(r), t), dz_hands, passes)
            cells += f" {peer:9,.0f} {ranked / peer:7.2f}x {cold / peer:7.2f}x {warm / peer:7.2f}x"
            worst[kind] = (ranked / peer, cold / peer, warm / peer)
        print(f"  {kind:16} {cells}")
    if worst:
        lows = [min(v[i] for v in worst.values()) for i in range(3)]
        print(f"  lowest ratio to douzero: rank {lows[0]:.2f}x, cold {lows[1]:.2f}x, warm {lows[2]:.2f}x")


# --- 3. brute force --------------------------------------------------------------------------


def _rich_deck(deck: list[Card], rng: random.Random) -> list[Card]:
    """The cards of five neighbouring ranks and the jokers: hands drawn from it hold the long
    two-deck shapes (quad chains, carriers, spaceships, joker bombs) that random hands miss."""
    lo = rng.randint(0, 7)
    return [c for c in deck if lo <= c.rank < lo + 5 or c.is_joker]


def _check_hands(job: tuple[str, int, int, bool]) -> tuple[int, int, int, list[str], Counter]:
    """(hands, positions checked, faults, first fault texts, plays met by type) for a slice
    of random hands."""
    preset, seed, count, rich = job
    rules = get_rules(preset)
    rng = random.Random(seed)
    full = full_deck(rules.decks)
    checked = faults = 0
    notes: list[str] = []
    kinds: Counter[str] = Counter()
    core = compiled_plays.generator(rules)  # None where it is not built or does not play the preset
    for _ in range(count):
        deck = _rich_deck(full, rng) if rich else full
        counts = tuple(rank_counts(rng.sample(deck, rng.randint(1, 20))))
        reference = brute_force_plays(counts, None, rules)
        kinds.update(p[0] for p in reference)
        groups = [(Card(r),) * k for r, k in enumerate(counts)]
        prevs = [None] + [to_combination(p, groups) for p in rng.sample(sorted(reference), min(3, len(reference)))]
        for prev in prevs:
            if prev is None:
                expected = reference
            else:
                expected = {q for q in reference if beats(to_combination(q, groups), prev, rules)}
            got = set(rank_legal_plays(counts, prev_key(prev), rules))
            checked += 1
            if got != expected:
                faults += len(got ^ expected)
                if len(notes) < 3:
                    notes.append(f"{counts} after {prev}: missing {sorted(expected - got)[:2]} extra {sorted(got - expected)[:2]}")
            if core is not None:  # the compiled core's plays, as (type, main, length, rank counts)
                key = None if prev is None else (TYPES.index(prev.type), prev.main, prev.length)
                found = set(core.plays(_hand_int(counts), key) if key else core.plays(_hand_int(counts)))
                want = {(TYPES.index(q[0]), q[1], q[2], _hand_int(_taken(q))) for q in expected}
                if found != want:
                    faults += len(found ^ want)
                    if len(notes) < 3:
                        notes.append(f"compiled core, {counts} after {prev}: {len(want - found)} missing, "
                                     f"{len(found - want)} extra")
    return count, checked, faults, notes, kinds


def _hand_int(counts: tuple[int, ...]) -> int:
    return sum(k << 4 * r for r, k in enumerate(counts))


def _taken(play) -> tuple[int, ...]:
    taken = [0] * 15
    for r, a, b in play[3] + play[4]:
        taken[r] += b - a
    return tuple(taken)


def bench_brute_force(n_hands: int, workers: int, presets: list[str], rich: bool = False) -> None:
    drawn = "five neighbouring ranks and the jokers" if rich else "the whole deck"
    print(f"\n3. Illegal or missing moves against brute force ({n_hands} random hands of 1-20 cards per preset, "
          f"from {drawn})")
    for preset in presets:
        chunk = 250
        jobs = [(preset, 1000 + i, min(chunk, n_hands - i), rich) for i in range(0, n_hands, chunk)]
        start = time.perf_counter()
        results = []
        with multiprocessing.Pool(workers) as pool:
            for result in pool.imap_unordered(_check_hands, jobs):
                results.append(result)
                done = sum(r[0] for r in results)
                print(f"    {preset}: {done}/{n_hands} hands, {sum(r[2] for r in results)} faults so far", flush=True)
        hands = sum(r[0] for r in results)
        checked = sum(r[1] for r in results)
        faults = sum(r[2] for r in results)
        print(f"  {preset:8} hands {hands:6}  positions {checked:6}  illegal+missing {faults}  ({time.perf_counter() - start:.0f} s)")
        met = sum((r[4] for r in results), Counter())
        print("    plays met (leads):", ", ".join(f"{k} {v}" for k, v in sorted(met.items())))
        for result in results:
            for note in result[3]:
                print("    ", note)


# --- 4. rule differences with douzero ------------------------------------------------------


def bench_rule_differences(n_hands: int) -> None:
    douzero = load_douzero()
    if douzero is None:
        return
    legal, move_type = douzero
    print(f"\n4. Leads that douzero and we disagree on ({n_hands} random 20-card hands, by rank multiset)")
    rng = random.Random(4)
    deck = full_deck(1)
    only_dz: Counter[str] = Counter()
    only_ours: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for _ in range(n_hands):
        hand = rng.sample(deck, 20)
        ours = {tuple(sorted(DOUZERO_INT[c.rank] for c in p.cards)): p.type for p in legal_plays(hand)}
        theirs = {tuple(m) for m in legal(to_douzero(hand), [], move_type([]))}
        for m in theirs - set(ours):
            kind = move_type(list(m))["type"]
            only_dz[f"douzero type {kind}"] += 1
            examples.setdefault(f"douzero type {kind}", " ".join(RANK_TEXT[DOUZERO_INT.index(v)] for v in m))
        for m in set(ours) - theirs:
            only_ours[ours[m]] += 1
            examples.setdefault(ours[m], " ".join(RANK_TEXT[DOUZERO_INT.index(v)] for v in m))
    for label, table in (("only douzero offers", only_dz), ("only we offer", only_ours)):
        if not table:
            print(f"  {label}: none")
        for kind, count in table.most_common():
            print(f"  {label}: {kind:24} {count:7}  e.g. {examples[kind]}")


def bench_rlcard_table() -> None:
    try:
        from rlcard.games.doudizhu.utils import CARD_TYPE
    except ImportError as exc:
        print(f"\n5. rlcard not installed ({exc}); skipping the table comparison")
        return
    print("\n5. Every combination of up to 20 cards from one deck: ours against rlcard's table")
    full = tuple([4] * 13 + [1, 1])
    ours: dict[str, list[str]] = {}
    for play in rank_legal_plays(full, None, CLASSIC):
        count: Counter[int] = Counter()
        for r, a, b in play[3] + play[4]:
            count[r] += b - a
        if sum(count.values()) <= 20:
            key = "".join("3456789TJQKA2BR"[r] * count[r] for r in sorted(count))
            ours.setdefault(key, []).append(play[0])
    theirs = CARD_TYPE[0]
    only_theirs = [k for k in theirs if k not in ours]
    only_ours = [k for k in ours if k not in theirs]
    readings = sum(len(theirs[k]) != len(v) for k, v in ours.items() if k in theirs)
    print(f"  rlcard {len(theirs):,} card sets, ours {len(ours):,}; only rlcard {len(only_theirs)} "
          f"{only_theirs[:3]}, only ours {len(only_ours)} {only_ours[:3]}; sets read a different number of ways: {readings}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--brute-hands", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=max(1, multiprocessing.cpu_count()))
    parser.add_argument("--sections", default="1,2,3,4,5", help="which sections to run, e.g. 1,2")
    parser.add_argument("--presets", default="classic,four,five,dizhu", help="presets for the brute-force check")
    parser.add_argument("--rich", action="store_true",
                        help="brute-force hands from five neighbouring ranks and the jokers (long two-deck shapes)")
    args = parser.parse_args(argv)
    scale = 10 if args.quick else 1
    sections = {int(x) for x in args.sections.split(",")}
    print(f"Python {sys.version.split()[0]}, rules {CLASSIC.name}", flush=True)
    if 1 in sections:
        bench_classification(20_000 // scale, passes=5)
    if 2 in sections:
        bench_legal_moves(1000 // scale, passes=5)
    if 3 in sections:
        hands = args.brute_hands // scale if args.quick else args.brute_hands
        bench_brute_force(hands, args.workers, args.presets.split(","), args.rich)
    if 4 in sections:
        bench_rule_differences(2000 // scale)
    if 5 in sections:
        bench_rlcard_table()


if __name__ == "__main__":
    main()
