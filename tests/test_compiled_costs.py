"""The compiled ``count --context`` (paramcount.analyze.counting.compiled_costs): the same text and
JSON as the full path's, byte for byte; a deferral wherever that path refuses or estimates; no
SymPy import when it answers; and an entry found only while the proof record it read is the
record."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from paramcount.analyze.counting import compiled_costs
from paramcount.analyze.prove import record
from paramcount.analyze.prove.results import ArchProof, CaseProof
from paramcount.cli import fast
from paramcount.cli.main import main
from paramcount.model import registry
from paramcount.runtime import cache

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A cache of its own, switched on (each case's architecture compiled into it by the case)."""
    mp = pytest.MonkeyPatch()
    d = tmp_path_factory.mktemp("cache")
    mp.setenv(cache.CACHE_DIR_ENV, str(d))
    mp.delenv(cache.CACHE_ENV, raising=False)
    mp.delenv("PARAMCOUNT_PLUGINS", raising=False)
    yield d
    mp.undo()


def _full(argv, capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, _ = capsys.readouterr()
    return code, out


def _both(argv, capsys) -> tuple[str, str | None]:
    """The full path's output (it must succeed) and the compiled path's after it compiled."""
    code, out = _full(argv, capsys)
    assert code == 0
    fast.remember(argv)
    return out, fast.try_count(argv)


CASES = [
    ["llama3", "--preset", "llama3_8b_en", "--context", "8192"],
    ["llama3", "--preset", "llama3_8b_en", "--context", "8192", "--batch", "4", "--dtype", "fp32",
     "--json"],
    ["llama3", "--preset", "llama3.2_1b", "--context", "1", "--dtype", "int8"],
    ["llama3", "--preset", "tiny_gqa", "--set", "L=3", "--context", "77", "--batch", "5"],
    ["llama3", "--set", "v=100", "d_e=64", "M=4", "M_kv=2", "d_f=96", "L=2", "--context", "9",
     "--json"],
    # a window of 4096 (the class's default) and one past it; no window (the preset's null)
    ["mistral", "--preset", "mistral_7b_en", "--context", "4000"],
    ["mistral", "--preset", "mistral_7b_en", "--context", "5000", "--batch", "2", "--json"],
    ["mistral", "--preset", "mistral_0.3_7b_en", "--context", "5000", "--batch", "2"],
    ["mistral", "--preset", "mistral_0.3_7b_en", "--context", "5000", "--json", "--dtype", "fp16"],
    ["gpt2_causal_lm", "--preset", "gpt2_base_en", "--context", "1024"],
    ["gpt2_causal_lm", "--preset", "gpt2_medium_en", "--context", "512", "--batch", "8", "--json"],
    # windows of 512 and 1024 from the presets, T past them
    ["gemma3", "--preset", "gemma3_1b", "--context", "600", "--json"],
    ["gemma3", "--preset", "gemma3_4b_text", "--context", "3000", "--batch", "2"],
    ["gemma3", "--preset", "tiny", "--context", "40"],
    # two transformers classes (Gemma and Gemma 2), picked by the hyperparameters
    ["gemma", "--preset", "gemma_2b_en", "--context", "100"],
    ["gemma", "--preset", "gemma2_2b_en", "--context", "5000", "--json"],
    # costs not formulated: both, or one of the two
    ["t5", "--preset", "t5_small_multi", "--context", "64"],
    ["t5", "--preset", "t5_small_multi", "--context", "64", "--json"],
    ["f_net", "--preset", "f_net_base_en", "--context", "128", "--json"],
    ["xlnet", "--preset", "xlnet_base_cased", "--context", "128"],
    ["nanogpt", "--preset", "nanogpt_gpt2", "--context", "16", "--json"],
]


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a))
def test_the_compiled_costs_read_as_the_full_path(warm, capsys, args):
    slow, quick = _both(["count", *args], capsys)
    assert quick is not None, "the compiled path deferred"
    assert quick == slow


@pytest.mark.parametrize("args", [
    ["gpt2_causal_lm", "--preset", "gpt2_base_en", "--context", "5000"],  # T > n = 1024
    ["llama3", "--preset", "llama3_8b_en", "--context", "64", "--dtype", "int4"],  # an estimate
    ["llama3", "--preset", "llama3_8b_en", "--context", "64", "--dtype", "nf4"],
    ["llama3", "--preset", "llama3_8b_en", "--context", "64", "--dtype", "fp7"],  # unknown
    ["llama3", "--preset", "llama3_8b_en", "--batch", "2"],  # without --context: a usage error
    ["llama3", "--preset", "nope", "--context", "64"],
])
def test_what_the_full_path_refuses_or_estimates_defers(warm, capsys, args):
    fast.remember(["count", "llama3", "--preset", "llama3_8b_en", "--context", "8"])
    fast.remember(["count", "gpt2_causal_lm", "--preset", "gpt2_base_en", "--context", "8"])
    assert compiled_costs.load_costs("gpt2_causal_lm") is not None
    assert compiled_costs.load_costs("llama3") is not None
    assert fast.try_count(["count", *args]) is None


def test_the_record_is_the_projects():
    assert compiled_costs.RECORD == record.PROJECT_RECORD


def _record(path: Path, kv: str, flops: str) -> Path:
    entries = {}
    for q, status in (("kv", kv), ("flops", flops)):
        case = CaseProof("llama3", "(no options)", status, ("L",), (), {}, {}, {}, 2, 0.0, 1, 0.0,
                         (), "at L=2: blocks +1" if status == "refuted" else "")
        entries[q] = {"llama3": record._entry(ArchProof("llama3", (case,)),
                                              record.key("llama3", q))}
    path.write_text(record.dumps({}, {}, entries), encoding="utf-8")
    return path


def test_a_recorded_outcome_reads_as_the_full_path_and_a_changed_record_is_a_miss(
        warm, capsys, tmp_path, monkeypatch):
    path = _record(tmp_path / "proofs.json", "refuted", "proven")
    monkeypatch.setattr(record, "PROJECT_RECORD", path)
    monkeypatch.setattr(compiled_costs, "RECORD", path)
    for args in (["--context", "300"], ["--context", "300", "--json"]):
        argv = ["count", "llama3", "--preset", "llama3_8b_en", *args]
        slow, quick = _both(argv, capsys)
        assert "refuted" in slow and ('"proven"' in slow or "proven for all" in slow)
        assert quick == slow
    assert compiled_costs.load_costs("llama3") is not None
    data = bytearray(path.read_bytes())
    i = data.index(b"refuted")
    data[i:i + 7] = b"REFUTED"  # the same size, another content
    path.write_bytes(bytes(data))
    assert compiled_costs.load_costs("llama3") is None
    path.unlink()  # no record at all: another entry again
    assert compiled_costs.load_costs("llama3") is None


def test_compiled_costs_answer_without_sympy(warm):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = ["count", "mistral", "--preset", "mistral_7b_en", "--context", "8192", "--json"]
    first = subprocess.run([sys.executable, "-m", "paramcount", *argv], capture_output=True,
                           text=True, env=env)
    assert first.returncode == 0
    again = subprocess.run([sys.executable, "-X", "importtime", "-m", "paramcount", *argv],
                           capture_output=True, text=True, env=env)
    assert again.returncode == 0 and again.stdout == first.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in again.stderr.splitlines()}
    assert "paramcount.analyze.counting.compiled_costs" in imported and "sympy" not in imported


def test_min_is_stored_exactly():
    import sympy

    from paramcount.core import exprdata
    from paramcount.core.symbols import T, w

    expr = 2 * sympy.Min(T, w - 1)
    data = exprdata.encode(expr)
    assert exprdata.value(data, {"T": 5, "w": 4}) == 6
    assert exprdata.value(data, {"T": 2, "w": 2**62}) == 4
    assert exprdata.decode(data) == expr


KERAS_BUILT = sorted(a for a in registry.architectures() if "keras" in registry.get(a).checked_by)
FEW = ("gemma3", "gpt2_causal_lm", "llama3", "mistral", "mixtral")  # the default run's; --runslow all


@pytest.mark.parametrize("arch_id", [pytest.param(a, marks=() if a in FEW else (pytest.mark.slow,))
                                     for a in KERAS_BUILT])
def test_every_preset_and_example_set(arch_id):
    """Each set's costs at T = 700 and 5000 (past a window of 512, 1024 or 4096; beyond a
    position table of 1024 or 2048 rows), B = 2, as costs.evaluate gives them; a deferral where
    it refuses, or where the set lies outside the sub-space a proof draws from."""
    import json

    from paramcount.analyze import costs
    from paramcount.analyze.counting.compiled import Defer
    from paramcount.analyze.counting.cost_table import generate_costs
    from paramcount.core.errors import ParamcountError
    from paramcount.model import dtypes

    arch = registry.get(arch_id)
    where = record.PROJECT_RECORD if record.PROJECT_RECORD.is_file() else None
    cns = json.loads(json.dumps(generate_costs(arch, where)))  # as stored
    from paramcount.analyze.cost_status import statuses as cost_statuses

    statuses = cost_statuses(arch, where)
    bf16 = dtypes.get("bf16")
    for hs in arch.hparam_sets():
        config = dict(arch.preset(hs.name).config)
        for context in (700, 5000):
            try:
                full = costs.evaluate(arch, hs.hparams, context, 2, bf16, 10**9, statuses, config)
            except ParamcountError:
                with pytest.raises(Defer):
                    compiled_costs.evaluate_costs(cns, hs.hparams, hs.name, context, 2, bf16, 10**9)
                continue
            if any(c.check(arch.values(hs.hparams)) for c in costs.proof_subspace(arch)):
                # outside the sub-space a proof draws from (an odd head width): the full path
                # says the figure is not proven there
                with pytest.raises(Defer):
                    compiled_costs.evaluate_costs(cns, hs.hparams, hs.name, context, 2, bf16, 10**9)
                assert all(q.status != "proven" for q in full.quantities.values()), hs.name
                continue
            got = compiled_costs.evaluate_costs(cns, hs.hparams, hs.name, context, 2, bf16, 10**9)
            assert got == full, hs.name  # the same Costs, Quantity for Quantity
