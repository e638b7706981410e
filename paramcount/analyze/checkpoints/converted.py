"""What a converter leaves out: the tensors of the transformers model a GGUF file does not hold
(BERT's pooler and MLM head, which llama.cpp's converter skips) or holds cut short (RoBERTa's
position table without its padding rows), as its GGUF table declares them
(:class:`paramcount.model.checkpoint_tables.Dropped`, in the family's folder).

Each is a stored-versus-built term with its reason, as a :class:`~paramcount.model.frameworks.Delta`
on the framework's tree: a leaf (or the group all of whose counted leaves are left out) removed,
or a leaf replaced by the rows the file holds. :func:`paramcount.analyze.checkpoints.check.check`
compares the file with the tree those deltas give, so the stored count differs from the formula
by named terms only, and a leaf a rule does not cover still reads as a missing tensor.
"""

from __future__ import annotations

import dataclasses

from paramcount.analyze.checkpoints.tensors import Checkpoint, StoredTensor
from paramcount.model.frameworks import Delta

__all__ = ["terms"]


def _rules(ckpt: Checkpoint):
    if ckpt.format != "GGUF":
        return ()
    from paramcount.analyze.checkpoints.gguf_names import TABLES

    table = TABLES.get(str(ckpt.metadata.get("general.architecture")))
    return table.dropped if table is not None else ()


def terms(ckpt: Checkpoint, leaves, path, held: dict[str, StoredTensor], values,
          zero: set[str]) -> list:
    """The converter's terms for ``ckpt`` against ``leaves`` (the framework's tree, names through
    ``path``), ``held`` mapping a leaf's path to the tensor it holds: (term, reason, tensors,
    stored, built, delta) each, the fields of :class:`paramcount.analyze.checkpoints.check.Extra`."""
    from paramcount.core.formula import to_int

    cfg = ckpt.config or {}
    out: list = []
    for rule in _rules(ckpt):
        if rule.model_types and cfg.get("model_type") not in rule.model_types:
            continue
        hit = {lf.path: (lf, [n for n in rule.names if lf.claims(path(n))]) for lf in leaves
               if lf.path not in zero}
        hit = {p: h for p, h in hit.items() if h[1]}
        if rule.rows is None:
            gone = {p: h for p, h in hit.items() if p not in held}
            out += _removed(rule, gone, leaves, zero, values)
            continue
        key, add = rule.rows
        k = cfg.get(key)
        if not isinstance(k, int) or isinstance(k, bool) or k + add <= 0:
            continue
        for p, (lf, _) in hit.items():
            t = held.get(p)
            if t is None or not t.shape or lf.multiplier != 1:
                continue
            cut = (k + add) * (t.numel // t.shape[0] if t.shape[0] else 0)
            if cut and to_int(lf.expr, values, p) - t.logical == cut:
                term = dataclasses.replace(lf.term, expr=lf.term.expr - cut)
                out.append((rule.term, f"{rule.reason} ({key} = {k}: {k + add} rows)",
                            (t.name,), 0, cut, Delta(_rel(p), term, rule.reason)))
    return out


def _rel(path: str) -> str:
    return path.split(".", 1)[1]


def _removed(rule, gone: dict, leaves, zero: set[str], values) -> list:
    """One term for the leaves a rule leaves out: a Delta removing their nearest common group
    when it holds no other counted leaf, else one per leaf."""
    from paramcount.core.formula import to_int

    if not gone:
        return []
    parts = [p.split(".") for p in gone]
    common = []
    for segs in zip(*parts, strict=False):  # the shortest path bounds the common part
        if len(set(segs)) > 1:
            break
        common.append(segs[0])
    group = ".".join(common)
    under = [lf.path for lf in leaves if lf.path not in zero
             and (lf.path == group or lf.path.startswith(group + "."))]
    names = tuple(n for _, ns in gone.values() for n in ns)
    count = sum(to_int(lf.expr, values, p) for p, (lf, _) in gone.items())
    if len(common) > 1 and set(under) == set(gone):
        return [(rule.term, rule.reason, names, 0, count, Delta(_rel(group), None, rule.reason))]
    return [(rule.term, rule.reason, tuple(ns), 0, to_int(lf.expr, values, p),
                  Delta(_rel(p), None, rule.reason)) for p, (lf, ns) in gone.items()]
