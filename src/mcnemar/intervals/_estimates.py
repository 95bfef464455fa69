"""Point estimates of the difference, ratio and conditional odds ratio, and the Wilson score
interval for one proportion.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike

from mcnemar.errors import TableError
from mcnemar.intervals._api import table_estimate
from mcnemar.intervals._inputs import _as_counts, _echo, _finish, _prepare, _Scalar, _z
from mcnemar.intervals._result import ConfidenceInterval, FloatArray
from mcnemar.intervals._roots import _wilson, by_table

# ---------------------------------------------------------------------------------------------
# Point estimates and the one-proportion Wilson interval
# ---------------------------------------------------------------------------------------------


def _scalar_or_array(value: FloatArray, scalar: bool) -> Any:
    return float(value) if scalar else value


def _estimate_inputs(
    names: tuple[str, ...], counts: tuple[ArrayLike, ...]
) -> tuple[list[FloatArray], bool]:
    arrays = _as_counts(names, counts)
    scalar = all(np.ndim(x) == 0 for x in counts)
    try:
        broadcast = np.broadcast_arrays(*arrays)
    except ValueError:
        shapes = ", ".join(f"{n}{np.shape(x)}" for n, x in zip(names, arrays, strict=True))
        raise TableError(f"the counts must broadcast to one shape; got {shapes}") from None
    return [np.asarray(x, dtype=np.float64) for x in broadcast], scalar


def _ratio_of_counts(num: FloatArray, den: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(num / den, dtype=np.float64)


@table_estimate
def difference_estimate(a: ArrayLike, b: ArrayLike, c: ArrayLike, d: ArrayLike) -> Any:
    """Difference in accuracy, accuracy(A) - accuracy(B) = (b - c)/N.

    Parameters
    ----------
    a, b, c, d : int or array_like of int
        Both right, A right and B wrong, A wrong and B right, both wrong.

    Returns
    -------
    float or numpy.ndarray
        (b - c)/(a + b + c + d); nan where N = 0.

    Examples
    --------
    >>> difference_estimate(157, 17, 3, 23)
    0.07
    """
    (aa, bb, cc, dd), scalar = _estimate_inputs(("a", "b", "c", "d"), (a, b, c, d))
    return _scalar_or_array(_ratio_of_counts(bb - cc, aa + bb + cc + dd), scalar)


@table_estimate
def ratio_estimate(a: ArrayLike, b: ArrayLike, c: ArrayLike, d: ArrayLike) -> Any:
    """Ratio of accuracies, accuracy(A)/accuracy(B) = (a + b)/(a + c).

    Parameters
    ----------
    a, b, c, d : int or array_like of int
        Both right, A right and B wrong, A wrong and B right, both wrong (``d`` does not enter
        the estimate; it is accepted so that every function takes the whole table).

    Returns
    -------
    float or numpy.ndarray
        (a + b)/(a + c); ``inf`` where only B has no correct item, nan where neither has.

    Examples
    --------
    >>> ratio_estimate(157, 17, 3, 23)
    1.0875
    """
    (aa, bb, cc, _dd), scalar = _estimate_inputs(("a", "b", "c", "d"), (a, b, c, d))
    return _scalar_or_array(_ratio_of_counts(aa + bb, aa + cc), scalar)


@overload
def odds_ratio_estimate(b: _Scalar, c: _Scalar) -> float: ...


@overload
def odds_ratio_estimate(b: ArrayLike, c: ArrayLike) -> Any: ...


def odds_ratio_estimate(b: ArrayLike, c: ArrayLike) -> Any:
    """Conditional odds ratio b/c (A right and B wrong, over the reverse).

    Parameters
    ----------
    b, c : int or array_like of int
        The discordant counts.

    Returns
    -------
    float or numpy.ndarray
        b/c; ``inf`` where c = 0 < b, nan where b = c = 0.

    Examples
    --------
    >>> odds_ratio_estimate(25, 2)
    12.5
    """
    (bb, cc), scalar = _estimate_inputs(("b", "c"), (b, c))
    return _scalar_or_array(_ratio_of_counts(bb, cc), scalar)


@overload
def wilson_interval(
    x: _Scalar, n: _Scalar, confidence_level: _Scalar = ...
) -> ConfidenceInterval[float]: ...


@overload
def wilson_interval(
    x: ArrayLike, n: ArrayLike, confidence_level: ArrayLike = ...
) -> ConfidenceInterval[Any]: ...


def wilson_interval(
    x: ArrayLike, n: ArrayLike, confidence_level: ArrayLike = 0.95
) -> ConfidenceInterval[Any]:
    r"""Wilson score interval for one binomial proportion x/n, vectorized.

    .. math::

        \frac{2x + z^2 \mp z\sqrt{z^2 + 4x(1 - x/n)}}{2(n + z^2)},
        \qquad z = \Phi^{-1}(1 - \alpha/2).

    Parameters
    ----------
    x : int or array_like of int
        Successes.
    n : int or array_like of int
        Trials (at least ``x``).
    confidence_level : float or array_like, default 0.95
        Strictly between 0 and 1.

    Returns
    -------
    ConfidenceInterval
        Limits in [0, 1]; nan where n = 0.

    References
    ----------
    Wilson EB (1927). Probable inference, the law of succession, and statistical inference.
    Journal of the American Statistical Association 22:209-212.

    Examples
    --------
    >>> print(wilson_interval(174, 200))
    [0.8163, 0.9097]
    """
    (xx, nn), level, shape, scalar = _prepare(("x", "n"), (x, n), confidence_level)
    if (xx > nn).any():
        bad = xx > nn
        raise TableError(f"x must not exceed n; got x = {_echo(xx, bad)} with n = {_echo(nn, bad)}")
    return _finish(*by_table(_wilson, (xx, nn, _z(level))), shape, scalar)


