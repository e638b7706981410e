"""What a proof returns: data only (rendered by :mod:`paramcount.output.proofs`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy

from paramcount.analyze.prove.case import UNCLAIMED
from paramcount.core.formula import pretty

# The order in which an architecture's outcome is the worst of its cases'.
STATUSES = ("refuted", "error", "inconclusive", "proven")


@dataclass(frozen=True)
class Residual:
    """Keras − formula for one component, as a polynomial in the original symbols."""

    component: str
    expr: sympy.Expr | None  # None when no polynomial within the degree bounds fits
    weights: tuple[str, ...] = ()  # for the unclaimed pseudo-component: the weights' paths
    note: str = ""

    def text(self) -> str:
        if self.expr is None:
            return f"{self.component}: not a polynomial within the degree bounds ({self.note})"
        e = pretty(self.expr)
        sign = "" if e.startswith("-") else "+"
        if self.component == UNCLAIMED:
            what = "Keras weights no formula component claims: " + ", ".join(self.weights)
        elif self.expr.could_extract_minus_sign():
            what = "the formula counts more than Keras builds"
        else:
            what = "Keras builds more than the formula counts"
        return f"{self.component}: {sign}{e} ({what})"

    def to_json(self) -> dict:
        return {"component": self.component,
                "residual": None if self.expr is None else str(self.expr),
                "weights": list(self.weights), "note": self.note}


@dataclass(frozen=True)
class CaseProof:
    """The outcome of one case: ``proven``, ``refuted``, ``inconclusive`` (no difference found,
    but the bound on a false proof is not below the threshold) or ``error``."""

    arch: str
    case: str
    status: str
    free: tuple[str, ...]
    parametrization: tuple[str, ...]
    bounds: Mapping[str, int]  # δ_x, the assumed degree bound per free parameter
    structural: Mapping[str, tuple[int, ...]]  # interpolation nodes per structural parameter
    ranges: Mapping[str, tuple[int, int]]  # [lo, hi) per random parameter
    points_per_node: int
    error_bound: float  # Schwartz–Zippel bound on a false "proven" (0: exact)
    builds: int
    seconds: float
    residuals: tuple[Residual, ...] = ()
    message: str = ""

    @property
    def method(self) -> str:
        parts = []
        if self.structural:
            parts.append("exact interpolation in " + ", ".join(
                f"{k} ∈ {{{', '.join(map(str, v))}}}" for k, v in self.structural.items()))
        if self.ranges:
            parts.append(f"Schwartz–Zippel at {self.points_per_node} random point"
                         f"{'s' if self.points_per_node != 1 else ''} per node in "
                         + ", ".join(self.ranges))
        return " × ".join(parts) or "one build (no free parameter)"

    def to_json(self) -> dict:
        return {
            "arch": self.arch, "case": self.case, "status": self.status, "method": self.method,
            "free": list(self.free), "parametrization": list(self.parametrization),
            "degree_bounds": dict(self.bounds),
            "interpolation_nodes": {k: list(v) for k, v in self.structural.items()},
            "random_ranges": {k: list(v) for k, v in self.ranges.items()},
            "points_per_node": self.points_per_node, "error_bound": self.error_bound,
            "builds": self.builds, "seconds": round(self.seconds, 3),
            "residuals": [r.to_json() for r in self.residuals], "message": self.message,
        }


@dataclass(frozen=True)
class ArchProof:
    arch: str
    cases: tuple[CaseProof, ...]

    @property
    def status(self) -> str:
        states = {c.status for c in self.cases}
        return next((s for s in STATUSES if s in states), "proven")

    @property
    def builds(self) -> int:
        return sum(c.builds for c in self.cases)

    @property
    def seconds(self) -> float:
        return sum(c.seconds for c in self.cases)

    @property
    def error_bound(self) -> float:
        return sum(c.error_bound for c in self.cases)

    def to_json(self) -> dict:
        return {"arch": self.arch, "status": self.status, "builds": self.builds,
                "seconds": round(self.seconds, 3), "error_bound": self.error_bound,
                "cases": [c.to_json() for c in self.cases]}
