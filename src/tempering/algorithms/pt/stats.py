"""The statistics parallel tempering (PT, SPT) declares, and its progress-bar headline."""

from __future__ import annotations

from tempering.algorithms.base import Headline, Stat, rung_weight_stats

SWAP_PROB = Stat("swap_accept_prob", ("pair",),
                 "acceptance probability of the swap of rungs (m−1, m); 0 when not proposed")
SWAP_PROPOSED = Stat("swap_proposed", ("pair",), "whether the swap of (m−1, m) was proposed")
SWAP_ACCEPTED = Stat("swap_accepted", ("pair",), "whether the swap of (m−1, m) was accepted")
ROUND_TRIPS = Stat("round_trips", (), "completed trips rung 0 → last rung → rung 0 so far, "
                   "warmup's included, all replicas (with reference=stabilized: q end → prior "
                   "end → q end; the summary also counts sampling's trips target → prior → "
                   "target, from replica_at_rung)")
RUNG_ACCEPTANCE = Stat("rung_acceptance", ("rung",), "inner-kernel acceptance on each rung")
REPLICA_AT_RUNG = Stat("replica_at_rung", ("rung",), "which replica sits on each rung")
SWAP_LOG_UP = Stat("swap_log_up", ("pair",),
                   "log h_{m−1}(θ_m) − log h_m(θ_m) = (β_{m−1} − β_m) log L(θ_m) at the state of "
                   "rung m, read off the swap proposal (stepping stone); NaN when not proposed")
SWAP_LOG_DOWN = Stat("swap_log_down",
                     ("pair",), "log h_m(θ_{m−1}) − log h_{m−1}(θ_{m−1}) at the state of rung "
                     "m − 1, read off the swap proposal (the stepping stone of a stabilized "
                     "path's variational leg, from its wider side); NaN when not proposed")
BETA = Stat("beta", ("rung",), "the schedule in force: β of each rung (an adapted one is "
            "fixed after warmup)")
REFERENCE_ACTIVE = Stat("reference_active", (), "whether the path starts from the Gaussian q "
                        "fitted in warmup (reference=variational or stabilized; else the prior)")
PT_STATS = (SWAP_PROB, SWAP_PROPOSED, SWAP_ACCEPTED, ROUND_TRIPS, RUNG_ACCEPTANCE,
            REPLICA_AT_RUNG, BETA, SWAP_LOG_UP, REFERENCE_ACTIVE, SWAP_LOG_DOWN)
ALL_RUNGS_STATS = rung_weight_stats(("rung",))
#: Swap acceptance (floor 0.05: below it the rungs barely exchange) and round trips.
PT_HEADLINE = (Headline("swap accept", "swap_accepted", per="swap_proposed", floor=0.05,
                        advice="neighbouring rungs are too far apart: more rungs, or a higher "
                               "beta_min"),
               Headline("round trips", "round_trips", last=True))
