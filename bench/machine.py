"""What the benches print about the machine (no third-party imports: the
corpus bench's HF 1.0 worker imports it from another interpreter)."""

import platform
from pathlib import Path


def cpu_name() -> str:
    """The CPU's model name from /proc/cpuinfo, else what platform knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
