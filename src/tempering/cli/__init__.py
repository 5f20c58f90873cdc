"""The ``tempering`` command line (typer + rich)."""
