"""Round trips that say what a user reads them as (issue 44, part 4): the summary counts the trips
target → prior → target from the recorded index process (per chain), names the ends of the full
line's count, and warns when the draws hold far fewer independent states than the trips through
the prior suggest — what happens when the tempered path loses a narrow mode (a 12-D three-mode
mixture with unequal widths: the narrow mode has no mass on any rung but the target's
neighbours, so its share rests on a handful of discoveries). The warning's threshold comes from
24 runs of that mixture (equal and unequal widths, 4 × 4000 and 4 × 16 000 draws;
``TRIP_ESS_SHARE``'s comment); an end-to-end test would hang on whether some chain of a given
seed found the narrow mode at all (with every chain missing it, no statistic of the run can see
it), so these tests check the count and the rule on constructed inputs."""

from __future__ import annotations

import numpy as np

from tempering.algorithms.pt.legs import prior_round_trips, trips_per_chain
from tempering.algorithms.pt.summary import swap_lines
from tempering.summary.checks import (
    DEAD_LEG_SHARE,
    EXPLORATION_SHARE,
    MIN_LEG_TRIPS,
    MIN_PREDICTED_TRIPS,
    TRIP_ESS_SHARE,
    exploration_warnings,
    leg_warnings,
    trip_warnings,
)

#: 3 rungs, target 0 (a one-leg line β = 1, 0.5, 0): the replica id on each rung per draw, two
#: chains. Chain 0: replica 0 walks 0 → 1 → 2 → 1 → 0 (one trip through the prior); replica 2
#: walks 2 → 1 → 0 and stays (no trip: it never left the target for the prior). Chain 1: the same
#: walk stopped before replica 0 is back.
WALK = np.asarray([[0, 1, 2], [1, 0, 2], [1, 2, 0], [1, 0, 2], [0, 1, 2]])
INDEX = np.stack([WALK, np.concatenate([WALK[:4], WALK[3:4]])])


def test_trips_through_the_prior_are_counted_per_chain():
    assert trips_per_chain(INDEX, 0, 2).tolist() == [1, 0]
    through = prior_round_trips(INDEX, np.asarray([1.0, 0.5, 0.0]))
    assert through == {"total": 1, "per_chain": [1, 0]}


def test_a_line_that_does_not_end_at_the_prior_has_no_such_trips():
    assert prior_round_trips(INDEX, np.asarray([1.0, 0.5, 0.1])) is None
    assert prior_round_trips(None, np.asarray([1.0, 0.5, 0.0])) is None


def test_a_stabilized_line_counts_from_its_target():
    """s = 2 (q), 1 (target), 0 (prior): the trip is anchored at rung 1, not rung 0."""
    index = np.asarray([[1, 0, 2], [0, 1, 2], [0, 2, 1], [0, 1, 2]])[None]  # replica 0: 1 → 2 → 1
    assert prior_round_trips(index, np.asarray([2.0, 1.0, 0.0])) == {"total": 1, "per_chain": [1]}


def summary_with(ess: float, trips: int, **extra) -> dict:
    return {"draws": 1000, "chains": 4, "params": {"theta[0]": {"ess_bulk": ess},
                                                   "theta[1]": {"ess_bulk": 5 * ess}},
            "round_trips_prior": {"total": trips, "per_chain": [trips // 4] * 4}, **extra}


def test_the_warning_fires_when_the_draws_hold_fewer_states_than_the_trips():
    (line,) = trip_warnings(summary_with(ess=45.0, trips=440))
    assert "bulk ESS 45 for theta[0]" in line and "440 round trips through the prior" in line
    assert trip_warnings(summary_with(ess=TRIP_ESS_SHARE * 440, trips=440)) == []
    assert trip_warnings(summary_with(ess=45.0, trips=440, it={})) == []  # weighted: no ESS rule
    assert trip_warnings({"draws": 1000, "params": {}}) == []  # no prior on the line


def rates(measured: float, predicted: float = 0.0425, draws: int = 1000) -> dict:
    return {"draws": draws, "chains": 4, "round_trip_rate": measured,
            "round_trip_rate_deo": predicted}


def test_round_trips_far_below_the_schedules_rate_warn_about_the_inner_moves():
    """The egg-box's default run (2026-11-29): 0.0103 trips a draw where Theorem 3 gives its
    schedule 0.0425 — the replicas do not forget their states between swaps; at half the rate
    or more, with too few predicted trips to tell, with other swaps than DEO (the theorem's
    rate is DEO's) or with no options on record, nothing."""
    deo = {"swap": "deo"}
    (line,) = exploration_warnings(rates(0.0103), deo)
    assert "round trips 0.0103 a draw, 24% of the 0.0425" in line and "inner_steps" in line
    assert exploration_warnings(rates(EXPLORATION_SHARE * 0.0425), deo) == []
    few = MIN_PREDICTED_TRIPS / (4 * 0.0425) - 1  # draws that predict just under the floor
    assert exploration_warnings(rates(0.0103, draws=int(few)), deo) == []
    assert exploration_warnings(rates(0.0103, draws=int(few) + 2), deo) != []
    assert exploration_warnings(rates(0.0103), {"swap": "seo"}) == []
    assert exploration_warnings(rates(0.0103), None) == []
    assert exploration_warnings({"draws": 1000, "chains": 4}, deo) == []  # not PT


def test_the_summary_lines_name_the_ends_of_each_count():
    summary = {"swap_rate": [0.5, 0.5], "round_trips": 12, "reference": "stabilized",
               "round_trips_prior": {"total": 30, "per_chain": [7, 8, 7, 8]}}
    lines = swap_lines(summary)
    assert "round trips 12 (q end → prior end → q end)" in lines[0]
    assert lines[1].startswith("round trips through the prior (target → prior → target): 30 "
                               "(per chain 7–8)")


def walked_trips(index: np.ndarray, target: int, end: int) -> list[int]:
    """The count replica by replica, draw by draw (the definition, slowly)."""
    out = []
    for chain in index:
        trips = 0
        for replica in range(chain.shape[1]):
            rungs = np.argsort(chain, axis=-1)[:, replica]
            seen_target = left = False
            for rung in rungs:
                if rung == target:
                    trips += int(left)
                    seen_target, left = True, False
                elif rung == end and seen_target:
                    left = True
        out.append(trips)
    return out


def test_the_count_is_the_walked_definition_on_random_index_processes():
    rng = np.random.default_rng(0)
    for _ in range(100):
        rungs, draws, chains = rng.integers(2, 7), rng.integers(1, 40), rng.integers(1, 4)
        index = np.stack([np.stack([rng.permutation(rungs) for _ in range(draws)])
                          for _ in range(chains)])
        target, end = rng.choice(rungs, 2, replace=False)
        assert trips_per_chain(index, target, end).tolist() == walked_trips(index, target, end)


def stabilized(q_trips: int, prior_trips: int) -> dict:
    return {"reference": "stabilized", "legs": [
        {"name": "variational", "betas": [0.0, 0.3, 1.0], "round_trips": q_trips},
        {"name": "prior", "betas": [1.0, 0.5, 0.1, 0.0], "round_trips": prior_trips}]}


def test_a_variational_leg_without_round_trips_warns_and_names_the_prior_reference():
    """Tall label switching's legs (1 trip against 79) warn; legs that both carry trips, a
    prior leg with too few to compare, and one-leg paths do not."""
    (line,) = leg_warnings(stabilized(1, 79))
    assert "made 1 round trip against the prior leg's 79" in line
    assert "the leg's 2 rungs" in line and "rests on the prior leg" in line
    assert "reference=prior" in line
    assert leg_warnings(stabilized(197, 210)) == []  # label switching, n = 150
    assert leg_warnings(stabilized(441, 44)) == []  # the spike and slab
    edge = int(DEAD_LEG_SHARE * 100)
    assert leg_warnings(stabilized(edge, 100)) == [] and leg_warnings(stabilized(edge - 1, 100))
    assert leg_warnings(stabilized(0, MIN_LEG_TRIPS - 1)) == []
    assert leg_warnings({"reference": "prior"}) == []
    without_index = stabilized(1, 79)
    for leg in without_index["legs"]:
        del leg["round_trips"]
    assert leg_warnings(without_index) == []
