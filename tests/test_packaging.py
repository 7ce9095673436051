"""The wheel: it holds the shipped skills, and the package installed from it finds them.

The wheel is built offline from a copy of the project with the build backend's own hook
(setuptools from the dev extra), so that nothing is written into the checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Seconds a child process may take before the test fails (the machine may be busy).
WAIT = 300
#: What a wheel is not built from.
LEFT_OUT = (".git", ".venv", "runs", "tests", "bench", "docs", "build", "dist")
_NOT_COPIED = shutil.ignore_patterns(
    *LEFT_OUT, ".*cache", ".hypothesis", "__pycache__", "*.egg-info", "*.pyc"
)
SHIPPED = sorted(p.parent.name for p in (ROOT / "skills").glob("*/SKILL.md"))


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUARTET_", "PYTHON"))}
    return {**env, **extra}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built from a copy of the checkout."""
    pytest.importorskip("setuptools", minversion="77", reason="the dev extra's setuptools")
    base = tmp_path_factory.mktemp("wheel")
    source, out = base / "source", base / "out"
    shutil.copytree(ROOT, source, ignore=_NOT_COPIED)
    code = (
        "import sys\nfrom setuptools import build_meta\nprint(build_meta.build_wheel(sys.argv[1]))"
    )
    built = subprocess.run(
        [sys.executable, "-c", code, str(out)],
        cwd=source,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert built.returncode == 0, built.stderr[-4000:]
    return out / built.stdout.strip().splitlines()[-1]


def test_the_wheel_holds_every_shipped_skill(wheel):
    assert SHIPPED, "no skills/*/SKILL.md in the checkout"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for skill in SHIPPED:
            path = f"skills/{skill}/SKILL.md"
            assert path in names, path
            assert archive.read(path) == (ROOT / path).read_bytes()
        top = next(n for n in names if n.endswith(".dist-info/top_level.txt"))
        assert "skills" in archive.read(top).decode().split()


def test_the_installed_package_loads_its_skills(wheel, tmp_path):
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    code = (
        "from subagents import SPECS\n"
        "from subagents.skills import SHIPPED_ROOT, skills_for\n"
        "names = [n for spec in SPECS.values() for n in spec.skills]\n"
        "print(SHIPPED_ROOT)\n"
        "for skill in skills_for(names):\n"
        "    print(skill.name, skill.path)\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=_env(PYTHONPATH=str(site)),
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert loaded.returncode == 0, loaded.stderr[-4000:]
    root, *lines = loaded.stdout.splitlines()
    assert Path(root) == site / "skills"
    assert lines, "no skill loaded"
    for line in lines:
        name, path = line.split(" ", 1)
        assert Path(path) == site / "skills" / name / "SKILL.md"
