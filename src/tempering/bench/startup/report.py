"""One markdown table per group: the phases as columns (:data:`COLUMNS`), JAX's compilation apart
(:data:`JAX_COLUMNS`), and each row's total over BlackJAX SMC's in the same group; under it, the
programs each row compiled most often and the failed rows' errors."""

from __future__ import annotations

from typing import Any

from tempering.bench.startup.plan import Group

#: (key, header): the row's phases, disjoint, in seconds; ``other`` is the rest of ``total``.
COLUMNS = (("import", "import"), ("import_tempering", "↳ `import tempering`"),
           ("build", "build"), ("pilot", "pilot"), ("compile", "compile"),
           ("warmup", "warmup"), ("sampling", "sampling"), ("writing", "writing"),
           ("other", "other"), ("total", "total"), ("process", "process"))
#: (key, header): JAX's own accounting over the process, overlapping the phases.
JAX_COLUMNS = (("trace", "trace"), ("lower", "lower"), ("xla", "XLA"),
               ("compiling", "compiling"), ("programs", "programs"))
SMC = "blackjax smc"
LEGEND = ("Seconds, each row a fresh process with the persistent compilation caches off.  "
          "import: `import tempering` (↳, alone: the facade is lazy) and the first use of what "
          "the row calls (JAX, the sampler registry; NumPyro, BlackJAX).  build: model and "
          "sampler, less the pilot.  compile: every compilation of the run after the build "
          "(the wall during which JAX compiled anything).  warmup, sampling: the run's (the "
          "library streams its draws into the run file during sampling).  writing: the rest of "
          "the run — the run file's making and finishing, the driver's Python.  other: the rest "
          "of total (the child's wall from its first line).  process: the child's wall as the "
          "parent sees it (Python's start and exit included).  trace, lower, XLA: the seconds "
          "of JAX's compilation events over the whole process (tracing, lowering to MLIR, XLA's "
          "compiling; nested traces and programs compiled at once on two threads count twice); "
          "compiling: the wall during which any ran.  programs: XLA compilations, op-by-op ones "
          "included.  ×SMC: total over BlackJAX SMC's in the same table.")


def value(row: dict[str, Any], key: str) -> float | None:
    """A figure of ``row`` by column key, or ``None``."""
    for source in (row.get("phases") or {}, row.get("jax") or {}, row):
        if key in source and isinstance(source[key], int | float):
            return float(source[key])
    return None


def cell(number: float | None, key: str) -> str:
    if number is None:
        return "–"
    return f"{number:.0f}" if key == "programs" else f"{number:.2f}"


def model_name(row: dict[str, Any]) -> str:
    options = ", ".join(f"{k}={v}" for k, v in row["model_options"].items()
                        if k in ("dim", "widths", "n"))
    return f"{row['model']} ({options})" if options else row["model"]


def table(group: Group, rows: list[dict[str, Any]]) -> list[str]:
    """The group's markdown table and the lines under it."""
    smc = next((r for r in rows if r["label"] == SMC and r.get("ok")), None)
    columns = COLUMNS + JAX_COLUMNS
    lines = ["| row | model | " + " | ".join(h for _, h in columns) + " | ×SMC |",
             "|---|---|" + "---:|" * (len(columns) + 1)]
    notes = []
    for row in rows:
        head = f"| {row['label']} | {model_name(row)} | "
        if not row.get("ok"):
            lines.append(head + " | ".join(["failed"] + ["–"] * len(columns)) + " |")
            notes.append(f"  {row['label']}: failed: {row['error']}")
            continue
        ratio = f"{row['total'] / smc['total']:.2f}×" if smc else "–"
        lines.append(head + " | ".join(cell(value(row, k), k) for k, _ in columns)
                     + f" | {ratio} |")
        top = row["jax"].get("top_programs") or []
        notes.append(f"  {row['label']}: {row['jax']['programs']} programs; most compiled: "
                     + ", ".join(f"{name} ×{count} ({seconds:.2f} s)"
                                 for name, count, seconds in top[:3]))
    return lines + [""] + notes
