"""The ``snaptok`` command line.

``snaptok encode`` tokenizes a corpus of any size into token ids, streaming:
memory stays bounded by a few ``--batch-bytes`` blocks whatever the size of
the inputs or of one document.

Output: a NumPy ``.npz`` (default) with ``ids`` (every document's token ids,
concatenated) and ``offsets`` (``int64``, ``n_documents + 1``; document ``i``
is ``ids[offsets[i]:offsets[i + 1]]``), or ``--format bin``: a raw ``.bin``
of ids plus an ``.idx`` of offsets. With ``--shard-size N`` the output is
split into shards of about N ids (``out-00000.npz``, ...) listed in a JSON
manifest; ``--resume`` continues an interrupted sharded run.

Example::

    $ snaptok encode corpus.jsonl -o corpus.npz --tokenizer gpt2
    $ python -c "import numpy as np; z = np.load('corpus.npz'); print(z['ids'][:10])"

Reading (``_cli_streams``, ``_cli_inputs``), encoding
(``Tokenizer.encode_to_numpy`` and ``Tokenizer.document_encoder``, GIL
released, all cores) and writing (``_cli_shards``) run in three threads, each
a bounded queue ahead of the next (``_cli_pipeline``). Every file is written under a temporary name and renamed when complete.
Bad input (a missing file, invalid UTF-8, a JSON line that does not parse or
lacks the text field) stops the run with exit status 2 and a message naming
the file, the line and the byte offset.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import re
import sys
import time
from importlib import resources
from pathlib import Path
from typing import IO, Iterator, List, Optional, Sequence

import numpy as np

from ._cli_common import CliError, Cursor, EncodeFailed
from ._cli_inputs import Batch, DocumentSource, InputSpec, Skipped, StreamStart, batches
from ._cli_pipeline import Encoder, Terminated, Writer, run_pipeline, sigterm_as_exception
from ._cli_shards import Manifest, OutputLayout, ShardSet, remove_previous, resume_manifest

__all__ = ["main", "builtin_tokenizers", "CliError", "EncodeFailed"]

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

_UINT16_LIMIT = 1 << 16
_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE_RE = re.compile(r"^(\d+(?:\.\d*)?)\s*([kmgt]?)(?:i?b)?$")
_COUNT_UNITS = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "b": 10**9, "t": 10**12}
_COUNT_RE = re.compile(r"^(\d+(?:\.\d*)?)\s*([kmgbt]?)$")


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
    """Returns (tokenizer, path, sha256 of the tokenizer.json)."""
    import snaptok

    with _resolved_tokenizer(spec) as path:
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            return snaptok.Tokenizer.from_file(str(path)), str(path), digest
        except Exception as e:  # the engine names what failed; pass it on
            raise CliError(f"cannot load tokenizer {str(path)!r}: {e}") from e


# --------------------------------------------------------------------------
# Progress.


def _fmt_bytes(n: float) -> str:
    """Returns a byte count in the unit that suits it: 512 B, 12.3 kB, 4.5 MB, 1.2 GB."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n:,.0f} B"


def _fmt_rate(bytes_per_second: float) -> str:
    return _fmt_bytes(bytes_per_second) + "/s"


def _progress_enabled(total: Optional[int], mode: Optional[bool], stream: IO[str]) -> bool:
    big = total is not None and total >= PROGRESS_MIN_BYTES
    return (_isatty(stream) or big) if mode is None else mode


def _isatty(stream) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)())


class _Progress:
    """A progress line: rewritten in place on a terminal, else one line every 10 s."""

    def __init__(self, total: Optional[int], stream: IO[str]):
        self.tty = _isatty(stream)
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
            text = (f"encode {_fmt_bytes(done)} / {_fmt_bytes(self.total)} ({pct:5.1f}%)  "
                    f"{_fmt_rate(rate)}  {tokens:,} tokens  {tok_rate:,.0f} tokens/s  "
                    f"eta {eta:,.0f}s")
        else:
            text = (f"encode {_fmt_bytes(done)}  {_fmt_rate(rate)}  {tokens:,} tokens  "
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


class _TqdmProgress:
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
                f"{_fmt_rate((done - self.skipped) / elapsed)}, "
                f"{tokens / elapsed:,.0f} tokens/s, {tokens:,} tokens", refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        self.bar.close()


def _make_progress(total: Optional[int], mode: Optional[bool], stream: IO[str]):
    """tqdm on a terminal when it is installed, else the plain progress line
    (which keeps logs readable: one line every 10 s)."""
    if not _progress_enabled(total, mode, stream):
        return None
    if _isatty(stream):
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            return _TqdmProgress(total, stream, tqdm)
    return _Progress(total, stream)


# --------------------------------------------------------------------------
# The encode command.


def _parse_scaled(text: str, pattern, units, examples: str, what: str) -> int:
    """``text`` as a number with an optional unit suffix (``pattern`` groups the
    number and the unit, ``units`` gives each unit's factor); at least 1."""
    m = pattern.match(text)
    if not m:
        raise argparse.ArgumentTypeError(f"bad {what} {text!r} (use e.g. {examples})")
    value = int(float(m.group(1)) * units[m.group(2)])
    if value < 1:
        raise argparse.ArgumentTypeError(f"{what} must be at least 1, got {text!r}")
    return value


def _parse_size(text: str) -> int:
    """Bytes, with binary units: ``16M`` = 16 MiB."""
    return _parse_scaled(text.strip().lower(), _SIZE_RE, _SIZE_UNITS,
                         "16M, 512K, 1G or bytes", "size")


def _parse_count(text: str) -> int:
    """A count of ids, with decimal units: ``100M`` = 100,000,000."""
    return _parse_scaled(text.strip().lower().replace("_", "").replace(",", ""), _COUNT_RE,
                         _COUNT_UNITS, "100M, 500k, 1G or a number", "count")


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _check_output(args: argparse.Namespace) -> str:
    """Validates -o against --format; returns the format."""
    output = args.output
    lower = output.lower()
    fmt = args.format or ("bin" if lower.endswith(".bin") else "npz")
    if fmt == "npz" and lower.endswith((".bin", ".idx")):
        raise CliError(f"{output}: a .bin/.idx name, but --format is npz")
    if fmt == "bin" and lower.endswith(".npz"):
        raise CliError(f"{output}: a .npz name, but --format is bin (use e.g. -o out.bin)")
    if fmt == "bin" and args.compress:
        raise CliError("--compress applies to --format npz only")
    if args.resume and args.shard_size is None:
        raise CliError("--resume needs --shard-size (only sharded runs can be resumed)")
    if os.path.isdir(output):
        raise CliError(f"{output}: output is a directory, expected a file name such as out.npz")
    out_dir = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(out_dir):
        raise CliError(f"{output}: output directory {out_dir!r} does not exist")
    return fmt


def _run_encode(args: argparse.Namespace) -> int:
    out_stream, err_stream = sys.stdout, sys.stderr
    if args.field is not None:
        args.jsonl = True
    field = args.field if args.field is not None else DEFAULT_FIELD
    fmt = _check_output(args)
    sharded = args.shard_size is not None

    with contextlib.ExitStack() as stack:
        paths = list(args.inputs)
        if not paths:
            sample = _data_dir().joinpath("sample.txt")
            if not sample.is_file():
                raise CliError("no INPUT given, and the bundled sample text is missing")
            paths = [str(stack.enter_context(resources.as_file(sample)))]
        if paths.count("-") > 1:
            raise CliError("standard input ('-') can be given only once")
        if args.resume and "-" in paths:
            raise CliError("--resume cannot check standard input against the manifest; give files")
        inputs = [InputSpec(p, jsonl=args.jsonl, lines=args.lines) for p in paths]

        t0 = time.perf_counter()
        tokenizer, tokenizer_path, tokenizer_sha = _load_tokenizer(args.tokenizer)
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

        layout = OutputLayout(args.output, fmt, sharded)
        add_special = not args.no_special_tokens
        manifest = None
        if sharded:
            header = {
                "output": {"format": fmt, "dtype": dtype.name, "shard_size": args.shard_size,
                           "compress": bool(args.compress)},
                "options": {"add_special_tokens": add_special, "lines": bool(args.lines),
                            "jsonl": bool(args.jsonl), "field": field,
                            "skip_empty": bool(args.skip_empty)},
                "tokenizer": {"path": tokenizer_path, "sha256": tokenizer_sha},
                "inputs": [spec.describe() for spec in inputs],
            }
            if args.resume:
                manifest = resume_manifest(layout, header)
                layout.remove_leftovers()
            else:
                if os.path.exists(layout.manifest_path):
                    if not args.overwrite:
                        raise CliError(
                            f"{layout.manifest_path} exists from an earlier run: pass --resume to "
                            "continue it, or --overwrite to replace its shards")
                    remove_previous(layout)
                manifest = Manifest(layout.manifest_path, header)
        shards = ShardSet(layout, dtype=dtype, shard_size=args.shard_size,
                          compress=args.compress, manifest=manifest)
        resumed = (len(shards.done), shards.documents, shards.tokens) if args.resume else None
        start = manifest.next_cursor() if manifest is not None else Cursor(0, 0, 1)

        total = None
        if all(spec.size is not None for spec in inputs):
            total = sum(spec.size for spec in inputs)
        progress = None if args.quiet else _make_progress(total, args.progress, err_stream)
        source = DocumentSource(inputs, field=field, skip_empty=args.skip_empty,
                                batch_bytes=args.batch_bytes, start=start)
        encoder = Encoder(tokenizer, add_special, args.threads, dtype)
        writer = Writer(shards)
        counts = {"done": 0, "skipped": 0, "tokens": 0}
        warned = []

        def on_done(item, result) -> None:
            counts["done"] += item.consumed
            if isinstance(item, Skipped):
                counts["skipped"] += item.consumed
                if progress:
                    progress.skipped = counts["skipped"]
            elif result is not None:
                counts["tokens"] += len(result[0]) if isinstance(item, Batch) else len(result)
            if progress:
                progress.update(counts["done"], counts["tokens"])

        def check_item(item) -> None:
            if not isinstance(item, StreamStart):
                return
            if not hasattr(tokenizer, "document_encoder"):
                raise CliError(
                    f"{item.name}: a document larger than --batch-bytes needs "
                    "Tokenizer.document_encoder, which this snaptok build lacks; raise "
                    "--batch-bytes above the document's size")
            if not warned and not getattr(tokenizer, "can_split_documents", True):
                warned.append(True)
                if not args.quiet:
                    err_stream.write(
                        f"{PROG}: warning: {tokenizer_path} has no exact cut points, so a document "
                        "larger than --batch-bytes is held whole in memory until its end\n")

        t1 = time.perf_counter()
        if manifest is not None and manifest.complete:
            pass  # --resume of a finished run: nothing left to do
        else:
            try:
                with sigterm_as_exception():
                    run_pipeline(batches(source.events(), args.batch_bytes), encoder, writer,
                                  on_done, check_item)
                    shards.finish(Cursor(len(inputs), 0, 1))
                if progress:
                    progress.update(counts["done"], counts["tokens"], force=True)
            except BaseException:
                shards.abort()
                raise
            finally:
                if progress:
                    progress.close()
        run_s = time.perf_counter() - t1

    if not args.quiet:
        _print_summary(out_stream, args, layout, shards, dtype, counts, source, run_s, load_s,
                       tokenizer_path, resumed)
    return EXIT_OK


def _print_summary(stream, args, layout, shards, dtype, counts, source, run_s, load_s,
                   tokenizer_path, resumed) -> None:
    secs = max(run_s, 1e-9)
    read = counts["done"] - counts["skipped"]
    lines = [
        f"documents  {shards.documents:,}",
        f"input      {_fmt_bytes(read)}"
        + (f" ({_fmt_bytes(source.text_bytes)} of text)" if source.text_bytes != read else ""),
        f"tokens     {shards.tokens:,} ({dtype.name})",
    ]
    files = [s["files"][0] for s in shards.done]
    if resumed is not None:
        lines.append(f"resumed    after {resumed[0]:,} shard(s) holding {resumed[1]:,} documents, "
                     f"{resumed[2]:,} tokens")
    if layout.sharded:
        lines.append(f"shards     {len(shards.done):,} ({files[0]} .. {files[-1]})" if files
                     else "shards     0")
    lines += [
        f"time       {secs:,.2f} s (read, encode and write overlapped), "
        f"{load_s * 1e3:,.0f} ms tokenizer load",
        f"speed      {_fmt_rate(read / secs)}, {counts['tokens'] / secs:,.0f} tokens/s",
        f"tokenizer  {tokenizer_path}",
    ]
    if layout.sharded:
        lines.append(f"output     {layout.manifest_path}")
    else:
        lines.append(f"output     {' + '.join(layout.shard_files(0))}")
    stream.write("\n".join(lines) + "\n")
    stream.flush()


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
        help="tokenize a corpus into .npz or .bin/.idx files of ids and offsets",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Tokenize a corpus of any size, streaming, into a NumPy .npz with arrays 'ids'\n"
            "(all documents' token ids, concatenated) and 'offsets' (int64, n_documents+1;\n"
            "document i is ids[offsets[i]:offsets[i+1]]), or with --format bin into a raw\n"
            "little-endian .bin of ids plus an .idx of offsets (layout in the README).\n\n"
            "Documents: a plain text file is one document, or one per line with --lines\n"
            "(a trailing \\r is dropped; empty lines are empty documents unless --skip-empty).\n"
            "A .jsonl file (or any file with --jsonl) gives one document per non-blank line,\n"
            "taken from the string field --field (default 'text'); a .parquet file one per\n"
            "row of the string column --field. .gz and .zst inputs are decompressed as they\n"
            "are read (standard input is sniffed for both). With no INPUT, the bundled\n"
            "sample text is encoded.\n\n"
            "With --shard-size N the output is split into shards of at least N ids, each\n"
            "ending at the first document end that reaches N (BASE-00000.npz, ... or\n"
            "BASE-00000.bin/.idx, ...), listed in BASE.manifest.json; --resume continues\n"
            "an interrupted run from its last complete shard."
        ),
        epilog=(
            "examples:\n"
            "  snaptok encode book.txt -o book.npz\n"
            "  snaptok encode data/*.jsonl.zst --field content --tokenizer ./tokenizer.json -o train.npz\n"
            "  snaptok encode corpus.txt --lines --dtype uint16 --num-threads 8 -o corpus.bin\n"
            "  snaptok encode web/*.parquet -o web.bin --shard-size 100M   # then, if stopped: --resume\n\n"
            "exit status: 0 ok, 1 tokenization or write failure, 2 bad input (text, tokenizer\n"
            "file, output path) or usage,\n"
            "130 interrupted (Ctrl-C), 143 terminated (SIGTERM)\n"
            f"built-in tokenizers: {', '.join(names) if names else 'none'}"
        ),
    )
    enc.add_argument("inputs", nargs="*", metavar="INPUT",
                     help="text, .jsonl or .parquet files, optionally .gz or .zst ('-' reads "
                     "standard input); default: the bundled sample")
    enc.add_argument("-o", "--output", required=True, metavar="OUT",
                     help="output path: OUT.npz, or OUT.bin for --format bin (with --shard-size: "
                     "the base of the shard names)")
    enc.add_argument("-t", "--tokenizer", default=DEFAULT_TOKENIZER, metavar="PATH_OR_NAME",
                     help="tokenizer.json path, a directory holding one, or a built-in name "
                     f"(default: {DEFAULT_TOKENIZER})")
    enc.add_argument("--lines", action="store_true", help="one document per line of plain text")
    enc.add_argument("--jsonl", action="store_true",
                     help="read every text input as JSON Lines (automatic for *.jsonl)")
    enc.add_argument("--field", default=None, metavar="NAME",
                     help=f"JSON field or Parquet column holding the text (default: {DEFAULT_FIELD}; "
                     "implies --jsonl for non-Parquet inputs)")
    enc.add_argument("--skip-empty", action="store_true", help="drop empty documents")
    enc.add_argument("--format", choices=("npz", "bin"), default=None,
                     help="npz (default) or bin: raw ids in .bin plus offsets in .idx "
                     "(default: bin when -o ends in .bin)")
    enc.add_argument("--dtype", choices=("uint32", "uint16"), default="uint32",
                     help="dtype of the ids (uint16 only for vocabularies of at most 65,536 tokens)")
    enc.add_argument("--shard-size", type=_parse_count, default=None, metavar="N",
                     help="ids per shard, e.g. 100M (k, M, G = 10^3, 10^6, 10^9); a shard ends at "
                     "the first document end that reaches N; default: one output file")
    enc.add_argument("--resume", action="store_true",
                     help="continue the interrupted sharded run whose manifest is at OUT's base")
    enc.add_argument("--overwrite", action="store_true",
                     help="replace the shards of an earlier sharded run instead of refusing")
    enc.add_argument("--no-special-tokens", action="store_true",
                     help="do not add the post-processor's special tokens (BOS/EOS/CLS/SEP)")
    enc.add_argument("--num-threads", "--threads", dest="threads", type=_non_negative_int,
                     default=0, metavar="N", help="encoding threads (default 0: all cores)")
    enc.add_argument("--batch-bytes", type=_parse_size, default=DEFAULT_BATCH_BYTES, metavar="N",
                     help="text per encode call, e.g. 16M (default), 512K, 1G; a document larger "
                     "than this is streamed in blocks of N/4 (64K..16M). Memory is a few times N")
    enc.add_argument("--compress", action="store_true", help="deflate the .npz (smaller, slower)")
    enc.add_argument("--progress", dest="progress", action="store_true", default=None,
                     help="always show progress on stderr (default: when stderr is a terminal "
                     f"or the input is at least {PROGRESS_MIN_BYTES >> 20} MiB; tqdm on a "
                     "terminal when installed)")
    enc.add_argument("--no-progress", dest="progress", action="store_false",
                     help="never show progress")
    enc.add_argument("-q", "--quiet", action="store_true", help="no progress and no summary")

    conv = commands.add_parser(
        "convert",
        help="write a tokenizer as a .st file (mmap-loaded in about a millisecond)",
        description=(
            "Write the .st binary image of a tokenizer: its tables as the engine uses them,\n"
            "so loading is a mmap and a validation instead of parsing JSON. The file is\n"
            "written atomically and deterministically (the same tokenizer gives the same\n"
            "bytes), then loaded back once to check it. Tokenizer.from_file() and\n"
            "'snaptok encode --tokenizer' accept it wherever they accept a tokenizer.json."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  snaptok convert tokenizer.json -o tokenizer.st",
    )
    conv.add_argument("tokenizer", metavar="TOKENIZER",
                      help="tokenizer.json path, a directory holding one, or a built-in name")
    conv.add_argument("-o", "--output", default=None, metavar="OUT",
                      help="the .st path (default: TOKENIZER with .json replaced by .st)")
    conv.add_argument("-q", "--quiet", action="store_true", help="no summary")
    return parser


def _run_convert(args: argparse.Namespace) -> int:
    import snaptok

    if args.output is None and not os.path.exists(args.tokenizer):
        raise CliError(f"tokenizer {args.tokenizer!r}: give -o OUT.st for a built-in tokenizer")
    with _resolved_tokenizer(args.tokenizer) as path:
        output = args.output or str(path.with_suffix(".st"))
        if os.path.abspath(output) == os.path.abspath(str(path)):
            raise CliError(f"output {output!r} would overwrite the input")
        started = time.perf_counter()
        try:
            tok = snaptok.Tokenizer.from_file(str(path))
        except Exception as e:
            raise CliError(f"cannot load tokenizer {str(path)!r}: {e}") from e
        load_s = time.perf_counter() - started
        try:
            tok.save_st(output)
        except Exception as e:  # the engine names the path and the failure
            raise OSError(str(e)) from e
        started = time.perf_counter()
        snaptok.Tokenizer.from_file(output)  # validates what was written
        st_load_s = time.perf_counter() - started
    if not args.quiet:
        print(f"{PROG}: wrote {output} ({_fmt_bytes(os.path.getsize(output))}); loads in "
              f"{st_load_s * 1e3:.2f} ms (from {path.name}: {load_s * 1e3:.1f} ms)", file=sys.stderr)
    return EXIT_OK


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
        return _run_convert(args) if args.command == "convert" else _run_encode(args)
    except CliError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except EncodeFailed as e:
        print(f"{PROG}: error: tokenization failed: {e}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:
        print(f"{PROG}: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except OSError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    raise SystemExit(main())
