"""What the equi-energy sampler and MINTEE record, and how ``tempering summary`` shows it: per
level, the ring that holds each draw's energy (seed 003 Table 3's view), the EE jumps proposed and
accepted, and the local moves' acceptance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tempering.algorithms.base import ACCEPTANCE_HEADLINE, Headline, Stat
from tempering.algorithms.spec import StatArrays

LEVEL = ("level",)
#: EE-jump acceptance (accepted per proposed, all levels) and the local moves' acceptance.
EE_HEADLINE = (Headline("EE accept", "ee_accepted", per="ee_proposed"), ACCEPTANCE_HEADLINE)

EE_STATS = (
    Stat("energy_ring", LEVEL, "energy ring I(θ) of each level's draw at that level's energy; −1 "
         "before the level starts"),
    Stat("energy", LEVEL, "each level's energy estimate ĥ_k at its draw (NaN before it starts)"),
    Stat("ee_proposed", LEVEL, "whether the level proposed an EE jump this step"),
    Stat("ee_accepted", LEVEL, "whether the level's EE jump was accepted"),
    Stat("ee_accept_prob", LEVEL, "acceptance probability of the level's EE jump (0 if none)"),
    Stat("local_acceptance", LEVEL, "acceptance probability of the level's local move (NaN on "
         "a jump or before the level starts)"),
    Stat("ring_deposits", ("level", "ring"), "draws deposited so far in each ring of each "
         "level (level 0 keeps none)"),
)


def ee_summary(stats: StatArrays) -> dict[str, Any]:
    """Per level: the percentage of draws in each ring, EE jumps proposed and accepted, the
    local acceptance, and the ring deposits at the end (summed over chains)."""
    ring = stats["energy_ring"]  # (chain, draw, level)
    levels = ring.shape[-1]
    occupancy = [[float(np.mean(ring[..., k] == j) * 100) for j in range(levels)]
                 for k in range(levels)]
    proposed = stats["ee_proposed"].sum(axis=(0, 1))
    accepted = stats["ee_accepted"].sum(axis=(0, 1))
    local = np.nanmean(np.where(ring >= 0, stats["local_acceptance"], np.nan), axis=(0, 1))
    deposits = stats["ring_deposits"][:, -1].sum(axis=0)
    return {"ee": {"ring_percent": occupancy,
                   "jumps_proposed": [int(p) for p in proposed],
                   "jumps_accepted": [int(a) for a in accepted],
                   "local_acceptance": [None if np.isnan(x) else float(x) for x in local],
                   "ring_deposits": deposits.astype(int).tolist()}}


def ee_lines(summary: Mapping[str, Any]) -> list[str]:
    """Table 3's view (percentage of each level's draws per ring) and the jump acceptance."""
    block = summary.get("ee")
    if not block:
        return []
    levels = len(block["ring_percent"])
    head = "level  " + " ".join(f"ring{j:<3d}" for j in range(levels)) + \
        "  EE jumps acc/prop   local acc"
    lines = ["energy rings: % of each level's draws (seed 003 Table 3's view)", head]
    for k in range(levels):
        cells = " ".join(f"{p:6.2f} " for p in block["ring_percent"][k])
        prop, acc = block["jumps_proposed"][k], block["jumps_accepted"][k]
        rate = f"{acc}/{prop} ({acc / prop:.2f})" if prop else "—"
        local = block["local_acceptance"][k]
        lines.append(f"{k:5d}  {cells} {rate:>18}   "
                     f"{'—' if local is None else f'{local:.3f}':>9}")
    return lines
