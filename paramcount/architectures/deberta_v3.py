"""DeBERTa-v3 (He et al. 2021/2023) as KerasHub builds it: DebertaV3Backbone.

No absolute position table: positions enter every layer's disentangled attention through one
relative position table of 2·k_rel rows (k_rel = bucket_size: log-bucketed distances each side),
normalised once and shared by all layers. Each layer projects it with its own query and key
projections (DeBERTa-v3 shares those with the content path), so the relative term costs the
table and its norm only. The maximum sequence length n only sets the bucketing: it holds no
weights.
"""

from __future__ import annotations

from paramcount.components import embedding, layer_norm
from paramcount.components.basic import EVEN_HEADS
from paramcount.components.encoders import encoder_stack, k_rel, relative_position_table
from paramcount.formula import group
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, n, v, zeta

register(Architecture(
    id="deberta_v3",
    title="DeBERTa-v3 backbone (keras_hub.models.DebertaV3Backbone): disentangled attention over "
          "a shared relative position table",
    source="He et al. 2021 (DeBERTa), He et al. 2023 (DeBERTaV3); "
           "keras_hub/src/models/deberta_v3/deberta_v3_backbone.py",
    formula=group(
        "deberta_v3",
        group(
            "embeddings",
            embedding("token", v, match="token_embedding"),
            layer_norm("norm", match="embeddings_layer_norm"),
        ),
        relative_position_table(),
        encoder_stack(
            L, match=r"disentangled_attention_encoder_layer_\d+",
            note="disentangled attention: content and relative-position scores through the same "
                 "query/key projections (no extra weights per layer)",
        ),
    ),
    reference="reference_models.deberta_v3:backbone",
    counting="trainable weights of the backbone: token table and its norm, the shared relative "
             "position table (2·k_rel × d_e) and its norm, L post-LN encoder blocks; no absolute "
             "positions, no pooler",
    required=(v, d_e, M, d_f, L),
    optional={k_rel: 256, n: 512},
    fixed={**EVEN_HEADS, zeta: 1},
    # DeBERTa's attention output is d_e → d_e whatever the heads (prove refutes a floor there).
    constraints=(Divisible(d_e, M),),
    presets="deberta_v3",
    family="keras_hub",
    keras_hub_metadata=True,
    examples={
        "tiny": dict(v=100, d_e=32, M=4, d_f=64, L=2, k_rel=8, n=16),
        "odd_sizes": dict(v=997, d_e=45, M=5, d_f=13, L=3, k_rel=3, n=7),
    },
))
