# The compiled count where it answers (no SymPy import), the full command line otherwise.
import sys

try:
    from paramcount.compiled import entrypoint
except KeyboardInterrupt:  # Ctrl-C while starting: one line, no traceback
    sys.stderr.write("paramcount: interrupted\n")
    sys.exit(130)

entrypoint()
