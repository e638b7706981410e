"""What ``paramcount count`` prints, from the numbers alone (SymPy-free).

The numbers come from one of two evaluators of the same formula tree: SymPy
(:func:`paramcount.render.counted`) or the tree compiled to integer arithmetic
(:mod:`paramcount.compiled`, what ``count`` uses). Both hand a :class:`Counted` to the one
formatter here, so the two paths cannot word a count differently.
"""

from __future__ import annotations

from typing import NamedTuple

from paramcount.context import Context, context_json, context_lines, human

__all__ = ["Counted", "count_text", "count_json"]


class Counted(NamedTuple):
    """A count at one resolved hyperparameter set, everything ``count`` shows."""

    arch: str
    name: str | None
    hparams: dict[str, int]
    rows: tuple[tuple[int, str, int], ...]  # (depth, component label, count), tree order
    components: dict  # nested name -> count (leaves), as Term.breakdown
    total: int  # trainable
    nontrainable: int
    active: int | None  # per token, under a router; None without one
    context: Context


def count_text(c: Counted) -> str:
    hp = ", ".join(f"{k}={v}" for k, v in c.hparams.items())
    lines = [f"{c.arch}{' [' + c.name + ']' if c.name else ''} ({hp})"]
    for depth, label, count in c.rows:
        lines.append(f"{'  ' * depth + label:<44}{count:>18,}")
    lines.append(f"{'total (trainable)':<44}{c.total:>18,}  ({human(c.total)})")
    if c.nontrainable:
        lines.append(f"{'non-trainable (not in the total)':<44}{c.nontrainable:>18,}")
    if c.active is not None:
        lines.append(f"{'active per token':<44}{c.active:>18,}  ({human(c.active)})")
    lines += context_lines(c.context)
    return "\n".join(lines)


def count_json(c: Counted) -> dict:
    out = {"arch": c.arch, "hparams": dict(c.hparams), "total": c.total,
           "components": c.components}
    if c.nontrainable:
        out["nontrainable"] = c.nontrainable  # components include these; "total" does not
    if c.name:
        out["preset"] = c.name
    if c.active is not None:
        out["active"] = c.active
    out["context"] = context_json(c.context)
    return out
