"""P(correct) at a value from a reference's labels: bagged isotonic fits and their interval.

:func:`bagged_fits` fits :data:`N_CALIBRATION_BOOTSTRAP` isotonic maps of
confidence (−uncertainty) to the 0/1 labels of the k reference questions (fit 0
on the reference itself, the paper's Brier-score mapping; the rest on
resamples) and evaluates them at the asked values: a (B, len(values)) array.
:func:`jeffreys` widens a bootstrap interval that has no width.
"""

from __future__ import annotations

import numpy as np

from ..metrics import confidence_from_uncertainty
from ..metrics.calibration import isotonic_fit, isotonic_read, pava_python

#: P(correct) is clipped to this range: a reference of a few dozen answers cannot
#: justify certainty either way (ours).
P_CORRECT_CLIP: tuple[float, float] = (0.01, 0.99)

#: bootstrap resamples of the reference for P(correct)'s interval (ours)
N_CALIBRATION_BOOTSTRAP = 200
#: no P(correct) from fewer reference questions than this near the value (ours)
MIN_NEAR = 10


def bagged_fits(ref: np.ndarray, correct: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Fit :data:`N_CALIBRATION_BOOTSTRAP` isotonic maps on resamples (fixed seed) and evaluate them.

    Each is scikit-learn's ``IsotonicRegression(y_min, y_max, out_of_bounds="clip")``
    fit, computed by :func:`~invent_core.evaluation.metrics.calibration.isotonic_fit`
    with the pure-Python PAVA: a reference has a few hundred questions at most,
    and a run that reads one then imports no scikit-learn.
    """
    key = (ref.tobytes(), correct.tobytes())
    fits = _FITS.get(key)
    if fits is None:
        rng = np.random.default_rng(0)
        fits = []
        conf, y = confidence_from_uncertainty(ref), correct.astype(np.float64)
        for b in range(N_CALIBRATION_BOOTSTRAP):
            idx = np.arange(ref.size) if b == 0 else rng.integers(0, ref.size, ref.size)
            fits.append(isotonic_fit(conf[idx], y[idx], bounds=P_CORRECT_CLIP, pava=pava_python))
        _FITS.clear()  # one reference at a time is enough for a run, a batch or a page
        _FITS[key] = fits
    conf_v = confidence_from_uncertainty(values)
    return np.stack([isotonic_read(fit, conf_v) for fit in fits])


_FITS: dict[tuple[bytes, bytes], list] = {}


def jeffreys(k: int, n: int) -> tuple[float, float]:
    """90 % Jeffreys interval of a share k / n (Beta(k + ½, n − k + ½) quantiles).

    The quantiles come from ``scipy.special.betaincinv``, which gives what
    ``scipy.stats.beta.ppf`` gives (equal to the bit for every k ≤ n < 400)
    without importing ``scipy.stats`` (1.2 s of a cached run here).
    """
    from scipy.special import betaincinv  # lazy: kept off every CLI start

    a, b = k + 0.5, n - k + 0.5
    return float(betaincinv(a, b, 0.05)), float(betaincinv(a, b, 0.95))
