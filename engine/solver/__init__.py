"""The perfect-information solver (明牌求解): with every hand visible, who wins?

Dou Dizhu with all hands known is a two-team game of perfect information: the landlord
against the farmers. Given every seat's cards, whose turn it is and the trick to beat, the
solver says whether the landlord's side wins with best play by everyone, exactly or, when
its time or node budget runs out first, that it does not know.

- :mod:`engine.solver.position`: ``Position`` (what is asked) and the rule sets it plays;
- :mod:`engine.solver.search`: the alpha-beta with its transposition table in pure Python
  (``Solver``, ``Verdict``), the reference;
- :mod:`engine.solver.compiled`: the same search in C (``engine/solver/_core.c``), about ten
  times the nodes a second, with a static win, a proof-number search beside the alpha-beta and a
  table of bounded memory, used wherever it is built (``make_solver``, ``solve``;
  ``core="python"`` asks for the reference);
- :mod:`engine.solver.brute`: an exhaustive minimax for small positions and random positions,
  the reference the search is checked against.

>>> p = Position.from_cards(["3 3 BJ", "4 4", "5"], landlord=0)
>>> v = solve(p, seconds=1)
>>> v.landlord_wins, v.exact
(True, True)
"""

from engine.solver.brute import brute_force, random_position
from engine.solver.compiled import CompiledSolver, make_solver, solve
from engine.solver.position import Position, UnsupportedRules, check_rules
from engine.solver.search import PASS, OutOfBudget, Solver, Verdict

__all__ = ["PASS", "CompiledSolver", "OutOfBudget", "Position", "Solver", "UnsupportedRules", "Verdict",
           "brute_force", "check_rules", "make_solver", "random_position", "solve"]
