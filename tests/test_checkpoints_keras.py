"""A KerasHub preset folder saved by KerasHub itself (a tiny backbone built the usual way,
``save_to_preset``), checked against the formula through its ``model.weights.h5`` names. The
preset is written and verified in a fresh process that imports TensorFlow and never torch;
``count`` reads it here without either."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from paramcount.cli.main import main

pytest.importorskip("h5py")
ROOT = Path(__file__).resolve().parent.parent

_SCRIPT = """
import json, sys
import keras_hub
from paramcount.cli.main import main
codes = []
for cls, kwargs, folder in json.loads(sys.argv[1]):
    getattr(keras_hub.models, cls)(**kwargs).save_to_preset(folder)
    codes.append(main(["verify", "--checkpoint", folder]))
assert "torch" not in sys.modules, "torch imported beside TensorFlow"
sys.exit(max(codes))
"""

CASES = {
    "LlamaBackbone": ("llama", {"vocabulary_size": 64, "num_layers": 2, "num_query_heads": 4,
                                "hidden_dim": 16, "intermediate_dim": 32,
                                "num_key_value_heads": 2}),
    "GPT2Backbone": ("gpt2", {"vocabulary_size": 50, "num_layers": 2, "num_heads": 2,
                              "hidden_dim": 8, "intermediate_dim": 16,
                              "max_sequence_length": 12}),
}


def test_presets_saved_by_keras_hub_match(tmp_path, capsys):
    jobs = [(cls, kwargs, str(tmp_path / cls)) for cls, (_, kwargs) in CASES.items()]
    # one fresh TensorFlow process for both (its start-up is most of the time)
    done = subprocess.run([sys.executable, "-c", _SCRIPT, json.dumps(jobs)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert "unclaimed" not in done.stdout
    assert done.stdout.count("Keras .weights.h5") == len(CASES)
    for cls, (arch, _) in CASES.items():
        assert f"match    {arch}" in done.stdout
        preset = tmp_path / cls
        assert main(["count", "--checkpoint", str(preset), "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["framework"] == "keras" and data["config"]["source"] == "KerasHub config"
        assert data["stored_total"] == data["built"] and data["unexplained"] == 0


def test_a_damaged_weights_file_is_one_line(tmp_path, capsys):
    (tmp_path / "config.json").write_text(json.dumps({"class_name": "LlamaBackbone",
                                                       "config": {}}))
    (tmp_path / "model.weights.h5").write_bytes(b"\x89HDF\r\n\x1a\nnot really")
    assert main(["count", "--checkpoint", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a readable HDF5 weights file" in err
