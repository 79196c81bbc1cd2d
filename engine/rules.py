"""Rule sets: one ``RuleSet`` of named options, each preset a few differences from ``classic``.

Clubs disagree on details (docs/rules.md: "where the documents disagree, the disagreement is a
rule option"), so every disagreement is a field here with the classic default, and a preset
is a small declarative override, the way python-chess variants override a base board.

>>> get_rules("four").decks, get_rules("four").bomb_max
(2, 8)
>>> get_rules("classic").replace(trio_single=False).trio_single
False
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

BIDDING_STYLES = ("score", "grab", "auction", "call", "marker")
SCORING_FORMATS = ("points", "qq", "chips", "fixed")


@dataclass(frozen=True)
class RuleSet:
    name: str = "classic"
    description: str = "Classic three-player game / 经典三人斗地主"

    # --- table -----------------------------------------------------------------------
    players: int = 3
    decks: int = 1
    hand_size: int = 17
    kitty_size: int = 3
    kitty_shown: bool = True  # the kitty is turned face up for everyone (三人: yes; 四人: no)
    kitty_choice: bool = False  # 斗帝主: the kitty is shown to the landlord, who takes any of it (KittyPick)
    out_of_play: int = 0  # cards dealt face down and never used (two-player: 11)
    seat_order: str = "ccw"  # play goes counter-clockwise (逆时针); "cw" for clubs that differ

    # --- bidding (叫分 / 叫地主抢地主) --------------------------------------------------
    bidding: str = "score"  # score: 1/2/3 once each; grab: call and grab; auction; call (two-player);
    # marker (five-player): no bids, the holder of a face-up marker card is the landlord at base 1
    max_bid: int = 3
    all_pass: str = "redeal"  # or "first_bidder": the first bidder becomes landlord at 1
    third_must_bid_two: bool = False  # after two passes the third must bid at least 2
    redeal_penalty: bool = False  # three redeals in a row: dealer -4, others +2
    redeals_dissolve: int = 0  # after this many redeals in a row the game is dissolved (0: never)
    first_bidder: str = "rotate"  # later hands: "rotate" in play order, or "previous_landlord"

    # --- combinations (牌型) ----------------------------------------------------------
    trio_single: bool = True  # 三带一
    trio_pair: bool = True  # 三带二
    four_two: bool = True  # 四带二 (singles and pairs)
    straight_min: int = 5
    pair_chain_min: int = 3
    trio_chain_min: int = 2
    chain_high: int = 11  # highest rank value in a chain: A (2 and jokers never chain)
    low_straights: bool = False  # A2345 and 23456 (four-player option)
    joker_pairs: bool = False  # two identical jokers form a pair (two decks)
    rocket_jokers: int = 2  # BJ+RJ; the four-player game needs all four jokers (天尊)
    bomb_min: int = 4
    bomb_max: int = 4  # two decks: bombs of 4 to 8 cards
    bomb_size_first: bool = False  # more cards beat fewer regardless of rank
    #: The bombs below the rocket, weakest first, when jokers sit among them (five-player:
    #: ``4 JJ 5 6 JJJ 7 8``): a digit is a bomb of that many cards of a rank, ``JJ`` two identical
    #: jokers (双王), ``JJJ`` any three jokers (三王). Equal steps compare by rank. Empty: the
    #: order is ``bomb_size_first`` / rank, and jokers make no bomb but the rocket.
    bomb_ladder: str = ""
    #: The 斗帝主 quad family: quad 四同张, quad chain 连四, quad + trio 四带三, carrier 航母,
    #: dress 连衣裙, spaceship 飞船 (engine.quad_kinds).
    quads: bool = False
    quad_chain_min: int = 2

    # --- kicker options (带牌) ----------------------------------------------------------
    airplane_kicker_repeat: bool = True  # 333444+55: single kickers may share a rank
    airplane_kicker_trio: bool = True  # 555666777+QQQ: single kickers may be three of a rank
    kicker_four_of_rank: bool = False  # kickers may hold all four of a rank
    kicker_rocket: bool = False  # single kickers may be BJ and RJ together
    kicker_core_rank: bool = False  # a kicker may be the 4th card of a core rank (3334444+5)
    four_two_single_pair: bool = True  # four with two singles may take a pair (3333+55)
    four_two_pair_same: bool = False  # four with two pairs may use one rank as both (33334444)

    # --- scoring -----------------------------------------------------------------------
    scoring: str = "points"  # points | qq | chips | fixed (docs/rules.md section 3)
    double_min_bomb: int = 4  # bombs of at least this many cards double the multiplier
    rocket_doubles: bool = True
    spring: bool = True  # 春天 and 反春 double
    grab_doubles: bool = True  # each grab (抢地主) doubles
    open_hand_multiplier: int = 2  # 明牌
    whitewash: bool = False  # five-player: x2 when the losing side played no card (instead of 春天/反春)
    #: five-player: the holder of the marker card's twin is the hidden landlord (暗地主).
    hidden_landlord: bool = False
    reveal_multiplier: int = 2  # the hidden landlord shown by choice (亮出身份) before play
    player_double: bool = False  # each player may double once before play (加倍), x2 each
    escape_multiplier: int = 3  # 逃跑: base x mult x 3
    escape_before_bid: int = 3
    bomb_quota: bool = False  # four-player option: farmers who did not bid may play one bomb
    announce_at: int = 2  # a player left with this many cards or fewer must announce

    # --- match formats -----------------------------------------------------------------
    winners_only: bool = False  # QQ: winners gain, losers lose nothing
    target_points: int = 0  # QQ: first to 20 advances (0: no target)
    time_limit_min: int = 0  # timed sittings: 90 or 45 (0: untimed)
    chips_start: int = 20
    chips_base: int = 2
    fixed_win: int = 3  # fixed-score: landlord +3 / farmers -1 each
    fixed_loss: int = 1
    hands_per_round: int = 0  # fixed-score rounds of 6 hands

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with some options changed; unknown option names raise ``ValueError``."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise ValueError(f"unknown rule option(s): {', '.join(sorted(unknown))}")
        return dataclasses.replace(self, **changes)

    def differences(self) -> dict[str, object]:
        """Options that differ from ``classic`` (what makes this preset itself)."""
        base = RuleSet()
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in ("name", "description") and getattr(self, f.name) != getattr(base, f.name)
        }

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> RuleSet:
        return cls().replace(**data)

    @property
    def deck_size(self) -> int:
        return 54 * self.decks

    def __post_init__(self) -> None:
        steps = ladder_steps(self.bomb_ladder)  # a misspelt ladder fails here, not mid-hand
        missing = [n for n in range(self.bomb_min, self.bomb_max + 1) if steps and str(n) not in steps]
        if missing:
            raise ValueError(f"{self.name}: bomb ladder {self.bomb_ladder!r} lacks bombs of {missing} cards")
        if self.bidding not in BIDDING_STYLES:
            raise ValueError(f"bidding must be one of {BIDDING_STYLES}, not {self.bidding!r}")
        if self.scoring not in SCORING_FORMATS:
            raise ValueError(f"scoring must be one of {SCORING_FORMATS}, not {self.scoring!r}")
        dealt = self.players * self.hand_size + self.kitty_size + self.out_of_play
        if dealt != self.deck_size:
            raise ValueError(f"{self.name}: deal of {dealt} cards does not use the {self.deck_size}-card deck")


@functools.lru_cache(maxsize=16)
def ladder_steps(ladder: str) -> dict[str, int]:
    """Each step of a bomb ladder and its place, weakest 0: ``{"4": 0, "JJ": 1, "5": 2, ...}``.

    >>> ladder_steps("4 JJ 5 6 JJJ 7 8")["JJJ"]
    4
    """
    steps = ladder.split()
    for step in steps:
        if step not in ("JJ", "JJJ") and not (step.isdigit() and 4 <= int(step) <= 8):
            raise ValueError(f"bomb ladder step {step!r}: a bomb size 4..8, JJ or JJJ")
    if len(set(steps)) != len(steps):
        raise ValueError(f"bomb ladder {ladder!r} names a step twice")
    return {step: i for i, step in enumerate(steps)}


CLASSIC = RuleSet()

_PRESETS: dict[str, RuleSet] = {
    "classic": CLASSIC,
    # QQ rules tournament [000 part 5]: winners gain only, first to 20 advances.
    "qq": CLASSIC.replace(
        name="qq", description="QQ tournament: winners gain only, first to 20 / QQ 比赛规则",
        scoring="qq", winners_only=True, target_points=20,
    ),
    # Chips [004]: 20 chips each, 2 a hand, doubled per bomb, uncapped.
    "chips": CLASSIC.replace(
        name="chips", description="Chips: 20 each, base 2 / 筹码赛", scoring="chips", chips_start=20, chips_base=2,
    ),
    # Fixed score [001]: +3/-1, open hand x2, rounds of 6 hands.
    "fixed": CLASSIC.replace(
        name="fixed", description="Fixed score +3/-1, open hand x2 / 定分赛", scoring="fixed", hands_per_round=6,
    ),
    # Call and grab [001]: each grab doubles.
    "grab": CLASSIC.replace(name="grab", description="Call and grab / 叫地主抢地主", bidding="grab", max_bid=1),
    # Hu Ronghua four-player rules [002, 003].
    "four": CLASSIC.replace(
        name="four", description="Four players, two decks (Hu Ronghua) / 四人斗地主",
        players=4, decks=2, hand_size=25, kitty_size=8, kitty_shown=False,
        trio_single=False, four_two=False, joker_pairs=True, rocket_jokers=4,
        bomb_max=8, bomb_size_first=True, double_min_bomb=6, redeals_dissolve=3,
    ),
    # Two players [003, 004]: 20 each, 3 kitty, 11 face down out of play.
    "two": CLASSIC.replace(
        name="two", description="Two players / 二人斗地主", players=2, hand_size=20, out_of_play=11, bidding="call",
    ),
    # Five players [003]: two decks, 21 each, 3 unshown kitty; open and hidden landlord by the
    # marker card; bombs 4-8 with two and three jokers among them; 5+ bombs, three and four
    # jokers double; a whitewash doubles; each player may double once.
    "five": CLASSIC.replace(
        name="five", description="Five players, open and hidden landlord / 五人斗地主",
        players=5, decks=2, hand_size=21, kitty_size=3, kitty_shown=False, bidding="marker",
        trio_single=False, four_two=False, rocket_jokers=4, bomb_max=8, bomb_ladder="4 JJ 5 6 JJJ 7 8",
        double_min_bomb=5, whitewash=True, hidden_landlord=True, player_double=True,
    ),
    # 斗帝主 [003]: three players, two decks, 34 each, 6 kitty shown to the landlord (帝主) who
    # takes any of it; the quad family; bombs are 5+ cards (more cards, then rank), four jokers top.
    # Bidding and scoring: the seed is silent, so classic (叫分 1-3, every bomb and the rocket x2).
    "dizhu": CLASSIC.replace(
        name="dizhu", description="Di Zhu, two decks, 34 each / 斗帝主",
        decks=2, hand_size=34, kitty_size=6, kitty_shown=False, kitty_choice=True,
        trio_single=False, four_two=False, pair_chain_min=4, trio_chain_min=3, joker_pairs=True,
        rocket_jokers=4, bomb_min=5, bomb_max=8, bomb_size_first=True, quads=True, quad_chain_min=2,
        double_min_bomb=5,
    ),
}
PRESETS = MappingProxyType(_PRESETS)


def get_rules(name: str | RuleSet) -> RuleSet:
    """A preset by name (or a ``RuleSet`` passed through). Unknown names raise ``ValueError``."""
    if isinstance(name, RuleSet):
        return name
    try:
        return PRESETS[name.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"unknown rules preset {name!r}; choose one of {', '.join(PRESETS)}") from None
