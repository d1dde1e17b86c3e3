"""Versions and platform recorded in every report, so a finding can be reproduced."""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def versions() -> dict[str, str]:
    return {
        "dp-audit": _version("dp-audit"),
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "scipy": _version("scipy"),
        "gmpy2": _version("gmpy2"),
    }


def platform_info() -> dict[str, str]:
    return {
        "system": platform.system(),
        "release": platform.release(),
        "machine": platform.machine(),
        "platform": platform.platform(),
        "implementation": sys.implementation.name,
        "cpus": str(os.cpu_count() or 1),
    }
