"""Published checkpoints whose full-size headers the tests write (``tests/configs/<file>``, the
names as the published safetensors store them) and the figure the Hugging Face Hub shows for
each: the sum of the shapes in its safetensors headers. Each family folder's ``checkpoints.py``
declares its own; :data:`PUBLISHED` is every folder's, merged."""

from __future__ import annotations

from paramcount.model import discovery

__all__ = ["PUBLISHED"]

# config file in tests/configs → (Hub repository, the Hub's safetensors total, stored layout,
# the stored-versus-built terms that explain the Hub figure: (term, elements))
PUBLISHED: dict[str, tuple[str, int, str, tuple[tuple[str, int], ...]]] = (
    discovery.family_tables("checkpoints", "PUBLISHED"))
