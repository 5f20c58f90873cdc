"""The equi-energy ladder (Kou, Zhou & Wong 2006; seed 003 §5.2, App. D.1): temperatures, energy
truncations, energy rings and the EE jump's acceptance ratio.

With the energy h(θ) = −log π(θ) (the whole unnormalised posterior), levels k = 0, …, L−1 have
temperatures 1 = T₀ < T₁ < … < T_{L−1} and truncations H₀ < H₁ < … < H_{L−1}; level k targets

    π_k(θ) ∝ exp(−(h(θ) ∨ H_k) / T_k),

and level 0 is never truncated (π₀ = π, whatever H₀: seed 003 asks for H₀ ≤ inf h, which makes the
truncation at level 0 a no-op; here H₀ is only the base of the energy ladder). The energy rings
D_j = {θ : H_j ≤ h(θ) < H_{j+1}}, j = 0, …, L−1 (H_L = ∞, and ring 0 also holds h < H₀), partition
the space by energy. Kou et al.'s rule (used by the paper's experiment with c = 10) spaces the
truncations by the temperatures: H_{k+1} = H_k + c T_k.

The EE jump of level k proposes y drawn uniformly from the ring of level k+1's past draws that
holds x's energy, and accepts with (App. D.1 with its indices corrected, ../shared/seeds/README.md)

    log α = −(h_y ∨ H_k)/T_k + (h_y ∨ H_{k+1})/T_{k+1} + (h_x ∨ H_k)/T_k − (h_x ∨ H_{k+1})/T_{k+1}.

MINTEE's levels use mini-batch energies: batch sizes m_k = ⌊m_{L−1} γ^(L−1−k)⌋ for k ≥ 1 and
m₀ = n, and T_k = n^(1 − α τ_k) with τ_k = log m_k / log n (T₀ = 1): seed 003's MINT temperature
at each level's batch (§5.2; α = 0.995, m_{L−1} = 1000, γ = 1.4 and n = 10⁵ give Table 3's
T column exactly).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from tempering.numerics import array_module

Array = jax.Array


def energy_levels(h0: Array | float, temperatures: np.ndarray, c: float) -> Array:
    """H₀ = ``h0`` and H_{k+1} = H_k + c T_k, k = 0, …, L−2: the L truncations."""
    steps = c * np.asarray(temperatures[:-1], dtype=float)
    offsets = np.concatenate([[0.0], np.cumsum(steps)])
    if array_module(h0) is np:  # numbers: NumPy and a transfer, no compiled program
        return jax.device_put(np.float64(h0) + offsets)
    return jnp.asarray(h0, float) + jnp.asarray(offsets)


def ring_index(energy: Array, levels: Array) -> Array:
    """I(θ) = j with H_j ≤ h < H_{j+1} (0 below H₁, L−1 from H_{L−1} up; NaN → L−1)."""
    ring = jnp.searchsorted(levels[1:], energy, side="right").astype(jnp.int32)
    return jnp.where(jnp.isnan(energy), levels.shape[0] - 1, ring)


def truncated_log_density(energy: Array, level: int, levels: Array,
                          temperatures: np.ndarray) -> Array:
    """log π_k = −(h ∨ H_k)/T_k, untruncated at level 0; −∞ where h is not finite."""
    bounded = energy if level == 0 else jnp.maximum(energy, levels[level])
    value = -bounded / float(temperatures[level])
    return jnp.where(jnp.isnan(value), -jnp.inf, value)


def jump_log_ratio(energy_x: Array, energy_y_here: Array, energy_y_above: Array,
                   energy_x_above: Array, level: int, levels: Array,
                   temperatures: np.ndarray) -> Array:
    """log α of level k's EE jump from x to y (module docstring, corrected indices).

    Each side of the ratio uses the energy of its own level: ``energy_y_here`` and
    ``energy_x`` are level k's, ``energy_y_above`` and ``energy_x_above`` level k+1's (equal to
    them when every level sees all the data; MINTEE's surrogate energies differ).
    """

    def log_pi(energy, k):
        return truncated_log_density(energy, k, levels, temperatures)

    return (log_pi(energy_y_here, level) - log_pi(energy_y_above, level + 1)
            - log_pi(energy_x, level) + log_pi(energy_x_above, level + 1))


def geometric_temperatures(levels: int, t_max: float) -> np.ndarray:
    """1 = T₀ < … < T_{L−1} = t_max, evenly spaced in log T."""
    return np.geomspace(1.0, t_max, levels)


def mintee_batches(n: int, top_batch: int, gamma: float, levels: int) -> tuple[int, ...]:
    """m₀ = n and m_k = ⌊m_{L−1} γ^(L−1−k)⌋ for k = 1, …, L−1 (seed 003 App. D.2), in floating
    point as the paper computed it (1000 · 1.4³ = 2743.99… gives its 2743).

    Raises
    ------
    ValueError
        When the sizes are not strictly decreasing from n, with a message naming the option.
    """
    sizes = (n, *(math.floor(top_batch * gamma ** (levels - 1 - k))
                  for k in range(1, levels)))
    if any(a <= b for a, b in zip(sizes, sizes[1:], strict=False)) or sizes[-1] < 2:
        raise ValueError(f"batch: batch sizes {list(sizes)} must decrease strictly from n = {n} "
                         f"to at least 2 (lower batch or gamma, or use fewer levels)")
    return sizes


def mintee_temperatures(n: int, batches: tuple[int, ...], alpha: float) -> np.ndarray:
    """T₀ = 1 and T_k = n^(1 − α log m_k / log n) for k ≥ 1 (MINT's temperature at m_k)."""
    tail = [n ** (1.0 - alpha * math.log(m) / math.log(n)) for m in batches[1:]]
    return np.asarray([1.0, *tail])
