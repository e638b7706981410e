"""What ``paramcount solve`` prints: a solution for one unknown (:mod:`paramcount.analyze.solve`)
or for two (:mod:`paramcount.analyze.solve_moe`), as text or JSON."""

from __future__ import annotations

import sympy

from paramcount.analyze.solve import Candidate, Solution
from paramcount.analyze.solve_memory import NOT_COUNTED, MemorySolution
from paramcount.analyze.solve_moe import Pair, PairSolution
from paramcount.core.formula import pretty
from paramcount.core.numcore import human
from paramcount.output.count_output import size_text

__all__ = ["memory_json", "memory_text", "solution_json", "solution_text"]


def _single_text(sol: Solution) -> str:
    given = ", ".join(f"{k}={v}" for k, v in sol.given.items())
    expr = pretty(sympy.expand(sol.total_expr))
    what = "a total" if sol.of == "total" else "an active count per token"
    lines = [f"{sol.arch}: {sol.symbol} for {what} of {sol.target:,} ({human(sol.target)})"
             + (f" with {given}" if given else ""),
             f"{sol.of}({sol.symbol}) = {expr}",
             f"valid {sol.symbol}: {sol.step}"]
    best = sol.best
    for label, c in (("below", sol.below), ("above", sol.above)):
        if c is None:
            lines.append(f"  nearest {label}: none")
            continue
        mark = "  <- closest" if c is best else ""
        lines.append(f"  nearest {label}: {sol.symbol} = {c.value:,}  {sol.of} {c.total:,} "
                     f"({human(c.total)}, {c.difference:+,}){mark}")
    return "\n".join(lines)


def _single_json(sol: Solution) -> dict:
    def cand(c: Candidate | None):
        if c is None:
            return None
        return {"value": c.value, "total": c.total, "difference": c.difference,
                "hparams": dict(c.hparams)}

    return {"arch": sol.arch, "for": sol.symbol, "target": sol.target, "given": dict(sol.given),
            "valid": sol.step, "total_expr": str(sympy.expand(sol.total_expr)),
            "below": cand(sol.below), "above": cand(sol.above), "closest": cand(sol.best)}


def solution_text(sol: Solution | PairSolution) -> str:
    """What ``paramcount solve`` prints."""
    if isinstance(sol, Solution):
        return _single_text(sol)
    given = ", ".join(f"{k}={v}" for k, v in sol.given.items())
    lines = [f"{sol.arch}: {sol.symbol} and {sol.also} for a total of {sol.target:,} "
             f"({human(sol.target)}) at {sol.active:,} ({human(sol.active)}) active per token"
             + (f" with {given}" if given else ""),
             f"{sol.also}: the value whose active count is nearest {human(sol.active)} at each "
             f"{sol.symbol}; valid {sol.symbol}: multiples of {sol.step}"]
    for label, c in (("below", sol.below), ("above", sol.above)):
        if c is None:
            lines.append(f"  nearest {label}: none")
            continue
        mark = "  <- closest" if c is sol.best else ""
        lines.append(f"  nearest {label}: {sol.symbol} = {c.value:,}, {sol.also} = "
                     f"{c.inner.value:,}  total {c.total:,} ({human(c.total)}, "
                     f"{c.total - sol.target:+,}), active {c.inner.total:,} "
                     f"({human(c.inner.total)}, {c.inner.total - sol.active:+,}){mark}")
    return "\n".join(lines)


def solution_json(sol: Solution | PairSolution) -> dict:
    """What ``paramcount solve --json`` prints."""
    if isinstance(sol, Solution):
        return _single_json(sol)

    def pair(c: Pair | None):
        if c is None:
            return None
        return {sol.symbol: c.value, sol.also: c.inner.value, "total": c.total,
                "active": c.inner.total, "hparams": dict(c.inner.hparams)}

    return {"arch": sol.arch, "for": [sol.symbol, sol.also], "target": sol.target,
            "active": sol.active, "given": dict(sol.given), "below": pair(sol.below),
            "above": pair(sol.above), "closest": pair(sol.best)}


# --- solve --memory -----------------------------------------------------------------------------
def memory_text(sol: MemorySolution) -> str:
    """What ``solve --memory`` prints: the largest context (or batch) that fits, and why."""
    what = "context T" if sol.unknown == "T" else "batch B"
    fixed = f"B={sol.other:,}" if sol.unknown == "T" else f"T={sol.other:,}"
    w = f"{sol.weight_bytes:,} B ({size_text(sol.weight_bytes)})"
    lines = [f"{sol.arch}: the largest {what} ({fixed}) whose weights in {sol.dtype.name} and KV "
             f"cache in {sol.cache_dtype.name} fit {sol.memory:,} B ({size_text(sol.memory)})",
             f"  weights: {w}" + ("" if sol.weight_bytes_exact else
                                  f", an estimate ({sol.dtype.text})")]
    if sol.value is None:
        lines.append(f"  nothing fits: at {sol.unknown}=1 they take {sol.next_used:,} B "
                     f"({size_text(sol.next_used or 0)})")
    elif sol.unbounded:
        lines.append(f"  every {what} fits: the cache stops growing (at {sol.unknown}="
                     f"{sol.value:,} they take {sol.used:,} B, {size_text(sol.used or 0)})")
    else:
        lines.append(f"  {sol.unknown} = {sol.value:,}: {sol.used:,} B ({size_text(sol.used or 0)}); "
                     f"{sol.unknown} = {sol.value + 1:,} would take {sol.next_used:,} B")
    claim = ("proven for all hyperparameters against transformers" if sol.kv_status == "proven"
             else f"{sol.kv_status}: {sol.kv_why}")
    lines += [f"  the KV-cache formula: {claim}", f"  {NOT_COUNTED}"]
    return "\n".join(lines)


def memory_json(sol: MemorySolution) -> dict:
    """What ``solve --memory --json`` prints."""
    return {"arch": sol.arch, "for": sol.unknown, "fixed": {"B" if sol.unknown == "T" else "T": sol.other},
            "memory": sol.memory, "dtype": sol.dtype.name, "cache_dtype": sol.cache_dtype.name,
            "weights": {"bytes": sol.weight_bytes, "exact": sol.weight_bytes_exact},
            "value": sol.value, "unbounded": sol.unbounded, "bytes": sol.used,
            "next_bytes": sol.next_used, "kv_status": sol.kv_status, "kv_why": sol.kv_why,
            "not_counted": NOT_COUNTED}
