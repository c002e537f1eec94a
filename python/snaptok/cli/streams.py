"""The bytes of each ``snaptok encode`` input: what kind it is, opening and
decompressing it (gzip, zstandard; standard input sniffed for both), and
UTF-8 checks whose messages name the line and the byte offset.

``inputs`` turns these bytes into documents.
"""

from __future__ import annotations

import codecs
import gzip
import os
import sys
import zlib
from typing import Callable, List, Optional, Tuple

from .common import CliError

TEXT, LINES, JSONL, PARQUET = "text", "lines", "jsonl", "parquet"
_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_COMPRESSED_SUFFIXES = ((".gz", "gzip"), (".zst", "zstd"), (".zstd", "zstd"))
MIN_READ = 1 << 16
MAX_READ = 16 << 20


def _require(module: str, package: str, name: str, what: str):
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        raise CliError(
            f"{name}: reading {what} needs the {package!r} package, which is not installed "
            f"(pip install {package}, or pip install 'snaptok[cli]')"
        ) from None


class InputSpec:
    """One INPUT argument: its kind, compression, size and modification time."""

    def __init__(self, arg: str, *, jsonl: bool, lines: bool):
        self.arg = arg
        self.is_stdin = arg == "-"
        self.name = "<stdin>" if self.is_stdin else arg
        self.compression: Optional[str] = None  # stdin: sniffed when opened
        self.path: Optional[str] = None
        self.size: Optional[int] = None
        self.mtime_ns: Optional[int] = None
        base = arg.lower()
        if not self.is_stdin:
            for suffix, kind in _COMPRESSED_SUFFIXES:
                if base.endswith(suffix):
                    self.compression, base = kind, base[: -len(suffix)]
                    break
        if base.endswith(".parquet"):
            if self.compression:
                raise CliError(f"{arg}: Parquet files are compressed inside; give the .parquet file")
            self.kind = PARQUET
        elif jsonl or base.endswith((".jsonl", ".ndjson")):
            self.kind = JSONL
        else:
            self.kind = LINES if lines else TEXT
        if self.is_stdin:
            return
        try:
            st = os.stat(arg)
        except FileNotFoundError:
            raise CliError(f"{arg}: no such file") from None
        except OSError as e:
            raise CliError(f"{arg}: cannot access: {e.strerror or e}") from None
        if os.path.isdir(arg):
            raise CliError(f"{arg}: is a directory, expected a text, JSON Lines or Parquet file")
        self.path = os.path.abspath(arg)
        self.size = st.st_size
        self.mtime_ns = st.st_mtime_ns
        if self.compression == "zstd":
            _require("zstandard", "zstandard", arg, ".zst files")
        if self.kind == PARQUET:
            _require("pyarrow.parquet", "pyarrow", arg, "Parquet files")

    def describe(self) -> dict:
        """What the manifest records to recognise this input on --resume."""
        return {"path": self.path, "kind": self.kind, "compression": self.compression,
                "size": self.size, "mtime_ns": self.mtime_ns}


# --------------------------------------------------------------------------
# Byte streams.


class _ZstdReader:
    """Decompresses a zstandard stream of any number of frames.

    (zstandard's own stream_reader ends quietly at a truncated frame; a
    decompressobj per frame tells a complete frame from a cut one.) Input is
    fed in pieces sized so one call yields a few MB, keeping memory bounded.
    """

    def __init__(self, raw, name: str):
        self._zstd = _require("zstandard", "zstandard", name, ".zst files")
        self._raw = raw
        self._name = name
        self._dctx = self._zstd.ZstdDecompressor()
        self._frame = None
        self._frame_fed = False
        self._out: List[bytes] = []
        self._out_len = 0
        self._piece = 1 << 16
        self._eof = False

    def _decompress(self, data: bytes) -> None:
        while data:
            if self._frame is None:
                self._frame = self._dctx.decompressobj()
                self._frame_fed = False
            try:
                out = self._frame.decompress(data)
            except self._zstd.ZstdError as e:
                raise CliError(f"{self._name}: not valid zstandard data: {e}") from None
            self._frame_fed = True
            if out:
                self._out.append(out)
                self._out_len += len(out)
                ratio = max(1, len(out) // max(1, len(data)))
                self._piece = max(1 << 12, min(1 << 20, (4 << 20) // ratio))
            if self._frame.eof:
                data = self._frame.unused_data
                self._frame = None
            else:
                data = b""

    def read(self, n: int) -> bytes:
        while self._out_len < n and not self._eof:
            data = self._raw.read(self._piece)
            if not data:
                self._eof = True
                if self._frame is not None and self._frame_fed:
                    raise CliError(f"{self._name}: zstandard data is truncated (the last frame is cut)")
                break
            self._decompress(data)
        if not self._out:
            return b""
        joined = self._out[0] if len(self._out) == 1 else b"".join(self._out)
        result, rest = joined[:n], joined[n:]
        self._out = [rest] if rest else []
        self._out_len = len(rest)
        return result


class Stream:
    """The decompressed bytes of one text or JSON Lines input.

    ``read(n)`` returns n bytes unless the input ends first;
    ``raw_position()`` is how far into the file (compressed bytes) it is.
    """

    def __init__(self, spec: InputSpec):
        self.spec = spec
        self.name = spec.name
        self._prefix = b""
        self._count = 0
        if spec.is_stdin:
            self._raw = sys.stdin.buffer
            self._prefix = self._raw_read(4)
            if self._prefix.startswith(_GZIP_MAGIC):
                spec.compression = "gzip"
            elif self._prefix.startswith(_ZSTD_MAGIC):
                spec.compression = "zstd"
        else:
            try:
                self._raw = open(spec.arg, "rb", buffering=0)
            except OSError as e:
                raise CliError(f"{spec.name}: cannot open: {e.strerror or e}") from None
        source = self if spec.compression else None
        if spec.compression == "gzip":
            self._dec = gzip.GzipFile(fileobj=_RawAdapter(source), mode="rb")
        elif spec.compression == "zstd":
            self._dec = _ZstdReader(_RawAdapter(source), spec.name)
        else:
            self._dec = None

    def _raw_read(self, n: int) -> bytes:
        try:
            data = self._raw.read(n)
        except OSError as e:
            raise CliError(f"{self.name}: read error: {e.strerror or e}") from None
        return data or b""

    def read_raw(self, n: int) -> bytes:
        """Reads up to n bytes of the file itself (compressed data, if any)."""
        if self._prefix:
            data, self._prefix = self._prefix[:n], self._prefix[n:]
        else:
            data = self._raw_read(n)
        self._count += len(data)
        return data

    def raw_position(self) -> int:
        return self._count

    def read(self, n: int) -> bytes:
        parts: List[bytes] = []
        want = n
        while want > 0:
            if self._dec is None:
                data = self.read_raw(want)
            else:
                try:
                    data = self._dec.read(want)
                except (OSError, EOFError, zlib.error) as e:
                    raise CliError(
                        f"{self.name}: not valid gzip data near compressed byte "
                        f"{self._count}: {e}"
                    ) from None
            if not data:
                break
            parts.append(data)
            want -= len(data)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def skip(self, n: int) -> None:
        """Passes over the first n decompressed bytes (for --resume)."""
        if self._dec is None and not self.spec.is_stdin:
            self._raw.seek(n)
            self._count = n
            return
        while n > 0:
            data = self.read(min(n, MAX_READ))
            if not data:
                break
            n -= len(data)

    def close(self) -> None:
        if not self.spec.is_stdin:
            self._raw.close()


class _RawAdapter:
    """Lets a decompressor read the file through Stream (which counts bytes)."""

    def __init__(self, stream: Stream):
        self._stream = stream

    def read(self, n: int = -1) -> bytes:
        return self._stream.read_raw(n if n is not None and n >= 0 else MAX_READ)

    def readable(self) -> bool:
        return True


# --------------------------------------------------------------------------
# UTF-8 checks with messages that name the line and byte offset.


def utf8_error(name: str, data, e: UnicodeDecodeError, pos: int, offset: int,
                line: int, line_start: int) -> CliError:
    """``pos``: error index in ``data``; ``offset``: stream offset of data[0];
    ``line``/``line_start``: line number and stream offset of the line data[0] is in."""
    if not isinstance(data, bytes):
        data = bytes(data)
    newlines = data.count(b"\n", 0, pos)
    if newlines:
        line += newlines
        line_start = offset + data.rfind(b"\n", 0, pos) + 1
    bad = data[pos : pos + min(4, max(1, e.end - e.start))]
    return CliError(
        f"{name}:{line}: invalid UTF-8 at byte offset {offset + pos} "
        f"(column {offset + pos - line_start + 1} in bytes): {e.reason} {bad!r}"
    )


def decode_utf8(name: str, data: bytes, offset: int, line: int) -> str:
    """Returns ``data`` decoded; raises CliError naming the line and byte offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise utf8_error(name, data, e, e.start, offset, line, offset) from None


def check_utf8(name: str, data: bytes, offset: int, line: int) -> None:
    if not data.isascii():
        decode_utf8(name, data, offset, line)


class Utf8Checker:
    """Validates one document that arrives in blocks (a character may be cut
    between two blocks).

    Error messages need the line number. Counting newlines costs more than the
    check itself, so with ``locate`` (a function giving ``(line, line_start)``
    for a stream offset, by reading the input again) lines are only counted
    once an error is found; without it they are counted as blocks pass, unless
    ``count_lines`` is False (the blocks of one long line hold no newline).
    """

    def __init__(self, name: str, offset: int = 0, line: int = 1, *,
                 locate: Optional[Callable[[int], Tuple[int, int]]] = None,
                 count_lines: bool = True):
        self.name = name
        self.offset = offset  # stream offset of the next block
        self.line = line
        self.line_start = offset
        self.carry = b""  # the start of a character cut at the last block's end
        self.locate = locate
        self.count_lines = count_lines and locate is None

    def _fail(self, data, e, pos, data_offset):
        line, line_start = self.line, self.line_start
        if self.locate is not None:
            line, line_start = self.locate(data_offset)
        return utf8_error(self.name, data, e, pos, data_offset, line, line_start)

    def feed(self, block: bytes) -> None:
        if self.carry or not block.isascii():
            start = 0
            if self.carry:
                head = self.carry + block[:3]
                head_offset = self.offset - len(self.carry)
                try:
                    _, used = codecs.utf_8_decode(head, "strict", False)
                except UnicodeDecodeError as e:
                    raise self._fail(head, e, e.start, head_offset) from None
                start = used - len(self.carry)
                if start < 0:  # still cut: the block was shorter than the character
                    self.carry = head
                    self.offset += len(block)
                    return
                self.carry = b""
            view = memoryview(block)[start:]
            try:
                _, used = codecs.utf_8_decode(view, "strict", False)
            except UnicodeDecodeError as e:
                raise self._fail(block, e, start + e.start, self.offset) from None
            self.carry = bytes(view[used:])
        newlines = block.count(b"\n") if self.count_lines else 0
        if newlines:
            self.line += newlines
            self.line_start = self.offset + block.rfind(b"\n") + 1
        self.offset += len(block)

    def finish(self) -> None:
        if self.carry:
            e = UnicodeDecodeError("utf-8", self.carry, 0, len(self.carry), "unexpected end of data")
            raise self._fail(self.carry, e, 0, self.offset - len(self.carry))


def locate_line(spec: InputSpec, offset: int) -> Tuple[int, int]:
    """Reads ``spec`` again up to ``offset``; returns the line number there and
    the offset where that line starts (for error messages)."""
    stream = Stream(spec)
    try:
        line, line_start, pos = 1, 0, 0
        while pos < offset:
            block = stream.read(min(MAX_READ, offset - pos))
            if not block:
                break
            newlines = block.count(b"\n")
            if newlines:
                line += newlines
                line_start = pos + block.rfind(b"\n") + 1
            pos += len(block)
        return line, line_start
    finally:
        stream.close()
