"""A derivation's time budget, and refusals that carry every reason.

``count --config`` of a model type no table reads, and ``derive``, derive under a budget
(``--budget SECONDS``, else ``$PARAMCOUNT_BUDGET``, else :data:`DEFAULT_SECONDS`), measured from
the command's start: the builds, the constraints' search and the fits ask :func:`check` as
they go, and past the budget the derivation stops with an :class:`OverBudget` refusal that says
so, carrying the reasons it had found by then (the templates no expression fits). Without
:func:`until` (the library's own callers: the sweep, the tests) there is no budget. The proof
that follows a derivation is not bounded (a cut-off proof would be recorded as one).

The clock is ``time.monotonic``, system-wide on Linux, so the command's process sets the
deadline and the torch worker that derives keeps it.

A :class:`Refusal` carries its reasons across processes (an exception's ``__dict__`` travels with
it), so the command prints every one of them under ``--json`` and ``--verbose``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from paramcount.analyze.derive.probe import DeriveError

__all__ = ["BUDGET_ENV", "DEFAULT_SECONDS", "OverBudget", "Refusal", "check", "note", "seconds",
           "until"]

DEFAULT_SECONDS = 60
BUDGET_ENV = "PARAMCOUNT_BUDGET"


def seconds(option: int | None = None) -> int:
    """The budget in force: the option, else ``$PARAMCOUNT_BUDGET`` (a positive integer), else
    :data:`DEFAULT_SECONDS`."""
    from paramcount.analyze.budget import setting

    return setting(option, BUDGET_ENV, DEFAULT_SECONDS, 1, "a positive integer (seconds)")


class Refusal(DeriveError):
    """A derivation refused, with every reason (``what: why``), the first in its message."""

    def __init__(self, message: str, reasons: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(message)
        self.reasons = tuple(reasons)


class OverBudget(Refusal):
    """The derivation ran past its budget."""


_deadline: float | None = None  # time.monotonic() past which check() refuses
_seconds: int | None = None
_found: list | None = None  # the derivation's failures so far ((what, why)), noted by core
_cls: str | None = None  # the class derived, noted with them


@contextlib.contextmanager
def until(deadline: float | None, seconds: int | None) -> Iterator[None]:
    """Derivations in this block stop at ``deadline`` (a ``time.monotonic()`` value; None: no
    budget); ``seconds`` is the budget as the user gave it, for the message."""
    global _deadline, _seconds, _found, _cls
    before = _deadline, _seconds, _found, _cls
    _deadline, _seconds, _found, _cls = deadline, seconds, None, None
    try:
        yield
    finally:
        _deadline, _seconds, _found, _cls = before


def note(cls: str, failures: list) -> None:
    """The class derived and its derivation's list of failures, read when the budget runs
    out."""
    global _found, _cls
    _found, _cls = failures, cls


def check(doing: str) -> None:
    """Refuse (:class:`OverBudget`) when the budget has run out; ``doing``: what the derivation
    was doing, for the message."""
    if _deadline is None or time.monotonic() <= _deadline:
        return
    found = [f"{what}: {why}" for what, why in (_found or ())]
    so_far = (f"; {len(found)} reason{'s' if len(found) != 1 else ''} found so far, the first: "
              f"{found[0]}" if found else "")
    who = f"cannot derive {_cls}: " if _cls else ""
    raise OverBudget(f"{who}stopped at the budget of {_seconds} s while {doing} (--budget "
                     f"SECONDS gives it longer){so_far}", found)
