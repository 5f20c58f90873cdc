"""The seed papers' own convergence and efficiency estimators, in plain NumPy.

These are deliberately literal implementations of the formulas printed in the seed papers, so that
reported numbers can be compared with the papers' tables. They use no JAX and run on host arrays.

* van de Meent, Paige & Wood (2014), *Tempering by Subsampling*, Eqs. 4-8: the between/within-chain
  variance decomposition, the potential scale reduction R-hat and the between-chain effective sample
  size. Eq. 6 as printed omits a square; it is restored here.
* Wang & Neal (2013), *MCMC Methods for Gaussian Process Models Using Fast Approximations for the
  Likelihood*, Eqs. 43-44: the autocorrelation time truncated at the last significant lag.
* ESS per second / per unit of cost: plain ratios (van de Meent et al. report ESS normalised by wall
  clock time; Wang & Neal multiply autocorrelation time by CPU time per iteration).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "GelmanRubin",
    "autocorrelation",
    "autocorrelation_time",
    "effective_sample_size_act",
    "ess_between_chain",
    "ess_per_cost",
    "ess_per_second",
    "gelman_rubin",
]


class GelmanRubin(NamedTuple):
    """Result of :func:`gelman_rubin`.

    Every field is a Python ``float`` for input of shape ``(C, S)`` and an array of the trailing
    shape for input of shape ``(C, S, ...)``.

    Attributes
    ----------
    var_hat
        Pooled estimate of the marginal posterior variance, Var-hat (Eq. 4).
    between
        Between-chain variance B (Eq. 5).
    within
        Within-chain variance W (Eq. 6, square restored).
    rhat
        Potential scale reduction R-hat (Eq. 7).
    """

    var_hat: float | np.ndarray
    between: float | np.ndarray
    within: float | np.ndarray
    rhat: float | np.ndarray


def _as_scalar_or_array(a: np.ndarray) -> float | np.ndarray:
    """Return a Python float for a 0-d array, the array itself otherwise."""
    return float(a) if np.ndim(a) == 0 else a


def _chains_array(x: ArrayLike) -> np.ndarray:
    """Validate and convert input of shape ``(C, S, ...)`` with C >= 2 and S >= 2."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim < 2:
        raise ValueError(
            f"expected an array of shape (C, S, ...) (C chains of S draws); got shape {arr.shape}"
        )
    n_chains, n_draws = arr.shape[0], arr.shape[1]
    if n_chains < 2:
        raise ValueError(
            f"need at least C = 2 chains for between-chain statistics; got C = {n_chains}"
        )
    if n_draws < 2:
        raise ValueError(f"need at least S = 2 draws per chain; got S = {n_draws}")
    return arr


def _variance_components(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """B, W and Var-hat (Eqs. 5, 6, 4) of a validated ``(C, S, ...)`` array (reduces axes 0, 1)."""
    n_chains, n_draws = arr.shape[0], arr.shape[1]
    chain_means = arr.mean(axis=1)  # (C, ...)
    grand_mean = chain_means.mean(axis=0)  # (...)
    between = n_draws / (n_chains - 1) * np.sum((chain_means - grand_mean) ** 2, axis=0)
    within = np.mean(np.var(arr, axis=1, ddof=1), axis=0)
    var_hat = (n_draws - 1) / n_draws * within + between / n_draws
    return between, within, var_hat


def gelman_rubin(x: ArrayLike) -> GelmanRubin:
    r"""Potential scale reduction R-hat of van de Meent, Paige & Wood (2014), Eqs. 4-7.

    With :math:`\theta_{cs}` draw ``s`` of chain ``c`` (C chains, S draws each),
    :math:`\bar\theta_c` the mean of chain ``c`` and :math:`\bar\theta` the mean of the chain means:

    .. math::

        B &= \frac{S}{C-1} \sum_{c=1}^{C} (\bar\theta_c - \bar\theta)^2
            && \text{(Eq. 5)} \\
        W &= \frac{1}{C} \sum_{c=1}^{C} \Big[ \frac{1}{S-1}
            \sum_{s=1}^{S} (\theta_{cs} - \bar\theta_c)^2 \Big]
            && \text{(Eq. 6)} \\
        \widehat{\mathrm{Var}} &= \frac{S-1}{S} W + \frac{1}{S} B
            && \text{(Eq. 4)} \\
        \hat R &= \sqrt{\widehat{\mathrm{Var}} / W}
            && \text{(Eq. 7)}

    Eq. 6 as printed in the paper omits the square on :math:`(\theta_{cs} - \bar\theta_c)`; that
    sum is identically zero, so the square is restored here (W is then the mean of the per-chain
    unbiased sample variances, as in Gelman & Rubin's original statistic). No chain splitting,
    rank normalisation or folding is applied: this is the paper's statistic, not ArviZ's R-hat.

    Parameters
    ----------
    x
        Draws of shape ``(C, S)`` or ``(C, S, ...)``; C >= 2 chains of S >= 2 draws. Trailing
        dimensions are treated independently (vectorised, one statistic per element).

    Returns
    -------
    GelmanRubin
        ``(var_hat, between, within, rhat)``; Python floats for ``(C, S)`` input, arrays of shape
        ``x.shape[2:]`` otherwise. Where W = 0 (every chain constant) R-hat is ``inf`` if B > 0
        and ``nan`` if B = 0; no warning is emitted.

    Raises
    ------
    ValueError
        If ``x`` has fewer than 2 dimensions, C < 2 or S < 2.
    """
    arr = _chains_array(x)
    between, within, var_hat = _variance_components(arr)
    with np.errstate(divide="ignore", invalid="ignore"):
        rhat = np.sqrt(var_hat / within)
    return GelmanRubin(
        var_hat=_as_scalar_or_array(var_hat),
        between=_as_scalar_or_array(between),
        within=_as_scalar_or_array(within),
        rhat=_as_scalar_or_array(rhat),
    )


def ess_between_chain(x: ArrayLike) -> float | np.ndarray:
    r"""Between-chain effective sample size of van de Meent, Paige & Wood (2014), Eq. 8.

    .. math::

        \mathrm{ESS} = C \cdot S \cdot \min\big(1, \widehat{\mathrm{Var}} / B\big)
        \qquad \text{(Eq. 8)}

    with :math:`\widehat{\mathrm{Var}}` and B as in :func:`gelman_rubin` (Eqs. 4-5). When B = 0 (all
    chain means equal) the ratio is taken as +infinity, so the minimum is 1 and ESS = C * S; this
    case is handled without division warnings. Since Var-hat >= B / S, ESS is at least C.

    Parameters
    ----------
    x
        Draws of shape ``(C, S)`` or ``(C, S, ...)``; C >= 2, S >= 2. Trailing dimensions are
        treated independently.

    Returns
    -------
    float or numpy.ndarray
        A float for ``(C, S)`` input, an array of shape ``x.shape[2:]`` otherwise.

    Raises
    ------
    ValueError
        If ``x`` has fewer than 2 dimensions, C < 2 or S < 2.
    """
    arr = _chains_array(x)
    n_chains, n_draws = arr.shape[0], arr.shape[1]
    between, _, var_hat = _variance_components(arr)
    positive = between > 0
    ratio = np.divide(var_hat, between, out=np.ones_like(var_hat), where=positive)
    ess = n_chains * n_draws * np.minimum(1.0, ratio)
    return _as_scalar_or_array(ess)


def autocorrelation(x: ArrayLike, max_lag: int | None = None) -> np.ndarray:
    r"""Sample autocorrelations :math:`\hat\rho_0, \dots, \hat\rho_{\mathrm{max\_lag}}` of a series.

    With :math:`y_t = x_t - \bar x` (t = 1..M) the autocovariances use the 1/M convention,

    .. math::

        \hat c_i = \frac{1}{M} \sum_{t=1}^{M-i} y_t \, y_{t+i}, \qquad
        \hat\rho_i = \hat c_i / \hat c_0,

    computed by FFT (zero padding to at least 2M, so no circular wrap-around). These are the
    :math:`\hat\rho_i` of Wang & Neal (2013), Eq. 44. The 1/M convention (rather than 1/(M-i))
    keeps the estimated autocorrelation sequence positive semi-definite.

    Parameters
    ----------
    x
        A 1-D series of length M >= 2.
    max_lag
        Largest lag returned, ``0 <= max_lag <= M - 1``; default ``M - 1``.

    Returns
    -------
    numpy.ndarray
        Shape ``(max_lag + 1,)``; element 0 is exactly 1.

    Raises
    ------
    ValueError
        If ``x`` is not 1-D, has fewer than 2 elements, contains non-finite values, is constant
        (zero lag-0 autocovariance), or ``max_lag`` is out of range.
    """
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"autocorrelation expects a 1-D series; got shape {arr.shape}")
    n = arr.shape[0]
    if n < 2:
        raise ValueError(f"autocorrelation needs a series of length >= 2; got {n}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("autocorrelation: series contains non-finite values")
    if np.all(arr == arr[0]):
        raise ValueError("autocorrelation is undefined for a constant series (zero variance)")
    if max_lag is None:
        max_lag = n - 1
    max_lag = int(max_lag)
    if not 0 <= max_lag <= n - 1:
        raise ValueError(f"max_lag must lie in [0, M - 1] = [0, {n - 1}]; got {max_lag}")

    y = arr - arr.mean()
    n_fft = 1 << (2 * n - 1).bit_length()  # power of two >= 2M: linear, not circular, correlation
    spectrum = np.fft.rfft(y, n=n_fft)
    acov = np.fft.irfft(spectrum * np.conj(spectrum), n=n_fft)[: max_lag + 1] / n
    return acov / acov[0]


def _autocorrelation_time_1d(x: np.ndarray, z: float, max_lag: int | None) -> float:
    """Eq. 44 for one 1-D series (see :func:`autocorrelation_time`)."""
    n = x.shape[0]
    if n < 2:
        raise ValueError(f"autocorrelation_time needs a series of length >= 2; got {n}")
    if max_lag is None:
        max_lag = min(n - 1, n // 2)
    rho = autocorrelation(x, max_lag=max_lag)
    lags_rho = rho[1:]  # rho_1 .. rho_max_lag
    if lags_rho.size == 0:
        return 1.0
    # Bartlett: se_i = sqrt((1 + 2 * sum_{j=1}^{i-1} rho_j^2) / M), i = 1 .. max_lag.
    cum_sq = np.concatenate(([0.0], np.cumsum(lags_rho[:-1] ** 2)))
    se = np.sqrt((1.0 + 2.0 * cum_sq) / n)
    insignificant = np.abs(lags_rho) < z * se
    k = int(np.argmax(insignificant)) if insignificant.any() else lags_rho.size
    return float(1.0 + 2.0 * np.sum(lags_rho[:k]))


def autocorrelation_time(x: ArrayLike, z: float = 2.0, max_lag: int | None = None) -> float:
    r"""Truncated autocorrelation time of Wang & Neal (2013), Eq. 44.

    .. math::

        \hat\tau = 1 + 2 \sum_{i=1}^{k} \hat\rho_i  \qquad \text{(Eq. 44)}

    "where k is a point where for all i > k, :math:`\hat\rho_i` is not significantly different from
    0". Our reading: let M be the series length and :math:`\hat\rho_i` the sample autocorrelations
    of :func:`autocorrelation`. Bartlett's large-lag standard error of :math:`\hat\rho_i` is

    .. math::

        \mathrm{se}_i = \sqrt{\Big(1 + 2 \sum_{j=1}^{i-1} \hat\rho_j^2\Big) / M}.

    Lags i = 1, 2, ..., max_lag are scanned in order; the first lag with
    :math:`|\hat\rho_i| < z \, \mathrm{se}_i` (strictly) is the first insignificant one, and k is
    the lag just before it (k = 0, hence :math:`\hat\tau = 1`, if :math:`\hat\rho_1` is already
    insignificant). If no lag up to max_lag is insignificant, k = max_lag. Later lags are not
    re-examined: the sum is cut at the first insignificant lag, the usual practical form of Eq. 44.

    :math:`\hat\tau` is returned as computed, without clipping: it can be below 1 (and even
    negative) for antithetic chains whose leading autocorrelations are negative.

    Parameters
    ----------
    x
        A 1-D series of length M, or an array of shape ``(C, S)`` holding C chains of the same
        scalar quantity. For 2-D input :math:`\hat\tau` is computed separately for each chain
        (M = S, each chain with its own mean and truncation point) and the mean over chains is
        returned.
    z
        Significance multiplier (default 2, roughly a two-sided 95% test); must be finite and
        >= 0. ``z = 0`` never truncates, so k = max_lag.
    max_lag
        Largest lag searched, ``0 <= max_lag <= M - 1``. The default is ``min(M - 1, M // 2)``,
        i.e. ``M // 2`` for every M >= 2: beyond half the series the estimates rest on fewer than
        M / 2 products and are too noisy to be worth scanning.

    Returns
    -------
    float
        :math:`\hat\tau` (the mean over chains for 2-D input).

    Raises
    ------
    ValueError
        If ``x`` is not 1-D or 2-D, a series is shorter than 2, constant or non-finite, ``z`` is
        negative or non-finite, or ``max_lag`` is out of range.
    """
    if not (np.isfinite(z) and z >= 0):
        raise ValueError(f"z must be finite and >= 0; got {z}")
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 1:
        return _autocorrelation_time_1d(arr, float(z), max_lag)
    if arr.ndim == 2:
        if arr.shape[0] < 1:
            raise ValueError("autocorrelation_time: got an array with no chains")
        taus = [_autocorrelation_time_1d(chain, float(z), max_lag) for chain in arr]
        return float(np.mean(taus))
    raise ValueError(f"autocorrelation_time expects shape (M,) or (C, S); got shape {arr.shape}")


def effective_sample_size_act(x: ArrayLike, *, z: float = 2.0, max_lag: int | None = None) -> float:
    r"""Effective sample size from the autocorrelation time: :math:`N / \hat\tau`.

    N is the total number of draws (M for a 1-D series, C * S for an array of shape ``(C, S)``)
    and :math:`\hat\tau` is :func:`autocorrelation_time` (Wang & Neal 2013, Eq. 44; for 2-D input,
    the mean over chains), called with the same ``z`` and ``max_lag``. The ESS exceeds N when
    :math:`0 < \hat\tau < 1` (antithetic chains). When :math:`\hat\tau \le 0` the ESS is undefined
    and ``nan`` is returned.

    Parameters
    ----------
    x
        A 1-D series or an array of shape ``(C, S)``.
    z, max_lag
        Passed to :func:`autocorrelation_time`.

    Returns
    -------
    float
        :math:`N / \hat\tau`, or ``nan`` if :math:`\hat\tau \le 0`.
    """
    arr = np.asarray(x, dtype=float)
    tau = autocorrelation_time(arr, z=z, max_lag=max_lag)
    if not tau > 0:
        return float("nan")
    return float(arr.size / tau)


def _safe_ratio(numerator: float | np.ndarray, denominator: float) -> float | np.ndarray:
    """``numerator / denominator``, or nan (same shape as numerator) if denominator is not > 0."""
    num = np.asarray(numerator, dtype=float)
    den = float(denominator)
    out = num / den if den > 0 else np.full_like(num, np.nan)
    return _as_scalar_or_array(out)


def ess_per_second(ess: float | np.ndarray, seconds: float) -> float | np.ndarray:
    r"""Effective samples per second of wall-clock time: :math:`\mathrm{ESS} / t`.

    van de Meent, Paige & Wood (2014) report ESS (Eq. 8) normalised by wall-clock computation time.

    Parameters
    ----------
    ess
        Effective sample size (a scalar or an array, e.g. one value per dimension).
    seconds
        Elapsed time in seconds.

    Returns
    -------
    float or numpy.ndarray
        ``ess / seconds``; ``nan`` (of the shape of ``ess``) when ``seconds`` is not positive
        (zero, negative or nan), since no meaningful rate exists then.
    """
    return _safe_ratio(ess, seconds)


def ess_per_cost(ess: float | np.ndarray, cost: float) -> float | np.ndarray:
    r"""Effective samples per unit of computational cost: :math:`\mathrm{ESS} / \mathrm{cost}`.

    Cost is any machine-independent count, e.g. the number of per-datum likelihood evaluations of
    the cost model in van de Meent, Paige & Wood (2014), Eqs. 10-18.

    Parameters
    ----------
    ess
        Effective sample size (a scalar or an array).
    cost
        Total cost spent producing the draws.

    Returns
    -------
    float or numpy.ndarray
        ``ess / cost``; ``nan`` (of the shape of ``ess``) when ``cost`` is not positive (zero,
        negative or nan).
    """
    return _safe_ratio(ess, cost)
