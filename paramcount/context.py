"""Context for a count: non-embedding parameters, the classic approximations, bytes.

Formula only: nothing here imports TensorFlow.

- **Non-embedding parameters** (Kaplan et al. 2020, "Scaling Laws for Neural Language Models":
  the size N that the scaling laws use — total minus the vocabulary and position embeddings).
  Rule, read from the tree (:data:`EMBEDDING_RULE`): a leaf is an *embedding* when its own name
  contains ``embedding``, or it sits under a component named ``embeddings`` / ``embedding`` — and
  its name contains none of ``norm``, ``proj``, ``scale`` (an embedding layer norm, or the
  projection ALBERT/ELECTRA put after a narrow table, is not a lookup table). Token,
  position and segment tables are embeddings; an untied output head is not (Kaplan et al. remove
  the input tables; a head is a projection, and it stays in N).
- **12·L·d_e²** (Kaplan et al. 2020, eq. 2.1 with d_attn = d_e, d_ff = 4·d_e): the block stack of
  a GPT-style model, compared with the exact non-embedding count.
- **Megatron-LM closed form** (Narayanan et al. 2021, "Efficient Large-Scale Language Model
  Training on GPU Clusters Using Megatron-LM", §5.1): 12·L·d_e²·(1 + 13/(12·d_e) +
  (v + n)/(12·L·d_e)), compared with the exact total. Where a model has no learned positions
  (no ``n``), n = 0.
  Both apply to a *GPT-style stack* (:func:`rule_applies`): the formula uses ``L``, ``d_e`` and
  ``v``, has an attention component, no cross-attention (one stack, not encoder + decoder) and no
  router (dense, not mixture-of-experts).
- **Bytes of the weights**: every weight (trainable or not) at 4 (fp32), 2 (bf16) or 1 (int8)
  bytes; **with Adam's training state**: fp32 weights plus Adam's two fp32 moments, 12 bytes per
  trainable parameter (4 per non-trainable one). Gradients (another 4 B per trainable parameter),
  activations and mixed-precision master copies are not included.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, NamedTuple

# SymPy-free at import: ``count``'s compiled path (paramcount.compiled) formats its numbers with
# this module without building a formula tree. (NamedTuples rather than dataclasses: importing
# dataclasses imports inspect, a tenth of a compiled count's time.)
if TYPE_CHECKING:
    from paramcount.registry import Architecture

__all__ = [
    "EMBEDDING_RULE",
    "BYTES_CONVENTION",
    "Approximation",
    "Context",
    "is_embedding",
    "embedding_paths",
    "rule_applies",
    "context",
    "context_of",
    "context_lines",
    "human",
    "context_json",
]

EMBEDDING_RULE = (
    "a formula leaf is an embedding when its name contains 'embedding' or it sits under a "
    "component named 'embeddings' (or 'embedding'), unless its name contains 'norm', 'proj' or "
    "'scale' (an embedding norm, projection or scale is not a lookup table); "
    "non-embedding = trainable total − embeddings (Kaplan et al. 2020)")

BYTES_CONVENTION = (
    "fp32 / bf16 / int8: every weight at 4 / 2 / 1 bytes; Adam: fp32 weights + two fp32 moments "
    "= 12 B per trainable parameter (4 B per non-trainable one); gradients, activations and "
    "mixed-precision copies not included")

_NOT_TABLES = ("norm", "proj", "scale")  # an embedding's norm, projection or scale: not a table

BYTES_PER_PARAM = {"fp32": 4, "bf16": 2, "int8": 1}


def is_embedding(path: str) -> bool:
    """Whether a leaf (dotted path, root first) is an embedding table (see EMBEDDING_RULE)."""
    parts = path.split(".")[1:] or path.split(".")
    name = parts[-1].lower()
    if any(word in name for word in _NOT_TABLES):
        return False
    return "embedding" in name or any(p.lower() in ("embeddings", "embedding")
                                      for p in parts[:-1])


def embedding_paths(arch: Architecture) -> list[str]:
    return [lf.path for lf in arch.formula.leaves() if lf.term.trainable and is_embedding(lf.path)]


def rule_applies(arch: Architecture) -> bool:
    """A GPT-style stack: L, d_e and v in the formula, attention, no cross-attention, no router."""
    from paramcount.symbols import L, d_e, v

    syms = arch.formula.free_symbols()
    segments = {seg.lower() for p, _, _ in arch.formula.walk() for seg in p.split(".")}
    return ({L, d_e, v} <= syms and any("attention" in s for s in segments)
            and not any("cross" in s for s in segments) and not arch.formula.has_active)


class Approximation(NamedTuple):
    """A closed-form approximation against the exact count it approximates."""

    name: str
    formula: str
    value: int
    exact: int
    compared_to: str  # "non-embedding" or "total"
    note: str = ""

    @property
    def relative_error(self) -> Fraction:
        """(approximation − exact) / exact, exactly."""
        return Fraction(self.value - self.exact, self.exact)

    def error_text(self) -> str:
        return f"{float(self.relative_error) * 100:+.3g}%"  # 3 significant digits


class Context(NamedTuple):
    total: int  # every weight, trainable or not
    trainable: int
    embedding: int
    approximations: tuple[Approximation, ...]

    @property
    def non_embedding(self) -> int:
        return self.trainable - self.embedding

    @property
    def nontrainable(self) -> int:
        return self.total - self.trainable

    def bytes(self) -> dict[str, int]:
        out = {k: b * self.total for k, b in BYTES_PER_PARAM.items()}
        out["adam_fp32"] = 12 * self.trainable + 4 * self.nontrainable
        return out


def context(arch: Architecture, hparams: Mapping[str, int]) -> Context:
    """The context numbers for a resolved hyperparameter set."""
    from paramcount.formula import to_int

    values = arch.values(hparams)
    trainable = to_int(arch.formula.trainable_total(True), values, "total")
    total = to_int(arch.formula.total(), values, "total")
    emb = sum(to_int(lf.expr, values, lf.path) for lf in arch.formula.leaves()
              if lf.term.trainable and is_embedding(lf.path))
    return context_of(total, trainable, emb, rule_applies(arch), hparams)


def context_of(total: int, trainable: int, emb: int, applies: bool,
               hparams: Mapping[str, int]) -> Context:
    """The context from the counts it rests on (evaluated by SymPy or by compiled code)."""
    approx: list[Approximation] = []
    if applies:
        ell, d, vv = hparams.get("L"), hparams.get("d_e"), hparams.get("v")
        if ell and d and vv:
            nn = hparams.get("n", 0)
            approx.append(Approximation(
                "Kaplan 12·L·d_e²", "12·L·d_e^2", 12 * ell * d * d, trainable - emb,
                "non-embedding", "Kaplan et al. 2020, eq. 2.1 (d_attn = d_e, d_ff = 4·d_e)"))
            mega = 12 * ell * d * d + 13 * ell * d + (vv + nn) * d
            approx.append(Approximation(
                "Megatron-LM", "12·L·d_e^2·(1 + 13/(12·d_e) + (v+n)/(12·L·d_e))", mega, trainable,
                "total", "Narayanan et al. 2021, §5.1"
                + ("" if "n" in hparams else "; no learned positions: n = 0")))
    return Context(total, trainable, emb, tuple(approx))


def human(n: int) -> str:
    """Short magnitude: 124.4M, 1.56B, 20.9K (for prose; tables carry exact integers)."""
    for div, unit in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if abs(n) >= div:
            return f"{n / div:.3g}{unit}"
    return str(n)


def _size(b: int) -> str:
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
        lines.append((f"weights in {k}", f"{b[k]:,} B", f"({_size(b[k])})"))
    lines.append(("with Adam state (fp32 + 2 moments)", f"{b['adam_fp32']:,} B",
                  f"({_size(b['adam_fp32'])})"))
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


def rules_of_thumb_rows(arch: Architecture, hparams: Mapping[str, int]) -> Context | None:
    """The context of a hyperparameter set where the approximations apply, else None."""
    ctx = context(arch, hparams)
    return ctx if ctx.approximations else None



def rules_of_thumb_section(results) -> str:
    """The report's "How good are the rules of thumb" section: per published preset where the
    approximations apply, their exact relative errors; and the bytes the weights take."""
    from paramcount import registry

    rows, mem = [], []
    for r in sorted(results, key=lambda r: (r.arch, r.name)):
        arch = registry.get(r.arch)
        if not arch.preset(r.name).official:
            continue
        ctx = context(arch, r.hparams)
        b = ctx.bytes()
        mem.append(f"| {r.arch} | {r.name} | {ctx.total:,} | {_size(b['fp32'])} | "
                   f"{_size(b['bf16'])} | {_size(b['int8'])} | {_size(b['adam_fp32'])} |")
        if not ctx.approximations:
            continue
        kap, meg = ctx.approximations
        rows.append(f"| {r.arch} | {r.name} | {ctx.trainable:,} | {ctx.non_embedding:,} "
                    f"({human(ctx.non_embedding)}) | {kap.value:,} | {kap.error_text()} | "
                    f"{meg.value:,} | {meg.error_text()} |")
    out = [
        "## How good are the rules of thumb", "",
        "Two closed forms are used everywhere to size a transformer: **12·L·d_e²** (Kaplan et al. "
        "2020, eq. 2.1: the non-embedding parameters of a stack with d_ff = 4·d_e, biases and "
        "norms neglected) and the **Megatron-LM** total 12·L·d_e²·(1 + 13/(12·d_e) + "
        "(v+n)/(12·L·d_e)) (Narayanan et al. 2021, §5.1; n = 0 without learned positions). "
        "Below, each against the exact count at every published preset of a GPT-style stack "
        "(L, d_e, v, attention; no cross-attention; no router): the error is "
        "(approximation − exact)/exact, computed exactly and rounded for display. "
        f"Non-embedding: {EMBEDDING_RULE}.", "",
    ]
    if rows:
        out += ["| architecture | preset | exact total | non-embedding | 12·L·d_e² | error "
                "| Megatron-LM | error |", "|---|---|---:|---:|---:|---:|---:|---:|", *rows]
    else:
        out.append("No published preset of a GPT-style stack among these results.")
    if mem:
        out += ["", f"Memory of the weights ({BYTES_CONVENTION}):", "",
                "| architecture | preset | weights (all) | fp32 | bf16 | int8 | with Adam |",
                "|---|---|---:|---:|---:|---:|---:|", *mem]
    return "\n".join(out)
