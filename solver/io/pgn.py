"""Ataxx games in PGN: a game tree with comments, NAGs and variations, read and written by visitors.

The PGN of Ataxx programs (libataxx's writer, python-ataxx's, cuteataxx's match files) is chess's
PGN with Ataxx moves:

- **Tag pairs** ``[Key "value"]`` (``\\"`` and ``\\\\`` escaped in the value), one a line, before
  the moves. ``[FEN "..."]`` gives the start position (read by :mod:`solver.game.fen`, so
  libataxx's ``b``/``w`` and the project's ``x``/``o`` are both read); without it the game
  starts from the standard 7 x 7 start. Every tag is kept in :attr:`Game.headers`, in order. In
  libataxx's PGN (and python-ataxx's and cuteataxx's) the first mover, ``x``, is **Black**, and
  ``o`` is White; the players' names are read from ``Black`` and ``White`` in any letter case
  (cuteataxx writes ``[black "..."]`` by default).
- **Moves**: clones (``b2``), jumps (``a1c3``), passes (``0000``, or ``--``, ``@@@@``, ``pass``,
  ``null``, ``-``). A move may carry a suffix annotation (``b2!``, ``a1c3??``, ``!?``, ``?!``):
  it is read as the NAG it stands for (``!`` is ``$1``, ``?`` ``$2``, ``!!`` ``$3``, ``??``
  ``$4``, ``!?`` ``$5``, ``?!`` ``$6``).
- **Move numbers** (``12.``, ``12...``, also glued to the move: ``12.b2``): the side to move comes
  from the position, not from the numbers; each move keeps the number written before it
  (:attr:`GameNode.number_text`) so that a game is written back as it was read.
- **Comments** in braces (over several lines) and from ``;`` to the end of the line: kept, on the
  move they follow (:attr:`GameNode.comments`), on the first move of a variation when they open
  it (:attr:`GameNode.starting_comments`), or on the game when they come before its first move.
  A line that starts with ``%`` is skipped (PGN's escape).
- **Variations** in parentheses, nested: kept as the other children of a node
  (:attr:`GameNode.variations`; the first child is the main continuation). Their moves are
  played where they are legal; from a move that cannot be played (``(2. zz9)``) the rest of the
  variation is kept as written, unplayed (:attr:`GameNode.position` None), and is no error.
- **NAGs** (``$2``, 0 to 255): kept on the move they follow (:attr:`GameNode.nags`).
- **The result** (``1-0``, ``0-1``, ``1/2-1/2``, ``*``) ends the game. A new tag line after moves
  starts a new game too; a file holds any number of games. CRLF line ends and a byte-order mark
  are read.

Every move of the main line is played by the rules given (:meth:`solver.game.rules.Position.parse_move`):
an illegal or unreadable move, an unclosed comment or variation, a bad tag or a bad FEN is one
:class:`~solver.game.fen.PositionFormatError` that names the file, the line, the game (its number and
its players) and, for a move, its number and text. A game with neither a tag nor a move (``*``
alone, or text that holds no move) is such an error too: it is not read as the 7 x 7 start. A game
with an error is refused whole; the other games of the file are read.

Reading and writing follow python-chess's ``pgn.py``: :func:`visit_text` scans a text once and
calls a :class:`Visitor` for each piece (a tag, a move, a comment, a NAG, a variation's start and
end, the result); :class:`GameBuilder` is the visitor that builds :class:`Game` trees, and
:class:`PgnWriter` the one that writes PGN. :meth:`Game.accept` walks a tree and calls a visitor the
same way, so ``write_game(game)`` gives back the text read, modulo whitespace (and modulo the
spelling of suffix annotations and ``;`` comments, written as ``$1`` and in braces).

Reading takes time linear in the input: the text is scanned once, each character looked at a
bounded number of times (a comment's characters twice: to find its end, then to count its lines),
and the only regular expressions are single character classes with possessive repeats, which
cannot backtrack. Every step charges :func:`solver.common.work.scanned` with the characters it
looked at, so that the tests bound the work by counting. Trees are walked with explicit stacks, so
a deep nesting of variations costs no recursion.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from solver.common.work import scanned
from solver.game.fen import (
    MAX_GAME_MOVES,
    STARTPOS,
    PositionFormatError,
    first_line,
    parse_whole,
    quote,
)
from solver.game.rules import (
    CLASSIC,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Position,
    Rules,
    X,
)

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
PASS_SPELLINGS = ("0000", "--", "@@@@", "pass", "null", "-")
# Suffix annotations and the NAGs they stand for (PGN standard, section 10).
GLYPHS = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}
MAX_NAG = 255
WIDTH = 79  # PGN's export format keeps lines under 80 characters

_SPACE = re.compile(r"[^\S\n]++")           # white space within a line
_WORD = re.compile(r"[^\s{}();]++")         # a move, a number, a NAG, a result: up to a delimiter
_DIGITS = re.compile(r"[0-9]++")
_DOTS = re.compile(r"\.++")
_TAG_KEY = re.compile(r"[A-Za-z0-9_+#=:.-]++")
_TAG_CHUNK = re.compile(r'[^"\\\n]++')


# -- the tree ---------------------------------------------------------------------------------------

class GameNode:
    """A position of a game and the move that reached it (python-chess's ``GameNode``).

    ``move`` is the move's text as :meth:`Position.move_name` writes it (or as written in the input,
    for a move of a variation that could not be played), None at the root. ``position`` is the
    position after the move, None when it could not be played. ``variations[0]`` is the main
    continuation, the others are alternatives to it. ``number_text`` is the move number written
    before the move in the input (``"12."``, ``"12..."``; ``""`` when none was), None for a node
    made by code: the writer then numbers the move as PGN's export format does.
    """

    __slots__ = ("parent", "move", "position", "line", "number_text", "nags", "comments", "starting_comments",
                 "variations")

    def __init__(self, parent: GameNode | None, move: str | None, position: Position | None, line: int = 0,
                 number_text: str | None = None):
        self.parent = parent
        self.move = move
        self.position = position
        self.line = line
        self.number_text = number_text
        self.nags: list[int] = []
        self.comments: list[str] = []
        self.starting_comments: list[str] = []
        self.variations: list[GameNode] = []

    def add_variation(self, move: str | None, position: Position | None, line: int = 0,
                      number_text: str | None = None) -> GameNode:
        """A new child (the main continuation when it is the first)."""
        node = GameNode(self, move, position, line, number_text)
        self.variations.append(node)
        return node

    def add_move(self, move: Move) -> GameNode:
        """The child that plays ``move`` from this node's position (which must be known)."""
        if self.position is None:
            raise ValueError("a move cannot be played after a move that was not played")
        return self.add_variation(self.position.move_name(move), self.position.push(move))

    @property
    def is_main_variation(self) -> bool:
        """True for the root and for a first child."""
        return self.parent is None or self.parent.variations[0] is self

    def mainline(self) -> Iterator[GameNode]:
        """The nodes after this one along the main continuation."""
        node = self
        while node.variations:
            node = node.variations[0]
            yield node

    def __repr__(self) -> str:
        return f"<GameNode {self.move or '(root)'} line {self.line}, {len(self.variations)} children>"


class Game(GameNode):
    """One game of a PGN file: its tags, its tree, and its main line as lists.

    The game is the root node: ``position`` is the start. ``positions[k]`` is the position after
    ``k`` plies of the main line, ``moves[k]`` the move played from it and ``move_lines[k]`` its
    line in the input. Each of these walks the main line: take it once before a loop.
    """

    __slots__ = ("number", "headers", "result")

    def __init__(self, number: int = 1, headers: dict[str, str] | None = None, start: Position | None = None,
                 line: int = 1, result: str | None = None):
        super().__init__(None, None, start, line)
        self.number = number                 # 1 for the first game of the file
        self.headers = dict(headers or {})
        self.result = result                 # the result token that ended the movetext, if any

    @property
    def start(self) -> Position:
        assert self.position is not None, "a game read or built has a start position"
        return self.position

    @property
    def positions(self) -> list[Position]:
        out = [self.start]
        for node in self.mainline():
            assert node.position is not None, "the main line is played"
            out.append(node.position)
        return out

    @property
    def moves(self) -> list[str]:
        return [node.move for node in self.mainline() if node.move is not None]

    @property
    def move_lines(self) -> list[int]:
        return [node.line for node in self.mainline()]

    @property
    def final(self) -> Position:
        node: GameNode = self
        for node in self.mainline():
            pass
        assert node.position is not None
        return node.position

    @property
    def plies(self) -> int:
        return sum(1 for _ in self.mainline())

    @property
    def label(self) -> str:
        """``game 3 (Alice vs Bob)``: the number and the players (Black, the first mover, first)."""
        return game_label(self.number, self.headers)

    def player(self, ply: int) -> str | None:
        """The name the tags give the player who moves after ``ply`` plies (Black is X, White O)."""
        return player_name(self.headers, self.positions[ply])

    def accept(self, visitor: Visitor, extra: Callable[[GameNode], tuple[list[int], list[str]]] | None = None
               ) -> object:
        """Walk the game and call ``visitor`` for each piece in the order of PGN's text; return what
        its ``end_game`` returns. ``extra(node)`` gives NAGs and comments to add after a node's own
        (what ``verify --annotate`` adds), without changing the tree."""
        visitor.begin_game(self.line)
        for key, value in self.headers.items():
            visitor.visit_header(key, value, self.line)
        visitor.end_headers(self.line)
        commented = _visit_annotations(visitor, self, extra)  # (a comment added before a move: it is numbered)
        stack: list[tuple[str, GameNode]] = [("line", self)]
        while stack:
            kind, node = stack.pop()
            if kind == "line":
                if not node.variations:
                    continue
                main = node.variations[0]
                todo = [("node", main)]
                for alt in node.variations[1:]:
                    todo += [("open", alt), ("node", alt), ("line", alt), ("close", alt)]
                todo.append(("line", main))
                stack.extend(reversed(todo))
            elif kind == "node":
                for text in node.starting_comments:
                    visitor.visit_comment(text, node.line)
                assert node.move is not None
                number = None if commented and not node.number_text else node.number_text
                visitor.visit_move(node.move, number, node.line, node.parent.position if node.parent else None)
                commented = _visit_annotations(visitor, node, extra)
            elif kind == "open":
                commented = False
                visitor.begin_variation(node.line)
            else:
                commented = False
                visitor.end_variation(node.line)
        visitor.visit_result(self.result or tag(self.headers, "Result") or "*", self.line)
        return visitor.end_game()


def _visit_annotations(visitor: Visitor, node: GameNode,
                       extra: Callable[[GameNode], tuple[list[int], list[str]]] | None) -> bool:
    """Visit a node's NAGs and comments, and those ``extra`` adds; return whether it added a comment."""
    nags, comments = extra(node) if extra is not None else ([], [])
    for nag in node.nags + [n for n in nags if n not in node.nags]:
        visitor.visit_nag(nag, node.line)
    for text in node.comments + comments:
        visitor.visit_comment(text, node.line)
    return bool(comments)


def tag(headers: dict[str, str], name: str) -> str | None:
    """The value of tag ``name``, or of the same name in other letter case (cuteataxx writes
    ``[black "..."]`` and ``[white "..."]`` unless its settings give ``colour1``/``colour2``)."""
    if name in headers:
        return headers[name]
    folded = name.casefold()
    return next((v for k, v in headers.items() if k.casefold() == folded), None)


def player_name(headers: dict[str, str], p: Position) -> str | None:
    """The name the tags give the player to move in ``p`` (Black is X, White O), None without one."""
    name = tag(headers, "Black" if p.turn == X else "White")
    return name if name and name != "?" else None


def game_label(number: int, headers: dict[str, str]) -> str:
    black, white = tag(headers, "Black") or "?", tag(headers, "White") or "?"
    if black == "?" and white == "?":
        return f"game {number}"
    return f"game {number} ({black} vs {white})"


def move_number(p: Position) -> str:
    """``12.`` for X (Black) to move, ``12...`` for O: the number of the move played from ``p``."""
    return f"{p.fullmove}." if p.turn == X else f"{p.fullmove}..."


def looks_like_pgn(text: str) -> bool:
    """True when the first line that is not blank (nor a ``%`` escape line) starts with a tag
    (``[``): how a PGN file is told from a position file. Looks at no line past that one."""
    line = first_line(text, lambda t: not t.strip() or t.startswith("%"))
    return line is not None and line.lstrip().startswith("[")


# -- visitors -------------------------------------------------------------------------------------------

class Visitor:
    """What the reader (:func:`visit_text`) and :meth:`Game.accept` call, in the order of PGN's text:
    ``begin_game``, ``visit_header`` for each tag, ``end_headers``, then the movetext's
    ``visit_move``, ``visit_comment``, ``visit_nag``, ``begin_variation``/``end_variation``,
    ``visit_result``, and ``end_game``, whose value is the game's. The reader also calls
    ``visit_error`` for what is not PGN (the message without the game's label), and ``visit_move``
    with the number written before the move (``""`` for none) and no position; ``accept`` gives
    the position before the move. Every method does nothing by default."""

    def begin_game(self, line: int) -> None:
        pass

    def visit_header(self, key: str, value: str, line: int) -> None:
        pass

    def end_headers(self, line: int) -> None:
        pass

    def visit_move(self, text: str, number: str | None, line: int, before: Position | None = None) -> None:
        pass

    def visit_comment(self, text: str, line: int) -> None:
        pass

    def visit_nag(self, nag: int, line: int) -> None:
        pass

    def begin_variation(self, line: int) -> None:
        pass

    def end_variation(self, line: int) -> None:
        pass

    def visit_result(self, result: str, line: int) -> None:
        pass

    def visit_error(self, message: str, line: int) -> None:
        pass

    def end_game(self) -> object:
        return None


def _unescape(value: str) -> str:
    return value.replace('\\"', '"').replace("\\\\", "\\")


def _tag_line(text: str, i: int, end: int) -> tuple[str, str] | None:
    """(key, value) of the tag line ``text[i:end]`` (``text[i]`` is ``[``), else None."""
    def spaces(j: int) -> int:
        m = _SPACE.match(text, j, end)
        return m.end() if m else j

    j = spaces(i + 1)
    m = _TAG_KEY.match(text, j, end)
    if m is None:
        return None
    key = m.group()
    j = spaces(m.end())
    if j >= end or text[j] != '"':
        return None
    j += 1
    start = j
    while True:
        m = _TAG_CHUNK.match(text, j, end)
        if m is not None:
            j = m.end()
        if j >= end:
            return None
        if text[j] == '"':
            break
        if j + 1 >= end:  # a backslash at the end of the line
            return None
        j += 2  # an escape, undone by _unescape
    value = text[start:j]
    j = spaces(j + 1)
    if j >= end or text[j] != "]":
        return None
    if spaces(j + 1) != end:
        return None
    return key, _unescape(value)


def visit_text(text: str, visitor_for: Callable[[], Visitor]) -> Iterator[object]:
    """Scan a PGN text once, calling a fresh visitor (``visitor_for()``) for each game, and yield
    what each one's ``end_game`` returns, in order.

    Game boundaries: a tag line after a game's moves (or its result) starts a new game, and a
    result token outside a variation ends one. Comments before a game's first tag or move go
    to that game (as comments before its first move); comments after the last game are dropped."""
    if text.startswith("\ufeff"):
        text = text[1:]
    n = len(text)
    i = 0
    line = 1
    at_line_start = True
    visitor: Visitor | None = None
    movetext = False          # a move, number, NAG, variation or result seen in this game
    ended = False             # this game's result seen
    depth = 0                 # open variations
    depth_line = 0            # the line of the outermost open variation
    number = ""               # the move number written before the next move
    pending: list[tuple[str, int]] = []  # comments before the game's first tag or move

    def begin(at: int) -> Visitor:
        nonlocal visitor, movetext, ended, depth, number
        visitor = visitor_for()
        visitor.begin_game(at)
        movetext, ended, depth, number = False, False, 0, ""
        for comment, where in pending:
            visitor.visit_comment(comment, where)
        pending.clear()
        return visitor

    def finish() -> object:
        nonlocal visitor
        assert visitor is not None
        if depth:
            visitor.visit_error("a variation '(' is never closed", depth_line)
        if not movetext:
            visitor.end_headers(line)
        out = visitor.end_game()
        visitor = None
        return out

    def in_movetext(at: int) -> Visitor:
        """The visitor of the game a movetext token at line ``at`` belongs to."""
        nonlocal movetext
        v = visitor if visitor is not None and not ended else None
        if v is None:
            v = begin(at)
        if not movetext:
            movetext = True
            v.end_headers(at)
        return v

    while i < n:
        ch = text[i]
        scanned(1)
        if ch == "\n":
            i += 1
            line += 1
            at_line_start = True
            continue
        if ch in " \t\r\f\v" or (ch.isspace() and ch != "\n"):
            m = _SPACE.match(text, i)
            end = m.end() if m else i + 1
            scanned(end - i)
            i = end
            continue
        if at_line_start and (ch == "%" and (i == 0 or text[i - 1] == "\n")):
            end = text.find("\n", i)
            end = n if end < 0 else end
            scanned(end - i)
            i = end
            continue
        if at_line_start and ch == "[":
            end = text.find("\n", i)
            end = n if end < 0 else end
            scanned(2 * (end - i))
            if visitor is not None and (movetext or ended):
                yield finish()
            v = visitor if visitor is not None else begin(line)
            stop = end - 1 if end > i and text[end - 1] == "\r" else end
            pair = _tag_line(text, i, stop)
            if pair is None:
                v.visit_error(f"a tag line should read [Key \"value\"], not {quote(text[i:stop].strip())}", line)
            else:
                v.visit_header(pair[0], pair[1], line)
            i = end
            continue
        at_line_start = False
        if ch == "{":
            end = text.find("}", i + 1)
            if end < 0:
                scanned(n - i)
                v = visitor if visitor is not None and not ended else begin(line)
                v.visit_error("a comment '{' is never closed", line)
                if not movetext:
                    movetext = True  # (the game ends here: the rest of the text is the comment)
                    v.end_headers(line)
                i = n
                break
            scanned(2 * (end - i))
            body = text[i + 1:end]
            if visitor is None or ended:
                pending.append((body, line))
            else:
                visitor.visit_comment(body, line)
            line += body.count("\n")
            i = end + 1
            continue
        if ch == ";":
            end = text.find("\n", i)
            end = n if end < 0 else end
            scanned(end - i)
            body = text[i + 1:end].rstrip("\r")
            if visitor is None or ended:
                pending.append((body, line))
            else:
                visitor.visit_comment(body, line)
            i = end
            continue
        if ch == "(":
            v = in_movetext(line)
            if depth == 0:
                depth_line = line
            depth += 1
            number = ""
            v.begin_variation(line)
            i += 1
            continue
        if ch == ")":
            v = in_movetext(line)
            if depth == 0:
                v.visit_error("')' closes no variation", line)
            else:
                depth -= 1
                v.end_variation(line)
            number = ""
            i += 1
            continue
        if ch == "}":
            in_movetext(line).visit_error("'}' closes no comment", line)
            i += 1
            continue
        m = _WORD.match(text, i)
        assert m is not None and m.end() > i, "every other character starts a word"
        word, i = m.group(), m.end()
        scanned(len(word))
        v = in_movetext(line)
        if word in RESULTS:
            if depth == 0:
                v.visit_result(word, line)
                ended = True
                yield finish()
            continue
        if word[0] == "$":
            if not (word[1:].isascii() and word[1:].isdigit()) or len(word) > 4 or int(word[1:]) > MAX_NAG:
                v.visit_error(f"a NAG is $ and a number from 0 to {MAX_NAG}, not {quote(word, 20)}", line)
            else:
                v.visit_nag(int(word[1:]), line)
            continue
        move = word
        d = _DIGITS.match(word)
        if d is not None:
            dots = _DOTS.match(word, d.end())
            if dots is not None:
                number, move = word[:dots.end()], word[dots.end():]
                if not move:
                    continue
        stripped = move.rstrip("!?")
        glyph = move[len(stripped):]
        if glyph and glyph not in GLYPHS:
            v.visit_error(f"unknown annotation {quote(glyph, 20)} (known: {', '.join(GLYPHS)})", line)
            continue
        if stripped:
            v.visit_move(stripped, number, line)
            number = ""
        if glyph:
            v.visit_nag(GLYPHS[glyph], line)
    if visitor is not None:
        yield finish()


# -- reading ---------------------------------------------------------------------------------------------

class BrokenGameError(PositionFormatError):
    """A game whose main line stops at a move that cannot be played there (illegal, unreadable,
    or after the end): the error, and ``game``, the game as read up to that move (``verify``
    judges the moves before it)."""

    def __init__(self, error: PositionFormatError, game: Game):
        super().__init__(error.message, error.source, error.line)
        self.game = game


class GameBuilder(Visitor):
    """The visitor that builds a :class:`Game`: the main line played by ``rules`` (its first
    problem is the game's error), the variations played where they can be; ``end_game`` returns the
    game, or the :class:`PositionFormatError` of its first problem."""

    def __init__(self, number: int, rules: Rules = CLASSIC, source: str = "<input>"):
        self.rules = rules
        self.source = source
        self.game = Game(number)
        self.node: GameNode = self.game
        self.stack: list[GameNode] = []       # the nodes the open variations are alternatives to
        self.fresh = False                    # a variation was opened and has no move yet
        self.starting: list[str] = []         # comments at the start of a variation
        self.error: PositionFormatError | None = None
        self.broken = False                   # the error is a move of the main line: the game up to it stands
        self.header_lines: dict[str, int] = {}
        self.count = 0                        # moves in the tree

    def fail(self, message: str, line: int | None, sep: str = ": ") -> None:
        if self.error is None:
            self.error = PositionFormatError(f"{self.game.label}{sep}{message}", self.source, line)

    def begin_game(self, line: int) -> None:
        self.game.line = line

    def visit_header(self, key: str, value: str, line: int) -> None:
        if self.error is not None:
            return
        if key in self.game.headers:
            self.fail(f"tag {key} given twice", line)
            return
        self.game.headers[key] = value
        self.header_lines[key] = line

    def end_headers(self, line: int) -> None:
        if self.error is not None:
            return
        fen = self.game.headers.get("FEN")
        if fen is None:
            self.game.position = Position.from_fen(STARTPOS, self.rules, self.source, self.game.line)
            return
        at = self.header_lines["FEN"]
        try:
            self.game.position = Position.from_fen(fen, self.rules, self.source, at)
        except PositionFormatError as exc:
            self.fail(f"FEN tag: {exc.message}", at)
        except ValueError as exc:
            self.fail(f"FEN tag: {exc}", at)

    def visit_comment(self, text: str, line: int) -> None:
        if self.error is not None:
            return
        if self.fresh:
            self.starting.append(text)
        else:
            self.node.comments.append(text)

    def visit_nag(self, nag: int, line: int) -> None:
        if self.error is None:
            self.node.nags.append(nag)

    def begin_variation(self, line: int) -> None:
        if self.error is not None:
            return
        if self.node.parent is None or self.fresh:
            self.fail("a variation '(' must follow the move it is an alternative to", line)
            return
        self.stack.append(self.node)
        self.node = self.node.parent
        self.fresh, self.starting = True, []

    def end_variation(self, line: int) -> None:
        if self.error is not None:
            return
        if self.fresh:
            self.fail("a variation '()' with no move", line)
            return
        self.node = self.stack.pop()

    def visit_move(self, text: str, number: str | None, line: int, before: Position | None = None) -> None:
        if self.error is not None:
            return
        self.count += 1
        if self.count > MAX_GAME_MOVES:
            self.fail(f"a game has at most {MAX_GAME_MOVES:,} moves (variations included); this is move "
                      f"{self.count:,}", line)
            return
        parent = self.node
        p = parent.position
        main = not self.stack
        child: GameNode | None = None
        if p is not None:
            scanned(3 * len(text))
            shown = text if len(text) <= 20 and text.isprintable() else quote(text, 20)
            where = f"move {move_number(p)} {shown}"
            if p.is_over():
                if main:
                    self.fail(f"{where}: the game is already over", line, ", ")
                    self.broken = True
                    return
            else:
                try:
                    move = _parse_move(p, text)
                except (InvalidMoveError, IllegalMoveError) as exc:
                    if main:
                        self.fail(f"{where}: {exc}", line, ", ")
                        self.broken = True
                        return
                else:
                    child = parent.add_variation(p.move_name(move), p.push(move), line, number)
        if child is None:  # (in a variation: kept as written, not played)
            child = parent.add_variation(text, None, line, number)
        child.starting_comments, self.starting, self.fresh = self.starting, [], False
        self.node = child

    def visit_result(self, result: str, line: int) -> None:
        self.game.result = result

    def visit_error(self, message: str, line: int) -> None:
        self.fail(message, line)

    def end_game(self) -> Game | PositionFormatError:
        if self.error is None and not self.game.headers and not self.game.variations:
            self.fail("no tags and no moves: not a game (a game without tags needs its moves)", self.game.line)
        if self.error is None and self.game.position is None:  # (no movetext: end_headers made it)
            self.end_headers(self.game.line)
        if self.error is not None:
            return BrokenGameError(self.error, self.game) if self.broken else self.error
        return self.game


def _parse_move(p: Position, text: str) -> Move:
    if text.lower() in PASS_SPELLINGS:
        text = "0000"
    return p.parse_move(text)


def iter_games(text: str, source: str = "<input>", rules: Rules = CLASSIC) -> Iterator[Game | PositionFormatError]:
    """The games of a PGN text as they are read: :class:`Game` trees, or the
    :class:`PositionFormatError` of each game that could not be read."""
    count = 0

    def builder() -> Visitor:
        nonlocal count
        count += 1
        return GameBuilder(count, rules, source)

    for item in visit_text(text, builder):
        assert isinstance(item, (Game, PositionFormatError))
        yield item


def read_games(text: str, source: str = "<input>", rules: Rules = CLASSIC) -> list:
    """Every game of a PGN text, in order: :class:`Game` objects, or :class:`PositionFormatError`
    for the games that could not be read. A text with no game gives a single error."""
    out: list = list(iter_games(text, source, rules))
    if not out:
        scanned(len(text))
        why = "the input is empty" if not text.strip() else "only comments: no tag and no move"
        out.append(PositionFormatError(f"no game found ({why})", source, None))
    return out


# -- writing -----------------------------------------------------------------------------------------

class PgnWriter(Visitor):
    """The visitor that writes PGN: tags one a line, a blank line, the movetext in lines under 80
    characters, the result; ``end_game`` returns the text (ending in a newline).

    A move is written with the number it had in the input (:attr:`GameNode.number_text`); a move
    made by code is numbered as PGN's export format does (X's moves, and O's at the start of the
    game or of a variation, or after a comment or a variation)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.tokens: list[str] = []
        self.open = False        # a '(' waits for the next token
        self.need_number = True  # the next move of O would be numbered by the export format

    def begin_game(self, line: int) -> None:
        self.lines, self.tokens, self.open, self.need_number = [], [], False, True

    def visit_header(self, key: str, value: str, line: int) -> None:
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        self.lines.append(f'[{key} "{escaped}"]')

    def end_headers(self, line: int) -> None:
        if self.lines:
            self.lines.append("")

    def _token(self, text: str) -> None:
        if self.open:
            text, self.open = "(" + text, False
        self.tokens.append(text)

    def visit_move(self, text: str, number: str | None, line: int, before: Position | None = None) -> None:
        if number is None and before is not None and (before.turn == X or self.need_number):
            number = move_number(before)
        self._token(f"{number} {text}" if number else text)
        self.need_number = False

    def visit_comment(self, text: str, line: int) -> None:
        if "}" in text and "\n" not in text:
            self._token(";" + text + "\n")  # (a ; comment runs to the end of its line)
        else:
            self._token("{" + text.replace("}", ")") + "}")
        self.need_number = True

    def visit_nag(self, nag: int, line: int) -> None:
        if self.tokens and not self.open and not self.tokens[-1].endswith("\n"):
            self.tokens[-1] += f" ${nag}"  # (kept on the line of its move)
        else:
            self._token(f"${nag}")

    def begin_variation(self, line: int) -> None:
        self.open, self.need_number = True, True

    def end_variation(self, line: int) -> None:
        self.tokens[-1] += ")"
        self.need_number = True

    def visit_result(self, result: str, line: int) -> None:
        self._token(result)

    def end_game(self) -> str:
        cur = ""
        for t in self.tokens:
            if cur.endswith("\n"):
                self.lines.append(cur[:-1])
                cur = t
            elif cur and len(cur) + 1 + len(t) > WIDTH:
                self.lines.append(cur)
                cur = t
            else:
                cur = f"{cur} {t}" if cur else t
        if cur:
            self.lines.append(cur.rstrip("\n"))
        return "\n".join(self.lines) + "\n"


def write_game(game: Game, extra: Callable[[GameNode], tuple[list[int], list[str]]] | None = None) -> str:
    """One game as PGN (:class:`PgnWriter`), with the NAGs and comments ``extra(node)`` adds."""
    text = game.accept(PgnWriter(), extra)
    assert isinstance(text, str)
    return text


def write_games(games: list[Game]) -> str:
    """Games as PGN, separated by blank lines."""
    return "\n".join(write_game(g) for g in games)


# -- choosing positions -----------------------------------------------------------------------------

def parse_empty_range(text: str) -> tuple[int, int]:
    """``A-B`` (or ``A``) as (A, B), each a number of empty squares from 0 to 64; ValueError otherwise."""
    low_text, dash, high_text = text.partition("-")
    low = parse_whole(low_text.strip(), "the fewest empty squares", 0, 64)
    high = parse_whole(high_text.strip(), "the most empty squares", 0, 64) if dash else low
    if high < low:
        raise ValueError(f"the range {quote(text)} is empty (write the smaller number first)")
    return low, high


@dataclass(frozen=True)
class Pick:
    """Which positions of each game to take.

    - ``ply=N``: the position after N plies (0 is the start); a game with fewer plies is an error;
    - ``empty=(A, B)``: every position with A to B empty squares (playable squares without a piece);
    - neither: the final position (``every=False``), or every position a move was played from
      (``every=True``: what ``verify`` judges; with ``empty`` too, the final position is left out).
    ``ply`` and ``empty`` together: the position after N plies if it has A to B empty squares.
    """

    ply: int | None = None
    empty: tuple[int, int] | None = None
    every: bool = False

    def plies(self, game: Game, source: str = "<input>", positions: list[Position] | None = None) -> list[int]:
        """The plies (indices into ``game.positions``, given as ``positions`` when the caller has
        them) this pick takes; raises :class:`PositionFormatError` when ``ply`` is past the end of
        the game."""
        positions = game.positions if positions is None else positions
        plies = len(positions) - 1
        if self.ply is not None:
            if self.ply > plies:
                raise PositionFormatError(f"{game.label} has {plies} plies; there is no position after ply "
                                          f"{self.ply}", source, game.line)
            candidates = [self.ply]
        elif self.empty is not None or self.every:
            candidates = list(range(plies + (0 if self.every else 1)))
        else:
            candidates = [plies]
        if self.empty is not None:
            low, high = self.empty
            candidates = [k for k in candidates if low <= bin(positions[k].empty).count("1") <= high]
        return candidates
