"""What ``count --context`` collects, from either evaluator (SymPy's,
:func:`paramcount.analyze.costs.evaluate`, or the compiled table's,
:func:`paramcount.analyze.counting.compiled_costs.evaluate_costs`): imports no SymPy, so the
compiled path and the formatter (:mod:`paramcount.output.cost_output`) share these types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paramcount.model.dtypes import Dtype

__all__ = ["WITHHELD", "Costs", "Quantity", "no_position_left"]


@dataclass(frozen=True)
class Quantity:
    """One quantity at one set: its total and breakdown (None where not formulated), its
    formula in text, and what stands behind the number (``status``: proven, refuted, not proven;
    ``why``: the reason, or the proof's message)."""

    name: str
    total: int | None
    breakdown: dict | None
    formula: str
    status: str
    why: str = ""
    rows: tuple[tuple[int, str, int], ...] = ()  # (depth, component, value), tree order
    # named conventions beside the total, (name, value), where they differ from it: the KV
    # cache's "per_head" (every query head its own key and value, decompressed: what grouped-query
    # and latent attention save; paramcount.model.cost.kv_cache)
    conventions: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Costs:
    """What ``count --context`` adds: the weights' bytes in ``dtype``, the KV cache's elements
    and bytes (in ``cache_dtype``), the forward FLOPs, at ``context`` tokens × ``batch``."""

    context: int
    batch: int
    dtype: Dtype
    cache_dtype: Dtype
    parameters: int  # every weight the model holds, non-trainable ones too (what the bytes weigh)
    weight_bytes: int
    weight_bytes_exact: bool
    quantities: dict[str, Quantity]

    @property
    def kv_bytes(self) -> int | None:
        kv = self.quantities["kv"].total
        return None if kv is None or self.cache_dtype.bytes is None else kv * self.cache_dtype.bytes


# The statuses whose formula prints no number: a refuted one (the build differs), and one that
# does not describe the input (a config of another class). An inconclusive proof found no
# difference, its bound not low enough; an error is the prover's: their figures stand, with
# that status beside them.
WITHHELD = frozenset({"refuted", "not formulated"})


def no_position_left(values) -> str | None:
    """Why no token may follow the T of ``values`` (a mapping of symbol names): a learned position
    table of n rows that the context fills (a generated token's FLOPs have no figure there), or
    None."""
    n = values.get("n")
    if n is None or values["T"] < n:
        return None
    return f"the context fills the {n:,} positions: none is left for a generated token"
