"""The bot's version, as installed (pyproject.toml's `version`): `--version`, `check`, /healthz and
serve's first log line say it, so an operator knows which notes of CHANGELOG.md apply."""

from __future__ import annotations

from functools import cache


@cache
def version() -> str:
    from importlib import metadata  # 25 ms of imports: not for --help or a usage error

    try:
        return metadata.version("roombot")
    except metadata.PackageNotFoundError:  # run from a clone never installed (PYTHONPATH=.)
        return "unknown (not installed: pip install --no-deps .)"
