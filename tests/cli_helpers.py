"""Running the CLI in-process, for the CLI tests."""

from __future__ import annotations

import pytest

from tempering.cli.main import main


def run_cli(args: list, capsys) -> tuple[int, str, str]:
    """Run ``tempering ARGS`` in-process; returns (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    code = exc.value.code
    return (0 if code is None else code), out, err
