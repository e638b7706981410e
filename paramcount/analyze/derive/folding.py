"""How a build's weight names fold into templates: a layer index to ``*``
(``model.layers.3.mlp.experts.17.w1.weight`` → ``model.layers.*.mlp.experts.*.w1.weight``), so
that one template counts the layers (or experts) that have it; which containers keep their
indices (a fixed pipeline) and which keyed ones fold as a list does. Imports torch only inside
functions.
"""

from __future__ import annotations

import re

__all__ = ["by_place", "fold", "keys_per_holder", "literal_containers", "numbered_dicts", "stages"]

_INDEX = re.compile(r"(?<=\.)\d+(?=\.|$)|^\d+(?=\.)")
_NUMBERED = re.compile(r"_\d+$")  # a numbered key's index (expert_17)


def fold(name: str, literal: frozenset[str] = frozenset(),
         numbered: frozenset[str] = frozenset()) -> str:
    """``model.layers.3.mlp.experts.17.w1.weight`` → ``model.layers.*.mlp.experts.*.w1.weight``;
    an index under a container in ``literal`` (whose children differ in class: CTRL's
    ``ffn`` Sequential of Linear, ReLU, Linear) is kept; a key ``expert_17`` under a container in
    ``numbered`` (a ModuleDict keyed ``expert_0`` … ``expert_{n-1}``) folds as ``expert_*``."""
    if not literal and not numbered:
        return _INDEX.sub("*", name)
    segs = name.split(".")

    def seg(i: int, s: str) -> str:
        under = ".".join(segs[:i])
        if s.isdigit():
            return s if under in literal else "*"
        return _NUMBERED.sub("_*", s) if under in numbered else s

    return ".".join(seg(i, s) for i, s in enumerate(segs))


def numbered_dicts(model) -> frozenset[str]:
    """ModuleDicts keyed ``p_0`` … ``p_{n-1}`` (NLLB-MoE's and Switch Transformers' ``experts``,
    keyed ``expert_0`` …, beside NLLB-MoE's ``token_dropout``), each prefix's indices 0 to its
    count less one: a list of modules under names, whose key folds as a ModuleList's index does
    (:func:`fold`), so that one template counts the experts of every layer, not one template
    per expert (``expert_100`` exists only where num_experts > 100: a count no expression of
    the fields gives)."""
    from torch import nn

    out = set()
    for name, mod in model.named_modules():
        if not isinstance(mod, nn.ModuleDict) or not len(mod):
            continue
        groups: dict[str, list[int]] = {}  # (beside keys of no index: its token_dropout)
        for k in mod:
            if m := _NUMBERED.search(k):
                groups.setdefault(k[:m.start()], []).append(int(m.group()[1:]))
        if groups and all(sorted(v) == list(range(len(v))) for v in groups.values()):
            out.add(name)
    return frozenset(out)


def literal_containers(model) -> frozenset[str]:
    """Containers whose numbered children differ in class: a fixed pipeline (CTRL's ffn
    Sequential), whose places stay apart. Not a ModuleList, a stack of layers whose length a
    config sets (Jamba's and Zamba's attention and Mamba layers), nor another stack of layers of
    several kinds (Mllama's self- and cross-attention decoder layers, every class a ``…Layer``
    or ``…Block``): their index folds, so a template counts the layers that have it (how many
    of each kind is a count), and a build costs its layers, not a template per layer."""
    from torch import nn

    out = set()
    for name, mod in model.named_modules():
        if isinstance(mod, nn.ModuleList):
            continue
        kids = {type(c) for k, c in mod.named_children() if k.isdigit()}
        if len(kids) > 1 and not all(re.search(r"(Layer|Block)$", c.__name__) for c in kids):
            out.add(name)
    return frozenset(out)


def keys_per_holder(counts: dict[str, int]) -> set[int]:
    """How many keys a numbered ModuleDict holds (:func:`numbered_dicts`), from a build's
    templates and their counts: a template inside it (``ffn.experts.expert_*.fc1.weight``,
    384 weights) over one of the module holding it outside it (``ffn.router.classifier.weight``,
    3: one a layer that has the experts), where that divides: NLLB-MoE's 128 experts a layer."""
    out = set()
    for name, n in counts.items():
        segs = name.split("@")[0].split(".")
        at = next((i for i, s in enumerate(segs) if s.endswith("_*")), None)
        if not at:
            continue
        holder, inside = ".".join(segs[:at - 1]) + ".", ".".join(segs[:at]) + "."
        out |= {n // c for u, c in counts.items() if u.startswith(holder)
                and not u.startswith(inside) and c > 0 and n % c == 0}
    return out


def stages(items: list) -> bool:
    """Whether a template's weights are a pipeline's stages inside a stack: two numbered
    segments or more, the last (the place) giving each weight's shape, one shape a place and
    a place a shape (Zamba 2's adapter, Sequential(Linear(hidden, rank), Linear(rank, 2·I))
    in each slot of each hybrid layer; not a stack alternating two shapes by layer)."""
    at: dict[str, set] = {}
    for name, shape, _ in items:
        nums = re.findall(r"(?<=\.)\d+(?=\.|$)", name)
        if len(nums) < 2:
            return False
        at.setdefault(nums[-1], set()).add(shape)
    shapes = {s for v in at.values() for s in v}
    return len(at) > 1 and all(len(v) == 1 for v in at.values()) and len(shapes) == len(at)


def by_place(key: str, items: list) -> dict[str, list]:
    """A pipeline's weights (:func:`stages`) as one template a place: ``key@p0``, ``key@p1``."""
    out: dict[str, list] = {}
    for name, shape, role in items:
        place = re.findall(r"(?<=\.)\d+(?=\.|$)", name)[-1]
        out.setdefault(f"{key}@p{place}", []).append((name, shape, role))
    return out
