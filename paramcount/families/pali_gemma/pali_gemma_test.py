"""PaliGemma's own tests: a config read as PaliGemmaForConditionalGeneration builds it."""

from __future__ import annotations

import json

from tests._shared import CONFIGS

from paramcount.cli.main import main


def test_an_absent_projection_dim_is_the_class_s_2048_not_the_text_width(capsys, tmp_path):
    """PaliGemmaConfig's projection_dim is 2048 where a file leaves it out, whatever the text
    width: its projector is built 2048 wide. The table read an absent key as the text width,
    and counted a tiny model's projector 32 wide where transformers builds it 2048 wide (25,536
    printed, 59,808 built: the one-field-at-a-time sweep). Now the default is read, and a text
    width that is not 2048 is refused, naming both keys; a published file (2048 wide) without
    the key counts as before."""
    data = json.loads((CONFIGS / "paligemma-3b-pt-224.json").read_text())
    assert data["text_config"]["hidden_size"] == 2048
    counts = []
    for drop in (False, True):
        path = tmp_path / f"config-{drop}.json"
        path.write_text(json.dumps({k: x for k, x in data.items()
                                    if not (drop and k == "projection_dim")}))
        assert main(["count", "--config", str(path), "--json"]) == 0
        counts.append(json.loads(capsys.readouterr().out)["total"])
    assert counts[0] == counts[1] == 2_923_466_480
    narrow = tmp_path / "narrow.json"
    narrow.write_text(json.dumps({**{k: x for k, x in data.items() if k != "projection_dim"},
                                  "text_config": {**data["text_config"], "hidden_size": 1024}}))
    assert main(["count", "--config", str(narrow)]) == 2
    err = capsys.readouterr().err
    assert "projection_dim is absent (so 2048)" in err and "text_config.hidden_size = 1024" in err
