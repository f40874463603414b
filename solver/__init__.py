"""ataxx-solver: exact values of Ataxx positions on small boards.

>>> from solver import parse_position, solve
>>> report = solve(parse_position("x...o"))
>>> report.board.stops
(-3, 3)
"""

__version__ = "0.1.0"

from .analysis import Analyzer, Evaluation, MoveInfo, outcome_class  # noqa: E402
from .board import Board  # noqa: E402
from .formats import (  # noqa: E402
    Entry, PositionFormatError, parse_fen, parse_position, read_file, read_positions,
    write_colon, write_fen, write_grid,
)
from .notation import game_name  # noqa: E402
from .rules import CLASSIC, CS61B, JUMP3, O, RULE_SETS, UAI, X, Move, Position, Rules, parse_rules  # noqa: E402


def solve(entry, engine: str = "auto", max_states: int | None = None, sides=None, orth_depth: int | None = None):
    """Solve an :class:`Entry` (or a :class:`Position`) and return its :class:`report.Report`."""
    from .engine import choose_oracle
    from .report import solve_entry

    if isinstance(entry, Position):
        entry = Entry(entry, (entry.turn,))
    analyzer = Analyzer(choose_oracle(entry.position, engine, max_states=max_states))
    if orth_depth is not None:
        analyzer.orth_depth = orth_depth
    return solve_entry(entry, analyzer, sides)


__all__ = [
    "Analyzer", "Board", "CLASSIC", "CS61B", "Entry", "Evaluation", "JUMP3", "Move", "MoveInfo", "O",
    "Position", "PositionFormatError", "RULE_SETS", "Rules", "UAI", "X", "game_name", "outcome_class",
    "parse_fen", "parse_position", "parse_rules", "read_file", "read_positions", "solve", "write_colon",
    "write_fen", "write_grid",
]
