"""What a config's ``quantization_config`` declares, and the stored size it implies.

A quantized checkpoint (GPTQ, AWQ, bitsandbytes, FP8) has the same parameters as the float model
its config describes; what changes is how many bytes each takes. paramcount counts parameters,
so it reads ``quantization_config`` only to say what the file declares and what that means for
the size on disk — never silently, and never as part of the count.

The size is an **estimate of this shape**: the weights of the blocks' linear layers (leaves of
kind attention, cross-attention, feed-forward and expert; their few biases included) at the
declared bits, plus each group's 16-bit scale and ``bits``-bit zero point (GPTQ, AWQ), or each
block's fp32 absmax (bitsandbytes 4-bit, 64 weights a block), or each 128 × 128 block's fp32 scale
(FP8 with ``weight_block_size``); everything else (embeddings, head, norms, routers) at 16 bits,
as these methods leave it. Packing padding, ``g_idx`` rows (GPTQ with ``desc_act``) and
modules a config exempts by name are not modelled, and the text says it is an estimate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from paramcount.model.registry import Architecture

__all__ = ["QUANTIZED_KINDS", "Declared", "Stored", "declared", "stored"]

QUANTIZED_KINDS = ("attention", "cross-attention", "feed-forward", "expert")


class Declared(NamedTuple):
    method: str  # quant_method as the file says it ("gptq", "awq", "bitsandbytes", "fp8", ...)
    bits: int | None  # bits per quantized weight, where the file says
    group: int | None  # weights sharing one scale (None: per output channel or not said)
    group_bytes: tuple[int, int]  # (numerator, denominator): bytes of one group's scale/zero
    text: str  # what the file declares, in words


class Stored(NamedTuple):
    bytes: int
    quantized: int  # parameters stored at ``bits``
    other: int  # parameters stored at 16 bits
    text: str


def _int(value) -> int | None:
    return value if type(value) is int and value > 0 else None


def declared(config: Mapping) -> Declared | None:
    """The quantization a transformers config declares (None: none)."""
    q = config.get("quantization_config")
    if not isinstance(q, Mapping):
        return None
    method = q.get("quant_method")
    method = method if isinstance(method, str) and method else "unnamed method"
    bits, group, per_group = _int(q.get("bits")), None, (0, 1)
    if method in ("gptq", "awq"):
        group = _int(q.get("group_size"))  # -1: one scale per output channel
        if bits is not None:
            per_group = (16 + bits, 8)  # a 16-bit scale and a bits-bit zero point per group
    elif method == "bitsandbytes":
        if q.get("load_in_4bit") is True:
            bits, group, per_group = 4, 64, (4, 1)  # fp32 absmax per block of 64
        elif q.get("load_in_8bit") is True:
            bits = 8
    elif method == "fp8":
        bits = 8
        block = q.get("weight_block_size")
        if isinstance(block, list) and len(block) == 2 and all(_int(b) for b in block):
            group, per_group = block[0] * block[1], (4, 1)  # an fp32 scale per block
    parts = [method]
    if bits is not None:
        parts.append(f"{bits} bits per weight")
    if group is not None:
        parts.append(f"groups of {group:,}")
    return Declared(method, bits, group, per_group, ", ".join(parts))


def stored(arch: Architecture, hparams: Mapping[str, int], decl: Declared) -> Stored | None:
    """The bytes a checkpoint so quantized holds (an estimate: see the module's docstring), or
    None where the declaration does not say how many bits a weight takes."""
    if decl.bits is None:
        return None
    total = arch.evaluate(arch.formula.total(), hparams)
    quantized = sum(arch.evaluate(lf.expr, hparams, lf.path) for lf in arch.formula.leaves()
                    if lf.kind in QUANTIZED_KINDS)
    other = total - quantized
    size = (quantized * decl.bits + 7) // 8 + 2 * other
    extra = ""
    if decl.group is not None:
        groups = -(-quantized // decl.group)
        num, den = decl.group_bytes
        size += -(-groups * num // den)
        extra = f" + {_per_group(decl)} per group of {decl.group:,}"
    text = (f"stored as declared: {size:,} B ({size / 2**30:.3g} GiB), an estimate: {quantized:,} "
            f"weights of the blocks' linear layers at {decl.bits} bits{extra}; the other "
            f"{other:,} (embeddings, head, norms) at 16 bits")
    return Stored(size, quantized, other, text)


def _per_group(decl: Declared) -> str:
    if decl.method in ("gptq", "awq"):
        return f"a 16-bit scale and a {decl.bits}-bit zero"
    return "an fp32 scale"
