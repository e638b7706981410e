"""Size a mixture of experts by two budgets: the total and the parameters one token uses
(``paramcount solve minimax_m2 --target 100e9 --active 10e9 --for d_e --and d_fe``: how wide
for 100B total at 10B active, with E, the top-k and the shared experts held).

Two unknowns for two counts. For each valid value x of the first (``--for``), the second
(``--and``) is the valid value whose active count is nearest the active budget
(:func:`paramcount.analyze.solve.solve` with ``of="active"``); the total at that pair then falls as x
grows (a wider model spends more of a fixed active budget on what every token uses, attention
and embeddings, and less on experts, of which only k of E are active), so the x where the
total crosses the budget is found by exact bisection over the valid values of x. Only on the
whole: the second unknown's nearest value holds over a run of x (a plateau), along which the
total rises, so the nearest pair on either side is sought in the plateaus around that crossing
(each found by bisection, the total monotone within one). Formula only, every count an exact
integer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from paramcount.analyze import solve
from paramcount.core.errors import HyperparameterError, ParamcountError
from paramcount.model import registry
from paramcount.model.registry import Architecture

__all__ = ["Pair", "PairSolution", "solve_any", "solve_pair"]

_MAX_DOUBLINGS = 64


@dataclass(frozen=True)
class Pair:
    value: int  # the first unknown's
    inner: solve.Candidate  # the second unknown's value, its hyperparameters and active count
    total: int


@dataclass(frozen=True)
class PairSolution:
    arch: str
    symbol: str
    also: str
    target: int
    active: int
    given: Mapping[str, int]
    below: Pair | None  # the largest total ≤ target
    above: Pair | None  # the smallest total ≥ target
    step: int

    @property
    def best(self) -> Pair:
        options = [c for c in (self.below, self.above) if c is not None]
        return min(options, key=lambda c: (abs(c.total - self.target), c.total > self.target))


def solve_pair(arch: Architecture | str, target: int | str, active: int | str, unknown: str,
               also: str, given: Mapping[str, int] | None = None) -> PairSolution:
    arch = registry.get(arch) if isinstance(arch, str) else arch
    if not arch.formula.has_active:
        raise HyperparameterError(f"{arch.id} has no experts: every parameter is active, so "
                                  "--active is its --target")
    total_n, active_n = solve.parse_target(target), solve.parse_target(active)
    if active_n > total_n:
        raise HyperparameterError(f"--active {active}: more than the --target {target}")
    if unknown == also:
        raise HyperparameterError(f"--for {unknown} and --and {also}: two different unknowns")
    given = {k: v for k, v in (given or {}).items() if k not in (unknown, also)}
    # the first unknown's valid values: the step its constraints impose
    step = solve._step(arch, solve.symbols.get(unknown), given)

    def at(k: int) -> Pair | None:
        """The pair at the first unknown = k·step; None where no valid second value meets the
        active budget (what every token uses already exceeds it) or k is not valid."""
        x = k * step
        try:
            inner = solve.solve(arch, active_n, also, {**given, unknown: x}, of="active").best
        except ParamcountError:
            return None
        if inner.total > active_n and inner.value == 1:  # even the narrowest is over budget
            return None
        # the trainable total, as count gives it (a router's score-correction buffer is not in it)
        return Pair(x, inner, arch.count(inner.hparams))

    first = at(1)
    if first is None:
        raise HyperparameterError(f"no valid {also} for {arch.id} at {unknown} = {step} and an "
                                  f"active count of {active_n:,}")
    if first.total <= total_n:  # even the narrowest model is under the total budget
        return PairSolution(arch.id, unknown, also, total_n, active_n, dict(given), first, None,
                            step)
    lo, hi = 1, 2  # at(lo).total > target; find hi with at(hi) None or total ≤ target
    for _ in range(_MAX_DOUBLINGS):
        p = at(hi)
        if p is None or p.total <= total_n:
            break
        lo, hi = hi, hi * 2
    else:
        raise HyperparameterError(f"no {unknown} up to {hi * step:,} brings {arch.id}'s total "
                                  f"down to {total_n:,}")
    while hi - lo > 1:  # at(lo) above the target; at(hi) below it or past the active budget
        mid = (lo + hi) // 2
        p = at(mid)
        if p is not None and p.total > total_n:
            lo = mid
        else:
            hi = mid
    below, above = _nearest_in_plateaus(at, lo, total_n)
    return PairSolution(arch.id, unknown, also, total_n, active_n, dict(given), below, above, step)


_MAX_PLATEAUS = 32


def _nearest_in_plateaus(at, lo: int, target: int) -> tuple[Pair | None, Pair | None]:
    """The pairs nearest ``target`` from below and above, given ``lo`` with at(lo) above it and
    at(lo + 1) not. A plateau is a run of indices where the second unknown keeps its value
    (it only falls as the index grows): the total rises along one, and falls from one to the
    next. From lo's plateau, forward while a plateau can still hold a total in (best below,
    target], backward while one can hold a total in (target, best above)."""
    memo: dict[int, Pair | None] = {}

    def pt(k: int) -> Pair | None:
        if k not in memo:
            memo[k] = at(k) if k >= 1 else None
        return memo[k]

    def same(k: int, value: int) -> bool:
        p = pt(k)
        return p is not None and p.inner.value == value

    def edge(k: int, way: int) -> int:
        """The last index from k, going ``way`` (±1), on k's plateau."""
        value, reach = pt(k).inner.value, 1  # type: ignore[union-attr]
        while same(k + way * reach, value) and reach < 2 ** 62:
            k, reach = k + way * reach, reach * 2
        out, inside = k + way * reach, k  # same(inside), not same(out)
        while abs(out - inside) > 1:
            mid = (inside + out) // 2
            inside, out = (mid, out) if same(mid, value) else (inside, mid)
        return inside

    below: Pair | None = None
    above: Pair | None = None

    def visit(start: int, end: int) -> None:
        nonlocal below, above
        first = pt(start)
        if first.total > target:  # type: ignore[union-attr]
            found = [first]
        else:  # the last index at or below the target: the total rises along the plateau
            a, b = start, end + 1
            while b - a > 1:
                mid = (a + b) // 2
                a, b = (mid, b) if pt(mid).total <= target else (a, mid)  # type: ignore[union-attr]
            found = [pt(a)] + ([pt(a + 1)] if a < end else [])
        for p in found:
            if p is None:
                continue
            if p.total <= target and (below is None or p.total > below.total):
                below = p
            if p.total >= target and (above is None or p.total < above.total):
                above = p

    start, end = edge(lo, -1), edge(lo, 1)
    first_start = start
    for _ in range(_MAX_PLATEAUS):  # forward from lo's plateau
        visit(start, end)
        if pt(end + 1) is None or (below is not None and pt(end).total <= below.total):  # type: ignore[union-attr]
            break
        start, end = end + 1, edge(end + 1, 1)
    end = first_start - 1
    for _ in range(_MAX_PLATEAUS):  # backward: plateaus whose smallest total may be nearer above
        if pt(end) is None:
            break
        start = edge(end, -1)
        if above is not None and pt(start).total >= above.total:  # type: ignore[union-attr]
            break
        visit(start, end)
        end = start - 1
    return below, above


def solve_any(arch, target, unknown, given, active=None, also=None):
    """What ``paramcount solve`` asks: one unknown for a total, or (``--active`` with ``--and``)
    two for a total and an active count."""
    if active is None and also is None:
        return solve.solve(arch, target, unknown, given)
    if active is None or also is None:
        raise HyperparameterError("--active and --and go together: a total and an active count "
                                  "fix two hyperparameters (--for one, --and the other)")
    return solve_pair(arch, target, active, unknown, also, given)
