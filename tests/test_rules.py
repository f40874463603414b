"""The plain rules: moves, captures, passes, the end of the game, counters, notation (SPEC 1-3)."""

import re

import pytest

from solver.game.board import Board
from solver.io.formats import parse_fen, parse_position
from solver.game.rules import (
    CLASSIC, CS61B, JUMP3, PASS, RULE_SETS, UAI, IllegalMoveError, InvalidMoveError, Move, O, Position, X,
)

from helpers import random_positions


def pos(text, rules=CLASSIC, turn=X, counter=0):
    return parse_position(text).position.replace(rules=rules, turn=turn, counter=counter)


def test_square_names_and_layout():
    b = Board(7, 7)
    assert b.square_name(0) == "a1" and b.square_name(48) == "g7"
    assert b.parse_square("c3") == 16
    with pytest.raises(ValueError, match="^square h1 is off the 7 x 7 board$"):
        b.parse_square("h1")
    wide = Board(1, 30)
    assert wide.square_name(26) == "aa1" and wide.parse_square("ad1") == 29


def test_start_position_and_moves():
    p = Position.start(7, 7)
    assert parse_fen("startpos") == p
    moves = p.legal_moves()
    clones = [m for m in moves if m.is_clone]
    jumps = [m for m in moves if m.is_jump]
    assert len(clones) == 6 and len(jumps) == 10  # libataxx: 16 moves from the start
    names = [p.move_name(m) for m in moves]
    assert names == sorted(names, key=lambda n: (n[0], n[1:]))  # notation order on a 7 x 7 board


def test_clone_jump_and_captures():
    p = pos("x..\n.o.\no..")
    q = p.play(p.parse_move("b3"))  # clone next to b2 and a1? b3 touches b2 only
    assert q.piece_at(q.board.parse_square("b2")) == X and q.piece_at(q.board.parse_square("a1")) == O
    assert q.turn == O and q.fullmove == 1
    r = p.play(p.parse_move("a3c1"))  # jump: origin empties, c1 touches b2 only
    assert r.piece_at(r.board.parse_square("a3")) is None
    assert r.piece_at(r.board.parse_square("b2")) == X and r.piece_at(r.board.parse_square("a1")) == O


def test_move_text_forms():
    p = pos("x....\n.....\n....o")
    assert p.parse_move("a3-c1") == p.parse_move("a3c1") == Move(10, 2)
    assert p.parse_move("a3b2") == p.parse_move("b2") == Move(-1, 6)  # a long clone
    with pytest.raises(IllegalMoveError, match="^e1d2: e1 is not a piece of X$"):
        p.parse_move("e1d2")  # long clone from a square that is not X's
    with pytest.raises(IllegalMoveError, match="^a3d3 is not legal for X here$"):
        p.parse_move("a3d3")  # three squares is not a jump under classic
    with pytest.raises(InvalidMoveError, match=r"^'hello' is not a move \(expected like c3, a1c3 or 0000\)$"):
        p.parse_move("hello")
    with pytest.raises(InvalidMoveError, match="square z9 is off the 3 x 5 board$"):
        p.parse_move("z9")
    for word in ("0000", "pass", "null", "-"):
        with pytest.raises(IllegalMoveError, match=f"^{re.escape(word)} is not legal for X here$"):  # X has moves
            p.parse_move(word)


def test_forced_pass_and_game_end_classic():
    stuck = pos("x##.o")  # X is walled in, O is not
    assert stuck.legal_moves() == [PASS] and not stuck.is_over()
    assert stuck.play(PASS).turn == O
    wiped = pos("xx.\n...\n...")  # O has no pieces: under classic O passes, X fills
    assert not wiped.is_over() and wiped.replace(turn=O).legal_moves() == [PASS]
    full = pos("xxo\noxo")
    assert full.is_over() and full.result() == 0 and full.legal_moves() == []
    unreachable = pos("x.#..\n##...\n#...o", turn=X)
    assert unreachable.result() is None


def test_wipeout_ends_the_game_under_uai_cs61b_jump3():
    for rules in (UAI, CS61B, JUMP3):
        p = pos("xx.\n...\n...", rules=rules)
        assert p.is_over() and p.result() == 2
    assert not pos("xx.\n...\n...").is_over()


def test_counters():
    p = pos("x...o\n.....\n.....", rules=UAI, counter=5)
    assert p.play(p.parse_move("b3")).counter == 0
    assert p.play(p.parse_move("a3c3")).counter == 6
    stuck = pos("x##..o", rules=UAI, counter=5)
    assert stuck.play(PASS).counter == 6
    stuck61 = stuck.replace(rules=CS61B)
    assert stuck61.play(PASS).counter == 5  # a pass leaves the jump count alone
    o_turn = stuck61.play(PASS)
    assert o_turn.play(o_turn.parse_move("f1d1")).counter == 6
    j3 = pos("x....\n.....\n....o", rules=JUMP3, counter=7)
    assert j3.play(j3.parse_move("b3")).counter == 8 and j3.play(j3.parse_move("a3d3")).counter == 8


def test_counter_limits():
    # uai: at 100 the game is a draw, unless it is over for another reason (wins take priority)
    p = pos("x...o", rules=UAI, counter=100)
    assert p.is_over() and p.result() == 0 and p.legal_moves() == []
    assert pos("xxxoo", rules=UAI, counter=100).result() == 1
    assert pos("xx...", rules=UAI, counter=100).result() == 2
    one_step = pos("x...o", rules=UAI, counter=99)
    after = one_step.play(one_step.parse_move("a1c1"))
    assert after.counter == 100 and after.result() == 0
    assert one_step.play(one_step.parse_move("b1")).result() is None  # a clone resets the clock
    # cs61b: at 25 jumps the pieces are counted
    c = pos("x...o\n.....", rules=CS61B, counter=24)
    end = c.play(c.parse_move("a2c2"))
    assert end.counter == 25 and end.result() == 0
    c2 = pos("xx..o\n.....", rules=CS61B, counter=24)
    assert c2.play(c2.parse_move("a2c1")).result() == 1
    # jump3: 200 plies
    j = pos("x...o\n.....", rules=JUMP3, counter=199)
    assert j.play(j.parse_move("b2")).result() == 1


def test_jump3_orthogonal_jumps():
    p = pos("x...o\n.....\n.....", rules=JUMP3)
    names = {p.move_name(m) for m in p.legal_moves()}
    assert "a3d3" in names and "a3a1" in names and "a3d2" not in names
    assert "a3d3" not in {p.move_name(m) for m in p.replace(rules=CLASSIC).legal_moves()}


def test_symmetry_groups():
    assert len(Board(7, 7).symmetries) == 8
    assert len(Board(3, 5).symmetries) == 4
    assert len(Board(1, 5).symmetries) == 2  # the half turn equals the mirror of a single row
    lopsided = parse_position("x.#o\n.##.").position.board
    assert len(lopsided.symmetries) == 1  # no mirror keeps these blocks in place
    assert len(parse_position("x##o\n.##.").position.board.symmetries) == 4
    assert len(parse_position("x#.o\n.#..").position.board.symmetries) == 2  # the middle-row mirror
    for perm in Board(4, 4, blocks=0b1001).symmetries:
        assert Board.map_mask(perm, 0b1001) == 0b1001


def test_transform_and_inversion():
    p = pos("x.o\n.x.\n..o", turn=O)
    inv = p.inverted()
    assert inv.turn == X and inv.x == p.o and inv.key() == p.key()
    for perm in p.board.symmetries:
        assert p.transform(perm).key() == p.key()


def test_the_key_of_a_large_board_keeps_colour_inversion_but_not_its_symmetries():
    p = parse_fen("xx4o/7/2x4/7/7/3o3/o5x o 3 9")
    assert p.inverted().key() == p.key()
    mirrored = [p.transform(perm).key() for perm in p.board.symmetries]
    assert mirrored.count(p.key()) == 1  # only the identity (over 25 squares, no canonical form)
    small = parse_fen("x3o/5/1x3/5/o3x o 3 9")
    assert all(small.transform(perm).key() == small.key() for perm in small.board.symmetries)


@pytest.mark.parametrize("rules", sorted(RULE_SETS))
def test_is_legal_agrees_with_the_list_of_legal_moves(rules):
    """is_legal decides from the move's squares; it must say what legal_moves lists, for every
    candidate (every clone, every pair of squares, passes, squares off the board)."""
    for p in random_positions(19, 150, rules=RULE_SETS[rules]):
        n = p.board.size
        listed = set(p.legal_moves())
        candidates = [PASS, Move(0, -1), Move(-1, n), Move(0, n)] + [Move(-1, t) for t in range(n)] + \
            [Move(f, t) for f in range(n) for t in range(n)]
        assert {m for m in candidates if p.is_legal(m)} == listed, p
