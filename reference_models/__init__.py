"""Keras reference models: for each architecture, a function from hyperparameters to a model.

KerasHub's backbone or task model where KerasHub has the model, plain ``keras.layers`` otherwise.
Models are built from constructor arguments only (never ``from_preset``: nothing is downloaded)
and without allocating their weights (see :func:`reference_models._build.stateless`).

Every builder takes one argument, the resolved hyperparameters (a ``dict[str, int]`` keyed by
paramcount's symbol names), and returns a built ``keras.Model``. Importing this package imports
nothing heavy: the transformers reference (:mod:`reference_models.hf`) needs torch alone, and
TensorFlow's import costs some 5 s a process. Whoever is about to build a Keras model calls
:func:`import_keras` first (the verifier's ``build_reference``, the prover's oracle), so that
TensorFlow's C++ start-up notices are muted before any builder module imports Keras.
"""

import os
import sys


def import_keras() -> None:
    """Import TensorFlow, Keras and KerasHub with the C++ side's stderr silenced.

    TensorFlow 2.21 logs oneDNN and CUDA-probing notices from C++ on every start, whatever
    TF_CPP_MIN_LOG_LEVEL says; they would bury the CLI's own output. Only the import is silenced:
    a failing import still raises, with its Python traceback, after stderr is restored.
    """
    if "keras_hub" in sys.modules:
        return
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        import keras  # noqa: F401
        import keras_hub  # noqa: F401
        import tensorflow  # noqa: F401
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)

