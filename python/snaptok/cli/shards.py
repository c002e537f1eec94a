"""Writing the output of ``snaptok encode``: shards in any ``--format``
(``writers``; npz here, with its zip writer) and the manifest that lets
``--resume`` continue an interrupted run.

Every file is written under a hidden temporary name beside its final name
(``.NAME.RANDOM.tmp``), fsynced, and renamed when complete. After each
shard, the manifest (``BASE.manifest.json``) is rewritten the same way, so
it only ever lists complete shards. Nothing here depends on the clock:
the same inputs and options give the same bytes.

npz: a zip of ``ids.npy`` and ``offsets.npy``. Stored (uncompressed)
archives are written in one pass: the ids go straight into the zip member,
its 128-byte .npy header is filled in at the end, and the CRC of header +
ids is combined from the two parts (``crc32_combine``). With ``--compress``
the ids are spooled to a temporary file and deflated into the zip when the
shard ends. The ids, gigabytes written once, go through ``DirectFile``
(around the page cache where the file system allows).
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from typing import Callable, List, Optional

import numpy as np

from .common import CliError, Cursor, fsync_directory, publish, unlink_quietly, write_file_atomically
from .writers import NPY_HEADER_BYTES, WRITERS, Format, ShardWriter, WriterOptions, npy_header

MANIFEST_VERSION = 1
_COPY_BYTES = 16 << 20

# --------------------------------------------------------------------------
# CRC-32 of a concatenation, from the CRCs of its parts.

_CRC_POLY = 0xEDB88320  # the CRC-32 polynomial, bit-reflected


def _mulmod(a: int, b: int) -> int:
    """a * b modulo the CRC-32 polynomial (reflected order: bit 31 is x^0)."""
    product = 0
    bit = 1 << 31
    while a:
        if a & bit:
            product ^= b
            a ^= bit
        bit >>= 1
        b = (b >> 1) ^ (_CRC_POLY if b & 1 else 0)
    return product


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """Returns crc32(A + B) given crc32(A), crc32(B) and len(B).

    Appending a byte multiplies the CRC register by x^8 (mod the
    polynomial), so crc(A + B) = crc(A) * x^(8 len B) xor crc(B); the
    initial and final inversions of CRC-32 cancel out.
    """
    power = 1 << 31  # x^0
    square = 1 << 23  # x^8
    n = len2
    while n:
        if n & 1:
            power = _mulmod(power, square)
        square = _mulmod(square, square)
        n >>= 1
    return _mulmod(crc1, power) ^ crc2


# --------------------------------------------------------------------------
# A minimal ZIP64 writer (stored or deflated members, fixed timestamp).

_DOS_DATE = (0 << 9) | (1 << 5) | 1  # 1980-01-01
_DOS_TIME = 0
_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_ZIP64_LOCAL_EXTRA = struct.Struct("<HHQQ")
_ZIP64_CENTRAL_EXTRA = struct.Struct("<HHQQQ")
_ZIP64_END = struct.Struct("<IQHHIIQQQQ")
_ZIP64_LOCATOR = struct.Struct("<IIQI")
_END = struct.Struct("<IHHHHIIH")
_FFFF = 0xFFFFFFFF


class _ZipMember:
    def __init__(self, f, name: str, deflate: bool, reserve: int):
        self.f = f
        self.name = name.encode("ascii")
        self.method = 8 if deflate else 0
        self.offset = f.tell()
        self.crc = 0
        self.size = 0  # uncompressed bytes, the reserved prefix excluded until end()
        self.csize = 0
        self.reserve = reserve
        self._comp = zlib.compressobj(6, zlib.DEFLATED, -15) if deflate else None
        f.write(self._local_header())
        self.data_start = f.tell()
        if reserve:
            f.write(b"\0" * reserve)

    def _local_header(self) -> bytes:
        return (_LOCAL.pack(0x04034B50, 45, 0, self.method, _DOS_TIME, _DOS_DATE, self.crc,
                            _FFFF, _FFFF, len(self.name), _ZIP64_LOCAL_EXTRA.size)
                + self.name + _ZIP64_LOCAL_EXTRA.pack(1, 16, self.size, self.csize))

    def write(self, data) -> None:
        buf = memoryview(data).cast("B")
        if not len(buf):
            return
        self.crc = zlib.crc32(buf, self.crc)
        self.size += len(buf)
        if self._comp is not None:
            buf = self._comp.compress(buf)
        self.f.write(buf)
        self.csize += len(buf)

    def end(self, prefix: bytes = b"") -> None:
        """Finishes the member; ``prefix`` fills the reserved space at its start."""
        f = self.f
        if self._comp is not None:
            tail = self._comp.flush()
            f.write(tail)
            self.csize += len(tail)
        if self.reserve:
            assert len(prefix) == self.reserve and self._comp is None
            self.crc = crc32_combine(zlib.crc32(prefix), self.crc, self.size)
            self.size += self.reserve
            self.csize += self.reserve
        end = f.tell()
        if self.reserve:
            f.seek(self.data_start)
            f.write(prefix)
        f.seek(self.offset)
        f.write(self._local_header())
        f.seek(end)

    def central_header(self) -> bytes:
        return (_CENTRAL.pack(0x02014B50, (3 << 8) | 45, 45, 0, self.method, _DOS_TIME, _DOS_DATE,
                              self.crc, _FFFF, _FFFF, len(self.name), _ZIP64_CENTRAL_EXTRA.size,
                              0, 0, 0, 0o100644 << 16, _FFFF)
                + self.name + _ZIP64_CENTRAL_EXTRA.pack(1, 24, self.size, self.csize, self.offset))


def _finish_zip(f, members: List[_ZipMember]) -> None:
    cd_offset = f.tell()
    for m in members:
        f.write(m.central_header())
    cd_size = f.tell() - cd_offset
    end64 = f.tell()
    n = len(members)
    f.write(_ZIP64_END.pack(0x06064B50, 44, (3 << 8) | 45, 45, 0, 0, n, n, cd_size, cd_offset))
    f.write(_ZIP64_LOCATOR.pack(0x07064B50, 0, end64, 1))
    f.write(_END.pack(0x06054B50, 0, 0, n, n, min(cd_size, _FFFF), min(cd_offset, _FFFF), 0))


def _copy(src, member: _ZipMember) -> None:
    src.seek(0)
    while True:
        data = src.read(_COPY_BYTES)
        if not data:
            break
        member.write(data)


# --------------------------------------------------------------------------
# Shards.


class NpzShard(ShardWriter):
    """A zip of ids.npy and offsets.npy."""

    def __init__(self, files: List[str], dtype, options: WriterOptions):
        super().__init__(files, dtype, options)
        self.compress = compress = options.compress
        self._zip_tmp, self._zip = self._temp(files[0], direct=True)
        self._ends_tmp, self._ends = self._temp(files[0], "w+b")
        self._ends.write(np.zeros(1, "<i8").tobytes())
        if compress:
            self._ids_tmp, self._ids = self._temp(files[0], "w+b")
            self._member = None
        else:
            self._member = _ZipMember(self._zip, "ids.npy", False, NPY_HEADER_BYTES)

    def _write_ids(self, ids):
        if self._member is not None:
            self._member.write(ids)
        else:  # a spool, read back at close: keep it cached
            self._ids.write(memoryview(ids).cast("B"))

    def _write_ends(self, ends):
        self._ends.write(memoryview(ends).cast("B"))

    def close(self) -> List[int]:
        header = npy_header(self.dtype, self.tokens)
        if self._member is not None:
            self._member.end(header)
            ids_member = self._member
        else:
            ids_member = _ZipMember(self._zip, "ids.npy", True, 0)
            ids_member.write(header)
            _copy(self._ids, ids_member)
            ids_member.end()
        offsets = _ZipMember(self._zip, "offsets.npy", self.compress, 0)
        offsets.write(npy_header(np.int64, self.documents + 1))
        _copy(self._ends, offsets)
        offsets.end()
        _finish_zip(self._zip, [ids_member, offsets])
        self._close_files([self._zip])
        publish(self._zip_tmp, self.files[0])
        for path in self._temps[1:]:
            unlink_quietly(path)
        self._temps = []
        return [os.path.getsize(self.files[0])]


# --------------------------------------------------------------------------
# File names.


class OutputLayout:
    """Where the files of one run go.

    Unsharded: ``-o PATH`` itself for one-file formats (npz, llmc, parquet),
    else PATH with or without the format's first suffix names the files, e.g.
    ``out.bin`` + ``out.idx`` for megatron.
    Sharded: ``BASE-00000.npz``..., ``BASE-00000.bin``/``.idx``..., and
    ``BASE.manifest.json``; BASE is PATH less that suffix.
    """

    def __init__(self, output: str, fmt: Format, sharded: bool):
        self.output = output
        self.format = fmt
        self.sharded = sharded
        suffix = fmt.suffixes[0]
        self.base = output[: -len(suffix)] if output.lower().endswith(suffix) else output
        self.directory = os.path.dirname(os.path.abspath(output))
        self.manifest_path = self.base + ".manifest.json"

    def shard_files(self, index: int) -> List[str]:
        if not self.sharded and len(self.format.suffixes) == 1:
            return [self.output]  # a one-file format takes -o as given
        stem = f"{self.base}-{index:05d}" if self.sharded else self.base
        return [stem + suffix for suffix in self.format.suffixes]

    def remove_leftovers(self) -> None:
        """Deletes temporary files a killed run of this output left behind."""
        stem = os.path.basename(self.base)
        prefixes = (f".{stem}-", f".{os.path.basename(self.manifest_path)}.")
        for name in os.listdir(self.directory):
            if name.startswith(prefixes) and name.endswith(".tmp"):
                unlink_quietly(os.path.join(self.directory, name))


# --------------------------------------------------------------------------
# The manifest.


class Manifest:
    """``BASE.manifest.json``: what was asked for, and the shards written so far."""

    def __init__(self, path: str, header: dict):
        self.path = path
        self.header = header
        self.shards: List[dict] = []
        self.complete = False

    @property
    def documents(self) -> int:
        return sum(s["documents"] for s in self.shards)

    @property
    def tokens(self) -> int:
        return sum(s["tokens"] for s in self.shards)

    def to_json(self) -> dict:
        return {"snaptok_manifest": MANIFEST_VERSION, **self.header, "complete": self.complete,
                "shard_count": len(self.shards), "documents": self.documents,
                "tokens": self.tokens, "shards": self.shards}

    def save(self) -> None:
        text = json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"
        write_file_atomically(self.path, text.encode("utf-8"))

    def next_cursor(self) -> Cursor:
        if not self.shards:
            return Cursor(0, 0, 1)
        n = self.shards[-1]["next"]
        return Cursor(n["input"], n["offset"], n["line"])


def load_manifest(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            data = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        raise CliError(f"--resume: no manifest {path!r} (nothing to resume; run without --resume)") from None
    except (OSError, ValueError) as e:
        raise CliError(f"--resume: cannot read the manifest {path!r}: {e}") from None
    if not isinstance(data, dict) or data.get("snaptok_manifest") != MANIFEST_VERSION:
        raise CliError(f"--resume: {path!r} is not a snaptok manifest (version {MANIFEST_VERSION})")
    return data


def resume_manifest(layout: OutputLayout, header: dict) -> Manifest:
    """Loads the manifest and checks it was written by the same command; raises
    CliError naming every difference."""
    path = layout.manifest_path
    old = load_manifest(path)
    problems = []
    for section in ("output", "options"):
        was, now = old.get(section, {}), header[section]
        for key in now:
            if was.get(key) != now[key]:
                problems.append(f"{section} {key}: {was.get(key)!r} in the manifest, {now[key]!r} now")
    if old.get("tokenizer", {}).get("sha256") != header["tokenizer"]["sha256"]:
        problems.append(f"tokenizer: {old.get('tokenizer', {}).get('path')!r} in the manifest, "
                        f"{header['tokenizer']['path']!r} now, and their contents differ")
    was_in, now_in = old.get("inputs", []), header["inputs"]
    if len(was_in) != len(now_in):
        problems.append(f"inputs: {len(was_in)} in the manifest, {len(now_in)} now")
    for k, (a, b) in enumerate(zip(was_in, now_in)):
        diff = [key for key in b if a.get(key) != b[key]]
        if diff:
            what = ", ".join(f"{key} {a.get(key)!r} -> {b[key]!r}" for key in diff)
            problems.append(f"input {k + 1} ({b['path']}): {what}")
    if problems:
        raise CliError(f"--resume: {path} does not match this command:\n  " + "\n  ".join(problems))
    manifest = Manifest(path, header)
    manifest.shards = list(old.get("shards", []))
    manifest.complete = bool(old.get("complete"))
    for shard in manifest.shards:
        for name, size in zip(shard["files"], shard["bytes"]):
            full = os.path.join(layout.directory, name)
            try:
                actual = os.path.getsize(full)
            except OSError:
                raise CliError(f"--resume: {full} (listed in {path}) is missing") from None
            if actual != size:
                raise CliError(f"--resume: {full} has {actual:,} bytes, the manifest says {size:,}")
    return manifest


def remove_previous(layout: OutputLayout) -> None:
    """--overwrite: deletes the files an earlier run's manifest lists, and the manifest."""
    try:
        with open(layout.manifest_path, "rb") as f:
            old = json.loads(f.read().decode("utf-8"))
        names = [n for s in old.get("shards", []) for n in s.get("files", [])]
    except (OSError, ValueError, AttributeError, TypeError):
        names = []
    for name in names:
        if os.path.basename(name) == name:  # only files beside the manifest
            unlink_quietly(os.path.join(layout.directory, name))
    unlink_quietly(layout.manifest_path)


# --------------------------------------------------------------------------
# The shard set: documents in, shards out.


class ShardSet:
    """Splits the document stream into shards of at least ``shard_size`` ids
    (ending at the first document end that reaches it), or one output when
    shard_size is None. Called from one writer thread, in document order."""

    def __init__(self, layout: OutputLayout, *, dtype, shard_size: Optional[int],
                 options: WriterOptions, manifest: Optional[Manifest]):
        self.layout = layout
        self.dtype = np.dtype(dtype)
        self.shard_size = shard_size
        self.options = options
        self.manifest = manifest
        self.done: List[dict] = list(manifest.shards) if manifest else []
        self.documents = sum(s["documents"] for s in self.done)
        self.tokens = sum(s["tokens"] for s in self.done)
        self.current: Optional[ShardWriter] = None
        self._first = (0, 0)

    def _open(self) -> ShardWriter:
        if self.current is None:
            files = self.layout.shard_files(len(self.done))
            writer = WRITERS.get(self.layout.format.name, NpzShard)
            self.current = writer(files, self.dtype, self.options)
            self._first = (self.documents, self.tokens)
        return self.current

    def _close(self, cursor: Cursor) -> None:
        shard = self.current
        try:
            sizes = shard.close()
        except BaseException:
            shard.abort()  # its temporary files; what was renamed is complete
            self.current = None
            raise
        self.current = None
        fsync_directory(self.layout.directory)
        entry = {"index": len(self.done), "files": [os.path.basename(p) for p in shard.files],
                 "bytes": sizes, "documents": shard.documents, "tokens": shard.tokens,
                 "first_document": self._first[0], "first_token": self._first[1],
                 "next": {"input": cursor.input, "offset": cursor.offset, "line": cursor.line}}
        self.done.append(entry)
        if self.manifest is not None:
            self.manifest.shards = self.done
            self.manifest.save()

    def add_documents(self, ids: np.ndarray, offsets: np.ndarray,
                      cursor: Callable[[int], Cursor], fields: Optional[dict] = None) -> None:
        """Whole documents: ids and their offsets (len n+1, from 0);
        cursor(j) is where reading resumes after document j; `fields`, the
        --keep-fields values of each document, or None."""
        n = len(offsets) - 1
        start = 0
        while start < n:
            shard = self._open()
            base = int(offsets[start])
            last, full = n - 1, False
            if self.shard_size is not None:
                need = self.shard_size - shard.tokens
                j = start + int(np.searchsorted(offsets[start + 1 :], base + need, side="left"))
                if j < n:
                    last, full = j, True
            stop = int(offsets[last + 1])
            ends = offsets[start + 1 : last + 2] - base + shard.tokens
            shard.write_ids(ids[base:stop])
            if fields is not None:
                shard.add_fields({name: values[start : last + 1] for name, values in fields.items()})
            shard.add_ends(ends)
            self.documents += last + 1 - start
            self.tokens += stop - base
            if full:
                self._close(cursor(last))
            start = last + 1

    def begin_document(self) -> None:
        self._open()

    def add_partial(self, ids: np.ndarray) -> None:
        """Part of the current (streamed) document."""
        self.current.write_ids(ids)
        self.tokens += int(ids.size)

    def end_document(self, cursor: Cursor) -> None:
        shard = self.current
        shard.add_ends(np.array([shard.tokens], dtype=np.int64))
        self.documents += 1
        if self.shard_size is not None and shard.tokens >= self.shard_size:
            self._close(cursor)

    def finish(self, end: Cursor) -> None:
        """Closes the last shard (written even when empty if it is the only
        one) and marks the manifest complete."""
        if self.current is not None or not self.done:
            self._open()
            self._close(end)
        if self.manifest is not None:
            self.manifest.shards = self.done
            self.manifest.complete = True
            self.manifest.save()

    def abort(self) -> None:
        if self.current is not None:
            self.current.abort()
            self.current = None
