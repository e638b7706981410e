"""The compiled count (paramcount.analyze.counting.compiled): the same numbers, text and errors as the SymPy path,
and no SymPy import when it answers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.analyze import counting
from paramcount.analyze.counting import compiled
from paramcount.core import symbols
from paramcount.core.errors import ParamcountError
from paramcount.core.restrictions import broken_notes
from paramcount.model import registry
from paramcount.runtime import cache

ROOT = Path(__file__).resolve().parents[1]


def _namespace(arch) -> dict:
    import json

    return json.loads(json.dumps(compiled.generate(arch)))  # as stored


_NS: dict[str, dict] = {}


def namespace(arch_id: str) -> dict:
    if arch_id not in _NS:
        _NS[arch_id] = _namespace(registry.get(arch_id))
    return _NS[arch_id]


ARCH_IDS = sorted(registry.architectures())


def test_a_set_breaking_a_note_defers_to_sympys_path():
    """A set that breaks a note (what a forward needs, no build: Cohere's even rotary width) is
    counted, with the note printed beside it, by SymPy's path: the compiled one defers there
    (no example set breaks a note today, so the every-set test below does not reach this)."""
    arch = registry.get("cohere")
    hp = {**arch.examples["tiny"], "d_e": 36}  # 36 heads' width 9: odd
    assert broken_notes(arch.notes, arch.values(arch.resolve(hp)))
    with pytest.raises(compiled.Defer):
        compiled.resolve(namespace("cohere"), hp)
    assert compiled.resolve(namespace("cohere"), arch.examples["tiny"]) == arch.resolve(
        arch.examples["tiny"])


@pytest.mark.parametrize("arch_id", ARCH_IDS)
def test_every_preset_and_example_set(arch_id):
    arch, ns = registry.get(arch_id), namespace(arch_id)
    for hs in arch.hparam_sets():
        hp = hs.hparams
        if broken_notes(arch.notes, arch.values(hp)):  # a set a note is printed beside: SymPy's
            with pytest.raises(compiled.Defer):        # path says it (XLNet's odd width)
                compiled.resolve(ns, hs.preset.hparams)
            continue
        assert compiled.resolve(ns, hs.preset.hparams) == hp
        assert list(compiled.resolve(ns, hs.preset.hparams)) == list(hp)  # the same order
        assert compiled.evaluate(ns, hp, hs.name) == counting.counted(arch, hp, hs.name), hs.name


@st.composite
def hparam_sets(draw):
    arch = registry.get(draw(st.sampled_from(ARCH_IDS)))
    given = {}
    for sym in arch.settable:
        if sym in arch.optional and draw(st.booleans()):
            continue  # leave some defaults to the architecture
        flag = symbols.info(sym).flag
        # Small values, so that divisibility constraints hold often enough to reach the counts.
        given[sym.name] = draw(st.integers(0, 1) if flag else st.sampled_from([1, 2, 3, 4, 6, 8, 12,
                                                                              16, 24, 64, 96]))
    return arch, given


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hparam_sets())
def test_random_sets(case):
    """Where SymPy's path refuses a set (or notes it), the compiled one defers; elsewhere they agree."""
    arch, given_ = case
    ns = namespace(arch.id)
    try:
        hp = arch.resolve(given_)
    except ParamcountError:
        with pytest.raises(compiled.Defer):
            compiled.resolve(ns, given_)
        return
    if broken_notes(arch.notes, arch.values(hp)):  # a note beside the count: the full path's
        with pytest.raises(compiled.Defer):
            compiled.resolve(ns, given_)
        return
    assert compiled.resolve(ns, given_) == hp
    try:
        expected = counting.counted(arch, hp, "custom")
    except ValueError:  # a count that is not a whole number: SymPy's error, the compiled defer
        with pytest.raises(compiled.Defer):
            compiled.evaluate(ns, hp, "custom")
        return
    assert compiled.evaluate(ns, hp, "custom") == expected


def test_a_changed_formula_compiles_to_another_tree():
    from paramcount.core.formula import leaf

    arch = registry.get("gpt2")
    src = compiled.generate(arch)
    broken = arch.formula.replace("embeddings.position", leaf("position", symbols.n))
    import dataclasses

    other = compiled.generate(dataclasses.replace(arch, formula=broken))
    assert src["tree"] and src["tree"] != other["tree"]


def test_the_cache_key_follows_the_sources(monkeypatch):
    before = compiled._digest("gpt2")
    monkeypatch.setattr(cache, "_FINGERPRINT", "edited")
    assert compiled._digest("gpt2") != before


# --- through the command -------------------------------------------------------------------------
def _run(args, cache_dir, *, extra_env=None, python_args=()):
    env = {**os.environ, "PARAMCOUNT_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT),
           **(extra_env or {})}
    env.pop("PARAMCOUNT_CACHE", None)
    return subprocess.run([sys.executable, *python_args, "-m", "paramcount", *args],
                          capture_output=True, text=True, env=env)


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A cache holding gpt2 and mixtral, written by the commands themselves."""
    d = tmp_path_factory.mktemp("cache")
    for args in (["count", "gpt2", "--preset", "gpt2_base_en"],
                 ["count", "mixtral", "--preset", "mixtral_8_7b_en", "--json"]):
        assert _run(args, d).returncode == 0
    assert len(list((d / compiled.KIND).glob("*.json"))) == 2
    return d


@pytest.mark.parametrize("args", [
    ["count", "gpt2", "--preset", "gpt2_base_en"],
    ["count", "gpt2", "--preset", "gpt2_base_en", "--set", "L=48", "--json"],
    ["count", "gpt2", "--set", "v=100", "n=64", "d_e=64", "M=4", "d_f=256", "L=2"],
    ["count", "mixtral", "--preset", "mixtral_8_7b_en", "--json"],
])
def test_count_answers_without_sympy(warm, args, capsys):
    fast = _run(args, warm, python_args=["-X", "importtime"])
    assert fast.returncode == 0
    imported = {line.rsplit("|", 1)[-1].strip() for line in fast.stderr.splitlines()}
    assert "paramcount.analyze.counting.compiled" in imported and "sympy" not in imported
    assert not any(m.startswith(("paramcount.model.registry", "paramcount.core.formula")) for m in imported)
    assert _slow(args, capsys) == (0, fast.stdout, "")


def _slow(args, capsys) -> tuple[int, str, str]:
    """The SymPy path's exit status, stdout and stderr (paramcount.cli.main, in this process)."""
    from paramcount.cli.main import main

    capsys.readouterr()
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("args", [
    ["count", "gpt2", "--preset", "nope"],
    ["count", "gpt2", "--preset", "gpt2_base_en", "--set", "L=0"],
    ["count", "llama", "--preset", "llama2_7b_en", "--set", "d_e=4100"],
    ["count", "gpt2", "--preset", "gpt2_base_en", "--set", "zz=1"],
    ["count", "gpt2", "--preset", "gpt2_base_en", "--set", "d_k=3"],
    ["count", "gpt2", "--set", "L=2"],
    ["count", "gpt2", "--preset", "gpt2_base_en", "--set", "L=1.5"],
    ["count", "mixtral", "--preset", "mixtral_8_7b_en", "--set", "E=2", "K=4"],
    # the compiled path once stripped the name (and answered L=3); the full command line names
    # the unknown symbol ' L'. One parser of --set (paramcount.core.numcore) for both now.
    ["count", "gpt2", "--preset", "gpt2_base_en", "--set", " L=3"],
    ["count", "gpt2", "--preset", "gpt2_base_en", "--set", "L= 3"],
])
def test_bad_input_reads_the_same(warm, args, tmp_path):
    # Against a fresh process, not this one: an unknown symbol's message lists the symbols
    # declared so far, which depends on the modules a process has imported.
    fast = _run(args, warm)
    slow = _run(args, tmp_path / "none", extra_env={"PARAMCOUNT_CACHE": "0"})
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout,
                                                           slow.stderr)
    assert fast.returncode == 2 and len(fast.stderr.splitlines()) == 1 and fast.stdout == ""


def test_an_unwritable_cache_is_not_an_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    proc = _run(["count", "gpt2", "--preset", "gpt2_base_en"], blocker / "cache")
    assert proc.returncode == 0 and "124,439,808" in proc.stdout and not proc.stderr
