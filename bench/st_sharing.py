"""How much memory each extra process costs when many map one .st file.

Converts a tokenizer.json to .st, then starts N processes one after another
that each load the .st and encode a little text, and reads every process's
/proc/PID/smaps_rollup: RSS counts the shared file pages in every process,
PSS splits them between the processes, and the private (unshared) memory is
what a process really adds. The target: each extra process adds less than
10% of the file size.

    python bench/st_sharing.py [tokenizer.json] [--processes N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHILD = (
    "import sys, snaptok\n"
    "tok = snaptok.Tokenizer.from_file(sys.argv[1])\n"
    "tok.encode('The quick brown fox jumps over the lazy dog. ' * 200)\n"
    "print('ready', flush=True)\n"
    "sys.stdin.read()\n"
)
BASELINE = "import sys, snaptok\nprint('ready', flush=True)\nsys.stdin.read()\n"


def rollup(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, _, value = line.partition(":")
        parts = value.split()
        if parts and parts[-1] == "kB":
            fields[key.strip()] = int(parts[0])
    return fields


def start(code: str, *args: str) -> subprocess.Popen:
    p = subprocess.Popen([sys.executable, "-c", code, *args], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    return p


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tokenizer", nargs="?", default=str(REPO / "python/snaptok/data/gpt2/tokenizer.json"))
    ap.add_argument("--processes", type=int, default=4)
    args = ap.parse_args()
    import snaptok

    with tempfile.TemporaryDirectory() as tmp:
        st_path = os.path.join(tmp, "tokenizer.st")
        snaptok.Tokenizer.from_file(args.tokenizer).save_st(st_path)
        size_kb = os.path.getsize(st_path) / 1024
        base = start(BASELINE)
        base_private = rollup(base.pid)
        base_private = base_private["Private_Clean"] + base_private["Private_Dirty"]
        procs = []
        rows = []
        try:
            for _ in range(args.processes):
                procs.append(start(CHILD, st_path))
                r = [rollup(p.pid) for p in procs]
                private = [x["Private_Clean"] + x["Private_Dirty"] - base_private for x in r]
                rows.append((len(procs), sum(x["Rss"] for x in r), sum(x["Pss"] for x in r),
                             private[-1]))
        finally:
            for p in procs + [base]:
                p.stdin.close()
                p.wait()
    print(f".st file: {size_kb / 1024:.1f} MB ({args.tokenizer}); private memory of an idle "
          f"`import snaptok` process: {base_private / 1024:.1f} MB, subtracted below\n")
    print("| processes | sum of RSS (MB) | sum of PSS (MB) | newest process's private memory beyond "
          "`import snaptok` (MB) | as % of the .st size |")
    print("|---:|---:|---:|---:|---:|")
    for n, rss, pss, private in rows:
        print(f"| {n} | {rss / 1024:.1f} | {pss / 1024:.1f} | {private / 1024:.2f} | "
              f"{100 * private / size_kb:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
