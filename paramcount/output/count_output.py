"""What ``paramcount count`` prints, from the numbers alone (SymPy-free).

The numbers come from one of two evaluators of the same formula tree (:mod:`paramcount.analyze.counting`):
SymPy, or the tree compiled to integer arithmetic (what ``count`` uses). Both hand a
:class:`~paramcount.analyze.counting.Counted` to the one formatter here, so the two paths cannot
word a count differently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paramcount.analyze.context import BYTES_CONVENTION, EMBEDDING_RULE
from paramcount.core.numcore import human

if TYPE_CHECKING:
    from paramcount.analyze.context import Context
    from paramcount.analyze.counting import Counted

__all__ = ["context_json", "context_lines", "count_json", "count_text", "human", "size_text"]


def size_text(b: int) -> str:
    """A byte count in binary units, three significant figures (``12.5 GiB``)."""
    for div, unit in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if b >= div:
            return f"{b / div:.3g} {unit}"
    return f"{b} B"


def context_lines(ctx: Context) -> list[str]:
    """Lines appended to ``paramcount count`` (label left, figure right)."""
    lines = [("non-embedding (Kaplan et al. 2020)", f"{ctx.non_embedding:,}",
              f"({human(ctx.non_embedding)})")]
    for a in ctx.approximations:
        lines.append((f"{a.name}", f"{a.value:,}", f"({a.error_text()} vs {a.compared_to})"))
    b = ctx.bytes()
    for k in ("fp32", "bf16", "int8"):
        lines.append((f"weights in {k}", f"{b[k]:,} B", f"({size_text(b[k])})"))
    lines.append(("with Adam state (fp32 + 2 moments)", f"{b['adam_fp32']:,} B",
                  f"({size_text(b['adam_fp32'])})"))
    return [f"{label:<44}{fig:>18}  {extra}" for label, fig, extra in lines]


def context_json(ctx: Context) -> dict:
    return {
        "non_embedding": ctx.non_embedding,
        "embedding": ctx.embedding,
        "embedding_rule": EMBEDDING_RULE,
        "approximations": [
            {"name": a.name, "formula": a.formula, "value": a.value, "exact": a.exact,
             "compared_to": a.compared_to,
             "relative_error": float(a.relative_error),
             "relative_error_exact": f"{a.relative_error.numerator}/{a.relative_error.denominator}",
             "source": a.note}
            for a in ctx.approximations],
        "bytes": ctx.bytes(),
        "bytes_convention": BYTES_CONVENTION,
    }


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
