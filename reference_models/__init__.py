"""Keras reference models: for each architecture, a function from hyperparameters to a model.

KerasHub's backbone or task model where KerasHub has the model, plain ``keras.layers`` otherwise.
Models are built from constructor arguments only (never ``from_preset``: nothing is downloaded)
and without allocating their weights (see :func:`reference_models._build.stateless`).

Every builder takes one argument, the resolved hyperparameters (a ``dict[str, int]`` keyed by
paramcount's symbol names), and returns a built ``keras.Model``. Importing this package imports
Keras and TensorFlow: only the verifier does so, lazily.
"""
