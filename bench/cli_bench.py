"""End-to-end check of ``snaptok encode``: throughput against a plain
``encode_to_numpy`` loop on the same text, and peak memory.

Usage::

    python bench/cli_bench.py 2G                   # plain text, one document
    python bench/cli_bench.py 2G --kind jsonl      # JSON Lines, one document per line
    python bench/cli_bench.py 512M --kind lines --format megatron --shard-size 50M

It writes a file of the given size by repeating the bundled sample text (or
its lines as {"text": ...} records), then runs, each in its own process:

* baseline: reads the file in ~16 MB batches cut at newlines and calls
  ``Tokenizer.encode_to_numpy`` on each (for jsonl: json.loads per line, a
  list of texts per batch; for lines: a list of lines per batch), keeping
  only the id count (with --baseline-writes: writing the ids to a file,
  serially, as a simple script would);
* cli: ``python -m snaptok encode FILE -o OUT ...``.

alternately, --repeat times (default 3), and prints the best wall time,
MB/s and highest peak RSS (from wait4) of both, the ratio cli/baseline of
the best times (on a shared machine the best run is the least disturbed
one), and the output size. Generated files are deleted afterwards
unless --keep is given.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import resources

BASELINE = r"""
import json, sys
import snaptok
path, kind, tokenizer, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
out = open(sys.argv[5], "wb") if len(sys.argv) > 5 else None
tok = snaptok.Tokenizer.from_file(tokenizer)
n = 0
with open(path, "rb") as f:
    rest = b""
    while True:
        data = f.read(batch)
        block = rest + data
        if not block:
            break
        cut = block.rfind(b"\n") + 1 if data else len(block)
        if cut <= 0:
            cut = len(block)
        block, rest = block[:cut], block[cut:]
        if kind == "text":
            docs = [block]
        elif kind == "lines":
            docs = block.split(b"\n")
        else:
            docs = [json.loads(line)["text"] for line in block.decode("utf-8").split("\n") if line]
        ids = tok.encode_to_numpy(docs)[0]
        n += len(ids)
        if out is not None:
            out.write(ids)
if out is not None:
    out.flush()
    import os
    os.fsync(out.fileno())
print(n)
"""


def _parse_size(text: str) -> int:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    text = text.strip().lower().rstrip("b").rstrip("i")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def _make_input(path: str, size: int, kind: str) -> int:
    sample = resources.files("snaptok").joinpath("data", "sample.txt").read_bytes()
    if kind == "jsonl":
        lines = sample.decode("utf-8").split("\n")
        unit = "".join(json.dumps({"text": ln}, ensure_ascii=False) + "\n" for ln in lines).encode()
    else:
        unit = sample if sample.endswith(b"\n") else sample + b"\n"
    block = unit * max(1, (16 << 20) // len(unit))
    written = 0
    with open(path, "wb") as f:
        while written + len(block) <= size:
            f.write(block)
            written += len(block)
        while written + len(unit) <= size or written == 0:
            f.write(unit)
            written += len(unit)
    return written


def _run(cmd, env) -> tuple[float, int, str]:
    """Runs cmd; returns (wall seconds, peak RSS bytes, stdout)."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{cmd[:4]}... failed ({proc.returncode}):\n{err.decode(errors='replace')}")
    return wall, usage.ru_maxrss * 1024, out.decode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("size", help="input size, e.g. 2G, 512M")
    ap.add_argument("--kind", choices=("text", "lines", "jsonl"), default="text")
    ap.add_argument("--format", choices=("npz", "memmap", "megatron", "datatrove", "llmc", "parquet"),
                    default="npz")
    ap.add_argument("--shard-size", default=None, help="passed to snaptok encode")
    ap.add_argument("--tokenizer", default=None, help="tokenizer.json (default: bundled GPT-2)")
    ap.add_argument("--dir", default=tempfile.gettempdir(), help="where to write (default: %(default)s)")
    ap.add_argument("--keep", action="store_true", help="keep the generated input and output")
    ap.add_argument("--cli-args", default="", help="extra snaptok encode arguments")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each, alternating (default 3)")
    ap.add_argument("--baseline-writes", action="store_true",
                    help="the baseline also writes its ids to a file (and fsyncs it)")
    args = ap.parse_args()

    tokenizer = args.tokenizer or str(resources.files("snaptok").joinpath("data", "gpt2", "tokenizer.json"))
    work = tempfile.mkdtemp(prefix="snaptok-cli-bench-", dir=args.dir)
    env = dict(os.environ)
    try:
        src = os.path.join(work, "input.jsonl" if args.kind == "jsonl" else "input.txt")
        size = _make_input(src, _parse_size(args.size), args.kind)
        out = os.path.join(work, "out")
        cmd = [sys.executable, "-m", "snaptok", "encode", src, "-o", out, "-q",
               "--format", args.format, "--tokenizer", tokenizer]
        if args.kind == "lines":
            cmd.append("--lines")
        if args.shard_size:
            cmd += ["--shard-size", args.shard_size]
        cmd += args.cli_args.split()

        base_cmd = [sys.executable, "-c", BASELINE, src, args.kind, tokenizer, str(16 << 20)]
        if args.baseline_writes:
            base_cmd.append(os.path.join(work, "baseline.ids"))
        base_walls, cli_walls, base_rss, cli_rss = [], [], 0, 0
        for _ in range(max(1, args.repeat)):
            wall, rss, base_out = _run(base_cmd, env)
            base_walls.append(wall)
            base_rss = max(base_rss, rss)
            wall, rss, _ = _run(cmd, env)
            cli_walls.append(wall)
            cli_rss = max(cli_rss, rss)
        base_wall, cli_wall = min(base_walls), min(cli_walls)
        out_bytes = sum(os.path.getsize(os.path.join(work, f)) for f in os.listdir(work)
                        if f.startswith("out"))
        base_label = "baseline+write" if args.baseline_writes else "baseline"
        mb = size / 1e6
        print(f"input      {mb:,.0f} MB {args.kind}, {int(base_out):,} tokens")
        print(f"{base_label:<14} {base_wall:6.2f} s  {mb / base_wall:7.1f} MB/s  peak RSS {base_rss / 2**20:7.0f} MiB")
        print(f"{'cli':<14} {cli_wall:6.2f} s  {mb / cli_wall:7.1f} MB/s  peak RSS {cli_rss / 2**20:7.0f} MiB"
              f"  ({args.format}{', shards ' + args.shard_size if args.shard_size else ''})")
        print(f"ratio      {base_wall / cli_wall:.2f} (cli throughput / baseline throughput, best of "
              f"{len(cli_walls)}; all runs: baseline {' '.join(f'{w:.2f}' for w in base_walls)} s, "
              f"cli {' '.join(f'{w:.2f}' for w in cli_walls)} s)")
        print(f"output     {out_bytes / 1e6:,.0f} MB")
    finally:
        if args.keep:
            print(f"kept       {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
