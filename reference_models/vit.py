"""ViT: KerasHub's ViTBackbone, channels last, built from the family's table."""

from __future__ import annotations

import contextlib

import keras_hub
from keras_hub.src.models.vit.vit_layers import ViTEncoder

from reference_models._build import from_table


@contextlib.contextmanager
def _encoder_shape_known():
    # ViTEncoder does not define compute_output_shape, so Keras learns its output shape by
    # tracing call() in a TensorFlow graph, which turns every weight into a graph constant: 5-10 s
    # for ViT-L instead of well under one. Its output has its input's shape (blocks and the final
    # norm keep (batch, tokens, d_e)); saying so during the build creates exactly the same weights
    # (build() runs either way).
    had = "compute_output_shape" in vars(ViTEncoder)
    ViTEncoder.compute_output_shape = lambda self, input_shape: input_shape
    try:
        yield
    finally:
        if not had:
            del ViTEncoder.compute_output_shape


def backbone(hp: dict[str, int]):
    with _encoder_shape_known():
        return from_table("vit", keras_hub.models.ViTBackbone, hp)
