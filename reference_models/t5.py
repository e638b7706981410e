"""KerasHub's T5Backbone, built from constructor arguments without allocating weights.

Building the functional backbone makes Keras trace every T5TransformerLayer's ``call`` twice:
once to build it (the layer has no ``build``, so Keras builds it by running ``call`` on symbolic
inputs) and once more for its output shape. T5's attention (relative-position bucketing, masks,
bias-free Dense layers traced through ``tensordot``) makes each trace costly: about half a second
per encoder/decoder layer pair, 15 s or more for T5 v1.1 XXL. :func:`fast_build` replaces both
traces for T5's own two layer classes, and nothing else:

- ``build``: each sublayer is built by its own (Keras / KerasHub) ``build`` with the input width it
  receives in ``call``: d_e for the query, key, value, gate and up projections and the norms
  (cross-attention keys and values come from the encoder output, also d_e wide), the attention's
  inner width M·d_k for its output projection, the feed-forward's ``intermediate_dim`` for its down
  projection. The weights, their names and their shapes are those sublayers' own;
- ``compute_output_spec``: a T5TransformerLayer returns a tensor of its input's shape and the
  position bias, so the trace is answered with those shapes.

paramcount/families/t5/t5_test.py checks that the fast build holds exactly the weights (path, shape,
trainability) of the ordinary build, for every option value.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import keras
import keras_hub
from keras_hub.src.models.t5.t5_multi_head_attention import T5MultiHeadAttention
from keras_hub.src.models.t5.t5_transformer_layer import T5TransformerLayer

from reference_models._build import stateless_backbone


def _attention_build(self, input_shape):
    for proj in (self.query_projector, self.key_projector, self.value_projector):
        proj.build(input_shape)
    self.output_projector.build((*input_shape[:-1], self.inner_dim))


def _layer_build(self, input_shape):
    self.self_attention_layer_norm.build(input_shape)
    self.self_attention.build(input_shape)
    if self.is_decoder:
        self.cross_attention_layer_norm.build(input_shape)
        self.cross_attention.build(input_shape)  # encoder output: d_e wide, as is the query
    self.layer_norm.build(input_shape)
    self.input_projector.build(input_shape)
    if self.use_gated_activation:
        self.gate_projector.build(input_shape)
    self.output_projector.build((*input_shape[:-1], self.input_projector.units))


def _layer_spec(self, hidden_states, *args, **kwargs):
    heads = self.self_attention.num_heads
    return (keras.KerasTensor(hidden_states.shape, dtype=hidden_states.dtype),
            keras.KerasTensor((None, heads, None, None), dtype=hidden_states.dtype))


@contextlib.contextmanager
def fast_build() -> Iterator[None]:
    """Within the scope, T5 layers are built from shapes instead of by tracing ``call``."""
    patches = {
        T5MultiHeadAttention: {"build": _attention_build},
        T5TransformerLayer: {"build": _layer_build, "compute_output_spec": _layer_spec},
    }
    saved = {cls: {k: cls.__dict__.get(k) for k in attrs} for cls, attrs in patches.items()}
    for cls, attrs in patches.items():
        for k, fn in attrs.items():
            setattr(cls, k, fn)
    try:
        yield
    finally:
        for cls, attrs in saved.items():
            for k, old in attrs.items():
                if old is None:
                    delattr(cls, k)
                else:
                    setattr(cls, k, old)


def _kwargs(hp: dict[str, int]) -> dict:
    from paramcount.model.registry import get

    # The activation changes no count; gated checkpoints use GELU, as KerasHub's presets do.
    return {**get("t5").mapping.keras_kwargs(hp), "activation": "gelu" if hp["gated"] else "relu"}


def backbone(hp: dict[str, int]):
    with fast_build():
        return stateless_backbone(keras_hub.models.T5Backbone, **_kwargs(hp))


def backbone_traced(hp: dict[str, int]):
    """The ordinary build, every layer traced (slow at full size; used to check ``backbone``)."""
    return stateless_backbone(keras_hub.models.T5Backbone, **_kwargs(hp))
