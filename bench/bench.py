#!/usr/bin/env python3
"""Encode throughput of snaptok and its peers, measured side by side.

Libraries: snaptok, Hugging Face ``tokenizers`` (the reference), and, when
installed, ``tiktoken``, ``gigatoken``, ``snaptokens`` and ``fastokens``, all on the same
tokenizer.json and the same text.

Scenarios:
  batch   documents of about 8 KB encoded as one batch, 1 thread and all threads
  short   (only when asked for) the batch's text as documents of about 256
          bytes (sentences, chat messages), one batch, 1 thread and all threads
  single  140-byte requests encoded one at a time (MB/s and µs per request)
  large   one large document (8 MB by default), 1 thread and all threads
  load    tokenizer load time from tokenizer.json (ms)
  encodings  (only when asked for) the batch as full Encodings (HF
          encode_batch: ids, tokens, char offsets), each document's ids and
          offsets read into Python lists as a caller would; libraries that
          give ids only are reported n/a
  fresh   (only when asked for) a batch of text the library has not seen:
          the --fresh-mb after the batch's text, a new set per timed run,
          each encoded once. A batch timed over and over measures how much of
          it a library's cache keeps; a corpus does not repeat.

Every library/thread setting runs in its own worker process, started with the
thread environment set before any import (RAYON_NUM_THREADS,
TOKENIZERS_PARALLELISM, ...) and also given the thread count through its API,
so a 1-thread run really is one thread; the CPU column (process CPU time /
wall time) shows how many cores each run kept busy. The first run of each
scenario in each worker is a warm-up whose ids are compared with HF
``tokenizers``' ids; a library whose ids differ is reported as MISMATCH with
no number. Timed runs are interleaved round-robin across workers (the order
rotates every repetition) and the median of --repeat runs is reported; a
run repeats the scenario until --min-time has passed and reports the mean.

Usage:
  python bench/bench.py                       # gpt2, English corpus, ~2-3 min on 2 cores
  python bench/bench.py --tokenizer path/to/tokenizer.json --mb 16 --repeat 5
  python bench/bench.py --only snaptok,hf --scenarios batch,large --markdown
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from machine import cpu_name

from adapters import ADAPTERS, Unsupported  # noqa: E402 (bench/adapters.py, beside this file)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared" / "data"

LIBS = ["snaptok", "snaptok-st", "hf", "tiktoken", "gigatoken", "snaptokens", "fastokens"]
LABEL = {
    "snaptok": "snaptok",
    "snaptok-st": "snaptok (.st)",
    "hf": "HF tokenizers",
    "tiktoken": "tiktoken",
    "gigatoken": "gigatoken",
    "snaptokens": "snaptokens",
    "fastokens": "fastokens",
}
DIST = {"snaptok": "snaptok", "snaptok-st": "snaptok", "hf": "tokenizers", "tiktoken": "tiktoken",
        "gigatoken": "gigatoken", "snaptokens": "snaptokens", "fastokens": "fastokens"}
SCENARIOS = ["batch", "short", "encodings", "single", "large", "load", "import", "fresh"]
# The scenarios a plain run measures ("fresh" needs more text, "short" more
# time: ask for them).
DEFAULT_SCENARIOS = ["batch", "single", "large", "load"]
# Scenarios that run in the all-threads workers too (the rest run with 1 thread).
THREADED = {"batch", "short", "encodings", "large", "fresh"}
# Scenarios timed in ms, with no ids to compare.
STARTUP = {"load", "import"}
# Fresh interpreters per timed import run (the median is reported).
IMPORT_RUNS = 7

DOC_BYTES = 8 * 1024
SHORT_DOC_BYTES = 256
REQUEST_BYTES = 140



# --------------------------------------------------------------------------
# Defaults.


def default_tokenizer() -> Path:
    bundled = REPO / "python" / "snaptok" / "data" / "gpt2" / "tokenizer.json"
    if bundled.is_file():
        return bundled
    return SHARED / "tokenizers" / "gpt2" / "tokenizer.json"


def default_corpus() -> Path:
    english = SHARED / "corpus" / "en"
    if english.is_dir() and any(english.glob("*.txt")):
        return english
    return REPO / "python" / "snaptok" / "data" / "sample.txt"


# --------------------------------------------------------------------------
# Benchmark text.


def _char_boundary(data: bytes, i: int) -> int:
    """Returns the largest index <= i that does not split a UTF-8 sequence."""
    i = min(i, len(data))
    while 0 < i < len(data) and (data[i] & 0xC0) == 0x80:
        i -= 1
    return i


def _cut_near(data: bytes, start: int, size: int) -> int:
    """Returns an end near start+size: just after a newline, else after a space,
    else at a character boundary."""
    target = start + size
    if target >= len(data):
        return len(data)
    window = min(max(64, size // 8), 1 << 16)
    for sep in (b"\n", b" "):
        after = data.find(sep, target, target + window)
        if after >= 0:
            return after + 1
        before = data.rfind(sep, max(start + 1, target - window), target)
        if before >= 0:
            return before + 1
    return max(start + 1, _char_boundary(data, target))


def read_corpus(corpus: Path, want_bytes: int) -> tuple[bytes, str]:
    """Returns (text, description): want_bytes of UTF-8 text, whole lines.

    A directory contributes an equal share of every *.txt file in it (sorted by
    name; a file too short for its share gives all it has, the others make
    up the rest); text shorter than want_bytes is repeated (and said so).
    """
    if corpus.is_dir():
        files = sorted(p for p in corpus.glob("*.txt") if p.is_file())
        if not files:
            raise SystemExit(f"bench: no *.txt files in {corpus}")
    elif corpus.is_file():
        files = [corpus]
    else:
        raise SystemExit(f"bench: corpus {corpus} does not exist")
    contents = {f: f.read_bytes() for f in files}
    for data in contents.values():
        data.decode("utf-8")  # refuse invalid UTF-8 up front
    # Equal shares; what a short file cannot give, the longer ones share.
    shares, left = {}, want_bytes
    for k, f in enumerate(sorted(files, key=lambda f: len(contents[f]))):
        share = -(-left // (len(files) - k))
        shares[f] = min(share, len(contents[f]))
        left -= shares[f]
    parts = []
    for f in files:
        data, share = contents[f], shares[f]
        end = _cut_near(data, 0, share) if len(data) > share else len(data)
        part = data[:end]
        if part and not part.endswith(b"\n"):
            part += b"\n"
        parts.append(part)
    text = b"".join(parts)
    desc = f"{corpus}" + (f" ({len(files)} files)" if len(files) > 1 else "")
    if len(text) < want_bytes:
        reps = -(-want_bytes // max(1, len(text)))
        desc += f" repeated x{reps} (only {len(text) / 1e6:.2f} MB available)"
        text = text * reps
    end = _cut_near(text, 0, want_bytes)
    return text[:end], desc


def split_documents(data: bytes, size: int) -> list[str]:
    docs = []
    i = 0
    while i < len(data):
        j = _cut_near(data, i, size)
        docs.append(data[i:j].decode("utf-8"))
        i = j
    return docs


def split_requests(data: bytes, size: int, count: int) -> list[str]:
    out = []
    i = 0
    while len(out) < count and i < len(data):
        j = max(i + 1, _char_boundary(data, i + size))
        piece = data[i:j]
        i = j
        out.append(piece.decode("utf-8"))
    return out


def thread_env(threads: int) -> dict[str, str]:
    """Environment that caps every library's thread pools at `threads`."""
    n = str(threads)
    return {
        "RAYON_NUM_THREADS": n,
        "RAYON_RS_NUM_CPUS": n,
        "TOKENIZERS_PARALLELISM": "false" if threads == 1 else "true",
        "SNAPTOK_NUM_THREADS": n,
        "OMP_NUM_THREADS": n,
        # NumPy's BLAS, which no tokenizer uses: with more than one thread its
        # idle workers spin after import and take CPU from the timed run
        # (seen in perf as blas_thread_server on a 2-thread run).
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


# --------------------------------------------------------------------------
# Worker process: reads JSON commands on stdin, answers one JSON line each.


def _digest(ids) -> list:
    import numpy as np

    a = np.ascontiguousarray(np.asarray(ids, dtype=np.uint32))
    return [int(a.size), zlib.crc32(a.tobytes())]


def current_rss_mb() -> float:
    """Resident set size of this process now (Linux /proc; 0 elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def pin_to_cores(threads: int) -> None:
    """Keeps this process on `threads` cores, so that a library whose pool
    ignores the thread variables (fastokens uses 2 cores in a 1-thread run
    otherwise) is measured on the cores it was given, like the others."""
    if not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    if threads < len(cores):
        os.sched_setaffinity(0, set(cores[:threads]))


def worker_main(args) -> int:
    pin_to_cores(args.worker_threads)
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything a library prints goes to stderr, not into the protocol
    sys.stdout = sys.stderr

    def reply(**kw):
        proto.write(json.dumps(kw) + "\n")
        proto.flush()

    with open(args.worker_data, "rb") as f:
        data = pickle.load(f)
    adapter = ADAPTERS[args.worker](args.tokenizer, args.worker_threads, args.threads,
                                    args.special_tokens)

    fresh_used = 0  # fresh document sets encoded so far (each only once)

    def run(scenario):
        nonlocal fresh_used
        if scenario == "batch":
            return adapter.batch(data["docs"])
        if scenario == "short":
            return adapter.batch(data["short"])
        if scenario == "encodings":
            return adapter.encodings(data["docs"])
        if scenario == "fresh":
            if fresh_used == len(data["fresh"]):
                raise ValueError("fresh: every document set was used")
            fresh_used += 1
            return adapter.batch(data["fresh"][fresh_used - 1])
        if scenario == "large":
            return adapter.large(data["large"])
        if scenario == "single":
            f = adapter.single
            return [f(t) for t in data["requests"]]
        if scenario == "load":
            return adapter.open()
        if scenario == "import":
            return import_seconds()  # one fresh interpreter: warms the page cache
        raise ValueError(scenario)

    def time_load(min_time):
        # Each load is timed alone, so freeing the previous tokenizer is not counted.
        total = 0.0
        iters = 0
        while total < min_time and iters < 50:
            t0 = time.perf_counter()
            obj = adapter.open()
            total += time.perf_counter() - t0
            iters += 1
            del obj
        return total / iters, iters

    def import_seconds():
        # The module's own import in a fresh interpreter, as `python -X
        # importtime` reports it (cumulative: what it imports counts too;
        # the interpreter's start does not).
        name = adapter.import_name
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {name}"],
                              capture_output=True, text=True, check=True)
        for row in done.stderr.splitlines():
            fields = row.split("|")
            # "import time: self | cumulative | name"; a nested import's name
            # is indented further.
            if len(fields) == 3 and fields[2] == f" {name}":
                return int(fields[1]) / 1e6
        raise ValueError(f"import {name}: no -X importtime line for it")

    def time_startup(scenario, min_time):
        # (seconds, runs) of one load or import: the mean of the loads that
        # fill min_time, or the median of IMPORT_RUNS fresh imports.
        if scenario == "load":
            return time_load(min_time)
        return statistics.median(import_seconds() for _ in range(IMPORT_RUNS)), IMPORT_RUNS

    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd["op"]
        try:
            if op == "quit":
                reply(ok=True)
                return 0
            if op == "setup":
                try:
                    adapter.load()
                except (Unsupported, ImportError):
                    raise
                except Exception as e:  # the library cannot load this tokenizer.json
                    msg = str(e).splitlines()[0] if str(e) else type(e).__name__
                    raise Unsupported(msg[:120] + ("..." if len(msg) > 120 else "")) from e
                # The imported module's own version first: an installed
                # distribution of the same name may not be what was imported.
                version = getattr(adapter.module, "__version__", None)
                if not version:
                    try:
                        from importlib.metadata import version as dist_version

                        version = dist_version(DIST[args.worker])
                    except Exception:
                        version = None
                reply(ok=True, version=version, note=adapter.note, rss_mb=current_rss_mb())
            elif op == "memory":
                # The kernel's high-water mark of this process: what
                # /usr/bin/time -v reports as "Maximum resident set size".
                reply(ok=True, peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
            elif op == "check":
                scenario = cmd["scenario"]
                result = run(scenario)
                if scenario in ("batch", "short", "fresh"):
                    digests = [_digest(x) for x in adapter.batch_ids(result)]
                elif scenario == "encodings":  # ids and offsets, both compared with HF's
                    digests = [_digest(list(e.ids) + [x for o in e.offsets for x in o]) for e in result]
                elif scenario == "large":
                    digests = [_digest(adapter.large_ids(result))]
                elif scenario == "single":
                    digests = [_digest(x) for x in result]
                else:
                    digests = []
                reply(ok=True, digests=digests)
            elif op == "time":
                scenario = cmd["scenario"]
                min_time = cmd["min_time"]
                iters = 0
                gc_was = gc.isenabled()
                gc.collect()
                gc.disable()
                try:
                    if scenario in STARTUP:
                        wall, iters = time_startup(scenario, min_time)
                        reply(ok=True, wall=wall, cpu=wall, iters=iters)
                        continue
                    c0, t0 = time.process_time(), time.perf_counter()
                    if scenario == "fresh":  # one pass: a second would not be fresh
                        min_time = 0.0
                    while True:
                        run(scenario)
                        iters += 1
                        elapsed = time.perf_counter() - t0
                        if elapsed >= min_time:
                            break
                    cpu = time.process_time() - c0
                finally:
                    if gc_was:
                        gc.enable()
                reply(ok=True, wall=elapsed / iters, cpu=cpu / iters, iters=iters)
            else:
                reply(ok=False, error=f"unknown op {op}")
        except Unsupported as e:
            reply(ok=False, error=f"n/a ({e})", unsupported=True)
        except ImportError as e:
            reply(ok=False, error=f"n/a (not installed: {e.name or e})", unsupported=True)
        except Exception as e:
            reply(ok=False, error=f"{type(e).__name__}: {e}".splitlines()[0][:200])
    return 0


class Worker:
    def __init__(self, lib, threads, args, data_path, stderr_dir):
        self.lib = lib
        self.threads = threads
        self.failed = None  # reason it gives no numbers
        self.loaded_mb = None  # RSS after loading the data and the tokenizer
        self.version = None
        self.note = ""
        self.stderr_path = Path(stderr_dir) / f"{lib}-{threads}.log"
        env = {**os.environ, **thread_env(threads)}
        if args.pythonpath:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [args.pythonpath, env.get("PYTHONPATH")]))
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", lib,
               "--worker-threads", str(threads), "--worker-data", str(data_path),
               "--tokenizer", str(args.tokenizer), "--threads", str(args.threads)]
        if args.special_tokens:
            cmd.append("--special-tokens")
        self.err = open(self.stderr_path, "w")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, text=True, env=env, bufsize=1)

    def ask(self, **cmd) -> dict:
        try:
            self.proc.stdin.write(json.dumps(cmd) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            self.proc.wait()
            tail = self.stderr_path.read_text(errors="replace").strip().splitlines()[-1:] or [""]
            return {"ok": False, "error": f"worker died (exit {self.proc.returncode}) {tail[0][:160]}"}
        return json.loads(line)

    def close(self):
        if self.proc.poll() is None:
            try:
                self.ask(op="quit")
            except Exception:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.err.close()


# --------------------------------------------------------------------------
# Parent: prepare data, run workers, report.


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def fmt_rate(x):
    if x is None:
        return ""
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}" if x >= 10 else f"{x:,.2f}"


def fmt_ratio(x):
    if x is None:
        return ""
    return f"{x:,.0f}x" if x >= 100 else f"{x:,.1f}x" if x >= 10 else f"{x:.2f}x"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tokenizer", type=Path, default=None,
                   help="tokenizer.json (default: the bundled gpt2)")
    p.add_argument("--corpus", type=Path, default=None,
                   help="text file, or a directory of *.txt (equal share of each); "
                   "default: the shared English corpus, else the bundled sample")
    p.add_argument("--mb", type=float, default=4.0, help="MB of text for the batch scenario (default 4)")
    p.add_argument("--large-mb", type=float, default=None,
                   help="size of the large document in MB (default: --mb)")
    p.add_argument("--requests", type=int, default=4000, help="number of 140-byte requests (default 4000)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per measurement; median reported (default 3)")
    p.add_argument("--min-time", type=float, default=0.2,
                   help="a timed run repeats its scenario for at least this many seconds (default 0.2)")
    p.add_argument("--threads", type=int, default=0, help="the 'all threads' setting (default: all available cores)")
    p.add_argument("--only", default=None, help=f"comma-separated libraries among {','.join(LIBS)}")
    p.add_argument("--scenarios", default=",".join(DEFAULT_SCENARIOS),
                   help="comma-separated among " + ",".join(SCENARIOS) + " (default: all but fresh)")
    p.add_argument("--fresh-mb", type=float, default=1.0,
                   help="MB per document set of the fresh scenario (default 1): text after the batch's, "
                   "one set for the warm-up and one per timed run, each encoded once")
    p.add_argument("--special-tokens", action="store_true",
                   help="encode with add_special_tokens=True (default False: raw encoding)")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown (README-ready)")
    p.add_argument("--json", type=Path, default=None, help="also write all results to this JSON file")
    p.add_argument("--pythonpath", default=None, help="prepended to PYTHONPATH of the workers (e.g. a build dir)")
    p.add_argument("--worker", choices=LIBS, help=argparse.SUPPRESS)
    p.add_argument("--worker-threads", type=int, help=argparse.SUPPRESS)
    p.add_argument("--worker-data", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.tokenizer is None:
        args.tokenizer = default_tokenizer()
    if args.threads <= 0:
        args.threads = available_cores()
    if args.worker:
        return worker_main(args)

    libs = LIBS if not args.only else [x.strip() for x in args.only.split(",") if x.strip()]
    for lib in libs:
        if lib not in LIBS:
            p.error(f"--only: unknown library {lib!r} (choose from {', '.join(LIBS)})")
    scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    for s in scenarios:
        if s not in SCENARIOS:
            p.error(f"--scenarios: unknown scenario {s!r} (choose from {', '.join(SCENARIOS)})")
    if not args.tokenizer.is_file():
        p.error(f"tokenizer {args.tokenizer} not found")
    corpus = args.corpus or default_corpus()
    large_mb = args.large_mb if args.large_mb is not None else args.mb
    fresh_sets = args.repeat + 1 if "fresh" in scenarios else 0
    want = int(max(args.mb + fresh_sets * args.fresh_mb, large_mb, args.requests * REQUEST_BYTES / 1e6) * 1e6)
    text, corpus_desc = read_corpus(corpus, want)
    if fresh_sets and "repeated" in corpus_desc:
        p.error(f"--scenarios fresh: the corpus has less than the {want / 1e6:.1f} MB it needs "
                "(--mb + (--repeat + 1) x --fresh-mb): fresh text would repeat")
    fresh = []
    at = _cut_near(text, 0, int(args.mb * 1e6))
    for _ in range(fresh_sets):
        end = _cut_near(text, at, int(args.fresh_mb * 1e6))
        fresh.append(split_documents(text[at:end], DOC_BYTES))
        at = end
    docs = split_documents(text[: _cut_near(text, 0, int(args.mb * 1e6))], DOC_BYTES)
    short_docs = split_documents(text[: _cut_near(text, 0, int(args.mb * 1e6))], SHORT_DOC_BYTES)
    requests = split_requests(text, REQUEST_BYTES, args.requests)
    large = text[: _cut_near(text, 0, int(large_mb * 1e6))].decode("utf-8")
    sizes = {
        "batch": sum(len(d.encode("utf-8")) for d in docs),
        "short": sum(len(d.encode("utf-8")) for d in short_docs),
        "encodings": sum(len(d.encode("utf-8")) for d in docs),
        "single": sum(len(r.encode("utf-8")) for r in requests),
        "large": len(large.encode("utf-8")),
        "load": 0,
        "import": 0,
        "fresh": sum(len(d.encode("utf-8")) for d in fresh[1]) if len(fresh) > 1 else 0,
    }
    thread_settings = sorted({1, args.threads})

    log = sys.stderr
    print(f"bench: tokenizer {args.tokenizer}", file=log)
    print(f"bench: corpus {corpus_desc}: {len(docs)} docs / {sizes['batch'] / 1e6:.2f} MB, "
          f"{len(requests)} requests, large doc {sizes['large'] / 1e6:.2f} MB", file=log)

    # HF is the reference for the parity check even when it is not timed.
    spawn = list(libs) if "hf" in libs else ["hf"] + list(libs)
    results = []  # dicts: scenario, threads, lib, wall, cpu, status
    with tempfile.TemporaryDirectory(prefix="snaptok-bench-") as tmp:
        data_path = Path(tmp) / "data.pkl"
        with open(data_path, "wb") as f:
            pickle.dump({"docs": docs, "short": short_docs, "requests": requests, "large": large, "fresh": fresh}, f,
                        protocol=pickle.HIGHEST_PROTOCOL)
        workers = []
        try:
            for lib in spawn:
                for t in thread_settings:
                    workers.append(Worker(lib, t, args, data_path, tmp))
            for w in workers:
                r = w.ask(op="setup")
                if r["ok"]:
                    w.version, w.note = r.get("version"), r.get("note", "")
                    w.loaded_mb = r.get("rss_mb")
                else:
                    w.failed = r["error"]
                print(f"bench: {LABEL[w.lib]} ({w.threads} thr): "
                      f"{'ready' if not w.failed else w.failed}", file=log)

            def handles(w, s):
                return s in THREADED or w.threads == 1

            # Warm-up + parity: every worker runs each scenario once; ids vs HF's.
            reference = {}
            unverified = set()
            status = {}  # (worker, scenario) -> None (ok) or reason
            hf_ref = {s: next((w for w in workers if w.lib == "hf" and w.threads == 1 and not w.failed), None)
                      for s in scenarios}
            ordered = sorted(workers, key=lambda w: (w.lib != "hf", w.threads))
            for s in scenarios:
                for w in ordered:
                    if not handles(w, s):
                        continue
                    if w.failed:
                        status[(w, s)] = w.failed
                        continue
                    print(f"bench: warm-up + parity  {s:6s} {LABEL[w.lib]} ({w.threads} thr)", file=log)
                    r = w.ask(op="check", scenario=s)
                    if not r["ok"]:
                        status[(w, s)] = r["error"]
                        continue
                    if w is hf_ref[s]:
                        reference[s] = r["digests"]
                    ref = reference.get(s)
                    status[(w, s)] = None
                    if s in STARTUP:
                        continue
                    if ref is None:
                        unverified.add((w, s))  # timed, but flagged: no HF ids to compare
                        continue
                    bad = [i for i, (a, b) in enumerate(zip(r["digests"], ref)) if a != b]
                    if len(r["digests"]) != len(ref):
                        status[(w, s)] = f"MISMATCH ({len(r['digests'])} outputs, HF has {len(ref)})"
                    elif bad:
                        status[(w, s)] = f"MISMATCH ({len(bad)}/{len(ref)} differ, first #{bad[0]})"
                    else:
                        status[(w, s)] = None

            # Timed runs, interleaved round-robin; the order rotates each repetition.
            timed = [w for w in workers if w.lib in libs]
            samples = {}
            memory = {}  # worker -> peak RSS (MB) after every scenario ran
            t_start = time.perf_counter()
            for rep in range(args.repeat):
                k = rep % max(1, len(timed))
                order = timed[k:] + timed[:k]
                for s in scenarios:
                    for w in order:
                        if not handles(w, s) or status.get((w, s)) is not None:
                            continue
                        r = w.ask(op="time", scenario=s, min_time=args.min_time)
                        if not r["ok"]:
                            status[(w, s)] = r["error"]
                            continue
                        samples.setdefault((w, s), []).append((r["wall"], r["cpu"]))
                print(f"bench: repetition {rep + 1}/{args.repeat} done "
                      f"({time.perf_counter() - t_start:.0f} s)", file=log)
            for w in timed:
                if w.failed:
                    continue
                r = w.ask(op="memory")
                if r["ok"]:
                    memory[w] = r["peak_mb"]
        finally:
            for w in workers:
                w.close()

    for s in scenarios:
        for t in thread_settings:
            if s not in THREADED and t != 1:
                continue
            for w in workers:
                if w.lib not in libs or w.threads != t:
                    continue
                runs = samples.get((w, s), [])
                row = {"scenario": s, "threads": t, "lib": w.lib, "status": status.get((w, s))}
                if runs and row["status"] is None:
                    row["wall"] = statistics.median(x[0] for x in runs)
                    row["cpu_ratio"] = statistics.median(x[1] / x[0] for x in runs if x[0] > 0)
                    row["runs"] = [x[0] for x in runs]
                    if s in STARTUP:
                        row["ms"] = row["wall"] * 1e3
                    else:
                        row["mbps"] = sizes[s] / row["wall"] / 1e6
                    if s == "single":
                        row["us_per_request"] = row["wall"] / len(requests) * 1e6
                    if (w, s) in unverified:
                        row["status"] = "unverified: no HF reference"
                elif row["status"] is None:
                    row["status"] = "no result"
                results.append(row)

    # Peak memory of each worker process over everything it ran.
    for w in workers:
        if w.lib in libs and w in memory:
            results.append({"scenario": "memory", "threads": w.threads, "lib": w.lib, "status": None,
                            "peak_mb": memory[w], "loaded_mb": w.loaded_mb})

    # Ratios vs HF and vs snaptok in the same scenario and thread setting.
    def speed(row):
        if "mbps" in row:
            return row["mbps"]
        if "ms" in row:
            return 1.0 / row["ms"]
        if "peak_mb" in row:
            return 1.0 / row["peak_mb"]  # less memory counts as "faster"
        return None

    for row in results:
        same = {r["lib"]: r for r in results if r["scenario"] == row["scenario"] and r["threads"] == row["threads"]}
        for base, key in (("hf", "vs_hf"), ("snaptok", "vs_snaptok")):
            a, b = speed(row), speed(same[base]) if base in same else None
            row[key] = a / b if a and b else None

    versions = {w.lib: w.version for w in workers if w.version}
    notes = {w.lib: w.note for w in workers if w.note}
    header = [
        f"machine: {cpu_name()}, {available_cores()} cores available; Python {platform.python_version()}",
        f"tokenizer: {args.tokenizer}",
        f"text: {corpus_desc}; batch {len(docs)} docs of ~{DOC_BYTES // 1024} KB = {sizes['batch'] / 1e6:.2f} MB"
        + (f" (short: {len(short_docs)} docs of ~{SHORT_DOC_BYTES} B)" if "short" in scenarios else "") + "; "
        f"{len(requests)} requests of {REQUEST_BYTES} B; large document {sizes['large'] / 1e6:.2f} MB",
        f"runs: median of {args.repeat} (each >= {args.min_time:g} s) after a warm-up, round-robin; "
        f"add_special_tokens={args.special_tokens}; 'all' = {args.threads} threads",
        "versions: " + ", ".join(f"{LABEL[k]} {v}" for k, v in versions.items() if k in libs),
    ]
    single_thread = [r["cpu_ratio"] for r in results
                     if r["threads"] == 1 and r["scenario"] not in STARTUP and "cpu_ratio" in r]
    if single_thread and statistics.median(single_thread) < 0.8:
        header.append(f"WARNING: the machine is busy: 1-thread runs got a median "
                      f"{statistics.median(single_thread):.2f} of a core; trust ratios more than MB/s")
    print_table(results, header, args.markdown, {k: v for k, v in notes.items() if k in libs})
    if args.json:
        args.json.write_text(json.dumps({"header": header, "results": results, "notes": notes}, indent=1))
    return 0


SCENARIO_TITLE = {
    "batch": "batch, ~8 KB docs",
    "short": f"batch, ~{SHORT_DOC_BYTES} B docs",
    "encodings": "batch as full Encodings (ids + offsets), ~8 KB docs",
    "single": "single 140 B requests",
    "large": "one large document",
    "load": "tokenizer load",
    "import": "import (fresh process)",
    "fresh": "batch of unseen text",
    "memory": "peak RSS",
}


def print_table(results, header, markdown, notes):
    cols = ["scenario", "threads", "library", "speed", "per item", "vs HF", "vs snaptok", "CPU", "note"]
    rows = []
    for r in results:
        threads = "1" if r["threads"] == 1 else f"all ({r['threads']})"
        if "mbps" in r:
            spd = f"{fmt_rate(r['mbps'])} MB/s"
        elif "ms" in r:
            spd = f"{r['ms']:,.1f} ms"
        elif "peak_mb" in r:
            spd = f"{r['peak_mb']:,.0f} MB"
        else:
            spd = "MISMATCH" if (r["status"] or "").startswith("MISMATCH") else "-"
        per = f"{r['us_per_request']:,.1f} µs/req" if "us_per_request" in r else ""
        if r.get("loaded_mb"):
            per = f"+{r['peak_mb'] - r['loaded_mb']:,.0f} MB run"
        cpu = f"{r['cpu_ratio']:.2f}" if "cpu_ratio" in r and r["scenario"] not in STARTUP | {"memory"} else ""
        rows.append([SCENARIO_TITLE[r["scenario"]], threads, LABEL[r["lib"]], spd, per,
                     fmt_ratio(r.get("vs_hf")), fmt_ratio(r.get("vs_snaptok")), cpu, r.get("status") or ""])
    out = sys.stdout
    if markdown:
        for h in header:
            out.write(f"<!-- {h} -->\n")
        out.write("| " + " | ".join(cols) + " |\n")
        out.write("|" + "|".join(["---", "---", "---", "---:", "---:", "---:", "---:", "---:", "---"]) + "|\n")
        for row in rows:
            out.write("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |\n")
        out.write("\nspeed: MB/s of UTF-8 input (load, import: ms). vs HF / vs snaptok: speed ratio in the same "
                  "scenario and thread setting (>1 is faster). CPU: process CPU time / wall time.\n\n")
        for lib, note in notes.items():
            out.write(f"- {LABEL[lib]}: {note}\n")
        return
    for h in header:
        out.write(h + "\n")
    out.write("\n")
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
    right = {3, 4, 5, 6, 7}

    def line(cells):
        return "  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(cells))

    out.write(line(cols).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    prev = None
    for row in rows:
        if prev is not None and row[0] != prev:
            out.write("\n")
        prev = row[0]
        out.write(line(row).rstrip() + "\n")
    out.write("\nspeed: MB/s of UTF-8 input (load, import: ms). vs HF / vs snaptok: speed ratio in the same scenario\n"
              "and thread setting (>1 is faster). CPU: process CPU time / wall time (cores kept busy).\n"
              "peak RSS: the worker process's maximum resident set size over all it ran (as /usr/bin/time -v\n"
              "reports it); '+N MB run' is that peak less the RSS right after loading data and tokenizer;\n"
              "vs ratios there are memory ratios (>1 uses less).\n")
    for lib, note in notes.items():
        out.write(f"  {LABEL[lib]}: {note}\n")


if __name__ == "__main__":
    sys.exit(main())
