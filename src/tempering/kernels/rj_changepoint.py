"""Green (1995)'s reversible-jump moves for the multiple change-point layout.

**Model-specific**: this kernel works only on the padded layout of
:mod:`tempering.models.changepoint`, θ = (k, u_1..u_K, η_0..η_K) with dim = 2K + 2, positions
rescaled to (0, 1), η_j the log-heights, unused slots 0. It derives K = k_max from ``dim``; on any
other model it is meaningless. Within that layout it works for *any* ``logdensity_fn`` (the target,
the prior alone, or a tempered rung log p(θ) + β log p(X | θ)): every acceptance ratio is the ratio
of ``logdensity_fn`` values, which must be densities with respect to the layout's reference measure
(counting measure on k × Lebesgue measure on the active coordinates), times the proposal densities
and the Jacobian of Green's dimension-matching map.

Each move (Green 1995 §4.1) is chosen with probabilities that depend on k only; a step makes
``moves`` of them in turn (default 10; a composition of one reversible kernel with itself is
reversible):

- height change (prob. η_k): j uniform on 0..k, η′_j = η_j + v, v ~ U(−w, w) (Green: w = ½,
  a log-height random walk); symmetric, A = π(θ′)/π(θ).
- position change (π_k; none when k = 0): j uniform on 1..k, u′_j ~ U(u_{j−1}, u_{j+1}) with
  u_0 = 0, u_{k+1} = 1; symmetric, A = π(θ′)/π(θ).
- birth (b_k): u* ~ U(0, 1), falling in segment j = [u_j, u_{j+1}]; the height h_j splits into
  h_− on [u_j, u*] and h_+ on [u*, u_{j+1}] keeping the weighted geometric mean,
  a log h_− + b log h_+ = (a + b) log h_j (a = u* − u_j, b = u_{j+1} − u*), with
  h_+/h_− = (1 − ν)/ν, ν ~ U(0, 1). In log-heights, with δ = log((1 − ν)/ν),

      η_− = η_j − δ b/(a + b),   η_+ = η_j + δ a/(a + b),   |∂(η_−, η_+)/∂(η_j, ν)| = 1/(ν(1 − ν))

  (Green's (h_− + h_+)²/h_j in heights, times the log-transform factors h_j/(h_− h_+)).
  Accept with  A = π(θ′)/π(θ) · d_{k+1}/(k + 1) / b_k · 1/(ν(1 − ν))
  (u* and ν have density 1; the death from k + 1 picks one of k + 1 change points).
- death (d_k): one of the k change points, uniformly, is removed and its two heights merged by the
  same weighted geometric mean, ν = 1/(1 + exp(η_+ − η_−)) recovered, the freed slot set to 0 —
  the exact inverse of the birth; A = π(θ′)/π(θ) · b_{k−1} / (d_k/k) · ν(1 − ν).

Move probabilities (Green): b_k = c min{1, p(k+1)/p(k)}, d_{k+1} = c min{1, p(k)/p(k+1)} with p
the truncated Poisson(``lam``) (b_K = d_0 = 0) and c the largest value with b_k + d_k ≤ ``c_max``
(0.9) for every k; π_k = η_k = (1 − b_k − d_k)/2 for k > 0, η_0 = 1 − b_0. Since b_k and d_k appear
explicitly in the ratio, the kernel is exact for any ``lam``; setting it to the model's λ gives
Green's choice, under which the prior ratio of k and the b/d ratio cancel.

The mixture of these moves satisfies detailed balance with respect to π on the layout's support
(Green 1995, Eq. 8), so the kernel is reversible (``make_reverse`` is not needed). One log-density
evaluation per move (the current value is cached): ``n_evals`` = ``moves``. NaN densities are
rejections.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, PositiveFloat, PositiveInt

from tempering.config import Options
from tempering.errors import UserInputError
from tempering.kernels.base import BoundKernel, Kernel, KernelSpec, LogDensity, StepInfo
from tempering.numerics import finite_or_neg_inf

Array = jax.Array
HEIGHT, POSITION, BIRTH, DEATH = 0, 1, 2, 3


class RjChangepointOptions(Options):
    """``lam``: the Poisson mean that balances birth and death (Green's b_k, d_k; exact for any
    value, efficient at the model's λ); ``c_max``: the cap on b_k + d_k; ``height_step``: w of the
    log-height move U(−w, w); ``moves``: Green moves per step (each one evaluation)."""

    moves: PositiveInt = 10
    lam: PositiveFloat = 3.0
    c_max: float = Field(0.9, gt=0.0, le=1.0)
    height_step: PositiveFloat = 0.5


class RjState(NamedTuple):
    position: Array
    logdensity: Array


def move_probabilities(k_max: int, lam: float = 3.0, c_max: float = 0.9) -> np.ndarray:
    """(k_max + 1, 4) table of (η_k, π_k, b_k, d_k), Green's choice with a truncated Poisson(λ)."""
    k = np.arange(k_max + 1)
    up = np.where(k < k_max, np.minimum(1.0, lam / (k + 1.0)), 0.0)  # min{1, p(k+1)/p(k)}
    down = np.where(k > 0, np.minimum(1.0, k / lam), 0.0)  # min{1, p(k−1)/p(k)}
    c = c_max / np.max(up + down)
    birth, death = c * up, c * down
    rest = 1.0 - birth - death
    position = np.where(k > 0, rest / 2.0, 0.0)
    return np.stack([rest - position, position, birth, death], axis=1)


def split_log_jacobian(nu: Array) -> Array:
    """log |∂(η_−, η_+)/∂(η, ν)| = −log(ν(1 − ν)) of the birth's height split."""
    return -jnp.log(nu) - jnp.log1p(-nu)


def birth_log_ratio(k: Array, nu: Array, probs: Array,
                    log_jacobian: Callable[[Array], Array] = split_log_jacobian) -> Array:
    """The non-target part of log A for a birth from k: log d_{k+1} − log(k+1) − log b_k + log|J|.

    A death from k + 1 to k that recovers ν has minus this value.
    """
    birth, death = _take(probs[:, BIRTH], k), _take(probs[:, DEATH], k + 1)
    return jnp.log(death) - jnp.log(k + 1.0) - jnp.log(birth) + log_jacobian(nu)


def _take(values: Array, index: Array) -> Array:
    """values[index] for a traced scalar index (0 when out of range), as a masked sum: cheaper to
    compile under ``vmap`` than a gather, like the shifts and masks in :func:`_propose`."""
    return jnp.sum(jnp.where(jnp.arange(values.shape[0]) == index, values, 0.0))


def _shift_right(x: Array) -> Array:
    """x[m − 1] at slot m (0 at slot 0)."""
    return jnp.concatenate([jnp.zeros(1), x[:-1]])


def _shift_left(x: Array) -> Array:
    """x[m + 1] at slot m (0 at the last slot)."""
    return jnp.concatenate([x[1:], jnp.zeros(1)])


def _propose(uniforms: Array, theta: Array, k_max: int, probs: Array, height_step: Array,
             log_ratio_fn: Callable[..., Array]) -> tuple[Array, Array]:
    """A proposal θ′ from Green's move mixture and the log of its proposal-and-Jacobian ratio.

    ``uniforms``: six U(0, 1) draws (move type, slot, height step, new position, u*, ν). Every
    move is computed with masks and static shifts (no gathers or scatters) and the chosen one
    selected, which keeps the compiled step small; the density is evaluated once, by the caller.
    """
    K = k_max
    kf = theta[0]
    k = jnp.clip(jnp.round(kf), 0, K).astype(jnp.int32)
    u, eta = theta[1:1 + K], theta[1 + K:]
    slots_u, slots_h, slots = jnp.arange(K), jnp.arange(K + 1), jnp.arange(2 * K + 2)
    edges = jnp.concatenate([jnp.zeros(1), jnp.where(slots_u < k, u, 1.0), jnp.ones(1)])
    r_move, r_slot, r_v, r_s, r_star, nu = (uniforms[m] for m in range(6))
    row = jnp.sum(jnp.where((slots_h == k)[:, None], probs, 0.0), axis=0)
    move = jnp.minimum(jnp.sum(r_move >= jnp.cumsum(row)), 3)

    # height change: j ∈ 0..k
    j = jnp.minimum(jnp.floor(r_slot * (k + 1)), k).astype(jnp.int32)
    height = jnp.where(slots == 1 + K + j, theta + (2.0 * r_v - 1.0) * height_step, theta)

    # position change: slot i ∈ 0..k−1 (change point i+1) moves uniformly between its neighbours
    i = jnp.clip(jnp.floor(r_slot * k), 0, jnp.maximum(k - 1, 0)).astype(jnp.int32)
    lo, mid, hi = _take(edges, i), _take(edges, i + 1), _take(edges, i + 2)
    position = jnp.where(slots == 1 + i, lo + (hi - lo) * r_s, theta)

    # birth: u* uniform, splitting segment jb = #(active positions below u*)
    jb = jnp.sum((slots_u < k) & (u < r_star))
    a, b = r_star - _take(edges, jb), _take(edges, jb + 1) - r_star
    delta = jnp.log1p(-nu) - jnp.log(nu)
    eta_j = _take(eta, jb)
    eta_lo, eta_hi = eta_j - delta * b / (a + b), eta_j + delta * a / (a + b)
    u_born = jnp.where(slots_u < jb, u, jnp.where(slots_u == jb, r_star, _shift_right(u)))
    u_born = jnp.where(slots_u <= k, u_born, 0.0)
    eta_born = jnp.where(slots_h == jb, eta_lo, jnp.where(slots_h == jb + 1, eta_hi,
                                                          _shift_right(eta)))
    eta_born = jnp.where(slots_h < jb, eta, jnp.where(slots_h <= k + 1, eta_born, 0.0))
    birth = jnp.concatenate([(kf + 1.0)[None], u_born, eta_born])
    birth_ratio = log_ratio_fn(k, nu, probs)

    # death: slot i (change point i+1) removed; heights i and i+1 merged
    a, b = mid - lo, hi - mid
    eta_left, eta_right = _take(eta, i), _take(eta, i + 1)
    merged = (a * eta_left + b * eta_right) / (a + b)
    nu_back = jax.nn.sigmoid(eta_left - eta_right)  # 1/(1 + exp(η_+ − η_−))
    u_dead = jnp.where(slots_u < i, u, jnp.where(slots_u < k - 1, _shift_left(u), 0.0))
    eta_dead = jnp.where(slots_h == i, merged, jnp.where(slots_h <= k - 1, _shift_left(eta), 0.0))
    eta_dead = jnp.where(slots_h < i, eta, eta_dead)
    death = jnp.concatenate([(kf - 1.0)[None], u_dead, eta_dead])
    death_ratio = -log_ratio_fn(jnp.maximum(k - 1, 0), nu_back, probs)

    proposal = jnp.select([move == HEIGHT, move == POSITION, move == BIRTH],
                          [height, position, birth], death)
    log_ratio = jnp.select([move == BIRTH, move == DEATH], [birth_ratio, death_ratio], 0.0)
    return proposal, log_ratio


def make(logdensity_fn: LogDensity, k_max: int, height_step: Array | float = 0.5,
         lam: float = 3.0, c_max: float = 0.9, moves: int = 1, *,
         log_ratio_fn: Callable[..., Array] = birth_log_ratio) -> Kernel:
    """Green's reversible-jump kernel on the change-point layout with K = ``k_max``.

    A step makes ``moves`` moves (``moves`` evaluations); the report's ``acceptance_rate`` is
    their mean acceptance probability and ``is_accepted`` whether any was accepted.
    ``log_ratio_fn(k, ν, probs)`` is the birth's proposal-and-Jacobian log ratio
    (:func:`birth_log_ratio`); tests replace it with deliberately broken versions.
    """
    probs = jnp.asarray(move_probabilities(k_max, lam, c_max))

    def init(position):
        position = jnp.asarray(position, float)
        return RjState(position, finite_or_neg_inf(logdensity_fn(position)))

    def one_move(state, key):
        uniforms = jax.random.uniform(key, (7,))
        proposal, log_q = _propose(uniforms, state.position, k_max, probs,
                                   jnp.asarray(height_step), log_ratio_fn)
        new_logdensity = finite_or_neg_inf(logdensity_fn(proposal))
        log_alpha = new_logdensity - state.logdensity + log_q
        log_alpha = jnp.where(jnp.isnan(log_alpha), -jnp.inf, log_alpha)
        accepted = jnp.log(uniforms[6]) < log_alpha
        new_state = RjState(jnp.where(accepted, proposal, state.position),
                            jnp.where(accepted, new_logdensity, state.logdensity))
        return new_state, (jnp.exp(jnp.minimum(log_alpha, 0.0)), accepted)

    def step(key, state):
        if moves == 1:
            state, (prob, accepted) = one_move(state, key)
        else:
            state, (prob, accepted) = jax.lax.scan(one_move, state, jax.random.split(key, moves))
            prob, accepted = jnp.mean(prob), jnp.any(accepted)
        return state, StepInfo(prob, accepted, jnp.asarray(float(moves)), jnp.zeros((), bool))

    return Kernel(init, step)


def k_max_from_dim(dim: int) -> int:
    """K from dim = 2K + 2; a dimension that does not fit the layout is a user error."""
    if dim < 4 or dim % 2:
        raise UserInputError(f"sampler rj_changepoint works only on the changepoint model's "
                             f"layout (dim = 2 k_max + 2 ≥ 4); got dim = {dim}")
    return (dim - 2) // 2


def bind(options: RjChangepointOptions, dim: int) -> BoundKernel:
    k_max = k_max_from_dim(dim)

    def factory(logdensity_fn, params):
        return make(logdensity_fn, k_max, params["height_step"], options.lam, options.c_max,
                    options.moves)

    return BoundKernel(factory, {"height_step": jax.device_put(np.float64(options.height_step))},
                       None)


SPEC = KernelSpec("rj_changepoint", RjChangepointOptions, bind,
                  "Green's reversible jump for the changepoint model only (birth/death/height/"
                  "position moves)")
