"""Preset files: the shipped ones are sound, and a malformed one is one clear error."""

from __future__ import annotations

import pytest

from paramcount.core.errors import InputFileError, UnknownSymbolError
from paramcount.model import keras_hub_meta, registry
from paramcount.model.registry import load_presets

PRESETS = [(a.id, p) for a in registry.architectures().values() for p in a.presets_table().values()]


@pytest.mark.parametrize(("arch_id", "preset"), PRESETS, ids=[f"{a}-{p.name}" for a, p in PRESETS])
def test_every_shipped_preset_has_a_source_and_a_real_keras_hub_name(arch_id, preset):
    assert preset.source.strip()
    if preset.keras_hub:
        # The name must be one KerasHub ships, with a published figure to compare.
        assert keras_hub_meta.published_params(preset.keras_hub) is not None, preset.keras_hub
    if preset.keras_hub_differs:
        assert preset.keras_hub, "a finding about KerasHub's figure needs the KerasHub preset"


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("[p]\nsource = 'x'\nhparams = { v = 3 ", InputFileError, "bad.toml"),
        ("[p]\nhparams = { v = 3 }\n", InputFileError, "preset 'p' needs a source"),
        ("[p]\nsource = 'x'\n", InputFileError, "needs an [p.hparams] table"),
        ("[p]\nsource = 'x'\nhparams = { v = 2.5 }\n", InputFileError, "v = 2.5 is not an integer"),
        ("[p]\nsource = 'x'\nhparams = { v = true }\n", InputFileError, "v = True is not an integer"),
        ("[p]\nsource = 'x'\nkeras = 'y'\nhparams = { v = 3 }\n", InputFileError, "unknown keys"),
        ("[p]\nsource = 'x'\nhparams = { q_q = 3 }\n", UnknownSymbolError, "unknown symbol 'q_q'"),
    ],
)
def test_malformed_preset_file_is_one_clear_error(tmp_path, text, error, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(error, match=None) as info:
        load_presets(path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_preset_file(tmp_path):
    with pytest.raises(InputFileError, match="cannot read preset file"):
        load_presets(tmp_path / "absent.toml")


def test_every_keras_hub_preset_of_a_covered_family_is_listed_or_explained():
    # A covered family is a KerasHub model folder some preset file already names. A preset
    # KerasHub adds there, or one in UNLISTED that a preset file gains, fails here until
    # keras_hub_meta.unlisted() (a family folder's unlisted.py) says so.
    listed = {p.keras_hub for _, p in PRESETS if p.keras_hub}
    covered = {keras_hub_meta.preset_model(name) for name in listed} - {None}
    missing = sorted(name for name in keras_hub_meta.preset_names()
                     if keras_hub_meta.preset_model(name) in covered
                     and name not in listed and name not in keras_hub_meta.unlisted())
    assert not missing, f"KerasHub presets neither in a preset file nor explained: {missing}"
    stale = sorted(name for name in keras_hub_meta.unlisted()
                   if name in listed or keras_hub_meta.preset_model(name) is None)
    assert not stale, f"UNLISTED names a preset that is listed, or that KerasHub lacks: {stale}"
    assert all(reason.strip() for reason in keras_hub_meta.unlisted().values())
