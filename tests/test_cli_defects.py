"""Issue 11's defects of the command line, each as it was reported (items 3-8)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from paramcount.cli.main import main
from paramcount.model import registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TINY = ["count", "gpt2", "--preset", "tiny", "--json"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, ""), (code, out, err)
    assert err.count("\n") == 1 and err.startswith("paramcount: error: "), err
    return err


def sh(*argv, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "paramcount", *argv], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT, **(env or {})},
                          **kw)


# --- item 3: exact integers ------------------------------------------------------------------
def test_big_integers_are_exact(capsys):
    code, out, _ = run(capsys, "count", "gpt2", "--preset", "tiny", "--set", "v=9007199254740993",
                       "--json")
    assert code == 0 and json.loads(out)["hparams"]["v"] == 9007199254740993


@pytest.mark.parametrize("value", ["9007199254740993.0", "2.0", "1e3", "1e400", "٣", " 3", "3 ",
                                   "0x10", "3_", "_3", "1__0", "+", "", "3.", "½"])
def test_one_rule_for_integer_literals(capsys, value):
    err = one_error(capsys, *TINY, "--set", f"L={value}")
    if value:
        assert "not an integer (an integer is written in ASCII decimal digits" in err


def test_the_integer_rule_is_in_help(capsys):
    with pytest.raises(SystemExit):
        main(["count", "--help"])
    assert "ASCII decimal digits" in " ".join(capsys.readouterr().out.split())


# --- item 4: nothing silently ignored ------------------------------------------------------------
@pytest.mark.parametrize("argv", [["--set", "L=2", "--set", "L=3"], ["--set", "L=2", "L=3"],
                                  ["--set", "L=2", "L=2"]])
def test_a_symbol_given_twice_is_refused(capsys, argv):
    assert "gives L twice" in one_error(capsys, *TINY, *argv)


def test_solve_refuses_a_value_for_its_unknown(capsys):
    err = one_error(capsys, "solve", "llama", "--target", "7e9", "--for", "d_e", "--set", "L=32",
                    "v=32000", "M=32", "M_kv=32", "d_f=11008", "d_e=4096")
    assert "--for d_e and --set d_e=4096 both given" in err


def test_plugin_registering_nothing_is_refused(capsys, tmp_path):
    plugin = tmp_path / "empty_plugin.py"
    plugin.write_text("X = 1\n")
    assert "registered no architecture" in one_error(capsys, "--plugin", str(plugin), "list")


def test_a_plugin_file_that_is_not_python_says_so(capsys, tmp_path):
    # Was "failed to load: AttributeError: 'NoneType' object has no attribute 'loader'".
    plugin = tmp_path / "plugin.txt"
    plugin.write_text("X = 1\n")
    err = one_error(capsys, "--plugin", str(plugin), "list")
    assert "not a Python source file" in err and "AttributeError" not in err


@pytest.mark.parametrize(("line", "message"), [
    ('keras_hub = 42', "keras_hub = 42 is not a non-empty string"),
    ('keras_hub_differs = 1', "keras_hub_differs = 1 is not a non-empty string"),
])
def test_preset_file_field_types(capsys, tmp_path, line, message):
    err = _plugin_with_presets(capsys, tmp_path, f'[p1]\nsource = "x"\n{line}\n[p1.hparams]\nL = 2\n')
    assert "presets.toml: preset 'p1': " + message in err


def test_bad_value_in_a_plugin_preset_names_file_and_preset(capsys, tmp_path):
    err = _plugin_with_presets(capsys, tmp_path, '[p1]\nsource = "x"\n[p1.hparams]\nL = 0\n')
    assert "presets.toml: preset 'p1': L=0: must be a positive integer" in err


def _plugin_with_presets(capsys, tmp_path, toml: str) -> str:
    (tmp_path / "presets.toml").write_text(toml)
    plugin = tmp_path / "tiny_plugin.py"
    plugin.write_text(textwrap.dedent(f"""
        from pathlib import Path
        import paramcount
        from paramcount.core.symbols import L
        from paramcount.core.formula import Term
        paramcount.register(paramcount.Architecture(
            id="tiny_plugin_{abs(hash(toml)) % 10**8}", title="t", source="s",
            formula=Term("w", L), required=(L,), reference="nowhere_module:build",
            counting="c", presets=Path(__file__).with_name("presets.toml")))
        """))
    before = set(registry.architectures())
    try:
        code, out, err = run(capsys, "--plugin", str(plugin), "list")
    finally:
        for aid in set(registry.architectures()) - before:
            registry.unregister(aid)
    assert (code, out) == (2, "") and err.count("\n") == 1, (code, out, err)
    return err


# --- item 5: tracebacks --------------------------------------------------------------------------
def test_solve_at_an_astronomical_target(capsys):
    code, out, err = run(capsys, "solve", "llama", "--target", "1e150", "--for", "d_e", "--set",
                         "L=32", "v=32000", "M=32", "M_kv=32", "d_f=11008", "--json")
    assert code == 0, err
    sol = json.loads(out)
    assert sol["below"]["total"] <= 10**150 <= sol["above"]["total"]
    assert sol["above"]["value"] - sol["below"]["value"] == 32  # neighbours: d_e | 32 steps


BROKEN = """
import paramcount
from paramcount.model import registry
from paramcount.core.symbols import L, d_e
from paramcount.core.formula import Term

def boom(hp):
    raise RuntimeError("the builder broke")

for aid, ref in (("plugin_raises", boom), ("plugin_missing", "no_such_module_xyz:build")):
    registry.register(paramcount.Architecture(
        id=aid, title="t", source="s", formula=Term("w", L * d_e), required=(L, d_e),
        reference=ref, counting="c", examples={"small": {"L": 1, "d_e": 2}}), replace=True)
"""


def test_broken_builders_are_error_rows_and_verify_carries_on(tmp_path):
    plugin = tmp_path / "broken_plugin.py"
    plugin.write_text(BROKEN)
    # (between them, an architecture of two small sets: gpt2's fourteen, GPT-3 175B among them,
    # cost seconds and showed nothing more)
    proc = sh("--plugin", str(plugin), "verify", "plugin_raises", "mixed_seq2seq",
              "plugin_missing", "--quiet")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stdout.splitlines()
    assert any(ln.startswith("ERROR") and "plugin_raises" in ln and "small" in ln
               and "the builder broke" in ln for ln in lines)
    assert any(ln.startswith("ERROR") and "plugin_missing" in ln and "no_such_module_xyz" in ln
               for ln in lines)
    assert sum(ln.startswith("match") and "mixed_seq2seq" in ln for ln in lines) == 2  # carried on
    assert lines[-1].endswith("0 mismatch, 2 error")
    proc = sh("--plugin", str(plugin), "verify", "plugin_raises", "--json", "--quiet")
    assert proc.returncode == 1
    (row,) = json.loads(proc.stdout)
    assert row["status"] == "error" and row["arch"] == "plugin_raises" and row["preset"] == "small"


def test_output_to_a_full_device_is_one_line():
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "paramcount", "formula", "gpt2", "--json"],
                              stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode == 2
    assert proc.stderr == "paramcount: error: cannot write the output: No space left on device\n"


def test_closed_stdout_is_an_error_not_silence():
    proc = subprocess.run(f"{sys.executable} -m paramcount list >&-", shell=True, text=True,
                          stderr=subprocess.PIPE, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode != 0
    assert proc.stderr.count("\n") == 1 and "standard output is closed" in proc.stderr


@pytest.mark.parametrize("delay", [0.15, 0.3, 0.6])
def test_ctrl_c_is_one_line_and_130(delay):
    proc = subprocess.Popen([sys.executable, "-m", "paramcount", "count", "llama", "--preset",
                             "llama2_7b_en"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 0:  # finished before the signal: nothing to check
        return
    assert "Traceback" not in err
    assert proc.returncode in (130, -signal.SIGINT), err
    if proc.returncode == 130:
        assert err == "paramcount: interrupted\n"


# --- item 6: runaway builds --------------------------------------------------------------------
def test_runaway_build_refused_before_starting(capsys, monkeypatch):
    monkeypatch.delenv("PARAMCOUNT_MAX_BUILD", raising=False)
    start = time.monotonic()
    err = one_error(capsys, "verify", "gpt2", "--preset", "tiny", "--set", "L=100000")
    assert time.monotonic() - start < 5
    assert "about 800,003 layer instances" in err and "--max-build" in err and "PARAMCOUNT_MAX_BUILD" in err
    monkeypatch.setenv("PARAMCOUNT_MAX_BUILD", "10")
    assert "limit 10" in one_error(capsys, "verify", "gpt2", "--preset", "tiny")
    err = one_error(capsys, "verify", "gpt2", "--preset", "tiny", "--max-build", "11")
    assert "limit 11;" in err


def test_a_large_build_is_announced(capsys, monkeypatch):
    from paramcount.analyze import budget

    monkeypatch.setattr(budget, "NOTICE_AT", 10)
    code, _, err = run(capsys, "verify", "gpt2", "--preset", "tiny")
    assert code == 0
    assert "paramcount: gpt2 [tiny]: a large build (" in err and "may take a while" in err


# --- item 7: messages ----------------------------------------------------------------------------
def test_divisors_not_multiples(capsys):
    err = one_error(capsys, "count", "llama", "--preset", "llama2_7b_en", "--set", "M_kv=5")
    assert "M_kv one of the divisors of 32: 1, 2, 4, 8, 16, 32" in err
    assert "multiples of 5" not in err


def test_fixed_to_a_number_says_it_once(capsys):
    err = one_error(capsys, "count", "gpt2", "--preset", "tiny", "--set", "zeta=0")
    assert "zeta cannot be set for gpt2: it is fixed to 1 there (got 0)" in err


@pytest.mark.parametrize(("argv", "suggestion"), [
    (["formula", "gtp2"], "did you mean 'gpt2'"),
    (["formula", "lamma"], "did you mean 'llama'"),
    (["count", "mixtral", "--preset", "mixtral_8x7b_en"], "did you mean 'mixtral_8_7b_en'"),
    (["count", "gpt2", "--preset", "tiny", "--set", "d_ee=4"], "did you mean 'd_e'"),
])
def test_did_you_mean(capsys, argv, suggestion):
    err = one_error(capsys, *argv)
    assert suggestion in err and len(err) < 200


def test_version(capsys):
    from paramcount import __version__

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"paramcount {__version__}\n"


def test_plugin_verify_has_no_tensorflow_noise(tmp_path):
    proc = sh("--plugin", os.path.join(ROOT, "examples/user_architecture/sentiment.py"), "verify",
              "--quiet", *_sentiment_ids(), env={"TF_CPP_MIN_LOG_LEVEL": ""})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def _sentiment_ids() -> list[str]:
    with open(os.path.join(ROOT, "examples/user_architecture/sentiment.py")) as fh:
        text = fh.read()
    import re

    return sorted(set(re.findall(r'\bid="([a-z0-9_]+)"', text)))[:1]


# --- item 8: the three-way check -----------------------------------------------------------------
def test_verify_preset_compares_with_keras_hub_published_figure(capsys):
    code, out, _ = run(capsys, "verify", "gpt2", "--preset", "gpt2_base_en")
    assert code == 0
    assert "= KerasHub published 124,439,808 (gpt2_base_en): agrees" in out
    code, out, _ = run(capsys, "verify", "gpt2", "--preset", "gpt2_base_en", "--json")
    (row,) = json.loads(out)
    assert row["keras_hub_params"] == 124_439_808 and row["keras_hub_status"] == "agrees"
    # With --set on top, the published figure is not this model's: not compared.
    code, out, _ = run(capsys, "verify", "gpt2", "--preset", "gpt2_base_en", "--set", "L=2",
                       "--json")
    (row,) = json.loads(out)
    assert row["keras_hub_params"] is None


def test_verify_marks_an_explained_disagreement():
    arch, preset = _a_differing_preset()
    code_out = subprocess.run([sys.executable, "-m", "paramcount", "verify", arch, "--preset",
                               preset.name, "--json", "--quiet"], capture_output=True, text=True,
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    (row,) = json.loads(code_out.stdout)
    assert row["keras_hub_status"] == "differs"
    assert row["keras_hub_differs_explained"] == preset.keras_hub_differs


def _a_differing_preset():
    for aid, arch in sorted(registry.architectures().items()):
        for p in arch.presets_table().values():
            if p.keras_hub_differs and p.keras_hub:
                return aid, p
    pytest.skip("no preset file records a KerasHub disagreement")


def test_solve_target_keeps_every_digit(capsys):
    """Decimal's default 28 digits rounded a 31-digit target; and 1e99999999 is refused at once
    instead of building a number of a hundred million digits."""
    from paramcount.analyze.solve import parse_target

    assert parse_target("1234567890123456789012345678901") == 1234567890123456789012345678901
    assert parse_target("1234567890123456789012345678.901k") == 1234567890123456789012345678901
    err = one_error(capsys, "solve", "llama", "--target", "1e99999999", "--for", "d_e", "--set",
                    "L=32", "v=32000", "M=32", "M_kv=32", "d_f=11008")
    assert "more than 10^1000 parameters" in err


# --- issue 22 §2 and issue 17 §7: files, signals, options --------------------------------------
LLAMA_CFG = os.path.join(ROOT, "tests", "configs", "llama-2-7b-hf.json")


@pytest.mark.parametrize("text", ["[" * 200_000, '{"a":' * 200_000, "[" * 200_000 + "]" * 200_000])
def test_deeply_nested_json_is_malformed_json(capsys, tmp_path, text):
    cfg = tmp_path / "config.json"
    cfg.write_text(text)
    err = one_error(capsys, "count", "--config", str(cfg))
    assert "malformed JSON" in err and str(cfg) in err


@pytest.mark.parametrize("data, says", [
    ({"model_type": 5}, "model_type = 5: expected a string"),
    ({"model_type": None, "hidden_size": 8}, "model_type = null: expected a string"),
    ({"class_name": "GPT2Backbone", "config": None}, "KerasHub config's \"config\" is null"),
    ({"class_name": "GPT2Backbone", "config": [1]}, "KerasHub config's \"config\" is a list"),
])
def test_a_wrong_key_type_is_named(capsys, tmp_path, data, says):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(data))
    err = one_error(capsys, "count", "--config", str(cfg))
    assert says in err and "no model_type key" not in err


@pytest.mark.parametrize("argv", [
    ["count", "gpt2", "--preset", "tiny", "--preset", "gpt2_base_en"],
    ["verify", "gpt2", "--preset", "tiny", "--preset", "tiny"],
    ["count", "--config", LLAMA_CFG, "--config", LLAMA_CFG],
    ["solve", "gpt2", "--target", "1e9", "--for", "L", "--preset", "tiny", "--preset", "tiny"],
])
def test_an_option_given_twice_is_refused(capsys, argv):
    err = one_error(capsys, *argv)
    assert "given twice" in err


def test_a_repeated_preset_is_refused_on_the_fast_path_too(tmp_path):
    proc = sh("count", "gpt2", "--preset", "tiny", "--preset", "gpt2_base_en",
              env={"PARAMCOUNT_CACHE_DIR": str(tmp_path)})
    assert proc.returncode == 2 and "given twice" in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize("target", ["-7e9", "-7B", "-1", "-0.5"])
def test_a_negative_target_must_be_positive(capsys, target):
    err = one_error(capsys, "solve", "llama", "--target", target, "--for", "d_e", "--set",
                    "L=32", "v=32000", "M=32", "M_kv=32", "d_f=11008")
    assert "must be a positive number" in err


@pytest.mark.parametrize("value", ["L= 3", "L =3", "L=3 ", " L=3", "L=\t3"])
def test_spaces_in_an_assignment_are_refused(capsys, value):
    one_error(capsys, "count", "gpt2", "--preset", "tiny", "--set", value)


def test_spaces_in_an_assignment_are_refused_on_the_fast_path(tmp_path):
    proc = sh("count", "gpt2", "--preset", "gpt2_base_en", "--set", "L= 3",
              env={"PARAMCOUNT_CACHE_DIR": str(tmp_path)})
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1


def test_config_from_a_fifo_or_device_is_refused_at_once(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path, says in ((fifo, "FIFO"), ("/dev/zero", "device"), ("/dev/null", "device")):
        start = time.monotonic()
        proc = sh("count", "--config", str(path), timeout=60)
        assert time.monotonic() - start < 30
        assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
        assert says in proc.stderr and str(path) in proc.stderr


def test_config_size_is_capped(capsys, tmp_path):
    big = tmp_path / "config.json"
    with open(big, "w") as fh:
        fh.write('{"model_type": "llama", "pad": "')
        fh.write("x" * (65 << 20))
        fh.write('"}')
    err = one_error(capsys, "count", "--config", str(big))
    assert "too large" in err


def test_config_folder_without_config_json(capsys, tmp_path):
    err = one_error(capsys, "count", "--config", str(tmp_path))
    assert "config.json" in err and str(tmp_path) in err


def test_report_output_in_a_missing_folder_is_refused_before_any_work(capsys, monkeypatch):
    from paramcount.output import report

    def no_work(*a, **k):
        raise AssertionError("work started before the output path was checked")

    monkeypatch.setattr(report, "verify_all", no_work)
    err = one_error(capsys, "report", "--quiet", "--output", "/nonexistent_dir/x.md")
    assert "/nonexistent_dir" in err and "does not exist" in err


@pytest.mark.slow
@pytest.mark.parametrize("kill", [os.killpg, os.kill], ids=["group", "parent"])
def test_sigterm_during_report_is_one_line_and_143(tmp_path, kill):
    """SIGTERM is handled as SIGINT is: one line, exit 143, and the workers end quietly."""
    proc = subprocess.Popen([sys.executable, "-m", "paramcount", "report", "-j", "2", "--output",
                             str(tmp_path / "r.md")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": ROOT, "PARAMCOUNT_PROGRESS": "0",
                                 "PARAMCOUNT_CACHE_DIR": str(tmp_path / "cache")})
    time.sleep(15)  # the workers are building
    kill(proc.pid, signal.SIGTERM)  # as a service manager, `kill -- -PGID` or `kill PID` does
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert err == "paramcount: terminated\n" and out == ""
    time.sleep(1)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)  # no worker left behind
    assert {p.name for p in tmp_path.iterdir()} <= {"cache"}  # no report, no temporary file


@pytest.mark.parametrize("arch_id, preset, against", [
    ("deepseek_v3", "deepseek_v3", "the formula"),  # no Keras build: its delta is the formula's
    ("deepseek_v2", "deepseek_v2_lite", "the formula"),
    ("llama", "llama2_7b_en", "Keras"),
])
def test_a_delta_names_what_it_is_taken_against(capsys, arch_id, preset, against):
    """A model KerasHub cannot build (DeepSeek) has its transformers deltas taken against the
    formula: "deltas (transformers − Keras)" and "no deltas: transformers builds the weights
    Keras builds" claimed a Keras build that does not exist."""
    assert main(["count", arch_id, "--preset", preset, "--framework", "transformers"]) == 0
    text = capsys.readouterr().out
    lines = [x for x in text.splitlines() if x.startswith(("deltas", "no deltas"))]
    assert len(lines) == 1 and against in lines[0], lines
