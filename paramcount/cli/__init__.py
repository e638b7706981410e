"""The ``paramcount`` command line: the parser and dispatch (:mod:`.main`) and one module per
group of commands. Each command collects a result from the analyses and hands it to
:mod:`paramcount.output` to format."""
