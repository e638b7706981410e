"""Proof outcomes cached on disk (paramcount.cache.cached_proof): keyed by everything that could
change them, so an unchanged architecture is not re-proven and a changed one always is."""

from __future__ import annotations

import dataclasses
import sys

import pytest

from paramcount import cache, registry
from paramcount.formula import leaf
from paramcount.symbols import d_e


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    return tmp_path


class FakeProof:
    """Stands for an ArchProof (the cache only reads ``status`` and pickles it)."""

    def __init__(self, arch_id: str, status: str = "proven") -> None:
        self.arch, self.status = arch_id, status

    def __eq__(self, other) -> bool:
        return vars(self) == vars(other)


def counting_prover(calls: list):
    def prove(arch):
        calls.append(arch.id)
        return FakeProof(arch.id)
    return prove


def broken(arch):
    return dataclasses.replace(arch, formula=arch.formula.replace(
        "embeddings.position", leaf("position", 2 * d_e)))


def test_unchanged_is_not_reproven_changed_is(cache_dir):
    gpt2, calls = registry.get("gpt2"), []
    prover = counting_prover(calls)
    assert cache.cached_proof(gpt2, prover) == FakeProof("gpt2")
    assert cache.cached_proof(gpt2, prover) == FakeProof("gpt2")
    assert calls == ["gpt2"]  # the second came from the cache
    cache.cached_proof(broken(gpt2), prover)  # a changed formula misses the cache
    assert calls == ["gpt2", "gpt2"]
    assert list((cache_dir / cache.PROOF_KIND).glob("*.pickle"))


def test_keys_follow_formula_roles_and_builder(tmp_path, monkeypatch):
    gpt2 = registry.get("gpt2")
    k = cache.proof_key(gpt2)
    assert cache.proof_key(gpt2) == k
    assert cache.proof_key(broken(gpt2)) != k
    assert cache.proof_key(dataclasses.replace(gpt2, constraints=())) != k
    assert cache.proof_key(dataclasses.replace(gpt2, reference="reference_models.bert:backbone")) != k
    # An edit to the builder's module, or to a module of its package it imports, is a new key.
    pkg = tmp_path / "mybuilders"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "_helpers.py").write_text("WIDTH = 1\n")
    (pkg / "model.py").write_text("from mybuilders._helpers import WIDTH\n\ndef build(hp):\n"
                                  "    return WIDTH\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mine = dataclasses.replace(gpt2, reference="mybuilders.model:build")
    keys = [cache.proof_key(mine)]
    for path, text in ((pkg / "model.py", "from mybuilders._helpers import WIDTH\n\ndef build(hp):"
                                          "\n    return WIDTH + 0\n"),
                       (pkg / "_helpers.py", "WIDTH = 2\n")):
        path.write_text(text)
        cache._module_sources.cache_clear()
        keys.append(cache.proof_key(mine))
    assert len(set(keys)) == 3
    assert "mybuilders" not in sys.modules  # keys are computed without importing the builder


def test_errors_are_not_cached_and_the_cache_can_be_off(cache_dir, monkeypatch):
    gpt2, calls = registry.get("gpt2"), []

    def failing(arch):
        calls.append(arch.id)
        return FakeProof(arch.id, "error")

    cache.cached_proof(gpt2, failing)
    cache.cached_proof(gpt2, failing)
    assert len(calls) == 2
    monkeypatch.setenv(cache.CACHE_ENV, "0")
    prover = counting_prover(calls)
    cache.cached_proof(gpt2, prover)
    cache.cached_proof(gpt2, prover)
    assert len(calls) == 4 and not (cache_dir / cache.PROOF_KIND).exists()


def test_a_damaged_entry_is_a_miss(cache_dir):
    gpt2, calls = registry.get("gpt2"), []
    prover = counting_prover(calls)
    cache.cached_proof(gpt2, prover)
    (entry,) = (cache_dir / cache.PROOF_KIND).glob("*.pickle")
    entry.write_bytes(b"garbage")
    assert cache.cached_proof(gpt2, prover) == FakeProof("gpt2") and len(calls) == 2


def test_writes_are_atomic_and_an_unwritable_dir_is_no_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(blocker / "sub"))
    assert cache.put("k", "d", b"data") is None and cache.get("k", "d") is None
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path / "ok"))
    assert cache.put("k", "d", b"data") is not None and cache.get("k", "d") == b"data"
    assert [p.name for p in (tmp_path / "ok" / "k").iterdir()] == ["d"]  # no temporary left


def test_prune_keeps_the_newest(cache_dir):
    import os

    for i in range(5):
        path = cache.put("k", f"d{i}", b"x")
        os.utime(path, (i, i))
    cache.prune("k", 2)
    assert sorted(p.name for p in (cache_dir / "k").iterdir()) == ["d3", "d4"]


def test_transformers_proof_key_names_its_builder_and_libraries():
    """A transformers proof's reference is ``Named("reference_models.hf:weights", (id,))``: its
    key must hold reference_models/hf.py's source and torch's and transformers' versions, be the
    same in every process (it once held functools' source and a partial's memory address), and
    be computed without importing torch (the process may hold TensorFlow)."""
    import subprocess

    from paramcount.prove.transformers import proof_arch
    from paramcount.verify import transformers_missing

    if transformers_missing():
        pytest.skip("the transformers extra is not installed")
    arch = proof_arch(registry.get("gpt2"))
    names = [n for n, _ in cache.builder_sources(arch.reference)]
    assert names[0] == "weights('gpt2',)" and "reference_models.hf/hf.py" in names
    assert {"torch", "transformers"} <= set(cache.library_versions())
    code = ("import sys\nfrom paramcount import registry, cache\n"
            "from paramcount.prove.transformers import proof_arch\n"
            "print(cache.proof_key(proof_arch(registry.get('gpt2'))), 'torch' in sys.modules)")
    keys = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.strip() for _ in range(2)}
    assert keys == {f"{cache.proof_key(arch)} False"}


def test_key_follows_the_mapping_table_the_builder_reads():
    """A Keras builder takes its constructor arguments from the family's table (from_table), and
    the transformers reference its config: a changed table changes what is built, so it must
    change the proof key (including a function's captured values: Gemma 2's soft caps)."""
    arch = registry.get("gemma")
    table = arch.mapping
    base = cache.proof_key(arch)
    scaled = dataclasses.replace(table, fields=tuple(
        dataclasses.replace(f, keras_scale=1) if f.symbol == "d_f" else f for f in table.fields))
    assert cache.proof_key(dataclasses.replace(arch, mapping=scaled)) != base
    constants = dict(table.keras_constants)
    name = "final_logit_soft_cap"

    def caps(on, off):
        return lambda hp: on if hp["post_norm"] else off

    keys = {cache.proof_key(dataclasses.replace(arch, mapping=dataclasses.replace(
        table, keras_constants={**constants, name: caps(on, None)}))) for on in (31.0, 32.0)}
    assert len(keys) == 2 and base not in keys
    assert cache.proof_key(arch) == base  # and the same table, the same key
