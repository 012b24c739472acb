"""The whole suite runs under a per-test time limit, so a hung test fails with its stack instead
of holding `make test`; the image build and the real host CLIs get a longer one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import LONG_TIMEOUT


def test_the_limit_is_on_for_every_test(request: pytest.FixtureRequest) -> None:
    assert request.config.pluginmanager.hasplugin("timeout")
    assert float(request.config.getini("timeout")) == 600


@pytest.mark.spawn
def test_a_hanging_test_fails_with_a_timeout(tmp_path: Path) -> None:
    hanging = tmp_path / "test_hangs.py"
    hanging.write_text("import time\n\n\ndef test_hangs():\n    time.sleep(60)\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "timeout=1",
            str(hanging),
        ],
        capture_output=True,
        text=True,
        timeout=50,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert "Timeout (>1.0s)" in done.stdout + done.stderr


@pytest.mark.spawn
def test_the_image_build_gets_the_long_limit(tmp_path: Path) -> None:
    (tmp_path / "show_limits.py").write_text(
        "def pytest_collection_finish(session):\n"
        "    for item in session.items:\n"
        "        marker = item.get_closest_marker('timeout')\n"
        "        print('LIMIT', item.name, marker.args if marker else None)\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--co",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "show_limits",
            "tests/e2e/test_container.py",
            "tests/unit/test_fusion.py",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    limits = [
        line.split(" ", 2)[2] for line in done.stdout.splitlines() if line.startswith("LIMIT")
    ]
    assert len(limits) > 6
    assert limits.count(f"({LONG_TIMEOUT},)") == 6  # the 6 image tests; the rest: the default
    assert set(limits) == {f"({LONG_TIMEOUT},)", "None"}
