"""KerasHub's T5GemmaBackbone, built from constructor arguments without allocating weights.

Layer types alternate sliding-window and global attention as in Gemma 2 (the window changes no
weight). Building 9B-9B's 84 layers is mostly Keras' per-object bookkeeping.
"""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def _types(n: int) -> list[str]:
    return ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(n)]


def backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.T5GemmaBackbone,
        vocabulary_size=hp["v"],
        encoder_hidden_dim=hp["d_e"],
        encoder_intermediate_dim=hp["d_f"],
        encoder_num_layers=hp["L_enc"],
        encoder_num_attention_heads=hp["M"],
        encoder_num_key_value_heads=hp["M_kv"],
        encoder_head_dim=hp["d_k"],
        encoder_layer_types=_types(hp["L_enc"]),
        decoder_hidden_dim=hp["d_e_dec"],
        decoder_intermediate_dim=hp["d_f_dec"],
        decoder_num_layers=hp["L_dec"],
        decoder_num_attention_heads=hp["M_dec"],
        decoder_num_key_value_heads=hp["M_kv_dec"],
        decoder_head_dim=hp["d_k_dec"],
        decoder_layer_types=_types(hp["L_dec"]),
        attention_bias=bool(hp["zeta"]),
        tie_word_embeddings=bool(hp["tied"]),
        sliding_window=4096,
    )
