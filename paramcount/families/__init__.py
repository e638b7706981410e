"""Built-in architectures, one folder per family: ``families/<family>/`` holds everything of it.

A family's folder holds:

- ``__init__.py``: its formula, config table (:class:`paramcount.model.mapping.Table`), transformers
  weight names and deltas (:class:`paramcount.model.frameworks.Transformers`), and the
  :func:`paramcount.model.registry.register` calls; its first statement after the imports is
  ``IDS = (...)``, the ids it registers, written as a literal;
- ``presets.toml``: the published presets named like the folder (``presets="<family>"``), and
  ``<name>.toml`` for presets named otherwise (``deepseek/deepseek_v3.toml``).

The Keras reference is the table's own class (``reference_models.table``) unless the family is
hand-built in ``reference_models/<family>.py``.

:mod:`paramcount.model.discovery` finds the folders and the ids they declare by reading them as
text, so that asking for one family imports that family alone.
"""
