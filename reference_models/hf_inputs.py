"""What a measured forward is fed, and what it must not read on the meta device
(:mod:`reference_models.hf_costs`): token ids, and beside them or instead of them the images, audio
frames or waveform a model's encoder takes (zeros: a count of products does not depend on the
values), and the checks transformers makes of the inputs' values (an ``.item()`` the meta device
cannot give) set aside while the forward runs; none of them computes a product.
Imports torch and transformers: imported only in a torch worker.
"""

from __future__ import annotations

import contextlib
import math

import torch

__all__ = ["fed", "unread"]


def fed(model, ids) -> dict:
    """The inputs of one forward of ``model`` over the token ids ``ids`` (B × T): the ids; an
    image encoder's B images instead (ViT's); an image-text model's one image per sequence beside
    them; an encoder-decoder's ids as the source and as the target (``decoder_input_ids``), or its
    audio encoder's frames or waveform as the source. An encoder-decoder runs eager attention in
    eval mode (see the comments)."""
    inputs = {"input_ids": ids}
    if getattr(model, "main_input_name", "") == "pixel_values":  # an image encoder (ViT's)
        inputs = {"pixel_values": _pixels(model.config, ids.shape[0], ids.device)}
    elif _image_text(model):  # one image per sequence beside the ids
        inputs["pixel_values"] = _pixels(model.config.vision_config, ids.shape[0], ids.device)
    if getattr(model.config, "is_encoder_decoder", False):
        inputs["decoder_input_ids"] = ids
        if getattr(model, "main_input_name", "") == "input_features":  # Whisper's log-mel frames
            inputs.pop("input_ids")
            inputs["input_features"] = _features(model, ids)
        elif getattr(model, "main_input_name", "") == "input_values":  # Moonshine's waveform
            inputs.pop("input_ids")
            inputs["input_values"] = _samples(model, ids)
        # eager attention: its decoder, given no mask, makes one of ones, which SDPA's path reads
        # (whether every position is attended: an .item() the meta device cannot give); eager
        # attention multiplies the same queries, keys and values, counted as products
        with contextlib.suppress(AttributeError, ValueError, NotImplementedError):
            model.set_attn_implementation("eager")
        model.eval()  # an inference forward: T5Gemma's decoder makes no cache while training
    return inputs


@contextlib.contextmanager
def unread(inputs: dict, ids):
    """While entered, a forward over ``inputs`` on the meta device has no check read a value."""
    checks = "pixel_values" in inputs and "input_ids" in inputs and ids.is_meta
    with _unread_masks(len(inputs) > 1), _unread_checks(checks), _no_padding_warning(ids.is_meta):
        yield


def _image_text(model) -> bool:
    """Whether ``model`` is an image-text model (a decoder-only class whose config holds a
    ``vision_config`` and that computes image features: PaliGemma's, Gemma 3's)."""
    config = model.config
    return (not getattr(config, "is_encoder_decoder", False)
            and getattr(config, "vision_config", None) is not None
            and callable(getattr(model, "get_image_features", None)))


def _pixels(config, batch: int, device):
    """The images an image encoder takes: zeros of ``batch`` × num_channels × the config's
    image size (``image_size``: a side, or [height, width]), whatever T."""
    size = config.image_size
    height, width = (size, size) if isinstance(size, int) else tuple(size)
    return torch.zeros((batch, config.num_channels, height, width), device=device)


def _features(model, ids):
    """The input features an audio encoder-decoder's encoder takes beside the target ``ids``:
    zeros of B × num_mel_bins × the frames it requires (Whisper's: max_source_positions times its
    convolutions' strides, so max_source_positions positions after them, whatever T)."""
    config = model.config
    convs = [m for m in model.get_encoder().modules() if isinstance(m, torch.nn.Conv1d)]
    frames = config.max_source_positions * math.prod(m.stride[0] for m in convs)
    return torch.zeros((ids.shape[0], config.num_mel_bins, frames), device=ids.device)


def _samples(model, ids):
    """The waveform a raw-audio encoder-decoder's encoder takes beside the T target ``ids``:
    zeros of B × the fewest samples its convolutions turn into exactly T positions (each
    convolution inverted, last to first: stride·(out − 1) + dilation·(kernel − 1) + 1 − 2·padding;
    Moonshine's: 384·T + 511), so T source positions and T target tokens."""
    convs = [m for m in model.get_encoder().modules() if isinstance(m, torch.nn.Conv1d)]
    length = ids.shape[1]
    for m in reversed(convs):
        length = (m.stride[0] * (length - 1) + m.dilation[0] * (m.kernel_size[0] - 1) + 1
                  - 2 * m.padding[0])
    return torch.zeros((ids.shape[0], length), device=ids.device)


@contextlib.contextmanager
def _unread_checks(on: bool):
    """While entered (``on``), transformers' value checks are skipped
    (``TRANSFORMERS_DISABLE_TORCH_CHECK``): an image-text model checks that its ids hold as many
    image tokens as the image has features (``get_placeholder_mask``: an ``.item()`` the meta
    device cannot give, the ids' values being unknown there). The check computes nothing; the
    ids are taken to hold them (T at least that many: :mod:`paramcount.analyze.costs`), and
    placing the image's features at them (``masked_scatter``) multiplies nothing either."""
    import os

    if not on:
        yield
        return
    key = "TRANSFORMERS_DISABLE_TORCH_CHECK"
    before = os.environ.get(key)
    os.environ[key] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = before


@contextlib.contextmanager
def _no_padding_warning(on: bool):
    """While entered (``on``), transformers' warning of padded ids without a mask
    (``warn_if_padding_and_no_attention_mask``, DeBERTa's forward calls it) is not given: it
    reads the ids (an ``.item()`` the meta device cannot give) and computes nothing."""
    from transformers.modeling_utils import PreTrainedModel

    if not on:
        yield
        return
    warn = PreTrainedModel.warn_if_padding_and_no_attention_mask
    PreTrainedModel.warn_if_padding_and_no_attention_mask = (  # type: ignore[method-assign]
        lambda self, input_ids, attention_mask: None)
    try:
        yield
    finally:
        PreTrainedModel.warn_if_padding_and_no_attention_mask = warn  # type: ignore[method-assign]


@contextlib.contextmanager
def _unread_masks(on: bool):
    """While entered (``on``), transformers' masking reads no meta tensor: a mask on the meta
    device is taken as a traced one (its values unknown, so the mask is built, not skipped after
    reading whether every position is attended: an ``.item()`` the meta device cannot give). The
    masks an encoder-decoder makes of its inputs (T5Gemma's padding mask, BART's decoder's ones)
    need it; building a mask multiplies nothing."""
    if not on:
        yield
        return
    from transformers import masking_utils

    traced = masking_utils.is_tracing

    def meta_or_traced(tensor=None) -> bool:
        return traced(tensor) or (torch.is_tensor(tensor) and tensor.is_meta)

    masking_utils.is_tracing = meta_or_traced
    try:
        yield
    finally:
        masking_utils.is_tracing = traced
