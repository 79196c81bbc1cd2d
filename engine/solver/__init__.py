"""The perfect-information solver (明牌求解): with every hand visible, who wins?

Dou Dizhu with all hands known is a two-team game of perfect information: the landlord
against the farmers. Given every seat's cards, whose turn it is and the trick to beat, the
solver says whether the landlord's side wins with best play by everyone, exactly or, when
its time or node budget runs out first, that it does not know.

- :mod:`engine.solver.position`: ``Position`` (what is asked) and the rule sets it plays;
- :mod:`engine.solver.search`: the alpha-beta with its transposition table (``Solver``,
  ``solve``, ``Verdict``);
- :mod:`engine.solver.brute`: an exhaustive minimax for small positions and random positions,
  the reference the search is checked against.

>>> p = Position.from_cards(["3 3 BJ", "4 4", "5"], landlord=0)
>>> v = solve(p, seconds=1)
>>> v.landlord_wins, v.exact
(True, True)
"""

from engine.solver.brute import brute_force, random_position
from engine.solver.position import Position, UnsupportedRules, check_rules
from engine.solver.search import PASS, OutOfBudget, Solver, Verdict, solve

__all__ = ["PASS", "OutOfBudget", "Position", "Solver", "UnsupportedRules", "Verdict", "brute_force",
           "check_rules", "random_position", "solve"]
