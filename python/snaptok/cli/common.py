"""Pieces shared by the ``snaptok encode`` modules: errors, cursors, files.

``encode`` runs the command; ``inputs`` turns inputs into documents;
``shards`` writes the output files and the manifest.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import NamedTuple

PROG = "snaptok"
DEFAULT_TOKENIZER = "gpt2"
DEFAULT_FIELD = "text"
DEFAULT_BATCH_BYTES = 16 << 20
# Without a terminal, progress is shown only for inputs at least this large.
PROGRESS_MIN_BYTES = 64 << 20
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class CliError(Exception):
    """Bad input or usage: reported as ``snaptok: error: ...``, exit status 2."""


class EncodeFailed(Exception):
    """The tokenizer raised while encoding: exit status 1."""


class Cursor(NamedTuple):
    """Where reading resumes: the start of the document after a given one.

    ``input`` indexes the INPUT arguments; ``offset`` is a byte offset in
    the decompressed input (plain text and JSON Lines) or a row number
    (Parquet); ``line`` is the 1-based line number at ``offset`` (0 for
    Parquet). A plain-text document (one per file) ends at
    ``Cursor(i + 1, 0, 1)``: the start of the next input.
    """

    input: int
    offset: int
    line: int


def temp_path(final: str) -> str:
    """Creates an empty hidden temporary file beside ``final``; returns its path.

    The name is ``.{basename}.{random}.tmp``, so a run killed before the
    rename leaves nothing under a final name (and ``--resume`` can sweep the
    leftovers by pattern).
    """
    directory, name = os.path.split(os.path.abspath(final))
    fd, path = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    os.close(fd)
    return path


def fsync_directory(directory: str) -> None:
    """Makes renames in ``directory`` durable (a no-op where unsupported)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory or ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def publish(tmp: str, final: str) -> None:
    """Gives ``tmp`` (already written and fsynced) the usual permissions and
    renames it to ``final`` atomically, replacing any file there."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, final)


def unlink_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def write_file_atomically(final: str, data: bytes) -> None:
    """Writes ``data`` to ``final`` through a temporary file and a rename."""
    tmp = temp_path(final)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        publish(tmp, final)
    except BaseException:
        unlink_quietly(tmp)
        raise
    fsync_directory(os.path.dirname(os.path.abspath(final)))
