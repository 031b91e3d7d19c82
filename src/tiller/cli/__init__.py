"""The `tiller` command line."""

from tiller.cli.app import app, main

__all__ = ["app", "main"]
