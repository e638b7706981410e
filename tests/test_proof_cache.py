"""Proof outcomes cached on disk (paramcount.runtime.cache.cached_proof): keyed by everything that could
change them, so an unchanged architecture is not re-proven and a changed one always is."""

from __future__ import annotations

import dataclasses
import sys

import pytest

from paramcount.core.formula import leaf
from paramcount.core.symbols import d_e
from paramcount.model import registry
from paramcount.runtime import cache


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    return tmp_path


class FakeProof:
    """Stands for an ArchProof (the cache only reads ``status`` and stores what ``encode``
    makes of it)."""

    def __init__(self, arch_id: str, status: str = "proven") -> None:
        self.arch, self.status = arch_id, status

    def __eq__(self, other) -> bool:
        return vars(self) == vars(other)


def cached_proof(arch, prover):
    return cache.cached_proof(arch, prover, vars, lambda d: FakeProof(d["arch"], d["status"]))


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
    assert cached_proof(gpt2, prover) == FakeProof("gpt2")
    assert cached_proof(gpt2, prover) == FakeProof("gpt2")
    assert calls == ["gpt2"]  # the second came from the cache
    cached_proof(broken(gpt2), prover)  # a changed formula misses the cache
    assert calls == ["gpt2", "gpt2"]
    assert list((cache_dir / cache.PROOF_KIND).glob("*.json"))


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

    cached_proof(gpt2, failing)
    cached_proof(gpt2, failing)
    assert len(calls) == 2
    monkeypatch.setenv(cache.CACHE_ENV, "0")
    prover = counting_prover(calls)
    cached_proof(gpt2, prover)
    cached_proof(gpt2, prover)
    assert len(calls) == 4 and not (cache_dir / cache.PROOF_KIND).exists()


def test_a_damaged_entry_is_a_miss(cache_dir):
    gpt2, calls = registry.get("gpt2"), []
    prover = counting_prover(calls)
    cached_proof(gpt2, prover)
    (entry,) = (cache_dir / cache.PROOF_KIND).glob("*.json")
    entry.write_bytes(b"garbage")
    assert cached_proof(gpt2, prover) == FakeProof("gpt2") and len(calls) == 2


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

    from paramcount.analyze.prove.transformers import proof_arch
    from paramcount.analyze.verify import transformers_missing

    if transformers_missing():
        pytest.skip("the transformers extra is not installed")
    arch = proof_arch(registry.get("gpt2"))
    names = [n for n, _ in cache.builder_sources(arch.reference)]
    assert names[0] == "weights('gpt2',)" and "reference_models.hf/hf.py" in names
    assert {"torch", "transformers"} <= set(cache.library_versions())
    code = ("import sys\nfrom paramcount.model import registry; from paramcount.runtime import cache\n"
            "from paramcount.analyze.prove.transformers import proof_arch\n"
            "print(cache.proof_key(proof_arch(registry.get('gpt2'))), 'torch' in sys.modules)")
    keys = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.strip() for _ in range(2)}
    assert keys == {f"{cache.proof_key(arch)} False"}


def test_cost_measurement_keys_the_cost_proofs_only():
    """A cost proof's reference (``reference_models.hf_costs:cost_weights``) holds the measurement
    and the build it measures (hf_costs.py, hf.py); a parameter proof against transformers holds
    the build only, so a change to how a cost is measured re-proves no parameter count."""
    from paramcount.analyze import costs
    from paramcount.analyze.prove.transformers import proof_arch
    from paramcount.analyze.verify import transformers_missing

    if transformers_missing():
        pytest.skip("the transformers extra is not installed")
    params = [n for n, _ in cache.builder_sources(proof_arch(registry.get("gpt2")).reference)]
    flops = [n for n, _ in cache.builder_sources(
        costs.quantity_arch(registry.get("gpt2"), "flops").reference)]
    assert "reference_models.hf/hf.py" in params and not any("hf_costs" in n for n in params)
    assert {"reference_models.hf_costs/hf_costs.py", "reference_models.hf/hf.py"} <= set(flops)


def test_what_a_forward_costs_keys_the_cost_proofs_only():
    """Declaring a quantity not formulated (or dropping it, as formulating a family does) and a
    leaf's cost change no weight: the parameter proof keeps its key, so formulating a family's
    memory and compute re-proves no parameter count; a cost proof's key follows them."""
    import dataclasses

    from paramcount.analyze import costs
    from paramcount.analyze.verify import transformers_missing

    if transformers_missing():
        pytest.skip("the transformers extra is not installed")
    arch = registry.get("gpt2")
    undeclared = dataclasses.replace(arch, transformers=dataclasses.replace(
        arch.transformers, not_formulated={"kv": "not yet"}, cost_config={"x": 1}))
    assert cache.proof_key(undeclared) == cache.proof_key(arch)
    assert cache.declared(undeclared.transformers, False) == cache.declared(arch.transformers, False)
    assert cache.declared(undeclared.transformers) != cache.declared(arch.transformers)
    flops = costs.quantity_arch(arch, "flops")
    moved = dataclasses.replace(flops, transformers=dataclasses.replace(
        flops.transformers, cost_config={"x": 1}))
    assert cache.proof_key(moved) != cache.proof_key(flops)


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


# --- issue 22 §1: data, not code; checked on read; written as the report is ---------------------
def _a_proof():
    from fractions import Fraction

    from paramcount.analyze.prove.results import ArchProof, CaseProof, Residual
    from paramcount.core.symbols import L, M, d_e

    case = CaseProof("gpt2", "M | d_e", "refuted", ("L", "d_e"), ("d_e = M·d_k",), {"L": 1, "d_e": 2},
                     {"L": (1, 2)}, {"d_e": (8, 4096)}, 3, 2.5e-07, 12, 1.25,
                     (Residual("blocks.norm_2", L * d_e + Fraction(1, 2) * d_e ** 2 / M),
                      Residual("(unclaimed)", None, ("a/b/gamma",), "degree 3")), "a message")
    return ArchProof("gpt2", (case, dataclasses.replace(case, case="else", status="proven",
                                                         residuals=())))


def test_proofs_are_stored_as_json_and_read_back_whole(cache_dir):
    from paramcount.analyze.prove import stored

    proof = _a_proof()
    assert stored.decode(stored.encode(proof)) == proof  # residuals exact, as SymPy expressions
    gpt2, calls = registry.get("gpt2"), []

    def prover(arch):
        calls.append(arch.id)
        return proof

    assert cache.cached_proof(gpt2, prover, stored.encode, stored.decode) == proof
    assert cache.cached_proof(gpt2, prover, stored.encode, stored.decode) == proof
    assert calls == ["gpt2"]
    (entry,) = (cache_dir / cache.PROOF_KIND).iterdir()
    assert entry.suffix == ".json" and b"pickle" not in entry.read_bytes()


class _Exit:
    def __reduce__(self):
        return (SystemExit, (3,))


def test_a_hostile_proof_entry_is_a_miss_and_decides_nothing(cache_dir):
    """A pickle that raises SystemExit when loaded (or anything else put where an entry goes)
    is never run: the proof is made anew."""
    import pickle

    gpt2, calls = registry.get("gpt2"), []
    digest = cache.proof_key(gpt2)
    (cache_dir / cache.PROOF_KIND).mkdir(parents=True)
    for suffix in (".pickle", ".json", ""):
        (cache_dir / cache.PROOF_KIND / f"{digest}{suffix}").write_bytes(pickle.dumps(_Exit()))
    assert cached_proof(gpt2, counting_prover(calls)) == FakeProof("gpt2") and calls == ["gpt2"]


def test_an_entry_is_checked_against_its_digest(cache_dir):
    path = cache.put_json("k", "d", {"total": 46702792704})
    assert cache.get_json("k", "d") == {"total": 46702792704}
    path.write_bytes(path.read_bytes().replace(b"46702792704", b"61702792704"))
    assert cache.get_json("k", "d") is None
    # an entry copied under another name is not that name's entry
    path.rename(path.with_name("e.json"))
    cache.put_json("k", "d", {"total": 1})
    path.with_name("d.json").replace(path.with_name("e.json"))
    assert cache.get_json("k", "e") is None


def test_entries_are_synced_and_stale_temporaries_removed(cache_dir, monkeypatch):
    import os
    import time

    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    cache.put("k", "a", b"x")
    assert synced  # the entry's data reached the disk before the rename
    folder = cache_dir / "k"
    stale, fresh = folder / ".tmp-stale", folder / ".tmp-fresh"
    for p in (stale, fresh):
        p.write_bytes(b"half an entry")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    cache.put("k", "b", b"y")
    assert not stale.exists() and fresh.exists()  # a live writer's temporary file is left alone


def test_a_terms_memo_is_not_declared_data():
    """A proof key holds the declared tables, Terms among them (a transformers delta); a Term's
    memo of its sums fills as it is evaluated, so a key taken after a count differed from one taken
    before (t5gemma2's, after `count --config`). The memo is not part of the declaration."""
    from paramcount.model.components import dense
    from paramcount.runtime.cache import declared

    term = dense("up", 4, 6, bias=True)
    group = term.__class__("g", children=(term,))
    before = declared(group)
    group.total()  # fills the memo
    assert declared(group) == before and "_memo" not in before


def test_proof_keys_do_not_hold_a_wheels_local_label_or_pythons_patch(monkeypatch):
    """The committed record was keyed with this machine's torch 2.13.0+cpu; a fresh machine
    installs PyPI's 2.13.0 (and may run another 3.11.x), builds the same shapes, and found every
    recorded proof stale. Keys hold the release without its local label, and Python's major.minor."""
    import importlib.metadata as md
    import platform

    from paramcount.runtime import cache

    real = md.version
    for label in ("", "+cpu", "+cu130"):
        monkeypatch.setattr(md, "version", lambda lib, lab=label: real(lib) + lab)
        monkeypatch.setattr(platform, "python_version_tuple", lambda: ("3", "11", "9"))
        cache.library_versions.cache_clear()
        try:
            got = cache.library_versions()
        finally:
            cache.library_versions.cache_clear()
        assert "+" not in "".join(got.values()) and got["python"] == "3.11"
