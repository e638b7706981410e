"""KerasHub's generation cache (issue 31: "where KerasHub builds a cache, check that too"): what
each KerasHub causal LM allocates in ``_build_cache`` for B prompts of T tokens
(``reference_models.keras_cache``, read allocation-free) equals the KV-cache tree, with no window
(KerasHub masks a window and caches every position), or the difference its family declares
(``families/<family>/caches.py``), at an example set and three contexts, and at a preset past
its window. A declared difference that is not one fails (a stale declaration)."""

from __future__ import annotations

import pytest

from paramcount.analyze import costs, keras_cache
from paramcount.model import registry
from paramcount.model.cost import NO_WINDOW
from paramcount.model.keras_cache import declared


def _keras_backbones() -> list[str]:
    """The architectures whose table names a KerasHub class of their own (read without Keras:
    which of them KerasHub has a causal LM over is asked in the test)."""
    return [aid for aid, arch in sorted(registry.architectures().items())
            if arch.mapping is not None and aid in arch.mapping.keras_classes.values()]


BACKBONES = _keras_backbones()


def _causal_lm(arch_id: str) -> None:
    """Skip where KerasHub has no causal LM over ``arch_id``'s backbone (an encoder's)."""
    from reference_models.keras_cache import causal_lm_class

    if causal_lm_class(arch_id) is None:
        pytest.skip("KerasHub has no causal LM over this backbone")


def _contexts(hp) -> tuple[int, ...]:
    return tuple(t for t in (5, 11, 37) if t <= hp.get("n", t))


def _unformulated(arch) -> str | None:
    return costs.formulated(arch, "kv")


def test_kerashub_causal_lms_are_found():
    """The causal LMs KerasHub has over a covered backbone: Llama's lineage, Gemma's, GPT-2's..."""
    from reference_models.keras_cache import causal_lm_class

    found = {aid for aid in BACKBONES if causal_lm_class(aid) is not None}
    assert {"gpt2", "llama3", "mistral", "gemma3", "pali_gemma", "qwen3_5"} <= found
    assert "bert" not in found  # an encoder: KerasHub has no causal LM over it
    embedding = registry.get("gemma3_embedding")  # Gemma3Backbone(is_embedding_model=True)
    hp = embedding.resolve(dict(next(iter(embedding.examples.values()))))
    assert keras_cache.measured("gemma3_embedding", hp, 5, 2) is None


@pytest.mark.parametrize("arch_id", BACKBONES)
def test_kerashub_cache_is_the_kv_tree_or_a_named_difference(arch_id):
    _causal_lm(arch_id)
    arch = registry.get(arch_id)
    why = _unformulated(arch)
    if why:
        pytest.skip(f"its KV cache is not formulated: {why}")
    name, given = next(iter(arch.examples.items()))
    hp = arch.resolve(dict(given))
    if keras_cache.measured(arch_id, hp, 5, 2) is None:
        pytest.skip("its backbone is built as no KerasHub causal LM takes it (an embedding model)")
    for t in _contexts(hp):
        want, _ = keras_cache.expected(arch, hp, t, 2)
        assert keras_cache.measured(arch_id, hp, t, 2) == want, (name, t)


@pytest.mark.parametrize("arch_id", BACKBONES)
def test_kerashub_cache_at_a_preset_past_its_window(arch_id):
    """At the first preset, allocation-free at any size: past the class's window (T = w + 1),
    where the window binds, which the difference then names; else at T = 4,096."""
    from paramcount.model import frameworks

    _causal_lm(arch_id)
    arch = registry.get(arch_id)
    presets = list(arch.presets_table().values())
    if _unformulated(arch) or not presets:
        pytest.skip("its KV cache is not formulated, or it has no preset")
    hp = arch.resolve(dict(presets[0].hparams))
    w = frameworks.cost_values(arch, hp).get("w", NO_WINDOW)
    t = min(w + 1 if w < NO_WINDOW else 4096, hp.get("n", 4096))
    want, why = keras_cache.expected(arch, hp, t, 2)
    got = keras_cache.measured(arch_id, hp, t, 2)
    if got is None:
        pytest.skip("its backbone is built as no KerasHub causal LM takes it (an embedding model)")
    assert got == want
    if w < t:
        assert why in (keras_cache.WINDOW, getattr(declared(arch_id), "why", None))


@pytest.mark.parametrize("arch_id", [a for a in BACKBONES if declared(a) is not None])
def test_a_declared_difference_is_one(arch_id):
    """Without its family's declaration, the tree (no window) misses KerasHub's cache: the
    declaration is needed, and says why."""
    arch = registry.get(arch_id)
    hp = arch.resolve(dict(next(iter(arch.examples.values()))))
    t = _contexts(hp)[-1]
    tree, _ = costs.tree(arch, "kv", hp)
    plain = tree.evaluate(arch.values({**hp, "T": t, "B": 2, "w": NO_WINDOW}))
    assert keras_cache.measured(arch_id, hp, t, 2) != plain
    assert declared(arch_id).why
