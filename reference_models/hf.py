"""transformers references: any architecture with a mapping table and a transformers class,
built from a transformers config on torch's meta device (nothing allocated, nothing downloaded).

One builder for every family: the config comes from the family's table (forward direction,
``Table.hf_config``), the class from its ``hf_classes``, extra constructor arguments from its
``Transformers.kwargs``; where transformers has several classes for one architecture
(``Transformers.variants``: Gemma and Gemma 2), the table and class of the one that builds the
set. A reference and nothing more: hyperparameters in, weights out. Imports torch and
transformers, so it is imported only in a torch worker (paramcount.runtime.isolate), never beside
TensorFlow; the proofs against it are :mod:`paramcount.analyze.prove.transformers`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import math
from collections.abc import Iterator, Mapping

import torch
import transformers

from paramcount.core.errors import Refused
from paramcount.model.cost import NO_WINDOW
from paramcount.model.frameworks import cost_symbols, torch_path
from paramcount.model.weights import Weight

# transformers' advice to its users (a tiny preset's vocabulary below GPT-2's token ids: "Model
# config: bos_token_id must be None or ...") is noise to paramcount's: only errors are shown.
transformers.logging.set_verbosity_error()

__all__ = ["Refused", "build", "config", "torch_weights", "weights"]

_CONFIG_CLASS = transformers.AutoConfig


def config(arch, hp: Mapping[str, int]):
    """The transformers config object for resolved hyperparameters ``hp``; a set transformers
    refuses (an odd rotary width, which Keras builds) raises :class:`Refused` with transformers'
    own message (its validator's). The declared constraints (``Transformers.constraints``) are
    not checked here: the config class is the fact, so a set that breaks one but that
    transformers takes is built and compared (``tests/test_constraints_built.py`` checks every
    declared constraint against a build)."""
    ref = arch.transformers.pick(hp)
    table = ref.mapping or arch.mapping
    try:
        return _CONFIG_CLASS.for_model(table.model_type, **table.hf_config(hp))
    except Exception as exc:
        raise Refused(f"transformers cannot build {arch.id} here: {_reason(exc)}") from None


def _reason(exc: BaseException) -> str:
    """transformers' message for a refusal, on one line, naming the validator that raised it
    (``Class validation error for validator 'validate_rope': ValueError: ...``)."""
    text = " ".join(str(exc).split())
    cause = exc.__cause__
    if cause is not None and " ".join(str(cause).split()) not in text:
        text = f"{text}: {' '.join(str(cause).split())}" if text else " ".join(str(cause).split())
    return text or type(exc).__name__


_config_of = config  # build's own ``config`` argument hides the function


# A real model (costs' routed experts) is built only this small: tiny sets, never a preset.
_REAL_LIMIT = 20_000_000


def build(arch, hp: Mapping[str, int], *, config: Mapping[str, object] | None = None,
          device: str = "meta"):
    """The transformers model of ``arch`` at ``hp``, on the meta device (or ``device``: a real
    model of random weights, refused above a few million parameters); ``config``: fields set
    on the config before the build (the cost measurement's ``sliding_window``)."""
    why = arch.transformers.refusal(hp)
    if why is not None:  # an option the class cannot switch: refused, shown as skipped
        raise Refused(f"transformers cannot build {arch.id} here: {why}")
    ref = arch.transformers.pick(hp)
    cls = getattr(transformers, (ref.mapping or arch.mapping).hf_class(arch.id))
    cfg = _config_of(arch, hp)
    for key, value in (config or {}).items():
        *within, last = key.split(".")
        setattr(functools.reduce(getattr, within, cfg), last, value)
    if device != "meta":
        size = arch.count(dict(hp))
        if size > _REAL_LIMIT:
            raise Refused(f"{arch.id}: {size} parameters are too many to run a real model here")
    was = gc.isenabled()
    gc.disable()  # as for Keras builds: the collector's passes cost more than the build
    try:
        with torch.device(device), legacy_constructors_on_default_device():
            try:
                return cls(cfg, **dict(ref.kwargs))
            except ValueError as exc:  # the class's own check (embed_dim % num_heads)
                raise Refused(f"transformers cannot build {arch.id} here: {_reason(exc)}") from None
    finally:
        if was:
            gc.enable()


# The legacy typed constructors and their dtypes. ``torch.FloatTensor(d_model, n_head, d_head)``
# (XLNet's attention weights, a few other models') ignores ``torch.device("meta")`` and
# ``torch.set_default_device`` alike and allocates uninitialised CPU memory: at prove's sizes,
# 1.3e14 bytes, refused. (``torch.Tensor(sizes)`` does the same, but it is the class every
# isinstance check names, so it is left alone; no model built here calls it.)
_LEGACY_DTYPES = {
    "FloatTensor": torch.float32, "DoubleTensor": torch.float64, "HalfTensor": torch.float16,
    "BFloat16Tensor": torch.bfloat16, "LongTensor": torch.int64, "IntTensor": torch.int32,
    "ShortTensor": torch.int16, "CharTensor": torch.int8, "ByteTensor": torch.uint8,
    "BoolTensor": torch.bool,
}


class _OnDefaultDevice(type):
    """The metaclass of a stand-in for a legacy typed constructor: called with sizes only, it
    makes an empty tensor of its dtype on the current default device (meta, within a build);
    any other call (data, a storage) goes to the original, and so do ``isinstance`` and
    ``issubclass``. A type, not a function: a modeling module imported during the build
    evaluates annotations such as ``torch.FloatTensor | None``."""

    _legacy: type
    _dtype: torch.dtype

    def __call__(cls, *args, **kwargs):
        sizes = args[0] if len(args) == 1 and isinstance(args[0], torch.Size) else args
        if args and not kwargs and all(isinstance(a, int) for a in sizes):
            return torch.empty(tuple(sizes), dtype=cls._dtype)
        return cls._legacy(*args, **kwargs)

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, cls._legacy)

    def __subclasscheck__(cls, sub) -> bool:
        return issubclass(sub, cls._legacy)


@contextlib.contextmanager
def legacy_constructors_on_default_device() -> Iterator[None]:
    """Within the block, ``torch.FloatTensor(sizes)`` and its kin follow the default device
    (``torch.device("meta")``) as ``torch.empty`` does; restored on exit."""
    saved = {name: getattr(torch, name) for name in _LEGACY_DTYPES if hasattr(torch, name)}
    try:
        for name, legacy in saved.items():
            setattr(torch, name, _OnDefaultDevice(name, (), {
                "_legacy": legacy, "_dtype": _LEGACY_DTYPES[name], "__module__": "torch"}))
        yield
    finally:
        for name, legacy in saved.items():
            setattr(torch, name, legacy)


def torch_weights(model) -> list[Weight]:
    """Every distinct parameter (a tied one once: named_parameters() drops duplicates) as
    trainable unless the model froze it at construction (``requires_grad`` False: Whisper's
    sinusoidal encoder table, the counterpart of a Keras non-trainable weight), and every
    persistent buffer (what a state_dict saves) as non-trainable. Non-persistent buffers
    (rotary inv_freq, position_ids) are computed, not weights."""
    named = _input_embedding_name(model)
    out, ids = [], set()
    for n, p in model.named_parameters(remove_duplicate=False):
        if id(p) in ids:
            continue
        ids.add(id(p))
        # A tied parameter is named as the input embedding, whichever module came first
        # (XLMRobertaForMaskedLM builds its lm_head before the encoder).
        n = named.get(id(p), n)
        out.append(Weight(torch_path(n), math.prod(p.shape), p.requires_grad, tuple(p.shape)))
    seen: set[int] = set()
    for mod_name, mod in model.named_modules():
        for b_name, buf in mod._buffers.items():
            if buf is None or b_name in mod._non_persistent_buffers_set or id(buf) in seen:
                continue
            seen.add(id(buf))
            name = f"{mod_name}.{b_name}" if mod_name else b_name
            out.append(Weight(torch_path(name), math.prod(buf.shape), False, tuple(buf.shape)))
    return out


def _input_embedding_name(model) -> dict[int, str]:
    """id of the input embedding's weight → its name under the embedding module."""
    try:
        emb = model.get_input_embeddings()
    except (AttributeError, NotImplementedError):
        return {}
    weight = getattr(emb, "weight", None)
    if weight is None:
        return {}
    name = next((m for m, mod in model.named_modules() if mod is emb), None)
    return {} if name is None else {id(weight): f"{name}.weight" if name else "weight"}


def weights(arch, hp: Mapping[str, int]) -> list[Weight]:
    """The oracle ``prove`` and ``verify`` call: hyperparameters → the transformers weights."""
    if isinstance(arch, str):
        from paramcount.model.registry import get

        arch = get(arch)
    model = build(arch, hp)
    out = torch_weights(model)
    base = getattr(arch.transformers, "base", None)
    if base is not None:  # another class of the family: named as its declared class names them
        out = [dataclasses.replace(w, path=_as_declared(w.path, model, base)) for w in out]
    rename = getattr(arch.transformers, "rename", None)
    if rename is None:
        return out
    return [dataclasses.replace(w, path=rename(w.path, model.config)) for w in out]


def _as_declared(path: str, model, base: str) -> str:
    """A weight of ``model`` (a class of the family other than the declared one) named as the
    declared class names it: the base model's weights under ``base`` ("" at the root); the
    class's own head as it is. The base model sits under the class's ``base_model_prefix``
    (``model``, ``transformer`` for LlamaForQuestionAnswering), or is the class itself."""
    prefix = model.base_model_prefix
    own = f"{prefix}/" if model.base_model is not model else ""
    if own and not path.startswith(own):
        return path  # the head
    rel = path[len(own):]
    return f"{base}/{rel}" if base else rel


def cost_weights(arch, quantity: str, hp: Mapping[str, int]) -> list[Weight]:
    """The oracle of a cost proof: :func:`costs`' measurement of one ``quantity``."""
    return costs(arch, hp)[quantity]


def costs(arch, hp: Mapping[str, int], config: Mapping[str, object] | None = None
          ) -> dict[str, list[Weight]]:
    """What a forward of ``hp["B"]`` sequences of ``hp["T"]`` tokens costs the transformers
    model of ``arch`` at the rest of ``hp``, as weights the verifier attributes like parameters
    (:mod:`paramcount.model.cost`):

    - ``"flops"``: torch's ``FlopCounterMode`` count of each module's own operations (its
      children's taken out), at ``<module>/weight`` for a module with a weight of its own (a
      projection), at ``<module>/scores`` for one without parameters or with small ones only (an
      attention's products of queries, keys and values; a state-space mixer's scan). A module
      whose own parameters are stacked matrices (≥ 3 axes: E experts' projections; or matrices
      only, two or more: E experts' rows in each) has its count
      shared among them in proportion to their sizes (each a product of the tokens routed to it
      with its matrix), each at ``<module>/<parameter>``, shaped as the parameter with its first
      axis scaled, so the slices a formula claims (gate and up of one tensor) apply;
    - ``"kv"``: the elements each layer of the cache the forward returns holds (keys and values,
      or a state), at ``<module>/cache``, the module whose ``layer_idx`` is the layer's.

    On the meta device (nothing allocated), except where a router sends tokens to experts (the
    formula has ``active_times``): the routing depends on the data, so a real model with random
    small weights runs on the CPU (seeded, random token ids; each token goes to exactly k
    experts, so the count does not depend on them), its experts in transformers' eager loop.
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
    real = arch.formula.has_active
    model = _model(arch, {k: x for k, x in hp.items() if k not in skip}, extra,
                   "cpu" if real else "meta")
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
        own, cache = measure(model, ids)
    finally:
        torch.set_num_threads(threads)
    modules = dict(model.named_modules())
    flops: list[Weight] = []
    for name, n in own.items():
        if n:
            flops.extend(_flop_weights(name, modules[name], n))
    return {"flops": flops, "kv": cache_weights(model, cache)}


def measure(model, ids) -> tuple[dict[str, int], object]:
    """One forward of ``model`` on the token ids ``ids`` with ``use_cache=True`` under torch's
    ``FlopCounterMode``: each module's own FLOPs (its counted children's taken out), by module
    name (``""`` the model itself), and the cache the forward returns (None without one). The
    one measurement behind :func:`costs` and a config file's (:func:`hf_configs.config_costs`)."""
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
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
    return own, getattr(out, "past_key_values", None)


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


def cache_weights(model, cache) -> list[Weight]:
    """The elements each layer of ``cache`` holds, at the module of that layer's index."""
    if cache is None:
        return []
    at: dict[int, str] = {}  # the deepest module that holds the layer's index: its attention
    for name, module in model.named_modules():
        idx = getattr(module, "layer_idx", getattr(module, "layer_id", None))
        if isinstance(idx, int) and not isinstance(idx, bool) and len(name) >= len(at.get(idx, "")):
            at[idx] = name
    out = []
    for i, layer in enumerate(getattr(cache, "layers", ())):
        size = sum(int(t.numel()) for t in vars(layer).values()
                   if torch.is_tensor(t) and t.dim() >= 2)
        if size:
            where = at.get(i, f"cache_layer_{i}")
            out.append(Weight(torch_path(f"{where}.cache"), size, True, (size,)))
    return out
