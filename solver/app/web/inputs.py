"""What a request may send, read and checked: positions, rules, moves, game texts.

Every reader here raises :class:`BadInput` with one line that says where (the parameter, and the
line within it) and why; the server answers it with status 400. Nothing read here names a file
or reaches a shell: texts are parsed in memory by :mod:`solver.io.formats` and :mod:`solver.io.pgn`.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.common.limits import SECONDS_TEXT
from solver.game.board import Board
from solver.game.rules import (
    RULE_SETS,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    O,
    Position,
    Rules,
    X,
    side_name,
)
from solver.io.formats import PositionFormatError, parse_position, printable, quote, write_fen
from solver.io.pgn import Game, looks_like_pgn, read_games

MAX_POSITION_CHARS = 4096     # a position's text (fen=, board=): a 64-square grid with frames fits many times
MAX_BODY_BYTES = 1 << 20      # a posted text (a PGN file, a position file)
MAX_MOVES = 1000              # moves= of one request
MAX_GAMES = 200               # games of a posted PGN the page is given


class BadInput(ValueError):
    """A request that cannot be answered: ``str(exc)`` is one line, ``where: why``."""

    def __init__(self, where: str, why: str):
        super().__init__(printable(f"{where}: {why}"))


def one_param(params: dict[str, list[str]], name: str) -> str | None:
    """The value of a query parameter given at most once (BadInput when given twice)."""
    values = params.get(name, [])
    if len(values) > 1:
        raise BadInput(name, f"given {len(values)} times; give it once")
    return values[0] if values else None


def read_rules(text: str | None, default: Rules) -> Rules:
    if text is None or text == "":
        return default
    rules = RULE_SETS.get(text.strip().lower())
    if rules is None:
        raise BadInput("rules", f"unknown rule set {quote(text)} (known: {', '.join(sorted(RULE_SETS))})")
    return rules


def read_seconds(text: str | None, most: float) -> float | None:
    """A request's own time budget (``seconds=``), more than 0 and at most ``most`` (the server's
    ``--max-seconds``); None when not given."""
    if text is None or text == "":
        return None
    t = text.strip()
    if not SECONDS_TEXT.fullmatch(t) or not 0 < float(t) <= most:
        raise BadInput("seconds", f"must be a number of seconds more than 0 and at most {most:g} (the server's "
                                  f"--max-seconds), not {quote(text[:20])}")
    return float(t)


def read_turn(text: str | None) -> str | None:
    if text is None or text == "":
        return None
    t = text.strip().lower()
    if t not in ("x", "o"):
        raise BadInput("turn", f"must be x or o, not {quote(text)}")
    return t


def _check_length(name: str, text: str, limit: int = MAX_POSITION_CHARS) -> None:
    if len(text) > limit:
        raise BadInput(name, f"{len(text):,} characters; at most {limit:,}")
    if "\0" in text:
        raise BadInput(name, "holds a NUL character")


def read_position(fen: str | None, board: str | None, rules: Rules, turn: str | None = None) -> Position:
    """The position of ``fen=`` (a FEN line, or ``startpos``) or ``board=`` (any format the solver
    reads: FEN, grid, colon grid, CS 61B dump), with the
    side to move ``turn`` when given (a board without a side to move: X). A ``rules:`` header in
    the text wins over ``rules``, as in a position file."""
    if (fen is None) == (board is None):
        raise BadInput("fen", "give a position: fen=FEN or board=TEXT (one of the two)")
    name, text = ("fen", fen) if fen is not None else ("board", board)
    assert text is not None
    _check_length(name, text)
    if not text.strip():
        raise BadInput(name, "empty")
    try:
        entry = parse_position(text, "fen" if name == "fen" else "auto", rules, source=name)
    except PositionFormatError as exc:
        raise BadInput(exc.source if exc.line is None else f"{exc.source}:{exc.line}", exc.message) from None
    p = entry.position
    if turn is not None:
        p = p.replace(turn=X if turn == "x" else O)
    elif len(entry.sides) == 1:
        p = p.replace(turn=entry.sides[0])
    return p


def read_moves(p: Position, text: str | None, name: str = "moves") -> tuple[Position, list[Move]]:
    """``p`` after the moves of ``text`` (names separated by spaces or commas), and the moves."""
    if text is None or not text.strip():
        return p, []
    _check_length(name, text, 20 * MAX_MOVES)
    words = text.replace(",", " ").split()
    if len(words) > MAX_MOVES:
        raise BadInput(name, f"{len(words):,} moves; at most {MAX_MOVES:,}")
    played = []
    for k, word in enumerate(words, 1):
        if p.is_over():
            raise BadInput(name, f"move {k} ({quote(word)}) comes after the end of the game")
        try:
            move = p.parse_move(word)
        except (InvalidMoveError, IllegalMoveError) as exc:
            raise BadInput(name, f"move {k}: {exc}") from None
        played.append(move)
        p = p.push(move)
    return p, played


def read_body(data: bytes, name: str = "body") -> str:
    """A posted text: UTF-8 (a byte-order mark dropped), no NUL, at most :data:`MAX_BODY_BYTES`."""
    if len(data) > MAX_BODY_BYTES:
        raise BadInput(name, f"{len(data):,} bytes; at most {MAX_BODY_BYTES:,}")
    if b"\0" in data:
        raise BadInput(name, "binary data (a NUL byte), not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise BadInput(f"{name}:{line}", "not UTF-8 text") from None
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise BadInput(name, "empty: give a PGN game or a position")
    return text


@dataclass
class LoadedGame:
    """A game to step through: its start, moves and every position along it."""

    number: int
    label: str
    headers: dict[str, str]
    positions: list[Position]
    moves: list[str]
    result: str | None


def read_games_text(text: str, rules: Rules, name: str = "body") -> tuple[list[LoadedGame], list[str]]:
    """The games of a PGN text (or of a position file's game record, ``moves:``), and one line per
    game that could not be read. BadInput when no game can be read."""
    games: list[LoadedGame] = []
    errors: list[str] = []
    if looks_like_pgn(text):
        for g in read_games(text, name, rules):
            if isinstance(g, PositionFormatError):
                errors.append(printable(str(g)))
            elif isinstance(g, Game):
                games.append(LoadedGame(g.number, g.label, dict(g.headers), list(g.positions), list(g.moves),
                                        g.result or g.headers.get("Result")))
    else:
        try:
            entry = parse_position(text, "auto", rules, source=name)
        except PositionFormatError as exc:
            raise BadInput(exc.source if exc.line is None else f"{exc.source}:{exc.line}", exc.message) from None
        p = entry.position.replace(turn=entry.sides[0])
        positions, names = [p], []
        for k, word in enumerate(entry.moves or [], 1):
            if p.is_over():
                raise BadInput(f"{name}:{entry.moves_line}", f"move {k} ({quote(word)}) comes after the end of the game")
            try:
                move = p.parse_move(word)
            except (InvalidMoveError, IllegalMoveError) as exc:
                raise BadInput(f"{name}:{entry.moves_line}", f"game record, move {k}: {exc}") from None
            names.append(p.move_name(move))
            p = p.push(move)
            positions.append(p)
        games.append(LoadedGame(1, entry.name or "the game", {}, positions, names, None))
    if not games:
        raise BadInput(name, errors[0] if errors else "no game found")
    return games[:MAX_GAMES], errors


def new_board(rows_text: str | None, cols_text: str | None, blocks_text: str | None, start: str | None,
              rules: Rules, turn: str | None) -> Position:
    """A new board for the picker: ``rows`` x ``cols`` (at most 64 squares), blocks on the squares
    named in ``blocks`` (``c3 d4``), and ``start``: ``corners`` (the standard start, SPEC section 1,
    the default) or ``empty`` (no piece: to be set up, or to solve nothing)."""
    def size(name: str, text: str | None) -> int:
        if text is None or not text.strip().isdigit() or len(text.strip()) > 2:
            raise BadInput(name, f"must be a whole number from 1 to 64, not {quote(text or '')}")
        return int(text)

    rows, cols = size("rows", rows_text), size("cols", cols_text)
    try:
        board = Board(rows, cols)
    except ValueError as exc:
        raise BadInput("rows", str(exc)) from None
    blocks = 0
    for word in (blocks_text or "").replace(",", " ").split()[: rows * cols + 1]:
        try:
            blocks |= 1 << board.parse_square(word)
        except ValueError as exc:
            raise BadInput("blocks", str(exc)) from None
    try:
        board = Board(rows, cols, blocks)
        kind = (start or "corners").strip().lower()
        if kind == "corners":
            x, o = Board(rows, cols).start_squares()
            if (x | o) & blocks:
                raise BadInput("blocks", "a block stands on a start square (a corner)")
        elif kind == "empty":
            x = o = 0
        else:
            raise BadInput("start", f"must be corners or empty, not {quote(start or '')}")
        side = X if (turn or "x") == "x" else O
        return Position(board, x, o, side, 0, rules)
    except ValueError as exc:
        if isinstance(exc, BadInput):
            raise
        raise BadInput("rows", str(exc)) from None


def describe_position(p: Position) -> dict:
    """The facts the page draws a position from (no solving): its FEN, squares, side to move,
    legal moves and result."""
    board = p.board
    cells = []
    for r in range(board.rows - 1, -1, -1):  # the top row first, as a grid is written
        row = []
        for f in range(board.cols):
            sq = board.square(f, r)
            piece = p.piece_at(sq)
            row.append("#" if board.is_block(sq) else "." if piece is None else piece.value)
        cells.append("".join(row))
    result = p.result()
    name = board.square_name
    return {
        "fen": write_fen(p), "rules": p.rules.name, "rows": board.rows, "cols": board.cols, "grid": cells,
        "turn": p.turn.value, "turn_name": side_name(p.turn), "counter": p.counter, "over": result is not None,
        "result": result, "material": {"x": p.x.bit_count(), "o": p.o.bit_count()},
        "moves": [{"uci": p.move_name(m), "from": None if m.frm < 0 else name(m.frm),
                   "to": None if m.is_pass else name(m.to), "kind": "pass" if m.is_pass else "clone" if m.is_clone else "jump"}
                  for m in p.legal_moves()] if result is None else [],
    }
