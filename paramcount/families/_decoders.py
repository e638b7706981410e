"""What the decoder lineages share beyond their table rows (issue 29 §3): the common ``free``
keys, the ``counting`` sentence, transformers' names, the reference, presets and origin, so that
a family of a lineage is one short declaration naming only what differs.

Two lineages here (their shared rows stay in :mod:`paramcount.families._lineages`):

- the KerasHub **Llama lineage** (Llama, Llama 3, Mistral, Qwen 2, Qwen 3; Phi-3 with its own
  tree): :func:`keras_llama`, a dense backbone of pre-norm RMS-norm blocks of grouped-query
  attention and SwiGLU, the LM head kept in the backbone; transformers names it as
  LlamaForCausalLM does (:data:`LLAMA_TRANSFORMERS`, which Mixtral, SmolLM3 and Qwen MoE build on);
- the **transformers-only causal LMs** (Granite, Cohere, OLMo 2, Phi, StarCoder2, GPT-J, GPT-Neo,
  and the mixtures and hybrids KerasHub has not: DBRX, Jamba, Llama 4, Mamba, ...):
  :func:`hf_causal_lm`, checked against transformers alone, its names read off the tree; its
  tree of Llama's pre-norm blocks (:func:`pre_norm_causal_lm`) or of parallel blocks
  (:func:`parallel_causal_lm`) as transformers names them.

A lineage module is no family: its name starts with ``_``, so discovery skips it (and
``registry.get`` of an id imports it only through the family that uses it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping

import sympy

from paramcount.core.formula import Term
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Restriction
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.core.symbols import w
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import EVEN_HEAD_DIM_VALIDATED
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HEADS_SPLIT_WIDTH
from paramcount.families._lineages import ROTARY_PAIRS_VALIDATED
from paramcount.families._lineages import pinned
from paramcount.families._lineages import rotary_heads
from paramcount.families._lineages import split_heads
from paramcount.model.components import embedding
from paramcount.model.components.basic import layer_norm
from paramcount.model.components.hf_decoder import causal_lm
from paramcount.model.components.llama_like import backbone
from paramcount.model.components.llama_like import decoder_blocks
from paramcount.model.components.llama_like import gqa_attention
from paramcount.model.components.llama_like import hf_decoder_names
from paramcount.model.components.llama_like import swiglu
from paramcount.model.components.modern import rms_norm
from paramcount.model.cost import sliding_kept
from paramcount.model.frameworks import Transformers
from paramcount.model.frameworks import own_weights
from paramcount.model.mapping import Field
from paramcount.model.mapping import Table
from paramcount.model.registry import Architecture
from paramcount.model.weights import Named

__all__ = [
    "CAUSAL_LM_FREE",
    "LLAMA_FREE",
    "LLAMA_ROTARY_VALIDATED",
    "LLAMA_TRANSFORMERS",
    "LLAMA_TRANSFORMERS_HEAD_DIM",
    "LLAMA_TRANSFORMERS_OWN_HEAD_DIM",
    "QK_NORM_NAMES",
    "QWEN3_TRANSFORMERS",
    "QWEN_FREE",
    "RMS_CAUSAL_LM_FREE",
    "always_off",
    "causal_lm_counting",
    "hf_causal_lm",
    "keras_llama",
    "llama_table",
    "parallel_causal_lm",
    "pre_norm_causal_lm",
    "split_width",
]

# --- the KerasHub Llama lineage ------------------------------------------------------------------

# Config keys every Llama-like decoder's two configs may hold that change no count (norm epsilons,
# rotary settings, dropouts); a family adds its own (Llama 3's frequency scaling, Mistral's window).
LLAMA_FREE = frozenset({
    "hidden_act", "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_parameters",
    "attention_dropout", "rope_max_wavelength", "layer_norm_epsilon", "dropout",
})
# Qwen 2 and Qwen 3 add rope scaling and their sliding-window keys
QWEN_FREE = LLAMA_FREE | {
    "rope_scaling", "use_sliding_window", "sliding_window", "max_window_layers", "layer_types",
    "rope_scaling_factor", "sliding_window_size",
}

# LlamaForCausalLM's parameter names on the tree (rotary inv_freq is a non-persistent buffer;
# a tied lm_head is the embedding itself, listed once by named_parameters()); Mistral's and Qwen 2's
# classes name theirs the same way. transformers' validate_rope refuses an odd rotary width d_e/M above
# 4: the proof samples even ones (verify builds every set and shows what transformers refuses).
LLAMA_TRANSFORMERS = Transformers(restrictions=(
    ROTARY_PAIRS_VALIDATED,
), weights={
    **hf_decoder_names(norms=("attention_norm", "ffn_norm")),
    "head": "lm_head",
})
# Llama's rotary-width rule as a model built on its names (Mixtral, Qwen MoE) states it again
LLAMA_ROTARY_VALIDATED = (ROTARY_PAIRS_VALIDATED,)
# The same names where head_dim is a key of its own: any even rotary width d_k.
LLAMA_TRANSFORMERS_HEAD_DIM = dataclasses.replace(LLAMA_TRANSFORMERS, restrictions=(
    EVEN_HEAD_DIM_VALIDATED,
))
# The same names where head_dim is a width of its own, set apart from d_e/M (Qwen 3's 128).
LLAMA_TRANSFORMERS_OWN_HEAD_DIM = dataclasses.replace(LLAMA_TRANSFORMERS, restrictions=(
    Holds(Divisible(d_k, 2), binds="proof",
          why="transformers' validate_rope refuses an odd rotary width (head_dim, set apart from d_e/M) above 4: "
              "prove samples even ones"),
))
# Qwen 3's per-head QK norms (one RMS scale of d_k each), named in transformers
QK_NORM_NAMES = {"blocks.attention.query_norm": "q_norm", "blocks.attention.key_norm": "k_norm"}
# Qwen 3's attention as transformers names it (Qwen 3's and Qwen 3 MoE's): a head width of its own
# and the QK norms, the keras_llama(head_dim="own", qk_norm=True) names
QWEN3_TRANSFORMERS = dataclasses.replace(
    LLAMA_TRANSFORMERS_OWN_HEAD_DIM, weights={**LLAMA_TRANSFORMERS.weights, **QK_NORM_NAMES})
# What d_k is in a Llama-like backbone (keras_llama's ``head_dim``): the width over the heads, the
# backbone having no head_dim argument ("split"); that, while transformers' config takes any even
# head_dim ("transformers", Llama's); a hyperparameter d_e/M unless set ("default", Mistral's); a
# hyperparameter of its own ("own", Qwen 3's).
HEAD_DIMS = ("split", "transformers", "default", "own")


def split_width(backbone_class: str) -> tuple[Fixed | Holds, ...]:
    """The rows of a KerasHub backbone ``backbone_class`` with no head_dim argument: each head is
    the width over the heads, which split it exactly; whole groups share each key/value head."""
    return (split_heads(backbone_class, "the width"), HEADS_SPLIT_WIDTH, GQA)


def llama_table(arch_id: str, *, base_free: frozenset[str] = LLAMA_FREE, **fields) -> Table:
    """The table of a Llama-like decoder (:func:`paramcount.families._defaults.family_table`), its
    free keys the lineage's with the family's own."""
    return family_table(arch_id, base_free=base_free, **fields)


def always_off(*flags: tuple[str, str] | tuple[str, str, str]) -> tuple[Sets | Requires, ...]:
    """The table rows of config flags a KerasHub class always builds off (biases it has none of, a
    head it keeps untied), each ``(key, why)`` or ``(key, why, refused_why)``: written False
    (``why``), then, after all of them, required False (``refused_why``, else ``why``): a config
    that turns one on describes no model the class builds."""
    return pinned(*((key, False, *whys) for key, *whys in flags))


def _untied_rows(keras: str, why: str) -> tuple[Sets | Requires, ...]:
    """A backbone that always keeps an untied LM head: configs are written untied (``why``), and a
    tied one describes no model the KerasHub class builds."""
    return always_off(("tie_word_embeddings", why, f"KerasHub's {keras} always keeps an untied LM head"))


def _head_dim_rows(head_dim: str, keras: str, hf: str, optional: dict) -> dict:
    """The fields of a Llama-like backbone that follow from what its d_k is (:data:`HEAD_DIMS`):
    required, optional (``optional`` with d_k's default), restrictions, transformers."""
    if head_dim not in HEAD_DIMS:
        raise ValueError(f"head_dim is one of {HEAD_DIMS}, not {head_dim!r}")
    if head_dim in ("split", "transformers"):
        rows = dict(required=(v, d_e, M, M_kv, d_f, L), optional=optional, restrictions=split_width(keras))
        if head_dim == "split":
            return {**rows, "transformers": LLAMA_TRANSFORMERS}
        config = hf.removesuffix("ForCausalLM") + "Config"
        return {**rows, "transformers": dataclasses.replace(LLAMA_TRANSFORMERS_HEAD_DIM, settable={
            d_k: f"{config}'s head_dim is any (even) width; KerasHub's {keras} has no head_dim argument (d_e/M)"})}
    if head_dim == "default":
        return dict(required=(v, d_e, M, M_kv, d_f, L), optional={**optional, d_k: d_e / M}, restrictions=(GQA,),
                    transformers=LLAMA_TRANSFORMERS_HEAD_DIM)
    return dict(required=(v, d_e, M, M_kv, d_k, d_f, L), optional=optional, restrictions=(GQA,),
                transformers=LLAMA_TRANSFORMERS_OWN_HEAD_DIM)


def keras_llama(arch_id: str, *, keras: str, hf: str = "", fields: Iterable[Field] = (),
                mapping: Table | None = None, model_type: str | None = None,
                table_restrictions: Iterable[Restriction] = (), free: Iterable[str] = (),
                base_free: frozenset[str] = LLAMA_FREE, untied: str | None = None,
                head_dim: str = "split", qk_norm: bool = False, attention_term: Term | None = None,
                counting_extra: str = "", **rest) -> Architecture:
    """A dense Llama-lineage KerasHub backbone as an Architecture: token embedding, L pre-norm
    blocks of ``attention_term`` (grouped-query attention without biases by default) and SwiGLU,
    a final RMS norm and the LM head KerasHub keeps in the backbone (none when tied).

    The family gives what differs: its classes (``keras``, ``hf``), table rows ``fields`` and
    restrictions, extra ``free`` keys (or a whole ``mapping``), title, source, examples, and any
    other Architecture field in ``rest`` (Phi-3, whose layers are named apart, its ``formula``).
    ``untied`` (the why of writing configs untied) makes the head always a matrix of its own, as
    Mistral's is. ``head_dim`` says what d_k is (:data:`HEAD_DIMS`; by default d_e/M,
    :func:`split_width`), which sets the required hyperparameters, the restrictions and
    transformers' rotary-width rule. ``qk_norm`` gives every query and key head Qwen 3's RMS
    norm of width d_k (in the tree, the counting sentence and transformers' names). The lineage
    gives the rest: required (v, d_e, M, M_kv, d_f, L), a tied default, the counting sentence,
    the reference (the table's own class), the preset file ``<id>``, KerasHub's metadata and
    LlamaForCausalLM's names."""
    if mapping is None and not hf:
        raise TypeError(f"{arch_id}: keras_llama needs the transformers class (hf=) or a whole mapping")
    rows = (*_untied_rows(keras, untied), *table_restrictions) if untied else tuple(table_restrictions)
    head = ("the untied LM head KerasHub keeps in the backbone" if untied else
            "the LM head KerasHub keeps in the backbone (none when tied)")
    if qk_norm:
        attention_term, counting_extra = gqa_attention(qk_norm=True), " (QK norms included)"
    defaults = dict(
        formula=backbone(arch_id, decoder_blocks(swiglu(), attention_term=attention_term),
                         tie=0 if untied else tied),
        **_head_dim_rows(head_dim, keras, hf, {} if untied else {tied: 1}),
        counting=("trainable weights of the backbone: token embedding, L decoder blocks"
                  f"{counting_extra}, final RMS norm and {head}"),
        mapping=mapping or llama_table(arch_id, hf=hf, keras=keras, fields=fields, model_type=model_type,
                                       restrictions=rows, free=free, base_free=base_free),
    )
    if qk_norm:
        names = defaults["transformers"]
        defaults["transformers"] = dataclasses.replace(names, weights={**names.weights, **QK_NORM_NAMES})
    return keras_hub_backbone(arch_id, **{**defaults, **rest})


def untied_keras_ends() -> tuple[Term, Term]:
    """The ends of a KerasHub backbone whose embedding layer holds an untied LM head (Phi-3's,
    GPT-OSS's, written out block by block): the final RMS norm ``sequence_output_layernorm``
    and the head, ``reverse_embeddings`` (d_e × v)."""
    return (rms_norm("final_norm", match="sequence_output_layernorm"),
            embedding("head", v, match="token_embedding/reverse_embeddings", kind="head",
                      note="untied output projection d_e × v, held by the backbone's embedding layer"
                      ).with_cost(macs=d_e * v))


def fused_gate_up(prefix: str, axis: int) -> dict:
    """transformers' names of a SwiGLU (``prefix``: its gate, up and down leaves) whose gate and
    up projections are one ``gate_up_proj`` stacked along ``axis`` (gate rows, then up rows),
    its down projection ``down_proj``."""
    return {f"{prefix}.gate": ("gate_up_proj", (0, 2, axis)), f"{prefix}.up": ("gate_up_proj", (1, 2, axis)),
            f"{prefix}.down": "down_proj"}


def sliding(every: int = 0, default: int | None = 4096) -> dict:
    """``Transformers`` arguments of a class whose attention layers keep a sliding window of w
    positions (the config's ``sliding_window``, ``default`` when unset), but every ``every``-th
    layer (i + 1 divisible by it), which attends to all: its KV cache's ``kept``, and the config
    key the cost measurement writes w to. ``default`` None: the class keeps no window unless a
    config sets one (Phi-3, StarCoder2, Mixtral: all layers windowed when it does)."""
    full = sympy.floor(L / every) if every else 0
    return dict(kept=sliding_kept(w, full), cost_config={"sliding_window": (w, default)})


# --- transformers-only causal LMs ----------------------------------------------------------------

# Config keys of every rotary transformers causal LM that change no count; a family adds its own
# (its norm's epsilon key, dropouts, multipliers).
CAUSAL_LM_FREE = frozenset({
    "hidden_act", "max_position_embeddings", "rope_theta", "rope_scaling", "rope_parameters",
    "attention_dropout",
})
# those of one with RMS norms (most of them)
RMS_CAUSAL_LM_FREE = CAUSAL_LM_FREE | {"rms_norm_eps"}


def causal_lm_counting(blocks: str = "L blocks", norm: str = "RMS norm", tail: str = "", *,
                       embeddings: str = "token embedding") -> str:
    """The counting sentence of a transformers causal LM: its ``embeddings``, ``blocks``, final
    ``norm``, and the LM head, none when tied (``tail``: what the release does, ", as released")."""
    return (f"trainable parameters of the causal LM: {embeddings}, {blocks}, final {norm}, "
            f"LM head (none when tied{tail})")


def pre_norm_causal_lm(name: str, attention_term: Term, ffn: Term, *,
                       norm: Callable[..., Term] = rms_norm, note: str = "", head_bias=0) -> Term:
    """A transformers causal LM of Llama's pre-norm blocks (Granite's, StarCoder2's, OLMoE's,
    MiniMax-M2's): a ``norm`` (``input_layernorm``) before ``attention_term``, another
    (``post_attention_layernorm``) before ``ffn``, and a final one (``model/norm``), RMS norms by
    default; ``note`` on the blocks, ``head_bias`` the LM head's bias (Phi-3.5-MoE's)."""
    return causal_lm(name, block=(norm("attention_norm", match="input_layernorm"), attention_term,
                                  norm("ffn_norm", match="post_attention_layernorm"), ffn),
                     final_norm=norm("final_norm", match="model/norm"), head_bias=head_bias, note=note)


def parallel_causal_lm(name: str, attention_term: Term, ffn: Term, *, beta=1, norm: str = "input_layernorm",
                       final_norm: str = "model/norm", **more) -> Term:
    """A transformers causal LM of parallel blocks (GPT-J's, Phi's, Cohere's): one layer norm
    (its match ``norm``; γ only when ``beta`` is 0, as Cohere's) feeds both ``attention_term``
    and ``ffn``; a final one (``final_norm``); ``more`` for :func:`causal_lm` (the head's bias,
    the embedding's and layers' names, the note)."""
    return causal_lm(name, block=(layer_norm("norm", beta=beta, match=norm), attention_term, ffn),
                     final_norm=layer_norm("final_norm", beta=beta, match=final_norm), **more)


def hf_causal_lm(arch_id: str, *, formula: Term, hf: str = "", fields: Iterable[Field] = (),
                 free: Iterable[str] = (), table_restrictions: Iterable[Restriction] = (),
                 model_type: str | None = None, base_free: frozenset[str] = CAUSAL_LM_FREE,
                 mapping: Table | None = None, cost_config: Mapping[str, object] | None = None,
                 **rest) -> Architecture:
    """A causal LM only transformers builds (KerasHub has no class of it), as an Architecture:
    checked against transformers alone (``reference_models.hf``), its names read off the tree's
    matches (``own_weights``), its presets the file ``<id>``. Its table is ``mapping``, or the
    ``fields``, restriction rows and the lineage's free keys with the family's ``free`` under
    ``model_type`` (the id by default) for the class ``hf``. By default its hyperparameters are
    the Llama block's (v, d_e, M, M_kv, d_f, L) and its config (``<Class>Config``) has no
    head_dim (:func:`rotary_heads`); ``cost_config``, its class's config fields that change a
    cost and no weight (``Transformers.cost_config``). The family gives title, source, counting,
    examples and any other field (or another default) in ``rest``."""
    if mapping is None:
        if not hf:
            raise TypeError(f"{arch_id}: hf_causal_lm needs the transformers class (hf=) or a whole mapping")
        mapping = family_table(arch_id, hf=hf, fields=fields, model_type=model_type,
                               restrictions=table_restrictions, free=free, base_free=base_free)
    defaults = dict(
        required=(v, d_e, M, M_kv, d_f, L),
        reference=Named("reference_models.hf:weights", (arch_id,)),
        presets=arch_id,
        family="transformers",
        mapping=mapping,
        transformers=Transformers(weights=own_weights(formula), cost_config=cost_config or {}),
        frameworks=("transformers",),
    )
    if "restrictions" not in rest:
        defaults["restrictions"] = rotary_heads(hf.removesuffix("ForCausalLM") + "Config")
    return Architecture(id=arch_id, formula=formula, **{**defaults, **rest})
