"""A torch model read as templates: a weight's name with every layer index folded to ``*``
(``model.layers.*.self_attn.q_proj.weight``), and for each template how many weights it names,
their shape, and whether they are trainable parameters, frozen parameters or persistent buffers
(:func:`observe`). The probes (:mod:`paramcount.analyze.derive.probe`) build the models.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from paramcount.analyze.derive.folding import (
    by_place,
    fold,
    literal_containers,
    numbered_dicts,
    stages,
)
from paramcount.core.errors import ParamcountError

__all__ = ["Built", "DeriveError", "Observed", "observe", "size"]


class DeriveError(ParamcountError):
    """Input ``derive`` cannot work from (an unknown model type, a builder returning no model)."""


@dataclass(frozen=True)
class Observed:
    """One template in one build."""

    count: int  # weights it names
    shape: tuple[int, ...]
    role: str  # "trainable", "frozen" or "buffer"


Built = dict[str, Observed]

def _layer_kinds(model) -> list[str] | None:
    """The config's ``layer_types`` (its text config's, for a composite one), or None."""
    cfg = getattr(model, "config", None)
    for c in (cfg, getattr(cfg, "text_config", None)):
        kinds = getattr(c, "layer_types", None)
        if isinstance(kinds, list | tuple) and kinds and all(isinstance(k, str) for k in kinds):
            return list(kinds)
    return None


def _split(key: str, items: list, kinds: list[str] | None) -> dict[str, list]:
    """A template whose weights differ in shape between layers (Gemma 4's k_norm, wider in its
    full-attention layers) as one template per layer kind: ``…k_norm.weight@full_attention``,
    the kind read from ``layer_types`` at the weight's first index; without one, the shapes in
    the order the layers first show them (``@1``, ``@2``)."""
    out: dict[str, list] = {}
    order: list[tuple] = []
    for name, shape, role in items:
        first = re.search(r"(?<=\.)\d+(?=\.|$)", name)
        if kinds is not None and first is not None and int(first.group()) < len(kinds):
            tag = kinds[int(first.group())]
        else:
            order += [shape] if shape not in order else []
            tag = str(order.index(shape) + 1)
        out.setdefault(f"{key}@{tag}", []).append((name, shape, role))
    if kinds is not None and any(len({s for _, s, _ in v}) > 1 for v in out.values()):
        return _split(key, items, None)  # kinds of other layers (GOT-OCR2's vision tower)
    return out


def observe(model, split: set[str] | None = None) -> Built:
    """Every distinct weight of a torch model by template (tied ones once, as ``verify`` reads
    them: :func:`reference_models.hf.torch_weights`). A template whose shapes differ between
    layers is split by layer kind (:func:`_split`), and stays split in every later build that
    shares ``split``."""
    from reference_models.hf import torch_weights

    split = set() if split is None else split
    kinds = _layer_kinds(model)
    out: dict[str, list] = {}
    literal = literal_containers(model)
    numbered = numbered_dicts(model)
    for w in torch_weights(model):
        name = w.path.replace("/", ".")
        role = "trainable" if w.trainable else "frozen"
        if not _is_parameter(model, name):
            role = "buffer"
        key = fold(name, literal, numbered)
        out.setdefault(key, []).append((name, tuple(w.shape), role))
    for key in list(out):
        if key in split or len({s for _, s, _ in out[key]}) > 1:
            split.add(key)
            items = out.pop(key)
            # a pipeline's stages, in each build by their place (where two stages' shapes
            # coincide, Zamba 2's adapters at rank = hidden = 2·intermediate, too)
            if f"{key}@place" in split or stages(items):
                split.add(f"{key}@place")
            out.update(by_place(key, items) if f"{key}@place" in split else
                       _split(key, items, kinds))
    built: Built = {}
    for key, named in out.items():
        items = [(s, r) for _, s, r in named]
        shapes = {s for s, _ in items}
        roles = {r for _, r in items}
        if len(roles) > 1:
            raise DeriveError(f"{key}: weights of one template differ in trainability")
        shape = items[0][0] if len(shapes) == 1 else (-1,)  # -1: shapes differ by layer
        built[key] = Observed(len(items), shape, roles.pop())
    return built


def _is_parameter(model, name: str) -> bool:
    mod_name, _, attr = name.rpartition(".")
    try:
        mod = model.get_submodule(mod_name) if mod_name else model
    except AttributeError:
        return True
    return attr in mod._parameters


def size(shape: tuple[int, ...]) -> int:
    return math.prod(shape)
