"""The change-point model (Green 1995) and its reversible-jump kernel.

- Prior recovery: the RJ kernel run on the log prior alone must reproduce the truncated Poisson(λ)
  distribution of k, the prior mean of h_0 and of the first position; two deliberately broken
  kernels (the birth's Jacobian 1/(ν(1−ν)) omitted; the birth/death probability ratio d_{k+1}/b_k
  dropped) must fail the same check. All three run in one compiled program (the variant is an
  index), so the comparison costs one compilation.
- Geweke (successive-conditional): θ ~ prior, events ~ Poisson process | θ, then RJ steps on
  p(θ | events), then fresh events, … — θ's draws must follow the prior; the Jacobian-omitted
  kernel must fail.
- Posterior on the coal data against the exact answer of
  :func:`~tempering.models.changepoint_exact.changepoint_exact_posterior` (quadrature over
  positions with the
  heights integrated out), and the published figures: change point near 1890, rates about 3.1 and
  0.9 a year.
- The command line: ``tempering sample --model changepoint --sampler rj_changepoint`` and
  ``tempering summary`` with NaN in the unused slots.

Tolerances are z-scores with ArviZ's MCSE; every seed is fixed.
"""

from __future__ import annotations

import functools
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_helpers import run_cli
from scipy.special import digamma
from support import Z_BOUND, cases, check_geweke, geweke_records, geweke_z_scores, z_mean

from tempering.errors import UserInputError
from tempering.kernels import KERNELS
from tempering.kernels.rj_changepoint import (
    birth_log_ratio,
    make,
    move_probabilities,
    split_log_jacobian,
)
from tempering.models import get_model
from tempering.models.changepoint import (
    Prior,
    integrated_rate,
    log_prior,
    poisson_log_lik,
    sample_prior,
)
from tempering.models.changepoint_exact import changepoint_exact_posterior

# --------------------------------------------------------------------------- broken variants

def _no_jacobian(k, nu, probs):
    """BROKEN: the birth's height-split Jacobian 1/(ν(1 − ν)) omitted (and the death's)."""
    return birth_log_ratio(k, nu, probs, log_jacobian=jnp.zeros_like)


def _no_move_ratio(k, nu, probs):
    """BROKEN: the birth/death probability ratio d_{k+1}/b_k dropped."""
    return -jnp.log(k + 1.0) + split_log_jacobian(nu)


VARIANTS = ("correct", "jacobian omitted", "b/d ratio dropped")


def _variant_ratio(variant):
    """The birth log ratio of VARIANTS[variant] (a traced index: one compile for all three)."""
    def fn(k, nu, probs):
        return jnp.stack([birth_log_ratio(k, nu, probs), _no_jacobian(k, nu, probs),
                          _no_move_ratio(k, nu, probs)])[variant]

    return fn


def numpy_prior_draws(seed: int, n: int, prior: Prior) -> jnp.ndarray:
    """n exact prior draws on the padded layout, drawn with numpy (an independent
    implementation of :func:`sample_prior`, and no JAX compilation)."""
    rng = np.random.default_rng(seed)
    K = prior.k_max
    theta = np.zeros((n, 2 * K + 2))
    for row in theta:
        k = rng.choice(K + 1, p=np.exp(prior.log_prob_k()))
        row[0] = k
        row[1:1 + k] = np.sort(rng.uniform(size=2 * k + 1))[1::2]
        row[1 + K:2 + K + k] = np.log(rng.gamma(prior.alpha, 1.0 / prior.beta, size=k + 1))
    return jnp.asarray(theta)


# --------------------------------------------------------------------------- coal model chains

STEPS, MOVES, BURN, CHAINS = 10_000, 5, 1_000, 4
#: (variant, β): RJ chains on log p(θ) + β log p(t | θ) — the prior (β = 0) for the correct and the
#: two broken kernels, and the posterior (β = 1) for the correct one; one compiled program.
RUNS = ((0, 0.0), (1, 0.0), (2, 0.0), (0, 1.0))


def coal_prior() -> Prior:
    """The default coal model's prior in rescaled units."""
    model = get_model("changepoint")
    length = model.attrs["t_max"] - model.attrs["t_min"]
    return Prior(model.options["k_max"], model.options["lam"], model.options["alpha"],
                 model.options["beta"] / length)


@functools.lru_cache
def coal_chains() -> tuple[np.ndarray, dict]:
    """(run, chain, step, 4) draws of (k, u_1 1{k ≥ 1}, h_0, h_1 1{k ≥ 1}) after BURN steps of
    MOVES moves, in rescaled units, for each of RUNS; and the posterior run's acceptance and
    evaluations per step."""
    model = get_model("changepoint")
    K = model.options["k_max"]
    inits = numpy_prior_draws(11, CHAINS, coal_prior())

    def chain(variant, beta, key, theta):
        def logdensity(t):
            return model.log_prior(t) + beta * model.log_lik(t)

        kernel = make(logdensity, K, 0.5, model.options["lam"], moves=MOVES,
                      log_ratio_fn=_variant_ratio(variant))

        def body(state, step_key):
            state, info = kernel.step(step_key, state)
            t = state.position
            return state, (jnp.stack([t[0], t[1], jnp.exp(t[1 + K]),
                                      jnp.where(t[0] >= 1, jnp.exp(t[2 + K]), 0.0)]),
                           info.is_accepted, info.n_evals)

        return jax.lax.scan(body, kernel.init(theta), jax.random.split(key, STEPS))[1]

    variants, betas = (jnp.array(v) for v in zip(*RUNS, strict=True))
    run = jax.jit(jax.vmap(jax.vmap(chain, in_axes=(None, None, 0, 0)), in_axes=(0, 0, 0, None)))
    keys = jax.random.split(jax.random.key(12), (len(RUNS), CHAINS))
    draws, accepted, evals = run(variants, betas, keys, inits)
    stats = {"accept": float(jnp.mean(accepted[3])), "evals_per_step": float(jnp.mean(evals))}
    return np.asarray(draws)[:, :, BURN:], stats


def prior_z_scores(draws: np.ndarray, prior: Prior) -> dict[str, float]:
    """z of P(k = j) (j = 0..6), E[h_0] = α/β and E[u_1 1{k≥1}] = Σ_{k≥1} p(k)/(k + 1)."""
    p_k = np.exp(prior.log_prob_k())
    k = draws[..., 0]
    scores = {f"P(k={j})": z_mean((k == j).astype(float), p_k[j]) for j in range(7)}
    scores["E h0"] = z_mean(draws[..., 2], prior.alpha / prior.beta)
    first = np.sum(p_k[1:] / (np.arange(1, prior.k_max + 1) + 1.0))
    scores["E u1 1{k>=1}"] = z_mean(draws[..., 1], first)
    return scores


@pytest.mark.slow  # ~16 s; the reversible-jump kernel's Geweke test stays in make test
def test_prior_recovery_correct_kernel():
    scores = prior_z_scores(coal_chains()[0][0], coal_prior())
    assert max(abs(z) for z in scores.values()) < Z_BOUND, scores


@pytest.mark.slow  # ~11 s each (budget); the correct kernel and its Geweke run in make test
@pytest.mark.parametrize("variant", [1, 2], ids=VARIANTS[1:])
def test_prior_recovery_catches_broken_kernel(variant):
    scores = prior_z_scores(coal_chains()[0][variant], coal_prior())
    assert max(abs(z) for z in scores.values()) > 3 * Z_BOUND, scores


def test_prior_draws_match_the_prior():
    """``sample_prior`` (the model's init) against the analytic prior; every draw on the support."""
    model = get_model("changepoint")
    K = model.options["k_max"]
    prior = coal_prior()
    theta = jax.jit(jax.vmap(lambda key: sample_prior(key, prior)))(
        jax.random.split(jax.random.key(5), 20_000))
    assert bool(jnp.all(jnp.isfinite(jax.jit(jax.vmap(model.log_prior))(theta))))
    theta = np.asarray(theta)
    draws = np.stack([theta[:, 0], theta[:, 1], np.exp(theta[:, 1 + K])], axis=1)[None]
    scores = prior_z_scores(draws, prior)
    assert max(abs(z) for z in scores.values()) < Z_BOUND, scores


# --------------------------------------------------------------------------- Geweke

G_PRIOR = Prior(k_max=3, lam=1.5, alpha=4.0, beta=0.4)  # heights ~ 10 events per unit time
G_CAP, G_CHAINS, G_ITERATIONS, G_MOVES = 100, 8, 2000, 5


def simulate_events(key, theta, k_max: int, cap: int):
    """Events of the Poisson process with θ's step rate on [0, 1], padded to ``cap``.

    Time change: the arrival times Γ_i of a unit-rate process on [0, Λ] mapped through the
    inverse of the cumulative rate X(u) = ∫_0^u x. Returns (times, weights) with weight 0 on
    padding; with these priors Λ > 60 has probability below 10⁻⁶ per draw.
    """
    k = jnp.round(theta[0]).astype(jnp.int32)
    u, eta = theta[1:1 + k_max], theta[1 + k_max:]
    edges = jnp.concatenate([jnp.zeros(1), jnp.where(jnp.arange(k_max) < k, u, 1.0),
                             jnp.ones(1)])
    rates = jnp.where(jnp.arange(k_max + 1) <= k, jnp.exp(eta), 1.0)
    cum = jnp.concatenate([jnp.zeros(1), jnp.cumsum(rates * jnp.diff(edges))])
    arrivals = jnp.cumsum(jax.random.exponential(key, (cap,)))
    seg = jnp.clip(jnp.searchsorted(cum, arrivals, side="right", method="compare_all") - 1, 0,
                   k_max)
    times = edges[seg] + (arrivals - cum[seg]) / rates[seg]
    valid = arrivals < integrated_rate(theta, k_max)
    return jnp.where(valid, times, 0.5), valid.astype(jnp.float64)


def geweke_iteration(variant, key, theta):
    """Fresh events given θ, then G_MOVES moves of the RJ kernel (variant = index into VARIANTS)
    on p(θ | events); records 1{k = j} − P(k = j) (j < K), log h_0 − E[log h_0] = log h_0 −
    (ψ(α) − log β) and u_1 1{k ≥ 1} − Σ_{k≥1} p(k)/(k + 1), all mean 0 under the prior."""
    K = G_PRIOR.k_max
    p_k = np.exp(G_PRIOR.log_prob_k())
    first = float(np.sum(p_k[1:] / (np.arange(1, K + 1) + 1.0)))
    k_data, k_moves = jax.random.split(key)
    times, weights = simulate_events(k_data, theta, K, G_CAP)

    def log_post(t):
        return log_prior(t, G_PRIOR) + poisson_log_lik(t, times, K, weights)

    kernel = make(log_post, K, 0.5, G_PRIOR.lam, log_ratio_fn=_variant_ratio(variant))
    state, _ = jax.lax.scan(lambda s, k: (kernel.step(k, s)[0], None), kernel.init(theta),
                            jax.random.split(k_moves, G_MOVES))
    t = state.position
    record = jnp.concatenate([
        (t[0] == jnp.arange(K)) - jnp.asarray(p_k[:K]),
        jnp.stack([t[1 + K] - (digamma(G_PRIOR.alpha) - np.log(G_PRIOR.beta)), t[1] - first]),
    ])
    return t, record


GEWEKE_CASES = cases(correct={"correct": 0}, broken={"jacobian omitted": 1})


@functools.lru_cache
def geweke_records_by_variant() -> np.ndarray:
    """(variant, chain, iteration, record) for the correct and the Jacobian-omitted kernel, in one
    compiled program."""
    return geweke_records(lambda key, variant: sample_prior(key, G_PRIOR), geweke_iteration,
                          chains=G_CHAINS, iterations=G_ITERATIONS, seed=22, variants=2)


@pytest.mark.parametrize("case", GEWEKE_CASES, ids=lambda c: c.name)
def test_geweke(case):
    check_geweke(case, geweke_z_scores(geweke_records_by_variant()[case.build]))


def test_simulated_events_follow_the_rate():
    """Per-segment counts of :func:`simulate_events` have mean and variance h_j w_j."""
    theta = jnp.array([2.0, 0.2, 0.7, 0.0, np.log(30.0), np.log(5.0), np.log(20.0), 0.0])
    keys = jax.random.split(jax.random.key(3), 4000)
    times, weights = jax.jit(jax.vmap(lambda k: simulate_events(k, theta, 3, G_CAP)))(keys)
    seg = np.digitize(np.asarray(times), [0.2, 0.7])
    for j, expected in enumerate([30 * 0.2, 5 * 0.5, 20 * 0.3]):
        counts = np.sum((seg == j) * np.asarray(weights), axis=1)
        se = np.sqrt(expected / counts.size)
        assert abs(counts.mean() - expected) < Z_BOUND * se, (j, counts.mean(), expected)
        assert counts.var() == pytest.approx(expected, rel=0.15)


# --------------------------------------------------------------------------- coal posterior

@functools.lru_cache
def coal_exact():
    return changepoint_exact_posterior(get_model("changepoint"))


# The coal-mining chains take ~22 s: make test-slow. The kernel's exactness stays in make test
# (test_geweke and the registry's checks above).
@pytest.mark.slow
def test_coal_posterior_matches_exact_answer():
    model = get_model("changepoint")
    draws, stats = coal_chains()
    draws, exact = draws[3], coal_exact()
    length = model.attrs["t_max"] - model.attrs["t_min"]
    k = draws[..., 0]
    one = k == 1
    scores = {f"P(k={j})": z_mean((k == j).astype(float), exact.prob_k[j]) for j in range(1, 8)}
    for col, name, truth in ((1, "u1", (exact.position_given_1 - model.attrs["t_min"]) / length),
                             (2, "h0", exact.height_before_given_1 * length),
                             (3, "h1", exact.height_after_given_1 * length)):
        scores[f"E[{name} 1{{k=1}}]"] = z_mean(np.where(one, draws[..., col], 0.0),
                                               exact.prob_k[1] * truth)
    assert max(abs(z) for z in scores.values()) < Z_BOUND, scores
    assert stats["evals_per_step"] == MOVES


@pytest.mark.slow
def test_coal_posterior_published_figures():
    """Green (1995): k of 1–3 most probable; Jarrett's data: the main drop near 1890, from about
    3.1 to about 0.9 disasters a year."""
    model = get_model("changepoint")
    draws, exact = coal_chains()[0][3], coal_exact()
    length = model.attrs["t_max"] - model.attrs["t_min"]
    k = draws[..., 0].astype(int)
    assert int(np.argmax(np.bincount(k.ravel()))) == int(np.argmax(exact.prob_k)) == 3
    one = draws[k == 1]
    assert 1885 < model.attrs["t_min"] + length * one[:, 1].mean() < 1895
    assert abs(one[:, 2].mean() / length - 3.1) < 0.2
    assert abs(one[:, 3].mean() / length - 0.9) < 0.1
    assert 1885 < exact.position_given_1 < 1895


def test_exact_posterior_converged_in_quadrature():
    model = get_model("changepoint")
    coarse, fine = changepoint_exact_posterior(model, 4), coal_exact()
    np.testing.assert_allclose(coarse.prob_k, fine.prob_k, atol=5e-4)
    assert coarse.position_given_1 == pytest.approx(fine.position_given_1, abs=1e-3)


# --------------------------------------------------------------------------- model and kernel

def test_density_support_and_padding():
    model = get_model("changepoint", k_max=3)
    good = jnp.array([2.0, 0.3, 0.6, 0.0, 5.0, 5.2, 4.9, 0.0])
    bad = {
        "unsorted": good.at[1].set(0.7),
        "outside": good.at[2].set(1.2),
        "k not integer": good.at[0].set(1.5),
        "k too large": good.at[0].set(4.0),
        "unused position not 0": good.at[3].set(0.9),
        "unused height not 0": good.at[7].set(1.0),
    }
    stacked = jnp.stack([good, *bad.values()])
    prior, lik, terms = (np.asarray(v) for v in jax.jit(jax.vmap(
        lambda t: (model.log_prior(t), model.log_lik(t), jnp.sum(model.log_lik_terms(t)))))(
            stacked))
    assert np.isfinite(prior[0]) and np.isfinite(lik[0])
    assert np.all(prior[1:] == -np.inf) and np.all(lik[1:] == -np.inf), (prior, lik)
    assert terms[0] == pytest.approx(lik[0])  # per-datum terms sum to the log likelihood
    # the likelihood by hand: 191 events, rate x per year on [1851, 1963] in rescaled units
    t = np.asarray(model.data["u"])
    eta = np.where(t < 0.3, 5.0, np.where(t < 0.6, 5.2, 4.9))
    by_hand = eta.sum() - (0.3 * np.exp(5.0) + 0.3 * np.exp(5.2) + 0.4 * np.exp(4.9))
    assert lik[0] == pytest.approx(by_hand)
    c = jax.jit(model.constrain)(good)
    assert c["k"] == 2.0 and np.isnan(c["position"][2]) and np.isnan(c["height"][3])
    assert c["position"][0] == pytest.approx(1851 + 0.3 * 112)
    assert c["height"][1] == pytest.approx(np.exp(5.2) / 112)


def test_birth_then_death_is_the_identity():
    """A death that removes the point just born restores θ and reverses the log ratio."""
    from tempering.kernels.rj_changepoint import _propose

    K = 4
    probs = move_probabilities(K)
    propose = jax.jit(lambda r, t: _propose(r, t, K, jnp.asarray(probs), 0.5, birth_log_ratio))
    theta = jnp.array([2.0, 0.3, 0.6, 0.0, 0.0, 1.0, 2.0, 0.5, 0.0, 0.0])
    # birth from k = 2: move draw in the birth band, u* = 0.45 (segment 1), ν = 0.3
    born, up = propose(jnp.array([np.cumsum(probs[2])[1] + 1e-3, 0, 0, 0, 0.45, 0.3]), theta)
    born = np.asarray(born)
    np.testing.assert_allclose(born[:5], [3.0, 0.3, 0.45, 0.6, 0.0])
    expected = np.log(probs[3, 3] / 3 / probs[2, 2]) - np.log(0.3 * 0.7)
    assert float(up) == pytest.approx(expected)
    # the split keeps the weighted geometric mean of the heights, h_+/h_- = (1 − ν)/ν
    a, b = 0.45 - 0.3, 0.6 - 0.45
    assert (a * born[6] + b * born[7]) / (a + b) == pytest.approx(2.0)
    assert float(born[7] - born[6]) == pytest.approx(np.log(0.7 / 0.3))
    np.testing.assert_allclose(born[[5, 8, 9]], [1.0, 0.5, 0.0])
    # death of change point 2 (slot 1, slot draw in [1/3, 2/3)) from k = 3
    back, down = propose(jnp.array([np.cumsum(probs[3])[2] + 1e-3, 0.5, 0, 0, 0, 0]), born)
    np.testing.assert_allclose(back, theta, atol=1e-12)
    assert float(up) == pytest.approx(-float(down))


def test_move_probabilities_follow_green():
    probs = move_probabilities(10, lam=3.0)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert probs[0, 1] == 0 and probs[0, 3] == 0 and probs[10, 2] == 0
    assert np.max(probs[:, 2] + probs[:, 3]) == pytest.approx(0.9)
    # b_k p(k) = d_{k+1} p(k+1): Green's choice balances the prior of k
    p = np.exp(Prior(10, 3.0, 1.0, 1.0).log_prob_k())
    np.testing.assert_allclose(probs[:-1, 2] * p[:-1], probs[1:, 3] * p[1:])


def test_bind_rejects_other_layouts():
    spec = KERNELS.get("rj_changepoint")
    with pytest.raises(UserInputError, match="changepoint"):
        spec.bind(spec.options(), 5)
    bound = spec.bind(spec.options(), 22)
    assert bound.make(lambda t: jnp.sum(t), bound.params).init(jnp.ones(22)).logdensity == 22.0


def test_csv_events_and_window_defaults(tmp_path):
    path = tmp_path / "events.csv"
    path.write_text("time\n2.5\n7.0\n3.25\n", encoding="utf-8")
    model = get_model("changepoint", data=str(path), k_max=2)
    assert (model.attrs["t_min"], model.attrs["t_max"]) == (2.5, 7.0)  # the data's range
    assert model.dim == 6 and model.n_data == 3
    np.testing.assert_allclose(np.sort(np.asarray(model.data["u"])), [0.0, 0.75 / 4.5, 1.0])
    coal = get_model("changepoint")
    assert (coal.attrs["t_min"], coal.attrs["t_max"]) == (1851.0, 1963.0)  # Green's window
    wide = tmp_path / "wide.csv"
    wide.write_text("1,2\n3,4\n", encoding="utf-8")
    with pytest.raises(UserInputError, match="one column"):
        get_model("changepoint", data=str(wide))
    with pytest.raises(UserInputError, match="not found"):
        get_model("changepoint", data=str(tmp_path / "missing.csv"))


def test_model_options_errors():
    with pytest.raises(UserInputError, match="t_max"):
        get_model("changepoint", t_min=1900, t_max=1850)
    with pytest.raises(UserInputError, match="outside"):
        get_model("changepoint", t_min=1900)
    with pytest.raises(UserInputError, match="model.lam"):
        get_model("changepoint", lam=-1)


# --------------------------------------------------------------------------- CLI

def test_cli_sample_and_summary(tmp_path, capsys, monkeypatch):
    out = tmp_path / "cp.nc"
    args = ["sample", "--model", "changepoint", "--sampler", "rj_changepoint", "--chains", "2",
            "--draws", "100", "--warmup", "0", "--thin", "2", "--seed", "1", "--no-progress",
            "--set", "model.k_max=4", "--out", out]
    code, _, err = run_cli(args, capsys)
    assert code == 0, err
    code, stdout, err = run_cli(["summary", "--json", out], capsys)
    assert code == 0, err
    result = json.loads(stdout, parse_constant=lambda token: pytest.fail(f"not JSON: {token}"))
    params = result["params"]
    assert {"k", "position[0]", "position[3]", "height[0]", "height[4]"} <= set(params)
    assert params["k"]["defined"] == 1.0 and params["height[0]"]["defined"] == 1.0
    assert params["position[3]"]["defined"] < 1.0 and params["position[3]"]["rhat"] == "nan"
    assert 1851 < params["position[0]"]["mean"] < 1963
    assert isinstance(result["rhat_max"], float) and isinstance(result["ess_bulk_min"], float)
    assert result["cost_per_draw"] == pytest.approx(20.0)  # 10 moves per step, 1 evaluation each
    monkeypatch.setenv("COLUMNS", "200")
    code, stdout, err = run_cli(["summary", out], capsys)
    assert code == 0, err
    for text in ("rj_changepoint on changepoint", "k", "position[0]", "height[4]",
                 "undefined (NaN) in some draws"):
        assert text in stdout


@pytest.mark.slow  # ~18 s; test_cli_sample_and_summary runs the change-point CLI in make test
def test_cli_simulated_tempering_with_reversible_jump(tmp_path, capsys):
    out = tmp_path / "cpst.nc"
    args = ["sample", "--model", "changepoint", "--sampler", "st", "--chains", "1", "--draws",
            "60", "--warmup", "40", "--seed", "1", "--no-progress", "--set", "model.k_max=4",
            "--set", "sampler.inner=rj_changepoint", "--set", "sampler.rungs=3", "--out", out]
    code, _, err = run_cli(args, capsys)
    assert code == 0, err
    code, stdout, err = run_cli(["summary", "--json", "--weights", "optimal", out], capsys)
    assert code == 0, err
    result = json.loads(stdout)
    assert result["it"]["bound_holds"] is True and len(result["it"]["lambda"]) == 3
    assert 0 <= result["params"]["k"]["mean"] <= 4


def test_cli_bad_model_option(tmp_path, capsys):
    args = ["sample", "--model", "changepoint", "--sampler", "rj_changepoint", "--draws", "5",
            "--no-progress", "--set", "model.k_max=0", "--out", tmp_path / "x.nc"]
    code, out, err = run_cli(args, capsys)
    assert code == 2 and err.startswith("tempering: error: model.k_max")
    assert "Traceback" not in err and not (tmp_path / "x.nc").exists()


# --------------------------------------------------------------------------- inside tempering

@pytest.mark.slow
def test_rj_kernel_inside_parallel_tempering_matches_exact_answer():
    """The kernel plugs into a tempering sampler unchanged: PT on a powered-likelihood ladder with
    rj_changepoint on every rung (rung m's density log p(θ) + β_m log p(t | θ)); the cold chain's
    P(k | t) must match the exact answer."""
    from tempering.algorithms.pt.algorithm import parallel_tempering
    from tempering.ladders import geometric_betas, power_tempering_ladder
    from tempering.run.driver import run_chains

    model = get_model("changepoint")
    betas = geometric_betas(4, 0.1)
    spec = KERNELS.get("rj_changepoint")
    bound = spec.bind(spec.options(moves=5), model.dim)
    algorithm = parallel_tempering(power_tempering_ladder(model, betas), bound,
                                   spec.rung_params(bound, betas))
    idata = run_chains(model, algorithm, key=7, draws=5000, chains=4, warmup=500,
                       progress=False).idata
    k = idata.posterior["k"].values
    exact = changepoint_exact_posterior(model)
    scores = {j: z_mean((k == j).astype(float), exact.prob_k[j]) for j in range(1, 8)}
    assert max(abs(z) for z in scores.values()) < Z_BOUND, scores
    swap = np.asarray(idata.sample_stats["swap_accept_prob"].values).mean(axis=(0, 1))
    assert np.all(swap > 0.1), swap
