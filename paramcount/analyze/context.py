"""Context for a count: non-embedding parameters, the classic approximations, bytes.

Formula only: nothing here imports TensorFlow. This module returns data (:class:`Context`);
:mod:`paramcount.output.render` turns it into the lines of ``count``, JSON and the report's section.

- **Non-embedding parameters** (Kaplan et al. 2020, "Scaling Laws for Neural Language Models":
  the size N that the scaling laws use — total minus the vocabulary and position embeddings).
  Rule, read from the tree (:data:`EMBEDDING_RULE`): a leaf is an *embedding* when its *kind*,
  set by the component that makes it, is ``embedding`` or ``position`` — never by its name. An
  embedding layer norm is a ``norm``, and the projection ALBERT/ELECTRA put after a narrow table
  a ``projection`` (a matrix applied to every token, not a lookup table). Token, position and
  segment tables are embeddings; an untied output head is not (Kaplan et al. remove the input
  tables; a head is a projection, and it stays in N).
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

from paramcount.model.training import training_bytes

# SymPy-free at import: ``count``'s compiled path (paramcount.analyze.counting.compiled) computes its context with
# context_of without building a formula tree. (NamedTuples rather than dataclasses: importing
# dataclasses imports inspect, a tenth of a compiled count's time.) Its text and JSON are
# rendering: paramcount.output.count_output.

if TYPE_CHECKING:
    from paramcount.model.registry import Architecture

__all__ = [
    "BYTES_CONVENTION",
    "EMBEDDING_RULE",
    "Approximation",
    "Context",
    "context",
    "context_of",
    "embedding_paths",
    "is_embedding",
    "rule_applies",
]

EMBEDDING_KINDS = ("embedding", "position")

EMBEDDING_RULE = (
    "a formula leaf is an embedding when its kind, set by the component that makes it, is "
    "'embedding' or 'position' (token, position and segment tables; ViT's patch embedding and "
    "class token); an embedding norm, a projection after a narrow table (ALBERT, ELECTRA) and a "
    "head are not; non-embedding = trainable total − embeddings (Kaplan et al. 2020)")

BYTES_CONVENTION = (
    "fp32 / bf16 / int8: every weight at 4 / 2 / 1 bytes; Adam: fp32 weights + two fp32 moments "
    "= 12 B per trainable parameter (4 B per non-trainable one); gradients, activations and "
    "mixed-precision copies not included")

BYTES_PER_PARAM = {"fp32": 4, "bf16": 2, "int8": 1}


def is_embedding(path: str, arch: Architecture) -> bool:
    """Whether the leaf of ``arch`` at dotted ``path`` (root first) is an embedding (see
    EMBEDDING_RULE)."""
    return path in embedding_paths(arch)


def embedding_paths(arch: Architecture) -> list[str]:
    return [lf.path for lf in arch.formula.leaves()
            if lf.term.trainable and lf.kind in EMBEDDING_KINDS]


def rule_applies(arch: Architecture) -> bool:
    """A GPT-style stack: L, d_e and v in the formula, attention, no cross-attention, no router."""
    from paramcount.core.symbols import L, d_e, v

    syms = arch.formula.free_symbols()
    kinds = {lf.kind for lf in arch.formula.leaves()}
    return ({L, d_e, v} <= syms and "attention" in kinds and "cross-attention" not in kinds
            and "router" not in kinds and not arch.formula.has_active)


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
        out["adam_fp32"] = training_bytes(self.trainable, self.nontrainable, "adam_fp32")
        return out


def context(arch: Architecture, hparams: Mapping[str, int]) -> Context:
    """The context numbers for a resolved hyperparameter set."""
    trainable = arch.count(hparams)
    total = arch.evaluate(arch.formula.total(), hparams)
    emb = sum(arch.evaluate(lf.expr, hparams, lf.path) for lf in arch.formula.leaves()
              if lf.term.trainable and lf.kind in EMBEDDING_KINDS)
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


def rules_of_thumb_rows(arch: Architecture, hparams: Mapping[str, int]) -> Context | None:
    """The context of a hyperparameter set where the approximations apply, else None."""
    ctx = context(arch, hparams)
    return ctx if ctx.approximations else None
