from paramcount.cli import entrypoint

entrypoint()
