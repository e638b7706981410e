"""Derived formulas: any transformers model's exact parameter count, found from its own builds
on the meta device, then proven against them for all hyperparameters.

- :mod:`~paramcount.analyze.derive.probe` — the torch side: config, meta-device build, weights as
  templates with layer indices folded (``model.layers.*.self_attn.q_proj.weight``);
- :mod:`~paramcount.analyze.derive.core` — which fields change a shape, and each template's count and
  dimensions fitted exactly (:mod:`~paramcount.analyze.derive.fit`) and checked on every build;
- :mod:`~paramcount.analyze.derive.claims` — each order of the layer counts checked against builds
  breaking it: a constraint where they are refused, else the formula's domain or nothing;
- :mod:`~paramcount.analyze.derive.tree` — the derivation as a formula tree and an architecture
  (a field no variation of which built another model held at its value: any other refused);
- :mod:`~paramcount.analyze.derive.proof` — derived ≡ build, decided by ``prove``'s machinery;
- :mod:`~paramcount.analyze.derive.store` — derivations as JSON data, cached on disk.

Everything that imports torch does so inside functions; nothing here imports TensorFlow.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from paramcount.core.errors import ParamcountError

__all__ = ["derive_model", "require"]


def require() -> None:
    """A ParamcountError, one line, unless torch and transformers are importable."""
    from paramcount.runtime.extras import missing as absent

    missing = absent("transformers")  # (importlib's own find_spec raises where a finder does)
    if missing:
        raise ParamcountError(f"deriving a formula needs torch and transformers ({missing[0]} "
                              "is not installed): pip install 'paramcount[transformers]'")


def derive_model(*, model_type: str | None = None, config: Mapping[str, Any] | None = None,
                 cls: str | None = None, builder: Callable | None = None,
                 defaults: Mapping[str, Any] | None = None, use_cache: bool = True,
                 max_build: int | None = None, keras: bool = False, text_model: bool = True):
    """(source, derivation, whether it came from the cache) for a model type's defaults, a
    config's values, or a builder of your own at ``defaults`` (``keras``: it returns a Keras
    model; then this process must hold no torch). A build with more weights than
    ``max_build`` (:func:`paramcount.analyze.budget.limit`: the option, else ``$PARAMCOUNT_MAX_BUILD``,
    else its default; 0 no limit) is refused before any other is made. A class needing a library
    not installed is derived as its text sub-config's class where ``text_model`` (the sweep's
    stand-in), else refused (NeedsLibrary): a config naming the whole class asks for another
    model."""
    if not keras:
        require()
    from paramcount.analyze import budget
    from paramcount.analyze.derive import store
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import NeedsLibrary, Source

    kind: type[Source] = Source
    if keras:  # a builder of a Keras model: built in this process, which holds no torch
        from paramcount.analyze.derive.keras_source import KerasSource

        kind = KerasSource
    src = kind(model_type=model_type, config=config, cls=cls, builder=builder,
               defaults=defaults, max_weights=budget.limit(max_build))

    def made(src):
        if not use_cache:
            return src, derive(src), False
        d, hit = store.cached(src.model_type, src.cls_name, src.base, lambda: derive(src))
        return src, d, hit

    try:
        return made(src)
    except NeedsLibrary:  # a class needing a library not installed: its text sub-config's class
        text = src.text_source() if text_model else None  # (under the same build limit)
        if text is None:
            raise
        return made(text)
