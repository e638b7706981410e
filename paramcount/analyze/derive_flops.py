"""The forward FLOPs of any transformers model, derived as its parameters and its KV cache are
(:mod:`paramcount.analyze.derive_cache`): each operation torch's ``FlopCounterMode`` counts in a
forward of B sequences of T tokens is observed as a tensor of its own, shaped so its elements are
the FLOPs counted (a product ``A (m × k) @ B (k × n)``: 2 × m × k × n), in a module of its own
under the module that ran it. The derivation fits each such tensor's shape and how many layers
hold it, as for weights; the proof decides the formula ≡ the count for all hyperparameters, T and
B included.

A count is a polynomial of degree up to 5 (attention's 2·B·M·T·T·d_head), and the fit takes a
dimension of degree up to 3: so each operation is written as the factors of torch's own formula
(:func:`factors`), checked against that formula's count at every build; an operation whose count
the factors do not give is one tensor of that many elements, and the fit says what it cannot
express. A window is caught as for the cache: :func:`~paramcount.analyze.derive_cache.window`
counts once at T beyond every integer of the config.

Imports torch and transformers inside functions only: used in a torch worker.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from paramcount.analyze.derive_cache import CacheSource

__all__ = ["SOURCES", "FlopSource", "factors", "flop_module"]

PREFIX = "flops"


class FlopSource(CacheSource):
    """A :class:`~paramcount.analyze.derive_cache.CacheSource` whose build carries, in place of
    the cache, the operations a forward counts (:func:`flop_module`)."""

    prefix = PREFIX
    kind = "derive-flops"
    noun = "the forward counts {} FLOPs"
    empty = "counts no FLOPs in a forward"
    code = (Path(__file__),)

    def observed(self, model, batch: int, context: int):
        return flop_module(model, batch, context)


def factors(packet, args, kwargs, out) -> list[tuple[int, ...]] | None:
    """The shapes whose elements sum to the FLOPs torch's formula counts for one call of
    ``packet`` (its overload packet): a matrix product's (2, m, k, n) (batched: (2, b, m, k, n)),
    attention's two products, a convolution's (2, N, output positions, C_out, C_in/groups,
    kernel); None for another operation."""
    name = packet.__name__
    if name in ("mm", "addmm", "bmm", "baddbmm"):
        a, b = (args[0], args[1]) if name in ("mm", "bmm") else (args[1], args[2])
        return [(2, *a.shape, b.shape[-1])]
    if name.startswith(("_scaled_dot_product", "_flash_attention_forward",
                        "_efficient_attention_forward")):
        q, k, v = args[:3]
        if name in ("_flash_attention_forward", "_efficient_attention_forward"):  # (b, s, h, d)
            q, k, v = (x.transpose(1, 2) for x in (q, k, v))
        b, h, s_q, d = q.shape
        return [(2, b, h, s_q, d, k.shape[-2]), (2, b, h, s_q, k.shape[-2], v.shape[-1])]
    if name in ("convolution", "_convolution", "convolution_overrideable", "cudnn_convolution",
                "_slow_conv2d_forward"):
        w = args[1]
        positions = out.shape[2:] if not (len(args) > 6 and args[6]) else args[0].shape[2:]
        return [(2, out.shape[0], *positions, *w.shape)]
    return None


def flop_module(model, batch: int, context: int):
    """A module holding, as persistent buffers on the meta device, each operation one forward of
    ``model`` over ``batch`` sequences of ``context`` token ids counts (torch's
    ``flop_registry``, the formulas ``FlopCounterMode`` applies; the forward of
    :func:`~paramcount.analyze.derive_cache.forward`): under the module that ran it
    (``<module>.<op>_<i>``, the i-th such call in that module; ``_<j>`` the j-th factor),
    shaped by :func:`factors`, or one axis of its count. A forward
    whose heads are one wide is refused, as the cache's derivation refuses it: its rotary table
    broadcasts each key to two, where every wider odd head fails (so a head width's evenness is
    what a derivation finds, not a fit bent at width 1: Qwen 3's proof builds failed at odd
    head_dim in ``validate_rope``)."""
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils.flop_counter import flop_registry

    from paramcount.analyze.derive_cache import forward, one_wide

    names = {id(m): n for n, m in model.named_modules()}
    stack: list[str] = []
    seen: list[tuple[str, str, list[tuple[int, ...]]]] = []

    class Ops(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            count = flop_registry.get(func._overloadpacket)
            if count is not None:
                n = int(count(*args, **kwargs, out_val=out))
                shapes = factors(func._overloadpacket, args, kwargs, out)
                if shapes is None or sum(math.prod(s) for s in shapes) != n:
                    shapes = [(n,)]
                if n:
                    seen.append((stack[-1] if stack else "", func._overloadpacket.__name__,
                                 shapes))
            return out

    def enter(module, _args):
        stack.append(names.get(id(module), stack[-1] if stack else ""))

    def leave(module, _args, _out):
        stack.pop()

    from torch.nn.modules.module import (
        register_module_forward_hook,
        register_module_forward_pre_hook,
    )

    hooks = [register_module_forward_pre_hook(enter), register_module_forward_hook(leave)]
    try:
        cache = forward(model, batch, context, Ops())
    finally:
        for h in hooks:
            h.remove()
    for layer in getattr(cache, "layers", ()) or ():
        one_wide(layer)  # (refused as the cache's derivation refuses it: see there)
    return _holder(seen)


def _holder(seen: list[tuple[str, str, list[tuple[int, ...]]]]) -> Any:
    """The operations as buffers of modules nested as the model's: ``<op>_<i>`` (the i-th call
    of op in that module), each factor ``_<j>`` where there are several."""
    import torch

    root = torch.nn.Module()
    calls: dict[tuple[str, str], int] = {}
    for where, op, shapes in seen:
        at = root
        for part in where.split(".") if where else ():
            if not hasattr(at, part):
                at.add_module(part, torch.nn.Module())
            at = getattr(at, part)
        i = calls[where, op] = calls.get((where, op), -1) + 1
        for j, shape in enumerate(shapes):
            at.register_buffer(f"{op}_{i}" + (f"_{j}" if len(shapes) > 1 else ""),
                               torch.empty(shape, device="meta"))
    return root


# the source each quantity a forward gives is derived with (derive --kv, --flops; the sweep)
SOURCES: dict[str, type[CacheSource]] = {"kv": CacheSource, "flops": FlopSource}
