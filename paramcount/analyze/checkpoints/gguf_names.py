"""The third name table: GGUF tensor names (llama.cpp's ``convert_hf_to_gguf.py``) → the
transformers names the families already declare, per GGUF architecture, and the transformers
config its metadata gives. A GGUF tensor is then attributed exactly as a safetensors one.

The names are not retyped here: llama.cpp's own ``gguf`` package declares, per architecture,
the tensors it stores (``gguf.MODEL_TENSORS`` → ``gguf.TENSOR_NAMES``: ``blk.{bid}.attn_q``) and
the transformers names each one is converted from (``gguf.TensorNameMap``:
``model.layers.{bid}.self_attn.q_proj``, ``model.layers.{bid}.mlp.gate_proj``, ...).
:mod:`paramcount.analyze.checkpoints.gguf_io` inverts that map: every transformers name a GGUF
tensor may come from is a candidate, and :mod:`paramcount.analyze.checkpoints.check` keeps the
one the family's formula tree claims (the first, each transformers name taken once).

A table (:class:`~paramcount.model.checkpoint_tables.GGUFTable`, keyed by
``general.architecture``) declares only what that map does not say: the config the metadata
stand for, name overrides, pieces to fuse, metadata keys and layout rules, what the converter
leaves out (:class:`~paramcount.model.checkpoint_tables.Dropped`). Each is declared by the family
whose transformers class it reads as, in its folder's ``checkpoints.py``; :data:`TABLES` is every
folder's, merged (loaded by path: no family's formula is imported to read a GGUF file).
"""

from __future__ import annotations

from paramcount.model import discovery
from paramcount.model.checkpoint_tables import Dropped, GGUFTable

__all__ = ["TABLES", "Dropped", "GGUFTable"]

TABLES: dict[str, GGUFTable] = discovery.family_tables("checkpoints", "GGUF_TABLES")
