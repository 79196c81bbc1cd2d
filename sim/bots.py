"""Bot players for the synthetic table: hands that look like people played them.

Uniformly random choices among the legal plays (``sim.scripted.random_hand``) give games no
table sees: bombs broken up into singles, a farmer beating his partner's winning play, 2s
and jokers thrown away on the first trick, and no springs at all. These bots follow the few
habits most players share:

- **Bidding** (叫分): a hand's strength counts jokers, 2s, aces and bombs; a bot bids up to
  what its strength is worth, so weak deals are passed round and redealt now and then.
- **Leading**: the cheapest play, preferring low ranks and plays that shed many cards and
  break no pair, trio or bomb; 2s and jokers are kept for later.
- **Following**: a farmer lets his partner's play stand; otherwise the cheapest play that
  beats the trick, holding back high cards while the opponent has many cards left.
- **Bombs** (炸弹, 王炸) are kept whole and played when nothing else beats the trick and it
  matters: the opponent is close to going out, the bomb takes the bot out (or nearly), or
  on a whim (``BotStyle.bomb_whim``).
- Anyone who can go out with one play does.
- **Five players**: the marker card is drawn from the dealt hands; the open and the hidden
  landlord play as one side (bots peek at the hands, so they know the hidden one), a strong
  hidden landlord reveals now and then, and a strong hand doubles. **斗帝主**: the 帝主 takes
  the kitty cards that join a pair or more of his, and every A, 2 and joker.

``play_hand(rules, rng, first_bidder, cards=None)`` returns a finished engine ``Hand``
(possibly a redeal) with every card known; ``cards`` deals a short game (that many cards
per seat, the rest unused), for quick self-tests. ``rates(hands)`` summarises bids, bombs,
springs and winners over many hands (``ddz-table simulate --stats``).
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.cards import ACE, BJ, RJ, TWO, Card, full_deck
from engine.combination import Combination
from engine.events import Bid, Deal, Double, Kitty, KittyPick, Marker, Pass, Play, Reveal
from engine.hand import Hand
from engine.legal import legal_plays
from engine.rules import RuleSet, get_rules


@dataclass(frozen=True)
class BotStyle:
    #: Chance a bot plays a bomb that beats the trick when nothing forces it to.
    bomb_whim: float = 0.05
    #: The opponent's cards left at or under which a bot plays its strongest cards.
    danger: int = 5
    #: ... and at or under which it plays a bomb that beats the trick.
    bomb_danger: int = 2
    #: Chance a bot holds back a 2 or joker it could follow with while the game is young.
    hold_high: float = 0.6
    #: Chance a bot leads a play no opponent can answer, when it has one.
    lead_safe: float = 0.95
    #: Chance a bot passes although it could answer cheaply (saving its cards for later).
    save_cards: float = 0.15
    #: Strength a bid of 1, 2, 3 needs (for a 17-card hand; scaled for short deals).
    bid_at: tuple[float, float, float] = (3.0, 5.0, 6.5)
    #: Noise on a bot's view of its own strength (people misjudge their hands).
    bid_noise: float = 1.0
    #: Five-player: strength (per 17 cards) at which a bot doubles, and a hidden landlord reveals.
    double_at: float = 7.0
    reveal_at: float = 6.0


DEFAULT_STYLE = BotStyle()


def strength(cards: Iterable[Card]) -> float:
    """How good a hand is for the landlord: jokers, 2s, aces, and bombs count."""
    counts = Counter(c.rank for c in cards)
    score = 2.0 * counts[RJ] + 1.5 * counts[BJ] + 1.0 * counts[TWO] + 0.4 * counts[ACE]
    score += sum(2.0 for rank, n in counts.items() if rank < BJ and n >= 4)
    if counts[BJ] and counts[RJ]:
        score += 1.0  # a rocket is worth more than its two jokers
    return score


def choose_bid(hand: Hand, seat: int, rng: random.Random, style: BotStyle = DEFAULT_STYLE) -> tuple[str, int]:
    assert hand.bidding is not None and hand.known is not None
    legal = hand.bidding.legal()
    worth = _worth(hand, seat, rng, style)
    want = sum(1 for need in style.bid_at if worth >= need)
    values = [v for a, v in legal if a == "bid" and v <= want]
    if values:
        return "bid", max(values)
    for action in ("grab", "call"):
        if (action, 0) in legal and want >= (2 if action == "grab" else 1):
            return action, 0
    if ("pass", 0) in legal:
        return "pass", 0
    return legal[0]  # a rule that forces a bid (e.g. the third seat after two passes)


# ---------------------------------------------------------------------- playing
def _protected(counts: Counter) -> set[int]:
    """Ranks that make a bomb or rocket: a bot does not break them up."""
    ranks = {r for r, n in counts.items() if r < BJ and n >= 4}
    if counts[BJ] and counts[RJ]:
        ranks |= {BJ, RJ}
    return ranks


SAFE_LOOK = 16  # cheapest leads checked for an answer (each check generates the opponents' plays)


def landlord_side(hand: Hand) -> set[int]:
    """The landlord's side as bots see it: they peek at the hands, so a hidden landlord not
    shown yet counts from the deal."""
    side = set(hand.landlord_side())
    twin = hand.twin_holder()
    if twin is not None:
        side.add(twin)
    return side


def _worth(hand: Hand, seat: int, rng: random.Random, style: BotStyle) -> float:
    """Strength judged per card as if it were a 17-card hand, so every deal size bids alike."""
    assert hand.known is not None
    return strength(hand.known[seat]) * 17 / max(1, len(hand.known[seat])) + rng.gauss(0, style.bid_noise)


def _answerable(hand: Hand, play: Combination, seats: list[int]) -> bool:
    assert hand.known is not None
    return any(legal_plays(hand.known[s], play, hand.rules) for s in seats)


def _cost(play: Combination, counts: Counter, left: int) -> float:
    """Lower is better: low ranks, many cards shed, no group broken, high cards kept."""
    used = Counter(c.rank for c in play.cards)
    broken = sum(1 for r, n in used.items() if counts[r] > n and counts[r] >= 2)
    high = sum(n for r, n in used.items() if r >= TWO)
    cost = play.main - 0.9 * play.size + 2.5 * broken
    if left > 6:
        cost += 4.0 * high
    return cost


def choose_play(hand: Hand, seat: int, rng: random.Random, style: BotStyle = DEFAULT_STYLE) -> Combination | None:
    """The play (or ``None`` for a pass) a bot makes in ``seat``'s turn."""
    assert hand.known is not None
    options: list[Combination] = []
    for prev in hand.current or (None,):
        options.extend(legal_plays(hand.known[seat], prev, hand.rules))
    while options:
        play = _pick(hand, seat, options, rng, style)
        # the engine has the last word (a four-player bomb quota, say): try the next best
        if play is None or hand.check(Play(seat, play.cards)) is None:
            return play
        options = [p for p in options if p is not play]
    return None


def _pick(hand: Hand, seat: int, options: list[Combination], rng: random.Random,
          style: BotStyle) -> Combination | None:
    assert hand.known is not None
    cards = hand.known[seat]
    counts = Counter(c.rank for c in cards)
    out = [p for p in options if p.size == len(cards)]
    if out:
        return out[0]
    side = landlord_side(hand)
    opponents = [s for s in range(hand.players) if (s in side) != (seat in side)]
    least = min(hand.cards_left[s] for s in opponents)
    danger = least <= style.danger
    protected = _protected(counts)
    bombs = [p for p in options if p.is_bomb]
    plain = [p for p in options if not p.is_bomb and not any(c.rank in protected for c in p.cards)]
    if not hand.current:  # a lead
        pool = plain or [p for p in options if not p.is_bomb] or options
        ranked = sorted(pool, key=lambda p: _cost(p, counts, len(cards)) + rng.uniform(0, 0.8))
        # A player who reads the table leads what no opponent can answer, when he has it
        # (bots peek at the hands; people count cards): this is how springs happen.
        safe = [p for p in ranked[:SAFE_LOOK] if not _answerable(hand, p, opponents)]
        if safe and rng.random() < style.lead_safe:
            return safe[0]
        if danger:  # big cards first when the opponent is about to go out
            return rng.choice(sorted(pool, key=lambda p: (-p.size, -p.main))[:3])
        return ranked[0]
    assert hand.top is not None  # following: a play is on the table
    top = hand.plays[hand.top].seat
    if (top in side) == (seat in side):
        return None  # the partner is winning this trick: let it stand
    if plain:
        if danger:  # stop the opponent going out: the strongest answer
            return max(plain, key=lambda p: (p.main, -p.size))
        best = min(plain, key=lambda p: _cost(p, counts, len(cards)) + rng.uniform(0, 0.5))
        holds_high = any(c.rank >= TWO for c in best.cards)
        if holds_high and not danger and len(cards) > 6 and rng.random() < style.hold_high:
            return None
        if not danger and rng.random() < style.save_cards:
            return None
        return best
    if bombs:
        smallest = min(bombs, key=lambda p: (p.type == "rocket", p.size, p.main))
        near_out = len(cards) - smallest.size <= 2
        if least <= style.bomb_danger or near_out or rng.random() < style.bomb_whim:
            return smallest
    return None


# ---------------------------------------------------------------------- a whole hand
def deal(rules: RuleSet, rng: random.Random, first_bidder: int, cards: int | None = None) -> Hand:
    """A shuffled deal with every hand known; ``cards`` per seat for a short game."""
    size = rules.hand_size if cards is None else cards
    if not 1 <= size <= rules.hand_size:
        raise ValueError(f"cards per seat must be 1..{rules.hand_size}, not {size}")
    deck = full_deck(rules.decks)
    rng.shuffle(deck)
    hands = tuple(tuple(sorted(deck[i * size:(i + 1) * size])) for i in range(rules.players))
    start = rules.players * size
    kitty = tuple(deck[start:start + rules.kitty_size])
    hand = Hand(rules)
    hand.apply(Deal(counts=(size,) * rules.players, first_bidder=first_bidder, hands=hands, kitty=kitty,
                    time=0.0))
    return hand


def open_marker(hand: Hand, rng: random.Random, time: float | None = None) -> Marker:
    """Five-player: a non-joker card of the dealt hands turned face up, and the seat it fell to."""
    assert hand.known is not None
    cards = [(seat, c) for seat, held in enumerate(hand.known) for c in held if not c.is_joker]
    seat, card = rng.choice(cards)
    return Marker(seat, card, time=time)


def pick_kitty(hand: Hand, seat: int) -> KittyPick:
    """斗帝主: the kitty cards that join a pair or more of the 帝主's, and every A, 2 and joker."""
    assert hand.known is not None and hand.kitty is not None
    counts = Counter(c.rank for c in hand.known[seat])
    return KittyPick(seat, tuple(c for c in hand.kitty if c.rank >= ACE or counts[c.rank] >= 2))


def before_play(hand: Hand, rng: random.Random, style: BotStyle = DEFAULT_STYLE) -> list:
    """Five-player choices once the marker is out: a strong hidden landlord reveals (亮出身份),
    then each strong hand doubles (加倍) in play order from the landlord."""
    events: list = []
    if not hand.rules.hidden_landlord and not hand.rules.player_double:
        return events
    twin = hand.twin_holder()
    if hand.rules.hidden_landlord and twin is not None and _worth(hand, twin, rng, style) >= style.reveal_at:
        events.append(Reveal(twin))
    if hand.rules.player_double:
        seat = hand.landlord
        for _ in range(hand.players):
            assert seat is not None
            if _worth(hand, seat, rng, style) >= style.double_at:
                events.append(Double(seat))
            seat = hand.next_seat(seat)
    return events


def play_hand(rules: RuleSet | str = "classic", rng: random.Random | int = 0, first_bidder: int = 0,
              cards: int | None = None, style: BotStyle = DEFAULT_STYLE) -> Hand:
    """One hand bid and played out by bots (a redeal when everyone passes)."""
    rules = get_rules(rules)
    rng = rng if isinstance(rng, random.Random) else random.Random(rng)
    hand = deal(rules, rng, first_bidder, cards)
    clock = 0.0
    if rules.bidding == "marker":
        hand.apply(open_marker(hand, rng, time=0.0))
    while hand.phase == "bidding":
        assert hand.bidding is not None and hand.bidding.to_act is not None
        clock += rng.uniform(1, 5)
        bidder = hand.bidding.to_act
        action, value = choose_bid(hand, bidder, rng, style)
        hand.apply(Bid(bidder, action, value, time=round(clock, 1)))
    if hand.finished:
        return hand
    assert hand.kitty is not None and hand.landlord is not None and hand.known is not None  # dealt by deal()
    clock += 2
    hand.apply(Kitty(hand.kitty, time=round(clock, 1)))
    if rules.kitty_choice:
        clock += rng.uniform(2, 6)
        hand.apply(dataclasses.replace(pick_kitty(hand, hand.landlord), time=round(clock, 1)))
    for event in before_play(hand, rng, style):
        clock += rng.uniform(1, 3)
        hand.apply(dataclasses.replace(event, time=round(clock, 1)))
    while not hand.finished:
        seat = hand.turn
        assert seat is not None
        clock += rng.uniform(1, 9)
        play = choose_play(hand, seat, rng, style)
        if play is None and not hand.current:  # a lead must play something
            leads = legal_plays(hand.known[seat], None, hand.rules)
            play = next(p for p in sorted(leads, key=lambda p: p.main) if hand.check(Play(seat, p.cards)) is None)
        event = Pass(seat, time=round(clock, 1)) if play is None else Play(seat, play.cards, time=round(clock, 1))
        hand.apply(event)
    return hand


def rates(hands: Iterable[Hand]) -> dict[str, Any]:
    """Shares over played hands (redeals counted apart): bids, bombs, springs, winners."""
    n = redeals = bomb_hands = bombs = rockets = springs = anti = landlord_won = plays = 0
    bases: Counter = Counter()
    for hand in hands:
        if hand.redeal:
            redeals += 1
            continue
        n += 1
        result = hand.result()
        bomb_hands += bool(hand.bombs)
        bombs += sum(1 for p in hand.bombs if p.reading.type == "bomb")
        rockets += sum(1 for p in hand.bombs if p.reading.type == "rocket")
        springs += result.spring
        anti += result.anti_spring
        landlord_won += bool(result.landlord_won)
        plays += len(hand.plays)
        bases[hand.base] += 1
    share = (lambda k: round(k / n, 4)) if n else (lambda k: 0.0)
    return {"hands": n, "redeals": redeals, "redeal_share": round(redeals / max(1, n + redeals), 4),
            "hands_with_bomb_or_rocket": share(bomb_hands), "bombs_per_hand": share(bombs),
            "rockets_per_hand": share(rockets), "spring_share": share(springs), "anti_spring_share": share(anti),
            "landlord_win_share": share(landlord_won), "plays_per_hand": share(plays),
            "bid_shares": {str(b): share(c) for b, c in sorted(bases.items())}}
