"""GPT-2 (Radford et al. 2019) as KerasHub builds it: GPT2Backbone and GPT2CausalLM."""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import zero
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L
from paramcount.core.symbols import d_e
from paramcount.core.symbols import v
from paramcount.families._defaults import family_table
from paramcount.families._encoders import learned_positions_backbone
from paramcount.families._encoders import learned_positions_family
from paramcount.families._lineages import HEADS_N_HEAD
from paramcount.families._lineages import LAYERS_N_LAYER
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import pinned
from paramcount.model.components import decoder_block
from paramcount.model.components import layer_norm
from paramcount.model.components.basic import WHOLE_HEADS
from paramcount.model.components.encoders import token_position_embeddings
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("gpt2", "gpt2_causal_lm")  # the ids this folder registers


_BACKBONE = (
    token_position_embeddings(norm=None),
    decoder_block(times=L),
    layer_norm("final_norm", match="layer_norm"),
)

# symbol ↔ GPT2Backbone argument ↔ GPT2Config key. n_inner absent or null is 4·n_embd in
# transformers; KerasHub has no default for intermediate_dim.
MAPPING = family_table(
    "gpt2", hf="GPT2Model", keras="GPT2Backbone", tasks={"GPT2LMHeadModel": "gpt2_causal_lm"},
    fields=(
        VOCAB,
        LAYERS_N_LAYER,
        HEADS_N_HEAD,
        Field("d_e", keras="hidden_dim", hf="n_embd"),
        Field("d_f", keras="intermediate_dim", hf="n_inner", hf_default=4 * d_e),
        Field("n", keras="max_sequence_length", hf="n_positions", keras_default=1024),
    ),
    restrictions=pinned(
        ("tie_word_embeddings", True, "GPT-2's LM head is the token embedding (tied)",
         dict(classes=("GPT2LMHeadModel",), why="GPT-2's LM head is the token embedding (tied)")),
        ("add_cross_attention", False, "GPT-2 is a decoder alone: no cross-attention weights",
         "GPT-2 here is a decoder without cross-attention"),
    ),
)

# GPT2Model / GPT2LMHeadModel names (the latter under ``transformer.``): Conv1D layers, with
# query, key and value fused in c_attn along its last axis, q | k | v.
TRANSFORMERS = Transformers(restrictions=(
    Holds(WHOLE_HEADS, binds="transformers",
        why="transformers' GPT2Attention refuses a width the heads do not split; KerasHub floors"),
), weights={
    "embeddings.token": "wte",
    "embeddings.position": "wpe",
    "blocks": r"h/\d+",
    "blocks.self_attention": "attn",
    "blocks.self_attention.query": ("c_attn", (0, 3)),
    "blocks.self_attention.key": ("c_attn", (1, 3)),
    "blocks.self_attention.value": ("c_attn", (2, 3)),
    "blocks.self_attention.output": "c_proj",
    "blocks.norm_1": "ln_1",
    "blocks.ffn": "mlp",
    "blocks.ffn.up": "c_fc",
    "blocks.ffn.down": "c_proj",
    "blocks.norm_2": "ln_2",
    "final_norm": "ln_f",
})

# The settings this family's architectures share; each call adds (or overrides) the rest.
_architecture = learned_positions_family(
    "GPT-2",
    presets=("gpt2", "gpt3"),
    examples={"tiny": dict(v=100, n=16, d_e=32, M=4, d_f=64, L=2)},
    mapping=MAPPING,
)

register(learned_positions_backbone(_architecture, "gpt2", *_BACKBONE, transformers=TRANSFORMERS))

register(_architecture(
    id="gpt2_causal_lm",
    formula=group(
        "gpt2_causal_lm",
        *_BACKBONE,
        zero("head", "tied: the output projection is the token embedding, transposed (counted once)",
             kind="head", macs=d_e * v),
    ),
    reference="reference_models.gpt2:causal_lm",
    # tied: GPT2LMHeadModel's lm_head is wte itself, listed once by named_parameters()
    transformers=Transformers(weights={**TRANSFORMERS.weights, "head": "lm_head"},
                              restrictions=(
                                  *Holds.each(TRANSFORMERS.constraints, binds="transformers",
                                      why="transformers' GPT2Attention refuses a width the heads do not split; "
                                          "KerasHub floors"),
                              )),
))
