"""Whisper (Radford et al. 2022, "Robust Speech Recognition via Large-Scale Weak Supervision")
as KerasHub builds it: WhisperBackbone.

An encoder-decoder transformer over speech. The encoder reads an n_mels-channel log-mel
spectrogram through a convolutional front end (two width-3 convolutions with biases, n_mels →
d_e then d_e → d_e at stride 2), adds a sinusoidal position table of n_audio rows (KerasHub
stores it as a non-trainable weight: counted apart), and runs L pre-LN blocks; the decoder embeds
v tokens with a learned table of n positions and runs L pre-LN blocks with cross-attention over
the encoder output. Both stacks end in a layer norm. Attention projections carry biases except
the key's (OpenAI's ``key = Linear(..., bias=False)``). The LM head is the token table,
transposed (tied), so the backbone is the whole model.

transformers' WhisperForConditionalGeneration builds the same weights: its sinusoidal table is a
parameter frozen at construction (non-trainable, as KerasHub's), proj_out is tied.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import B
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import T
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import n
from paramcount.core.symbols import v
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._defaults import token_ids_unset
from paramcount.families._lineages import KERAS_FLOORED_HEADS
from paramcount.families.bart import ENCODER_DECODER_FIELDS
from paramcount.model.components import attention
from paramcount.model.components import embedding
from paramcount.model.components import feed_forward
from paramcount.model.components import layer_norm
from paramcount.model.components.audio import conv1d
from paramcount.model.components.audio import n_audio
from paramcount.model.components.audio import n_mels
from paramcount.model.components.audio import on_positions
from paramcount.model.components.audio import over_keys
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("whisper",)  # the ids this folder registers


_NO_KEY_BIAS = (1, 0, 1, 1)  # q, k, v, output

# symbol ↔ WhisperBackbone argument ↔ WhisperConfig key. The formula has one depth, width, head
# count and feed-forward width for both stacks: each HF key of a stack (and the
# num_hidden_layers alias published configs carry) must agree. KerasHub's encoder position table
# holds max_encoder_sequence_length // 2 rows (the frames left after the stride-2 convolution),
# transformers' max_source_positions rows.
MAPPING = family_table(
    # WhisperForConditionalGeneration's proj_out is the decoder's token table (tied): its
    # weights are WhisperModel's, the class the published checkpoints name.
    "whisper", hf=("WhisperForConditionalGeneration", "WhisperModel"), keras="WhisperBackbone",
    fields=(
        *ENCODER_DECODER_FIELDS,  # BART's: one depth, head count and width for both stacks
        # both frameworks default to 80 mel channels (128 from large-v3 on)
        Field("n_mels", keras="num_mels", hf="num_mel_bins", keras_default=80, hf_default=80),
        Field("n_audio", keras="max_encoder_sequence_length", hf="max_source_positions",
              keras_scale=2, keras_default=1500, hf_default=1500),
        Field("n", keras="max_decoder_sequence_length", hf="max_target_positions",
              keras_default=448, hf_default=448),
    ),
    restrictions=(
        Sets("tie_word_embeddings", True, why="Whisper's LM head is the token table transposed (tied)"),
        *token_ids_unset(
            "WhisperConfig", "50256, 50257", pad_token_id="torch refuses the padding row",
            bos_token_id="torch refuses the padding row (decoder_start_token_id stays: it must be "
                         "an int, and 0 is in every vocabulary)",
            eos_token_id="torch refuses the padding row"),
        Sets("decoder_start_token_id", 0, why="the decoder start token must be an int: 0 is in every vocabulary"),
        Requires(
            "tie_word_embeddings",
            (True,),
            why="the output projection counts only as the decoder's token table, tied",
        ),
    ),
)

_BLOCK = {
    "norm_1": "self_attn_layer_norm",
    "self_attention": "self_attn",
    "self_attention.query": "q_proj",
    "self_attention.key": "k_proj",
    "self_attention.value": "v_proj",
    "self_attention.output": "out_proj",
    "norm_cross": "encoder_attn_layer_norm",
    "cross_attention": "encoder_attn",
    "cross_attention.query": "q_proj",
    "cross_attention.key": "k_proj",
    "cross_attention.value": "v_proj",
    "cross_attention.output": "out_proj",
    "cross_attention.scores": "scores",
    "norm_2": "final_layer_norm",
    "ffn.up": "fc1",
    "ffn.down": "fc2",
}
_ENCODER_ONLY = ("norm_cross", "cross_attention")

# WhisperForConditionalGeneration's names. No deltas: transformers builds KerasHub's weights.
# Its encoder's sinusoidal table is an nn.Embedding frozen at construction
# (``embed_positions.requires_grad_(False)``): a parameter, not trainable, as KerasHub's
# non-trainable weight is; the decoder's position table is learned in both; proj_out is tied.
TRANSFORMERS = Transformers(weights={
    "encoder": "encoder",
    "encoder.front_end.conv_1": "conv1",
    "encoder.front_end.conv_2": "conv2",
    "encoder.positions": "embed_positions",
    "encoder.blocks": r"layers/\d+",
    **{f"encoder.blocks.{k}": p for k, p in _BLOCK.items() if not k.startswith(_ENCODER_ONLY)},
    "encoder.blocks.self_attention.scores": "scores",
    "encoder.final_norm": "layer_norm",
    "decoder": "decoder",
    "decoder.embeddings.token": "embed_tokens",
    "decoder.embeddings.positions": "embed_positions",
    "decoder.blocks": r"layers/\d+",
    **{f"decoder.blocks.{k}": p for k, p in _BLOCK.items()},
    "decoder.final_norm": "layer_norm",
    "head": "proj_out",
})

register(keras_hub_backbone(
    "whisper",
    formula=group(
        "whisper",
        group(
            "encoder",
            group(
                "front_end",
                # the encoder reads 2·n_audio frames, whatever T (transformers refuses another
                # length): 2·n_audio outputs of the first convolution, n_audio of the second
                conv1d("conv_1", n_mels, d_e, kernel=3,
                       match="encoder_token_embedding_conv_layer_1"
                       ).with_cost(flops=2 * B * 2 * n_audio * 3 * n_mels * d_e),
                conv1d("conv_2", d_e, d_e, kernel=3,
                       match="encoder_token_embedding_conv_layer_2",
                       note="convolution, kernel width 3, stride 2 (halves the frames)"
                       ).with_cost(flops=2 * B * n_audio * 3 * d_e * d_e),
            ),
            leaf("positions", n_audio * d_e, match="encoder_position_embedding", kind="position",
                 trainable=False,
                 note="sinusoidal n_audio × d_e table, stored as a non-trainable weight"),
            on_positions(group(  # n_audio positions, attending both ways: no cache
                "blocks",
                layer_norm("norm_1", match="self_attention_layer_norm"),
                over_keys(attention("self_attention", match="self_attention_layer",
                                    bias=_NO_KEY_BIAS), n_audio, n_audio, cached=False),
                layer_norm("norm_2", match="feedforward_layer_norm"),
                feed_forward(),
                times=L,
                match=r"transformer_encoder_layer_\d+",
            ), n_audio),
            layer_norm("final_norm", match="encoder_layer_norm"),
        ),
        group(
            "decoder",
            group(
                "embeddings",
                embedding("token", v, match="token_embedding",
                          note="v × d_e table, also the tied LM head"),
                embedding("positions", n, match="position_embedding",
                          note="learned n × d_e position table"),
                match="decoder_token_and_position_embedding",
            ),
            group(
                "blocks",
                layer_norm("norm_1", match="self_attention_layer_norm"),
                attention("self_attention", match="self_attention", bias=_NO_KEY_BIAS),
                layer_norm("norm_cross", match="cross_attention_layer_norm"),
                over_keys(attention("cross_attention", match="cross_attention", bias=_NO_KEY_BIAS),
                          T, n_audio, cached=True),  # T queries, the n_audio frames cached
                layer_norm("norm_2", match="feedforward_layer_norm"),
                feed_forward(),
                times=L,
                match=r"transformer_decoder_layer_\d+",
            ),
            layer_norm("final_norm", match="decoder_layer_norm"),
        ),
        zero("head", "tied: the output projection is the decoder's token table, transposed",
             kind="head", macs=d_e * v),
    ),
    required=(v, n_mels, d_e, M, d_f, L),
    optional={n: 448, n_audio: 1500},
    restrictions=(
        *KERAS_FLOORED_HEADS,
        Holds(Divisible(d_e, M),
            why="the heads split the width exactly: transformers' WhisperAttention refuses an embed_dim the heads "
                "do not divide"),
    ),
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
