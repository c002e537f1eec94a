"""The ``snaptok`` command line.

``snaptok encode`` tokenizes text files into a NumPy ``.npz`` holding two
arrays: ``ids`` (every document's token ids, concatenated) and ``offsets``
(``int64``, ``n_documents + 1`` entries; document ``i`` is
``ids[offsets[i]:offsets[i + 1]]``).

Example::

    $ snaptok encode corpus.jsonl -o corpus.npz --tokenizer gpt2
    $ python -c "import numpy as np; z = np.load('corpus.npz'); print(z['ids'][:10])"

Inputs are read in batches of about ``--batch-bytes`` of text, each batch is
tokenized by ``Tokenizer.encode_to_numpy`` on all cores (while the next batch
is read), and the output is written atomically (temporary file + rename).
Bad input (a missing file, invalid UTF-8, a JSON line that does not parse or
lacks the text field) stops the run with exit status 2 and a message naming
the file, the line and the byte offset.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import itertools
import json
import os
import re
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import IO, Iterator, List, Optional, Sequence, Tuple

import numpy as np

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

_UINT16_LIMIT = 1 << 16
_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE_RE = re.compile(r"^(\d+(?:\.\d*)?)\s*([kmgt]?)(?:i?b)?$")


class CliError(Exception):
    """Bad input or usage: reported as ``snaptok: error: ...``, exit status 2."""


class EncodeFailed(Exception):
    """The tokenizer raised while encoding: exit status 1."""


# --------------------------------------------------------------------------
# Package data: built-in tokenizers and the sample text.


def _data_dir():
    return resources.files("snaptok").joinpath("data")


def builtin_tokenizers() -> List[str]:
    """Returns the names of the tokenizers bundled in ``snaptok/data/``.

    Example: ``builtin_tokenizers()`` -> ``["gpt2"]``.
    """
    try:
        entries = list(_data_dir().iterdir())
    except (FileNotFoundError, NotADirectoryError, ModuleNotFoundError):
        return []
    return sorted(
        e.name for e in entries if e.is_dir() and e.joinpath("tokenizer.json").is_file()
    )


@contextlib.contextmanager
def _resolved_tokenizer(spec: str) -> Iterator[Path]:
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
        with resources.as_file(_data_dir().joinpath(spec, "tokenizer.json")) as p:
            yield Path(p)
        return
    known = ", ".join(names) if names else "none installed"
    raise CliError(
        f"tokenizer {spec!r}: no such file, and not a built-in name (built-ins: {known})"
    )


def _load_tokenizer(spec: str):
    import snaptok

    with _resolved_tokenizer(spec) as path:
        try:
            return snaptok.Tokenizer.from_file(str(path)), str(path)
        except Exception as e:  # the engine names what failed; pass it on
            raise CliError(f"cannot load tokenizer {str(path)!r}: {e}") from e


# --------------------------------------------------------------------------
# Reading documents.


class _Input:
    """One INPUT argument: a path, or "-" for standard input."""

    def __init__(self, arg: str, jsonl: bool):
        self.arg = arg
        self.is_stdin = arg == "-"
        self.name = "<stdin>" if self.is_stdin else arg
        self.jsonl = jsonl
        self.size: Optional[int] = None
        if self.is_stdin:
            return
        try:
            st = os.stat(arg)
        except FileNotFoundError:
            raise CliError(f"{arg}: no such file") from None
        except OSError as e:
            raise CliError(f"{arg}: cannot access: {e.strerror or e}") from None
        if os.path.isdir(arg):
            raise CliError(f"{arg}: is a directory, expected a text or JSON Lines file")
        self.size = st.st_size

    @contextlib.contextmanager
    def open(self) -> Iterator[IO[bytes]]:
        if self.is_stdin:
            yield sys.stdin.buffer
            return
        try:
            f = open(self.arg, "rb")
        except OSError as e:
            raise CliError(f"{self.name}: cannot open: {e.strerror or e}") from None
        with f:
            yield f


def _read(inp: _Input, f: IO[bytes], n: int = -1) -> bytes:
    try:
        return f.read(n)
    except OSError as e:
        raise CliError(f"{inp.name}: read error: {e.strerror or e}") from None


def _check_utf8(inp: _Input, data: bytes, base_offset: int, base_line: int) -> str:
    """Returns ``data`` decoded; raises CliError naming the line and byte offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = base_line + data.count(b"\n", 0, e.start)
        line_start = data.rfind(b"\n", 0, e.start) + 1
        bad = data[e.start : min(e.end, e.start + 4)]
        raise CliError(
            f"{inp.name}:{line}: invalid UTF-8 at byte offset {base_offset + e.start} "
            f"(column {e.start - line_start + 1} in bytes): {e.reason} {bad!r}"
        ) from None


def _line_blocks(
    inp: _Input, f: IO[bytes], block_bytes: int
) -> Iterator[Tuple[bytes, int, int, int]]:
    """Yields ``(block, byte_offset, first_line_number, bytes_consumed)``.

    Every block holds whole lines (the last one without its terminator only at
    the end of input). Lines longer than block_bytes make longer blocks.
    """
    pending: List[bytes] = []
    offset = 0
    line_no = 1
    while True:
        chunk = _read(inp, f, block_bytes)
        if not chunk:
            break
        cut = chunk.rfind(b"\n")
        if cut < 0:
            pending.append(chunk)
            continue
        block = b"".join(pending + [chunk[: cut + 1]]) if pending else chunk[: cut + 1]
        rest = chunk[cut + 1 :]
        pending = [rest] if rest else []
        yield block, offset, line_no, len(block)
        offset += len(block)
        line_no += block.count(b"\n")
    if pending:
        block = b"".join(pending)
        yield block, offset, line_no, len(block)


def _split_lines(block: bytes) -> List[bytes]:
    lines = block.split(b"\n")
    if block.endswith(b"\n"):
        lines.pop()
    if b"\r" in block:
        lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
    return lines


class _Reader:
    """Turns inputs into blocks of documents (lists of UTF-8 bytes)."""

    def __init__(self, args: argparse.Namespace, inputs: Sequence[_Input]):
        self.inputs = inputs
        self.lines = args.lines
        self.field = args.field
        self.skip_empty = args.skip_empty
        self.block_bytes = max(1 << 16, min(args.batch_bytes // 4, 16 << 20))
        self.text_bytes = 0
        self.input_bytes = 0

    def blocks(self) -> Iterator[Tuple[List[bytes], int, int]]:
        """Yields ``(documents, input_bytes_consumed, text_bytes)``."""
        for inp in self.inputs:
            with inp.open() as f:
                if inp.jsonl:
                    yield from self._jsonl(inp, f)
                elif self.lines:
                    yield from self._text_lines(inp, f)
                else:
                    yield from self._text_file(inp, f)

    def _text_file(self, inp: _Input, f: IO[bytes]):
        data = _read(inp, f)
        _check_utf8(inp, data, 0, 1)
        self.input_bytes += len(data)
        if self.skip_empty and not data:
            yield [], len(data), 0
            return
        self.text_bytes += len(data)
        yield [data], len(data), len(data)

    def _text_lines(self, inp: _Input, f: IO[bytes]):
        for block, offset, line_no, consumed in _line_blocks(inp, f, self.block_bytes):
            _check_utf8(inp, block, offset, line_no)
            docs = _split_lines(block)
            if self.skip_empty:
                docs = [d for d in docs if d]
            text_bytes = sum(map(len, docs))
            self.input_bytes += consumed
            self.text_bytes += text_bytes
            yield docs, consumed, text_bytes

    def _jsonl(self, inp: _Input, f: IO[bytes]):
        field = self.field
        loads = json.loads
        for block, offset, line_no, consumed in _line_blocks(inp, f, self.block_bytes):
            text = _check_utf8(inp, block, offset, line_no)
            if offset == 0 and text.startswith("\ufeff"):
                text = text[1:]
            docs: List[bytes] = []
            for i, line in enumerate(text.split("\n")):
                if not line or line.isspace():
                    continue
                try:
                    obj = loads(line)
                except ValueError as e:
                    msg = getattr(e, "msg", str(e))
                    col = getattr(e, "colno", None)
                    where = f" at column {col}" if col else ""
                    raise CliError(
                        f"{inp.name}:{line_no + i}: invalid JSON{where}: {msg}"
                    ) from None
                if not isinstance(obj, dict):
                    raise CliError(
                        f"{inp.name}:{line_no + i}: expected a JSON object with a "
                        f"{field!r} field, got {_json_type(obj)}"
                    )
                try:
                    value = obj[field]
                except KeyError:
                    keys = ", ".join(repr(k) for k in list(obj)[:8]) or "none"
                    raise CliError(
                        f"{inp.name}:{line_no + i}: missing field {field!r} "
                        f"(fields present: {keys})"
                    ) from None
                if not isinstance(value, str):
                    raise CliError(
                        f"{inp.name}:{line_no + i}: field {field!r} is "
                        f"{_json_type(value)}, expected a string"
                    )
                try:
                    doc = value.encode("utf-8")
                except UnicodeEncodeError:
                    raise CliError(
                        f"{inp.name}:{line_no + i}: field {field!r} holds an unpaired "
                        "surrogate escape (\\ud800-\\udfff), which is not valid UTF-8"
                    ) from None
                if self.skip_empty and not doc:
                    continue
                docs.append(doc)
            text_bytes = sum(map(len, docs))
            self.input_bytes += consumed
            self.text_bytes += text_bytes
            yield docs, consumed, text_bytes


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


def _batches(reader: _Reader, batch_bytes: int) -> Iterator[Tuple[List[bytes], int]]:
    """Regroups reader blocks into batches of about batch_bytes of text.

    Yields ``(documents, input_bytes)``; a block split across batches has its
    input bytes shared in proportion to the text each batch took.
    """
    docs: List[bytes] = []
    size = 0
    consumed = 0
    for block, used, block_text in reader.blocks():
        if size + block_text < batch_bytes:
            docs.extend(block)
            size += block_text
            consumed += used
            continue
        ends = list(itertools.accumulate(map(len, block)))  # text up to and with doc i
        start = 0
        charged = 0
        while start < len(block):
            before = ends[start - 1] if start else 0
            k = bisect.bisect_left(ends, before + batch_bytes - size, start)
            if k >= len(block):
                break
            docs.extend(block[start : k + 1])
            share = used * ends[k] // block_text if block_text else used
            yield docs, consumed + share - charged
            charged = share
            docs, size, consumed = [], 0, 0
            start = k + 1
        if start < len(block):
            docs.extend(block[start:])
            size += block_text - (ends[start - 1] if start else 0)
        consumed += used - charged
    if docs or consumed:
        yield docs, consumed


# --------------------------------------------------------------------------
# Progress and output.


def _fmt_bytes(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


class _Progress:
    def __init__(self, total: Optional[int], mode: Optional[bool], stream: IO[str]):
        tty = bool(getattr(stream, "isatty", lambda: False)())
        big = total is not None and total >= PROGRESS_MIN_BYTES
        self.enabled = (tty or big) if mode is None else mode
        self.tty = tty
        self.total = total
        self.stream = stream
        self.start = time.perf_counter()
        self.last = 0.0
        self.interval = 0.25 if tty else 10.0
        self.width = 0

    def update(self, done: int, tokens: int, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and now - self.last < self.interval:
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = done / elapsed / 1e6
        if self.total:
            pct = 100.0 * done / self.total
            eta = (self.total - done) / (done / elapsed) if done else 0.0
            text = (
                f"encode {_fmt_bytes(done)} / {_fmt_bytes(self.total)} ({pct:5.1f}%)  "
                f"{rate:,.1f} MB/s  {tokens:,} tokens  eta {eta:,.0f}s"
            )
        else:
            text = f"encode {_fmt_bytes(done)}  {rate:,.1f} MB/s  {tokens:,} tokens"
        if self.tty:
            pad = " " * max(0, self.width - len(text))
            self.stream.write("\r" + text + pad)
            self.width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def _write_npz(path: str, arrays, compress: bool) -> None:
    """Writes ``{name: (dtype, length, chunks)}`` as a .npz, atomically.

    Chunks are streamed into the zip members, so the ids are never copied
    into one big array first.
    """
    out = Path(path)
    directory = out.parent if str(out.parent) else Path(".")
    if not directory.is_dir():
        raise CliError(f"{path}: output directory {str(directory)!r} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=str(directory))
    try:
        with os.fdopen(fd, "wb") as f:
            compression = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
            with zipfile.ZipFile(f, "w", compression=compression, allowZip64=True) as zf:
                for name, (dtype, length, chunks) in arrays.items():
                    with zf.open(name + ".npy", "w", force_zip64=True) as member:
                        header = {
                            "descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                            "fortran_order": False,
                            "shape": (int(length),),
                        }
                        np.lib.format.write_array_header_1_0(member, header)
                        for chunk in chunks:
                            chunk = np.ascontiguousarray(chunk, dtype=dtype)
                            if chunk.size:
                                member.write(memoryview(chunk).cast("B"))
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# --------------------------------------------------------------------------
# The encode command.


def _parse_size(text: str) -> int:
    m = _SIZE_RE.match(text.strip().lower())
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (use e.g. 16M, 512K, 1G or bytes)")
    value = int(float(m.group(1)) * _SIZE_UNITS[m.group(2)])
    if value < 1:
        raise argparse.ArgumentTypeError(f"size must be at least 1 byte, got {text!r}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _run_encode(args: argparse.Namespace) -> int:
    out_stream = sys.stdout
    err_stream = sys.stderr
    if args.field is not None:
        args.jsonl = True
    field = args.field if args.field is not None else DEFAULT_FIELD
    args.field = field

    with contextlib.ExitStack() as stack:
        paths = list(args.inputs)
        if not paths:
            sample = _data_dir().joinpath("sample.txt")
            if not sample.is_file():
                raise CliError("no INPUT given, and the bundled sample text is missing")
            paths = [str(stack.enter_context(resources.as_file(sample)))]
        if paths.count("-") > 1:
            raise CliError("standard input ('-') can be given only once")
        inputs = [_Input(p, args.jsonl or p.lower().endswith(".jsonl")) for p in paths]

        output = args.output
        if os.path.isdir(output):
            raise CliError(f"{output}: output is a directory, expected a file name such as out.npz")
        out_dir = os.path.dirname(os.path.abspath(output))
        if not os.path.isdir(out_dir):
            raise CliError(f"{output}: output directory {out_dir!r} does not exist")

        t0 = time.perf_counter()
        tokenizer, tokenizer_path = _load_tokenizer(args.tokenizer)
        load_s = time.perf_counter() - t0

        dtype = np.dtype(args.dtype)
        if dtype == np.uint16:
            vocab = int(tokenizer.get_vocab_size())
            if vocab > _UINT16_LIMIT:
                raise CliError(
                    f"--dtype uint16 cannot hold the ids of {tokenizer_path!r}: its "
                    f"vocabulary has {vocab:,} tokens (uint16 holds at most {_UINT16_LIMIT:,}); "
                    "use --dtype uint32"
                )

        total = None
        if all(i.size is not None for i in inputs):
            total = sum(i.size for i in inputs)
        progress = _Progress(total, args.progress, err_stream) if not args.quiet else None

        reader = _Reader(args, inputs)
        add_special = not args.no_special_tokens
        threads = args.threads

        id_chunks: List[np.ndarray] = []
        offset_chunks: List[np.ndarray] = [np.zeros(1, dtype=np.int64)]
        n_tokens = 0
        n_docs = 0
        done_bytes = 0

        def encode(docs: List[bytes]):
            try:
                return tokenizer.encode_to_numpy(
                    docs, add_special_tokens=add_special, num_threads=threads
                )
            except Exception as e:
                raise EncodeFailed(str(e) or type(e).__name__) from e

        def collect(future, consumed: int) -> None:
            nonlocal n_tokens, n_docs, done_bytes
            ids, offsets = future.result()
            ids = np.asarray(ids)
            offsets = np.asarray(offsets, dtype=np.int64)
            if len(offsets) < 1 or len(ids) != offsets[-1]:
                raise EncodeFailed(
                    f"encode_to_numpy returned {len(ids)} ids but offsets end at "
                    f"{int(offsets[-1]) if len(offsets) else 'nothing'}"
                )
            if dtype == np.uint16:
                if ids.size and int(ids.max()) >= _UINT16_LIMIT:
                    raise CliError(
                        f"token id {int(ids.max())} does not fit in uint16; use --dtype uint32"
                    )
                ids = ids.astype(np.uint16)
            elif ids.dtype != np.uint32:
                ids = ids.astype(np.uint32)
            if ids.size:
                id_chunks.append(ids)
            if len(offsets) > 1:
                offset_chunks.append(offsets[1:] + n_tokens)
            n_tokens += int(ids.size)
            n_docs += len(offsets) - 1
            done_bytes += consumed
            if progress:
                progress.update(done_bytes, n_tokens)

        t1 = time.perf_counter()
        try:
            # One batch encodes (GIL released, all threads) while the next is read.
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="snaptok-encode") as pool:
                in_flight = None
                for docs, consumed in _batches(reader, args.batch_bytes):
                    future = pool.submit(encode, docs)
                    if in_flight is not None:
                        collect(*in_flight)
                    in_flight = (future, consumed)
                if in_flight is not None:
                    collect(*in_flight)
            if progress:
                progress.update(done_bytes, n_tokens, force=True)
        finally:
            if progress:
                progress.close()
        encode_s = time.perf_counter() - t1

        t2 = time.perf_counter()
        _write_npz(
            output,
            {
                "ids": (dtype, n_tokens, id_chunks),
                "offsets": (np.int64, n_docs + 1, offset_chunks),
            },
            compress=args.compress,
        )
        write_s = time.perf_counter() - t2

    if not args.quiet:
        secs = max(encode_s, 1e-9)
        mb = reader.input_bytes / 1e6
        lines = [
            f"documents  {n_docs:,}",
            f"input      {mb:,.2f} MB"
            + (f" ({reader.text_bytes / 1e6:,.2f} MB of text)" if reader.text_bytes != reader.input_bytes else ""),
            f"tokens     {n_tokens:,} ({dtype.name})",
            f"time       {secs:,.2f} s encode, {load_s * 1e3:,.0f} ms tokenizer load, "
            f"{write_s:,.2f} s write",
            f"speed      {mb / secs:,.1f} MB/s, {n_tokens / secs:,.0f} tokens/s",
            f"tokenizer  {tokenizer_path}",
            f"output     {output}",
        ]
        out_stream.write("\n".join(lines) + "\n")
        out_stream.flush()
    return EXIT_OK


# --------------------------------------------------------------------------
# Entry point.


def _version() -> str:
    import snaptok

    version = getattr(snaptok, "__version__", None)
    if version:
        return str(version)
    try:
        from importlib.metadata import version as dist_version

        return dist_version("snaptok")
    except Exception:
        return "unknown"


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="snaptok: fast tokenization, ids identical to Hugging Face tokenizers.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    names = builtin_tokenizers()
    enc = commands.add_parser(
        "encode",
        help="tokenize text files into a .npz of ids and offsets",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Tokenize text files into a NumPy .npz with arrays 'ids' (all documents' token\n"
            "ids, concatenated) and 'offsets' (int64, n_documents+1; document i is\n"
            "ids[offsets[i]:offsets[i+1]]).\n\n"
            "Documents: a plain text file is one document, or one per line with --lines\n"
            "(a trailing \\r is dropped; empty lines are empty documents unless --skip-empty).\n"
            "A .jsonl file (or any file with --jsonl) gives one document per non-blank line,\n"
            "taken from the string field --field (default 'text').\n"
            "With no INPUT, the bundled sample text is encoded."
        ),
        epilog=(
            "examples:\n"
            "  snaptok encode book.txt -o book.npz\n"
            "  snaptok encode data/*.jsonl --field content --tokenizer ./tokenizer.json -o train.npz\n"
            "  snaptok encode corpus.txt --lines --dtype uint16 --threads 8 -o corpus.npz\n\n"
            "exit status: 0 ok, 1 tokenizer failure, 2 bad input or usage\n"
            f"built-in tokenizers: {', '.join(names) if names else 'none'}"
        ),
    )
    enc.add_argument("inputs", nargs="*", metavar="INPUT",
                     help="text or .jsonl files ('-' reads standard input); default: the bundled sample")
    enc.add_argument("-o", "--output", required=True, metavar="OUT.npz", help="output .npz path")
    enc.add_argument("-t", "--tokenizer", default=DEFAULT_TOKENIZER, metavar="PATH_OR_NAME",
                     help="tokenizer.json path, a directory holding one, or a built-in name "
                     f"(default: {DEFAULT_TOKENIZER})")
    enc.add_argument("--lines", action="store_true", help="one document per line of plain text")
    enc.add_argument("--jsonl", action="store_true",
                     help="read every input as JSON Lines (automatic for *.jsonl)")
    enc.add_argument("--field", default=None, metavar="NAME",
                     help=f"JSON field holding the text (default: {DEFAULT_FIELD}; implies --jsonl)")
    enc.add_argument("--skip-empty", action="store_true", help="drop empty documents")
    enc.add_argument("--dtype", choices=("uint32", "uint16"), default="uint32",
                     help="dtype of 'ids' (uint16 only for vocabularies of at most 65,536 tokens)")
    enc.add_argument("--no-special-tokens", action="store_true",
                     help="do not add the post-processor's special tokens (BOS/EOS/CLS/SEP)")
    enc.add_argument("--threads", type=_non_negative_int, default=0, metavar="N",
                     help="encoding threads (default 0: all cores)")
    enc.add_argument("--batch-bytes", type=_parse_size, default=DEFAULT_BATCH_BYTES, metavar="N",
                     help="text per encode call, e.g. 16M (default), 512K, 1G")
    enc.add_argument("--compress", action="store_true", help="deflate the .npz (smaller, slower)")
    enc.add_argument("--progress", dest="progress", action="store_true", default=None,
                     help="always show progress on stderr (default: when stderr is a terminal "
                     f"or the input is at least {PROGRESS_MIN_BYTES >> 20} MiB)")
    enc.add_argument("--no-progress", dest="progress", action="store_false",
                     help="never show progress")
    enc.add_argument("-q", "--quiet", action="store_true", help="no progress and no summary")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the ``snaptok`` command line; returns the exit status.

    Example: ``main(["encode", "notes.txt", "-o", "notes.npz"])`` -> ``0``.
    """
    parser = _build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as e:  # --help, or a usage error already printed
        return e.code if isinstance(e.code, int) else EXIT_BAD_INPUT
    if args.version:
        print(f"{PROG} {_version()}")
        return EXIT_OK
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return _run_encode(args)
    except CliError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except EncodeFailed as e:
        print(f"{PROG}: error: tokenization failed: {e}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    raise SystemExit(main())
