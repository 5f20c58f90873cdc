"""Entry point: runs the typer app and turns every input error into one line and exit code 2.

Typer would print a usage box for a bad flag and a traceback for a bad value deep inside; a user
gets one line naming the problem instead (``tempering: error: ...``), and nothing is written.
"""

from __future__ import annotations

import sys

from typer.exceptions import Abort, TyperException

from tempering.errors import UserInputError


def fail(message: str) -> None:
    """Print one error line on stderr and exit with code 2."""
    print(f"tempering: error: {' '.join(str(message).split())}", file=sys.stderr)
    raise SystemExit(2)


def main(argv: list[str] | None = None) -> None:
    """Run the CLI (``tempering ...``). Each command that runs JAX switches its persistent
    compilation cache on first (:func:`tempering.cli.app.compiling`); ``--help`` imports no
    JAX."""
    from tempering.cli.app import app

    try:
        code = app(args=argv, prog_name="tempering", standalone_mode=False)
    except UserInputError as err:
        fail(str(err))
    except TyperException as err:
        if type(err).__name__ == "NoArgsIsHelpError":
            err.show()  # type: ignore[attr-defined]  # typer's NoArgsIsHelpError has show()
            raise SystemExit(2) from None
        fail(err.format_message())
    except Abort:
        fail("aborted")
    raise SystemExit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
