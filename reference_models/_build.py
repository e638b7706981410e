"""Shared helpers for the reference builders."""

from __future__ import annotations

import contextlib
import gc
import inspect
import types
from collections.abc import Iterator

import keras

_FROZEN = False


@contextlib.contextmanager
def stateless() -> Iterator[None]:
    """Build inside this scope and no weight is allocated: shapes (and so counts) are exact, at
    any size. GPT-2 XL builds in about half a second this way instead of 20 s and 7 GB.

    KerasHub task models compile an optimizer when constructed, which fails inside the scope:
    build them with :func:`stateless_task` (not compiled; compiling adds no model weight).

    Python's cyclic garbage collector is paused meanwhile: Keras creates some 15 tracked objects
    per weight, and with SymPy's caches in the heap the collector's passes cost more than the
    build itself at 70B+ sizes (Llama 2 70B: 5.2 s with it, 1.7 s without, measured).

    The first build of a process also freezes what the imports left in the heap (TensorFlow,
    Keras, SymPy's caches: objects that live as long as the process): the collector's passes
    after each build then skip them, which halves the collection a 96-layer build's garbage
    costs. Only the objects alive at the first build are frozen, so every model built later is
    still reclaimed.
    """
    global _FROZEN
    if not _FROZEN:
        gc.freeze()
        _FROZEN = True
    was = gc.isenabled()
    gc.disable()
    try:
        with keras.StatelessScope(initialize_variables=False), _lean():
            yield
    finally:
        if was:
            gc.enable()


LEAN = True  # benchmarks/bench.py-style comparisons switch it off to measure a plain build
_PLAIN = frozenset({int, float, bool, str, bytes, type(None)})


@contextlib.contextmanager
def _lean() -> Iterator[None]:
    """Four of Keras' per-layer costs, cut without changing what is built (measured on every
    set `verify --all` builds: see benchmarks/README.md):

    - ``inspect.signature`` / ``getfullargspec`` of the same few functions, asked again for each
      of the ~100,000 layers (``Operation.__new__``, ``Layer.__init__``, ``build``): answered
      once per function here. A function's signature is fixed; a bound method's is its
      function's less the first parameter, so it is keyed by the function.
    - ``Tracker.track`` for each of ~7 million attribute assignments: a plain value (a number,
      a string, None) is never a variable, layer, metric or seed generator, nor a container to
      wrap, so ``track`` returns it unchanged after testing it against each; here at once. A
      layer's own ``__setattr__`` does nothing else with it on TensorFlow (its ``_setattr_hook``
      is the identity there), so a plain value goes straight to the next ``__setattr__``.
    - an uninitialised variable's value, read while a layer's output shape is traced: a
      placeholder of its shape, not its initializer's ops (:func:`_placeholder_value`).
    - the constructor-argument config of each of the ~100,000 layers, which only serializing a
      model reads (:func:`_unconfigured_new`).
    """
    if not LEAN:
        yield
        return
    from keras.src.layers import layer as layer_module
    from keras.src.ops import operation as operation_module
    from keras.src.utils import tracking

    Layer = layer_module.Layer
    saved_track = tracking.Tracker.__dict__["track"]
    saved_setattr = Layer.__dict__["__setattr__"]

    def track(self, attr):
        return attr if type(attr) in _PLAIN else saved_track(self, attr)

    def setattr_plain(self, name, value):
        if type(value) in _PLAIN and "_tracker" in self.__dict__:
            super(Layer, self).__setattr__(name, value)
        else:
            saved_setattr(self, name, value)

    modules = (layer_module, operation_module)
    saved_inspect = [m.inspect for m in modules]
    from keras.src.backend.common import variables as variables_module
    Variable = variables_module.Variable
    saved_value = Variable.__dict__["value"]
    Operation = operation_module.Operation
    saved_new = Operation.__dict__["__new__"]
    if keras.backend.backend() == "tensorflow":
        Variable.value = _placeholder_value(saved_value)
        Operation.__new__ = staticmethod(_unconfigured_new(Operation))
    tracking.Tracker.track = track
    plain_hook = keras.backend.backend() == "tensorflow" and (
        Layer._setattr_hook is operation_module.Operation._setattr_hook)
    if plain_hook:
        Layer.__setattr__ = setattr_plain
    for m in modules:
        m.inspect = _INSPECT
    try:
        yield
    finally:
        tracking.Tracker.track = saved_track
        Layer.__setattr__ = saved_setattr
        Variable.value = saved_value
        Operation.__new__ = saved_new
        for m, saved in zip(modules, saved_inspect, strict=True):
            m.inspect = saved
        _INSPECT.clear()  # a build's own functions die with it (Moonshine's are made per build)


def _unconfigured_new(operation: type):
    """``Operation.__new__`` without the config Keras records of every layer's constructor
    arguments (binding them to its signature, flattening them, testing each value's type), which
    only ``get_config`` reads: a reference model is counted and dropped, never serialized."""

    def new(cls, *args, **kwargs):
        instance = super(operation, cls).__new__(cls)  # type: ignore[arg-type]
        instance._lock = False
        instance._auto_config = None
        instance._lock = True
        return instance

    return new


def _placeholder_value(saved: property) -> property:
    """``Variable.value`` of an uninitialised variable (every one, in a stateless build) as
    one placeholder op of its shape: Keras calls the variable's initializer instead, which adds
    its random-number ops to the scratch graph each layer's output shape is traced in (a third
    of EdRec's build). Shape inference is all the value is used for there. Read eagerly (no
    graph to hold a placeholder), Keras' own answer stands."""
    import tensorflow as tf
    from keras.src.backend.common.stateless_scope import get_stateless_scope, in_stateless_scope

    kept = saved.fget
    assert kept is not None

    def value(self):
        if self._value is None and not tf.executing_eagerly() and (
                not in_stateless_scope() or get_stateless_scope().get_current_value(self) is None):
            return self._maybe_autocast(tf.compat.v1.placeholder(self._dtype, self._shape))
        return kept(self)

    return property(value)


class _CachedInspect:
    """The ``inspect`` module as Keras' layer and operation modules use it, with
    ``signature`` and ``getfullargspec`` of a plain function or bound method memoised."""

    def __init__(self) -> None:
        self._signatures: dict = {}
        self._argspecs: dict = {}

    def __getattr__(self, name: str):
        return getattr(inspect, name)

    def clear(self) -> None:
        self._signatures.clear()
        self._argspecs.clear()

    @staticmethod
    def _key(fn):
        if isinstance(fn, types.FunctionType):
            return fn
        if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
            return ("bound", fn.__func__)
        return None

    def signature(self, fn, *args, **kwargs):
        key = None if args or kwargs else self._key(fn)
        if key is None:
            return inspect.signature(fn, *args, **kwargs)
        found = self._signatures.get(key)
        if found is None:
            found = self._signatures[key] = inspect.signature(fn)
        return found

    def getfullargspec(self, fn):
        key = self._key(fn)
        if key is None:
            return inspect.getfullargspec(fn)
        found = self._argspecs.get(key)
        if found is None:
            found = self._argspecs[key] = inspect.getfullargspec(fn)
        return found


_INSPECT = _CachedInspect()


@contextlib.contextmanager
def _untracked() -> Iterator[None]:
    """TensorFlow's checkpoint-dependency tracking off for the build: a reference model is
    counted and dropped, never saved, and TF's ``AutoTrackable.__setattr__`` (the object graph a
    ``tf.train.Checkpoint`` would write) was about a quarter of a build's CPU time (GPT-2, Llama 2
    7B, T5, Whisper presets: 1.30 s with it, 0.95 s without, measured). Keras' own tracking,
    which collects the layers' weights, is untouched; so is every model built outside.

    Only for a backbone or task model constructed directly (the reference builders): a model
    *deserialized* this way (Whisper's, from its serialized config) came out 384 weights short.
    """
    try:
        from keras.src.backend.tensorflow.trackable import KerasAutoTrackable
        from keras.src.utils import tracking
    except ImportError:  # another backend: nothing of TensorFlow's to skip
        yield
        return
    wrapped = (tracking.TrackedList, tracking.TrackedDict, tracking.TrackedOrderedDict,
               tracking.TrackedSet)

    def setattr_untracked(self, name, value):
        if isinstance(value, wrapped) and hasattr(self, "_tracked"):
            self._tracked.append(name)  # Keras' own record, as KerasAutoTrackable keeps it
        object.__setattr__(self, name, value)

    saved = KerasAutoTrackable.__dict__["__setattr__"]
    KerasAutoTrackable.__setattr__ = setattr_untracked
    try:
        yield
    finally:
        KerasAutoTrackable.__setattr__ = saved


def stateless_backbone(cls, **kwargs):
    with stateless(), _untracked():
        return cls(**kwargs)


def from_table(arch_id: str, cls, hp: dict[str, int], **weightless):
    """``cls`` built stateless from the constructor arguments the family's mapping table gives
    for ``hp`` (paramcount.model.mapping: the one place a family's argument names are written).

    ``weightless``: required arguments that hold no weight in the formula's model, and so have
    no symbol (QwenMoeBackbone's dense ``intermediate_dim`` while every block is sparse)."""
    from paramcount.model.registry import get

    table = get(arch_id).mapping
    if table is None:
        raise TypeError(f"{arch_id} has no mapping table: its builder cannot use from_table")
    return stateless_backbone(cls, **table.keras_kwargs(hp), **weightless)


def stateless_task(cls, **kwargs):
    """A KerasHub task model (``GPT2CausalLM``, ``BertMaskedLM`` ...) built allocation-free: not
    compiled, since compiling creates an optimizer variable (which the scope refuses) and adds no
    model weight. The whole model, head included, then costs no memory at any size."""
    with stateless(), _untracked():
        return cls(compile=False, **kwargs)
