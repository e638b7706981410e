"""Derivations as JSON data (never code, never pickle), cached on disk.

The key holds what could change a derivation: the model type, class and base config, the torch
and transformers versions, and paramcount's own sources (:func:`paramcount.runtime.cache.key`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from paramcount.analyze.derive.core import Derivation, Template

__all__ = ["cached", "cached_proof", "from_json", "to_json"]

KIND = "derive"


def _poly(p) -> list:
    return [[c, [_atom(a) for a in atoms]] for c, atoms in p]


def _atom(a):  # an atom may hold an atom (a ceiling of a floor): lists all the way down
    return a if isinstance(a, str) else [_atom(x) for x in a]


def _unatom(a):
    return a if isinstance(a, str) else tuple(_unatom(x) for x in a)


def _unpoly(p) -> tuple:
    return tuple((int(c), tuple(_unatom(a) for a in atoms)) for c, atoms in p)


def to_json(d: Derivation) -> dict[str, Any]:
    return {
        "model_type": d.model_type, "class": d.cls, "versions": d.versions,
        "fields": d.fields, "flags": list(d.flags), "inert": list(d.inert),
        "unvaried": d.unvaried, "constraints": [list(c) for c in d.constraints],
        "templates": [{"name": t.name, "role": t.role, "mult": _poly(t.mult),
                       "dims": [_poly(x) for x in t.dims]} for t in d.templates],
        "failures": [list(f) for f in d.failures], "builds": d.builds,
        "explicit": d.explicit, "counts": {k: list(v) for k, v in d.counts.items()},
        "domain": [list(c) for c in d.domain], "untied": list(d.untied), "equal": d.equal,
        "conditional": [list(c) for c in d.conditional],
    }


def from_json(obj: Mapping[str, Any]) -> Derivation:
    d = Derivation(obj["model_type"], obj["class"], dict(obj["versions"]),
                   {k: int(v) for k, v in obj["fields"].items()}, tuple(obj["flags"]),
                   tuple(obj["inert"]), dict(obj["unvaried"]))
    d.constraints = [(str(a), str(b), str(c)) for a, b, c in obj["constraints"]]
    d.templates = [Template(t["name"], t["role"], _unpoly(t["mult"]),
                            tuple(_unpoly(x) for x in t["dims"])) for t in obj["templates"]]
    d.failures = [(str(a), str(b)) for a, b in obj["failures"]]
    d.builds = int(obj["builds"])
    d.explicit = dict(obj.get("explicit", {}))
    d.counts = {k: (str(a), str(b), str(c)) for k, (a, b, c) in obj.get("counts", {}).items()}
    d.domain = [(str(a), str(b), str(c)) for a, b, c in obj.get("domain", [])]
    d.untied = [str(t) for t in obj.get("untied", [])]
    d.equal = {str(a): str(b) for a, b in obj.get("equal", {}).items()}
    d.conditional = [(str(o), str(a), str(b), str(f)) for o, a, b, f in obj.get("conditional", [])]
    return d


# what a proof is made from beside the derivation: the prover, the comparison, the formula tree
_PROOF_SOURCES = ("analyze/prove/*.py", "analyze/verify.py", "analyze/builds.py", "core/formula.py",
                  "core/symbols.py", "core/hparams.py", "model/registry.py")


# modules of this package that make no derivation or proof (they compare, sweep, or write one)
_NOT_DERIVING = ("crosscheck.py", "sweep.py", "plugin.py")


def fingerprint(cls: str | None = None, *, proof: bool = False) -> str:
    """A digest of what a derivation is made from: the derive code (this package and the weight
    reader it uses) and, for a transformers class, the source of its modeling module; not the
    rest of paramcount, so an edit elsewhere keeps a warm cache warm."""
    import hashlib
    import sys
    from pathlib import Path

    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    files = [*sorted(f for f in here.glob("*.py") if f.name not in _NOT_DERIVING),
             here.parents[2] / "reference_models" / "hf.py"]
    for pattern in _PROOF_SOURCES if proof else ():
        files += sorted(here.parents[1].glob(pattern))
    for f in files:
        h.update(f.name.encode() + b"\0" + (f.read_bytes() if f.is_file() else b""))
    if cls and "transformers" in sys.modules:
        import transformers

        mod = sys.modules.get(getattr(getattr(transformers, cls, None), "__module__", "") or "")
        path = getattr(mod, "__file__", None)
        if path:
            h.update(Path(path).read_bytes())
    return h.hexdigest()


def cached(model_type: str, cls: str, config: Mapping[str, Any],
           make: Callable[[], Derivation]) -> tuple[Derivation, bool]:
    """The derivation from the cache, or made and stored; and whether it came from the cache."""
    from paramcount.runtime import cache

    digest = cache.key(KIND, model_type, cls, json.dumps(config, sort_keys=True, default=str),
                       sorted(cache.library_versions().items()), fingerprint(cls))
    found = cache.get_json(KIND, digest)
    if isinstance(found, dict):
        try:
            return from_json(found), True
        except (KeyError, TypeError, ValueError):
            pass  # an entry of another shape is a miss
    d = make()
    cache.put_json(KIND, digest, to_json(d))
    return d, False


def cached_proof(d: Derivation, make: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The proof's cases (``{"case", "status", "message"}``) of a derivation, from the cache
    (keyed by the derivation itself and paramcount's sources) or made and stored."""
    from paramcount.runtime import cache

    digest = cache.key(KIND + "-proof", json.dumps(to_json(d), sort_keys=True),
                       sorted(cache.library_versions().items()), fingerprint(d.cls, proof=True))
    found = cache.get_json(KIND + "-proof", digest)
    if isinstance(found, list) and all(isinstance(c, dict) for c in found):
        return found
    cases = make()
    cache.put_json(KIND + "-proof", digest, cases)
    return cases
