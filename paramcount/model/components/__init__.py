"""Components: small functions that return named formula terms.

- :mod:`paramcount.model.components.basic`: embeddings, dense, layer norm, multi-head attention (the
  paper's form, generalised to M_kv heads), feed-forward, encoder and decoder blocks.
- :mod:`paramcount.model.components.modern`: RMS norm, gated feed-forward (SwiGLU / GeGLU), mixture of
  experts, zero-parameter position schemes (RoPE, ALiBi).

Family-specific pieces live in further modules here and are imported from them directly.
"""

from paramcount.model.components.basic import (
    attention,
    decoder_block,
    dense,
    embedding,
    encoder_block,
    feed_forward,
    layer_norm,
    paper_attention_total,
    position_embedding,
    sinusoidal_positions,
)
from paramcount.model.components.modern import (
    alibi,
    gated_feed_forward,
    mixture_of_experts,
    rms_norm,
    rotary_positions,
)

__all__ = [
    "alibi",
    "attention",
    "decoder_block",
    "dense",
    "embedding",
    "encoder_block",
    "feed_forward",
    "gated_feed_forward",
    "layer_norm",
    "mixture_of_experts",
    "paper_attention_total",
    "position_embedding",
    "rms_norm",
    "rotary_positions",
    "sinusoidal_positions",
]
