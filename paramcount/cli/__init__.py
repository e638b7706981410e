"""The ``paramcount`` command line: the parser and dispatch (:mod:`.main`) and one module per
group of commands (:mod:`.count`, :mod:`.checks`, :mod:`.derive`, :mod:`.checkpoint`; the
compiled count's own parser, :mod:`.fast`). Each command collects a result from the analyses and
hands it to :mod:`paramcount.output` to format (``count``: :mod:`~paramcount.output.count_result`;
``derive``: :mod:`~paramcount.output.derive_output`; ``list``, ``verify``, ``prove``:
:mod:`~paramcount.output.commands`); no module here words a line of output.

Where the heavy dependencies enter (why so many imports here sit inside functions):

- **SymPy**: through :mod:`paramcount.model.registry`, bound by :func:`.main._load` once the
  compiled count (:mod:`.fast`) has declined; nothing imported at start-up imports it
  (``tests/test_compiled.py`` checks), so the commands' modules import the registry, the
  analyses and :mod:`paramcount.output` inside the command functions.
- **TensorFlow / Keras**: only in the verify and prove jobs, through
  ``reference_models.import_keras`` (:mod:`paramcount.analyze.builds`, the prover's oracle).
- **torch / transformers**: only in a torch worker (:func:`paramcount.runtime.isolate.call`),
  which :mod:`.derive` hands its work to; the worker returns a result, printed here.
"""
