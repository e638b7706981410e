"""Quantized layouts: the logical parameter count of a packed weight, and the tensors stored
beside the weights (scales, zero points, group indices) named as what they are.

- GPTQ and AutoAWQ pack ``32 / bits`` integers into each int32 of ``qweight`` (GPTQ along the
  input axis: ``(in·bits/32, out)``; AWQ along the output axis: ``(in, out·bits/32)``): either
  way the logical count is the element count × 32 / bits. ``scales``, ``qzeros`` (zero points,
  packed too) and GPTQ's ``g_idx`` (each input row's group) are quantization state.
- bitsandbytes 4-bit stores two 4-bit values in each uint8 of ``weight`` (flattened), with
  ``weight.absmax``, ``weight.quant_map``, ``weight.nested_*`` and ``weight.quant_state.*``
  beside it; 8-bit stores int8 weights with ``SCB`` and ``weight_format``.
- FP8 checkpoints (DeepSeek-V3's, compressed-tensors') store each weight as is with
  ``weight_scale_inv`` / ``weight_scale`` / ``input_scale`` beside it.
- GGUF's block types (Q8_0, Q4_K, ...) store logical dims; their bytes per block of elements
  come from ``gguf.GGML_QUANT_SIZES`` (:func:`gguf_bytes`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping

from paramcount.analyze.checkpoints.tensors import StoredTensor
from paramcount.core.errors import InputFileError

__all__ = ["ROLES", "gguf_bytes", "unpack"]

_DTYPE_BITS = {"I32": 32, "U32": 32, "I16": 16, "U16": 16, "I8": 8, "U8": 8}

# Tensors stored beside the weights: name suffix → (term, reason), the stored-versus-built term.
ROLES: tuple[tuple[str, str, str], ...] = (
    (r"\.scales$", "quantization scales", "GPTQ / AWQ: one per group of inputs and output"),
    (r"\.qzeros$", "quantization zero points", "GPTQ / AWQ, packed like the weights"),
    (r"\.g_idx$", "GPTQ group indices", "the group of each input row (act-order)"),
    (r"\.weight_scale_inv$", "FP8 block scales", "one per 128×128 block (DeepSeek-V3's layout)"),
    (r"\.weight_scale$", "FP8 weight scales", "compressed-tensors' per-tensor or per-channel"),
    (r"\.input_scale$", "FP8 activation scales", "compressed-tensors' static input scales"),
    (r"\.weight\.(absmax|quant_map|nested_absmax|nested_quant_map)$",
     "bitsandbytes 4-bit state", "block absmax and code map of each 4-bit weight"),
    (r"\.weight\.quant_state\.", "bitsandbytes 4-bit state",
     "the quantization state's JSON, stored as bytes"),
    (r"\.SCB$", "bitsandbytes 8-bit scales", "one per output row"),
    (r"\.weight_format$", "bitsandbytes 8-bit layout tags", "the layout of each int8 weight"),
)
_ROLES = tuple((re.compile(p), f"{term}: {why}") for p, term, why in ROLES)


def _role(name: str) -> str:
    return next((why for p, why in _ROLES if p.search(name)), "")


def unpack(tensors: Iterable[StoredTensor], qc: Mapping | None) -> tuple[StoredTensor, ...]:
    """Tensors with their logical counts and roles set from the ``quantization_config``."""
    method = str((qc or {}).get("quant_method", "")).lower()
    out = []
    for t in tensors:
        role = _role(t.name)
        if role:
            out.append(dataclasses.replace(t, logical=0, role=role))
        elif t.name.endswith(".qweight"):
            out.append(_packed(t, qc))
        elif method == "bitsandbytes" and t.name.endswith(".weight") and t.dtype == "U8":
            # two 4-bit values per byte, flattened (the shape is in the quant_state's data)
            out.append(dataclasses.replace(t, logical=2 * t.numel))
        else:
            out.append(t)
    return tuple(out)


def _packed(t: StoredTensor, qc: Mapping | None) -> StoredTensor:
    bits = (qc or {}).get("bits", (qc or {}).get("w_bit"))
    where = f"tensor {t.name!r}"
    if not isinstance(bits, int) or isinstance(bits, bool) or bits not in (2, 3, 4, 8):
        raise InputFileError(f"{where} is a packed qweight, but the config's quantization_config "
                             f"gives no bits of 2, 3, 4 or 8 (bits = {bits!r})")
    word = _DTYPE_BITS.get(t.dtype)
    if word is None or (word % bits and bits != 3):
        raise InputFileError(f"{where} is a packed qweight of dtype {t.dtype}: expected int32")
    # 3-bit GPTQ packs 32 values into 3 int32 words: 32 / 3 per word, exactly, over a row
    logical = t.numel * word // bits
    return dataclasses.replace(t, logical=logical,
                               logical_name=t.name.removesuffix(".qweight") + ".weight")


def gguf_bytes(type_name: str, n: int) -> int:
    """Bytes ``n`` elements of GGUF type ``type_name`` take (whole blocks)."""
    import gguf

    block, size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[type_name]]
    return -(-n // block) * size
