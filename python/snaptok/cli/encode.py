"""``snaptok encode``: a corpus of any size into token ids, streaming.

Reading (``streams``, ``inputs``), encoding (``Tokenizer.encode_to_numpy``
and ``Tokenizer.document_encoder``, GIL released, all cores) and writing
(``shards``) run in three threads, each a bounded queue ahead of the next
(``pipeline``). Every file is written under a temporary name and renamed
when complete.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from importlib import resources
from typing import Optional

import numpy as np

from ..batches import token_id
from . import loading
from . import progress as progress_mod
from .common import DEFAULT_FIELD, EXIT_OK, PROG, CliError, Cursor
from .inputs import Batch, DocumentSource, InputSpec, Skipped, StreamStart, batches
from .streams import JSONL, PARQUET
from .pipeline import Encoder, Writer, run_pipeline, sigterm_as_exception
from .progress import fmt_bytes, fmt_rate
from .shards import Manifest, OutputLayout, ShardSet, remove_previous, resume_manifest
from .writers import Format, WriterOptions, format_for_output

_UINT16_LIMIT = 1 << 16


def check_output(args: argparse.Namespace) -> Format:
    """Validates -o against --format and the options; returns the format."""
    output = args.output
    fmt = format_for_output(output, args.format)
    if args.compress and fmt.name != "npz":
        raise CliError("--compress applies to --format npz only")
    if args.arrow_int32:
        if fmt.name != "parquet":
            raise CliError("--arrow-int32 applies to --format parquet only")
        if args.dtype not in ("auto", "int32"):
            raise CliError(f"--arrow-int32 means --dtype int32, not {args.dtype}")
        args.dtype = "int32"
    args.keep_fields = [f for f in (args.keep_fields or "").split(",") if f]
    if args.keep_fields and fmt.name != "parquet":
        raise CliError("--keep-fields applies to --format parquet only")
    if args.dtype != "auto" and args.dtype not in fmt.dtypes:
        raise CliError(f"--format {fmt.name} stores ids as {' or '.join(fmt.dtypes)}, not {args.dtype}")
    if args.resume and args.shard_size is None:
        raise CliError("--resume needs --shard-size (only sharded runs can be resumed)")
    if os.path.isdir(output):
        raise CliError(f"{output}: output is a directory, expected a file name such as out.npz")
    out_dir = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(out_dir):
        raise CliError(f"{output}: output directory {out_dir!r} does not exist")
    return fmt


def id_dtype(args: argparse.Namespace, fmt: Format, tokenizer, tokenizer_path: str) -> np.dtype:
    """--dtype, or the format's choice for the tokenizer's vocabulary ("auto")."""
    vocab = int(tokenizer.get_vocab_size())
    if args.dtype == "auto":
        return fmt.default_dtype(vocab)
    dtype = np.dtype(args.dtype)
    if dtype == np.uint16 and vocab > _UINT16_LIMIT:
        raise CliError(
            f"--dtype uint16 cannot hold the ids of {tokenizer_path!r}: its "
            f"vocabulary has {vocab:,} tokens (uint16 holds at most {_UINT16_LIMIT:,}); "
            "use --dtype uint32")
    return dtype


# Special tokens tried, in order, when the tokenizer's directory has no
# tokenizer_config.json naming one.
_EOS_CANDIDATES = ("<|endoftext|>", "<|end_of_text|>", "</s>", "<eos>", "<|eos|>")
_BOS_CANDIDATES = ("<|begin_of_text|>", "<s>", "<bos>", "<|bos|>")


def _configured_token(tokenizer_path: str, key: str) -> Optional[str]:
    """The `key` ("eos_token"/"bos_token") of a tokenizer_config.json beside the tokenizer."""
    config = os.path.join(os.path.dirname(tokenizer_path), "tokenizer_config.json")
    try:
        with open(config, "rb") as f:
            value = json.loads(f.read().decode("utf-8")).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) and value else None


def boundary_id(tokenizer, tokenizer_path: str, which: str, text: Optional[str]) -> int:
    """The id of the EOS or BOS token (`which`: "eos"/"bos"): `text` (--eos-token,
    --bos-token), else tokenizer_config.json's, else the first of the usual
    names the vocabulary has; raises CliError before any work when none is."""
    flag = f"--{which}-token"
    if text is not None:
        try:
            return token_id(tokenizer, text, flag, tokenizer_path)
        except ValueError as e:
            raise CliError(str(e)) from None
    configured = _configured_token(tokenizer_path, f"{which}_token")
    candidates = (configured,) if configured else (_EOS_CANDIDATES if which == "eos" else _BOS_CANDIDATES)
    for candidate in candidates:
        found = tokenizer.token_to_id(candidate)
        if found is not None:
            return int(found)
    option = "--append-eos" if which == "eos" else "--prepend-bos"
    raise CliError(f"{option}: {tokenizer_path} has no {which.upper()} token among "
                   f"{', '.join(candidates)}; name it with {flag} TEXT")


def run(args: argparse.Namespace) -> int:
    """Runs ``snaptok encode``; returns the exit status (errors raise)."""
    out_stream, err_stream = sys.stdout, sys.stderr
    if args.field is not None:
        args.jsonl = True
    field = args.field if args.field is not None else DEFAULT_FIELD
    fmt = check_output(args)
    sharded = args.shard_size is not None

    with contextlib.ExitStack() as stack:
        paths = list(args.inputs)
        if not paths:
            sample = loading.data_dir().joinpath("sample.txt")
            if not sample.is_file():
                raise CliError("no INPUT given, and the bundled sample text is missing")
            paths = [str(stack.enter_context(resources.as_file(sample)))]
        if paths.count("-") > 1:
            raise CliError("standard input ('-') can be given only once")
        if args.resume and "-" in paths:
            raise CliError("--resume cannot check standard input against the manifest; give files")
        inputs = [InputSpec(p, jsonl=args.jsonl, lines=args.lines) for p in paths]
        if args.keep_fields:
            for spec in inputs:
                if spec.kind not in (JSONL, PARQUET):
                    raise CliError(f"{spec.name}: --keep-fields needs JSON Lines or Parquet inputs, "
                                   "and this is read as plain text")

        t0 = time.perf_counter()
        tokenizer, tokenizer_path, tokenizer_sha = loading.load_tokenizer(args.tokenizer)
        load_s = time.perf_counter() - t0

        dtype = id_dtype(args, fmt, tokenizer, tokenizer_path)
        bos = boundary_id(tokenizer, tokenizer_path, "bos", args.bos_token) if args.prepend_bos else None
        eos = boundary_id(tokenizer, tokenizer_path, "eos", args.eos_token) if args.append_eos else None

        layout = OutputLayout(args.output, fmt, sharded)
        add_special = not args.no_special_tokens
        manifest = None
        if sharded:
            header = {
                "output": {"format": fmt.name, "dtype": dtype.name, "shard_size": args.shard_size,
                           "compress": bool(args.compress)},
                "options": {"add_special_tokens": add_special, "bos": bos, "eos": eos,
                            "lines": bool(args.lines),
                            "jsonl": bool(args.jsonl), "field": field, "keep_fields": args.keep_fields,
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
        options = WriterOptions(compress=bool(args.compress), tokenizer_name=args.tokenizer,
                                keep_fields=tuple(args.keep_fields))
        shards = ShardSet(layout, dtype=dtype, shard_size=args.shard_size, options=options,
                          manifest=manifest)
        resumed = (len(shards.done), shards.documents, shards.tokens) if args.resume else None
        start = manifest.next_cursor() if manifest is not None else Cursor(0, 0, 1)

        total = None
        if all(spec.size is not None for spec in inputs):
            total = sum(spec.size for spec in inputs)
        progress = None if args.quiet else progress_mod.make_progress(total, args.progress, err_stream)
        source = DocumentSource(inputs, field=field, skip_empty=args.skip_empty,
                                batch_bytes=args.batch_bytes, start=start, keep_fields=args.keep_fields)
        encoder = Encoder(tokenizer, add_special, args.threads, dtype, bos=bos, eos=eos)
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
        print_summary(out_stream, args, layout, shards, dtype, counts, source, run_s, load_s,
                       tokenizer_path, resumed)
    return EXIT_OK


def print_summary(stream, args, layout, shards, dtype, counts, source, run_s, load_s,
                   tokenizer_path, resumed) -> None:
    secs = max(run_s, 1e-9)
    read = counts["done"] - counts["skipped"]
    lines = [
        f"documents  {shards.documents:,}",
        f"input      {fmt_bytes(read)}"
        + (f" ({fmt_bytes(source.text_bytes)} of text)" if source.text_bytes != read else ""),
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
        f"speed      {fmt_rate(read / secs)}, {counts['tokens'] / secs:,.0f} tokens/s",
        f"tokenizer  {tokenizer_path}",
    ]
    if layout.sharded:
        lines.append(f"output     {layout.manifest_path}")
    else:
        lines.append(f"output     {' + '.join(layout.shard_files(0))}")
    stream.write("\n".join(lines) + "\n")
    stream.flush()
