"""Built-in architectures, one module per family; each module registers its own.

:func:`paramcount.registry.architectures` imports every module here on first use.
"""
