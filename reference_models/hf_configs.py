"""A published config's costs as transformers has them: the model its config.json describes,
built from that file on the meta device (nothing allocated, nothing downloaded), one forward of
B sequences of T tokens with ``use_cache=True``: the FLOPs torch's ``FlopCounterMode`` counts and
the elements the cache it returns holds, and the FLOPs of one more token against that cache. The
totals ``count --config --context`` must equal
(:func:`paramcount.analyze.costs.check_config`). Imports torch and transformers: a torch worker's.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping

import torch
import transformers

from paramcount.core.errors import Refused
from reference_models.hf import legacy_constructors_on_default_device
from reference_models.hf_costs import cache_weights, gather_experts, measure
from reference_models.hf_decode import step

transformers.logging.set_verbosity_error()

__all__ = ["config_costs"]


def config_costs(text: str, sizes: Mapping[str, int]) -> dict[str, int]:
    """``{"flops": ..., "kv": ..., "decode": ...}`` of the config ``text`` (JSON) at ``sizes["T"]`` tokens ×
    ``sizes["B"]``; :class:`Refused` where its forward cannot run on the meta device. A router's
    experts are gathered per token where the class can switch how they run (transformers'
    ``batched_mm``: the products of its loop over the routed experts, in shapes known before the
    data), so a mixture of experts runs on meta too; where it cannot (DBRX's own loop), the
    router's choice depends on the data and the forward is refused."""
    data = json.loads(text)
    cfg = transformers.AutoConfig.for_model(**data)
    cls = getattr(transformers, (data.get("architectures") or [""])[0], None)
    if cls is None:
        raise Refused(f"transformers has no class {data.get('architectures')!r}")
    with torch.device("meta"), legacy_constructors_on_default_device():
        model = cls(cfg)
        ids = torch.zeros((sizes["B"], sizes["T"]), dtype=torch.long)
    gather_experts(model)  # a router's experts gathered per token, where the class can
    try:
        own, cache = measure(model, ids)
    except (RuntimeError, NotImplementedError, ValueError) as exc:
        raise Refused(f"its forward does not run on the meta device: {str(exc).splitlines()[0][:200]}"
                      ) from None
    out = {"flops": sum(own.values()), "kv": sum(w.size for w in cache_weights(model, cache))}
    # one generated token (reference_models.hf_decode); none where no position is left or the
    # class returns no cache: not compared (check_config then needs the count's own reason)
    with contextlib.suppress(RuntimeError, NotImplementedError, ValueError, IndexError):
        out["decode"] = sum(step(model, sizes["B"], sizes["T"], cache).values())
    return out
