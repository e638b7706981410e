"""Bytes per element: the dtypes a model's weights and its cache are held in.

A float or int8 dtype holds every element at one width, so bytes are elements × width exactly.
The 4-bit formats keep scales beside the weights, per group of weights; which tensors a tool
quantizes varies (embeddings, heads and norms usually stay at 16 bits), so their weight bytes are
:func:`paramcount.model.quantization.stored`'s estimate of that layout, and said to be one. One
table serves ``count --dtype``, ``solve --memory`` and the report.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from paramcount.model.quantization import Declared
    from paramcount.model.registry import Architecture

__all__ = ["DTYPES", "Dtype", "cache_dtype", "get", "weight_bytes"]


class Dtype(NamedTuple):
    name: str
    bytes: int | None  # bytes per element where every element takes the same; None: quantized
    text: str
    method: str = ""  # a quantized layout: quant_method as paramcount.model.quantization reads it
    bits: int = 0
    group: int = 0
    group_bytes: tuple[int, int] = (0, 1)  # bytes of one group's scale (and zero), as a fraction


DTYPES = {d.name: d for d in (
    Dtype("fp32", 4, "32-bit float"),
    Dtype("fp16", 2, "16-bit float"),
    Dtype("bf16", 2, "bfloat16"),
    Dtype("fp8", 1, "8-bit float (e4m3 / e5m2)"),
    Dtype("int8", 1, "8-bit integer"),
    Dtype("int4", None, "4-bit integer in groups of 128, a 16-bit scale and a 4-bit zero per "
                        "group (GPTQ / AWQ)", "gptq", 4, 128, (20, 8)),
    Dtype("nf4", None, "bitsandbytes NF4: 4 bits in blocks of 64, an fp32 absmax per block",
          "bitsandbytes", 4, 64, (4, 1)),
)}


def get(name: str) -> Dtype:
    """The dtype named ``name`` (ParamcountError naming the known ones otherwise)."""
    from paramcount.core.errors import ParamcountError, did_you_mean

    key = name.strip().lower().replace("float", "fp").replace("bfloat16", "bf16")
    key = {"fp32": "fp32", "fp16": "fp16", "half": "fp16", "bf16": "bf16"}.get(key, key)
    if key not in DTYPES:
        raise ParamcountError(did_you_mean(name, list(DTYPES), "dtype"))
    return DTYPES[key]


def cache_dtype(dtype: Dtype) -> Dtype:
    """The dtype a cache is held in when the weights are in ``dtype``: the same for a float
    dtype; bf16 for integer weights, whose activations and cache stay in the compute dtype."""
    return dtype if dtype.name in ("fp32", "fp16", "bf16", "fp8") else DTYPES["bf16"]


def _declared(dtype: Dtype) -> Declared:
    from paramcount.model.quantization import Declared

    return Declared(dtype.method, dtype.bits, dtype.group, dtype.group_bytes, dtype.text)


def weight_bytes(arch: Architecture, hparams: Mapping[str, int], count: int, dtype: Dtype
                 ) -> tuple[int, bool]:
    """The bytes ``count`` parameters of ``arch`` at ``hparams`` take in ``dtype``, and whether
    that is exact (a quantized layout's is an estimate)."""
    if dtype.bytes is not None:
        return count * dtype.bytes, True
    from paramcount.model.quantization import stored

    out = stored(arch, hparams, _declared(dtype))
    assert out is not None  # a table dtype always says its bits
    return out.bytes, False
