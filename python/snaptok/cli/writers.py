"""The shard writers of ``snaptok encode``: one class per ``--format`` but
npz (``shards.NpzShard``, with the zip writer), each the layout a trainer
reads. docs/cli.md ("Output formats for trainers") gives every layout;
the tests read the files back with the consumers' own readers.

* ``memmap``: ``.bin`` raw little-endian ids, no header (nanoGPT, OLMo);
  ``.idx.npy`` the int64 document offsets (``n_documents + 1``, from 0).
* ``megatron``: ``PREFIX.bin`` + ``PREFIX.idx``, Megatron-core's
  ``IndexedDataset`` (also NeMo's): one sequence per document.
* ``datatrove``: ``.ds`` + ``.ds.index`` + ``.ds.metadata`` as datatrove's
  ``DocumentTokenizer`` writes them.
* ``llmc``: llm.c's ``.bin``: a 256 x int32 header, then the ids.
* ``parquet``: one row per document, column ``input_ids``.

A writer receives ids (``write_ids``) and document ends (``add_ends``, int64
token offsets within the shard) in document order, possibly a document in
several pieces, and writes under temporary names that ``close`` renames.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

from .common import CliError, publish, temp_path, unlink_quietly
from .direct_file import DirectFile

# Megatron-core indexed_dataset.py: the .idx magic, its version and the dtype codes.
MEGATRON_MAGIC = b"MMIDIDX\x00\x00"
MEGATRON_VERSION = 1
MEGATRON_DTYPE_CODES = {np.dtype(np.uint16): 8, np.dtype(np.int32): 4}
# llm.c dev/data/data_common.py: (magic, version) per id width; 256 int32 of header.
LLMC_HEADERS = {np.dtype(np.uint16): (20240520, 1), np.dtype(np.uint32): (20240801, 7)}
LLMC_HEADER_BYTES = 256 * 4
LLMC_MAX_TOKENS = (1 << 31) - 1
NPY_HEADER_BYTES = 128
_CHUNK = 1 << 20  # index entries per pass over a spool


@dataclass(frozen=True)
class WriterOptions:
    """What a writer needs beyond ids: ``compress`` (npz), ``tokenizer_name``
    (datatrove's metadata), ``row_group_ids`` and ``keep_fields`` (parquet)."""
    compress: bool = False
    tokenizer_name: str = ""
    row_group_ids: int = 8 << 20
    keep_fields: tuple = ()


def npy_header(dtype, length: int) -> bytes:
    """A version 1.0 .npy header for a 1-D array, padded to NPY_HEADER_BYTES."""
    text = "{'descr': %r, 'fortran_order': False, 'shape': (%d,), }" % (
        np.lib.format.dtype_to_descr(np.dtype(dtype)), length)
    body = text.ljust(NPY_HEADER_BYTES - 10 - 1) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body)) + body.encode("latin1")


def si_count(n: int) -> str:
    """``n`` tokens with three significant digits and an SI prefix, as datatrove's
    metadata has it (through humanize.metric): 999 -> "999 T", 1234567 -> "1.23 MT"."""
    if n == 0:
        return "0 T"
    exponent = len(str(abs(n))) - 1
    scaled = n / 10 ** (exponent // 3 * 3)
    decimals = 2 - exponent % 3
    if round(abs(scaled), decimals) >= 10 ** (exponent % 3 + 1):  # 9.999 rounds to 10.0
        exponent += 1
        scaled = n / 10 ** (exponent // 3 * 3)
        decimals = 2 - exponent % 3
    prefix = "kMGTPEZYRQ"[exponent // 3 - 1] if exponent >= 3 else ""
    return f"{scaled:.{decimals}f} {prefix}T"


class ShardWriter:
    """One shard's files under temporary names; subclasses write a format."""

    def __init__(self, files: List[str], dtype, options: WriterOptions):
        self.files = files
        self.dtype = np.dtype(dtype)
        self.options = options
        self.tokens = 0
        self.documents = 0
        self._temps: List[str] = []
        self._open: list = []

    def _temp(self, final: str, mode: str = "wb", direct: bool = False):
        """Opens a temporary file for `final`: open(path, mode), or with
        `direct` a DirectFile (written once, bypassing the page cache)."""
        path = temp_path(final)
        self._temps.append(path)
        f = DirectFile(path) if direct else open(path, mode)
        self._open.append(f)
        return path, f

    def write_ids(self, ids: np.ndarray) -> None:
        if ids.size:
            self._write_ids(ids)
            self.tokens += int(ids.size)

    def add_ends(self, ends: np.ndarray) -> None:
        """Appends document end offsets (int64, relative to this shard)."""
        if ends.size:
            self._write_ends(np.ascontiguousarray(ends, dtype="<i8"))
            self.documents += int(ends.size)

    def add_fields(self, fields: dict) -> None:
        """The --keep-fields values of the documents whose ends come next."""
        raise CliError("--keep-fields applies to --format parquet only")

    def _raw(self, ids: np.ndarray) -> memoryview:
        return memoryview(np.ascontiguousarray(ids, self.dtype.newbyteorder("<"))).cast("B")

    def _close_files(self, sync: List) -> None:
        for f in sync:
            f.flush()
            os.fsync(f.fileno())
        for f in self._open:
            f.close()
        self._open = []

    def _publish(self, temps: List[str]) -> List[int]:
        """Renames temps[i] to files[i] in order (the last one marks the shard
        complete), removes any other temporary file; returns the file sizes."""
        for tmp, final in zip(temps, self.files):
            publish(tmp, final)
        for path in self._temps:
            if path not in temps:
                unlink_quietly(path)
        self._temps = []
        return [os.path.getsize(p) for p in self.files]

    def abort(self) -> None:
        for f in self._open:
            try:
                f.close()
            except OSError:
                pass
        self._open = []
        for path in self._temps:
            unlink_quietly(path)


def _spool_chunks(spool, count: int):
    """Yields the int64 ends written to `spool`, _CHUNK at a time."""
    spool.seek(0)
    done = 0
    while done < count:
        n = min(_CHUNK, count - done)
        yield np.frombuffer(spool.read(n * 8), dtype="<i8")
        done += n


class MemmapShard(ShardWriter):
    """``.bin``: the ids, no header; ``.idx.npy``: int64 offsets[documents + 1]."""

    def __init__(self, files, dtype, options):
        super().__init__(files, dtype, options)
        self._bin_tmp, self._bin = self._temp(files[0], direct=True)
        self._idx_tmp, self._idx = self._temp(files[1])
        self._idx.write(b"\0" * NPY_HEADER_BYTES)
        self._idx.write(np.zeros(1, "<i8").tobytes())

    def _write_ids(self, ids):
        self._bin.write(self._raw(ids))

    def _write_ends(self, ends):
        self._idx.write(memoryview(ends).cast("B"))

    def close(self) -> List[int]:
        self._idx.seek(0)
        self._idx.write(npy_header(np.int64, self.documents + 1))
        self._close_files([self._bin, self._idx])
        return self._publish([self._bin_tmp, self._idx_tmp])


class MegatronShard(ShardWriter):
    """``PREFIX.bin``: the ids; ``PREFIX.idx``: magic, version (u64), dtype code
    (u8), sequence count (u64), document count + 1 (u64), int32 sequence
    lengths, int64 byte pointers, int64 document indices (0, 1, .., n)."""

    def __init__(self, files, dtype, options):
        super().__init__(files, dtype, options)
        self._bin_tmp, self._bin = self._temp(files[0], direct=True)
        self._ends_tmp, self._ends = self._temp(files[1], "w+b")

    def _write_ids(self, ids):
        self._bin.write(self._raw(ids))

    def _write_ends(self, ends):
        self._ends.write(memoryview(ends).cast("B"))

    def _lengths(self):
        previous = 0
        for ends in _spool_chunks(self._ends, self.documents):
            lengths = np.diff(ends, prepend=previous)
            if lengths.size and int(lengths.max()) > np.iinfo(np.int32).max:
                raise CliError("a document has more than 2^31 - 1 tokens, which Megatron's int32 "
                               "sequence lengths cannot hold")
            previous = int(ends[-1])
            yield lengths

    def close(self) -> List[int]:
        n = self.documents
        idx_tmp, idx = self._temp(self.files[1])
        idx.write(MEGATRON_MAGIC + struct.pack("<QBQQ", MEGATRON_VERSION,
                                               MEGATRON_DTYPE_CODES[self.dtype], n, n + 1))
        for lengths in self._lengths():
            idx.write(lengths.astype("<i4").tobytes())
        start = 0
        for ends in _spool_chunks(self._ends, n):
            starts = np.concatenate(([start], ends[:-1]))
            idx.write((starts * self.dtype.itemsize).astype("<i8").tobytes())
            start = int(ends[-1])
        for first in range(0, n + 1, _CHUNK):
            idx.write(np.arange(first, min(first + _CHUNK, n + 1), dtype="<i8").tobytes())
        self._close_files([self._bin, idx])
        # The .idx last: an .idx under its final name always has its complete .bin.
        return self._publish([self._bin_tmp, idx_tmp])


class DatatroveShard(ShardWriter):
    """``.ds``: the ids; ``.ds.index``: uint64 document ends in tokens;
    ``.ds.metadata``: "TOKENIZER|BYTES_PER_ID", the token count and that count
    with an SI prefix, one per line."""

    def __init__(self, files, dtype, options):
        super().__init__(files, dtype, options)
        self._ds_tmp, self._ds = self._temp(files[0], direct=True)
        self._index_tmp, self._index = self._temp(files[1])

    def _write_ids(self, ids):
        self._ds.write(self._raw(ids))

    def _write_ends(self, ends):
        self._index.write(ends.astype("<u8").tobytes())

    def close(self) -> List[int]:
        meta_tmp, meta = self._temp(self.files[2])
        meta.write(f"{self.options.tokenizer_name}|{self.dtype.itemsize}\n{self.tokens}\n"
                   f"{si_count(self.tokens)}".encode("utf-8"))
        self._close_files([self._ds, self._index, meta])
        return self._publish([self._ds_tmp, self._index_tmp, meta_tmp])


class LlmcShard(ShardWriter):
    """llm.c's ``.bin``: int32 header[256] = magic, version, token count, zeros;
    then the ids (uint16: GPT-2's header; uint32: llm.c's Llama 3 header)."""

    def __init__(self, files, dtype, options):
        super().__init__(files, dtype, options)
        self._bin_tmp, self._bin = self._temp(files[0], direct=True)
        self._bin.write(b"\0" * LLMC_HEADER_BYTES)

    def _write_ids(self, ids):
        if self.tokens + ids.size > LLMC_MAX_TOKENS:
            raise CliError(f"an llm.c file holds at most {LLMC_MAX_TOKENS:,} tokens (its count is "
                           "an int32); split the output with --shard-size, e.g. 100M")
        self._bin.write(self._raw(ids))

    def _write_ends(self, ends):
        pass  # llm.c keeps no document boundaries; --prepend-bos marks them in the ids

    def close(self) -> List[int]:
        header = np.zeros(256, dtype="<i4")
        header[0], header[1] = LLMC_HEADERS[self.dtype]
        header[2] = self.tokens
        self._bin.seek(0)
        self._bin.write(header.tobytes())
        self._close_files([self._bin])
        return self._publish([self._bin_tmp])


class ParquetShard(ShardWriter):
    """One row per document: the ``options.keep_fields`` columns (their types
    those of the first row group's values), then ``input_ids``:
    ``large_list<uint32>``, or ``list<int32>`` when the dtype is int32 (what
    Spark and HF datasets expect). Rows go out in row groups of about
    ``options.row_group_ids`` ids."""

    def __init__(self, files, dtype, options):
        super().__init__(files, dtype, options)
        pa, self._pq = _pyarrow()
        self._pa = pa
        int32 = self.dtype == np.int32
        self._list_type = pa.list_(pa.int32()) if int32 else pa.large_list(pa.uint32())
        self._offset_type = np.int32 if int32 else np.int64
        self._schema = None  # set by the first row group (the kept fields' types)
        self._writer = None
        self._tmp = temp_path(files[0])
        self._temps.append(self._tmp)
        self._ids: List[np.ndarray] = []  # ids not yet in a row group
        self._pending = 0                 # their count
        self._ends: List[np.ndarray] = []  # ends (shard offsets) of the complete rows among them
        self._fields = {name: [] for name in options.keep_fields}  # their kept values
        self._base = 0                     # shard offset of self._ids[0]

    def add_fields(self, fields):
        for name, values in self._fields.items():
            values.extend(fields[name])

    def _write_ids(self, ids):
        self._ids.append(np.asarray(ids))
        self._pending += int(ids.size)

    def _write_ends(self, ends):
        self._ends.append(ends)
        if self._pending >= self.options.row_group_ids:
            self._flush()

    def _flush(self) -> None:
        """Writes the complete rows held as one row group; keeps the rest."""
        if not self._ends:
            return
        ends = np.concatenate(self._ends)
        held = np.concatenate(self._ids) if self._ids else np.zeros(0, self.dtype)
        stop = int(ends[-1]) - self._base
        offsets = np.concatenate(([0], ends - self._base)).astype(self._offset_type)
        values = self._pa.array(held[:stop].astype(np.int32 if self.dtype == np.int32 else np.uint32))
        column = (self._pa.ListArray if self.dtype == np.int32 else self._pa.LargeListArray).from_arrays(
            self._pa.array(offsets), values)
        kept = [self._field_array(name, values) for name, values in self._fields.items()]
        if self._writer is None:
            self._start([(name, array.type) for name, array in zip(self._fields, kept)])
        self._writer.write_table(self._pa.Table.from_arrays(kept + [column], schema=self._schema))
        self._fields = {name: [] for name in self._fields}
        rest = held[stop:]
        self._ids = [rest] if rest.size else []
        self._pending = int(rest.size)
        self._ends = []
        self._base += stop

    def _start(self, kept_types) -> None:
        """Opens the file with the schema: the kept fields, then input_ids."""
        self._schema = self._pa.schema(kept_types + [("input_ids", self._list_type)])
        self._writer = self._pq.ParquetWriter(self._tmp, self._schema)
        self._open.append(self._writer)

    def _field_array(self, name: str, values: list):
        """The kept field's values as the schema's type (inferred the first time)."""
        pa = self._pa
        try:
            if self._schema is None:
                return pa.array(values)
            return pa.array(values, type=self._schema.field(name).type)
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as e:
            was = f" (it held {self._schema.field(name).type} before)" if self._schema is not None else ""
            raise CliError(f"--keep-fields {name!r}: values Parquet cannot store in one column{was}: {e}") from None

    def close(self) -> List[int]:
        self._flush()
        if self._writer is None:  # no rows: a file with the schema
            self._start([(name, self._pa.null()) for name in self._fields])
            self._writer.write_table(self._schema.empty_table())
        self._writer.close()
        self._open = []
        with open(self._tmp, "rb+") as f:
            os.fsync(f.fileno())
        return self._publish([self._tmp])


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise CliError("--format parquet needs pyarrow (pip install pyarrow, or snaptok[cli])") from None
    return pa, pq


@dataclass(frozen=True)
class Format:
    """A ``--format``: the file suffixes of one shard (the first names it), the
    id dtypes it allows, and its "auto" dtype: uint16 while the vocabulary has
    at most ``narrow_max_vocab`` tokens, else ``wide``."""
    name: str
    suffixes: tuple
    dtypes: tuple
    narrow_max_vocab: int = 0
    wide: str = "uint32"

    def default_dtype(self, vocab_size: int) -> np.dtype:
        return np.dtype(np.uint16 if vocab_size <= self.narrow_max_vocab else self.wide)


FORMATS = {
    "npz": Format("npz", (".npz",), ("uint16", "uint32", "int32")),
    "memmap": Format("memmap", (".bin", ".idx.npy"), ("uint16", "uint32", "int32")),
    # Megatron's DType.optimal_dtype: uint16 under 65,500 tokens.
    "megatron": Format("megatron", (".bin", ".idx"), ("uint16", "int32"), 65499, "int32"),
    "datatrove": Format("datatrove", (".ds", ".ds.index", ".ds.metadata"), ("uint16", "uint32"), 1 << 16),
    "llmc": Format("llmc", (".bin",), ("uint16", "uint32"), 1 << 16),
    "parquet": Format("parquet", (".parquet",), ("uint32", "int32")),
}

WRITERS = {"memmap": MemmapShard, "megatron": MegatronShard, "datatrove": DatatroveShard,
           "llmc": LlmcShard, "parquet": ParquetShard}


def format_for_output(output: str, requested: Optional[str]) -> Format:
    """The format -o and --format name together; raises CliError when they disagree."""
    lower = output.lower()
    if requested == "bin":
        raise CliError("--format bin was removed: its .idx clashed with Megatron's. Use --format "
                       "memmap (the same raw .bin, offsets in .idx.npy) or --format megatron")
    if requested is None:
        for name in ("parquet", "datatrove", "npz"):
            if lower.endswith(FORMATS[name].suffixes[0]):
                return FORMATS[name]
        return FORMATS["memmap"] if lower.endswith(".bin") else FORMATS["npz"]
    fmt = FORMATS[requested]
    for other in FORMATS.values():
        suffix = other.suffixes[0]
        if lower.endswith(suffix) and suffix not in fmt.suffixes:
            raise CliError(f"{output}: a {suffix} name, but --format is {fmt.name} "
                           f"(use e.g. -o out{fmt.suffixes[0]})")
    return fmt
