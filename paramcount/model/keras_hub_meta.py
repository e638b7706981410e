"""KerasHub's published parameter counts, read from its installed preset files without importing it.

Every KerasHub model folder has a ``<model>_presets.py`` holding a ``backbone_presets`` dict whose
entries carry ``metadata["params"]``. That figure is independent of our formula and of our build,
so it is a second check. Reading the file as data (``ast.literal_eval``) keeps TensorFlow out.
"""

from __future__ import annotations

import ast
import importlib.util
from functools import cache
from pathlib import Path

__all__ = ["UNLISTED", "keras_hub_root", "preset_model", "preset_names", "published_params"]


def keras_hub_root() -> Path | None:
    spec = importlib.util.find_spec("keras_hub")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@cache
def _all_presets() -> dict[str, dict]:
    root = keras_hub_root()
    out: dict[str, dict] = {}
    if root is None:
        return out
    for path in sorted((root / "src" / "models").glob("*/*_presets.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id == "backbone_presets"):
                try:
                    presets = ast.literal_eval(node.value)
                except ValueError:
                    continue
                for name, entry in presets.items():
                    out[name] = {**entry.get("metadata", {}), "_model": path.parent.name}
    return out


def published_params(preset: str) -> int | None:
    """The ``params`` figure KerasHub publishes for a preset, or None if it has none."""
    meta = _all_presets().get(preset)
    if not meta or not isinstance(meta.get("params"), int):
        return None
    return meta["params"]


def preset_names() -> list[str]:
    return sorted(_all_presets())


def preset_model(preset: str) -> str | None:
    """The KerasHub model folder a preset belongs to (``bert`` for ``bge_small_en``), or None."""
    meta = _all_presets().get(preset)
    return None if meta is None else meta["_model"]


#: KerasHub presets of a family paramcount covers that no preset file lists, each with the reason
#: (a test keeps this table and the preset files together covering every such preset).
UNLISTED: dict[str, str] = dict.fromkeys(
    ("t5gemma_ml_ml_ul2", "t5gemma_ml_ml_prefixlm", "t5gemma_ml_ml_ul2_it",
     "t5gemma_ml_ml_prefixlm_it"),
    "T5Gemma ML size: its shape is not confirmed from a published source offline",
)

# Gemma 3n: the text decoder is formulated (``gemma3n``), the rest of the checkpoint is not.
UNLISTED.update(dict.fromkeys(
    ("gemma3n_e2b", "gemma3n_e2b_it", "gemma3n_e4b", "gemma3n_e4b_it"),
    "Gemma 3n: multimodal checkpoint; its MobileNetV5 vision encoder and Conformer audio encoder "
    "(and their embedders) are not yet formulated, only the text decoder (gemma3n)",
))

# Gemma 4: the dense text decoder is formulated (``gemma4``, examples only); the checkpoints hold
# more than it counts.
UNLISTED.update(dict.fromkeys(
    ("gemma4_2b", "gemma4_instruct_2b", "gemma4_4b", "gemma4_instruct_4b", "gemma4_31b",
     "gemma4_instruct_31b", "gemma4_instruct_2b_assistant", "gemma4_instruct_4b_assistant",
     "gemma4_instruct_31b_assistant"),
    "Gemma 4: multimodal checkpoint; its vision and audio encoders, per-layer input embeddings and "
    "key/value-sharing layers are not yet formulated, only the dense text decoder (gemma4); "
    "KerasHub's published figures are rounded",
))
UNLISTED.update(dict.fromkeys(
    ("gemma4_26b_a4b", "gemma4_instruct_26b_a4b", "gemma4_instruct_26b_a4b_assistant"),
    "Gemma 4 26B-A4B: its mixture-of-experts blocks and multimodal encoders are not yet "
    "formulated (gemma4 covers the dense text decoder)",
))
# T5Gemma 2: the text encoder-decoder is formulated (``t5gemma2``, examples only).
UNLISTED.update(dict.fromkeys(
    ("t5gemma2_270m_270m", "t5gemma2_1b_1b", "t5gemma2_4b_4b"),
    "T5Gemma 2: every released checkpoint holds a SigLIP vision encoder and two end-of-image "
    "embeddings, not yet formulated; only the text encoder-decoder (t5gemma2) is",
))
