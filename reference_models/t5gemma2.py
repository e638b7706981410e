"""T5Gemma 2: KerasHub's T5Gemma2Backbone without a vision encoder, built from constructor
arguments (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def _layer_types(n: int) -> list[str]:
    # Gemma 3's pattern, five sliding-window layers then one global; the kinds hold the same
    # weights, so the pattern does not change the count.
    return ["full_attention" if i % 6 == 5 else "sliding_attention" for i in range(n)]


def backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.T5Gemma2Backbone,
        vocabulary_size=hp["v"],
        encoder_hidden_dim=hp["d_e"],
        encoder_intermediate_dim=hp["d_f"],
        encoder_num_layers=hp["L_enc"],
        encoder_num_attention_heads=hp["M"],
        encoder_num_key_value_heads=hp["M_kv"],
        encoder_head_dim=hp["d_k"],
        encoder_layer_types=_layer_types(hp["L_enc"]),
        decoder_hidden_dim=hp["d_e"],
        decoder_intermediate_dim=hp["d_f_dec"],
        decoder_num_layers=hp["L_dec"],
        decoder_num_attention_heads=hp["M_dec"],
        decoder_num_key_value_heads=hp["M_kv_dec"],
        decoder_head_dim=hp["d_k_dec"],
        decoder_layer_types=_layer_types(hp["L_dec"]),
        sliding_window=4,
        attention_bias=bool(hp["zeta"]),
        use_query_key_norm=bool(hp["qk_norm"]),
        tie_word_embeddings=bool(hp["tied"]),
    )
