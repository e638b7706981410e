"""Heterogeneous layer stacks: L layers that differ by a declared pattern.

Many models interleave layers of several *kinds* in one stack: dense feed-forward blocks among
mixture-of-experts blocks (Qwen MoE's ``decoder_sparse_step`` and ``mlp_only_layers``), global
among sliding-window attention layers whose weights differ, linear among full attention. The
parameter count only depends on how many layers of each kind there are, so each kind's count is a
symbol (``L_moe``, ``L_dense``) and the stack a group whose parts repeat by those counts: the
parts every layer has ``× L``, the parts of one kind ``× L_kind``.

:class:`LayerKinds` declares the kinds once: their count symbols, that they add up to L (the last
kind's count is the remainder, a derived value), and the pattern that says which kind layer i is,
so a model's configuration (``decoder_sparse_step=2, mlp_only_layers=[0]``) turns into the counts
with :meth:`LayerKinds.counts`. Architectures are data on top of it: which parts each kind holds.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import sympy

from paramcount.core.formula import Term, group
from paramcount.core.hparams import Relation
from paramcount.core.symbols import L, L_att, L_dense, L_mlp, L_moe, L_ssm

__all__ = ["BLOCK_TYPES", "DENSE_FIRST", "INTERLEAVED_MOE", "MOE_AND_DENSE", "PERIODIC_ATTENTION", "PERIODIC_MOE",
           "L_dense", "L_moe", "LayerKinds", "block_types", "crossed", "periodic",
           "repeat"]


def repeat(term: Term, times) -> Term:
    """``term`` with its multiplicity replaced (a part held by ``times`` of the layers)."""
    return dataclasses.replace(term, times=sympy.sympify(times))


@dataclass(frozen=True)
class LayerKinds:
    """The kinds of layer in a stack of ``total`` layers, each kind's count a symbol.

    Args:
        kinds: (name, symbol) pairs, in the order breakdowns show them. Every count but the last
            is a hyperparameter; the last is the remainder ``total − Σ others`` (a derived value).
        pattern: (layer index, options) -> kind name. Which kind layer i (0-based) is, given the
            model's configuration options; :meth:`counts` applies it to every layer.
        total: the stack's layer count (L).
    """

    kinds: tuple[tuple[str, sympy.Symbol], ...]
    pattern: Callable[..., str]
    total: sympy.Expr = L
    # options that may be 0 (a layer offset: Jamba's attn_layer_offset), where the rest are
    # positive integers
    zero_ok: frozenset[str] = frozenset()
    # options that take any integer, not only a positive one (ERNIE 4.5's first sparse block
    # index, 0 or more, and its last, -1 for the last block)
    any_int: frozenset[str] = frozenset()
    # options that are per-block lists of names (Nemotron-H's layers_block_type), each with the
    # names it may hold; such a list has one entry per layer
    named: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def __post_init__(self) -> None:
        if len(self.kinds) < 2:
            raise ValueError("a heterogeneous stack has at least two kinds of layer")

    def symbol(self, kind: str) -> sympy.Symbol:
        return dict(self.kinds)[kind]

    @property
    def free(self) -> tuple[sympy.Symbol, ...]:
        """The counts a user sets (all but the last kind's)."""
        return tuple(s for _, s in self.kinds[:-1])

    @property
    def remainder(self) -> sympy.Symbol:
        return self.kinds[-1][1]

    def fixed(self) -> dict[sympy.Symbol, sympy.Expr]:
        """The last kind's count as the remainder: L_last = L − Σ other counts."""
        return {self.remainder: self.total - sympy.Add(*self.free)}

    def constraints(self) -> tuple[Relation, ...]:
        return (Relation(sympy.Add(*self.free), "<=", self.total,
                         reason="the layers of each kind are some of the stack's layers"),)

    def counts(self, layers: int, **options) -> dict[str, int]:
        """Each kind's count (by symbol name) for a stack of ``layers`` layers configured by
        ``options``: the declared pattern applied to every layer index."""
        names = [k for k, _ in self.kinds]
        tally = dict.fromkeys(names, 0)
        for i in range(layers):
            kind = self.pattern(i, **options)
            if kind not in tally:
                raise ValueError(f"pattern gave unknown kind {kind!r} for layer {i}; "
                                 f"kinds: {names}")
            tally[kind] += 1
        return {sym.name: tally[k] for k, sym in self.kinds}

    def count_of(self, symbol: str, layers: int, options: Mapping[str, object]) -> int:
        """``symbol``'s count for options as a config file holds them: each a list of layer
        indices or a positive integer, as the pattern's default is; ValueError((option,
        expected)) for another value."""
        params = inspect.signature(self.pattern).parameters
        for key, raw in options.items():
            if key in dict(self.named):
                names = dict(self.named)[key]
                if not (isinstance(raw, list) and all(x in names for x in raw)):
                    raise ValueError(key, "a list of " + " or ".join(map(repr, names)))
                if len(raw) != layers:
                    raise ValueError(key, f"one entry per block ({layers})")
                continue
            listed = isinstance(params[key].default, (list, tuple))
            ok = (isinstance(raw, list) and all(type(x) is int and x >= 0 for x in raw)
                  if listed else type(raw) is int and (raw > 0 or key in self.any_int
                                                       or (raw == 0 and key in self.zero_ok)))
            if not ok:
                raise ValueError(key, "a list of block indices" if listed else
                                 "a non-negative integer" if key in self.zero_ok else
                                 "a positive integer")
        return self.counts(layers, **options)[symbol]

    def stack(
        self,
        name: str,
        *,
        common: Sequence[Term] = (),
        per_kind: Mapping[str, Sequence[Term]],
        match: str | None = None,
        note: str = "",
    ) -> Term:
        """The stack as one group: ``common`` parts × total, each kind's parts × its count.

        Parts keep their own names, so a kind's parts must be named apart from the others'
        (``moe`` and ``dense_ffn``, not ``ffn`` twice)."""
        unknown = set(per_kind) - {k for k, _ in self.kinds}
        if unknown:
            raise ValueError(f"stack {name!r}: unknown kinds {sorted(unknown)}")
        parts = [repeat(t, self.total) for t in common]
        for kind, sym in self.kinds:
            parts += [repeat(t, sym) for t in per_kind.get(kind, ())]
        if not note:
            note = (f"{self.total} layers: " + ", ".join(
                f"{sym} {kind}" for kind, sym in self.kinds))
        return group(name, *parts, match=match, note=note)


# --- Mixture-of-experts stacks: sparse blocks among dense ones ----------------------------------


def _moe_or_dense(i: int, *, decoder_sparse_step: int = 1, mlp_only_layers: Sequence[int] = (),
                  num_experts: int = 1, index_seen: int | None = None) -> str:
    """The rule of Qwen's MoE configs (HF ``Qwen2MoeDecoderLayer``, KerasHub's
    ``QwenMoeTransformerDecoder``): layer i is sparse unless it is in ``mlp_only_layers``, the
    model has no experts, or i + 1 is not a multiple of ``decoder_sparse_step``.

    ``index_seen`` replaces the index the rule sees: KerasHub's QwenMoeBackbone never passes a
    block its index, so every block applies the rule to index 0 (``index_seen=0``)."""
    j = i if index_seen is None else index_seen
    sparse = j not in mlp_only_layers and num_experts > 0 and (j + 1) % decoder_sparse_step == 0
    return "moe" if sparse else "dense"


MOE_AND_DENSE = LayerKinds((("moe", L_moe), ("dense", L_dense)), _moe_or_dense)


def _dense_first(i: int, *, first_k_dense_replace: int = 0) -> str:
    """DeepSeek's rule (HF ``DeepseekV3DecoderLayer``): the first ``first_k_dense_replace``
    layers keep a dense feed-forward, every later one is a mixture of experts."""
    return "dense" if i < first_k_dense_replace else "moe"


# The dense count is the setting (first_k_dense_replace = L_dense); the sparse ones the remainder.
DENSE_FIRST = LayerKinds((("dense", L_dense), ("moe", L_moe)), _dense_first)


# moe_layers not given (a sentinel: an explicit empty list means no sparse layer)
_UNSET = (-1,)


def _interleaved_moe(i: int, *, interleave_moe_layer_step: int = 1,
                     moe_layers: Sequence[int] = _UNSET) -> str:
    """Llama 4's rule (HF ``Llama4TextConfig``): layer i is sparse when it is in ``moe_layers``,
    which defaults to every ``interleave_moe_layer_step``-th layer (the last of each group)."""
    if tuple(moe_layers) != _UNSET:
        return "moe" if i in moe_layers else "dense"
    return "moe" if (i + 1) % interleave_moe_layer_step == 0 else "dense"


INTERLEAVED_MOE = LayerKinds((("moe", L_moe), ("dense", L_dense)), _interleaved_moe)


# --- Hybrid stacks: state-space mixers among attention, two patterns crossed -------------------


def crossed(name: str, *, common: Sequence[Term] = (),
            kinds: Sequence[tuple[LayerKinds, Mapping[str, Sequence[Term]]]],
            match: str | None = None, note: str = "") -> Term:
    """One stack read by several independent patterns (Jamba: attention or Mamba as the mixer,
    and, apart from it, experts or a dense MLP as the feed-forward): ``common`` parts × total,
    each pattern's kinds' parts × their counts. Parts are named apart across all patterns."""
    first, *rest = kinds
    stack = first[0].stack(name, common=common, per_kind=first[1], match=match, note=note or " ")
    parts = list(stack.children)
    for lk, per_kind in rest:
        parts += lk.stack(name, per_kind=per_kind).children
    if not note:
        note = f"{first[0].total} layers: " + "; ".join(
            ", ".join(f"{sym} {kind}" for kind, sym in lk.kinds) for lk, _ in kinds)
    return group(name, *parts, match=match, note=note)


def periodic(layers: int, count: int) -> tuple[int, int]:
    """A (period, offset) whose rule ``i % period == offset`` marks exactly ``count`` of
    ``layers`` layers (the offset below the period, as JambaConfig validates), for writing a
    config from counts; ValueError when no such pair exists (4 of 5 layers, say)."""
    for period in range(layers + 1, 0, -1):
        for offset in range(period):
            if sum(1 for i in range(layers) if i % period == offset) == count:
                return period, offset
    raise ValueError(f"no period and offset mark {count} of {layers} layers")


def _jamba_mixer(i: int, *, attn_layer_period: int = 8, attn_layer_offset: int = 4) -> str:
    """Jamba's rule (HF ``JambaConfig.layers_block_type``): layer i attends when
    i % attn_layer_period == attn_layer_offset, else its mixer is Mamba."""
    return "attention" if i % attn_layer_period == attn_layer_offset else "mamba"


def _jamba_ffn(i: int, *, expert_layer_period: int = 2, expert_layer_offset: int = 1,
               num_experts: int = 16) -> str:
    """Jamba's rule (HF ``JambaConfig.layers_num_experts``): layer i's feed-forward is the
    mixture of experts when i % expert_layer_period == expert_layer_offset (and the model has
    more than one expert), else a dense MLP."""
    sparse = i % expert_layer_period == expert_layer_offset and num_experts > 1
    return "moe" if sparse else "dense"


PERIODIC_ATTENTION = LayerKinds((("attention", L_att), ("mamba", L_ssm)), _jamba_mixer,
                                zero_ok=frozenset({"attn_layer_offset"}))
PERIODIC_MOE = LayerKinds((("moe", L_moe), ("dense", L_dense)), _jamba_ffn,
                          zero_ok=frozenset({"expert_layer_offset"}))


# Nemotron-H's block types (HF ``NemotronHConfig.layers_block_type``, or its older spelling, the
# ``hybrid_override_pattern`` string: M Mamba-2, * attention, - MLP, E experts)
NEMOTRON_NAMES = {"linear_attention": "mamba", "full_attention": "attention", "mlp": "mlp",
                  "moe": "moe"}
NEMOTRON_PATTERN_CHARS = {"M": "linear_attention", "*": "full_attention", "-": "mlp", "E": "moe"}


def _nemotron_block(i: int, *, layers_block_type: Sequence[str] = ()) -> str:
    """Nemotron-H's rule: each block is one mixer, the kind its config lists for it (a block
    beyond the list, as in an empty one, is Mamba)."""
    return NEMOTRON_NAMES[layers_block_type[i]] if i < len(layers_block_type) else "mamba"


# each block one of four kinds; the Mamba count is the remainder
BLOCK_TYPES = LayerKinds(
    (("attention", L_att), ("mlp", L_mlp), ("moe", L_moe), ("mamba", L_ssm)), _nemotron_block,
    named=(("layers_block_type", tuple(NEMOTRON_NAMES)),))


def block_types(hp: Mapping[str, int]) -> list[str]:
    """A layers_block_type list with the counts of ``hp`` (which blocks changes no count)."""
    return (["full_attention"] * hp["L_att"] + ["mlp"] * hp["L_mlp"] + ["moe"] * hp["L_moe"]
            + ["linear_attention"] * (hp["L"] - hp["L_att"] - hp["L_mlp"] - hp["L_moe"]))
