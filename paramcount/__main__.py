# The compiled count where it answers (no SymPy import), the full command line otherwise.
from paramcount.compiled import entrypoint

entrypoint()
