"""T5Gemma (Zhang et al. 2025) as KerasHub builds it: T5GemmaBackbone.

An encoder-decoder adapted from Gemma 2: each side is a stack of Gemma 2 blocks (grouped-query
attention with head width d_k, pre- and post-norms around attention and feed-forward, all RMS
norms with a scale only, GeGLU feed-forward, rotary positions, interleaved local/global attention
that costs nothing extra). Decoder blocks add cross-attention over the encoder output (its keys
and values project from the encoder width d_e) with its own pre/post norms. Encoder and decoder
may differ in every size ("unbalanced" 9B-2B), so the decoder has its own symbols, defaulting to
the encoder's. Encoder and decoder keep separate token tables; the decoder's LM head is its
table, transposed, unless untied.
"""

from __future__ import annotations

import sympy

from paramcount.core.formula import group
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L_dec
from paramcount.core.symbols import L_enc
from paramcount.core.symbols import M
from paramcount.core.symbols import M_dec
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import M_kv_dec
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_e_dec
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_f_dec
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_k_dec
from paramcount.core.symbols import v
from paramcount.core.symbols import w
from paramcount.core.symbols import zeta
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import T5GEMMA_ATTENTION_BIAS
from paramcount.families._lineages import T5GEMMA_VALIDATED
from paramcount.families._lineages import T5GEMMA_VOCAB
from paramcount.families._lineages import TIED_YES
from paramcount.families._lineages import layer_types
from paramcount.families._lineages import t5gemma_heads
from paramcount.model.components import attention
from paramcount.model.components import gated_feed_forward
from paramcount.model.components import rms_norm
from paramcount.model.components import rotary_positions
from paramcount.model.components.encoders import encoder_decoder_embeddings
from paramcount.model.components.encoders import encoder_decoder_outputs
from paramcount.model.components.encoders import tied
from paramcount.model.cost import sliding_kept
from paramcount.model.cost import with_kept
from paramcount.model.cost import without_cache
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("t5gemma",)  # the ids this folder registers


def _norms(prefix: str, width, *parts: str):
    return [rms_norm(f"{p}_norm", width, match=f"{prefix}{p}_layernorm") for p in parts]



def _types(key: str):
    # Gemma 2's interleaving, local then global; the window changes no weight
    return lambda hp: ["sliding_attention" if i % 2 == 0 else "full_attention"
                       for i in range(hp[key])]


def _side(side: str, syms: dict[str, str]) -> tuple[Field, ...]:
    keys = {"d_e": "hidden_dim", "d_f": "intermediate_dim", "L": "num_layers",
            "M": "num_attention_heads", "M_kv": "num_key_value_heads", "d_k": "head_dim"}
    hf = {"d_e": "hidden_size", "d_f": "intermediate_size", "L": "num_hidden_layers",
          "M": "num_attention_heads", "M_kv": "num_key_value_heads", "d_k": "head_dim"}
    return tuple(Field(sym, keras=f"{side}_{keys[k]}", hf=f"{side}.{hf[k]}")
                 for k, sym in syms.items())


# symbol ↔ T5GemmaBackbone argument ↔ T5GemmaConfig key (nested: encoder and decoder are each a
# T5GemmaModuleConfig). KerasHub has one vocabulary and one attention_bias for both sides; the
# top-level vocab_size of a transformers config is not what the model builds (the sides' are).
def _both_sides(config):
    """A transformers config without its decoder: T5GemmaConfig then builds its module config's
    own default decoder (2,304 wide, 26 layers), not one like the encoder, which is what the
    decoder's fields would read (issue 32: refused, never counted as the encoder)."""
    if "encoder" in config and "decoder" not in config:
        from paramcount.core.errors import InputFileError

        raise InputFileError("decoder is absent: T5GemmaConfig then builds its default decoder "
                             "(T5GemmaModuleConfig's sizes), which the t5gemma table does not "
                             "read; give the decoder's keys")
    return config


MAPPING = family_table(
    "t5gemma", hf="T5GemmaForConditionalGeneration", keras="T5GemmaBackbone",
    fields=(
        T5GEMMA_VOCAB,
        Field("v", hf="encoder.vocab_size"),
        *_side("encoder", {"d_e": "d_e", "d_f": "d_f", "L": "L_enc", "M": "M", "M_kv": "M_kv",
                           "d_k": "d_k"}),
        *_side("decoder", {"d_e": "d_e_dec", "d_f": "d_f_dec", "L": "L_dec", "M": "M_dec",
                           "M_kv": "M_kv_dec", "d_k": "d_k_dec"}),
        T5GEMMA_ATTENTION_BIAS,
        Field("zeta", hf="encoder.attention_bias", flag=True, hf_default=0),
        TIED_YES,
    ),
    restrictions=(
        *layer_types(_types, why="T5GemmaBackbone takes each layer's attention kind: Gemma 2's interleaving, "
                                 "local then global (no weights)"),
        Sets("sliding_window", 4096, binds="keras", why="the released T5Gemma models' window (no weight)"),
    ),
    free=frozenset({
        "vocab_size", "is_encoder_decoder", "dropout_rate", "classifier_dropout_rate",
        "attention_dropout", "chunk_size_feed_forward",
        *{f"{side}.{k}" for side in ("encoder", "decoder") for k in (
            "hidden_activation", "hidden_act", "max_position_embeddings", "rms_norm_eps",
            "rope_theta", "rope_parameters", "rope_scaling", "attention_dropout",
            "query_pre_attn_scalar", "sliding_window", "layer_types", "final_logit_softcapping",
            "attn_logit_softcapping", "dropout_rate", "is_decoder", "tie_word_embeddings",
            "cross_attention_hidden_size", "initializer_range", "use_bidirectional_attention")},
        "encoder_layer_types", "decoder_layer_types", "sliding_window", "rms_norm_eps",
        "query_pre_attn_scalar", "hidden_activation", "initializer_range",
        "cross_attention_hidden_size", "attn_logit_softcapping", "final_logit_softcapping",
        "rope_max_wavelength",
    }),
    hf_normalize=_both_sides,
)


def _block(prefix: str, *, cross: bool) -> dict[str, str]:
    out = {prefix: rf"model/{prefix}/layers/\d+"}
    for att, hf in (("self_attention", "self_attn"), ("cross_attention", "cross_attn"))[
            :2 if cross else 1]:
        out.update({f"{prefix}.{att}": hf, f"{prefix}.{att}.query": "q_proj",
                    f"{prefix}.{att}.key": "k_proj", f"{prefix}.{att}.value": "v_proj",
                    f"{prefix}.{att}.output": "o_proj"})
        short = hf.split("_")[0]
        out[f"{prefix}.pre_{att}_norm"] = f"pre_{short}_attn_layernorm"
        out[f"{prefix}.post_{att}_norm"] = f"post_{short}_attn_layernorm"
    out.update({f"{prefix}.ffn": "mlp", f"{prefix}.ffn.gate": "gate_proj",
                f"{prefix}.ffn.up": "up_proj", f"{prefix}.ffn.down": "down_proj",
                f"{prefix}.pre_feedforward_norm": "pre_feedforward_layernorm",
                f"{prefix}.post_feedforward_norm": "post_feedforward_layernorm"})
    return out


# T5GemmaForConditionalGeneration: model.encoder / model.decoder, each with its token table,
# layers and output norm; the LM head lm_head.out_proj is the decoder's table when tied (listed
# once). Rotary inverse frequencies are non-persistent buffers.
TRANSFORMERS = Transformers(
    restrictions=(
        *T5GEMMA_VALIDATED,
        Holds(Divisible(d_e_dec, M_dec), binds="transformers",
            why="transformers validates each side's width divisible by its heads, even with head_dim set"),
    ),
    weights={
        "encoder_token_embedding": "model/encoder/embed_tokens",
        "decoder_token_embedding": "model/decoder/embed_tokens",
        **_block("encoder", cross=False),
        **_block("decoder", cross=True),
        "final_norms": "model/(?:encoder|decoder)/norm",
        "head": "lm_head/out_proj",
    },
    # the window (no weight) the cost measurement writes to both sides' configs; only the
    # decoder's self-attention cache keeps it (its sliding layers), the encoder's masks only
    cost_config={"encoder.sliding_window": (w, 4096), "decoder.sliding_window": (w, 4096)},
)

# The decoder's self-attention layers alternate as layer_types says, local then global: a
# sliding layer's cache keeps min(T, w − 1) positions, a global one T (⌊L_dec/2⌋ of them); the
# cross-attention's cache (no window: transformers gives it a DynamicCache without the config)
# keeps the T encoder positions; the encoder caches nothing.
_DECODER_KEPT = sliding_kept(w, sympy.floor(L_dec / 2), layers=L_dec)

register(keras_hub_backbone(
    "t5gemma",
    formula=group(
        "t5gemma",
        *encoder_decoder_embeddings(d_e_dec),
        without_cache(group(
            "encoder",
            rotary_positions(),
            attention("self_attention", match="self_attention", kv_heads=M_kv, key_dim=d_k,
                      value_dim=d_k, bias=zeta),
            gated_feed_forward(match="mlp", names=("gate_proj", "up_proj", "down_proj")),
            *_norms("", d_e, "pre_self_attention", "post_self_attention", "pre_feedforward",
                    "post_feedforward"),
            times=L_enc,
            match=r"encoder_layer_\d+",
        )),
        group(
            "decoder",
            rotary_positions(),
            with_kept(attention("self_attention", match="self_attention", width=d_e_dec,
                                heads=M_dec, kv_heads=M_kv_dec, key_dim=d_k_dec,
                                value_dim=d_k_dec, bias=zeta), _DECODER_KEPT),
            attention("cross_attention", match="cross_attention", kind="cross-attention", width=d_e_dec, heads=M_dec,
                      kv_heads=M_kv_dec, key_dim=d_k_dec, value_dim=d_k_dec, kv_width=d_e,
                      bias=zeta),
            gated_feed_forward(match="mlp", width=d_e_dec, inner=d_f_dec,
                               names=("gate_proj", "up_proj", "down_proj")),
            *_norms("decoder_", d_e_dec, "pre_self_attention", "post_self_attention",
                    "pre_cross_attention", "post_cross_attention", "pre_feedforward",
                    "post_feedforward"),
            times=L_dec,
            match=r"decoder_layer_\d+",
        ),
        *encoder_decoder_outputs(d_e + d_e_dec, head_width=d_e_dec,
                                 whose="the encoder's (d_e) and decoder's (d_e_dec)"),
    ),
    required=(v, d_e, d_f, M, M_kv, d_k, L_enc),
    optional={L_dec: L_enc, d_e_dec: d_e, d_f_dec: d_f, M_dec: M, M_kv_dec: M_kv,
              d_k_dec: d_k, zeta: 0, tied: 1},
    restrictions=(
        *t5gemma_heads("T5Gemma"),
    ),
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
