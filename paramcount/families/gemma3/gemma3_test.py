"""Gemma 3: the query-key norm's term, and sliding-window layers' weights."""

from __future__ import annotations

from paramcount.model import registry


def test_gemma3_qk_norm_adds_two_head_width_vectors_per_block():
    arch = registry.get("gemma3")
    hp = arch.resolve(arch.preset("gemma3_1b").hparams)
    assert arch.count(hp) - arch.count({**hp, "qk_norm": 0}) == 2 * hp["L"] * hp["d_k"]


def test_gemma3_sliding_window_layers_hold_the_same_weights_as_global_ones():
    import keras_hub
    from reference_models._build import stateless_backbone

    from paramcount.analyze.verify import keras_weights

    arch = registry.get("gemma3")
    hp = arch.resolve(dict(v=50, d_e=16, M=2, M_kv=1, d_k=8, d_f=24, L=7))
    shapes = []
    for sliding in (True, False):  # the table's constructor arguments (as the reference builds)
        kw = {**arch.mapping.keras_kwargs(hp), "use_sliding_window_attention": sliding}
        model = stateless_backbone(keras_hub.models.Gemma3Backbone, **kw)
        shapes.append(sorted((w.path, w.shape) for w in keras_weights(model)))
    assert shapes[0] == shapes[1]


def test_a_bidirectional_config_s_window_is_read_as_transformers_halves_it(capsys):
    """Gemma3TextConfig with use_bidirectional_attention keeps sliding_window // 2 + 1 of the
    file's sliding_window (and writes it back doubled): EmbeddingGemma's file gives none, its
    class default 4096, so each windowed layer keeps 2,048 positions, not 4,095. The count gave
    100,642,816 elements, transformers' cache holds 58,720,256 (T = 4,096, B = 2)."""
    import json
    from pathlib import Path

    from paramcount.cli.main import main

    config = Path(__file__).parents[3] / "tests" / "configs" / "embeddinggemma-300m.json"
    assert main(["count", "--config", str(config), "--context", "4096", "--batch", "2",
                 "--json"]) == 0
    costs = json.loads(capsys.readouterr().out)["costs"]
    per_position = 2 * 2 * 1 * 256  # keys and values, B = 2, one head of 256
    assert costs["kv"]["total"] == per_position * (4 * 4096 + 20 * 2048) == 58_720_256
    assert costs["decode"]["total"] == 758_267_904  # transformers' one-token step (meta device)
