"""The original encoder-decoder Transformer from ``keras_hub.layers`` building blocks.

``source_embedding`` (and ``target_embedding`` unless shared), scaled by √d_e, plus
``SinePositionEncoding``; ``encoder_layer_i`` = ``TransformerEncoder`` and ``decoder_layer_i`` =
``TransformerDecoder`` called with the encoder's output (so it builds cross-attention), both post-LN
(``normalize_first=False``, the default); ``head`` = ``Dense(v_tgt)``, or, when tied, the target
table called in reverse (``ReversibleEmbedding``).
"""

from __future__ import annotations

import keras
import keras_hub

from reference_models._build import stateless


def _embed(table, ids, d_e: int, name: str):
    x = table(ids)
    x = keras.layers.Rescaling(d_e ** 0.5, name=f"{name}_scale")(x)
    pos = keras_hub.layers.SinePositionEncoding(name=f"{name}_positions")(x)
    return keras.layers.Add(name=f"{name}_plus_positions")([x, pos])


def transformer(hp: dict[str, int]) -> keras.Model:
    d_e = hp["d_e"]
    with stateless():
        source = keras.Input(shape=(None,), dtype="int32", name="source_ids")
        target = keras.Input(shape=(None,), dtype="int32", name="target_ids")
        src_table = keras_hub.layers.ReversibleEmbedding(
            hp["v_src"], d_e, tie_weights=True, name="source_embedding")
        tgt_table = src_table if hp["shared"] else keras_hub.layers.ReversibleEmbedding(
            hp["v_tgt"], d_e, tie_weights=True, name="target_embedding")
        x = _embed(src_table, source, d_e, "source")
        for i in range(hp["L_enc"]):
            x = keras_hub.layers.TransformerEncoder(
                intermediate_dim=hp["d_f"], num_heads=hp["M"], name=f"encoder_layer_{i}")(x)
        y = _embed(tgt_table, target, d_e, "target")
        for i in range(hp["L_dec"]):
            y = keras_hub.layers.TransformerDecoder(
                intermediate_dim=hp["d_f"], num_heads=hp["M"], name=f"decoder_layer_{i}")(y, x)
        logits = (tgt_table(y, reverse=True) if hp["tied"]
                  else keras.layers.Dense(hp["v_tgt"], name="head")(y))
        return keras.Model([source, target], logits, name="transformer")
