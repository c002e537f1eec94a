"""``snaptok convert``: a tokenizer as a ``.st`` file, written atomically and
loaded back once to check it."""

from __future__ import annotations

import argparse
import os
import sys
import time

from .common import EXIT_OK, PROG, CliError
from .loading import resolved_tokenizer
from .progress import fmt_bytes


def run(args: argparse.Namespace) -> int:
    """Runs ``snaptok convert``; returns the exit status (errors raise)."""
    import snaptok

    if args.output is None and not os.path.exists(args.tokenizer):
        raise CliError(f"tokenizer {args.tokenizer!r}: give -o OUT.st for a built-in tokenizer")
    with resolved_tokenizer(args.tokenizer) as path:
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
        print(f"{PROG}: wrote {output} ({fmt_bytes(os.path.getsize(output))}); loads in "
              f"{st_load_s * 1e3:.2f} ms (from {path.name}: {load_s * 1e3:.1f} ms)", file=sys.stderr)
    return EXIT_OK
