"""The config classes' declared defaults a transformers config is completed with before its
table reads it (paramcount/analyze/hf_defaults.json, issue 32): the installed transformers'
own, and what a file that leaves a key out is counted as."""

from __future__ import annotations

import json

from paramcount.analyze import hf_defaults
from paramcount.cli.main import main
from tests._shared import CONFIGS, torch_side


@torch_side
def test_the_data_is_the_installed_transformers_declared_defaults():
    """Regenerate with ``python -m paramcount.analyze.hf_defaults_generate`` when this fails
    (a new transformers pin)."""
    from paramcount.analyze import hf_defaults_generate

    assert hf_defaults_generate.table() == json.loads(hf_defaults.DATA.read_text())


def test_declared_not_derived():
    """A class's declared default, not what its __post_init__ derives from the defaults' sizes:
    GemmaConfig declares 16 key-value heads and a head width of 256 whatever the width;
    LlamaConfig declares none of either (derived from the file's own width and heads)."""
    gemma, llama = hf_defaults.defaults("gemma"), hf_defaults.defaults("llama")
    assert gemma["num_key_value_heads"] == 16 and gemma["head_dim"] == 256
    assert llama["num_key_value_heads"] is None and llama["head_dim"] is None
    assert hf_defaults.defaults("bart")["num_labels"] == 3  # BartConfig's, not PretrainedConfig's 2


def test_completed_keeps_the_file_and_its_labels():
    data, added = hf_defaults.completed({"model_type": "bart", "decoder_layers": 2,
                                         "id2label": {"0": "a"}}, "bart")
    assert data["decoder_layers"] == 2 and data["encoder_layers"] == 12
    assert "num_labels" not in added and "decoder_layers" not in added  # id2label gives them


def test_a_file_without_decoder_layers_is_bartconfigs_twelve(capsys, tmp_path):
    """BART-base (6 + 6 layers) without decoder_layers builds 12 decoder layers: refused (the
    formula has one L), where it was counted as 6 + 6."""
    data = json.loads((CONFIGS / "bart-base.json").read_text())
    data.pop("decoder_layers")
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert main(["count", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "decoder_layers = 12 differs from encoder_layers = 6" in err and err.count("\n") == 1
