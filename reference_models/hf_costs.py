"""What a transformers reference costs: a forward's FLOPs per module under torch's
``FlopCounterMode`` and the cache it returns, per layer, as weights the verifier attributes like
parameters (:mod:`paramcount.model.cost`, :mod:`paramcount.analyze.costs`).

The models are :mod:`reference_models.hf`'s builds; this module is apart from it so that a change
to how a cost is measured re-keys the cost proofs only, not every parameter proof against
transformers (a proof is keyed by its reference's source: :func:`paramcount.runtime.cache.proof_key`).
Imports torch and transformers: imported only in a torch worker.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Mapping

import torch

from paramcount.model.cost import NO_WINDOW
from paramcount.model.frameworks import cost_symbols, torch_path
from paramcount.model.weights import Weight
from reference_models.hf import build
from reference_models.hf_inputs import fed, unread

__all__ = ["cache_weights", "cost_weights", "costs", "gather_experts", "measure"]


def cost_weights(arch, quantity: str, hp: Mapping[str, int]) -> list[Weight]:
    """The oracle of a cost proof: :func:`costs`' measurement of one ``quantity``."""
    return costs(arch, hp)[quantity]


def costs(arch, hp: Mapping[str, int], config: Mapping[str, object] | None = None, *,
          real: bool | None = None) -> dict[str, list[Weight]]:
    """What a forward of ``hp["B"]`` sequences of ``hp["T"]`` tokens costs the transformers
    model of ``arch`` at the rest of ``hp``, as weights the verifier attributes like parameters
    (:mod:`paramcount.model.cost`):

    - ``"flops"``: torch's ``FlopCounterMode`` count of each module's own operations (its
      children's taken out), at ``<module>/weight`` for a module with a weight of its own (a
      projection), at ``<module>/scan`` for a recurrent mixer (a module holding a ``conv1d``:
      the convolution and scan it computes inline, apart from an attention's where a hybrid
      names both modules alike, as Nemotron-H's ``mixer``), at ``<module>/scores`` for one
      without parameters or with small ones only (an attention's products of queries, keys and
      values). A module
      whose own parameters are stacked matrices (≥ 3 axes: E experts' projections; or matrices
      only, two or more: E experts' rows in each) has its count
      shared among them in proportion to their sizes (each a product of the tokens routed to it
      with its matrix), each at ``<module>/<parameter>``, shaped as the parameter with its first
      axis scaled, so the slices a formula claims (gate and up of one tensor) apply;
    - ``"kv"``: the elements each layer of the cache the forward returns holds (keys and values,
      or a state), at ``<module>/cache``, the module whose ``layer_idx`` is the layer's.

    Both at the paths the parameter measurement gives the same modules: renamed by the family's
    ``Transformers.rename`` where it has one (:func:`reference_models.hf.weights`).

    On the meta device (nothing allocated). Where a router sends tokens to experts (the formula
    has ``active_times``), each token's k experts are gathered (:func:`gather_experts`): the
    products of transformers' eager loop over the routed experts, in shapes that do not depend
    on the data. Where the class's forward still needs the data (``Transformers.experts_on_meta``
    False: DBRX's loop), or with ``real``, a real model with random small weights runs on the CPU instead (seeded,
    random token ids; each token goes to exactly k experts, so the count does not depend on
    them), its experts in that eager loop: the measurement the gathered one is checked against.
    ``config``: config fields that change no weight (``sliding_window``), set on the config;
    the family's ``Transformers.cost_config`` symbols in ``hp`` are written so too."""
    if isinstance(arch, str):
        from paramcount.model.registry import get

        arch = get(arch)
    ref = arch.transformers.pick(hp)
    symbols = cost_symbols(ref)
    extra: dict[str, object] = {k: x for k, x in ref.cost_config.items() if k not in symbols}
    for key, (sym, default) in symbols.items():
        given = hp.get(sym.name, default)
        extra[key] = None if given is None or given >= NO_WINDOW else given  # none: null
    extra.update(config or {})
    skip = {"T", "B", *(sym.name for sym, _ in symbols.values())}
    sizes = {k: hp[k] for k in ("T", "B")}
    routed = arch.formula.has_active
    if real is None:
        real = routed and not ref.experts_on_meta
    model = _model(arch, {k: x for k, x in hp.items() if k not in skip}, extra,
                   "cpu" if real else "meta")
    if routed and not real:  # (a class that cannot switch them may route data-free: Llama 4's
        gather_experts(model)  # every expert weighs every token)
    if real:
        # eager experts (grouped_mm takes bf16 only) and eager attention (FlopCounterMode counts
        # no CPU flash kernel): the same products, counted
        with contextlib.suppress(AttributeError, ValueError, NotImplementedError):
            model.set_experts_implementation("eager")
        with contextlib.suppress(AttributeError, ValueError, NotImplementedError):
            model.set_attn_implementation("eager")
        model.eval().requires_grad_(False)  # FlopCounterMode's module hooks track no grads
        torch.manual_seed(0)
        vocab = model.get_input_embeddings().weight.shape[0]
        ids = torch.randint(0, vocab, (sizes["B"], sizes["T"]))
    else:
        with torch.device("meta"):
            ids = torch.zeros((sizes["B"], sizes["T"]), dtype=torch.long)
    threads = torch.get_num_threads()
    if real:  # a tiny model: one thread (several only wait for each other on a busy machine)
        torch.set_num_threads(1)
    try:
        own, cache, places = _measure(model, ids)
    finally:
        torch.set_num_threads(threads)
    modules = dict(model.named_modules())
    flops: list[Weight] = []
    for name, n in own.items():
        if n:
            flops.extend(_flop_weights(name, modules[name], n))
    out = {"flops": flops, "kv": cache_weights(model, cache, places)}
    rename = getattr(arch.transformers, "rename", None)
    if rename is None:
        return out
    # named as the parameter measurement names them (reference_models.hf.weights: a family's
    # ``rename``, Gemma 4's global layers apart), so the cost trees' patterns match alike
    return {q: [dataclasses.replace(x, path=rename(x.path, model.config)) for x in ws]
            for q, ws in out.items()}


def gather_experts(model) -> bool:
    """Set ``model``'s experts to gather each token's k experts (transformers' ``batched_mm``:
    the products its eager loop over the routed experts computes, in shapes known before the
    data, so a forward with a router runs on the meta device); False where its class cannot
    switch how its experts run (DBRX's own loop)."""
    if not type(model)._can_set_experts_implementation():
        return False
    model.set_experts_implementation("batched_mm")
    return True


def measure(model, ids) -> tuple[dict[str, int], object]:
    """One forward of ``model`` on the token ids ``ids`` with ``use_cache=True`` under torch's
    ``FlopCounterMode``: each module's own FLOPs (its counted children's taken out), by module
    name (``""`` the model itself), and the cache the forward returns (None without one). The
    one measurement behind :func:`costs` and a config file's (:func:`hf_configs.config_costs`).

    An image encoder (``main_input_name`` ``pixel_values``: ViT) is given B images of zeros at
    its config's image size in place of the ids (:func:`_pixels`): its positions are the
    patches' (and a class token), whatever T.

    An encoder-decoder (``config.is_encoder_decoder``) is given ``ids`` twice: as the source
    (``input_ids``) and as the target (``decoder_input_ids``), so B sequences of T source tokens
    and T target tokens; its cache (an ``EncoderDecoderCache``) holds the decoder's
    self-attention keys and values at the T target positions and the cross-attention ones at the
    T source positions."""
    own, cache, _ = _measure(model, ids)
    return own, cache


def _measure(model, ids) -> tuple[dict[str, int], object, dict[tuple[int, int], str]]:
    """:func:`measure`, and where each cache layer was written: (id of the cache, layer index) →
    the name of the innermost module running when the layer was updated (its attention)."""
    from torch.utils.flop_counter import FlopCounterMode

    inputs = fed(model, ids)
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad(), _writers(model) as places, unread(inputs, ids):
        out = model(**inputs, use_cache=True)
    totals = {name: sum(ops.values()) for name, ops in counter.get_flop_counts().items()}
    root = type(model).__name__
    counted = {name: int(totals[f"{root}.{name}" if name else root])
               for name, _ in model.named_modules()
               if (f"{root}.{name}" if name else root) in totals}
    own = dict(counted)
    for name, total in counted.items():  # a module's own: its nearest counted ancestor's less
        parts = name.split(".") if name else []
        parent = next((p for p in (".".join(parts[:i]) for i in range(len(parts) - 1, -1, -1))
                       if p in counted and p != name), None)
        if parent is not None:
            own[parent] -= total
    return own, _returned_cache(out), places


def _returned_cache(out):
    """The cache a forward's output holds: ``past_key_values``, or where a state-space model's
    output keeps it (transformers 5's ``cache``, older ``cache_params``); None without one."""
    for name in ("past_key_values", "cache", "cache_params"):
        found = getattr(out, name, None)
        if found is not None:
            return found
    return None


def _tensors(value) -> list:
    """The tensors a cache layer's attribute holds: itself, or a dict's or list's values (a
    linear-attention layer's ``conv_states`` {0: tensor}), at least 2-dimensional (a count, a
    position, a flag is none)."""
    if torch.is_tensor(value):
        return [value] if value.dim() >= 2 else []
    if isinstance(value, Mapping):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for x in value for t in _tensors(x)]
    return []


@contextlib.contextmanager
def _writers(model):
    """While it is entered, which module writes each layer of a cache: (id of the cache, layer
    index) → the innermost running module of ``model`` when ``Cache.update`` is called (the
    attention that writes it: a decoder's self-attention or its cross-attention, which share a
    layer index in two caches of an ``EncoderDecoderCache``)."""
    from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
    from transformers.cache_utils import Cache

    names = {id(m): name for name, m in model.named_modules()}
    stack: list[str] = []
    places: dict[tuple[int, int], str] = {}

    def enter(module, args):
        if id(module) in names:
            stack.append(names[id(module)])

    def leave(module, args, output):
        if id(module) in names and stack:
            stack.pop()

    update = Cache.update

    def recorded(self, key_states, value_states, layer_idx, *args, **kwargs):
        if stack:
            places.setdefault((id(self), layer_idx), stack[-1])
        return update(self, key_states, value_states, layer_idx, *args, **kwargs)

    handles = (register_module_forward_pre_hook(enter), register_module_forward_hook(leave))
    Cache.update = recorded  # type: ignore[method-assign]
    try:
        yield places
    finally:
        Cache.update = update  # type: ignore[method-assign]
        for h in handles:
            h.remove()


_LAST: list = []  # the last real model built, (key, model): the next context reuses it


def _model(arch, hp: Mapping[str, int], config: Mapping[str, object], device: str):
    """:func:`build`'s model; a real one is kept for the next call at the same set (the
    contexts of one set differ in the input only: one random initialisation, not three)."""
    if device == "meta":
        return build(arch, hp, config=config, device=device)
    key = (arch.id, tuple(sorted(hp.items())), tuple(sorted(config.items())), device)
    if _LAST and _LAST[0][0] == key:
        return _LAST[0][1]
    _LAST.clear()
    torch.manual_seed(0)
    model = build(arch, hp, config=config, device=device)
    _LAST.append((key, model))
    return model


def _flop_weights(name: str, module, n: int) -> list[Weight]:
    """A module's own FLOPs ``n`` as pseudo-weights (see :func:`costs`)."""
    at = f"{name}." if name else ""
    params = dict(module.named_parameters(recurse=False))
    if "weight" in params:
        return [Weight(torch_path(f"{at}weight"), n, True, (n,))]
    if isinstance(getattr(module, "conv1d", None), torch.nn.Module):  # a recurrent mixer's own
        return [Weight(torch_path(f"{at}scan"), n, True, (n,))]
    stacked = {k: p for k, p in params.items() if p.dim() >= 3}
    if not stacked and len(params) >= 2 and all(p.dim() == 2 for p in params.values()):
        stacked = params  # matrices side by side, E experts' rows in each (DBRX's w1, v1, w2)
    size = sum(math.prod(p.shape) for p in stacked.values())
    if not stacked or any(n * math.prod(p.shape) % size for p in stacked.values()):
        return [Weight(torch_path(f"{at}scores"), n, True, (n,))]
    out = []
    for k, p in stacked.items():
        share = n * math.prod(p.shape) // size
        shape = (share // math.prod(p.shape[1:]), *p.shape[1:])
        out.append(Weight(torch_path(f"{at}{k}"), share, True, shape))
    return out


def cache_weights(model, cache, places: Mapping[tuple[int, int], str] | None = None
                  ) -> list[Weight]:
    """The elements each layer of ``cache`` holds, at the module of that layer's index: its keys
    and values (tensors) at the deepest such module, its attention; its states (a linear-attention
    layer's conv and recurrent states, in dicts by state) at the one that holds a convolution
    (``conv1d``), its mixer, where a hybrid layer has both (Falcon-H1's attention beside a Mamba
    mixer), else at the deepest too. An ``EncoderDecoderCache``'s two (self-attention,
    cross-attention) each at the module that wrote it (``places``: :func:`_measure`)."""
    if cache is None:
        return []
    parts = [getattr(cache, k, None) for k in ("self_attention_cache", "cross_attention_cache")]
    if all(p is not None for p in parts):
        out = []
        for part in parts:
            for i, layer in enumerate(getattr(part, "layers", ())):
                size = _elements(layer)
                if size:
                    where = (places or {}).get((id(part), i), f"cache_layer_{i}")
                    out.append(Weight(torch_path(f"{where}.cache"), size, True, (size,)))
        return out
    at: dict[int, str] = {}  # the deepest module that holds the layer's index: its attention
    mixer: dict[int, str] = {}  # the deepest that holds it and a convolution: its mixer
    for name, module in model.named_modules():
        idx = getattr(module, "layer_idx", getattr(module, "layer_id", None))
        if isinstance(idx, int) and not isinstance(idx, bool):
            if len(name) >= len(at.get(idx, "")):
                at[idx] = name
            if isinstance(getattr(module, "conv1d", None), torch.nn.Module) and \
                    len(name) >= len(mixer.get(idx, "")):
                mixer[idx] = name
    out = []
    for i, layer in enumerate(getattr(cache, "layers", ())):
        sizes: dict[str, int] = {}
        for value in vars(layer).values():
            where = at.get(i, f"cache_layer_{i}")
            if isinstance(value, Mapping):  # states by index
                where = mixer.get(i, where)
            sizes[where] = sizes.get(where, 0) + sum(int(t.numel()) for t in _tensors(value))
        out += [Weight(torch_path(f"{where}.cache"), n, True, (n,)) for where, n in sizes.items() if n]
    return out


def _elements(layer) -> int:
    """The elements one cache layer holds: its tensors of two axes or more (in dicts too)."""
    return sum(int(t.numel()) for v in vars(layer).values() for t in _tensors(v))
