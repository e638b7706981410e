"""A preset (published hyperparameters of a checkpoint, or a named example set) and a preset
paired with its architecture. Read from the preset files by :func:`paramcount.registry.load_presets`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paramcount.registry import Architecture

__all__ = ["Preset", "HparamSet"]


@dataclass(frozen=True)
class Preset:
    """Published hyperparameters of a checkpoint (or a named example set)."""

    name: str
    hparams: Mapping[str, int]
    source: str
    keras_hub: str | None = None  # KerasHub preset whose metadata "params" is a second check
    official: bool = True
    # Where KerasHub's published figure disagrees with its own build: why (a finding, reported).
    keras_hub_differs: str | None = None


@dataclass(frozen=True)
class HparamSet:
    """An architecture paired with one named hyperparameter set, resolved."""

    arch: Architecture
    preset: Preset

    @property
    def name(self) -> str:
        return self.preset.name

    @property
    def hparams(self) -> dict[str, int]:
        return self.arch.resolve(self.preset.hparams)
