"""ataxx-solver: exact values of Ataxx positions on small boards.

>>> from solver import Solver
>>> report = Solver().solve("x...o")
>>> report.board.stops, str(report.board.orthodox)
((-3, 3), '0')

The API (README.md, "Python API"): :class:`Solver` solves positions within :class:`Limits`
and returns a :class:`Report`; positions are :class:`Position` objects (:mod:`solver.game.rules`)
read by :func:`parse_position` and :func:`read_file` (:mod:`solver.io.formats`).
"""

__version__ = "0.1.0"

from solver.app.compile import compile_kernels
from solver.cgt.gamevalue import GameValue, NoValue, game_value, parse_cgsuite
from solver.common.limits import (
    LimitError,
    Limits,
    MemoryLimitError,
    StateLimitError,
    TimeLimitError,
)
from solver.game.board import Board
from solver.game.fen import PositionFormatError
from solver.game.notation import game_name
from solver.game.rules import (
    CLASSIC,
    CS61B,
    JUMP3,
    PASS,
    RULE_SETS,
    UAI,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    O,
    Position,
    Rules,
    Side,
    X,
    parse_rules,
)
from solver.io.formats import (
    Entry,
    parse_fen,
    parse_position,
    read_file,
    read_positions,
    write_colon,
    write_fen,
    write_grid,
)
from solver.oracles.oracle import Bounds, Oracle, Progress
from solver.solve.analysis import (
    Analyzer,
    Evaluation,
    Interval,
    MoveInfo,
    Summary,
    outcome_class,
)
from solver.solve.report import (
    BoardResult,
    Report,
    SideResult,
    report_json,
    report_text,
)
from solver.solve.solver import ALGORITHMS, ConflictError, Solver
from solver.tables.probe import MissingTableError, Tablebase


def solve(what: Entry | Position | str, algorithm: str = "auto", limits: Limits | None = None) -> Report:
    """``Solver(algorithm=algorithm, limits=limits).solve(what)``: one position, in one call."""
    return Solver(algorithm=algorithm, limits=limits).solve(what)


__all__ = [
    "ALGORITHMS", "Analyzer", "Board", "BoardResult", "Bounds", "CLASSIC", "CS61B", "ConflictError", "Entry", "Evaluation",
    "GameValue", "IllegalMoveError", "Interval", "InvalidMoveError", "JUMP3", "LimitError", "Limits", "MemoryLimitError",
    "MissingTableError", "Move", "MoveInfo", "NoValue", "O", "Oracle", "PASS", "Position", "PositionFormatError", "Progress",
    "RULE_SETS", "Report", "Rules", "Side", "SideResult", "Solver", "StateLimitError", "Summary", "Tablebase",
    "TimeLimitError", "UAI", "X", "compile_kernels", "game_name", "game_value", "outcome_class", "parse_cgsuite", "parse_fen", "parse_position", "parse_rules",
    "read_file", "read_positions", "report_json", "report_text", "solve", "write_colon", "write_fen", "write_grid",
]
