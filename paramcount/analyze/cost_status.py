"""What stands behind each cost figure of an architecture: the proof record's outcome for its
current formula, or why no proof is attempted (:func:`unprovable`). One place for ``count
--context`` on either path, ``solve --memory`` and the report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paramcount.analyze import costs

if TYPE_CHECKING:
    from paramcount.model.registry import Architecture

__all__ = ["statuses", "unprovable"]


def unprovable(arch: Architecture, quantity: str | None = None) -> str | None:
    """Why ``arch``'s costs (``quantity``'s; None: any of them) are checked but not proven, or
    None: FLOPs per generated token, checked, not proven yet (its proof waits for its measurement
    to join the one that keys every cost proof); a router whose experts the class runs only in
    its loop over the routed ones (not gathered per token: ``Transformers.experts_on_meta``
    False) needs real data, so transformers' model runs for real on the CPU (not on the meta
    device), at sizes the prover's random values far exceed; a chunked scan's FLOPs (a Mamba-2
    mixer's, a gated DeltaNet's) are a polynomial in T only on each residue of T modulo the
    chunk, so a proof has as many cases as the chunk is long (Q_ssd: 256 by default), times as many again on the
    convolution's regime (T against K_conv): beyond the prover's budget."""
    if quantity == "decode":
        return ("checked against transformers' one-token step on the meta device at its first "
                "example set and three contexts (tests/test_costs.py; every set with --runslow)")
    if arch.formula.has_active and arch.transformers is not None \
            and not arch.transformers.experts_on_meta:
        return ("checked at its example sets (tests/test_costs.py), not proven: its experts run "
                "only in transformers' loop over the experts each token was routed to, which "
                "depends on the data, so the model runs for real on the CPU, at sizes the "
                "prover's values exceed")
    if quantity in (None, "flops") and costs.formulated(arch, "flops") is None:
        import sympy

        total = costs.tree(arch, "flops")[0].total()
        chunk = _chunk(total)
        if chunk:
            again = (" (and again on each regime of the convolution, T against K_conv)"
                     if total.has(sympy.Max) else "")
            return ("checked at its example sets (tests/test_costs.py), not proven: its chunked "
                    f"scan computes ⌈T/{chunk}⌉ chunks, a polynomial in T only on each of "
                    f"T's {chunk} residues modulo {chunk}{again}: more cases than the "
                    "prover's budget")
    return None


def _chunk(total) -> str | None:
    """The chunk of the scans in a FLOPs total (the divisor of T under a ceiling: a config's
    chunk length Q_ssd, else the longest constant one), None without one."""
    import sympy

    from paramcount.core.symbols import T

    divisors = [sympy.fraction(c.args[0])[1] for c in total.atoms(sympy.ceiling)
                if T in c.free_symbols]
    named = sorted(str(d) for d in divisors if d.is_Symbol)
    if named:
        return named[0]
    return max((str(int(d)) for d in divisors if d.is_Integer), key=int, default=None)


def statuses(arch: Architecture, record_path) -> dict[str, tuple[str, str]]:
    """Each formulated quantity's (status, why): "proven" where the record at ``record_path``
    holds a proof of its current formula, else "not proven" (or the proof's own status) and why."""
    from paramcount.analyze.prove.record import recorded

    out = {}
    for q in costs.QUANTITIES:
        if costs.formulated(arch, q) is not None:
            continue
        why = unprovable(arch, q)
        out[q] = ("not proven", why) if why else _variant(arch.id) or recorded(arch.id, q,
                                                                             record_path)
    return out


def _variant(arch_id: str) -> tuple[str, str] | None:
    """A head's or an option's tree (``llama:LlamaModel``, ``falcon_parallel:untied``): the
    report proves the cost trees of each architecture's own class only (``recorded`` would say
    "paramcount report proves it", which it does not)."""
    base, _, variant = arch_id.partition(":")
    if not variant:
        return None
    return "not proven", (f"the report proves the cost trees of {base}'s own class, not those "
                          f"of {variant}")
