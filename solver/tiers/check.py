"""Checking a solved game: every stored tier against the moves, and a game's optional functions
against its required ones (the checks of :mod:`solver.tiers.solver`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from solver import engine
from solver.tiers.executors import Executor, LocalExecutor, check_chunk
from solver.tiers.game import DEFAULT_CHUNK, Progress, TierGame, outside_moves, unmoves
from solver.tiers.store import TierStore


@dataclass
class CheckReport:
    checked: int = 0
    failures: int = 0
    first: list[tuple[int, int]] = field(default_factory=list)  # (tier, number) of the first failure of each bad tier


def verify(game: TierGame, store: TierStore, executor: Executor | None = None, chunk_size: int = DEFAULT_CHUNK,
           tiers: Iterable[int] | None = None, progress: Progress | None = None) -> CheckReport:
    """Check every stored tier against the moves (:func:`tier_kernels.check_chunk`).

    Besides the local rule (each value is the best over the children's stored values), a
    decided position's depth must be 1 + its preferred child's depth: so along preferred
    moves the depth falls at every ply of the winner and cannot rise at the loser's, and
    every decided value is realised by a finite line, never by a cycle that scores 0."""
    executor = executor or LocalExecutor()
    out = CheckReport()
    for t in tiers if tiers is not None else game.tiers():
        own = store.load(t)
        tables = [store.load(c) for c in game.child_tiers(t)]
        shared_own, shared = executor.share(own), executor.share(tables)
        n = game.tier_size(t)
        chunks = [(lo, min(n, lo + chunk_size)) for lo in range(0, n, chunk_size)]
        done = 0
        bad_first = -1
        for (lo, hi), (checked, bad, first) in zip(chunks, executor.map(
                check_chunk, [(game, t, lo, hi, shared_own, shared) for lo, hi in chunks])):
            out.checked += int(checked)
            out.failures += int(bad)
            if bad and bad_first < 0:
                bad_first = int(first)
            done += hi - lo
            if progress is not None:
                progress(t, "check", done, n)
        if bad_first >= 0:
            out.first.append((t, bad_first))
    return out


def self_test(game: TierGame, tier: int, numbers: Iterable[int] | np.ndarray) -> list[str]:
    """The optional functions against ``children`` on some numbers of a tier: ``outside_children``
    gives the same finals, moves leaving the tier and count of moves staying; ``parents`` lists
    each parent of a number once per move it has to it, and nothing else. Returns the
    disagreements (empty when they agree)."""
    problems: list[str] = []
    numbers = np.asarray(numbers, np.int64)
    has_outside = hasattr(game, "outside_children")
    pstart, parents = unmoves(game, tier, numbers)
    for i, x in enumerate(numbers):
        x = int(x)
        final, start, slot, child = game.children(tier, x, x + 1)
        if has_outside:
            f2, inside, s2, sl2, ch2 = outside_moves(game, tier, x, x + 1)
            if (int(f2[0]) != int(final[0]) or int(inside[0]) != int(np.count_nonzero(slot == 0))
                    or sorted(zip(sl2.tolist(), ch2.tolist())) != sorted((a, b) for a, b in zip(
                        slot.tolist(), child.tolist()) if a != 0)):
                problems.append(f"tier {tier}: outside_children({x}) disagrees with children({x})")
        if final[0] == engine.tier_kernels.UNUSED:
            continue
        listed = parents[pstart[i]:pstart[i + 1]].tolist()
        for p in set(listed):
            f3, s3, sl3, ch3 = game.children(tier, p, p + 1)
            moves = int(np.count_nonzero((sl3 == 0) & (ch3 == x)))
            if moves != listed.count(p):
                problems.append(f"tier {tier}: {p} is listed {listed.count(p)} times as a parent of {x} "
                                f"but has {moves} moves to it")
        inside = child[slot == 0].tolist()
        for c in set(inside):
            ps, pp = unmoves(game, tier, np.array([c], np.int64))
            if pp.tolist().count(x) != inside.count(c):
                problems.append(f"tier {tier}: {x} has {inside.count(c)} moves to {c} but is listed "
                                f"{pp.tolist().count(x)} times among its parents")
    return problems
