"""Proof outcomes as plain data, for the on-disk cache (:func:`paramcount.runtime.cache.cached_proof`):
JSON, read back field by field, never unpickled. Residuals keep their exact polynomials as
:mod:`paramcount.core.exprdata` expressions over the declared symbols."""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.analyze.prove.results import ArchProof, CaseProof, Residual
from paramcount.core import exprdata

__all__ = ["decode", "encode"]

FORMAT = 1


def _residual(r: Residual) -> dict:
    return {"component": r.component,
            "expr": None if r.expr is None else exprdata.encode(r.expr),
            "weights": list(r.weights), "note": r.note}


def encode(proof: ArchProof) -> dict:
    """``proof`` as JSON-able data (NotImplementedError for a residual it cannot write)."""
    return {"format": FORMAT, "arch": proof.arch, "cases": [
        {"case": c.case, "status": c.status, "free": list(c.free),
         "parametrization": list(c.parametrization),
         "bounds": [[k, v] for k, v in c.bounds.items()],
         "structural": [[k, list(v)] for k, v in c.structural.items()],
         "ranges": [[k, list(v)] for k, v in c.ranges.items()],
         "points_per_node": c.points_per_node, "error_bound": c.error_bound,
         "builds": c.builds, "seconds": c.seconds,
         "residuals": [_residual(r) for r in c.residuals], "message": c.message}
        for c in proof.cases]}


def _strs(x) -> tuple[str, ...]:
    if not isinstance(x, list) or not all(isinstance(s, str) for s in x):
        raise ValueError(f"not a list of names: {x!r}")
    return tuple(x)


def _ints(x) -> tuple[int, ...]:
    if not isinstance(x, list) or not all(type(i) is int for i in x):
        raise ValueError(f"not a list of integers: {x!r}")
    return tuple(x)


def _typed(x, kind):
    if type(x) is not kind and not (kind is float and type(x) is int):
        raise ValueError(f"not a {kind.__name__}: {x!r}")
    return x


def _case(arch: str, c: Mapping) -> CaseProof:
    residuals = tuple(Residual(_typed(r["component"], str),
                               None if r["expr"] is None else exprdata.decode(r["expr"]),
                               _strs(r["weights"]), _typed(r["note"], str))
                      for r in c["residuals"])
    ranges = {}
    for k, v in c["ranges"]:
        lo, hi = _ints(v)
        ranges[_typed(k, str)] = (lo, hi)
    return CaseProof(arch, _typed(c["case"], str), _typed(c["status"], str), _strs(c["free"]),
                     _strs(c["parametrization"]),
                     {_typed(k, str): _typed(v, int) for k, v in c["bounds"]},
                     {_typed(k, str): _ints(v) for k, v in c["structural"]}, ranges,
                     _typed(c["points_per_node"], int), _typed(c["error_bound"], float),
                     _typed(c["builds"], int), _typed(c["seconds"], float), residuals,
                     _typed(c["message"], str))


def decode(data: Mapping) -> ArchProof:
    """The proof ``data`` holds; raises (ValueError, KeyError, TypeError) on anything else."""
    if data.get("format") != FORMAT:
        raise ValueError("another format")
    arch = _typed(data["arch"], str)
    return ArchProof(arch, tuple(_case(arch, c) for c in data["cases"]))
