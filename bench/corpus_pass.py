#!/usr/bin/env python3
"""The corpus job: one pass over text no library has seen, library by library.

Each library runs in a fresh worker process (one thread by default) that reads
--mb MB (default 48) of documents, loads the tokenizer and encodes every
document exactly once, in consecutive batches of about --batch-mb MB (default
16). Only the encode calls are timed. Nothing is warmed up or repeated, so a
cache helps only with what recurs within the pass, as in a real corpus job
(bench.py's batch scenario times one batch again and again). A text file is
cut into ~8 KB documents at line ends, as bench/cpp/corpus_pass.cpp does; a
.jsonl/.json file gives one document per record ("text"); a directory, its
*.txt files concatenated.

Reported per library: MB/s (UTF-8 bytes / encode seconds; median and
min..max of --runs processes, run round-robin with the order rotating so a
noisy neighbour hits all alike), load time, the worker's peak RSS, and
whether a digest of all ids (blake2b over each document's id count and ids as
little-endian uint32, in order) equals HF tokenizers 0.23.3's ("hf", run once
for the check when not selected). Workers set RAYON_NUM_THREADS,
TOKENIZERS_PARALLELISM, ... before importing anything and pin themselves to
--threads cores, as bench.py's do. "hf1" (HF tokenizers 1.0) runs under
another interpreter (--hf1-python) without snaptok, so bench/adapters.py is
imported only for the libraries it drives.

Usage:
  python bench/corpus_pass.py --corpus /data/prose.txt            # gpt2, 48 MB, 3 runs
  python bench/corpus_pass.py --corpus c4.jsonl --tokenizer o200k/tokenizer.json --mb 96
  python bench/corpus_pass.py --only snaptok,hf --budget-mib 16,64,default --json out.json
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import cpu_name

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared" / "data"

LIBS = ["snaptok", "hf", "hf1", "tuetoken", "gigatoken", "snaptokens", "fastokens", "tiktoken"]
LABEL = {"snaptok": "snaptok", "hf": "HF tokenizers", "hf1": "HF tokenizers 1.0", "tuetoken": "tuetoken",
         "gigatoken": "gigatoken", "snaptokens": "snaptokens", "fastokens": "fastokens", "tiktoken": "tiktoken"}
DOC_BYTES = 8192


def default_tokenizer() -> Path:
    shared = SHARED / "tokenizers" / "gpt2" / "tokenizer.json"
    return shared if shared.is_file() else REPO / "python" / "snaptok" / "data" / "gpt2" / "tokenizer.json"


def default_corpus() -> Path | None:
    english = SHARED / "corpus" / "en"
    return english if english.is_dir() and any(english.glob("*.txt")) else None


def thread_env(threads: int) -> dict[str, str]:
    """bench.py's: caps every library's thread pools (and NumPy's BLAS) at `threads`."""
    n = str(threads)
    return {"RAYON_NUM_THREADS": n, "RAYON_RS_NUM_CPUS": n, "SNAPTOK_NUM_THREADS": n, "OMP_NUM_THREADS": n,
            "TOKENIZERS_PARALLELISM": "false" if threads == 1 else "true",
            "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def pin_to_cores(threads: int) -> None:
    """bench.py's: keeps this process on `threads` cores (fastokens' pool ignores the variables)."""
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))
        if threads < len(cores):
            os.sched_setaffinity(0, set(cores[:threads]))


# --------------------------------------------------------------------------
# Documents.


def read_documents(corpus: Path, mb: float) -> tuple[list[str], list[int], str]:
    """Returns (documents, their UTF-8 sizes, description) for about mb MB of corpus."""
    want = int(mb * 1e6)
    if corpus.suffix in (".jsonl", ".json"):
        docs, sizes, have = [], [], 0
        with open(corpus, encoding="utf-8") as f:
            for line in f:
                if have >= want:
                    break
                if line.strip():
                    docs.append(json.loads(line)["text"])
                    sizes.append(len(docs[-1].encode("utf-8")))
                    have += sizes[-1]
        return docs, sizes, f"{corpus} (JSON Lines, one document per record)"
    files = sorted(corpus.glob("*.txt")) if corpus.is_dir() else [corpus]
    data = b""
    for path in files:
        if len(data) < want:
            with open(path, "rb") as f:
                data += f.read(want - len(data))
            data += b"" if len(files) == 1 or data.endswith(b"\n") else b"\n"
    desc = f"{corpus} ({len(files)} *.txt files, concatenated)" if corpus.is_dir() else str(corpus)
    cut = min(want, len(data))  # at a character boundary, as corpus_pass.cpp's head()
    while 0 < cut < len(data) and (data[cut] & 0xC0) == 0x80:
        cut -= 1
    data = data[:cut]
    docs, sizes, at = [], [], 0
    while at < len(data):  # ~8 KB documents, each ending after a line end (corpus_pass.cpp's documents())
        nl = data.find(b"\n", at + DOC_BYTES) if at + DOC_BYTES < len(data) else -1
        end = len(data) if nl < 0 else nl + 1
        try:
            docs.append(data[at:end].decode("utf-8"))
        except UnicodeDecodeError as e:
            raise SystemExit(f"corpus_pass: {corpus}: not UTF-8 at byte {at + e.start} of the text read "
                             f"({e.reason}); every library would read it differently") from None
        sizes.append(end - at)
        at = end
    if len(data) < want:
        desc += f", only {len(data) / 1e6:.1f} MB there"
    return docs, sizes, desc


def batches(sizes: list[int], batch_bytes: int) -> list[tuple[int, int]]:
    """Consecutive [first, last) document ranges of at least batch_bytes (the last may be less)."""
    out, first = [], 0
    while first < len(sizes):
        last, have = first, 0
        while last < len(sizes) and have < batch_bytes:
            have += sizes[last]
            last += 1
        out.append((first, last))
        first = last
    return out


# --------------------------------------------------------------------------
# Libraries that bench/adapters.py does not drive (same interface).


class TuetokenAdapter:
    import_name = "tuetoken"

    def __init__(self, path, threads):
        self.path, self.threads = str(path), threads

    def load(self):
        import tuetoken

        self.module = tuetoken
        self.tok = tuetoken.Tokenizer(self.path)  # raises at load on what it cannot reproduce

    def batch(self, docs):
        # Its bulk-corpus path: flat uint32 ids + int64 offsets. "Ordinary": added
        # tokens spelled in the text are encoded as text (HF would match them).
        return self.tok.encode_ordinary_to_buffer(docs, num_threads=self.threads)

    def batch_ids(self, result):
        ids, offsets = result["data"], result["offsets"]
        return [ids[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]


class HF1Adapter:
    import_name = "tokenizers"

    def __init__(self, path, threads):
        self.path = str(path)

    def load(self):
        import tokenizers

        self.module = tokenizers
        self.tok = tokenizers.Tokenizer.from_file(self.path)

    def batch(self, docs):
        # 1.0 has no encode_batch_fast; ids_array (a uint32 copy) is ~3x faster than .ids.
        encodings = self.tok.encode_batch(docs, add_special_tokens=False, padding=None, truncation=None)
        return [e.ids_array for e in encodings]

    def batch_ids(self, result):
        return result


def make_adapter(lib: str, path: Path, threads: int):
    if lib == "tuetoken":
        return TuetokenAdapter(path, threads)
    if lib == "hf1":
        return HF1Adapter(path, threads)
    from adapters import ADAPTERS  # bench/adapters.py; imports snaptok

    return ADAPTERS[lib](str(path), threads, threads, False)


# --------------------------------------------------------------------------
# Worker: one library, one pass, one JSON line on stdout.


def first_line(e: BaseException) -> str:
    text = (str(e).strip().splitlines() or [type(e).__name__])[0]
    return text[:120] + ("..." if len(text) > 120 else "")


def version(adapter) -> str | None:
    """The imported module's own version, else its distribution's."""
    from importlib.metadata import PackageNotFoundError, version as dist_version

    try:
        return getattr(adapter.module, "__version__", None) or dist_version(adapter.import_name)
    except PackageNotFoundError:
        return None


def corpus_pass(args, budget_mib) -> dict:
    docs, sizes, _ = read_documents(args.corpus, args.mb)
    adapter = make_adapter(args.worker, args.tokenizer, args.threads)
    importlib.import_module(adapter.import_name)  # the import is not load time
    t0 = time.perf_counter()
    adapter.load()
    load_s = time.perf_counter() - t0
    if budget_mib is not None:
        adapter.tok.set_cache_budget(budget_mib << 20)
    import numpy as np

    digest, tokens, encode_s, cpu_s = hashlib.blake2b(digest_size=16), 0, 0.0, 0.0
    parts = batches(sizes, int(args.batch_mb * 1e6))
    gc.collect()
    gc.disable()
    for first, last in parts:
        chunk = docs[first:last]
        c0, t0 = time.process_time(), time.perf_counter()
        result = adapter.batch(chunk)
        encode_s += time.perf_counter() - t0
        cpu_s += time.process_time() - c0
        for ids in adapter.batch_ids(result):
            a = np.ascontiguousarray(ids, dtype="<u4")
            digest.update(a.size.to_bytes(8, "little"))
            digest.update(a.tobytes())
            tokens += int(a.size)
        del chunk, result
        gc.collect()
    return {"ok": True, "version": version(adapter), "bytes": sum(sizes),
            "docs": len(docs), "batches": len(parts), "tokens": tokens, "encode_s": encode_s, "cpu_s": cpu_s,
            "load_ms": load_s * 1e3, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "digest": digest.hexdigest()}


def worker_main(args, budget_mib) -> int:
    os.environ.update(thread_env(args.threads))  # before any library (or NumPy) is imported
    pin_to_cores(args.threads)
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # what a library prints goes to stderr, not into the reply
    sys.stdout = sys.stderr
    try:
        reply = corpus_pass(args, budget_mib)
    except ImportError as e:
        reply = {"ok": False, "error": f"n/a (not installed: {e.name or first_line(e)})"}
    except Exception as e:  # cannot load this tokenizer, or failed to encode
        reply = {"ok": False, "error": f"n/a ({first_line(e)})"}
    proto.write(json.dumps(reply) + "\n")
    proto.close()
    return 0


# --------------------------------------------------------------------------
# Parent: round-robin over fresh workers, then the table.


def run_worker(lib: str, budget, args) -> dict:
    """One pass of `lib` in a fresh process: its JSON reply, or why there is none."""
    python = sys.executable
    if lib == "hf1":
        if not args.hf1_python or not Path(args.hf1_python).exists():
            return {"ok": False, "error": "n/a (no --hf1-python interpreter)"}
        python = str(args.hf1_python)
    cmd = [python, str(Path(__file__).resolve()), "--worker", lib, "--tokenizer", str(args.tokenizer),
           "--corpus", str(args.corpus), "--mb", str(args.mb), "--batch-mb", str(args.batch_mb),
           "--threads", str(args.threads), "--budget-mib", "default" if budget is None else str(budget)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"n/a (no result in {args.timeout:g} s)"}
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        tail = (done.stderr.strip().splitlines() or [""])[-1][:160]
        return {"ok": False, "error": f"n/a (worker died, exit {done.returncode}: {tail})"}


def summarize(rows, runs) -> list[dict]:
    """One entry per shown row: median MB/s, min..max, load, peak RSS, ids vs HF's."""
    ref = next((r["digest"] for row in rows if row[1] == "hf" for r in runs[row] if r["ok"]), None)
    table = []
    for row in rows:
        label, lib, _, shown = row
        ok = [r for r in runs[row] if r["ok"]]
        if not shown:
            continue
        if not ok:
            table.append({"label": label, "lib": lib, "error": runs[row][0]["error"]})
            continue
        rates = [r["bytes"] / r["encode_s"] / 1e6 for r in ok]
        same = {r["digest"] for r in ok} == {ref}  # every run, not just one
        table.append({"label": label, "lib": lib, "mbps": statistics.median(rates), "min": min(rates),
                      "max": max(rates), "load_ms": statistics.median(r["load_ms"] for r in ok),
                      "peak_rss_mb": max(r["peak_rss_mb"] for r in ok),
                      "cpu": statistics.median(r["cpu_s"] / r["encode_s"] for r in ok),
                      "check": "unverified (no HF ids)" if ref is None else "MISMATCH" if not same
                      else "ref" if lib == "hf" else "ok",
                      "version": ok[0]["version"], "failed_runs": len(runs[row]) - len(ok)})
    return table


def fmt(x, digits=1) -> str:
    return f"{x:,.{digits}f}"


def print_table(table, header, runs: int) -> None:
    base = next((t["mbps"] for t in table if t["lib"] == "snaptok" and "mbps" in t), None)
    fastest_peer = max((t["mbps"] for t in table if t["lib"] != "snaptok" and t.get("check") in ("ok", "ref")),
                       default=None)
    out = sys.stdout
    for h in header:
        out.write(f"<!-- {h} -->\n")
    out.write("| library | MB/s | vs snaptok | vs fastest peer | load ms | peak RSS MB | digest |\n")
    out.write("|---|---:|---:|---:|---:|---:|---|\n")
    for t in table:
        if "error" in t:
            out.write(f"| {t['label']} | {t['error']} | | | | | |\n")
            continue
        rate = fmt(t["mbps"]) + (f" ({fmt(t['min'])}..{fmt(t['max'])})" if runs > 1 else "")
        vs = f"{t['mbps'] / base:.2f}x" if base else ""
        vs_peer = f"{t['mbps'] / fastest_peer:.2f}x" if t["lib"] == "snaptok" and fastest_peer else ""
        failed = f", {t['failed_runs']} run(s) failed" if t["failed_runs"] else ""
        out.write(f"| {t['label']} | {rate} | {vs} | {vs_peer} | {fmt(t['load_ms'])} | "
                  f"{fmt(t['peak_rss_mb'], 0)} | {t['check']}{failed} |\n")
    out.write("\nMB/s: UTF-8 bytes / seconds in encode calls. vs snaptok: speed ratio to the first snaptok row "
              "(>1 is faster); vs fastest peer: snaptok's to the fastest other library with equal ids. "
              "peak RSS: the worker's ru_maxrss (largest over runs). digest: all ids vs HF tokenizers'.\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tokenizer", type=Path, default=default_tokenizer(),
                   help="tokenizer.json (default: the shared gpt2, else the bundled one)")
    p.add_argument("--corpus", type=Path, default=default_corpus(),
                   help="text file, .jsonl/.json file or directory of *.txt (default: the shared English corpus)")
    p.add_argument("--mb", type=float, default=48.0, help="MB of text encoded (default 48)")
    p.add_argument("--batch-mb", type=float, default=16.0, help="MB per encode call (default 16)")
    p.add_argument("--threads", type=int, default=1, help="threads (and cores) per library (default 1)")
    p.add_argument("--runs", type=int, default=3, help="fresh processes per library; median reported (default 3)")
    p.add_argument("--only", default=None, help=f"comma-separated among {','.join(LIBS)}")
    p.add_argument("--budget-mib", default="default",
                   help="snaptok's cache budget(s) in MiB, comma-separated; 'default' leaves it (default)")
    p.add_argument("--hf1-python", type=Path, default=Path("/tmp/hf1/bin/python"),
                   help="interpreter with HF tokenizers 1.0 installed, for hf1 (default /tmp/hf1/bin/python)")
    p.add_argument("--timeout", type=float, default=600, help="seconds a worker may take (default 600)")
    p.add_argument("--json", type=Path, default=None, help="also write every run's raw result to this file")
    p.add_argument("--worker", choices=LIBS, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    try:
        budgets = [None if b.strip() == "default" else int(b) for b in args.budget_mib.split(",")]
    except ValueError:
        p.error(f"--budget-mib: {args.budget_mib!r} is not MiB numbers or 'default'")
    if args.worker:
        return worker_main(args, budgets[0])

    libs = LIBS if not args.only else [x.strip() for x in args.only.split(",") if x.strip()]
    for lib in libs:
        if lib not in LIBS:
            p.error(f"--only: unknown library {lib!r} (choose from {', '.join(LIBS)})")
    if not args.tokenizer.is_file():
        p.error(f"tokenizer {args.tokenizer} not found")
    if args.corpus is None or not args.corpus.exists():
        p.error(f"corpus {args.corpus} not found (give --corpus)")
    # Rows: (label, library, snaptok's budget, shown); snaptok once per budget;
    # HF once, not shown, when it is not asked for: its ids are the reference.
    rows = [(LABEL[lib] + ("" if lib != "snaptok" or len(budgets) == 1 else
                           " (default)" if b is None else f" ({b} MiB)"), lib, b, True)
            for lib in libs for b in (budgets if lib == "snaptok" else [None])]
    if "hf" not in libs:
        rows.append(("HF tokenizers (reference)", "hf", None, False))

    _, sizes, corpus_desc = read_documents(args.corpus, args.mb)
    n_batches = len(batches(sizes, int(args.batch_mb * 1e6)))
    log = sys.stderr
    print(f"corpus_pass: {corpus_desc}: {len(sizes)} docs, {sum(sizes) / 1e6:.1f} MB, {n_batches} batches; "
          f"tokenizer {args.tokenizer}", file=log)
    runs = {row: [] for row in rows}
    for rep in range(args.runs):
        timed = [row for row in rows if row[3] or rep == 0]
        k = rep % len(timed)
        for row in timed[k:] + timed[:k]:
            r = run_worker(row[1], row[2], args)
            runs[row].append(r)
            got = f"{r['bytes'] / r['encode_s'] / 1e6:.1f} MB/s" if r["ok"] else r["error"]
            print(f"corpus_pass: run {rep + 1}/{args.runs} {row[0]}: {got}", file=log)

    table = summarize(rows, runs)
    versions = {LABEL[t["lib"]]: t["version"] for t in table if t.get("version")}
    header = [f"machine: {cpu_name()}, {len(os.sched_getaffinity(0))} cores; "
              f"Python {platform.python_version()}; {args.threads} thread(s) per library",
              f"tokenizer: {args.tokenizer}",
              f"text: {corpus_desc}; {len(sizes)} docs, {sum(sizes) / 1e6:.1f} MB in {n_batches} batches "
              f"of ~{args.batch_mb:g} MB, each document encoded once",
              f"runs: {args.runs} fresh processes per library, round-robin; median MB/s (min..max)",
              "versions: " + ", ".join(f"{k} {v}" for k, v in versions.items())]
    cpus = [t["cpu"] for t in table if "cpu" in t]
    if cpus and statistics.median(cpus) < 0.8 * args.threads:
        header.append(f"WARNING: busy machine: encode calls got a median {statistics.median(cpus):.2f} "
                      f"cores of {args.threads}; trust ratios more than MB/s")
    print_table(table, header, args.runs)
    if args.json:
        args.json.write_text(json.dumps({"header": header, "table": table, "runs": [
            {"label": row[0], "lib": row[1], "budget_mib": row[2], "results": runs[row]} for row in rows]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
