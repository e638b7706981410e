"""An on-disk cache for results that are costly to recompute and cheap to key: compiled counts
(:mod:`paramcount.analyze.counting.compiled`) and proof outcomes (:mod:`paramcount.analyze.prove`).

Nothing here imports SymPy or TensorFlow (``count`` reads it on every call).

- **Keys.** A caller hashes everything that could change the value (:func:`key`); the entry is a
  file named by that hash, so a changed input never finds a stale entry — it finds none.
- **Files.** Where the folder is, when it is not used, and how entries are checked on read and
  written atomically: :mod:`paramcount.runtime.cache_store` (its functions are re-exported here).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Mapping
from pathlib import Path

from paramcount.runtime.cache_store import (  # re-exported: the cache's files, read and written safely
    CACHE_DIR_ENV,
    CACHE_ENV,
    cache_dir,
    enabled,
    get,
    get_json,
    prune,
    put,
    put_json,
)

try:  # the built-in SHA-256: hashlib would load OpenSSL, a noticeable share of a compiled count
    from _sha256 import sha256 as _sha256
except ImportError:  # pragma: no cover - other Python builds
    from hashlib import sha256 as _sha256

__all__ = [
    "CACHE_DIR_ENV",
    "CACHE_ENV",
    "cache_dir",
    "enabled",
    "get",
    "get_json",
    "key",
    "put",
    "put_json",
    "source_fingerprint",
]

def key(*parts: object) -> str:
    """A hex digest of ``parts`` (strings, bytes, numbers, None, or nested tuples/lists of them)."""
    h = _sha256()
    _feed(h, parts)
    return h.hexdigest()


def _feed(h, obj: object) -> None:
    # Length-prefixed, type-tagged: ("ab", "c") and ("a", "bc") hash differently.
    if isinstance(obj, (tuple, list)):
        h.update(b"(%d" % len(obj))
        for x in obj:
            _feed(h, x)
        h.update(b")")
        return
    data = obj if isinstance(obj, bytes) else repr(obj).encode()
    h.update(b"%s%d:" % (type(obj).__name__.encode(), len(data)))
    h.update(data)


_FINGERPRINT: str | None = None


def source_fingerprint() -> str:
    """A digest of paramcount's own source and preset files (and its version).

    Anything a formula tree, its hyperparameters, presets or the count's wording derive from is
    in these files, so an entry keyed by this digest is never used after any of them changes
    (a checkout, an edit, an upgrade). Reading ~110 small files costs a few milliseconds.
    """
    global _FINGERPRINT
    if _FINGERPRINT is None:
        from paramcount import __version__

        root = Path(__file__).resolve().parents[1]  # the package, paramcount/
        h = _sha256(f"paramcount {__version__}\0".encode())
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".py", ".toml")) and not name.endswith("_test.py"):  # not tests
                    p = os.path.join(dirpath, name)
                    with open(p, "rb") as fh:
                        data = fh.read()
                    h.update(os.path.relpath(p, root).encode() + b"\0%d\0" % len(data) + data)
        _FINGERPRINT = h.hexdigest()
    return _FINGERPRINT


# --- proofs ---------------------------------------------------------------------------------------
PROOF_KIND = "proofs"
PROOF_FORMAT = 1  # bump when what a proof depends on changes shape (it keys reports/proofs.json too;
# the cached outcome's own shape is versioned apart: paramcount.analyze.prove.stored.FORMAT)
# (torch and transformers build the transformers proofs' references). Distributions README's
# set-up installs (pinned in constraints.txt), so a fresh checkout's keys are the committed ones:
# no `tensorflow-cpu`, which an older set-up installed beside `tensorflow` (the same version).
_LIBRARIES = ("tensorflow", "keras", "keras-hub", "sympy", "numpy", "torch", "transformers")


@functools.cache
def _module_sources(module_name: str, whole_package: bool = False) -> list[tuple[str, bytes]]:
    """The source of a module (of a package: its ``__init__``, or with ``whole_package`` every
    file of it), found without importing it."""
    found = _locate(module_name)
    if found is None:
        return [(module_name, b"<not found>")]
    origin, package_dir = found
    files = [origin]
    if package_dir and whole_package:
        files = []
        for dirpath, dirnames, filenames in os.walk(package_dir):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            files += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py")]
    out = []
    for f in files:
        with open(f, "rb") as fh:
            out.append((os.path.basename(f), fh.read()))
    return out


def _locate(module_name: str) -> tuple[str, str | None] | None:
    """(source file, package folder or None) of a module, without importing it or its parents
    (``importlib.util.find_spec("reference_models.<family>")`` would import TensorFlow)."""
    import importlib.util

    top, *rest = module_name.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not os.path.isfile(spec.origin):
        return None
    origin = spec.origin
    package_dir = os.path.dirname(origin) if spec.submodule_search_locations else None
    for part in rest:
        if package_dir is None:
            return None
        sub = os.path.join(package_dir, part)
        if os.path.isfile(os.path.join(sub, "__init__.py")):
            origin, package_dir = os.path.join(sub, "__init__.py"), sub
        elif os.path.isfile(sub + ".py"):
            origin, package_dir = sub + ".py", None
        else:
            return None
    return origin, package_dir


def _local_imports(module_name: str, source: bytes) -> set[str]:
    """Modules of the same top-level package that ``source`` imports (helpers a builder uses)."""
    import ast

    top = module_name.partition(".")[0]
    found: set[str] = set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.partition(".")[0] == top}
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:  # relative: resolve against the importing module's package
                parent = module_name.rsplit(".", node.level)[0]
                base = f"{parent}.{node.module}"
            if base.partition(".")[0] == top:
                found.add(base)
                found |= {f"{base}.{a.name}" for a in node.names}  # `from pkg import module`
    return found


def builder_sources(reference) -> list[tuple[str, bytes]]:
    """The source a reference builder runs: its module and, transitively, the modules of the same
    package it imports (``reference_models._build`` for ``reference_models.table``)."""
    bound: tuple = ()
    while isinstance(reference, functools.partial):
        bound = (*reference.args, *sorted(reference.keywords.items()), *bound)
        reference = reference.func
    target = getattr(reference, "target", None)  # paramcount.model.weights.Named: by name, unimported
    if isinstance(target, str) and isinstance(getattr(reference, "args", None), tuple):
        module_name, _, qual = target.partition(":")
        qual += repr((*reference.args, *bound))
    elif callable(reference):
        module_name = getattr(reference, "__module__", "") or ""
        qual = getattr(reference, "__qualname__", None) or type(reference).__qualname__
        if bound:
            qual += repr(bound)
    else:
        module_name, _, qual = str(reference).partition(":")
    seen: dict[str, list[tuple[str, bytes]]] = {}
    todo = [module_name]
    while todo:
        name = todo.pop()
        if name in seen or not name:
            continue
        srcs = _module_sources(name)
        if srcs and srcs[0][1] == b"<not found>" and name != module_name:
            continue  # `from pkg import function`, not a module
        seen[name] = srcs
        for _, src in srcs:
            todo += sorted(_local_imports(name, src) - set(seen))
    return [(qual, b"")] + [(f"{n}/{f}", src) for n in sorted(seen) for f, src in seen[n]]


@functools.cache
def library_versions() -> dict[str, str]:
    import importlib.metadata as md
    import platform

    # major.minor: a patch release of Python builds the same models
    out = {"python": ".".join(platform.python_version_tuple()[:2])}
    for lib in _LIBRARIES:
        with contextlib.suppress(md.PackageNotFoundError):
            # without a local version label: torch 2.13.0+cpu (a machine's own wheel) and the
            # 2.13.0 PyPI serves build the same shapes, and must key the same proofs
            out[lib] = md.version(lib).split("+")[0]
    return out


def declared(obj, costs: bool = True) -> str:
    """A stable text of declared data (a mapping table, a transformers declaration): dataclasses
    field by field, mappings sorted, SymPy exactly, a function by its source and the values it
    captured (Gemma 2's soft caps), never an address. Without ``costs``, the fields that say what
    a forward costs (marked ``metadata={"cost": True}``: a leaf's costs, a class's cache and
    window, what is not formulated) are left out: a parameter proof does not depend on them."""
    import dataclasses
    import inspect

    import sympy

    def again(x) -> str:
        return declared(x, costs)

    if isinstance(obj, sympy.Basic):
        return sympy.srepr(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        inner = ", ".join(f"{f.name}={again(getattr(obj, f.name))}"
                          for f in dataclasses.fields(obj)
                          if f.compare and (costs or not f.metadata.get("cost")))  # not a memo
        return f"{type(obj).__name__}({inner})"
    if isinstance(obj, Mapping):
        return "{" + ", ".join(sorted(f"{again(k)}: {again(v)}" for k, v in obj.items())) + "}"
    if isinstance(obj, (frozenset, set)):
        return "{" + ", ".join(sorted(again(x) for x in obj)) + "}"
    if isinstance(obj, (tuple, list)):
        return "(" + ", ".join(again(x) for x in obj) + ")"
    if isinstance(obj, functools.partial):
        return f"partial({again(obj.func)}, {again(obj.args)}, {again(obj.keywords)})"
    if callable(obj) and not isinstance(obj, type):
        try:
            src = inspect.getsource(obj)
        except (OSError, TypeError):
            src = getattr(obj, "__qualname__", type(obj).__qualname__)
        cells = [c.cell_contents for c in (getattr(obj, "__closure__", None) or ())]
        return f"{src.strip()} with {again(tuple(cells))}" if cells else src.strip()
    return repr(obj)


def proof_key(arch, prove_module: str = "paramcount.analyze.prove") -> str:
    """Everything a proof of ``arch`` depends on: the formula tree and the hyperparameters'
    roles and constraints as exact expressions (``srepr``: symbols with their assumptions), the
    reference builder's source and the declared tables it builds from (``from_table``; the
    transformers declaration), the libraries' versions, and the prover's own source (with the
    verifier's attribution of weights to components, which it runs)."""
    import sympy

    def sr(e) -> str:
        return "None" if e is None else sympy.srepr(e)

    tree = [(path, sr(t.expr), sr(t.times), sr(t.active_times), t.match, t.part, t.trainable)
            for path, _, t in arch.formula.walk()]
    roles = ([sr(s) for s in arch.required],
             [(sr(s), sr(e)) for s, e in arch.optional.items()],
             [(sr(s), sr(e)) for s, e in arch.fixed.items()])
    constraints = [(type(c).__name__, [(k, sr(v) if isinstance(v, sympy.Basic) else repr(v))
                                       for k, v in sorted(vars(c).items())])
                   for c in (*arch.constraints, *(r.constraint for r in getattr(arch, "notes", ())))]
    method = [src for m in (prove_module, "paramcount.analyze.verify", "paramcount.analyze.builds",
                            "paramcount.core.formula", "paramcount.core.hparams") for src in _module_sources(m, True)]
    # a cost proof (a tree in the context T: paramcount.analyze.costs.quantity_arch) depends on
    # what the declarations say a forward costs; a parameter proof does not
    from paramcount.core.symbols import T

    costs = T in arch.required
    tables = [declared(getattr(arch, "mapping", None), costs),
              declared(getattr(arch, "transformers", None), costs)]
    return key(PROOF_FORMAT, arch.id, tree, roles, constraints,
               builder_sources(arch.reference), tables, sorted(library_versions().items()), method)


def cached_proof(arch, prove_uncached, encode, decode):
    """``prove_uncached(arch)``, or its outcome from the cache when nothing it depends on has
    changed (:func:`proof_key`). Outcomes are stored as JSON (``encode``: proof -> data,
    ``decode``: data -> proof, raising on anything it does not recognise: a miss)."""
    if not enabled():
        return prove_uncached(arch)
    digest = proof_key(arch)
    data = get_json(PROOF_KIND, digest)
    if data is not None:
        try:
            return decode(data)
        except Exception:  # an entry of another shape is a miss
            pass
    proof = prove_uncached(arch)
    if proof.status != "error":  # an error may be the environment's (memory, a flaky build)
        try:
            data = encode(proof)
        except (NotImplementedError, TypeError, ValueError):  # nothing to store it as
            return proof
        if put_json(PROOF_KIND, digest, data) is not None:
            prune(PROOF_KIND, 2000)  # some 40 builtin architectures' worth of edits
    return proof
