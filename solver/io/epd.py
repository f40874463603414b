"""EPD: test suites of positions with their proved answers, one position a line.

Chess engine authors keep test suites as EPD (Extended Position Description): a FEN without its
counters, then *operations*, each an opcode, its operands and a ``;``::

    x5o/7/7/7/7/7/o5x x bm f2 g2; ce 0; id "start";

For Ataxx the first two fields are the board and the side to move as :meth:`Position.fen`
writes them (libataxx's ``b``/``w`` are read too); then, when present, two numeric fields
(the counter and the move number: a whole FEN) are read before the operations. The
operations this module reads and writes:

- ``bm`` the best moves: every optimal move, in the project's notation (``b2``, ``a1c3``); a
  side that must pass has ``bm 0000``; a finished position has no ``bm``.
- ``ce`` the value, from the side to move (Ataxx points, not centipawns).
- ``id "name"`` the position's name.
- ``c0 "interval lo..hi"`` (side to move) when the value is not exact; ``bm`` and ``ce`` are
  then left out, since nothing is proved optimal. A record that does not list every optimal
  move (one answered from the cache or the tables) gets no ``bm`` and ``c1 "optimal moves not
  known"``.
- ``hmvc N`` the counter (written only when it is not 0) and ``fmvn N`` the move number (read).

Any other operation is read and kept (:attr:`EpdLine.ops`), not interpreted. Operands are words
or strings in double quotes (a ``;`` inside a string does not end the operation). A line that
is not EPD is one :class:`~solver.game.fen.PositionFormatError` naming the line and why.

:func:`epd_lines` writes the lines of a solved position from a batch record
(:func:`solver.solve.batch.record`): one line per side analysed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from solver.common.work import scanned
from solver.game.fen import PositionFormatError, first_line, looks_like_fen, quote, whole_field
from solver.game.notation import signed
from solver.game.rules import (
    CLASSIC,
    IllegalMoveError,
    InvalidMoveError,
    Position,
    Rules,
)

_OPCODE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,14}+")
# The opcodes of the EPD standard (PGN standard, section 16.2): a line is told to be EPD by its first
# operation being one of these (``x5o/... x 0 1 moves b2 ; note`` is a game record, not EPD).
EPD_OPCODES = frozenset({"acn", "acs", "am", "bm", "ce", "dm", "draw_accept", "draw_claim", "draw_offer",
                         "draw_reject", "eco", "fmvn", "hmvc", "id", "nic", "noop", "pm", "pv", "rc", "resign",
                         "sm", "tcgs", "tcri", "tcsi"} | {f"c{k}" for k in range(10)} | {f"v{k}" for k in range(10)})
# The layout epd_lines writes: how a file of ours is told from someone else's suite.
_OURS = re.compile(r'[^ ]++ [xo]( (bm [^;"]++; )?ce -?[0-9]++;( c1 "optimal moves not known";)?'
                   r'| c0 "interval -?[0-9]++\.\.-?[0-9]++";)?( hmvc [0-9]++;)? id "[^"]*+";')  # (possessive)


@dataclass
class EpdLine:
    """One EPD line read: its position, the best moves (normalised), the value from the side to
    move, the name, and every operation as written (opcode -> operands)."""

    position: Position
    line: int
    bm: list[str] = field(default_factory=list)
    ce: int | None = None
    id: str | None = None
    ops: dict[str, list[str]] = field(default_factory=dict)


def _split_fields(text: str) -> tuple[list[str], str]:
    """(the FEN fields, the operations text) of an EPD line: two fields, or four when the
    third and fourth are numbers (a whole FEN)."""
    parts = text.split(None, 2)
    fields, rest = parts[:2], parts[2] if len(parts) > 2 else ""
    more = rest.split(None, 2)
    if len(more) >= 2 and all(t.isascii() and t.isdigit() for t in more[:2]):
        return fields + more[:2], more[2] if len(more) > 2 else ""
    return fields, rest


def parse_ops(text: str, source: str = "<input>", line: int | None = None) -> dict[str, list[str]]:
    """The operations of an EPD line: ``opcode operand ... ;`` each, operands words or quoted
    strings. The last ``;`` may be missing."""
    ops: dict[str, list[str]] = {}
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            return ops
        m = _OPCODE.match(text, i)
        if m is None:
            raise PositionFormatError(f"EPD: an operation should start with an opcode (bm, ce, id, ...), not "
                                      f"{quote(text[i:i + 20])}", source, line)
        opcode, i = m.group(), m.end()
        operands: list[str] = []
        while True:
            while i < n and text[i] in " \t":
                i += 1
            if i >= n or text[i] == ";":
                i += 1
                break
            if text[i] == '"':
                end = text.find('"', i + 1)
                if end < 0:
                    raise PositionFormatError(f"EPD: operation {opcode}: a string '\"' is never closed", source, line)
                operands.append(text[i + 1:end])
                i = end + 1
                continue
            j = i
            while j < n and text[j] not in ' \t;"':
                j += 1
            operands.append(text[i:j])
            i = j
        if opcode in ops:
            raise PositionFormatError(f"EPD: operation {opcode} given twice", source, line)
        ops[opcode] = operands


def looks_like_epd(text: str) -> bool:
    """True when the first line that is not blank (nor a ``;`` comment) is a FEN's board and side
    followed by an operation (an opcode of the standard, :data:`EPD_OPCODES`, then a ``;``
    somewhere after it): how an EPD file is told from a file of FEN lines. Looks at no line past
    that one."""
    line = first_line(text, lambda t: not t.strip() or t.lstrip().startswith(";"))
    if line is None:
        return False
    scanned(4 * len(line))
    fields, ops = _split_fields(line.strip())
    m = _OPCODE.match(ops)
    return (len(fields) >= 2 and looks_like_fen(" ".join(fields)) and m is not None
            and m.group() in EPD_OPCODES and ";" in ops)


def _one(ops: dict[str, list[str]], opcode: str, source: str, line: int) -> str | None:
    if opcode not in ops:
        return None
    if len(ops[opcode]) != 1:
        raise PositionFormatError(f"EPD: {opcode} takes one operand, not {len(ops[opcode])}", source, line)
    return ops[opcode][0]


def parse_epd_line(text: str, line: int = 1, source: str = "<input>", rules: Rules = CLASSIC) -> EpdLine:
    """One EPD line; raises :class:`PositionFormatError` naming ``source`` and ``line``."""
    scanned(4 * len(text))
    fields, rest = _split_fields(text.strip())
    if len(fields) < 2:
        raise PositionFormatError("EPD: a line starts with a board and a side to move", source, line)
    ops = parse_ops(rest, source, line)
    counter = _one(ops, "hmvc", source, line)
    fullmove = _one(ops, "fmvn", source, line)
    if len(fields) == 2:
        fields += [counter or "0", fullmove or "1"]
    p = Position.from_fen(" ".join(fields), rules, source, line)
    out = EpdLine(p, line, ops=ops)
    for m in ops.get("bm", []):
        try:
            move = p.parse_move(m)
        except (InvalidMoveError, IllegalMoveError) as exc:
            raise PositionFormatError(f"EPD: bm {quote(m, 20)}: {exc}", source, line) from None
        out.bm.append(p.move_name(move))
    if "bm" in ops and not out.bm:
        raise PositionFormatError("EPD: bm names no move", source, line)
    ce = _one(ops, "ce", source, line)
    if ce is not None:
        out.ce = whole_field(ce, "EPD: ce", source, line, -64, 64)
    out.id = _one(ops, "id", source, line)
    return out


def read_epd_lines(text: str, source: str = "<input>", rules: Rules = CLASSIC) -> list:
    """Every line of an EPD text: :class:`EpdLine` objects, or :class:`PositionFormatError` for the
    lines that could not be read. Blank lines and ``;`` comment lines are skipped."""
    out: list = []
    scanned(len(text))
    for n, raw in enumerate(text.split("\n"), 1):
        scanned(2 * len(raw) + 1)
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith(";"):
            continue
        try:
            out.append(parse_epd_line(line, n, source, rules))
        except PositionFormatError as exc:
            out.append(exc)
    if not out:
        out.append(PositionFormatError("no position found (the input is empty)", source, None))
    return out


# -- writing ----------------------------------------------------------------------------------------

def _string(text: str) -> str:
    """An EPD string operand: in double quotes, which it cannot contain (written as ')."""
    return '"' + "".join(ch if ch.isprintable() and ch != '"' else "'" for ch in text) + '"'


def epd_line(fen: str, side: str, name: str, side_facts: dict) -> str:
    """The EPD line of one side of a solved position: ``fen`` the position's FEN (any side),
    ``side`` ``x`` or ``o``, ``side_facts`` the side's keys in a batch record
    (:func:`solver.solve.report.side_json`: ``lower``, ``upper``, ``exact``, ``optimal_moves``, ...)."""
    fields = fen.split()
    sign = 1 if side == "x" else -1
    ops = []
    lower, upper = side_facts["lower"], side_facts["upper"]
    if side_facts.get("exact"):
        moves = side_facts.get("optimal_moves")
        if moves:
            ops.append("bm " + " ".join(moves))
        ops.append(f"ce {sign * lower}")
        if moves is None:  # (a record answered from the cache or tables: one preferred move, not all)
            ops.append(f"c1 {_string('optimal moves not known')}")
    else:
        lo, hi = sorted((sign * lower, sign * upper))
        ops.append(f"c0 {_string(f'interval {lo}..{hi}')}")
    counter = fields[2] if len(fields) > 2 else "0"
    if counter != "0":
        ops.append(f"hmvc {counter}")
    ops.append(f"id {_string(name)}")
    return f"{fields[0]} {side} " + " ".join(op + ";" for op in ops)


def epd_lines(rec: dict) -> list[str]:
    """The EPD lines of a batch record: one per side analysed (none for a record without a
    position: a line that could not be read). The id is the record's name, else ``file:line``;
    a board analysed for both sides adds ``(X to move)`` / ``(O to move)``."""
    sides = rec.get("sides") or {}
    if not sides or not rec.get("fen"):
        return []
    name = rec.get("name") or f"{rec.get('file')}:{rec.get('line')}"
    out = []
    for side, facts in sides.items():
        label = f"{name} ({side.upper()} to move)" if len(sides) > 1 else name
        out.append(epd_line(rec["fen"], side, label, facts))
    return out


def is_epd_output(first: bytes) -> bool:
    """Whether a file's first bytes start with a line laid out as :func:`epd_line` writes it
    (how ``batch --epd`` recognises a file it may replace)."""
    line, newline, _ = first.partition(b"\n")
    return bool(newline) and _OURS.fullmatch(line.decode("utf-8", "replace")) is not None


def suite_lines(records: list) -> list[str]:
    """The EPD lines of batch records (:attr:`solver.solve.batch.BatchSummary.records`: dicts, or their JSON
    text), in order; records without a position give none."""
    out: list[str] = []
    for rec in records:
        if isinstance(rec, str):
            rec = json.loads(rec)
        if isinstance(rec, dict):
            out.extend(epd_lines(rec))
    return out


def ce_mismatches(items: list, checks: list) -> list[str]:
    """For ``verify`` on a suite: one line per position whose ``ce`` the checks made there
    (:class:`solver.play.verify.Check`) prove wrong: ``file:line: name: ce 5, but the value is +3``
    (from the side to move; ``is proved -7..-5`` where it is not exact). ``items`` are the
    entries read (their ``expect["ce"]``)."""
    want = {(e.source, e.line): e.expect["ce"] for e in items if "ce" in getattr(e, "expect", {})}
    out, seen = [], set()
    for c in checks:
        key = (c.source, c.line)
        if key not in want or key in seen or c.best_interval is None:
            continue
        seen.add(key)
        lo, hi = c.best_interval.for_mover(c.position.turn)
        ce = want[key]
        if not lo <= ce <= hi:
            proved = f"is {signed(lo)}" if lo == hi else f"is proved {signed(lo)}..{signed(hi)}"
            out.append(f"{c.where}: ce {ce}, but the value {proved} (from the side to move)")
    return out
