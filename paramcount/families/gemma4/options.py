"""Gemma 4's options only transformers builds (:mod:`paramcount.model.options`): an untied
head, and per-layer inputs."""

from paramcount.core.formula import group
from paramcount.core.symbols import L
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_p
from paramcount.core.symbols import v_p
from paramcount.model.components.basic import dense
from paramcount.model.components.basic import embedding
from paramcount.model.components.modern import rms_norm
from paramcount.model.frameworks import Delta
from paramcount.model.mapping import Field
from paramcount.model.options import Option
from paramcount.model.options import untied

# Per-layer inputs (E2B/E4B), as Gemma 3n has them: a second token table of v_p rows, L·d_p wide,
# a projection of the token embedding d_e → L·d_p with a d_p-wide RMS norm, and in each block a
# d_e → d_p gate, a d_p → d_e projection and an RMS norm (× L: a shared part of Gemma 4's stack
# of global and local blocks, which repeat each part themselves). KerasHub's has none.
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

OPTIONS = {"gemma4": (untied("Gemma4ForCausalLM honours tie_word_embeddings"), _PER_LAYER)}
