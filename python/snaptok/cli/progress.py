"""``snaptok encode`` progress: a tqdm bar on a terminal when tqdm is
installed, else a plain line (rewritten in place on a terminal, one line
every 10 s in a log)."""

from __future__ import annotations

import time
from typing import IO, Optional

from .common import PROGRESS_MIN_BYTES

def fmt_bytes(n: float) -> str:
    """Returns a byte count in the unit that suits it: 512 B, 12.3 kB, 4.5 MB, 1.2 GB."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n:,.0f} B"


def fmt_rate(bytes_per_second: float) -> str:
    return fmt_bytes(bytes_per_second) + "/s"


def progress_enabled(total: Optional[int], mode: Optional[bool], stream: IO[str]) -> bool:
    big = total is not None and total >= PROGRESS_MIN_BYTES
    return (isatty(stream) or big) if mode is None else mode


def isatty(stream) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)())


class Progress:
    """A progress line: rewritten in place on a terminal, else one line every 10 s."""

    def __init__(self, total: Optional[int], stream: IO[str]):
        self.tty = isatty(stream)
        self.total = total
        self.stream = stream
        self.start = time.perf_counter()
        self.skipped = 0
        self.last = self.start  # the first line comes one interval in
        self.interval = 0.25 if self.tty else 10.0
        self.width = 0

    def update(self, done: int, tokens: int, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self.last < self.interval:
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = (done - self.skipped) / elapsed
        tok_rate = tokens / elapsed
        if self.total:
            pct = 100.0 * done / self.total
            eta = (self.total - done) / rate if rate > 0 else 0.0
            text = (f"encode {fmt_bytes(done)} / {fmt_bytes(self.total)} ({pct:5.1f}%)  "
                    f"{fmt_rate(rate)}  {tokens:,} tokens  {tok_rate:,.0f} tokens/s  "
                    f"eta {eta:,.0f}s")
        else:
            text = (f"encode {fmt_bytes(done)}  {fmt_rate(rate)}  {tokens:,} tokens  "
                    f"{tok_rate:,.0f} tokens/s")
        if self.tty:
            pad = " " * max(0, self.width - len(text))
            self.stream.write("\r" + text + pad)
            self.width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


class TqdmProgress:
    """A tqdm bar over input bytes, with MB/s and tokens/s in the postfix."""

    def __init__(self, total: Optional[int], stream: IO[str], tqdm):
        self.bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1000, desc="encode",
                        file=stream, dynamic_ncols=True, mininterval=0.25, smoothing=0.1)
        self.start = time.perf_counter()
        self.skipped = 0
        self.last = 0.0

    def update(self, done: int, tokens: int, force: bool = False) -> None:
        now = time.perf_counter()
        if force or now - self.last >= 0.5:
            self.last = now
            elapsed = max(now - self.start, 1e-9)
            self.bar.set_postfix_str(
                f"{fmt_rate((done - self.skipped) / elapsed)}, "
                f"{tokens / elapsed:,.0f} tokens/s, {tokens:,} tokens", refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        self.bar.close()


def make_progress(total: Optional[int], mode: Optional[bool], stream: IO[str]):
    """tqdm on a terminal when it is installed, else the plain progress line
    (which keeps logs readable: one line every 10 s)."""
    if not progress_enabled(total, mode, stream):
        return None
    if isatty(stream):
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            return TqdmProgress(total, stream, tqdm)
    return Progress(total, stream)
