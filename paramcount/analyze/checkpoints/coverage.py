"""Which checkpoint formats each family with a transformers reference is checked in.

- safetensors: every one (``tests/test_checkpoints_hf.py`` writes each family's checkpoint as
  ``save_pretrained`` does, from a meta-device build, and checks it tensor by tensor);
- GGUF: :data:`GGUF` names the architecture llama.cpp's converter writes the family as
  (``tests/test_checkpoints_gguf_hf.py`` writes that file and reads it back through the table);
  :data:`NO_GGUF` says why a family has no GGUF check. Both are the family folders' own
  (``families/<family>/checkpoints.py``), merged.

``tests/test_checkpoints_gguf_hf.py`` holds the two to the registry: a new family with a
transformers reference and neither fails, as does an entry here no test backs.
"""

from __future__ import annotations

from paramcount.model import discovery

__all__ = ["GGUF", "NO_GGUF", "rows"]

# id → the GGUF architectures (general.architecture) llama.cpp writes it as, and id → why no GGUF
# of it is checked: each family folder's checkpoints.py declares its own ids'
GGUF: dict[str, tuple[str, ...]] = discovery.family_tables("checkpoints", "GGUF")
NO_GGUF: dict[str, str] = discovery.family_tables("checkpoints", "NO_GGUF")


def rows() -> list[tuple[str, str, str]]:
    """(family id, safetensors, GGUF) for every family with a transformers reference."""
    from paramcount.model import registry

    out = []
    for arch_id, arch in sorted(registry.architectures().items()):
        if arch.transformers is None:
            continue
        gguf = ", ".join(f"`{g}`" for g in GGUF[arch_id]) if arch_id in GGUF else (
            f"none: {NO_GGUF[arch_id]}" if arch_id in NO_GGUF else "**neither**")
        out.append((arch_id, "checked", gguf))
    return out
