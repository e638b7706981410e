"""What ``count --context`` adds, as text and JSON: the weights' bytes, the KV cache and the
forward FLOPs at T tokens × B sequences, each by component, each with what stands behind it
(proven for all hyperparameters, or not, and why). Formats :class:`paramcount.analyze.costs.Costs`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paramcount.core.numcore import human
from paramcount.output.count_output import size_text

if TYPE_CHECKING:
    from paramcount.analyze.cost_result import Costs, Quantity

__all__ = ["cost_json", "cost_lines"]

TITLES = {"kv": "KV cache", "flops": "forward FLOPs", "decode": "FLOPs per generated token"}
MEANING = {
    "kv": "elements the cache holds after the forward (keys and values, or a state), as "
          "transformers allocates them",
    "flops": "FLOPs of one forward over B × T tokens as torch's FlopCounterMode counts them: 2 per "
             "multiply-accumulate of every matrix product (attention over all T keys)",
    "decode": "FLOPs of one more token in each of the B sequences, against the cache the T tokens "
              "left, as torch's FlopCounterMode counts them: each dense map on the new token, its "
              "query against the positions the cache keeps and its own",
}
#: Named conventions beside a quantity (Quantity.conventions): (its label, what it means).
CONVENTIONS = {
    "per_head": ("per head, decompressed (a convention)",
                 "a convention, not a measurement: the same positions and states, every query "
                 "head keeping its own key and value, decompressed (no key/value heads shared, "
                 "no latent)"),
}


def _in_order(c: Costs) -> list[tuple[str, Quantity]]:
    """The quantities ``c`` holds, in :data:`TITLES`' order."""
    return [(name, c.quantities[name]) for name in TITLES if name in c.quantities]


def _claim(q: Quantity) -> str:
    if q.status == "proven":
        return "proven for all hyperparameters against transformers' meta-device measurement"
    return f"{q.status}: {q.why}" if q.why else q.status


def cost_lines(c: Costs) -> list[str]:
    """The lines ``count --context`` appends (label left, figure right)."""
    w = f"{c.weight_bytes:,} B"
    lines = [f"memory and compute at T={c.context:,} tokens × B={c.batch:,} (as transformers builds it)",
             f"{'weights in ' + c.dtype.name:<44}{w:>26}  ({size_text(c.weight_bytes)}"
             + (")" if c.weight_bytes_exact else f"; an estimate: {c.dtype.text})")]
    for name, q in _in_order(c):
        if q.total is None:
            lines.append(f"{TITLES[name]:<44}{'—':>26}  {_claim(q)}")
            continue
        if name == "kv":
            b = c.kv_bytes
            shown = f"{q.total:,} elements" + (f" = {b:,} B ({size_text(b)}, {c.cache_dtype.name})"
                                               if b is not None else "")
            lines.append(f"{TITLES[name]:<44}{shown}")
        else:
            lines.append(f"{TITLES[name]:<44}{q.total:>26,}  ({human(q.total)})")
        lines.append(f"  {_claim(q)}")
        for depth, label, value in q.rows:
            lines.append(f"{'  ' * depth + label:<44}{value:>26,}")
        for conv, value in q.conventions:
            label = "  " + CONVENTIONS[conv][0]
            lines.append(f"{label:<44}{value:>26,}  (the class keeps {value - q.total:,} fewer)")
    return lines


def cost_json(c: Costs) -> dict:
    """``count --context --json``'s ``"costs"``."""
    out: dict = {"context": c.context, "batch": c.batch, "dtype": c.dtype.name,
                 "weights": {"bytes": c.weight_bytes, "exact": c.weight_bytes_exact,
                             "parameters": c.parameters, "dtype": c.dtype.text}}
    for name, q in _in_order(c):
        entry: dict = {"meaning": MEANING[name], "status": q.status, "formula": q.formula}
        if q.why:
            entry["why"] = q.why
        if q.total is not None:
            entry.update(total=q.total, components=q.breakdown)
        if name == "kv" and q.total is not None:
            entry.update(elements=q.total, bytes=c.kv_bytes, dtype=c.cache_dtype.name)
        if q.conventions:
            entry["conventions"] = {conv: {"total": value, "meaning": CONVENTIONS[conv][1]}
                                    for conv, value in q.conventions}
        out[name] = entry
    return out
