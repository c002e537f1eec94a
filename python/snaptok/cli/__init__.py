"""The ``snaptok`` command line.

``snaptok encode`` tokenizes a corpus of any size into token ids, streaming:
memory stays bounded by a few ``--batch-bytes`` blocks whatever the size of
the inputs or of one document.

Output: a NumPy ``.npz`` (default) with ``ids`` (every document's token ids,
concatenated) and ``offsets`` (``int64``, ``n_documents + 1``; document ``i``
is ``ids[offsets[i]:offsets[i + 1]]``), or what a trainer reads
(``--format``): ``memmap`` (raw ``.bin`` + ``.idx.npy`` offsets),
``megatron`` (Megatron-core/NeMo ``.bin`` + ``.idx``), ``datatrove``
(``.ds`` files), ``llmc`` (llm.c ``.bin``) or ``parquet`` (``input_ids``
rows); ``writers`` has the layouts. With ``--shard-size N`` the output is
split into shards of about N ids (``out-00000.npz``, ...) listed in a JSON
manifest; ``--resume`` continues an interrupted sharded run.

Example::

    $ snaptok encode corpus.jsonl -o corpus.npz --tokenizer gpt2
    $ python -c "import numpy as np; z = np.load('corpus.npz'); print(z['ids'][:10])"

One module per job: ``encode`` and ``convert`` (the commands), ``args``
(argument types), ``loading`` (which tokenizer ``--tokenizer`` names),
``progress``, and the encode pipeline's ``streams`` and ``inputs``
(reading), ``pipeline`` (the reader, encoder and writer threads) and
``shards`` and ``writers`` (the output files). Every file is written under a temporary name
and renamed when complete.
Bad input (a missing file, invalid UTF-8, a JSON line that does not parse or
lacks the text field) stops the run with exit status 2 and a message naming
the file, the line and the byte offset.
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from . import convert, encode
from .args import non_negative_int, parse_count, parse_size
from .common import (DEFAULT_BATCH_BYTES, DEFAULT_FIELD, DEFAULT_TOKENIZER, EXIT_BAD_INPUT, EXIT_FAILURE,
                     EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED, PROG, PROGRESS_MIN_BYTES, CliError,
                     EncodeFailed)
from .loading import builtin_tokenizers
from .pipeline import Terminated

__all__ = ["main", "builtin_tokenizers", "CliError", "EncodeFailed"]


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
        help="tokenize a corpus into .npz, Megatron, datatrove, llm.c, memmap or Parquet files",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Tokenize a corpus of any size, streaming, into a NumPy .npz with arrays 'ids'\n"
            "(all documents' token ids, concatenated) and 'offsets' (int64, n_documents+1;\n"
            "document i is ids[offsets[i]:offsets[i+1]]), or into the files a trainer reads\n"
            "(--format; layouts in docs/cli.md):\n"
            "  memmap     OUT.bin raw ids (nanoGPT, OLMo) + OUT.idx.npy int64 offsets\n"
            "  megatron   PREFIX.bin + PREFIX.idx, Megatron-core/NeMo's indexed dataset\n"
            "  datatrove  OUT.ds + .ds.index + .ds.metadata, as datatrove's DocumentTokenizer\n"
            "  llmc       OUT.bin, llm.c / modded-nanogpt (header + ids; no document index)\n"
            "  parquet    OUT.parquet, one row per document, column input_ids\n\n"
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
            "  snaptok encode web/*.parquet --format megatron --append-eos -o web --shard-size 100M\n"
            "  snaptok encode fineweb.jsonl --format llmc --prepend-bos --bos-token '<|endoftext|>' -o fw.bin\n"
            "  (a stopped sharded run continues with the same command and --resume)\n\n"
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
                     help="output path: OUT.npz, OUT.bin, OUT.ds, OUT.parquet, or the PREFIX of "
                     "megatron's .bin/.idx (with --shard-size: the base of the shard names)")
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
    enc.add_argument("--format", choices=("npz", "memmap", "megatron", "datatrove", "llmc",
                                          "parquet", "bin"), default=None, metavar="FORMAT",
                     help="npz, memmap, megatron, datatrove, llmc or parquet (default: from -o's "
                     "suffix: .npz, .bin = memmap, .ds = datatrove, .parquet; else npz)")
    enc.add_argument("--dtype", choices=("auto", "uint16", "uint32", "int32"), default="auto",
                     help="dtype of the ids (default auto: uint32 for npz, memmap and parquet; "
                     "uint16 where the vocabulary fits for megatron (else int32), datatrove and "
                     "llmc (else uint32))")
    enc.add_argument("--append-eos", action="store_true",
                     help="end every document with the EOS token (Megatron's --append-eod); with "
                     "--no-special-tokens, datatrove's convention")
    enc.add_argument("--prepend-bos", action="store_true",
                     help="start every document with the BOS token (llm.c: --bos-token '<|endoftext|>')")
    enc.add_argument("--eos-token", default=None, metavar="TEXT",
                     help="the EOS token (default: tokenizer_config.json's eos_token beside the "
                     "tokenizer, else the first of <|endoftext|>, <|end_of_text|>, </s>, <eos>, <|eos|>)")
    enc.add_argument("--bos-token", default=None, metavar="TEXT",
                     help="the BOS token (default: tokenizer_config.json's bos_token, else the "
                     "first of <|begin_of_text|>, <s>, <bos>, <|bos|>)")
    enc.add_argument("--keep-fields", default=None, metavar="A,B",
                     help="parquet: copy these JSON fields or Parquet columns of each document "
                     "beside its input_ids (a missing JSON field is a null)")
    enc.add_argument("--arrow-int32", action="store_true",
                     help="parquet: list<int32> ids (what Spark and HF datasets expect) instead of "
                     "large_list<uint32>")
    enc.add_argument("--shard-size", type=parse_count, default=None, metavar="N",
                     help="ids per shard, e.g. 100M (k, M, G = 10^3, 10^6, 10^9); a shard ends at "
                     "the first document end that reaches N; default: one output file")
    enc.add_argument("--resume", action="store_true",
                     help="continue the interrupted sharded run whose manifest is at OUT's base")
    enc.add_argument("--overwrite", action="store_true",
                     help="replace the shards of an earlier sharded run instead of refusing")
    enc.add_argument("--no-special-tokens", action="store_true",
                     help="do not add the post-processor's special tokens (BOS/EOS/CLS/SEP)")
    enc.add_argument("--num-threads", "--threads", dest="threads", type=non_negative_int,
                     default=0, metavar="N", help="encoding threads (default 0: all cores)")
    enc.add_argument("--batch-bytes", type=parse_size, default=DEFAULT_BATCH_BYTES, metavar="N",
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
        return convert.run(args) if args.command == "convert" else encode.run(args)
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
