"""What ``derive``, ``count --config`` of a model type no table reads, and ``count --derived``
print: a derived formula's result, rendered as text or JSON.

The work runs in a torch worker (:mod:`paramcount.cli.derive`), which returns a
:class:`DerivedCount` (or a :class:`Beside`) and no text; the command prints what this module
makes of it, so one place words a derivation however it was reached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paramcount.output.count_output import count_json, count_text

if TYPE_CHECKING:
    from paramcount.analyze.counting import Counted
    from paramcount.analyze.derive.core import Derivation

__all__ = ["Beside", "CacheRegime", "DerivedCache", "DerivedCount", "beside_json", "beside_text",
           "cache_json", "cache_text", "derive_json", "derive_text", "derived_count_json",
           "derived_count_text", "header", "held", "proof_line"]


@dataclass(frozen=True)
class DerivedCount:
    """A derived formula counted at one set of its fields' values."""

    derivation: Derivation
    counted: Counted  # the derived tree's count, named as the text names the values
    by_role: dict  # the derivation's own count at those values (trainable, frozen, buffers)
    hit: bool = False  # the derivation came from the cache
    ties: dict = field(default_factory=dict)  # paramcount.analyze.derive.tree.ties
    total: Any = None  # the derived formula's total, a SymPy expression (derive)
    proof: list[dict] | None = None  # each case's outcome (None: not proven)
    seconds: float = 0.0  # the work's time (derive's text)

    @property
    def proven(self) -> bool:
        return self.proof is None or all(c["status"] == "proven" for c in self.proof)


@dataclass(frozen=True)
class Beside:
    """``count ARCH --derived``: the derived count beside the hand-written tree with its
    transformers deltas, and the cross-check of the two for all hyperparameters."""

    derived: DerivedCount
    hand: int  # the hand-written trainable count with transformers' deltas
    agrees: bool  # the cross-check's verdict
    cases: tuple[tuple[str, str, str], ...]  # (case, how it was decided, message)
    held: dict  # fields held at a value, and why

    @property
    def trainable(self) -> int:
        return self.derived.by_role["trainable"]

    @property
    def code(self) -> int:
        """The exit status: 1 when the two disagree."""
        return 0 if self.agrees and self.trainable == self.hand else 1


def header(d: Derivation, hit: bool, ties: dict) -> list[str]:
    """What a derivation found: its builds, fields, layer counts, ties and constraints."""
    from paramcount.analyze.derive.held import reason_kind

    v = d.versions
    libs = ", ".join(f"{k} {x}" for k, x in v.items()) or "?"
    lines = [f"formula derived from {d.cls} builds (model type {d.model_type}; {libs}; "
             f"{d.builds} builds"
             + (", from the cache" if hit else "") + "): not hand-written",
             "hyperparameters found: " + ", ".join(
                 f"{k}={val}" + (" (flag)" if k in d.flags else "") for k, val in d.fields.items())]
    if d.counts:  # paramcount.analyze.derive.layers
        lines.append("layer counts read from per-layer lists: " + "; ".join(
            f"{n} = how many {k!r} entries {f} has" if k else
            f"{n} = how many layers of {f} are below {length}"
            for n, (f, length, k) in d.counts.items()))
    if d.inert:
        lines.append("fields that change no weight: " + ", ".join(d.inert))
    nones = [k for k, why in d.unvaried.items() if reason_kind(why) == "none"]
    if nones:
        lines.append("fields that are None here (not varied; give one an integer to derive "
                     "with it): " + ", ".join(nones))
    pins = {k: why for k, why in d.unvaried.items() if reason_kind(why) == "pinned"}
    if pins:  # values the config's validator pins (paramcount.analyze.derive.prepare.pinned)
        lines.append("held where the config class pins them: " + "; ".join(
            f"{k} ({why})" for k, why in pins.items()))
    if d.equal:  # fields that follow a hyperparameter (paramcount.analyze.derive.prepare)
        lines.append("fields equal to a hyperparameter (every build with them unequal refused): "
                     + ", ".join(f"{k} = {to}" for k, to in d.equal.items()))
    same: dict[tuple, list[str]] = {}  # the formula is exact at the held values only
    for k, value in d.held.items():
        same.setdefault((value, d.unvaried.get(k) or "none built"), []).append(k)
    for (value, why), ks in same.items():  # (or one changes a weight only where the base
        # hides it: paramcount.analyze.derive.inert_where)
        why = why if reason_kind(why) == "unread" else \
            f"no variation built another model: {why}"
        lines.append(f"held at {value}: {', '.join(ks)} ({why})")
    for t, (to, flags) in ties.items():
        lines.append(f"tied: {t} is {to} when {' = '.join(flags)} = 1 (counted once, there)")
    if d.constraints:  # each one a build breaking it alone refused
        lines.append("constraints: " + "; ".join(
            f"{b} divides {a}" if op == "divides" else f"{a} {op} {b}"
            for op, a, b in d.constraints))
    if d.conditional:  # each one a build breaking it alone, with its flag set, refused
        lines.append("constraints where a flag is set: " + "; ".join(
            f"{a} {op} {b} when {f} = 1" for op, a, b, f in d.conditional))
    if d.domain:  # orders no refused build showed required: the formula derived within them
        lines.append("formula's domain: " + "; ".join(f"{a} {op} {b}" for op, a, b in d.domain)
                     + " (where it was derived and proven)")
    return lines


def held(d: Derivation | None) -> dict[str, Any]:
    """The fields a derivation's formula holds only at one value: held ints, fields left None."""
    from paramcount.analyze.derive.held import fixed

    return {} if d is None else fixed(d)


def proof_line(cases: list[dict], d: Derivation | None = None) -> str:
    """The proof's outcome, and what it covers: all hyperparameters, or all values of the
    others with the held fields at their values."""
    from paramcount.analyze.derive.held import said

    n = sum(c["status"] == "proven" for c in cases)
    fixed = held(d)
    scope = f"for all values of the others, with {said(fixed)} held" if fixed \
        else "all hyperparameters"
    line = (f"proof (derived formula ≡ transformers build, {scope}; bound on a false "
            f"proof < 1e-9): {n} of {len(cases)} cases proven")
    bad = [f"  {c['case']}: {c['status']}: {c['message']}" for c in cases
           if c["status"] != "proven"]
    return "\n".join([line, *bad])


# --- derive --------------------------------------------------------------------------------------
def derive_text(r: DerivedCount) -> str:
    from paramcount.core.formula import pretty

    lines = [*header(r.derivation, r.hit, r.ties), count_text(r.counted), f"N = {pretty(r.total)}"]
    if r.proof is not None:
        lines.append(proof_line(r.proof, r.derivation))
    lines.append(f"({r.seconds:.1f} s)")
    return "\n".join(lines)


def derive_json(r: DerivedCount) -> dict:
    from paramcount.analyze.derive.store import to_json

    out: dict[str, Any] = {"derivation": to_json(r.derivation), "formula": str(r.total),
                           "count": r.by_role, "held": held(r.derivation),
                           "breakdown": count_json(r.counted._replace(name=None))}
    if r.proof is not None:
        out["proof"] = r.proof
    return out


# --- count --config of a model type no table reads ---------------------------------------------
def derived_count_text(r: DerivedCount) -> str:
    assert r.proof is not None  # (always proven here)
    return "\n".join([*header(r.derivation, r.hit, r.ties), count_text(r.counted),
                      proof_line(r.proof, r.derivation)])


def derived_count_json(r: DerivedCount) -> dict:
    d = r.derivation
    out = count_json(r.counted)
    out["derived"] = {"class": d.cls, "model_type": d.model_type, "versions": d.versions,
                      "by_role": r.by_role, "proof": r.proof, "held": held(d)}
    return out


# --- count --derived ---------------------------------------------------------------------------
_HOW = {"sympy": "SymPy, after the table's renaming",
        "proven": "prove's machinery, bound on a false proof < 1e-9"}


def beside_text(b: Beside) -> str:
    """Printed after the count (a blank line first)."""
    r = b.derived
    same = "=" if b.trainable == b.hand else "≠"
    within = ", ".join(f"{k}={v} ({w})" for k, (v, w) in sorted(b.held.items()))
    check = ("each way checks the other, " + (f"with {within} held" if within else
                                              "all hyperparameters")
             + ": " + ("agree" if b.agrees else "DISAGREE") + "; " + "; ".join(
                 f"{c}: {_HOW.get(h, h)}" + (f" ({m})" if m else "") for c, h, m in b.cases))
    return "\n".join(["", *header(r.derivation, False, r.ties), count_text(r.counted),
                      f"derived {b.trainable:,} {same} hand-written + transformers deltas "
                      f"{b.hand:,}", check])


def beside_json(b: Beside) -> dict:
    d = b.derived.derivation
    return {"class": d.cls, "versions": d.versions, "by_role": b.derived.by_role,
            "hand_written_transformers": b.hand, "agree": b.agrees,
            "cases": [{"case": c, "how": h, "message": m} for c, h, m in b.cases],
            "within": {k: {"value": v, "why": w} for k, (v, w) in b.held.items()},
            "breakdown": count_json(b.derived.counted._replace(name=None))}


# --- derive --kv ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class CacheRegime:
    """One regime of a derived KV cache, as ``derive --kv`` says it."""

    label: str  # "" for every T, else the side of the window ("T < sliding_window")
    formula: str  # its elements, in T, B and the config's fields (text)
    fields: dict  # the fields it reads, at the defaults
    cases: tuple  # the proof's cases ({"case", "status", "message"})
    why: str = ""  # why it is not the build's (a failure, a window), else ""
    constraints: tuple[str, ...] = ()  # the orders and divisibilities the proof is within


@dataclass(frozen=True)
class DerivedCache:
    """``derive --kv`` (``--flops``): a model type's KV cache (forward FLOPs) derived and proven,
    and its figure at one context and batch."""

    cls: str
    versions: dict
    regimes: tuple[CacheRegime, ...]
    at: dict  # the context and batch of the figure
    elements: int | None  # the cache's elements (the FLOPs) there at the defaults (None: not proven)
    seconds: float = 0.0
    quantity: str = "kv"  # or "flops"

    @property
    def proven(self) -> bool:
        return self.elements is not None


# (the figure's name and unit, what it is, what a proof holds it equal to) by quantity
_SAID = {"kv": ("KV", "elements", "KV cache", "the cache a forward of B sequences of T tokens "
                "returns", "the cache"),
         "flops": ("FLOPs", "FLOPs", "Forward FLOPs", "torch's FlopCounterMode count of a forward "
                   "of B sequences of T tokens", "the count")}


def cache_text(r: DerivedCache) -> str:
    libs = ", ".join(f"{k} {x}" for k, x in r.versions.items()) or "?"
    name, unit, title, what, same = _SAID[r.quantity]
    lines = [f"{title} derived from {r.cls}'s forwards on the meta device ({libs}): {what}, in "
             "T, B and the config's fields"]
    for g in r.regimes:
        head = f"{g.label}: " if g.label else ""
        lines.append(f"{head}{name} = {g.formula}" if g.formula else f"{head}not derived")
        if g.why:
            lines.append(f"  {g.why}")
        elif g.cases:
            n = sum(c["status"] == "proven" for c in g.cases)
            within = f" within {'; '.join(g.constraints)}" if g.constraints else ""
            lines.append(f"  proof (≡ {same} for all values of {', '.join(g.fields)}{within}; "
                         f"bound on a false proof < 1e-9): {n} of {len(g.cases)} cases proven")
            lines += [f"  {c['case']}: {c['status']}: {c['message']}" for c in g.cases
                      if c["status"] != "proven"]
    where = ", ".join(f"{k} = {v:,}" for k, v in r.at.items())
    lines.append(f"at the defaults, {where}: {r.elements:,} {unit}" if r.proven else
                 f"no figure at {where}: {same} is not proven there")
    lines.append(f"({r.seconds:.1f} s)")
    return "\n".join(lines)


def cache_json(r: DerivedCache) -> dict:
    return {"class": r.cls, "quantity": r.quantity, "versions": r.versions, "at": r.at,
            ("flops" if r.quantity == "flops" else "elements"): r.elements,
            "regimes": [{"label": g.label, "formula": g.formula, "fields": g.fields,
                         "constraints": list(g.constraints), "proof": list(g.cases),
                         "why": g.why} for g in r.regimes]}
