"""What an architecture is: the registry, the shared components formulas are built from, the
config tables (:mod:`.mapping`), transformers' weight names and deltas (:mod:`.frameworks`), task
heads and options, presets and cards. Imports only :mod:`paramcount.core`; the families
(:mod:`paramcount.families`) build on it and are found by name (:mod:`.discovery`)."""
