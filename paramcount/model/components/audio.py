"""Components of speech models: the convolutional front ends that turn audio (a log-mel
spectrogram, or the raw waveform) into a sequence the transformer reads.

A 1-D convolution of kernel width K from c_in to c_out channels holds K·c_in·c_out weights and,
with a bias, c_out more; stride and padding change the sequence length, never the count.
"""

from __future__ import annotations

from paramcount.core.formula import Term, leaf
from paramcount.core.symbols import n_audio, n_mels

__all__ = ["conv1d", "n_audio", "n_mels"]



def conv1d(name: str, c_in, c_out, *, kernel, bias=1, match: str | None = None,
           note: str = "", kind: str = "embedding") -> Term:
    """A 1-D convolution: ``kernel·c_in·c_out`` weights plus ``bias·c_out`` biases. Its kind is
    ``embedding`` by default: a speech model's convolutional front end embeds the input (the
    audio analogue of ViT's patch convolution)."""
    if not note:
        note = f"convolution, kernel width {kernel}" + ("" if bias == 1 else
                                                       ", no bias" if bias == 0 else "")
    return leaf(name, kernel * c_in * c_out + bias * c_out, match=match, note=note, kind=kind)
