"""benchmarks/newest_release.py's pure parts, without network or a venv: its arguments (each bad
one refused in one line, exit 2), the pin read from constraints.txt, the auto mappings read from a
release's modeling_auto.py, the new types, and the table with its outcomes."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import newest_release as nr

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("argv, says", [
    (["--version", "latest"], "--version 'latest' is not a release version"),
    (["--against", "5.23"], None),  # a version, if a short one
    (["--against", "5.x"], "--against '5.x' is not a release version"),
    (["--limit", "0"], "--limit must be a positive number of seconds"),
    (["--limit", "ten"], "invalid int value: 'ten'"),
    (["-j", "0"], "-j must be at least 1"),
    (["--version", "5.24.0", "--against", "5.24.0"], "--version and --against are the same release"),
    (["--venv", "pyproject.toml"], "--venv pyproject.toml exists and is not a folder"),
    (["--out", "tests"], "--out tests is a folder"),
    (["--frobnicate"], "unrecognized arguments: --frobnicate"),
])
def test_bad_arguments_are_one_line_and_exit_2(argv, says, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    if says is None:
        assert nr.parse_args(argv).against == "5.23"
        return
    assert nr.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("newest_release.py: error: ") and says in err, err


def test_the_pin_is_constraints_txts_transformers_line():
    pin = nr.pinned(nr.CONSTRAINTS.read_text(encoding="utf-8"))
    assert nr.VERSION.fullmatch(pin)
    assert f"transformers=={pin}" in nr.CONSTRAINTS.read_text(encoding="utf-8").splitlines()
    assert nr.pinned("torch==2.13.0\n  transformers == 5.1.0  # a comment\n") == "5.1.0"
    with pytest.raises(nr.BadArguments, match="give --against VERSION"):
        nr.pinned("torch==2.13.0\ntransformers>=5\n")


SOURCE = '''
from collections import OrderedDict
MODEL_FOR_CAUSAL_LM_MAPPING_NAMES = OrderedDict(
    [
        # a comment
        ("gpt2", "GPT2LMHeadModel"),
        ("llama", "LlamaForCausalLM"),
    ]
)
MODEL_FOR_MASKED_LM_MAPPING_NAMES = OrderedDict([("bert", "BertForMaskedLM")])
MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES = OrderedDict([("t5", ("T5ForConditionalGeneration",))])
'''


def test_mappings_are_read_from_the_source_and_new_types_found():
    old = nr.mapping_types(SOURCE)
    assert old == {"causal": ["gpt2", "llama"], "masked": ["bert"], "seq2seq": ["t5"]}
    new = {"causal": ["gpt2", "llama", "newlm"], "masked": ["bert", "llama"], "seq2seq": ["t5"]}
    assert nr.new_types(new, old) == [("causal", "newlm"), ("masked", "llama")]
    with pytest.raises(ValueError, match="MODEL_FOR_MASKED_LM_MAPPING_NAMES"):
        nr.mapping_types(SOURCE.replace("MODEL_FOR_MASKED_LM_MAPPING_NAMES", "OTHER"))


def test_the_installed_transformers_mapping_source_parses():
    """The reader against a real release's file (the installed one), as the script reads the
    pinned wheel's: the types it finds are the ones the imported mappings hold (imported in a
    process of its own: this one may hold TensorFlow)."""
    spec = importlib.util.find_spec("transformers")  # located, not imported
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("transformers is not installed")
    source = Path(spec.submodule_search_locations[0], "models", "auto", "modeling_auto.py")
    read = nr.mapping_types(source.read_text(encoding="utf-8"))
    imported = subprocess.run(
        [sys.executable, "-c", "import json; from paramcount.analyze.derive import sweep; "
         f"print(json.dumps({{k: sweep.model_types((k,)) for k in {nr.KINDS!r}}}))"],
        capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert read == json.loads(imported)


def test_outcomes_and_the_table():
    derived = [
        {"kind": "causal", "model_type": "b", "cls": "BForCausalLM", "status": "proven",
         "total": 1234567, "reason": "3 cases proven", "seconds": 12.5},
        {"kind": "causal", "model_type": "a", "cls": "", "status": "error",
         "reason": "no derivation: a | b", "seconds": 1.0},
        {"kind": "seq2seq", "model_type": "c", "cls": "C", "status": "unproven", "total": 5,
         "reason": "1 of 2 proof cases not proven; tied=0: refuted: 3 ≠ 4"},
        {"kind": "causal", "model_type": "d", "cls": "", "status": "error",
         "reason": "not derived within the sweep's time limit (600 s a type)"},
        {"kind": "causal", "model_type": "e", "cls": "E", "status": "unproven", "total": 5,
         "reason": "1 of 1 proof cases not proven; (all): inconclusive: too few points"},
    ]
    assert [nr.outcome_of_row(r) for r in derived] == [
        "exact", "refused", "wrong", "unfinished", "unfinished"]
    verify_rows = [{"arch": "gpt2", "preset": "tiny", "status": "match"},
                   {"arch": "bloom", "preset": "tiny", "status": "skipped", "reason": "d_f must be 4·d_e"},
                   {"arch": "opt", "preset": "x", "status": "mismatch", "formula": 1, "keras": 2},
                   {"arch": "(verify --all)", "status": "error", "error": "exit 1: boom"}]
    info = {"version": "5.24.0", "against": "5.23.0", "torch": "2.13.0+cpu", "new": 6,
            "date": "2026-11-28 19:00 UTC"}
    text = nr.table(info, verify_rows, derived)
    lines = text.splitlines()
    assert lines[0].startswith("transformers 5.24.0 (against 5.23.0), torch 2.13.0+cpu")
    assert "| `verify --all --framework transformers` (4 sets) | 1 match | 1 skipped | 1 mismatch | 1 error |" in lines
    assert "| new model types derived and proven (5 of 6) | 1 proven | 1 refused | 1 refuted | 2 unfinished |" in lines
    kinds = [ln.split(" | ")[0:2] for ln in lines if ln.startswith(("| causal", "| seq2seq"))]
    assert kinds == [["| causal", "a"], ["| causal", "b"], ["| causal", "d"], ["| causal", "e"],
                     ["| seq2seq", "c"]]
    assert "| causal | b | BForCausalLM | exact | 1,234,567 | 3 cases proven | 12.5 |" in lines
    assert "no derivation: a \\| b" in text  # a pipe in a reason does not split the cell
    assert "| opt | x | wrong | formula 1, transformers 2 |" in lines
    assert "| gpt2 |" not in text  # verify's exact rows are tallied, not listed
    for block in text.split("\n\n"):  # each table's rows have its header's number of cells
        widths = {len(re.split(r"(?<!\\)\|", ln)) for ln in block.splitlines() if ln.startswith("|")}
        assert len(widths) <= 1, block
