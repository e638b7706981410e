"""The lowest layer: the vocabulary and the arithmetic every count is made of.

Hyperparameter symbols (:mod:`.symbols`), the formula tree (:mod:`.formula`), hyperparameter values
and their constraints (:mod:`.hparams`, :mod:`.restrictions`), exact integer arithmetic
(:mod:`.exact`, :mod:`.numcore`, :mod:`.exprdata`) and the exceptions for bad input
(:mod:`.errors`). Nothing here imports another layer of paramcount.
"""
