"""The pathological inputs of bench/pathological.py (issue 10) give HF's ids
and offsets: the bench itself, at a small scale, must run and report no
MISMATCH (it checks every size against HF; timings are not asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("snaptok")
pytest.importorskip("tokenizers")

BENCH = Path(__file__).resolve().parents[2] / "bench" / "pathological.py"


def test_pathological_inputs_equal_hf():
    out = subprocess.run([sys.executable, str(BENCH), "--scale", "0.02", "--repeat", "1", "--min-time", "0"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.rstrip().endswith(("= HF", "MISMATCH", "not run"))]
    assert len(rows) == 2 * 6 * 3, out.stdout  # 2 tokenizers x 6 kinds x 3 sizes
    assert all(row.rstrip().endswith("= HF") for row in rows), out.stdout
