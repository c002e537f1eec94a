"""``snaptok`` command line: which tokenizer a ``--tokenizer`` names (a
tokenizer.json or .st path, a folder holding one, or a built-in name) and
the package data (the built-in tokenizers, the sample text)."""

from __future__ import annotations

import contextlib
import hashlib
from importlib import resources
from pathlib import Path
from typing import Iterator, List

from .common import CliError

def data_dir():
    return resources.files("snaptok").joinpath("data")


def builtin_tokenizers() -> List[str]:
    """Returns the names of the tokenizers bundled in ``snaptok/data/``.

    Example: ``builtin_tokenizers()`` -> ``["gpt2"]``.
    """
    try:
        entries = list(data_dir().iterdir())
    except (FileNotFoundError, NotADirectoryError, ModuleNotFoundError):
        return []
    return sorted(
        e.name for e in entries if e.is_dir() and e.joinpath("tokenizer.json").is_file()
    )


@contextlib.contextmanager
def resolved_tokenizer(spec: str) -> Iterator[Path]:
    path = Path(spec)
    if path.is_file():
        yield path
        return
    if path.is_dir():
        if (path / "tokenizer.json").is_file():
            yield path / "tokenizer.json"
            return
        raise CliError(f"tokenizer {spec!r}: directory has no tokenizer.json")
    names = builtin_tokenizers()
    if spec in names:
        with resources.as_file(data_dir().joinpath(spec, "tokenizer.json")) as p:
            yield Path(p)
        return
    known = ", ".join(names) if names else "none installed"
    raise CliError(
        f"tokenizer {spec!r}: no such file, and not a built-in name (built-ins: {known})"
    )


def load_tokenizer(spec: str):
    """Returns (tokenizer, path, sha256 of the tokenizer.json)."""
    import snaptok

    with resolved_tokenizer(spec) as path:
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            return snaptok.Tokenizer.from_file(str(path)), str(path), digest
        except Exception as e:  # the engine names what failed; pass it on
            raise CliError(f"cannot load tokenizer {str(path)!r}: {e}") from e
