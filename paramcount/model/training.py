"""Training memory: the bytes a model's weights, gradients and optimizer states take while it
trains with AdamW, as named conventions (nothing here is measured: an optimizer's states are
allocated by the training loop, not by the model), and accelerate's estimate beside them.

- **Mixed-precision AdamW** (Rajbhandari et al. 2020, "ZeRO", section 3.1): each trainable
  parameter has 16-bit weights and gradients (2 + 2 bytes), an fp32 master copy of its weight
  and AdamW's two fp32 moments (4 + 4 + 4): 16 bytes. A non-trainable weight (a buffer the
  checkpoint keeps) takes its 16-bit copy only.
- **fp32 AdamW**: weights, gradients and both moments in fp32: 16 bytes a trainable parameter,
  4 a non-trainable one.
- **Adam state** (``count``'s line "with Adam state"): fp32 weights and Adam's two moments, no
  gradients: 12 bytes a trainable parameter, 4 a non-trainable one.
- **accelerate** (``accelerate estimate-memory``'s "Training using Adam" column,
  ``accelerate/commands/estimate.py``): from the model's fp32 size S = 4·N it lists the model,
  the gradients, the optimizer states and the optimizer step, and shows the *largest* of them,
  not their sum: at float32, the step's 4·S (16 bytes a parameter); at float16 or bfloat16 the
  optimizer's 2·S (8 bytes a parameter), half of the mixed-precision sum above.

Activations are in none of them: they depend on the batch, the context and what the training
loop recomputes.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["CONVENTIONS", "Convention", "accelerate_bytes", "training_bytes"]


class Convention(NamedTuple):
    name: str
    trainable: int  # bytes per trainable parameter
    frozen: int  # bytes per non-trainable weight


# (what each is: the module docstring)
CONVENTIONS = {c.name: c for c in (
    Convention("mixed", 16, 2),  # 16-bit weights and gradients, fp32 master, two fp32 moments
    Convention("fp32", 16, 4),  # weights, gradients and both moments in fp32
    Convention("adam_fp32", 12, 4),  # fp32 weights and two moments, no gradients
)}


def training_bytes(trainable: int, frozen: int = 0, convention: str = "mixed") -> int:
    """Bytes of weights, gradients and AdamW states for ``trainable`` parameters and ``frozen``
    non-trainable weights under ``convention`` (exact: integers throughout)."""
    c = CONVENTIONS[convention]
    return c.trainable * trainable + c.frozen * frozen


def accelerate_bytes(n: int, precision: str = "bfloat16") -> int:
    """``accelerate estimate-memory``'s "Training using Adam" for a model of ``n`` parameters
    (its fp32 size 4·n) at ``precision``: the largest of its model, gradients, optimizer and step
    sizes (see the module docstring)."""
    fp32 = 4 * n
    fp16 = fp32 // 2
    if precision == "float32":
        parts = {"model": fp32, "gradients": fp32, "optimizer": 2 * fp32, "step": 4 * fp32}
    elif precision in ("float16", "bfloat16"):
        parts = {"model": fp32, "gradients": fp32 + fp16, "optimizer": 2 * fp32,
                 "step": 2 * fp32}
    else:
        raise ValueError(f"accelerate estimates training at float32, float16 or bfloat16, not "
                         f"{precision!r}")
    return max(parts.values())
