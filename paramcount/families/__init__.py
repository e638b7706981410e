"""Built-in architectures, one folder per family: ``families/<family>/`` holds everything of it.

A family's folder holds:

- ``__init__.py``: its formula, config table (:class:`paramcount.model.mapping.Table`), transformers
  weight names and deltas (:class:`paramcount.model.frameworks.Transformers`), and the
  :func:`paramcount.model.registry.register` calls; its first statement after the imports is
  ``IDS = (...)``, the ids it registers, written as a literal;
- ``about.toml``: what it says of each id it registers (title, source, counting, the ``free``
  config keys of its table, example sets), as data (:func:`paramcount.model.discovery.about`);
- ``presets.toml``: the published presets named like the folder (``presets="<family>"``), and
  ``<name>.toml`` for presets named otherwise (``deepseek/deepseek_v3.toml``);
- the tables a central mechanism applies to it, each a module of data beside its formula:
  ``heads.py`` (``CLASSES``, by id: its further transformers classes, :mod:`paramcount.model.heads`),
  ``options.py`` (``OPTIONS``, by id: options only transformers builds,
  :mod:`paramcount.model.options`), ``caches.py`` (``KERAS_CACHE``, by id: where KerasHub's
  generation cache is not the KV-cache tree, :mod:`paramcount.model.keras_cache`),
  ``unlisted.py`` (``UNLISTED``, by KerasHub preset: the presets no preset file lists, with the
  reason), ``checkpoints.py`` (how its released checkpoints are
  stored: ``GGUF`` / ``NO_GGUF`` by id, ``GGUF_TABLES``, ``LAYOUTS``, ``PUBLISHED``, in the terms
  of :mod:`paramcount.model.checkpoint_tables`). :func:`paramcount.model.discovery.family_table` loads one by its path,
  without the family's formula; no central module names a family.

The Keras reference is the table's own class (``reference_models.table``) unless the family is
hand-built in ``reference_models/<family>.py``.

:mod:`paramcount.model.discovery` finds the folders and the ids they declare by reading them as
text, so that asking for one family imports that family alone.
"""
