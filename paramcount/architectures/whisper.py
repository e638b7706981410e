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
"""

from __future__ import annotations

from paramcount.components import attention, embedding, feed_forward, layer_norm
from paramcount.components.audio import conv1d, n_audio, n_mels
from paramcount.components.basic import EVEN_HEADS
from paramcount.formula import group, leaf, zero
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, n, v

_NO_KEY_BIAS = (1, 0, 1, 1)  # q, k, v, output

register(Architecture(
    id="whisper",
    title="Whisper backbone (keras_hub.models.WhisperBackbone): speech encoder-decoder with a "
          "convolutional front end",
    source="Radford et al. 2022 (Whisper), openai/whisper model.py; "
           "keras_hub/src/models/whisper/whisper_{backbone,encoder,decoder}.py",
    formula=group(
        "whisper",
        group(
            "encoder",
            group(
                "front_end",
                conv1d("conv_1", n_mels, d_e, kernel=3,
                       match="encoder_token_embedding_conv_layer_1"),
                conv1d("conv_2", d_e, d_e, kernel=3,
                       match="encoder_token_embedding_conv_layer_2",
                       note="convolution, kernel width 3, stride 2 (halves the frames)"),
            ),
            leaf("positions", n_audio * d_e, match="encoder_position_embedding", kind="position",
                 trainable=False,
                 note="sinusoidal n_audio × d_e table, stored as a non-trainable weight"),
            group(
                "blocks",
                layer_norm("norm_1", match="self_attention_layer_norm"),
                attention("self_attention", match="self_attention_layer", bias=_NO_KEY_BIAS),
                layer_norm("norm_2", match="feedforward_layer_norm"),
                feed_forward(),
                times=L,
                match=r"transformer_encoder_layer_\d+",
            ),
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
                attention("cross_attention", match="cross_attention", bias=_NO_KEY_BIAS),
                layer_norm("norm_2", match="feedforward_layer_norm"),
                feed_forward(),
                times=L,
                match=r"transformer_decoder_layer_\d+",
            ),
            layer_norm("final_norm", match="decoder_layer_norm"),
        ),
        zero("head", "tied: the output projection is the decoder's token table, transposed",
             kind="head"),
    ),
    reference="reference_models.whisper:backbone",
    counting="trainable weights of the backbone: the convolutional front end, L encoder and L "
             "decoder blocks, their final norms, the decoder's token and position tables (the "
             "LM head is tied); the encoder's sinusoidal table is a non-trainable weight, "
             "counted apart (KerasHub's published figure includes it)",
    required=(v, n_mels, d_e, M, d_f, L),
    optional={n: 448, n_audio: 1500},
    fixed=EVEN_HEADS,
    constraints=(Divisible(d_e, M),),
    presets="whisper",
    family="keras_hub",
    keras_hub_metadata=True,
    examples={
        "tiny": dict(v=100, n_mels=8, d_e=32, M=4, d_f=64, L=2, n=16, n_audio=12),
        "odd_sizes": dict(v=97, n_mels=5, d_e=21, M=3, d_f=13, L=3, n=7, n_audio=5),
    },
))
