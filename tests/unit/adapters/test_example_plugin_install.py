"""The example plugin, installed as a user would, is found through its entry point.

Installs ``examples/plugin`` with pip into a temporary folder (build isolation fetches
setuptools from the package index, as any ``pip install`` does) and runs ``dp-audit list``
with that folder on the path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PLUGIN = Path(__file__).resolve().parents[3] / "examples" / "plugin"


def test_installed_example_plugin_appears_in_dp_audit_list(tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            str(PLUGIN),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")]),
    }
    listed = subprocess.run(
        [sys.executable, "-m", "dp_audit", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    plugin_section = listed.stdout.split("Plugin adapters")[1].split("Attacks:")[0]
    assert "example.laplace" in plugin_section and "entry point example" in plugin_section
