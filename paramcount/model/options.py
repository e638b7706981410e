"""Options transformers builds and KerasHub cannot: an untied Gemma head, RoBERTa with sixteen
token types, T5 with eight relative-position buckets. A config holding one is counted as
transformers builds it, the Keras check skipped with its reason, rather than refused.

Each :class:`Option` is data on one mechanism, :func:`derive`: architecture ``<id>:<option>``
(``gemma:untied``), found by :func:`paramcount.model.registry.get`, is the family's architecture with

- its table (and each transformers class's table) reading the option: the family's
  :class:`~paramcount.model.mapping.Require` on the key is replaced by the option's values (or, with
  ``fields``, by a symbol read from the key), so a config the family's table refuses for that key
  alone is read by the option's (tables sharing a model type are tried in order);
- the option's terms as declared deltas, and their transformers names;
- checked by transformers only, the reason being the family's own (``KerasHub's SmolLM3 always
  ties its LM head``).

Nothing here imports a framework, or the registry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from paramcount.core.formula import group, leaf
from paramcount.core.symbols import L, d_e, d_p, n_b, s, v, v_p
from paramcount.model import heads
from paramcount.model.components.basic import dense, embedding
from paramcount.model.components.modern import rms_norm
from paramcount.model.frameworks import Delta
from paramcount.model.mapping import Field, Require

__all__ = ["OPTIONS", "Option", "combined", "derive", "options_of", "reason"]


@dataclass(frozen=True)
class Option:
    """A value of one config key that transformers builds and KerasHub cannot.

    Args:
        name: the option's name in the id (``untied``).
        key: the config key (``tie_word_embeddings``).
        values: the key's values this option reads (None: any value, read by ``fields``).
        deltas: the terms transformers builds differently with the option.
        weights: transformers' names of new terms (component path → pattern).
        fields: symbols read from the key (T5's buckets, n_b).
        frees: fixed symbols of the family the option makes settable, with their defaults.
        classes: the transformers classes it applies to (empty: every class of the id).
    """

    name: str
    key: str
    values: tuple | None
    deltas: tuple[Delta, ...] = ()
    weights: Mapping[str, str] = field(default_factory=dict)
    fields: tuple[Field, ...] = ()
    frees: Mapping[object, object] = field(default_factory=dict)
    classes: tuple[str, ...] = ()
    # values the family's examples take with the option (RoBERTa's s = 16), so each is checked
    example: Mapping[str, int] = field(default_factory=dict)


def _untied(note: str, **kw) -> Option:
    head = leaf("head", d_e * v, kind="head",
                note=f"untied output projection (lm_head), d_e × v: {note}")
    return Option("untied", "tie_word_embeddings", (False,),
                  (Delta("head", head, "tie_word_embeddings false: transformers builds a "
                                       "separate lm_head, d_e × v"),),
                  {"head": "lm_head"}, **kw)


# RoBERTa's (and XLM-R's) token-type table: one row in every checkpoint, any number in
# transformers, none in KerasHub.
_TOKEN_TYPES = Option(
    "token_types", "type_vocab_size", None,
    (Delta("embeddings.segment", embedding("segment", s),
           "transformers builds type_vocab_size token-type rows, s × d_e"),),
    fields=(Field("s", hf="type_vocab_size"),), frees={s: 1}, example={"s": 16})

# Gemma 4's per-layer inputs (E2B/E4B), as Gemma 3n has them: a second token table of v_p rows,
# L·d_p wide, a projection of the token embedding d_e → L·d_p with a d_p-wide RMS norm, and in
# each block a d_e → d_p gate, a d_p → d_e projection and an RMS norm (× L: a shared part of Gemma
# 4's stack of global and local blocks, which repeat each part themselves). KerasHub's has none.
_PER_LAYER = Option(
    "per_layer_inputs", "hidden_size_per_layer_input", None,
    (Delta("embeddings.per_layer_token",
           embedding("per_layer_token", v_p, L * d_p, kind="embedding",
                     note="per-layer inputs: v_p × (L·d_p), one d_p slice per block"),
           "transformers builds the per-layer input table"),
     Delta("per_layer_inputs", group(
         "per_layer_inputs", dense("projection", d_e, L * d_p, bias=0),
         rms_norm("norm", d_p), kind="embedding"),
         "transformers projects the token embedding to every block's input, d_e → L·d_p"),
     Delta("blocks.per_layer_input", group(
         "per_layer_input", dense("gate", d_e, d_p, bias=0), dense("projection", d_p, d_e, bias=0),
         rms_norm("norm"), times=L, kind="other"),
         "each block gates its d_p-wide input and projects it back, d_e → d_p → d_e")),
    {"embeddings.per_layer_token": "model/embed_tokens_per_layer",
     "per_layer_inputs.projection": "model/per_layer_model_projection",
     "per_layer_inputs.norm": "model/per_layer_projection_norm",
     "blocks.per_layer_input.gate": "per_layer_input_gate",
     "blocks.per_layer_input.projection": "per_layer_projection",
     "blocks.per_layer_input.norm": "post_per_layer_input_norm"},
    fields=(Field("d_p", hf="hidden_size_per_layer_input", hf_default=256),
            Field("v_p", hf="vocab_size_per_layer_input", hf_default=262_144)),
    frees={d_p: 256, v_p: 262_144}, example={"d_p": 4, "v_p": 11})

# Architecture id → its options.
OPTIONS: Mapping[str, tuple[Option, ...]] = {
    "gemma": (_untied("Gemma(2)ForCausalLM honours tie_word_embeddings"),),
    "gemma3": (_untied("Gemma3ForCausalLM honours tie_word_embeddings"),),
    "gemma4": (_untied("Gemma4ForCausalLM honours tie_word_embeddings"), _PER_LAYER),
    "smollm3": (_untied("SmolLM3ForCausalLM honours tie_word_embeddings"),),
    "gpt2_causal_lm": (_untied("GPT2LMHeadModel honours tie_word_embeddings"),),
    "opt": (_untied("OPTForCausalLM honours tie_word_embeddings",
                    classes=("OPTForCausalLM",)),),
    "falcon": (_untied("FalconForCausalLM honours tie_word_embeddings"),),
    "falcon_parallel": (_untied("FalconForCausalLM honours tie_word_embeddings"),),
    **{a: (_TOKEN_TYPES,) for a in ("roberta", "roberta_masked_lm", "xlm_roberta",
                                     "xlm_roberta_masked_lm")},
    "t5": (Option(
        "buckets", "relative_attention_num_buckets", None,
        fields=(Field("n_b", hf="relative_attention_num_buckets"),), frees={n_b: 32},
        example={"n_b": 8}),),
}


def options_of(arch_id: str) -> tuple[str, ...]:
    return tuple(o.name for o in OPTIONS.get(arch_id, ()))


def combined(arch_id: str) -> tuple[str, ...]:
    """``<Class>:<option>`` for each further class of ``arch_id`` (paramcount.model.heads) and each of
    its options that the class builds: an option on an LM head's key concerns no other class
    (the class reads any value of it already), one naming its classes only those."""
    return tuple(f"{c}:{o.name}" for c in heads.classes_of(arch_id)
                 for o in OPTIONS.get(arch_id, ())
                 if o.key not in heads.LM_HEAD_KEYS and (not o.classes or c in o.classes))


def reason(table, opt: Option) -> str:
    """Why KerasHub cannot build the option: the family's own requirement on its key."""
    req = next((r for r in table.requires if r.key == opt.key and r.framework == "hf"), None)
    return req.reason if req is not None else f"KerasHub has no {opt.key} option"


def _table(table, arch_id: str, new_id: str, opt: Option, why: str):
    requires = tuple(r for r in table.requires if not (r.key == opt.key and r.framework == "hf"))
    if opt.values is not None:
        requires += (Require(opt.key, opt.values, f"read by {arch_id}'s table ({why})",
                             absent_ok=False),)
    consts = {k: c for k, c in table.hf_constants.items() if k != opt.key}
    if opt.values is not None:
        consts[opt.key] = opt.values[0]
    classes = {c: new_id for c, a in table.hf_classes.items()
               if a == arch_id and (not opt.classes or c in opt.classes)}
    return dataclasses.replace(table, requires=requires, hf_constants=consts,
                               fields=(*table.fields, *opt.fields), hf_classes=classes,
                               keras_classes={}, hf_builds={})


def derive(arch, name: str):
    """``arch`` with its option ``name`` (see the module docstring)."""
    # a class of the family (``roberta:RobertaForSequenceClassification``) takes its options
    opt = next(o for o in OPTIONS[arch.id.partition(":")[0]] if o.name == name)
    new_id = f"{arch.id}:{name}"
    why = reason(arch.mapping, opt)
    own = arch.transformers

    def one(ref):
        own_why = reason(ref.mapping or arch.mapping, opt)
        table = _table(ref.mapping, arch.id, new_id, opt, own_why) if ref.mapping else None
        return dataclasses.replace(ref, deltas=(*ref.deltas, *opt.deltas),
                                   weights={**ref.weights, **opt.weights}, mapping=table,
                                   only=f"the Keras check is skipped for this {opt.key}: {own_why}")

    transformers = dataclasses.replace(one(own), variants=tuple(one(r) for r in own.variants))
    return dataclasses.replace(
        arch, id=new_id, title=f"{arch.title}, {opt.key} as transformers builds it",
        optional={**arch.optional, **opt.frees},
        fixed={k: e for k, e in arch.fixed.items() if k not in opt.frees},
        mapping=_table(arch.mapping, arch.id, new_id, opt, why), transformers=transformers,
        presets=None, keras_hub_metadata=False, frameworks=("transformers",),
        examples={k: {**hp, **opt.example} for k, hp in arch.examples.items()},
        counting=f"{arch.counting}; {opt.key} as transformers builds it (KerasHub cannot: "
                 f"{why})")
