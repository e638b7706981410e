"""pytest plugin (entry point ``pytest11``): the ``assert_param_count`` fixture.

Installed with paramcount, so a user's tests can ask for it without importing anything::

    def test_my_model(assert_param_count):
        assert_param_count(build_my_model(), "gpt2", preset="gpt2_base_en")

The fixture is :func:`paramcount.testing.assert_param_count`. Loading the plugin imports nothing
heavy (no TensorFlow, no SymPy) until a test asks for the fixture.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def assert_param_count():
    """Assert that a Keras model has, component by component, the parameters of a formula:
    ``assert_param_count(model, "gpt2", v=..., L=...)`` or ``(model, "gpt2", preset=...)``."""
    from paramcount.testing import assert_param_count as helper

    return helper

