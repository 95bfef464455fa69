"""The settings of a planning call: the numbers of items and the discordant probabilities
(p10, p01), checked, broadcast, flattened for the computation and put back in the input's shape
for the result. Used by :func:`mcnemar.planning.power`, :func:`mcnemar.planning.sample_size`
and their margin versions in :mod:`mcnemar.margin_planning`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from mcnemar.errors import McNemarError
from mcnemar.planning._validation import _check_n, _resolve_probabilities

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Settings:
    """Flat arrays of n, p10 and p01 (one element per setting) and the broadcast shape."""

    n: FloatArray
    p10: FloatArray
    p01: FloatArray
    shape: tuple[int, ...]

    def out(self, values: FloatArray) -> Any:
        """One value per setting: a float for scalar input, an array of the shape otherwise."""
        return float(values[0]) if self.shape == () else values.reshape(self.shape)

    def fields(self) -> dict[str, Any]:
        """``n`` (int or int64 array), ``p10`` and ``p01`` as the result echoes them."""
        if self.shape == ():
            return {"n": int(self.n[0]), "p10": float(self.p10[0]), "p01": float(self.p01[0])}
        return {
            "n": self.n.astype(np.int64).reshape(self.shape),
            "p10": self.p10.reshape(self.shape),
            "p01": self.p01.reshape(self.shape),
        }


def power_settings(
    n: Any, p10: Any, p01: Any, difference: Any, discordance: Any, table: Any
) -> Settings:
    """Check ``n`` and the probabilities (given any of the three ways) and broadcast them."""
    n_arr = _check_n(n)
    q10, q01 = _resolve_probabilities(p10, p01, difference, discordance, table)
    n_b, a_b, b_b = np.broadcast_arrays(n_arr, q10, q01)
    nf, af, bf = (np.ascontiguousarray(x, dtype=np.float64).ravel() for x in (n_b, a_b, b_b))
    return Settings(nf, af, bf, n_b.shape)


def one_setting(
    p10: Any, p01: Any, difference: Any, discordance: Any, table: Any
) -> tuple[float, float]:
    """(p10, p01) of a sample-size call, which takes one setting."""
    q10, q01 = _resolve_probabilities(p10, p01, difference, discordance, table)
    if q10.ndim != 0:
        raise McNemarError(
            f"sample_size takes one setting (scalar probabilities); got arrays of shape "
            f"{q10.shape}. Call it once per setting"
        )
    return float(q10), float(q01)
