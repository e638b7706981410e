"""GPT-OSS: KerasHub's GptOssBackbone (top_k changes no weight; it is passed for fidelity).

Building the functional backbone traces every decoder layer's ``call`` symbolically just to learn
its output shape, and GPT-OSS's YaRN rotary embedding makes that trace slow (about a second a
layer). The weights are made in ``build``, not in the trace, so :func:`shape_only_calls` answers
the trace with the layer's output shape (its input's) and leaves ``build`` untouched: the model
holds exactly the same weights. Were a weight ever created in ``call`` instead, the verifier
would see it missing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import keras
import keras_hub
from keras_hub.src.models.gpt_oss.gpt_oss_decoder import GptOssTransformerDecoder

from reference_models._build import from_table


@contextlib.contextmanager
def shape_only_calls(*classes) -> Iterator[None]:
    """Within the scope, symbolic calls of these shape-preserving layers return a tensor of their
    first argument's shape and dtype without tracing ``call`` (``build`` still runs in full)."""

    def spec(self, x, *args, **kwargs):
        return keras.KerasTensor(x.shape, dtype=x.dtype)

    saved = {cls: cls.__dict__.get("compute_output_spec") for cls in classes}
    for cls in classes:
        cls.compute_output_spec = spec
    try:
        yield
    finally:
        for cls, old in saved.items():
            if old is None:
                del cls.compute_output_spec
            else:
                cls.compute_output_spec = old


def backbone(hp: dict[str, int]):
    with shape_only_calls(GptOssTransformerDecoder):
        return from_table("gpt_oss", keras_hub.models.GptOssBackbone, hp)
