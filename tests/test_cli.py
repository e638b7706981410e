"""The CLI, through main([...]) and, where the process matters, a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from paramcount.cli.main import main
from paramcount.model import registry


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_names_every_architecture(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    lines = out.splitlines()
    assert [ln.split()[0] for ln in lines] == sorted(registry.architectures())
    (gpt2,) = [ln for ln in lines if ln.startswith("gpt2 ")]
    assert "GPT-2 backbone" in gpt2 and "presets;" in gpt2
    # which frameworks check it, and whether --config reads it
    assert gpt2.endswith("; checked by keras + transformers; --config]")
    (ffnn,) = [ln for ln in lines if ln.startswith("ffnn_lm ")]
    assert ffnn.endswith("[checked by keras]")
    (falcon,) = [ln for ln in lines if ln.startswith("falcon_parallel ")]
    assert "checked by transformers;" in falcon


def test_formula_text_latex_json(capsys):
    code, out, _ = run(capsys, "formula", "gpt2")
    assert code == 0
    assert "N = L·(" in out and "d_e      required  embedding / model width" in out
    # GPT-2 floors the head width (d_e // M) like KerasHub, so it has no divisibility constraint
    assert "divisible" not in out and "tied" not in out
    code, out, _ = run(capsys, "formula", "gpt2", "--latex")
    assert code == 0 and out.startswith("N_{\\mathrm{gpt2}} = L \\left(")
    code, out, _ = run(capsys, "formula", "bert", "--json")
    data = json.loads(out)
    assert data["arch"] == "bert" and data["symbols"]["s"]["role"] == "optional"
    assert set(data["components"]) == {"embeddings", "blocks", "pooler"}
    assert data["components"]["blocks"]["__times__"] == "L"


def test_count_preset_text_and_json(capsys):
    code, out, _ = run(capsys, "count", "gpt2", "--preset", "gpt2_base_en")
    assert code == 0
    assert "total" in out and "124,439,808" in out
    code, out, _ = run(capsys, "count", "gpt2", "--preset", "gpt2_base_en", "--json")
    data = json.loads(out)
    assert data["arch"] == "gpt2" and data["total"] == 124_439_808
    assert data["hparams"]["d_k"] == 64  # derived values filled in
    assert data["components"]["embeddings"]["token"] == 50257 * 768

    def leaves(d):
        return sum(leaves(x) if isinstance(x, dict) else x for x in d.values())

    assert leaves(data["components"]) == data["total"]


def test_count_set_overrides_preset(capsys):
    code, out, _ = run(capsys, "count", "gpt2", "--preset", "gpt2_base_en", "--set", "L=1",
                       "--json")
    base = json.loads(out)
    code, out, _ = run(capsys, "count", "gpt2", "--set", "v=50257", "n=1024", "d_e=768", "M=12",
                       "d_f=3072", "L=1", "--json")
    assert code == 0 and json.loads(out)["total"] == base["total"]


def test_verify_json_and_exit_status(capsys):
    code, out, _ = run(capsys, "verify", "gpt2", "bert_masked_lm", "--preset", "tiny", "--json")
    assert code == 0
    data = json.loads(out)
    assert [d["arch"] for d in data] == ["gpt2", "bert_masked_lm"]
    for d in data:
        assert set(d) >= {"arch", "hparams", "formula", "keras", "difference", "status"}
        assert d["status"] == "match" and d["difference"] == 0
        assert isinstance(d["formula"], int) and d["formula"] == d["keras"]


def test_verify_exits_1_on_a_mismatch(capsys):
    """A deliberately broken formula, registered for this test only."""
    import dataclasses

    good = registry.get("gpt2")
    broken = dataclasses.replace(good, id="gpt2_broken", formula=good.formula.replace(
        "blocks.norm_2", None))
    registry.register(broken)
    try:
        code, out, _ = run(capsys, "verify", "gpt2_broken", "--preset", "tiny")
    finally:
        registry.unregister("gpt2_broken")
    assert code == 1
    assert "MISMATCH" in out and "unclaimed Keras weight transformer_layer_0/feedforward_layer_norm/gamma" in out
    assert "0 match, 1 mismatch" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["formula", "gpt5"], "unknown architecture 'gpt5'; did you mean 'gpt2'"),
        (["count", "gpt2", "--preset", "gpt2_huge"], "unknown preset 'gpt2_huge' for gpt2; did you mean "),
        # a published preset of another architecture: that one, and the command that counts it
        (["count", "llama", "--preset", "llama3_8b_en"], "unknown preset 'llama3_8b_en' for llama; "
         "llama3_8b_en is a preset of llama3: paramcount count llama3 --preset llama3_8b_en\n"),
        (["verify", "llama", "--preset", "llama3_8b_en"],
         "llama3_8b_en is a preset of llama3: paramcount verify llama3 --preset llama3_8b_en\n"),
        (["solve", "llama", "--preset", "llama3_8b_en", "--target", "1000000", "--for", "L"],
         "llama3_8b_en is a preset of llama3: paramcount solve llama3 --preset llama3_8b_en"),
        (["count", "gpt2", "--set", "q=3"], "unknown symbol 'q'; known: "),
        (["count", "gpt2", "--set", "v=10", "n=4", "d_e=8", "M=2", "d_f=4"],
         "missing hyperparameter(s) for gpt2: L (blocks (layers))"),
        (["count", "gpt2", "--preset", "tiny", "--set", "L=0"], "L=0: must be a positive integer"),
        (["count", "gpt2", "--preset", "tiny", "--set", "L=-3"], "L=-3: must be a positive integer"),
        (["count", "gpt2", "--preset", "tiny", "--set", "L=2.5"], "L='2.5': not an integer"),
        (["count", "gpt2", "--preset", "tiny", "--set", "L=two"], "L='two': not an integer"),
        (["count", "gpt2", "--preset", "tiny", "--set", "L"], "--set expects SYM=VALUE, got 'L'"),
        (["count", "llama", "--preset", "tiny_mha", "--set", "d_e=30"],
         "d_e (30) must be divisible by M (4); allowed: M one of the divisors of 30: 1, 2, 3, 5, 6, 10, "
         "15, 30; or d_e a multiple of 4"),
        (["count", "gpt2", "--preset", "tiny", "--set", "d_k=3"],
         "d_k cannot be set for gpt2: it is fixed to floor(d_e/M) = 8 there (got 3)"),
        (["count", "gpt2", "--preset", "tiny", "--set", "s=2"], "s is not a hyperparameter of gpt2"),
        (["count", "gpt2"], "count needs --preset NAME or --set SYM=VALUE"),
        (["verify", "gpt5"], "unknown architecture 'gpt5'"),
        (["verify", "--all", "gpt2"], "--all takes no architectures"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["count"], "the following arguments are required: arch"),
        (["formula", "gpt2", "--latex", "--json"], "not allowed with argument"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("paramcount: error: ")
    assert message in err


def test_report_bad_output_path_keeps_existing_file(tmp_path, capsys):
    existing = tmp_path / "keep.md"
    existing.write_text("precious\n")
    code, _, err = run(capsys, "report", "--output", str(existing / "sub.md"))
    assert code == 2 and "cannot write" in err and err.count("\n") == 1
    assert existing.read_text() == "precious\n"


def test_count_never_imports_tensorflow():
    code = ("import sys; from paramcount.cli.main import main; "
            "main(['count', 'gpt2', '--preset', 'gpt2_base_en', '--json']); "
            "main(['formula', 'bert']); main(['list']); "
            "bad = [m for m in ('tensorflow', 'keras', 'keras_hub', 'matplotlib') "
            "if m in sys.modules]; "
            "sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "paramcount", "count", "bert", "--preset",
                           "bert_base_en_uncased"], capture_output=True, text=True)
    assert proc.returncode == 0 and "109,482,240" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "paramcount", "count", "nope", "--set", "v=1"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("paramcount: error: unknown architecture")
    assert "Traceback" not in proc.stderr


def test_count_loads_only_the_module_it_needs():
    """`count gpt2_causal_lm` imports gpt2.py alone (speed), and still sees every id on demand."""
    code = ("import sys; from paramcount.model import registry; from paramcount.cli.main import main; "
            "main(['count', 'gpt2_causal_lm', '--preset', 'tiny']); "
            "mods = sorted(m for m in sys.modules if m.startswith('paramcount.families.') "
            "and '._' not in m); "
            "assert mods == ['paramcount.families.gpt2'], mods; "
            "assert registry.get('lstm_lm').id == 'lstm_lm'; "
            "assert len(registry.architectures()) > 40")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_option_and_argument_has_help():
    """Issue 22: `report --help` had no text for --output and --quiet, `formula` and `solve` none
    for arch; every command's every argument now says what it is, and report's shows defaults."""
    import argparse

    from paramcount.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        for action in command._actions:
            assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)
    report = sub.choices["report"].format_help()
    assert "(default: reports/conformance.md)" in " ".join(report.split())
    top = " ".join(parser.format_help().split())
    assert "Keras" in top and "transformers" in top and "paramcount[keras]" in top
