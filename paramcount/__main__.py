# `python -m paramcount`: the command as the console script runs it (paramcount.cli.main takes the
# compiled count where it answers, without importing SymPy; the full command line otherwise).
import sys

try:
    from paramcount.cli.main import entrypoint
except KeyboardInterrupt:  # Ctrl-C while starting: one line, no traceback
    sys.stderr.write("paramcount: interrupted\n")
    sys.exit(130)

entrypoint()
