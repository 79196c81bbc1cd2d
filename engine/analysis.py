"""After the hand (复盘): where it was won and where it was lost, with every hand visible.

Once a hand's starting cards are known (dealt cards in the record, or every seat's cards
shown after the hand, 亮牌, see :mod:`engine.showdown`), each position of the hand can be
solved exactly (:mod:`engine.solver`). The analysis walks the plays and passes: for each, was
the position won for the side that moved before it and after it? A play or pass that turned a
won position into a lost one is a **decisive mistake** (决定性失误), and the solver names a
move that kept it won. It also checks the bids: would the hand have been won with each seat as
landlord (the kitty in that seat's hand, that seat leading)?

Positions are solved from the last to the first, sharing one table, within a time budget;
when it runs out, the earlier positions stay unknown and the hand is analysed from the first
position that was solved.

>>> from engine.cards import parse_cards
>>> from engine.events import Deal, Landlord, Pass, Play
>>> from engine.record import RecordedHand
>>> from engine.rules import RuleSet
>>> tiny = RuleSet(name="tiny", hand_size=3, kitty_size=0, out_of_play=45)
>>> C = lambda text: tuple(parse_cards(text))
>>> deal = Deal(counts=(3, 3, 3), hands=(C("3s 3h 5s"), C("4s 9s 10s"), C("6s 7s 8s")), kitty=())
>>> events = (deal, Landlord(0), Play(0, C("5s")), Play(1, C("10s")), Pass(2))
>>> a = analyse(RecordedHand(tiny, ("甲", "乙", "丙"), events))
>>> a.start, [s.mistake for s in a.steps]
(True, [True, False, False])
>>> a.lines()[1]
'第 1 手：甲出单张 5♠ 后由胜转负；出对子 3♠ 3♥ 可保持胜势'
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.cards import Card, rank_counts
from engine.classify import group_by_rank, to_combination
from engine.combination import Combination
from engine.events import Concede, Deal, Escape, Event, Pass, Play
from engine.hand import Hand
from engine.record import RecordedHand
from engine.record_text import cards_text, play_number
from engine.rules import RuleSet
from engine.showdown import starting_hands
from engine.solver import PASS, Position, UnsupportedRules, Verdict, check_rules, make_solver
from engine.solver.compiled import Core
from engine.words import GAME, Words, preset_name, type_name

#: Seconds for a whole hand by default (the CLI); the site uses a shorter budget (webui).
DEFAULT_SECONDS = 30.0


class NoStartingHands(ValueError):
    """The hand's starting cards are not known, so it cannot be solved."""


#: The analysis's sentences; a pass is named by the game's own word (:data:`engine.words.GAME`), whose
#: English the sentence inflects: passed, passing.
ANALYSIS = Words({
    "mistake": "第 {n} 手：{who}{did}后由胜转负；{better}可保持胜势",
    "did_play": "出{what} ", "better_play": "出{what} ", "did_pass": "{pass}", "better_pass": "{pass}",
    "start_landlord": "开局：地主{who}必胜", "start_farmers": "开局：农民必胜（地主{who}必败）",
    "start_unknown": "开局：未在时限内解出",
    "from": "前面的局面未在时限内解出，从第 {n} 手起分析", "none": "没有决定性失误",
    "unsolved": "整局未在时限内解出", "seat_win": "若由{who}当地主：必胜", "seat_loss": "若由{who}当地主：必败",
    "seat_unknown": "若由{who}当地主：未解出", "no_kitty": "底牌未知，无法检查叫牌",
    "heading": "复盘", "turned": "由胜转负",
    "why_hidden": "{name}：不做明牌复盘。有暗地主，谁和谁一队本身就是玩家不知道的信息，亮出所有牌来求解就成了另一种游戏",
    "why_seats": "{name}：不做明牌复盘。求解器只算二至四人的对局",
    "why_quota": "{name}：不做明牌复盘。炸弹限额要看谁叫过地主、谁已经炸过，这些不在牌面上",
    "why_choice": "{name}：不做明牌复盘。地主从底牌中任意挑牌，起手牌本身就是一个选择；四连等牌型也未建模",
    "why_options": "{name}：不做明牌复盘。规则选项 {options} 未建模",
}, {
    "mistake": "Play {n}: {who} {did}and turned a win into a loss; {better}would have kept the win",
    "did_play": "played {what} ", "better_play": "{what} ", "did_pass": "{passed} ", "better_pass": "{passing} ",
    "start_landlord": "From the deal: the landlord {who} wins",
    "start_farmers": "From the deal: the farmers win (the landlord {who} loses)",
    "start_unknown": "From the deal: not solved in time",
    "from": "Earlier positions were not solved in time; analysed from play {n}",
    "none": "No decisive mistake", "unsolved": "Not solved in time",
    "seat_win": "With {who} as landlord: won", "seat_loss": "With {who} as landlord: lost",
    "seat_unknown": "With {who} as landlord: not solved", "no_kitty": "Kitty unknown: bids not checked",
    "heading": "Analysis", "turned": "won → lost",
    "why_hidden": "{name}: no open-hand analysis. With a hidden landlord, who plays with whom is itself "
                  "hidden from the players, so solving with every hand visible would be another game",
    "why_seats": "{name}: no open-hand analysis. The solver plays games of two to four seats",
    "why_quota": "{name}: no open-hand analysis. The bomb quota depends on who bid and who has bombed, "
                 "which the cards do not show",
    "why_choice": "{name}: no open-hand analysis. The landlord picks any cards of the kitty, so the starting "
                  "hand is itself a choice; the quad family is not modelled either",
    "why_options": "{name}: no open-hand analysis. Rule option(s) {options} not modelled",
}, under=GAME)


def not_analysed(exc: UnsupportedRules, lang: str = "zh") -> str:
    """Why a rule set has no open-hand analysis, in the players' words (the page and the CLI say it).

    >>> from engine.solver import check_rules
    >>> try:
    ...     check_rules("five")
    ... except UnsupportedRules as exc:
    ...     print(not_analysed(exc, "en").split(". ")[0])
    Five players, open and hidden landlord: no open-hand analysis
    """
    return ANALYSIS(f"why_{exc.why}", lang, name=preset_name(exc.rules, lang), options=", ".join(exc.options))


def describe(combo: Combination, lang: str = "zh") -> str:
    """A play as players say it: ``对子 K♠ K♥`` / ``pair K♠ K♥``."""
    return f"{type_name(combo.type, lang)} {cards_text(combo.cards, lang)}"


@dataclass(frozen=True)
class Step:
    """One play or pass of the hand, judged for the side that made it."""

    number: int  # 第 N 手, as the text record numbers it
    index: int  # the event's index among the hand's events
    seat: int
    play: Combination | None  # None: a pass
    before: bool | None  # the mover's side was winning before (None: not solved)
    after: bool | None  # ... and after
    better: Combination | str | None = None  # for a mistake: a move that kept it won (or PASS)

    @property
    def mistake(self) -> bool:
        return self.before is True and self.after is False

    def to_dict(self) -> dict[str, object]:
        def play(c: Combination | str | None) -> object:
            return c if c is None or isinstance(c, str) else {"type": c.type, "cards": " ".join(map(str, c.cards))}
        return {"number": self.number, "event": self.index, "seat": self.seat, "play": play(self.play) if self.play else PASS,
                "before": self.before, "after": self.after, "mistake": self.mistake, "better": play(self.better)}


@dataclass(frozen=True)
class Analysis:
    """The analysis of one hand: each step, the verdict from the deal, and the bid check."""

    players: tuple[str, ...]
    landlord: int
    steps: tuple[Step, ...]
    start: bool | None  # the landlord wins from the first position (None: not solved)
    as_landlord: tuple[bool | None, ...] | None  # per seat; None when the kitty is not known
    seconds: float
    nodes: int

    @property
    def mistakes(self) -> list[Step]:
        return [s for s in self.steps if s.mistake]

    @property
    def solved_from(self) -> int | None:
        """The number of the first step whose position was solved (None: none was)."""
        return next((s.number for s in self.steps if s.before is not None), None)

    def lines(self, lang: str = "zh") -> list[str]:
        """The analysis in plain words, one finding a line."""
        def w(key: str, **fmt: object) -> str:
            return ANALYSIS(key, lang, **fmt)

        passes = {form: GAME(form, lang) for form in ("pass", "passed", "passing")}
        name = self.players
        out = []
        if self.start is None:
            out.append(w("start_unknown"))
        else:
            out.append(w("start_landlord" if self.start else "start_farmers", who=name[self.landlord]))
        first = self.solved_from
        if first is None:
            out.append(w("unsolved"))
        elif self.steps and self.steps[0].before is None:
            out.append(w("from", n=first))
        for s in self.mistakes:
            did = w("did_pass", **passes) if s.play is None else w("did_play", what=describe(s.play, lang))
            better = w("better_pass", **passes) if s.better is None or isinstance(s.better, str) \
                else w("better_play", what=describe(s.better, lang))
            out.append(w("mistake", n=s.number, who=name[s.seat], did=did, better=better))
        if first is not None and not self.mistakes:
            out.append(w("none"))
        if self.as_landlord is None:
            out.append(w("no_kitty"))
        else:
            for seat, won in enumerate(self.as_landlord):
                key = "seat_unknown" if won is None else "seat_win" if won else "seat_loss"
                out.append(w(key, who=name[seat]))
        return out

    def to_dict(self) -> dict[str, object]:
        return {"players": list(self.players), "landlord": self.landlord, "start": self.start,
                "solved_from": self.solved_from, "steps": [s.to_dict() for s in self.steps],
                "mistakes": [s.number for s in self.mistakes],
                "as_landlord": None if self.as_landlord is None else list(self.as_landlord),
                "seconds": round(self.seconds, 3), "nodes": self.nodes,
                "lines": {"zh": self.lines("zh"), "en": self.lines("en")}}


def dealt_hands(hand: Hand) -> tuple[list[tuple[Card, ...]], tuple[Card, ...] | None]:
    """Each seat's cards as dealt and the kitty, from the deal or from the cards shown after the
    hand. Raises :class:`NoStartingHands` when neither tells them."""
    deal = next((e for e in hand.events if isinstance(e, Deal)), None)
    if deal is not None and deal.hands is not None:
        if hand.kitty is None and hand.rules.kitty_size:
            raise NoStartingHands("the deal lists the hands but not the kitty (底牌); enter the kitty")
        return [tuple(h) for h in deal.hands], hand.kitty
    shown = starting_hands(hand)
    if shown is None:
        raise NoStartingHands(
            "the starting hands are not known: after the hand every seat left holding cards must show "
            "them (亮牌, the Shown event: the referee page's 'show the cards left' or the camera), "
            "or the deal must list the hands")
    if hand.kitty is None:  # the landlord's shown cards already hold the kitty (engine.showdown)
        return list(shown), None
    return list(shown), hand.kitty


def analyse(record: RecordedHand, seconds: float = DEFAULT_SECONDS, bid_seconds: float | None = None, *,
            core: Core = "auto", progress: Callable[[int, int], None] | None = None) -> Analysis:
    """Solve every position of a recorded hand within ``seconds`` (and each seat-as-landlord
    check within ``bid_seconds``, by default a third of ``seconds``). ``core``: the compiled
    search where it is built, or the one named (:func:`engine.solver.make_solver`);
    ``progress(done, total)`` is told after each position and each seat checked."""
    started = time.perf_counter()
    rules = check_rules(record.rules)
    hand = record.hand()
    if hand.landlord is None:
        raise ValueError("the hand has no landlord (a redeal or stopped before play): nothing to analyse")
    dealt, kitty = dealt_hands(hand)
    held = [list(h) for h in dealt]
    if kitty is not None:
        held[hand.landlord] += list(kitty)
    walk = _positions(hand.rules, hand.events, hand.landlord, held)
    solver = make_solver(rules, hand.landlord, core=core)
    deadline = started + seconds
    verdicts: list[Verdict | None] = [None] * len(walk)
    checks = len(walk) + (rules.players if kitty is not None or not rules.kitty_size else 0)
    for i in range(len(walk) - 1, -1, -1):  # the last positions are small, and fill the table for the rest
        left = deadline - time.perf_counter()
        if left <= 0:
            break
        v = solver.solve(walk[i][0], seconds=left)
        if not v.exact:
            break
        verdicts[i] = v
        if progress is not None:
            progress(len(walk) - i, checks)
    steps = _steps(walk, verdicts, hand.landlord, hand.events)
    start = verdicts[0].landlord_wins if verdicts and verdicts[0] is not None else None
    nodes = solver.nodes
    as_landlord = None
    if kitty is not None or not rules.kitty_size:
        per_seat = seconds / 3 if bid_seconds is None else bid_seconds
        results: list[bool | None] = []
        for seat in range(rules.players):
            if seat == hand.landlord and start is not None:
                results.append(start)
            else:
                cards = [list(h) for h in dealt]
                cards[seat] += list(kitty or ())
                other = make_solver(rules, seat, core=core)
                v = other.solve(Position(tuple(tuple(rank_counts(h)) for h in cards), seat, seat, rules=rules),
                                seconds=per_seat)
                nodes += other.nodes
                results.append(v.landlord_wins)
            if progress is not None:
                progress(len(walk) + seat + 1, checks)
        as_landlord = tuple(results)
    return Analysis(record.players, hand.landlord, steps, start, as_landlord, time.perf_counter() - started, nodes)


def _positions(rules: RuleSet, events: list[Event], landlord: int, held: list[list[Card]]) -> list[tuple[Any, ...]]:
    """(position, event index, seat, play reading or None, the mover's cards) before each play or pass."""
    hand = Hand(rules)
    out: list[list[Any]] = []
    for i, event in enumerate(events):
        if isinstance(event, Concede | Escape):
            break
        step = None
        if hand.phase == "play" and isinstance(event, Play | Pass):
            by = hand.plays[hand.top].seat if hand.top is not None else None
            try:
                pos = Position(tuple(tuple(rank_counts(h)) for h in held), landlord, event.seat, hand.current, by,
                               hand.rules)
            except ValueError as exc:
                raise ValueError(f"the starting hands do not match the plays (event {i}): {exc}") from None
            step = [pos, i, event.seat, None, list(held[event.seat])]
            out.append(step)
        hand.apply(event)
        if step is not None and isinstance(event, Play):
            step[3] = hand.plays[-1].reading
            left = Counter(held[event.seat]) - Counter(event.cards)
            if sum(left.values()) != len(held[event.seat]) - len(event.cards):
                raise ValueError(f"the starting hands do not match the plays: event {i} plays cards "
                                 f"seat {event.seat} was not dealt")
            held[event.seat] = sorted(left.elements())
    return [tuple(x) for x in out]


def _steps(walk: list[tuple[Any, ...]], verdicts: list[Verdict | None], landlord: int,
           events: list[Event]) -> tuple[Step, ...]:
    steps = []
    for k, (pos, index, seat, play, cards) in enumerate(walk):
        side = seat == landlord
        v = verdicts[k]
        before = None if v is None else v.landlord_wins == side
        if k + 1 < len(walk):
            nxt = verdicts[k + 1]
            after = None if nxt is None else nxt.landlord_wins == side
        else:  # the last step: the mover went out with it, or the hand stopped here
            after = True if play is not None and sum(pos.hands[seat]) == play.size else None
        better = None
        if before is True and after is False and v is not None and v.move is not None:
            better = PASS if isinstance(v.move, str) else to_combination(v.move, group_by_rank(cards))
        steps.append(Step(play_number(events, index) or 0, index, seat, play, before, after, better))
    return tuple(steps)
