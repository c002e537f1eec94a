"""Argument types of the ``snaptok`` command line: sizes (``16M``), counts
(``100M``), non-negative integers; each refuses bad text with a message
argparse prints."""

from __future__ import annotations

import argparse
import re

_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE_RE = re.compile(r"^(\d+(?:\.\d*)?)\s*([kmgt]?)(?:i?b)?$")
_COUNT_UNITS = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "b": 10**9, "t": 10**12}
_COUNT_RE = re.compile(r"^(\d+(?:\.\d*)?)\s*([kmgbt]?)$")


def parse_scaled(text: str, pattern, units, examples: str, what: str) -> int:
    """``text`` as a number with an optional unit suffix (``pattern`` groups the
    number and the unit, ``units`` gives each unit's factor); at least 1."""
    m = pattern.match(text)
    if not m:
        raise argparse.ArgumentTypeError(f"bad {what} {text!r} (use e.g. {examples})")
    value = int(float(m.group(1)) * units[m.group(2)])
    if value < 1:
        raise argparse.ArgumentTypeError(f"{what} must be at least 1, got {text!r}")
    return value


def parse_size(text: str) -> int:
    """Bytes, with binary units: ``16M`` = 16 MiB."""
    return parse_scaled(text.strip().lower(), _SIZE_RE, _SIZE_UNITS,
                         "16M, 512K, 1G or bytes", "size")


def parse_count(text: str) -> int:
    """A count of ids, with decimal units: ``100M`` = 100,000,000."""
    return parse_scaled(text.strip().lower().replace("_", "").replace(",", ""), _COUNT_RE,
                         _COUNT_UNITS, "100M, 500k, 1G or a number", "count")


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value
