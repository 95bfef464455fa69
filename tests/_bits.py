"""The bits of a double, for tests that compare two routes of a computation to the last bit."""

from __future__ import annotations

import math
import struct


def float_bits(x: float) -> bytes:
    """The float's bits, one pattern for every NaN (numpy's and Python's differ in sign)."""
    return b"nan" if math.isnan(x) else struct.pack("<d", x)
