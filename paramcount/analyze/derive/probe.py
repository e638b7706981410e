"""The torch side of a derivation: a model's config and builder, and its weights as templates.

A *template* is a weight's name with every layer index folded to ``*``
(``model.layers.*.self_attn.q_proj.weight``); one build gives, for each template, how many weights
it names, their shape, and whether they are trainable parameters, frozen parameters or persistent
buffers. Imports torch and transformers (only inside functions): never imported beside
TensorFlow.
"""

from __future__ import annotations

import contextlib
import gc
import json
from collections.abc import Callable, Mapping
from typing import Any

from paramcount.analyze.derive import layers, prepare, quiet_init
from paramcount.analyze.derive.folding import fold
from paramcount.analyze.derive.observing import Built, DeriveError, Observed, observe, size

__all__ = ["BuildsKeras", "Built", "DeriveError", "NeedsLibrary", "Observed", "Source", "fold", "observe",
           "size", "versions"]


class NeedsLibrary(DeriveError):
    """The class needs a library that is not installed (Gemma 3n's vision tower: timm)."""


class BuildsKeras(DeriveError):
    """A user's builder imported Keras in a torch worker: it builds a Keras model, derived
    instead in a process of Keras' side. The type says so, across processes too
    (:class:`paramcount.runtime.isolate.Failed` carries a paramcount exception back as itself),
    so that no caller decides by an exception's text."""

    @classmethod
    def check(cls, exc: BaseException) -> None:
        """Raise one for ``exc`` when it is the isolation guard's refusal of Keras here."""
        from paramcount.runtime.isolate import SIDES, FrameworkClash

        if isinstance(exc, FrameworkClash) and (exc.name or "").partition(".")[0] in SIDES["keras"]:
            raise cls(f"the builder imports Keras: {exc}") from None


class Source:
    """What is derived: a config class (with a base config) and the model class built from it,
    or a user's builder from a mapping of field values to a torch module. ``cls_kwargs``: the
    keyword arguments the class is built with beside its config (BERT's
    ``add_pooling_layer=False``, as a transformers reference passes them; named in
    ``cls_name``). ``max_weights``: a build of more weights (layer instances, as ``verify``'s
    limit counts them) is refused before any other is made (0: no limit;
    :func:`paramcount.analyze.derive.derive_model` gives the limit in force)."""

    # a quotient (head_dim = hidden_size // num_attention_heads) at most this is not asked to be
    # even (:mod:`~paramcount.analyze.derive.refusals`): transformers' validate_rope passes an
    # odd head_dim up to 4 (a forward rotates none: CacheSource's is 0)
    odd_passes = 4

    def __init__(self, *, model_type: str | None = None, config: Mapping[str, Any] | None = None,
                 cls: str | None = None, builder: Callable[[dict[str, Any]], Any] | None = None,
                 defaults: Mapping[str, Any] | None = None, max_weights: int = 0,
                 cls_kwargs: Mapping[str, Any] | None = None):
        self.builder = builder
        self.max_weights = max_weights
        self.cls_kwargs = dict(cls_kwargs or {})
        self.base = dict(config or {})
        self.split: set[str] = set()  # templates split by layer kind (see observe)
        self.fixes: dict[str, Any] = {}  # repairs the base build needs (prepare.repairs)
        self.pins: dict[str, str] = {}  # values the config class pins: name -> why
        self._built: dict[str, Built] = {}  # templates by build (observe)
        self._lists: tuple[layers.Spec, ...] | None = None  # per-layer lists (see lists)
        self._raw: dict[str, Any] = {}
        self._sums: tuple[tuple[str, tuple[str, ...]], ...] | None = None  # see sums
        self.equal: tuple[tuple[str, str], ...] = ()  # (follower, leader): prepare.equal_fields
        self._settled = False  # after the first build, no new repairs
        self.cls_name: str
        if builder is not None:
            self.model_type = model_type or "custom"
            self.cls_name = str(cls or getattr(builder, "__name__", "builder"))
            self._defaults = dict(defaults or {})
            return
        import transformers
        from transformers.models.auto import configuration_auto, modeling_auto

        _quiet(transformers)
        model_type = model_type or self.base.get("model_type")
        if not isinstance(model_type, str) or \
                model_type not in configuration_auto.CONFIG_MAPPING_NAMES:
            raise DeriveError(f"model type {model_type!r} is not one transformers "
                              f"{transformers.__version__} knows")
        self.model_type = model_type
        _strip(self.base)
        # a key the config class aliases (BART's num_hidden_layers is encoder_layers), given
        # beside its field, is set after it and would undo every variation of the field
        aliases = getattr(configuration_auto.CONFIG_MAPPING[model_type], "attribute_map", {})
        for alias, target in dict(aliases).items():
            if alias in self.base:
                self.base.setdefault(target, self.base.pop(alias))
        archs = (config or {}).get("architectures") or []
        if cls is None and archs and isinstance(archs[0], str):
            cls = archs[0]
        if cls is None:
            for mapping in (modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
                            modeling_auto.MODEL_FOR_MASKED_LM_MAPPING_NAMES,
                            modeling_auto.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES,
                            modeling_auto.MODEL_MAPPING_NAMES):
                found = mapping.get(model_type)
                if isinstance(found, str):
                    cls = found
                    break
        if cls is None or not hasattr(transformers, cls):
            raise DeriveError(f"no transformers class {cls!r} for model type {model_type!r}")
        self.cls_name = str(cls)
        self._cls = getattr(transformers, cls)
        self._defaults = {}
        moved = prepare.sub_config(model_type, self.base, self._cls)  # Qwen3.5's text_config
        if moved is not None:
            self.model_type, self.base = moved[0], _strip(moved[1])
        # values the config's validator pins (Gemma 4 Assistant's text config): held there
        self.base, self.pins = prepare.pinned(configuration_auto.CONFIG_MAPPING[self.model_type],
                                              self.base, {} if moved else dict(config or {}))
        self._ids: dict[str, Any] = {}  # the config's token ids (prepare.in_vocabulary)
        with contextlib.suppress(Exception):  # a config refusing its base: derive says so
            ids = configuration_auto.CONFIG_MAPPING[self.model_type](**self.base).to_dict()
            self._ids = {k: v for k, v in ids.items() if k.endswith("token_id")}
        if self.cls_kwargs:  # (after sub_config, which reads the class itself)
            import functools

            self._cls = functools.partial(self._cls, **self.cls_kwargs)
            self.cls_name += f"({', '.join(f'{k}={v}' for k, v in self.cls_kwargs.items())})"

    def text_source(self) -> Source | None:
        """The text sub-config's causal-LM class (:func:`prepare.text_class`), or None."""
        found = None if self.builder is not None else \
            prepare.text_class(self.model_type, self.base)
        return None if found is None else Source(model_type=found[0], config=found[1],
                                                 cls=found[2], max_weights=self.max_weights)

    # --- the config -------------------------------------------------------------------------
    def config(self, overrides: Mapping[str, Any]):
        kwargs = {**self.base, **overrides}
        if self.builder is None and overrides:
            kwargs = layers.follow_sums(kwargs, self._raw, self.sums)  # (see sums)
            kwargs = {**layers.pinned(self.lists, self.base, self._raw, overrides), **kwargs}
        if self.equal and overrides and self.lists is not None:  # (self.lists reads _raw)
            kwargs = layers.follow_sums(kwargs, self._raw, tuple(  # equal fields follow,
                (f, (leader,)) for f, leader in self.equal))  # a sum of one part
        if set(layers.names(self.lists)) & kwargs.keys():  # layer counts: their lists written
            kwargs = layers.write(kwargs, self.lists, self._raw)
        if self.builder is not None:
            return {**self._defaults, **kwargs}
        from transformers import AutoConfig

        cfg = AutoConfig.for_model(self.model_type, **prepare.in_vocabulary(kwargs, self._ids))
        layers.check(cfg, kwargs, self.lists)
        return cfg

    @property
    def sums(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Layer counts the config insists are the sum of others (Dory's num_hidden_layers, its
        input, recurrent and output layers): a total the base's values of two or more other
        layer counts sum to, where the config refuses a part one more alone and takes it with
        the total one more. Such a total follows its parts (:meth:`config`), the parts being
        the hyperparameters."""
        if self._sums is None:
            self._sums = ()
            _ = self.lists  # the base's values (self._raw)
            raw = self._raw
            found = []
            for total, parts in layers.sum_candidates(raw):
                subsets = [parts]
                part = subsets[0][0]
                given = {f: raw[f] for f in (total, *subsets[0])}  # as derive gives them
                try:
                    self._meta(self.config({**given, part: raw[part] + 1}))
                    continue  # taken alone: no sum the config insists on
                except Exception:  # the refusal a sum explains, if the total one more is taken
                    pass
                try:
                    self._sums = ((total, subsets[0]),)
                    self._meta(self.config({**given, part: raw[part] + 1}))
                    found.append((total, subsets[0]))
                except Exception:
                    pass
                finally:
                    self._sums = ()
            self._sums = tuple(found)
        return self._sums

    def _meta(self, cfg):
        """Build the class at ``cfg`` on the meta device (no repairs): a refusal raises."""
        import torch

        from reference_models.hf import legacy_constructors_on_default_device

        with torch.device("meta"), legacy_constructors_on_default_device(), quiet_init.skipped():
            return self.builder(cfg) if self.builder is not None else self._cls(cfg)

    @property
    def lists(self) -> tuple[layers.Spec, ...]:
        """The base config's per-layer lists, whose counts are hyperparameters
        (:mod:`paramcount.analyze.derive.layers`)."""
        if self._lists is None:
            self._lists = ()
            try:
                cfg = self.config({})
                self._raw = dict(cfg) if isinstance(cfg, dict) else cfg.to_dict()
            except Exception:  # a config refusing its base: derive says so
                self._raw = {}
            found, ok = layers.find(self._raw), []
            for spec in found:  # one the config takes as given, at the base's counts and one
                self._lists = (spec,)  # layer more (not GPT-Neo's attention_layers, which its
                with contextlib.suppress(Exception):  # attention_types rewrite)
                    at = layers.read(self._raw, [spec])
                    self.config(at)
                    self.config({**at, spec.length: self._raw[spec.length] + 1})
                    ok.append(spec)
            self._lists = tuple(ok)  # (a build reading the stack's last layers: a tail)
            self._lists = tuple(layers.with_tail(s, self._raw, lambda o: [
                (n, t.shape) for n, t in self._meta(self.config(o)).state_dict().items()])
                for s in ok)
        return self._lists

    def values(self, cfg) -> dict[str, Any]:
        """The config's field values (a transformers config's own, after its defaults and the
        repairs its build needs), with the counts of its per-layer lists."""
        raw = dict(cfg) if isinstance(cfg, dict) else prepare.apply(cfg, self.fixes).to_dict()
        return {**raw, **layers.read(raw, self.lists)}

    def init_fields(self) -> set[str] | None:
        """Fields the config class takes as arguments (None: any)."""
        if self.builder is not None:
            return None
        import inspect

        from transformers.models.auto import configuration_auto

        # the class itself, not an instance at its defaults (which its validator may refuse)
        cfg_cls = configuration_auto.CONFIG_MAPPING[self.model_type]
        return {p for p in inspect.signature(cfg_cls.__init__).parameters if p != "self"}

    # --- the model ----------------------------------------------------------------------------
    def build(self, overrides: Mapping[str, Any]) -> Built:
        """The model at the base config with ``overrides`` as templates (:meth:`observe`), within
        the build limit."""
        built = self.observe(overrides)
        n = sum(o.count for o in built.values())
        if self.max_weights and n > self.max_weights:
            from paramcount.analyze import budget

            raise DeriveError(
                f"{self.cls_name}: a build at this config creates {n:,} weights (limit "
                f"{self.max_weights:,}); raise the limit with --max-build {n} or "
                f"{budget.LIMIT_ENV}={n} (0: no limit)")
        return built

    def observe(self, overrides: Mapping[str, Any]) -> Built:
        """The model at the base config with ``overrides``, on the meta device, as templates
        (remembered by :func:`_key`: a config built before is not built again)."""
        cfg = self.config(overrides)
        key = _key(cfg, self.fixes, self.split) if self._settled or self.builder else None
        if key is not None and key in self._built:
            return dict(self._built[key])
        built = observe(self.model(cfg), self.split)
        if key is not None and len(self._built) < 4096:  # (a derivation makes hundreds)
            self._built[key] = dict(built)
        return built

    def model(self, cfg):
        import torch

        from reference_models.hf import legacy_constructors_on_default_device

        def make(cfg):
            was = gc.isenabled()
            gc.disable()
            try:
                with torch.device("meta"), legacy_constructors_on_default_device(), \
                        quiet_init.skipped():
                    return self.builder(cfg) if self.builder is not None else self._cls(cfg)
            except ImportError as exc:  # a builder's own (Keras in a torch worker) passes
                if self.builder is not None:
                    BuildsKeras.check(exc)
                    raise
                raise NeedsLibrary(f"{self.cls_name} needs a library that is not installed: "
                                   f"{' '.join(str(exc).split())[:160]}") from None
            finally:
                if was:
                    gc.enable()

        if self.builder is not None or self._settled:
            model = make(prepare.apply(cfg, self.fixes) if self.fixes else cfg)
        else:  # the first build: the repairs it needs, if it fails without them
            self._settled = True
            model = prepare.settle(self, cfg, make, NeedsLibrary)
        if not isinstance(model, torch.nn.Module):
            raise DeriveError(f"the builder returned {type(model).__name__}, not a torch "
                              "nn.Module")
        return model


def _key(cfg, fixes: Mapping[str, Any], split: set[str]) -> str:
    """A build's identity: its config's values, the repairs and the layer-kind split."""
    raw = dict(cfg) if isinstance(cfg, dict) else cfg.to_dict()
    return json.dumps([raw, sorted(fixes.items()), sorted(split)], sort_keys=True, default=repr)


def _strip(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` without the keys that are no config field (``model_type``, ``dtype``)."""
    for k in ("model_type", "architectures", "transformers_version", "_name_or_path",
              "auto_map", "torch_dtype", "dtype", "quantization_config"):
        values.pop(k, None)
    return values


def _quiet(transformers) -> None:
    transformers.logging.set_verbosity_error()
    import warnings

    warnings.filterwarnings("ignore", module="transformers")


def versions() -> dict[str, str]:
    """The libraries a derivation's builds hold for."""
    from paramcount.runtime import isolate

    if isolate.side() == "keras":  # a Keras builder's derivation: torch is never imported here
        import keras

        return {"keras": keras.__version__}
    out = {}
    for lib in ("torch", "transformers"):
        with contextlib.suppress(ImportError):  # derive needs both; a builder, torch alone
            out[lib] = __import__(lib).__version__
    return out
