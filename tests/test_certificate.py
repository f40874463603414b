"""Certificates: every bound proved comes with a strategy that the plain rules confirm.

Made by the search engine under forced low limits (nodes, one and two threads) and by the
reference solver, checked by :func:`solver.solve.certificate.check` (plain Python); tampered
certificates (a changed move, a missing reply, a claim the games do not reach, a cycle
where the game must end) are refused; the command writes and checks them.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from helpers import random_positions
from solver.solve import certificate as C
from solver.io.formats import parse_position
from solver.oracles.reference import ReferenceOracle, ReferenceSolution
from solver.game.rules import CLASSIC, O, UAI, X
from solver.oracles.search import SearchOracle

ROOT = Path(__file__).resolve().parent.parent
SHAPES = [(2, 3), (3, 3), (2, 4), (1, 6), (1, 7), (3, 2)]


def _claims(oracle, p):
    b = oracle.bounds(p)
    lower, upper = (b.lower, b.upper) if p.turn == X else (-b.upper, -b.lower)
    with oracle.without_limits():  # as the Solver makes them: after the solve, without its limits
        return [C.extract(oracle, p, side, bound) for side, bound in C.claims_to_prove(p, lower, upper)]


@pytest.mark.parametrize("rules", [CLASSIC, UAI], ids=lambda r: r.name)
def test_every_bound_the_search_proves_has_a_strategy_the_rules_confirm(rules):
    checked = partial = 0
    roots = random_positions(11, 20, shapes=SHAPES, rules=rules)
    roots += random_positions(12, 20, shapes=SHAPES, rules=rules, fill=(0.5, 0.25, 0.25))
    for p in roots:
        if p.is_over():
            continue
        value = ReferenceSolution([p], max_states=100_000).lookup(p)[0] * p.turn.sign  # X's side
        for limit, threads in ((0, 1), (3, 1), (10, 1), (30, 1), (100, 1), (300, 1), (10, 2), (60, 2)):
            oracle = SearchOracle(p.board, rules, tt_bits=12, node_limit=limit, threads=threads,
                                  budget_limit=8 if threads == 2 else None)
            for claim in _claims(oracle, p):
                verdict = C.check(claim)
                assert verdict.confirmed, (verdict.line(), p)
                assert claim.satisfied_by(value)  # a confirmed bound holds the reference value
                checked += 1
                partial += claim.bound != value and threads == 1  # (two threads race: not counted)
    # bounds short of the value, on one thread (so the same in every run): 5 under classic, 1 under
    # uai, where on boards this small the exact value mostly comes with the outcome
    assert checked >= 100 and partial >= (3 if rules is CLASSIC else 1)


def test_the_reference_solver_makes_certificates_too():
    board = parse_position("x.#o\n.##.").position
    for p in (board.replace(turn=X), board.replace(turn=O)):
        for claim in _claims(ReferenceOracle(), p):
            assert C.check(claim).confirmed


def _exact_claim(text, side):
    p = parse_position(text).position
    oracle = SearchOracle(p.board, p.rules, tt_bits=14, threads=1)
    b = oracle.bounds(p)
    value = b.lower * p.turn.sign
    return p, value, C.extract(oracle, p, side, value)


def test_a_tampered_certificate_is_refused():
    p, value, claim = _exact_claim("x2/3/2o x 0 1", X)  # X wins by 9: every square
    assert value == 9 and claim.needs_end and C.check(claim).confirmed
    root = C.key_of(p)
    # a missing move of the prover
    missing = C.Claim(p, X, 9, {k: m for k, m in claim.strategy.items() if k != root})
    assert C.check(missing).reason.startswith("no move of X at x2/3/2o x 0 1")
    # a move that is not legal there
    illegal = C.Claim(p, X, 9, dict(claim.strategy))
    illegal.strategy[root] = p.parse_move("b2")._replace(to=8)  # c3 holds O's piece
    assert "is not legal for X" in C.check(illegal).reason
    # a legal move that gives O a square: the games do not reach the bound
    weak = C.Claim(p, X, 9, dict(claim.strategy))
    weak.strategy[root] = p.parse_move("a3c3")
    verdict = C.check(weak)
    assert not verdict.confirmed and ("the game ends with" in verdict.reason or "no move of X" in verdict.reason)
    # a bound beyond what the strategy gives
    beyond = C.Claim(p, X, 10, dict(claim.strategy))
    assert C.check(beyond).reason.startswith("the game ends with +9")


def test_endless_play_is_fine_only_where_it_satisfies_the_bound():
    # a 3 x 3 draw by infinite play (positions/cycles.txt): each side holds 0 by endless play
    for side, stronger in ((X, 1), (O, -1)):
        p, value, claim = _exact_claim("1xo/1xx/x1o x 0 1", side)
        assert value == 0 and not claim.needs_end and C.check(claim).confirmed
        # the same strategy cannot prove a win: its games may never end
        loop = C.Claim(p, side, stronger, dict(claim.strategy))
        assert loop.needs_end and "the strategy can repeat a position" in C.check(loop).reason


def _cli(*argv, stdin=None):
    return subprocess.run([sys.executable, "-m", "solver", *argv], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


@pytest.mark.slow  # six commands, 6 s of CPU: the quick suite's 3 minutes (README); the library's tests stay quick
def test_the_command_writes_and_checks_certificates(tmp_path):
    cert = tmp_path / "c.txt"
    r = _cli("--certificate", str(cert), "--solver", "search", stdin="x...o\n")
    assert r.returncode == 0, r.stderr
    assert f"wrote {cert}" in r.stderr
    r = _cli("certificate", "check", str(cert))
    assert r.returncode == 0 and r.stdout.count("confirmed: ") == 4, r.stdout  # both sides, both bounds
    # tampered: the claim raised beyond the value
    text = cert.read_text().replace("claim: x >= -3", "claim: x >= -2", 1)
    bad = tmp_path / "bad.txt"
    bad.write_text(text)
    r = _cli("certificate", "check", str(bad))
    assert r.returncode == 1 and "refuted: x >= -2" in r.stdout
    # not a certificate: one line, status 2
    r = _cli("certificate", "check", str(tmp_path / "missing.txt"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "cannot read it" in r.stderr
    junk = tmp_path / "junk.txt"
    junk.write_text("x...o\n")
    r = _cli("certificate", "check", str(junk))
    assert r.returncode == 2 and "not a certificate" in r.stderr
    # the certificate is never written over a file that is not one
    r = _cli("--certificate", str(junk), stdin="x...o\n")
    assert r.returncode == 2 and junk.read_text() == "x...o\n"



@pytest.mark.slow  # the quick suite's 3 minutes (README): the full suite runs it
def test_a_search_table_file_resumes_a_search_and_refuses_what_is_not_its_own(tmp_path):
    """--table-file: a second run starts from what the first proved (the same value, less work);
    a file of another board, or one the search did not write, is refused in one line and left as
    it was."""
    from solver.oracles.searchfile import TableFileError
    from solver.solve.solver import Solver

    text = "ooxxxx1/ooooooo/oxoxx2/oxooooo/oooooox/oxxooox/xxxxo1x x 0 41"
    table = tmp_path / "t.search"
    first = Solver(algorithm="search", threads=1, table_file=table).solve(text)
    assert table.exists() and first.exact
    again = Solver(algorithm="search", threads=1, table_file=table).solve(text)
    assert again.sides[0].interval == first.sides[0].interval and again.states < first.states
    with pytest.raises(TableFileError, match="another board"):
        Solver(algorithm="search", threads=1, table_file=table).analyzer(parse_position("x5/6/6/6/6/5o x").position)
    alien = tmp_path / "notes.txt"
    alien.write_text("mine\n")
    r = subprocess.run([sys.executable, "-m", "solver", "--solver", "search", "--table-file", str(alien)],
                       input=text + "\n", capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.endswith(f"{alien}: not a search table (--table-file writes one, and reads it back)\n")  # (no exception name)
    assert alien.read_text() == "mine\n"


# -- hostile files (issue 30 items 3-5): one line, status 2, bounded work -------------------------------

_SMALL = "ATAXX-CERTIFICATE 1\nclaim: x >= 1\nposition: x1-o/1--1 x 0 1\nrules: classic\nstrategy: 2\n" \
         "x1-o/1--1 x 0 b2\nxx-o/1--o x 0 a1\nend\n"


def _check_in_process(capsys, *argv):
    from solver.app.cli import main
    status = main(["certificate", "check", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def _refused(capsys, *argv, words):
    status, out, err = _check_in_process(capsys, *argv)
    assert status == 2 and out == "" and err.count("\n") == 1, (status, out, err)
    assert words in err and "internal error" not in err and "Error" not in err.split(":", 2)[-1][:20], err
    return err


def test_a_corrupt_or_cut_gzip_stream_is_one_line(tmp_path, capsys):
    import gzip
    good = gzip.compress(_SMALL.encode())
    corrupt = bytearray(good)
    corrupt[10] |= 0b110  # the first deflate block of a reserved type: was 'internal error', status 70
    (tmp_path / "corrupt.gz").write_bytes(bytes(corrupt))
    (tmp_path / "cut.gz").write_bytes(good[:-10])
    (tmp_path / "good.gz").write_bytes(good)
    assert _check_in_process(capsys, str(tmp_path / "good.gz"))[0] == 0
    err = _refused(capsys, str(tmp_path / "corrupt.gz"), words="cannot read it")
    assert "gzip" in err
    _refused(capsys, str(tmp_path / "cut.gz"), words="cannot read it")


def test_a_gzip_bomb_is_refused_past_a_limit_with_bounded_work(tmp_path, capsys):
    """A small file that expands without end (was: MemoryError after taking GiBs): read as a stream,
    refused at the first line too long, or once past --max-size; the work counted stays within
    the limit whatever the expansion."""
    import gzip
    import zlib
    z = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing
    zeros = b"\0" * (1 << 20)
    bomb = z.compress(zeros * 64) + z.flush()  # 64 MiB of zeros in about 64 KiB
    (tmp_path / "bomb.gz").write_bytes(bomb)
    _refused(capsys, str(tmp_path / "bomb.gz"), words="longer than 1,000 characters")
    work = C.ReadWork()
    with pytest.raises(C.CertificateError):
        C.read(tmp_path / "bomb.gz", work=work)
    assert work.chars <= C.MAX_LINE + 2 and work.lines == 1
    # lines that each look right, many more of them than the limit allows
    strategy = "x1-o/1--1 x 0 b2\n" * 20_000
    text = _SMALL.replace("strategy: 2\n", "strategy: 20002\n" + strategy)
    (tmp_path / "lines.gz").write_bytes(gzip.compress(text.encode()))
    err = _refused(capsys, "--max-size", "64K", str(tmp_path / "lines.gz"), words="more than 64.0 KiB of text")
    assert "--max-size raises it" in err
    work = C.ReadWork()
    with pytest.raises(C.CertificateError):
        C.read(tmp_path / "lines.gz", max_size=1 << 16, work=work)
    assert (1 << 16) < work.chars <= (1 << 16) + C.MAX_LINE + 2 and work.lines <= work.chars // 10 + 1
    # raised, the same file is read (and checked)
    assert _check_in_process(capsys, "--max-size", "1M", str(tmp_path / "lines.gz"))[0] == 0
    # blank lines without end
    (tmp_path / "blank.gz").write_bytes(gzip.compress(b"ATAXX-CERTIFICATE 1\n" + b"\n" * 1_000_000))
    _refused(capsys, str(tmp_path / "blank.gz"), words="blank lines in a row")


def test_what_is_not_a_regular_file_is_refused_unopened(tmp_path, capsys):
    import os
    _refused(capsys, "/dev/zero", words="not a regular file (a character device)")  # was: MemoryError
    _refused(capsys, str(tmp_path), words="not a regular file (a directory)")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    # a FIFO with no writer blocked for ever: in a child process, so that a regression fails, not hangs
    r = subprocess.run([sys.executable, "-m", "solver", "certificate", "check", str(fifo)], capture_output=True,
                       text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not a regular file (a FIFO)" in r.stderr, r.stderr


def test_the_standard_input_is_read_with_the_same_limits(monkeypatch, capsys):
    import io

    class Stdin:
        buffer = io.BytesIO(_SMALL.encode())

    monkeypatch.setattr(sys, "stdin", Stdin)
    status, out, err = _check_in_process(capsys, "-")
    assert status == 0 and out.startswith("confirmed: x >= 1"), err
    Stdin.buffer = io.BytesIO(b"\0" * (10 << 20))  # /dev/zero on the standard input
    _refused(capsys, "-", words="<stdin>:1: a line longer than")


def test_the_checker_work_is_bounded_by_its_limit():
    """For the fuzz test: check() visits at most ``limit`` + 1 positions whatever the claim, and
    says so when the strategy reaches more."""
    p = parse_position("x...o").position.replace(turn=X)
    claims = _claims(ReferenceOracle(), p)
    full = [C.check(claim) for claim in claims]
    assert all(v.confirmed for v in full) and max(v.positions for v in full) > 4
    for claim in claims:
        v = C.check(claim, limit=3)
        assert v.positions <= 4 and (v.confirmed or "the checker's limit" in v.reason)
