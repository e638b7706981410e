"""``count --context`` without SymPy: what :func:`paramcount.analyze.costs.evaluate` gives (the
weights' bytes, the KV cache and the forward FLOPs, each by component, each with the proof
record's outcome), from a table compiled once per architecture
(:mod:`paramcount.analyze.counting.cost_table`) beside the count's own
(:mod:`paramcount.analyze.counting.compiled`), evaluated with integers.

**What the entry's key holds.** Beyond the count's key (paramcount's sources, the architecture),
the outcomes a table states depend on the proof record (``reports/proofs.json``) and on what a
proof's key reads outside paramcount: the reference builders' sources (``reference_models``)
and the installed libraries' versions. So the key also holds the record's size and a checksum of
its content, a checksum of the reference builders' sources, the Python version and the
modification times of the interpreter's package folders (an install or an upgrade there changes
them): any of these changed, the entry is not found, and the SymPy path answers and compiles
anew.

**Deferring.** As the count's compiled path does, this one defers (the full command line
answers, with its own message and exit status) on anything it does not answer exactly: a
violated constraint (a context beyond a position table's n rows), a quantized dtype (int4 and
nf4: their bytes are an estimate the SymPy path makes), a class it has no tree for.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from paramcount.analyze.cost_result import WITHHELD, Costs, Quantity, no_position_left
from paramcount.analyze.counting.compiled import Defer, broken, resolve
from paramcount.analyze.counting.table import FORMAT
from paramcount.core import numcore
from paramcount.core.exprdata import value
from paramcount.runtime import cache

__all__ = ["KIND", "RECORD", "Costs", "Quantity", "evaluate_costs", "load_costs", "store_costs"]

KIND = "costs"
_ROOT = Path(__file__).resolve().parents[3]  # the checkout holding the package
#: The proof record ``count --context`` reads (paramcount.analyze.prove.record.PROJECT_RECORD).
RECORD = _ROOT / "reports" / "proofs.json"
_BUILDERS = _ROOT / "reference_models"


# --- the key -------------------------------------------------------------------------------------
def _checksum(path: Path) -> tuple[int, int] | None:
    import zlib

    try:
        data = path.read_bytes()
    except OSError:
        return None
    return len(data), zlib.crc32(data)


def _outside() -> list:
    """What the recorded outcomes depend on beyond paramcount's sources (see the module's text)."""
    record = RECORD if RECORD.is_file() else None
    if record is None:
        return [None]  # no record: every outcome reads "no proof recorded", whatever else changed
    builders = []
    if _BUILDERS.is_dir():
        for dirpath, dirnames, filenames in os.walk(_BUILDERS):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            builders += [(os.path.relpath(os.path.join(dirpath, f), _BUILDERS),
                          _checksum(Path(dirpath, f))) for f in sorted(filenames)
                         if f.endswith(".py")]
    folders = []
    for p in sys.path:
        if p.endswith(("site-packages", "dist-packages")):
            try:
                folders.append((p, os.stat(p).st_mtime_ns))
            except OSError:
                continue
    return [str(record), _checksum(record), builders, list(sys.version_info[:2]), folders]


def _digest(arch_id: str) -> str:
    return cache.key(FORMAT, KIND, cache.source_fingerprint(), arch_id, _outside())


def store_costs(arch) -> bool:
    """Compile ``arch``'s costs into the cache (best effort: False when they cannot be stored)."""
    from paramcount.analyze.counting.cost_table import generate_costs

    digest = _digest(arch.id)  # before reading the record: one changed meanwhile is a miss
    try:
        table = generate_costs(arch, RECORD if RECORD.is_file() else None)
    except NotImplementedError:
        return False
    if cache.put_json(KIND, digest, table) is None:
        return False
    cache.prune(KIND, 1000)
    return True


def load_costs(arch_id: str) -> dict | None:
    """The compiled costs of ``arch_id``, or None when not (yet, or not intact) in the cache."""
    table = cache.get_json(KIND, _digest(arch_id))
    if not isinstance(table, dict) or table.get("format") != FORMAT or table.get("id") != arch_id \
            or table.get("kind") != KIND:
        return None
    return table


# --- evaluation (no SymPy) -----------------------------------------------------------------------
def _pick(cns: dict, hparams: Mapping[str, int]) -> dict:
    """The class transformers builds ``hparams`` with (``Transformers.pick``): the first whose
    fixed options they meet, else the architecture's own (Defer where it has no tree)."""
    classes = cns["classes"]
    chosen = next((c for c in classes if all(hparams.get(n, v) == v for n, v in c["always"])),
                  classes[0] if classes else None)
    if chosen is None or chosen["trees"] is None:
        raise Defer("a class without a tree")
    return chosen


def _whole(v) -> int:
    """An exact value that is a whole number (a windowed cache's average over the layers times
    their count), as an int; Defer where it is not."""
    if isinstance(v, int):
        return v
    if v.denominator != 1:
        raise Defer(f"{v} is not whole")
    return int(v.numerator)


def _quantity(q: str, tree: dict, values: Mapping[str, int], status: str, message: str
              ) -> Quantity:
    hp = resolve(tree, values)  # the quantity's constraints: T ≤ n, w ≥ 2 (Defer where broken)
    try:
        counts = numcore.node_counts([p for p, _, _ in tree["nodes"]],
                                     [value(e, hp) for e in tree["times_exprs"]],
                                     [value(e, hp) for e in tree["own_exprs"]])
    except ValueError as exc:
        raise Defer(str(exc)) from None
    rows = tuple((d, label, counts[i]) for i, (_, d, label) in enumerate(tree["nodes"]) if d)
    named = []
    if "per_head" in tree:  # the named convention beside the KV cache (costs.evaluate's)
        per_head = _whole(value(tree["per_head"], hp))
        if per_head != counts[0]:
            named.append(("per_head", per_head))
    return Quantity(q, counts[0], numcore.nested(tree["components"], counts), tree["formula"],
                    status, message, rows, tuple(named))


def evaluate_costs(cns: dict, hparams: Mapping[str, int], preset: str | None, context: int,
                   batch: int, dtype, parameters: int) -> Costs:
    """:func:`paramcount.analyze.costs.evaluate` from the table: at resolved ``hparams`` (of
    ``preset``, whose cost fields it reads, or None), ``batch`` sequences of ``context`` tokens,
    ``parameters`` weights in ``dtype`` (one of a fixed width: a quantized one defers)."""
    from paramcount.model import dtypes

    if dtype.bytes is None:
        raise Defer(f"{dtype.name}: an estimate")
    if broken(cns["subspace"], hparams):  # outside the sub-space a proof draws from
        raise Defer("outside a proof's sub-space: costs.evaluate says so")
    config = cns["configs"].get(preset, {}) if preset else {}
    out = {}
    cls = None
    for q in cns["quantities"]:
        why = cns["reasons"][q]
        if why is not None:
            out[q] = Quantity(q, None, None, "", "not formulated", why)
            continue
        if cls is None:
            cls = _pick(cns, hparams)
            if set(config) - {key for key, _, _ in cls["fields"]}:
                # a field of the file the trees do not read (a layout's cached heads):
                # costs.config_problem says what it means
                raise Defer("a cost field the table does not read")
        tree = cls["trees"][q]
        status, message = cns["statuses"][q]
        if status in WITHHELD:  # a refuted formula prints no number
            out[q] = Quantity(q, None, None, tree["formula"], status, message)
            continue
        values = dict(hparams)
        full = no_position_left({**values, "T": context}) if q == "decode" else None
        if full is not None:
            out[q] = Quantity(q, None, None, "", "not formulated", full)
            continue
        for key, name, default in cls["fields"]:  # costs.at: the preset's field, else the class's
            given = config.get(key, default)
            values.setdefault(name, cns["no_window"] if given is None else given)
        out[q] = _quantity(q, tree, {**values, "T": context, "B": batch}, status, message)
    return Costs(context, batch, dtype, dtypes.cache_dtype(dtype), parameters,
                 parameters * dtype.bytes, True, out)
