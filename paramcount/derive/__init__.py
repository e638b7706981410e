"""Derived formulas: a model's exact parameter count, found from its builds and then proven."""
