"""The Keras reference of a family whose table names its KerasHub class: that class, built
allocation-free from the constructor arguments the table gives (nothing downloaded).

``Named("reference_models.table:backbone", ("mistral",))`` is Mistral's reference: the class is
the table's ``keras_classes`` entry for the id (``MistralBackbone``), the arguments
``Table.keras_kwargs``. A family whose Keras reference is more than that (a task head, a model of
plain ``keras.layers``, a warning to mute) has its own module in this package instead.
"""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def keras_class(arch_id: str):
    """The KerasHub class the table of ``arch_id`` names for it."""
    from paramcount.model.registry import get

    table = get(arch_id).mapping
    names = [cls for cls, owner in (table.keras_classes if table else {}).items() if owner == arch_id]
    if not names:
        raise TypeError(f"{arch_id}: its table names no KerasHub class for it (keras_classes)")
    return getattr(keras_hub.models, names[0])


def backbone(arch_id: str, hp: dict[str, int]):
    """The backbone of ``arch_id`` at the resolved hyperparameters ``hp``."""
    return from_table(arch_id, keras_class(arch_id), hp)
