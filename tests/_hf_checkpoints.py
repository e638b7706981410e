"""Checkpoints as transformers' ``save_pretrained`` writes them, from a model built on the meta
device (nothing allocated, nothing downloaded): the state dict with a tied weight once (under the
input embedding's name), persistent buffers included, and the config beside it. The build runs in
a torch worker (``tests._shared.on_torch``): a test process may hold TensorFlow."""

from __future__ import annotations

import json
from pathlib import Path

from paramcount.analyze import configs
from paramcount.core.errors import Refused
from tests._checkpoints import write_safetensors
from tests._shared import on_torch

DTYPES = {"torch.float32": "F32", "torch.bfloat16": "BF16", "torch.float16": "F16",
          "torch.int64": "I64", "torch.int32": "I32", "torch.bool": "BOOL"}


def state(arch, hp, *, dtype: str = "BF16") -> tuple[list[tuple[str, str, tuple]], dict]:
    """(name, dtype, shape) of each tensor save_pretrained stores, and the config.json data."""
    return on_torch(_state, arch.id, dict(hp), dtype)


def _state(arch_id: str, hp: dict, dtype: str) -> tuple[list[tuple[str, str, tuple]], dict]:
    from paramcount.model import registry
    from reference_models import hf

    model = hf.build(registry.get(arch_id), hp)
    emb = hf._input_embedding_name(model)
    seen: dict[int, int] = {}
    out: list[tuple[str, str, tuple]] = []
    for name, t in model.state_dict(keep_vars=True).items():
        if id(t) in seen:  # a tied weight: stored once, under the input embedding's name
            i = seen[id(t)]
            if id(t) in emb:
                out[i] = (emb[id(t)], out[i][1], out[i][2])
            continue
        seen[id(t)] = len(out)
        kind = dtype if t.is_floating_point() else DTYPES[str(t.dtype)]
        out.append((name, kind, tuple(t.shape)))
    cfg = json.loads(model.config.to_json_string())
    cfg["architectures"] = [type(model).__name__]
    return out, cfg


def save(folder: Path, arch, hp, **kw) -> Path:
    tensors, cfg = state(arch, hp, **kw)
    folder.mkdir(parents=True, exist_ok=True)
    write_safetensors(folder / "model.safetensors", tensors)
    (folder / "config.json").write_text(json.dumps(cfg))
    return folder


def buildable(arch):
    """The smallest example set transformers builds and a config reads back (a set that needs
    a flag transformers cannot switch, or dense blocks among experts, is passed over)."""
    for hs in sorted(arch.hparam_sets(), key=lambda h: arch.count(h.hparams)):
        hp = arch.resolve(hs.hparams)
        try:
            tensors, cfg = state(arch, hp)
            reading = configs.read_data(cfg, "config.json", arch.id)
        except (Refused, configs.InputFileError):
            continue
        return hs.name, tensors, cfg, arch.resolve(reading.hparams)
    raise AssertionError(f"{arch.id}: no example set transformers builds")
