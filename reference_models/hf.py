"""transformers references: any architecture with a mapping table and a transformers class,
built from a transformers config on torch's meta device (nothing allocated, nothing downloaded).

One builder for every family: the config comes from the family's table (forward direction,
``Table.hf_config``), the class from its ``hf_classes``, extra constructor arguments from its
``Transformers.kwargs``; where transformers has several classes for one architecture
(``Transformers.variants``: Gemma and Gemma 2), the table and class of the one that builds the
set. A reference and nothing more: hyperparameters in, weights out. Imports torch and
transformers, so it is imported only in a torch worker (paramcount.runtime.isolate), never beside
TensorFlow; the proofs against it are :mod:`paramcount.analyze.prove.transformers`. What a forward
of the model costs (FLOPs, its cache) is measured beside it, in :mod:`reference_models.hf_costs`.
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
from paramcount.model.frameworks import torch_path
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
