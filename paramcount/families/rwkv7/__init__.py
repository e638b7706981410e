"""RWKV-7 "Goose" (Peng et al. 2025) as KerasHub builds it: keras_hub.models.RWKV7Backbone.

An attention-free recurrent LM. Each of the L blocks has a time mix (RWKV-7's generalised delta
rule: receptance, key, value and output projections, d_e² each; per-channel token-shift mixing
coefficients; low-rank ("LoRA") maps for the decay w, the in-context learning rate a and the
output gate g; k_k, k_a, r_k vectors; a per-head group norm) and a channel mix (token shift, then
d_e → d_f, squared ReLU, d_f → d_e, no biases), each after a layer norm. Heads have width d_k
(``head_size``), so there are d_e/d_k of them; r_k holds one d_k vector per head, d_e in all.

Layer 0 is special: it also normalises the embeddings (``init_norm``) and, being the layer whose
values every later layer mixes in ("value residual"), has no v0/v1/v2 of its own: those exist in
the L − 1 later layers only. The backbone's output includes the untied LM head (``head``).
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import r_a
from paramcount.core.symbols import r_g
from paramcount.core.symbols import r_v
from paramcount.core.symbols import r_w
from paramcount.core.symbols import v
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import KERAS_FFN
from paramcount.families._lineages import KERAS_HEAD_SIZE
from paramcount.families._lineages import KERAS_LAYERS
from paramcount.families._lineages import KERAS_VOCAB
from paramcount.model.components import dense
from paramcount.model.components import embedding
from paramcount.model.components import layer_norm
from paramcount.model.mapping import Field
from paramcount.model.mapping import Table
from paramcount.model.registry import register

IDS = ("rwkv7",)  # the ids this folder registers


def _low_rank(name: str, rank, *, bias: bool, match: str, note: str):
    # d_e → rank → d_e without biases, plus (bias=True) a d_e-wide base vector.
    return leaf(name, (1 if bias else 0) * d_e + 2 * d_e * rank, match=match, note=note)


# symbol ↔ RWKV7Backbone argument. KerasHub configuration only: transformers 5.23 has no
# RWKV-7 (its RWKV is v4, another architecture).
MAPPING = Table(
    fields=(
        KERAS_VOCAB,
        KERAS_LAYERS,
        Field("d_e", keras="hidden_size"),
        KERAS_HEAD_SIZE,
        KERAS_FFN,
        Field("r_g", keras="gate_lora", keras_default=128),
        Field("r_v", keras="mv_lora", keras_default=32),
        Field("r_a", keras="aaa_lora", keras_default=64),
        Field("r_w", keras="decay_lora", keras_default=64),
    ),
    keras_classes={"RWKV7Backbone": "rwkv7"},
    free=frozenset({"dropout_rate"}),
)

register(keras_hub_backbone(
    "rwkv7",
    presets=None,
    mapping=MAPPING,
    formula=group(
        "rwkv7",
        group("embeddings", embedding("token", v, match="token_embedding"),
              layer_norm("norm", match=r"rwkv_layer_0/init_norm")),
        group(
            "blocks",
            layer_norm("norm_1", match="att_norm"),
            group(
                "time_mix",
                leaf("token_shift_mix", 6 * d_e, match="x_r|x_w|x_k|x_v|x_a|x_g",
                     note="six per-channel token-shift mixing vectors (r, w, k, v, a, g)"),
                _low_rank("decay", r_w, bias=True, match="w0|w1|w2",
                          note="decay w: base vector w0 and low-rank map w1·w2"),
                _low_rank("learning_rate", r_a, bias=True, match="a0|a1|a2",
                          note="in-context learning rate a: base a0 and low-rank map a1·a2"),
                _low_rank("gate", r_g, bias=False, match="g1|g2",
                          note="output gate g: low-rank map g1·g2"),
                leaf("key_vectors", 3 * d_e, match="k_k|k_a|r_k",
                     note="k_k, k_a (d_e each) and r_k (one d_k vector per head: d_e)"),
                dense("receptance", d_e, d_e, bias=0, match="receptance"),
                dense("key", d_e, d_e, bias=0, match="key"),
                dense("value", d_e, d_e, bias=0, match="value"),
                dense("output", d_e, d_e, bias=0, match="output_layer"),
                layer_norm("group_norm", match=r"group_normalization(?:_\d+)?"),
                match="RWKV_TIME_MIX",
                kind="recurrent",  # RWKV's time mixing: the recurrence (WKV state), no attention
            ),
            layer_norm("norm_2", match="ffn_norm"),
            group(
                "channel_mix",
                leaf("token_shift_mix", d_e, match="time_mix_k"),
                dense("key", d_e, d_f, bias=0, match="dense_k"),
                dense("value", d_f, d_e, bias=0, match="dense_v"),
                match="RWKV_CMIX",
                kind="feed-forward",
            ),
            times=L,
            match=r"rwkv_layer_\d+",
        ),
        group(
            "value_residual",
            _low_rank("value_mix", r_v, bias=True, match="v0|v1|v2",
                      note="value residual: base v0 and low-rank map v1·v2 (not in layer 0)"),
            times=L - 1,
            match=r"rwkv_layer_\d+/RWKV_TIME_MIX",
            kind="recurrent",
            note="layers 1 … L−1 mix in layer 0's values; layer 0 has no such weights",
        ),
        layer_norm("final_norm", match="output_norm"),
        dense("head", d_e, v, bias=0, match="head", kind="head"),
    ),
    required=(v, d_e, d_k, d_f, L),
    optional={r_w: 64, r_a: 64, r_v: 32, r_g: 128},
    restrictions=(
        Holds(Divisible(d_e, d_k),
              why="KerasHub's time mix has hidden_size // head_size heads, which must tile the width exactly"),
    ),
    reference="reference_models.rwkv7:backbone",
))
