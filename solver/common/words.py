"""Fixed sets of words as enums: verdicts, outcomes, stop reasons (:class:`Word`).

A member is a ``str``: it equals its word, hashes as it (a member and its word are the same
dictionary key), prints as it, and JSON writes it as it, so the words of the command's output and
of ``--json`` stay what they were while the code names them (``StopReason.TIME``, not ``"time"``).
"""

from __future__ import annotations

import enum


class Word(str, enum.Enum):
    """The base of the word enums: ``Word`` subclasses list their members, each a lower-case word."""

    __hash__ = str.__hash__  # the word's hash: a member and its word are the same dictionary key

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)
