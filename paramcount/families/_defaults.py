"""What families share whatever their lineage, given once (issue 29 §3).

:func:`keras_hub_backbone`: an architecture KerasHub builds is checked against the class its
table names (``reference_models.table``, built from the table's own rows), reads its published
presets from the file named like its id, is counted by KerasHub's own ``params`` metadata and
comes from KerasHub; a family names only what differs (a hand-built reference, presets of another
name, no metadata for a task model). :func:`family_table`: a table names the classes that build
its id and its ``model_type`` in one line.

A lineage module is no family: its name starts with ``_``, so discovery skips it.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping

from paramcount.core.restrictions import Restriction
from paramcount.core.restrictions import Sets
from paramcount.model import discovery
from paramcount.model.mapping import Field
from paramcount.model.mapping import Table
from paramcount.model.registry import Architecture
from paramcount.model.weights import Named

__all__ = ["family_table", "keras_hub_backbone", "token_ids_unset"]


def keras_hub_backbone(arch_id: str, **fields) -> Architecture:
    """The Architecture ``arch_id`` with KerasHub's defaults (reference, presets ``<id>``,
    metadata, origin) under the family's ``fields``, which may override any of them. KerasHub's
    metadata is read from the presets: without presets (``presets=None``), none by default."""
    presets = fields.get("presets", arch_id)
    defaults = dict(reference=Named("reference_models.table:backbone", (arch_id,)), presets=arch_id,
                    keras_hub_metadata=presets is not None, family="keras_hub")
    return Architecture(id=arch_id, **{**defaults, **fields})


def family_table(arch_id: str, *, hf: str | tuple[str, ...], keras: str | None = None, fields: Iterable[Field],
                 model_type: str | None = None, restrictions: Iterable[Restriction] = (),
                 free: Iterable[str] = (), base_free: frozenset[str] = frozenset(),
                 tasks: Mapping[str, str] | None = None, **more) -> Table:
    """A family's table: its ``fields`` (in order), the transformers class ``hf`` (or classes)
    and (where KerasHub builds it too) the KerasHub class ``keras`` that build ``arch_id``, the
    transformers classes of its ``tasks`` (class → the id of the task model it builds), its
    ``model_type`` (the id by default), its restriction rows, and its ``free`` keys (with those
    its folder's ``about.toml`` lists) beside a lineage's ``base_free``; any other Table field in
    ``more``."""
    classes = {name: arch_id for name in ((hf,) if isinstance(hf, str) else hf)}
    return Table(fields=tuple(fields), model_type=model_type or arch_id, hf_classes={**classes, **(tasks or {})},
                 keras_classes={keras: arch_id} if keras else {}, restrictions=tuple(restrictions),
                 free=base_free | frozenset(free) | frozenset(discovery.said(arch_id, "free", ())), **more)


def token_ids_unset(config: str, ids: str, **effects: str) -> tuple[Sets, ...]:
    """The rows writing unset the token ids (``pad_token_id``, ...) whose defaults in ``config``
    (``ids``) lie past a small vocabulary, each with what keeping it does (``effects``)."""
    past = f"{config}'s default token ids ({ids}) lie past a small vocabulary"
    return tuple(Sets(key, None, why=f"{past}: {effect}") for key, effect in effects.items())


def not_formulated(arch_id: str, **reasons: str) -> Architecture:
    """The registered ``arch_id`` declaring memory-and-compute quantities not formulated
    (``flops="why"``, ``kv="why"``: ``Transformers.not_formulated``, on each of its classes), for
    the family to register again (``register(..., replace=True)``):
    :func:`paramcount.model.frameworks.unformulated` and the CLI give the reason, no number."""
    import dataclasses

    from paramcount.model.registry import get

    arch = get(arch_id)

    def put(t):
        return dataclasses.replace(t, not_formulated={**t.not_formulated, **reasons},
                                   variants=tuple(put(x) for x in t.variants))

    return dataclasses.replace(arch, transformers=put(arch.transformers))
