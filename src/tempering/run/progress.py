"""What a run shows while it runs: a rich progress bar on stderr with the run's phase
(``compiling``, ``warmup k/W``, ``sampling k/S``), draws/s, the seconds spent in the phase and the
sampler's headline statistics so far (:class:`~tempering.algorithms.base.Headline`); and the
end-of-run line, total wall time with compilation, warmup and sampling apart.

Warmup runs as one compiled call per batch of chains (all chains with ``vmap``), so its count
moves when a batch's warmup ends; while it runs the bar pulses and the phase's seconds tick.

On a console that cannot redraw (a file, a pipe, a dumb terminal) the bar is printed once, at
the end; each phase that ends before then is logged as a line of its own instead.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressBar, ProgressColumn, Task, TextColumn
from rich.text import Text

from tempering.algorithms.base import Headline, headline_value


def make_console() -> Console:
    """The console the bar writes to: stderr as it is when the run starts."""
    return Console(file=sys.stderr)


def headline_text(headlines: Sequence[Headline], record: Mapping[str, Any]) -> str:
    """``"label value"`` for each headline over ``record`` (chain, draw, ...): two decimals, a
    running count (``last``) as an integer, ``–`` where there is no value yet."""
    return _formatted(headlines, [headline_value(h, record) for h in headlines])


def _formatted(headlines: Sequence[Headline], values: Sequence[float]) -> str:
    parts = []
    for headline, value in zip(headlines, values, strict=True):
        if not math.isfinite(value):
            text = "–"
        else:
            text = f"{value:.0f}" if headline.last else f"{value:.2f}"
        parts.append(f"{headline.label} {text}")
    return "  ".join(parts)


class HeadlineTally:
    """The headlines' values over chunks of records (chain, draw, ...) added one after another,
    without keeping the chunks: running sums and counts that give what
    :func:`~tempering.algorithms.base.headline_value` gives over the chunks joined (a ``last``
    headline sums each chain's newest value)."""

    def __init__(self, headlines: Sequence[Headline], chains: int):
        self.headlines = tuple(headlines)
        self.sums = np.zeros((len(self.headlines), 2))
        self.finite = np.zeros(len(self.headlines), bool)
        self.last = np.full((len(self.headlines), chains), np.nan)

    def add(self, record: Mapping[str, Any], rows: Any) -> None:
        """Add draws of the chains ``rows`` (records (rows, count, ...))."""
        for i, h in enumerate(self.headlines):
            if h.stat not in record or (h.per is not None and h.per not in record):
                continue
            values = np.asarray(record[h.stat], dtype=float)
            if values.size == 0:
                continue
            if h.last:
                self.last[i, rows] = values[:, -1].reshape(len(values), -1).sum(axis=1)
            elif h.share_of is not None:
                self.sums[i] += (np.sum(values == h.share_of), values.size)
            elif h.per is not None:
                self.sums[i] += (np.sum(values), np.sum(np.asarray(record[h.per], float)))
            else:
                kept = ~np.isnan(values)
                self.sums[i] += (np.sum(values[kept]), np.sum(kept))
                self.finite[i] |= bool(np.any(np.isfinite(values)))

    def values(self) -> list[float]:
        out = []
        for i, h in enumerate(self.headlines):
            total, count = self.sums[i]
            if h.last:
                seen = ~np.isnan(self.last[i])
                out.append(float(np.sum(self.last[i][seen])) if seen.any() else float("nan"))
            elif count <= 0 or (h.per is None and h.share_of is None and not self.finite[i]):
                out.append(float("nan"))
            else:
                out.append(float(total / count))
        return out

    def text(self) -> str:
        """:func:`headline_text` of the chunks added so far."""
        return _formatted(self.headlines, self.values())


def done_line(attrs: Mapping[str, Any]) -> str:
    """The end-of-run line from a run's attributes: ``done in 16.5 s (compile 8.1 s, warmup 6.2 s,
    sampling 2.2 s)``; the total also counts what lies outside the three (initial states,
    gathering the draws)."""
    names = (("pilot",) if "wall_seconds_pilot" in attrs else ()) + ("compile", "warmup",
                                                                     "sampling")
    parts = {name: float(attrs.get(f"wall_seconds_{name}", 0.0)) for name in names}
    total = float(attrs.get("wall_seconds_total", sum(parts.values())))
    inside = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in parts.items())
    return f"done in {total:.1f} s ({inside})"


def pilot_line(pilot: dict[str, Any]) -> str:
    """The pilot's line: ``pilot: 2046 scans on 10 rungs, Λ̂ 4.31 → 10 rungs; 3.2 s (compile
    4.1 s), cost 20460`` (its seconds and cost are the run's too, apart from warmup's; its
    compilation is the run's, with ``: the run's programs`` when the run shares them, and
    ``4 chains ×`` when it ran several); an
    equi-energy pilot places ``levels`` (its ``unit``) and adds T_max and H₀. Any other pilot
    says what it chose (its record's ``chose``): ``pilot: m = 91 (…); 13.0 s, cost 2270``."""
    if "scans" not in pilot:
        return (f"pilot: {pilot.get('chose', 'ran')}; {float(pilot['seconds']):.1f} s, cost "
                f"{float(pilot['cost']):.0f}")
    unit = pilot.get("unit", "rungs")
    ladder = (f" (T_max {pilot['t_max']:.4g}, H₀ {pilot['h0']:.6g})"
              if "t_max" in pilot and "h0" in pilot else "")
    chains = f"{pilot['chains']} chains × " if int(pilot.get("chains", 1)) > 1 else ""
    shared = ": the run's programs" if pilot.get("shared_programs") else ""
    return (f"pilot: {chains}{pilot['scans']} scans on {pilot['rungs']} rungs, Λ̂ "
            f"{pilot['barrier']:.2f} → {pilot['placed_rungs']} {unit}{ladder}; "
            f"{pilot['seconds']:.1f} s (compile {pilot['compile_seconds']:.1f} s{shared}), "
            f"cost {pilot['cost']:.0f}")


@contextmanager
def pilot_phase(show: bool) -> Iterator[Callable[[Any], None]]:
    """The sampler's preparation as a phase of its own, before the run's bar: a spinner while its
    options are resolved — which is when a pilot runs (``rungs=auto``; SPT's adaptive schedule)
    — then the pilot's line, when one ran. Yields ``done(algorithm)``, which prints that line
    from the built sampler's facts."""
    if not show:
        yield lambda algorithm: None
        return
    console = make_console()

    def done(algorithm: Any) -> None:
        pilot = dict(algorithm.facts).get("pilot")
        if pilot:
            console.print(pilot_line(pilot))

    with console.status("preparing the sampler (a pilot places the schedule when asked) …"):
        yield done


class _PhaseBar(BarColumn):
    """A bar that also pulses while its task is ``busy`` (compiling; a warmup call running)."""

    def render(self, task: Task) -> ProgressBar:
        bar = super().render(task)
        bar.pulse = bar.pulse or bool(task.fields.get("busy"))
        return bar


class _PhaseSeconds(ProgressColumn):
    """Seconds in the current phase: ticking while it runs, fixed once it has ended."""

    def render(self, task: Task) -> Text:
        seconds = task.fields.get("seconds")
        if seconds is None:
            seconds = time.perf_counter() - task.fields.get("since", time.perf_counter())
        return Text(f"{seconds:.1f} s", style="progress.elapsed")


class RunProgress:
    """The bar of one run, moved on by the driver as phases start and end.

    Parameters
    ----------
    bar
        The rich ``Progress``; ``None`` shows nothing (every method does nothing).
    headlines
        The sampler's headline statistics, shown while sampling.
    warmup_total, draws_total
        Warmup steps and draws over all chains (W and S).
    """

    def __init__(self, bar: Progress | None, headlines: Sequence[Headline], warmup_total: int,
                 draws_total: int):
        self.bar, self.headlines = bar, tuple(headlines)
        self.totals = {"warmup": warmup_total, "sampling": draws_total}
        self.done = {"warmup": 0, "sampling": 0}
        self.stats = ""
        self.live = bar is not None and (bar.console.is_jupyter or (
            bar.console.is_terminal and not bar.console.is_dumb_terminal))
        self.task = None if bar is None else bar.add_task(
            "starting", total=None, count="", rate="", stats="", busy=True,
            since=time.perf_counter(), seconds=None)

    def resumed(self, warmup_done: int, draws_done: int) -> None:
        """A resumed run starts with ``warmup_done`` warmup steps and ``draws_done`` draws made."""
        self.done = {"warmup": warmup_done, "sampling": draws_done}

    def _show(self, phase: str, busy: bool, refresh: bool = True, **fields: Any) -> None:
        if self.bar is None or self.task is None:
            return
        total = self.totals.get(phase)
        count = "" if total is None else f"{self.done[phase]}/{total}"
        self.bar.update(self.task, description=phase, total=total or 1,
                        completed=self.done.get(phase, 0), count=count, busy=busy,
                        refresh=refresh, **fields)

    def _log(self, line: str) -> None:
        if self.bar is not None and not self.live:
            self.bar.console.print(line, highlight=False)

    def compiling(self) -> None:
        """Compilation starts."""
        self._show("compiling", True, since=time.perf_counter(), seconds=None)

    def compiled(self, seconds: float) -> None:
        """Compilation has ended after ``seconds``."""
        self._show("compiling", False, seconds=seconds)
        self._log(f"compiled in {seconds:.1f} s")

    def warming(self) -> None:
        """A batch's warmup starts."""
        self._show("warmup", True, since=time.perf_counter(), seconds=None, rate="", stats="")

    def warmed(self, steps: int, seconds: float) -> None:
        """A batch's warmup has ended: ``steps`` warmup steps (over its chains) in ``seconds``."""
        self.done["warmup"] += steps
        self._show("warmup", False, seconds=seconds)
        self._log(f"warmup {self.done['warmup']}/{self.totals['warmup']} in {seconds:.1f} s")

    def sampling(self) -> None:
        """A batch's sampling starts."""
        self._show("sampling", False, since=time.perf_counter(), seconds=None, rate="",
                   stats="")

    def sampled(self, draws: int, batch_draws: int, seconds: float, stats: str = "") -> None:
        """``draws`` more draws (over the batch's chains); the batch has made ``batch_draws`` in
        ``seconds``; ``stats`` is its headline text so far (:class:`HeadlineTally`)."""
        if self.bar is None:
            return
        self.done["sampling"] += draws
        self.stats = stats
        self._show("sampling", False, refresh=False, stats=self.stats,
                   rate=f"{batch_draws / max(seconds, 1e-9):.0f} draws/s")

    def batch_sampled(self, seconds: float) -> None:
        """A batch's sampling has ended after ``seconds``."""
        self._show("sampling", False, seconds=seconds)
        if self.done["sampling"] < self.totals["sampling"]:
            self._log(f"sampling {self.done['sampling']}/{self.totals['sampling']} in "
                      f"{seconds:.1f} s  {self.stats}")

    def finished(self, stats: str) -> None:
        """Every batch has run: the statistics become ``stats``, those of all chains' draws."""
        if self.bar is None:
            return
        self.stats = stats
        self._show("sampling", False, stats=self.stats)

    def report(self, line: str) -> None:
        """Print the end-of-run line under the (stopped) bar."""
        if self.bar is not None:
            self.bar.console.print(line, highlight=False)


@contextmanager
def run_progress(enabled: bool, headlines: Sequence[Headline], warmup_total: int,
                 draws_total: int) -> Iterator[RunProgress]:
    """Yield the :class:`RunProgress` of a run, its bar live on stderr while the block runs
    (or one that shows nothing when not ``enabled``)."""
    if not enabled:
        yield RunProgress(None, headlines, warmup_total, draws_total)
        return
    bar = Progress(
        TextColumn("[bold]{task.description}[/] {task.fields[count]}"), _PhaseBar(bar_width=24),
        _PhaseSeconds(), TextColumn("{task.fields[rate]}"), TextColumn(" {task.fields[stats]}"),
        console=make_console(), transient=False)
    with bar:
        yield RunProgress(bar, headlines, warmup_total, draws_total)
