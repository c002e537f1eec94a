"""Reading documents for ``snaptok encode``.

An INPUT is plain text (one document per file, or one per line with
``--lines``), JSON Lines (one document per non-blank line, taken from a
string field) or Parquet (one document per row of a string column). Plain
text and JSON Lines may be gzip (``.gz``) or zstandard (``.zst``)
compressed; standard input ("-") is sniffed for both.

``DocumentSource.events()`` turns the inputs into events, in document order:

* ``Docs``: whole documents from one input (UTF-8 ``bytes``, or ``str``
  from JSON Lines and Parquet), each with the ``Cursor`` where the next
  document starts;
* ``StreamStart``, ``StreamChunk``..., ``StreamEnd``: one document larger
  than ``--batch-bytes`` (a big text file, or a very long line), in blocks
  for ``Tokenizer.document_encoder``;
* ``Skipped``: input bytes passed over by ``--resume``.

``batches()`` groups ``Docs`` into ``Batch``es of about ``batch_bytes`` of
text, one ``encode_to_numpy`` call each. Memory stays bounded by a few
blocks whatever the input size (a JSON line or Parquet row group is held
whole: they cannot be parsed in parts).
"""

from __future__ import annotations

import bisect
import codecs
import itertools
import json
from typing import Iterator, List, Optional, Sequence

import numpy as np

from .common import CliError, Cursor
from .streams import (JSONL, MAX_READ, MIN_READ, PARQUET, TEXT, InputSpec, Stream,
                           Utf8Checker, check_utf8, decode_utf8, locate_line, utf8_error)

__all__ = ["Batch", "DocumentSource", "Docs", "InputSpec", "Skipped", "StreamChunk", "StreamEnd",
           "StreamStart", "batches"]


# --------------------------------------------------------------------------
# Events.


class Docs:
    """Whole documents from one input; ``ends[j]``/``lines[j]``: the cursor
    offset and line after document j, in input ``next_input``. They are only
    needed where a shard ends, so ``locate()`` may compute them on demand.
    ``fields``: {name: values, one per document} of --keep-fields, or None."""

    __slots__ = ("docs", "next_input", "_ends", "_lines", "consumed", "text_bytes", "_locate", "fields")

    def __init__(self, docs, next_input, ends, lines, consumed, text_bytes, locate=None, fields=None):
        self.docs = docs
        self.next_input = next_input
        self._ends = ends
        self._lines = lines
        self.consumed = consumed
        self.text_bytes = text_bytes
        self._locate = locate
        self.fields = fields

    def cursor_at(self, j: int) -> Cursor:
        if self._ends is None:
            self._ends, self._lines = self._locate()
            self._locate = None
        return Cursor(self.next_input, int(self._ends[j]), int(self._lines[j]))


class StreamStart:
    __slots__ = ("name", "consumed")

    def __init__(self, name: str, consumed: int = 0):
        self.name = name
        self.consumed = consumed


class StreamChunk:
    __slots__ = ("data", "consumed")

    def __init__(self, data: bytes, consumed: int):
        self.data = data
        self.consumed = consumed


class StreamEnd:
    __slots__ = ("cursor", "consumed")

    def __init__(self, cursor: Cursor, consumed: int):
        self.cursor = cursor
        self.consumed = consumed


class Skipped:
    __slots__ = ("consumed",)

    def __init__(self, consumed: int):
        self.consumed = consumed


class Batch:
    """Documents for one encode_to_numpy call (several Docs, in order)."""

    __slots__ = ("parts", "consumed", "text_bytes", "_starts")

    def __init__(self, parts: List[Docs]):
        self.parts = parts
        self.consumed = sum(p.consumed for p in parts)
        self.text_bytes = sum(p.text_bytes for p in parts)
        self._starts: Optional[List[int]] = None

    def documents(self) -> list:
        if len(self.parts) == 1:
            return self.parts[0].docs
        return list(itertools.chain.from_iterable(p.docs for p in self.parts))

    def fields(self) -> Optional[dict]:
        """{name: values, one per document} of --keep-fields, or None."""
        kept = [p.fields for p in self.parts if p.docs]
        if not kept or kept[0] is None:
            return None
        return {name: list(itertools.chain.from_iterable(f[name] for f in kept)) for name in kept[0]}

    def cursor(self, j: int) -> Cursor:
        """The cursor after the batch's document j."""
        if self._starts is None:
            self._starts = [0, *itertools.accumulate(len(p.docs) for p in self.parts)]
        k = bisect.bisect_right(self._starts, j) - 1
        part = self.parts[k]
        return part.cursor_at(j - self._starts[k])


def batches(events, batch_bytes: int):
    """Groups Docs events into Batches of at least batch_bytes of text (the
    last may be smaller); other events pass through in order, each flushing
    the batch gathered before it."""
    pending: List[Docs] = []
    size = 0
    for ev in events:
        if isinstance(ev, Docs):
            pending.append(ev)
            size += ev.text_bytes
            if size >= batch_bytes:
                yield Batch(pending)
                pending, size = [], 0
            continue
        if pending:
            yield Batch(pending)
            pending, size = [], 0
        yield ev
    if pending:
        yield Batch(pending)


_JSON_SCAN = json.JSONDecoder().scan_once
_MISSING = object()


def _json_loads(where: str, line: str):
    """json.loads, with its error turned into a CliError naming the line."""
    try:
        return json.loads(line)
    except ValueError as e:
        msg = getattr(e, "msg", str(e))
        col = getattr(e, "colno", None)
        raise CliError(f"{where}: invalid JSON{f' at column {col}' if col else ''}: {msg}") from None
    except RecursionError:
        raise CliError(f"{where}: invalid JSON: nested too deeply") from None


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "a string"


# --------------------------------------------------------------------------
# Readers.


class DocumentSource:
    """Reads the inputs from ``start`` on and yields events (see the module doc)."""

    def __init__(self, inputs: Sequence[InputSpec], *, field: str, skip_empty: bool,
                 batch_bytes: int, start: Cursor = Cursor(0, 0, 1), keep_fields: Sequence[str] = ()):
        self.inputs = inputs
        self.field = field
        self.keep_fields = list(keep_fields)  # JSON fields or Parquet columns copied beside the ids
        self.skip_empty = skip_empty
        self.block = batch_bytes  # documents longer than this stream, in read_bytes blocks
        self.read_bytes = max(MIN_READ, min(batch_bytes // 4, MAX_READ))
        self.long_line = max(batch_bytes, self.read_bytes)
        self.start = start
        self.text_bytes = 0  # bytes of text in the documents read
        self._mark = 0

    def _consumed(self, stream) -> int:
        pos = stream.raw_position()
        used, self._mark = pos - self._mark, pos
        return used

    def events(self) -> Iterator[object]:
        for i, spec in enumerate(self.inputs):
            if i < self.start.input:
                yield Skipped(spec.size or 0)
                continue
            resume = self.start if i == self.start.input else Cursor(i, 0, 1)
            if spec.kind == PARQUET:
                yield from self._parquet(i, spec, resume.offset)
                continue
            stream = Stream(spec)
            self._mark = 0
            try:
                if resume.offset:
                    stream.skip(resume.offset)
                    yield Skipped(self._consumed(stream))
                if spec.kind == TEXT:
                    yield from self._text(i, spec, stream)
                else:
                    yield from self._lines(i, spec, stream, resume.offset, resume.line)
                while stream.read(MAX_READ):  # a gzip trailer, or the rest of stdin
                    pass
                rest = self._consumed(stream)
                if rest:
                    yield Docs([], i + 1, (), (), rest, 0)
            finally:
                stream.close()

    def _text(self, i: int, spec: InputSpec, stream: Stream):
        """One document per file: whole if it fits in --batch-bytes, else
        streamed in read_bytes blocks."""
        chunks: List[bytes] = []
        total = 0
        while total <= self.block:
            chunk = stream.read(self.read_bytes)
            if not chunk:
                doc = chunks[0] if len(chunks) == 1 else b"".join(chunks)
                check_utf8(spec.name, doc, 0, 1)
                docs = [] if self.skip_empty and not doc else [doc]
                self.text_bytes += len(doc)
                yield Docs(docs, i + 1, (0,), (1,), self._consumed(stream), len(doc))
                return
            chunks.append(chunk)
            total += len(chunk)
        yield StreamStart(spec.name)
        locate = None if spec.is_stdin else (lambda offset: locate_line(spec, offset))
        checker = Utf8Checker(spec.name, locate=locate)
        chunks.reverse()
        while True:
            chunk = chunks.pop() if chunks else stream.read(self.read_bytes)
            if not chunk:
                break
            checker.feed(chunk)
            self.text_bytes += len(chunk)
            yield StreamChunk(chunk, self._consumed(stream))
        checker.finish()
        yield StreamEnd(Cursor(i + 1, 0, 1), self._consumed(stream))

    def _lines(self, i: int, spec: InputSpec, stream: Stream, offset: int, line_no: int):
        """One document per line (--lines) or per non-blank JSON line."""
        jsonl = spec.kind == JSONL
        pending: List[bytes] = []  # a partial line (no newline in it)
        pending_len = 0
        remainder: Optional[bytes] = None
        while True:
            chunk = remainder if remainder is not None else stream.read(self.read_bytes)
            remainder = None
            if not chunk:
                break
            cut = chunk.rfind(b"\n")
            if cut < 0:
                pending.append(chunk)
                pending_len += len(chunk)
                if not jsonl and pending_len >= self.long_line:
                    remainder, offset, line_no = yield from self._long_line(
                        i, spec, stream, pending, offset, line_no)
                    pending, pending_len = [], 0
                continue
            if jsonl:
                head = chunk[: cut + 1] if cut + 1 < len(chunk) else chunk
                block = b"".join([*pending, head]) if pending else head
                tail = chunk[cut + 1 :]
                docs, n = self._jsonl_docs(i, spec, block, offset, line_no)
                size = len(block)
            else:  # split the chunk itself: no copy of the block
                parts = chunk.split(b"\n")
                tail = parts.pop()
                if pending:
                    parts[0] = b"".join([*pending, parts[0]])
                size = pending_len + cut + 1
                docs = self._text_line_docs(i, spec, parts, chunk, size, offset, line_no, False)
                n = len(parts)
            pending, pending_len = ([tail], len(tail)) if tail else ([], 0)
            docs.consumed = self._consumed(stream)
            yield docs
            offset += size
            line_no += n
        if pending:
            block = b"".join(pending)
            if jsonl:
                docs, _ = self._jsonl_docs(i, spec, block, offset, line_no)
            else:
                docs = self._text_line_docs(i, spec, [block], block, len(block), offset, line_no, True)
            docs.consumed = self._consumed(stream)
            yield docs

    def _long_line(self, i, spec, stream, pending, offset, line_no):
        """Streams a line longer than --batch-bytes (--lines mode); returns
        (bytes read past its end, their offset, their line number)."""
        yield StreamStart(spec.name)
        checker = Utf8Checker(spec.name, offset, line_no, count_lines=False)
        held = b""  # a final "\r" is dropped when "\n" follows, so hold it back

        def piece(data: bytes, last: bool):
            nonlocal held
            if held:
                data = held + data
            held = b""
            if data.endswith(b"\r"):
                data = data[:-1]
                held = b"" if last else b"\r"
            if data:
                checker.feed(data)
                self.text_bytes += len(data)
                return StreamChunk(data, self._consumed(stream))
            return None

        length = 0
        for chunk in pending:
            length += len(chunk)
            ev = piece(chunk, False)
            if ev is not None:
                yield ev
        while True:
            chunk = stream.read(self.read_bytes)
            nl = chunk.find(b"\n") if chunk else -1
            if nl < 0 and chunk:
                length += len(chunk)
                ev = piece(chunk, False)
                if ev is not None:
                    yield ev
                continue
            if chunk:
                length += nl + 1
                ev = piece(chunk[:nl], True)
            else:  # the input ends inside this line
                ev = piece(b"", True)
            if ev is not None:
                yield ev
            checker.finish()
            end = offset + length
            yield StreamEnd(Cursor(i, end, line_no + 1), self._consumed(stream))
            rest = chunk[nl + 1 :] if chunk else b""
            return (rest if rest else None), end, line_no + 1

    def _text_line_docs(self, i, spec, parts: List[bytes], chunk: bytes, size: int,
                        offset: int, line_no: int, final: bool) -> Docs:
        """--lines: ``parts`` are the lines of ``size`` bytes read at ``offset``;
        parts[0] may hold a partial line carried from before ``chunk``; every
        part but a final one ended with a newline."""
        name = spec.name
        first = parts[0]
        check_utf8(name, first, offset, line_no)
        if len(parts) > 1 and not chunk.isascii():
            start = chunk.find(b"\n") + 1
            view = memoryview(chunk)[start : chunk.rfind(b"\n") + 1]
            try:
                codecs.utf_8_decode(view, "strict", True)
            except UnicodeDecodeError as e:
                at = offset + len(first) + 1
                raise utf8_error(name, view, e, e.start, at, line_no + 1, at) from None
        n = len(parts)
        if not self.skip_empty and b"\r" not in chunk and b"\r" not in first:
            text_bytes = size - (n - 1 if final else n)
            self.text_bytes += text_bytes

            def locate():
                ends = np.cumsum(np.fromiter(map(len, parts), np.int64, n) + 1) + offset
                if final:
                    ends[-1] -= 1  # the last line of the input has no terminator
                return ends, np.arange(line_no + 1, line_no + 1 + n, dtype=np.int64)

            return Docs(parts, i, None, None, 0, text_bytes, locate)
        ends = np.cumsum(np.fromiter(map(len, parts), np.int64, n) + 1) + offset
        if final:
            ends[-1] -= 1
        docs = [ln[:-1] if ln.endswith(b"\r") else ln for ln in parts]
        lines = np.arange(line_no + 1, line_no + 1 + n, dtype=np.int64)
        if self.skip_empty:
            keep = np.fromiter(map(len, docs), np.int64, n) > 0
            if not keep.all():
                docs = list(itertools.compress(docs, keep))
                ends, lines = ends[keep], lines[keep]
        text_bytes = sum(map(len, docs))
        self.text_bytes += text_bytes
        return Docs(docs, i, ends, lines, 0, text_bytes)

    def _jsonl_docs(self, i, spec, block: bytes, offset: int, line_no: int):
        """Returns (Docs, number of lines) for a block of whole JSON lines."""
        ends = np.flatnonzero(np.frombuffer(block, np.uint8) == 10) + (offset + 1)
        if not block.endswith(b"\n"):  # the last line of the input has no terminator
            ends = np.append(ends, offset + len(block))
        text = decode_utf8(spec.name, block, offset, line_no)
        if offset == 0 and text.startswith("\ufeff"):
            text = text[1:]
        docs, kept, fields = self._json_docs(spec.name, text.split("\n"), line_no)
        idx = np.asarray(kept, dtype=np.int64)
        text_bytes = sum(map(len, docs))
        self.text_bytes += text_bytes
        return Docs(docs, i, ends[idx], idx + line_no + 1, 0, text_bytes, fields=fields), len(ends)

    def _json_docs(self, name: str, lines: List[str], line_no: int):
        """Returns (documents, indices of the lines they came from, the
        --keep-fields values or None). ASCII texts stay ``str`` (the engine
        reads their UTF-8 without a copy); others become ``bytes``, which also
        rejects unpaired surrogate escapes."""
        field = self.field
        skip_empty = self.skip_empty
        scan = _JSON_SCAN
        docs: list = []
        kept: List[int] = []
        fields = {f: [] for f in self.keep_fields} if self.keep_fields else None
        for k, line in enumerate(lines):
            if not line:
                continue
            try:  # the C scanner without json.loads' Python wrapper; any doubt -> loads
                obj, end = scan(line, 0)
                if end != len(line) and not line[end:].isspace():
                    raise ValueError
            except Exception:
                if line.isspace():
                    continue
                obj = _json_loads(f"{name}:{line_no + k}", line)
            if type(obj) is not dict:
                raise CliError(f"{name}:{line_no + k}: expected a JSON object with a {field!r} "
                               f"field, got {_json_type(obj)}")
            value = obj.get(field, _MISSING)
            if type(value) is not str:
                where = f"{name}:{line_no + k}"
                if value is _MISSING:
                    keys = ", ".join(repr(key) for key in list(obj)[:8]) or "none"
                    raise CliError(f"{where}: missing field {field!r} (fields present: {keys})")
                raise CliError(f"{where}: field {field!r} is {_json_type(value)}, expected a string")
            if not value.isascii():
                try:
                    value = value.encode("utf-8")
                except UnicodeEncodeError:
                    raise CliError(f"{name}:{line_no + k}: field {field!r} holds an unpaired "
                                   "surrogate escape (\\ud800-\\udfff), which is not valid UTF-8") from None
            elif skip_empty and not value:
                continue
            docs.append(value)
            kept.append(k)
            if fields is not None:
                for f, values in fields.items():
                    values.append(obj.get(f))  # a missing field is a null
        return docs, kept, fields

    def _parquet(self, i: int, spec: InputSpec, start_row: int):
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        name, field = spec.name, self.field
        try:
            pf = pq.ParquetFile(spec.arg)
        except (pa.ArrowException, OSError) as e:
            raise CliError(f"{name}: not a readable Parquet file: {e}") from None
        schema = pf.schema_arrow
        for column in (field, *self.keep_fields):
            if schema.get_field_index(column) < 0:
                cols = ", ".join(repr(n) for n in schema.names[:8]) or "none"
                hint = "choose one with --field" if column == field else "check --keep-fields"
                raise CliError(f"{name}: no column {column!r} (columns: {cols}); {hint}")
        typ = schema.field(field).type
        is_text = pa.types.is_string(typ) or pa.types.is_large_string(typ) or (
            hasattr(pa.types, "is_string_view") and pa.types.is_string_view(typ))
        is_binary = pa.types.is_binary(typ) or pa.types.is_large_binary(typ)
        if not (is_text or is_binary):
            raise CliError(f"{name}: column {field!r} holds {typ}, expected strings")
        md = pf.metadata
        total_rows = max(1, md.num_rows)
        col_bytes = 0
        groups, row = [], 0
        for g in range(md.num_row_groups):
            rg = md.row_group(g)
            for c in range(rg.num_columns):
                if rg.column(c).path_in_schema == field:
                    col_bytes += rg.column(c).total_uncompressed_size
            if not groups and row + rg.num_rows <= start_row:
                row += rg.num_rows  # a whole row group before the resume point
            else:
                groups.append(g)
        if start_row:
            yield Skipped(spec.size * start_row // total_rows)
        rows_per_batch = max(1, min(65536, self.read_bytes * total_rows // max(1, col_bytes)))
        skip = start_row - row
        done_raw = spec.size * start_row // total_rows
        if not groups:
            return
        try:
            for batch in pf.iter_batches(batch_size=rows_per_batch, row_groups=groups,
                                         columns=[field, *self.keep_fields], use_threads=True):
                if skip:
                    drop = min(skip, batch.num_rows)
                    batch, row, skip = batch.slice(drop), row + drop, skip - drop
                col = batch.column(0)
                n = len(col)
                if not n:
                    continue
                if col.null_count:
                    first = pc.index(pc.is_null(col), True).as_py()
                    raise CliError(f"{name}: row {row + first}: field {field!r} is null, "
                                   "expected a string")
                docs = col.to_pylist()
                if is_binary:
                    for k, d in enumerate(docs):
                        try:
                            d.decode("utf-8")
                        except UnicodeDecodeError as e:
                            raise CliError(f"{name}: row {row + k}: field {field!r}: invalid "
                                           f"UTF-8 at byte offset {e.start}: {e.reason}") from None
                ends = np.arange(row + 1, row + n + 1, dtype=np.int64)
                text_bytes = int(pc.sum(pc.binary_length(col)).as_py() or 0)
                fields = ({f: batch.column(k + 1).to_pylist() for k, f in enumerate(self.keep_fields)}
                          if self.keep_fields else None)
                if self.skip_empty:
                    keep = np.asarray(pc.greater(pc.binary_length(col), 0))
                    if not keep.all():
                        docs = list(itertools.compress(docs, keep))
                        ends = ends[keep]
                        if fields is not None:
                            fields = {f: list(itertools.compress(v, keep)) for f, v in fields.items()}
                row += n
                raw = spec.size * row // total_rows
                self.text_bytes += text_bytes
                yield Docs(docs, i, ends, np.zeros(len(ends), np.int64), raw - done_raw, text_bytes,
                           fields=fields)
                done_raw = raw
        except pa.ArrowException as e:
            raise CliError(f"{name}: cannot read Parquet data near row {row}: {e}") from None
