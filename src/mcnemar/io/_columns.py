"""Names of the columns inside engine queries, and the object arrays readers hand on.

Shared by :mod:`mcnemar.io._run` and :mod:`mcnemar.io._engine`, below both, so that neither
imports the other back.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# Column names used inside engine queries; chosen so they cannot clash with user columns.
KEY_PREFIX = "__mcn_k"
SCORE_COL = "__mcn_s"
SAMPLE_COL = "__mcn_e"
CLUSTER_COL = "__mcn_c"


def object_array(values: list[Any]) -> np.ndarray:
    """A 1-D object array (tuples stay tuples instead of becoming a 2-D array)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out
