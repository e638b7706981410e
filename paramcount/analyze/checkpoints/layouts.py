"""Published layouts that transformers 5 loads into other tensors: a mixture of experts stored
one tensor per expert (``block_sparse_moe.experts.3.w1.weight``,
``mlp.experts.3.gate_proj.weight``), which transformers stacks into one ``(E, ·, ·)`` tensor per
layer (``gate_up_proj``: gate and up concatenated along axis 1; ``down_proj``). Declared per
``model_type`` (:class:`~paramcount.model.checkpoint_tables.Layout`) by each family folder's
``checkpoints.py``, as transformers' ``conversion_mapping`` declares the same conversion; applied
to shapes only, so the stored tensors are attributed to the formula tree as transformers names
them. A group with a missing expert is left alone (and shows as unclaimed).
"""

from __future__ import annotations

import dataclasses
import re

from paramcount.analyze.checkpoints.tensors import StoredTensor
from paramcount.model import discovery
from paramcount.model.checkpoint_tables import Layout

__all__ = ["LAYOUTS", "Layout", "apply"]

LAYOUTS: dict[str, Layout] = discovery.family_tables("checkpoints", "LAYOUTS")


def apply(tensors: list[StoredTensor], model_type: object) -> list[StoredTensor]:
    layout = LAYOUTS.get(model_type) if isinstance(model_type, str) else None
    if layout is None:
        return tensors
    renamed = []
    for t in tensors:
        name = t.weight_name
        for pattern, repl in layout.renames:
            name = re.sub(pattern, repl, name)
        renamed.append(dataclasses.replace(t, logical_name=name) if name != t.weight_name else t)
    groups: dict[tuple[str, str], dict[tuple[int, int], StoredTensor]] = {}
    rest = []
    for t in renamed:
        m = re.match(layout.experts, t.weight_name)
        if m and m.group(3) in layout.pieces:
            target, slot = layout.pieces[m.group(3)]
            groups.setdefault((m.group(1), target), {})[(int(m.group(2)), slot)] = t
        else:
            rest.append(t)
    for (prefix, target), parts in groups.items():
        joined = _stack(prefix, target, parts)
        rest.extend([joined] if joined is not None else parts.values())
    return rest


def _stack(prefix: str, target: str, parts: dict[tuple[int, int], StoredTensor]
           ) -> StoredTensor | None:
    experts = sorted({e for e, _ in parts})
    slots = sorted({s for _, s in parts})
    if experts != list(range(len(experts))) or len(parts) != len(experts) * len(slots):
        return None
    first = [parts[(0, s)] for s in slots]
    if any(len(t.shape) != 2 for t in parts.values()) or any(
            parts[(e, s)].shape != first[i].shape for e in experts for i, s in enumerate(slots)):
        return None
    rows = sum(t.shape[0] for t in first)
    ts = list(parts.values())
    dtypes = sorted({t.dtype for t in ts})
    return StoredTensor(f"{prefix}[0-{len(experts) - 1}] ({len(ts)} tensors)", "+".join(dtypes),
                        (len(experts), rows, first[0].shape[1]), sum(t.nbytes for t in ts),
                        sum(t.logical for t in ts), logical_name=prefix + target)
