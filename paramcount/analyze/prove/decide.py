"""Deciding formula ≡ Keras for one case: interpolation nodes × Schwartz–Zippel points.

**Thresholds.** A case is *proven* only when (1) no point shows a difference, (2) the stated
Schwartz–Zippel bound on a false proof is below :data:`TARGET_ERROR` (computed exactly, as a
fraction), and (3) no exception went unexplained. The one exception explained is a build that
fails *because the values are too large* (:func:`too_large`: out of memory, an integer overflow,
a dimension beyond int32); then the values are drawn from smaller ranges and the case's message
says so. Any other exception ends the case as ``error``, naming it; a bound not below the
threshold ends it as ``inconclusive``.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable, Mapping
from fractions import Fraction

import sympy

from paramcount.analyze.prove.case import Case, layer_counts
from paramcount.analyze.prove.oracle import Contested, Oracle
from paramcount.analyze.prove.residual import explain_case
from paramcount.analyze.prove.results import CaseProof, Residual

TARGET_ERROR = 1e-9  # a case is proven only with a bound on a false proof below this
# at most 24 random points per node: a case whose bound needs 17 (Qwen MoE against transformers,
# its values kept below 2^20) is proven; a case reaching the target with fewer draws as before
MIN_POINTS, MAX_POINTS = 2, 24
# hyperparameter values < 2^bits; smaller only after a size failure. 2^22 and 2^20 between 2^24
# and 2^16: a transformers build whose weight exceeds torch's int64 byte count at 2^24 (Gemma's
# q_proj, M·d_k × d_e with d_k free) was left with 2^16, where a parameter of a degree-3 product
# (d_e = M_kv·M'·d_e') draws from 16 values and no bound reaches TARGET_ERROR.
VALUE_BITS = (24, 22, 20, 16, 12)

_SIZE_WORDS = ("out of memory", "int32", "overflow", "too large", "exceeds", "resourceexhausted")


def too_large(exc: BaseException) -> bool:
    """Whether a build failed because its values were too large (and smaller values may work):
    the only failure the prover retries after."""
    if isinstance(exc, (MemoryError, OverflowError)):
        return True
    text = f"{type(exc).__name__}: {exc}".lower()
    return any(w in text for w in _SIZE_WORDS)


def _first_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:300]}"


def classify(case: Case, oracle: Oracle) -> Case:
    """Keep as structural the candidate parameters that change the number of Keras weights: one
    build with every parameter at 2, one more per candidate set to 3 (tiny models). Experts
    stacked along one axis of one weight (KerasHub's MoE layers) then take large random values
    like any width; a layer count takes the small interpolation nodes."""
    always: set[sympy.Symbol] = set()
    for s in layer_counts(case.arch):
        if s in case.given:
            always |= case.given[s].free_symbols & set(case.free)
    measure = sorted(case.structural - always, key=lambda s: s.name)
    if not measure:
        return case
    base = {x: 2 for x in case.free}
    n0 = oracle.weight_count(base)
    keep = {x for x in measure if oracle.weight_count({**base, x: 3}) != n0}
    return dataclasses.replace(case, structural=frozenset(always | keep))


def ranges(case: Case, bits: int) -> dict[sympy.Symbol, tuple[int, int]]:
    """Random ranges [lo, hi) for the non-structural parameters: every hyperparameter value a
    product of them stays below 2^bits (weight dimensions stay within TensorFlow's int32)."""
    share: dict[sympy.Symbol, int] = {}
    for e in case.given.values():
        k = max((sympy.Poly(t, *case.free).total_degree() if t.free_symbols else 0)
                for t in sympy.Add.make_args(e))
        for x in e.free_symbols:
            share[x] = min(share.get(x, bits), max(2, bits // max(k, 1)))
    return {x: (2 ** (share.get(x, bits) - 1), 2 ** share.get(x, bits))
            for x in case.free if x not in case.structural}


def nodes(case: Case) -> dict[sympy.Symbol, tuple[int, ...]]:
    return {x: tuple(range(1, case.bound(x) + 2))
            for x in sorted(case.structural, key=lambda s: s.name)}


def plan(case: Case, rngs: Mapping[sympy.Symbol, tuple[int, int]]) -> tuple[int, Fraction]:
    """Points per node and the exact bound on a false proof they give: a nonzero residual of
    degree ≤ δ_x in each x survives one draw with probability ≤ Σ δ_x/|S_x| (Schwartz–Zippel,
    per-variable form), p independent draws with ≤ (Σ δ_x/|S_x|)^p."""
    if not rngs:
        return 1, Fraction(0)
    per_point = sum(Fraction(case.bound(x), hi - lo) for x, (lo, hi) in rngs.items())
    if per_point >= 1:
        return MAX_POINTS, Fraction(1)
    target = Fraction(TARGET_ERROR)
    points = MIN_POINTS
    while per_point ** points >= target and points < MAX_POINTS:
        points += 1
    return points, per_point ** points


def _witness(case: Case, oracle: Oracle, rngs, points: int, salt: str):
    """The first point (over every node, ``points`` random draws each) with a difference."""
    r = case.rng(salt)
    nd = nodes(case)
    for node in itertools.product(*nd.values()):
        base = dict(zip(nd, node, strict=True))
        for _ in range(points):
            for _ in range(100):  # keep sub-case inequalities (d_emb ≠ d_e)
                point = {**base, **{x: r.randrange(lo, hi) for x, (lo, hi) in rngs.items()}}
                if case.admits(point):
                    break
            if any(oracle(point).values()):
                return point
    return None


def prove_case(case: Case, *, explain_residuals: bool = True,
               make_oracle: Callable[[Case], Oracle] = Oracle) -> CaseProof:
    """Decide formula ≡ Keras for one case (see the package docstring for the method).
    ``make_oracle``: another reference's oracle (a derived formula's torch builds)."""
    start = time.perf_counter()
    oracle = make_oracle(case)

    def result(status, rngs=None, points=0, bound=Fraction(0), residuals=(), message=""):
        return CaseProof(
            arch=case.arch.id, case=case.label, status=status,
            free=tuple(x.name for x in case.free), parametrization=case.notes,
            bounds={x.name: case.bound(x) for x in case.free},
            structural={k.name: v for k, v in nodes(case).items()} if rngs is not None else {},
            ranges={k.name: v for k, v in sorted((rngs or {}).items(), key=lambda kv: kv[0].name)},
            points_per_node=points, error_bound=float(bound) if status == "proven" else 0.0,
            builds=oracle.builds, seconds=time.perf_counter() - start,
            residuals=tuple(residuals), message=message)

    try:
        case = classify(case, oracle)
    except Exception as exc:
        return result("error", message=f"the {oracle.framework} build of a tiny model failed: "
                                       f"{_first_line(exc)}")
    oracle.case = case
    size_failures: list[str] = []
    for bits in VALUE_BITS:
        rngs = ranges(case, bits)
        points, bound = plan(case, rngs)
        try:
            witness = _witness(case, oracle, rngs, points, f"prove:{bits}")
        except Contested as exc:
            return result("refuted", rngs, points, message=str(exc))
        except Exception as exc:
            if not too_large(exc):
                return result("error", rngs, points, message=(
                    f"a {oracle.framework} build raised {_first_line(exc)}; not a size failure, "
                    "so the case is not proven"))
            size_failures.append(f"below 2^{bits}: {_first_line(exc)}")
            continue
        note = (f"values kept below 2^{bits}: builds failed for size with larger ones "
                f"({'; '.join(size_failures)})") if size_failures else ""
        if witness is None:
            if bound < Fraction(TARGET_ERROR):
                return result("proven", rngs, points, bound, message=note)
            return result("inconclusive", rngs, points, message="; ".join(filter(None, [
                f"no difference found, but the bound on a false proof ({float(bound):.1e}) is not "
                f"below {TARGET_ERROR:g}", note])))
        diff = oracle(witness)
        msg = "at " + ", ".join(f"{k}={v}" for k, v in case.hparams(witness).items()) + ": " + \
            "; ".join(f"{k} {v:+,}" for k, v in diff.items() if v)
        residuals: tuple[Residual, ...] = ()
        if explain_residuals:
            try:
                residuals = explain_case(case, oracle, rngs)
            except Exception as exc:
                msg += f"; residual not recovered ({_first_line(exc)})"
        return result("refuted", rngs, points, residuals=residuals, message=msg)
    return result("error", message="the Keras build failed for size at every value budget tried: "
                                   + "; ".join(size_failures))
