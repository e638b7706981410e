"""Speech encoder-decoders: the shared audio component (the 1-D convolution) that the generic
conformance test (every preset and example verified against Keras) does not cover. (Whisper's and
Moonshine's own figures are tested beside them: paramcount/families/<f>/<f>_test.py.)"""

from __future__ import annotations

import sympy

from paramcount.core.symbols import d_e
from paramcount.model.components.audio import conv1d, n_mels


def test_conv1d_counts_kernel_width_times_channels_plus_bias():
    assert sympy.expand(conv1d("c", n_mels, d_e, kernel=3).expr - (3 * n_mels * d_e + d_e)) == 0
    assert sympy.expand(conv1d("c", 1, d_e, kernel=127, bias=0).expr - 127 * d_e) == 0
