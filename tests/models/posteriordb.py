"""posteriordb's reference posteriors (https://github.com/stan-dev/posteriordb), as the tests use
them: each reference quantity's posterior mean and the MCSE of that mean, computed with ArviZ from
the reference draws (``reference_posteriors/draws/draws/<posterior>.json.zip`` at commit 28f8d3d,
v1.0: Stan's NUTS, 10 chains × 1000 draws thinned from 10 000, ESS ≈ 10⁴ for every quantity).
The draws themselves are not vendored; only these summaries are."""

from __future__ import annotations

from typing import Any

from support import z_combined

POSTERIORDB: dict[str, dict[str, tuple[float, float]]] = {
    "eight_schools-eight_schools_noncentered": {
        "mu": (4.4105, 0.0330), "tau": (3.6021, 0.0319),
        "theta[1]": (6.1505, 0.0557), "theta[2]": (4.9396, 0.0462), "theta[3]": (3.9059, 0.0542),
        "theta[4]": (4.7960, 0.0475), "theta[5]": (3.6144, 0.0461), "theta[6]": (4.0511, 0.0485),
        "theta[7]": (6.3172, 0.0499), "theta[8]": (4.8840, 0.0543)},
    "gp_pois_regr-gp_regr": {
        "rho": (6.8743, 0.0128), "alpha": (2.4424, 0.0078), "sigma": (1.8287, 0.0050)},
}


def reference_scores(posterior_name: str, posterior: Any) -> dict[str, float]:
    """z of each reference quantity: our draws' mean against posteriordb's, MCSEs combined
    (``theta[j]`` is Stan's 1-based ``theta[j]``; ``posterior`` an InferenceData's posterior)."""
    scores = {}
    for quantity, (mean, mcse) in POSTERIORDB[posterior_name].items():
        name, _, index = quantity.partition("[")
        draws = posterior[name].values
        if index:
            draws = draws[..., int(index.rstrip("]")) - 1]
        scores[quantity] = z_combined(draws, mean, mcse)
    return scores
