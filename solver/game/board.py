"""Board geometry: the shape, the blocks, square names, neighbourhoods and symmetries.

A board has ``rows`` x ``cols`` squares (at most 64). Squares are integers
``rank * cols + file`` with file 0 on the left and rank 0 at the bottom, so
square 0 is ``a1``, the bottom-left corner (SPEC section 1). Sets of squares
are bitmasks (Python ints, bit ``sq`` for square ``sq``), the same layout the
compiled engine uses in uint64 words.

A :class:`Board` knows nothing about pieces or rules; it answers geometric
questions and is shared by every position on it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import cached_property, lru_cache

MAX_SQUARES = 64

_SQUARE_RE = re.compile(r"([a-z]+)([0-9]+)")


def file_name(file: int) -> str:
    """Name of a file (column): 0 -> 'a', 25 -> 'z', 26 -> 'aa' (wide boards)."""
    if file < 0:
        raise ValueError(f"negative file {file}")
    name = ""
    file += 1
    while file:
        file, rem = divmod(file - 1, 26)
        name = chr(ord("a") + rem) + name
    return name


def parse_file(name: str) -> int:
    """Inverse of :func:`file_name`."""
    if not name or not name.isalpha() or not name.islower():
        raise ValueError(f"bad file name {name!r}")
    value = 0
    for ch in name:
        value = value * 26 + (ord(ch) - ord("a") + 1)
    return value - 1


_RING_TESTS: dict[str, Callable[[int, int], bool]] = {
    "clone": lambda df, dr: max(df, dr) == 1,
    "jump2": lambda df, dr: max(df, dr) == 2,
    "jump3": lambda df, dr: (df, dr) in ((3, 0), (0, 3)),
}


@lru_cache(maxsize=512)
def _rings(rows: int, cols: int, blocks: int, kind: str) -> tuple[int, ...]:
    """For each square of a board, the mask of the playable squares in its ring of ``kind``:
    shared by every Board of that shape (a file of positions makes a Board per line)."""
    test = _RING_TESTS[kind]
    masks = []
    for sq in range(rows * cols):
        f0, r0 = sq % cols, sq // cols
        mask = 0
        for other in range(rows * cols):
            if test(abs(other % cols - f0), abs(other // cols - r0)) and not (blocks >> other) & 1:
                mask |= 1 << other
        masks.append(mask)
    return tuple(masks)


class Board:
    """The shape of a board: rows, columns and blocked squares.

    >>> b = Board(3, 5)
    >>> b.square_name(0), b.square_name(14)
    ('a1', 'e3')
    """

    __slots__ = ("rows", "cols", "blocks", "__dict__")

    def __init__(self, rows: int, cols: int, blocks: int = 0):
        if rows < 1 or cols < 1:
            raise ValueError(f"a board needs at least one row and one column, not {rows} x {cols}")
        if rows * cols > MAX_SQUARES:
            raise ValueError(f"a {rows} x {cols} board has {rows * cols} squares; at most {MAX_SQUARES} are supported")
        if blocks >> (rows * cols):
            raise ValueError("blocks outside the board")
        self.rows = rows
        self.cols = cols
        self.blocks = blocks

    # -- identity -------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and (self.rows, self.cols, self.blocks) == (other.rows, other.cols, other.blocks)

    def __hash__(self) -> int:
        return hash((self.rows, self.cols, self.blocks))

    def __repr__(self) -> str:
        if self.blocks:
            return f"Board({self.rows}, {self.cols}, blocks={self.blocks:#x})"
        return f"Board({self.rows}, {self.cols})"

    # -- squares --------------------------------------------------------------------------------

    @property
    def size(self) -> int:
        return self.rows * self.cols

    @cached_property
    def all_squares(self) -> int:
        """Mask of every square of the rectangle."""
        return (1 << self.size) - 1

    @cached_property
    def playable(self) -> int:
        """Mask of the squares that are not blocks."""
        return self.all_squares & ~self.blocks

    def square(self, file: int, rank: int) -> int:
        return rank * self.cols + file

    def file_of(self, sq: int) -> int:
        return sq % self.cols

    def rank_of(self, sq: int) -> int:
        return sq // self.cols

    def square_name(self, sq: int) -> str:
        return f"{file_name(sq % self.cols)}{sq // self.cols + 1}"

    def parse_square(self, name: str) -> int:
        """Square index of a name like ``c3``; raises ValueError if off the board."""
        m = _SQUARE_RE.fullmatch(name.strip().lower()) if len(name) <= 8 else None
        if not m:
            raise ValueError(f"{name[:12]!r} is not a square name")
        file, rank = parse_file(m.group(1)), int(m.group(2)) - 1
        if not (0 <= file < self.cols and 0 <= rank < self.rows):
            raise ValueError(f"square {name} is off the {self.rows} x {self.cols} board")
        return self.square(file, rank)

    def is_block(self, sq: int) -> bool:
        return bool(self.blocks >> sq & 1)

    # -- neighbourhoods -------------------------------------------------------------------------

    def distance(self, a: int, b: int) -> int:
        """Chebyshev (king-move) distance between two squares."""
        return max(abs(self.file_of(a) - self.file_of(b)), abs(self.rank_of(a) - self.rank_of(b)))

    @cached_property
    def neighbours(self) -> tuple[int, ...]:
        """For each square, the mask of playable squares at distance 1 (clone targets)."""
        return _rings(self.rows, self.cols, self.blocks, "clone")

    @cached_property
    def jumps2(self) -> tuple[int, ...]:
        """For each square, the mask of playable squares at distance exactly 2."""
        return _rings(self.rows, self.cols, self.blocks, "jump2")

    @cached_property
    def jumps3(self) -> tuple[int, ...]:
        """For each square, the playable squares exactly 3 away along its row or column."""
        return _rings(self.rows, self.cols, self.blocks, "jump3")

    def jump_targets(self, jump3: bool) -> tuple[int, ...]:
        """For each square, the squares a jump can go to from it (and, by symmetry, come from)."""
        return self._jumps23 if jump3 else self.jumps2

    @cached_property
    def _jumps23(self) -> tuple[int, ...]:
        return tuple(a | b for a, b in zip(self.jumps2, self.jumps3))

    def reach(self, jump3: bool) -> tuple[int, ...]:
        """For each square, every square a clone or a jump connects it with."""
        return self._reach3 if jump3 else self._reach2

    @cached_property
    def _reach2(self) -> tuple[int, ...]:
        return tuple(a | b for a, b in zip(self.neighbours, self.jumps2))

    @cached_property
    def _reach3(self) -> tuple[int, ...]:
        return tuple(a | b for a, b in zip(self.neighbours, self._jumps23))

    # -- symmetry -------------------------------------------------------------------------------

    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """Permutations of the squares that map the shape and the blocks onto themselves.

        Each is a tuple ``perm`` with ``perm[sq]`` the image of ``sq``; the identity
        comes first. Rectangles have up to 4 (identity, the two mirror lines, the
        half turn); square boards up to 8 (also the quarter turns and diagonals).
        """
        R, C = self.rows, self.cols
        maps = [
            lambda f, r: (f, r),
            lambda f, r: (C - 1 - f, r),          # mirror in the middle column
            lambda f, r: (f, R - 1 - r),          # mirror in the middle row
            lambda f, r: (C - 1 - f, R - 1 - r),  # half turn
        ]
        if R == C:
            maps += [
                lambda f, r: (r, f),                  # main diagonal
                lambda f, r: (C - 1 - r, R - 1 - f),  # anti-diagonal
                lambda f, r: (r, C - 1 - f),          # quarter turn
                lambda f, r: (R - 1 - r, f),          # three-quarter turn
            ]
        perms = []
        for m in maps:
            perm = tuple(self.square(*m(self.file_of(sq), self.rank_of(sq))) for sq in range(self.size))
            if self.map_mask(perm, self.blocks) == self.blocks and perm not in perms:
                perms.append(perm)
        return tuple(perms)

    @staticmethod
    def map_mask(perm: tuple[int, ...], mask: int) -> int:
        """Image of a square set under a permutation."""
        out = 0
        while mask:
            low = mask & -mask
            out |= 1 << perm[low.bit_length() - 1]
            mask ^= low
        return out

    # -- standard start -------------------------------------------------------------------------

    def start_squares(self) -> tuple[int, int]:
        """Masks (X, O) of the standard start (SPEC section 1)."""
        R, C = self.rows, self.cols
        if R * C < 2:
            raise ValueError("a 1 x 1 board has no standard start")
        if R == 1:
            return 1 << self.square(0, 0), 1 << self.square(C - 1, 0)
        if C == 1:  # a column: X at the top, O at the bottom, as a 1 x C row turned upright
            return 1 << self.square(0, R - 1), 1 << self.square(0, 0)
        top_left, top_right = self.square(0, R - 1), self.square(C - 1, R - 1)
        bottom_left, bottom_right = self.square(0, 0), self.square(C - 1, 0)
        return (1 << top_left) | (1 << bottom_right), (1 << top_right) | (1 << bottom_left)


def popcount(mask: int) -> int:
    return mask.bit_count()


def squares_of(mask: int) -> Iterator[int]:
    """Iterate over the squares of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
