#!/usr/bin/env python3
"""HF tokenizers 0.23.3 against HF tokenizers 1.0: where do their ids differ?

snaptok must equal the pinned `tokenizers` 0.23.3 (run_parity.py checks that),
so where 1.0 gives the same ids as 0.23.3 on the parity harness's tokenizers
and corpora, snaptok equals 1.0 too; where it does not, this script shows it.

The main process runs under the project's Python (tokenizers 0.23.3). For each
tokenizer it builds the documents of every corpus with run_parity.py's own
discovery and corpus functions, encodes every case (each document with
add_special_tokens on and off, every 4th also as a pair with the start of the
previous one: run_parity.corpus_cases) with 0.23.3, writes texts and ids to a
temporary file, and runs this script in worker mode under --hf1-python (an
interpreter with tokenizers 1.x), which loads the tokenizer with 1.0, encodes
the same cases and compares the ids element by element, answering in JSON.

Prints one line per tokenizer (cases compared, documents that differ and the
first difference, or "HF 1.0 refuses: <error>"), the details of each
mismatch, the refusals and totals. A refusal is 1.0 failing to load the
tokenizer, or raising a (non-panic) error on an input 0.23.3 encodes, such as
a Split pattern its regex backend lacks. Exit status: 0 when the ids agree
wherever 1.0 does not refuse (refusals are listed, not failures), 1 on any id
mismatch, on an input where only 1.0 panics or only 0.23.3 fails, or on a
worker that died; 2 when nothing matched the filters or --hf1-python is
missing.

builtin/long (1 MB strings) is left out unless --long is given.

Examples:
  nice -n 10 .venv/bin/python tests/parity/compare_hf1.py             # everything
  .venv/bin/python tests/parity/compare_hf1.py --tokenizers 'shared/gpt2' --corpus 'builtin/*'
  .venv/bin/python tests/parity/compare_hf1.py --no-shared --jobs 1 --fields ids,type_ids
  .venv/bin/python tests/parity/compare_hf1.py --max-docs-per-corpus 20 --json hf1.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_parity as rp  # noqa: E402  (stdlib only at import: the worker imports it too)

DEFAULT_HF1_PYTHON = "/tmp/hf1/bin/python"
FIELDS = ("ids", "type_ids", "attention_mask")  # what a 1.0 Encoding has

# ------------------------------------------------- encoding (both versions)


def _is_v0(tokenizers_module):
    return tokenizers_module.__version__.startswith("0.")


def encode_cases(tok, docs, cases, fields, batch, v0):
    """Encodes cases [(doc index, pair text or None, add_special_tokens)] and
    returns, per case, {field: list} or {"error": "Type: message"}. batch:
    through encode_batch, one call per (add_special_tokens, pair or not)
    group; a group that raises is redone input by input."""
    def values(enc):
        return {f: list(getattr(enc, f)) for f in fields}

    def one(i, pair, add):
        try:
            if v0:
                enc = tok.encode(docs[i], pair, add_special_tokens=add)
            else:
                enc = tok.encode(docs[i] if pair is None else (docs[i], pair),
                                 add_special_tokens=add)
            return values(enc)
        except BaseException as e:  # noqa: BLE001 (HF panics are BaseException)
            if isinstance(e, KeyboardInterrupt):
                raise
            return {"error": f"{type(e).__name__}: {e}"[:300]}

    out = [None] * len(cases)
    if not batch:
        for k, (i, pair, add) in enumerate(cases):
            out[k] = one(i, pair, add)
        return out
    groups = {}
    for k, (i, pair, add) in enumerate(cases):
        groups.setdefault((add, pair is not None), []).append(k)
    for (add, _), ks in groups.items():
        inputs = [docs[cases[k][0]] if cases[k][1] is None
                  else (docs[cases[k][0]], cases[k][1]) for k in ks]
        try:
            encs = tok.encode_batch(inputs, add_special_tokens=add)
            for k, enc in zip(ks, encs):
                out[k] = values(enc)
        except BaseException as e:  # noqa: BLE001
            if isinstance(e, KeyboardInterrupt):
                raise
            for k in ks:
                out[k] = one(*cases[k])
    return out


# ------------------------------------------------------ worker (HF 1.x side)


def compare_values(expected, got, fields):
    """None when equal, else (field, index, expected value, got value)."""
    if "error" in expected or "error" in got:
        if "error" in expected and "error" in got:
            return None  # both versions refuse the input: they agree
        return ("error", 0, expected.get("error", "ok"), got.get("error", "ok"))
    for f in fields:
        a, b = expected[f], got[f]
        if a == b:
            continue
        i = rp.first_difference(a, b)
        return (f, i, a[i] if i < len(a) else "<end>", b[i] if i < len(b) else "<end>")
    return None


def is_panic(error):
    return error.startswith("PanicException")


def worker(in_path, out_path):
    """Loads the tokenizer with this interpreter's `tokenizers` (1.x), encodes
    every case and compares with the 0.23.3 values; writes JSON to out_path."""
    import tokenizers
    job = json.loads(Path(in_path).read_text(encoding="utf-8"))
    res = {"version": tokenizers.__version__, "corpora": []}
    t0 = time.perf_counter()
    try:
        tok = tokenizers.Tokenizer.from_file(job["path"])
    except BaseException as e:  # noqa: BLE001
        res["refused"] = f"{type(e).__name__}: {e}"
        Path(out_path).write_text(json.dumps(res))
        return 0
    fields, v0 = job["fields"], _is_v0(tokenizers)
    for c in job["corpora"]:
        cases = [tuple(x) for x in c["cases"]]
        got = encode_cases(tok, c["docs"], cases, fields, job["batch"], v0)
        cr = {"name": c["name"], "docs": len(c["docs"]), "cases": len(cases),
              "mismatched_docs": [], "mismatched_cases": 0, "both_refuse": 0,
              "refused_cases": 0, "refusal": None, "first": None}
        bad_docs = set()
        for k, (exp, g) in enumerate(zip(c["expected"], got)):
            if "error" in exp and "error" in g:
                cr["both_refuse"] += 1
            d = compare_values(exp, g, fields)
            if d is None:
                continue
            if "error" in g and "error" not in exp and not is_panic(g["error"]):
                # 1.0 declines the input with an error (e.g. a Split pattern
                # its regex backend lacks): a refusal, not an id mismatch.
                cr["refused_cases"] += 1
                cr["refusal"] = cr["refusal"] or g["error"]
                continue
            cr["mismatched_cases"] += 1
            bad_docs.add(cases[k][0])
            if cr["first"] is None:
                f, idx, a, b = d
                ids_a = exp.get("ids", [])
                ids_b = g.get("ids", [])
                lo = max(0, idx - 3)
                cr["first"] = {"case": k, "field": f, "index": idx, "hf0": a, "hf1": b,
                               "hf0_ids_near": ids_a[lo:idx + 4],
                               "hf1_ids_near": ids_b[lo:idx + 4],
                               "hf0_len": len(ids_a), "hf1_len": len(ids_b)}
        cr["mismatched_docs"] = sorted(bad_docs)
        res["corpora"].append(cr)
    res["seconds"] = time.perf_counter() - t0
    Path(out_path).write_text(json.dumps(res))
    return 0


# ------------------------------------------------- main side (HF 0.23.3)

_FILE_DOCS = {}  # corpus file -> documents, per process (same opts throughout)


def documents(corpus, hf, opts):
    if corpus.startswith("builtin/"):
        return rp.corpus_documents(corpus, hf, opts)
    if corpus not in _FILE_DOCS:
        _FILE_DOCS[corpus] = rp.corpus_documents(corpus, hf, opts)
    return _FILE_DOCS[corpus]


def snippet(hf, doc, pair, add, index, width=30):
    """The text around token `index` of 0.23.3's encoding of the case."""
    try:
        enc = hf.encode(doc, pair, add_special_tokens=add)
        if index >= len(enc.ids):
            return None
        seq = enc.token_to_sequence(index)
        text = pair if seq == 1 else doc
        s, e = enc.offsets[index]
        return {"token": enc.tokens[index], "offsets": [s, e], "sequence": seq,
                "text": text[max(0, s - width):e + width],
                "token_text": text[s:e]}
    except BaseException:  # noqa: BLE001
        return None


def run_tokenizer(spec, corpora, opts, cfg):
    """One tokenizer: 0.23.3 values here, the 1.0 comparison in a worker
    process under cfg["hf1_python"]. Returns a result dict."""
    from tokenizers import Tokenizer
    t0 = time.perf_counter()
    res = {"tokenizer": spec.name, "path": spec.path, "status": None, "corpora": [],
           "error": None, "seconds": 0.0, "hf0_seconds": 0.0, "hf1_seconds": 0.0}
    try:
        hf = Tokenizer.from_file(spec.path)
    except BaseException as e:  # noqa: BLE001
        res["status"], res["error"] = "HF0-REFUSES", f"{type(e).__name__}: {e}"[:300]
        return res
    job = {"path": spec.path, "fields": cfg["fields"], "batch": cfg["batch"], "corpora": []}
    for corpus in corpora:
        docs = documents(corpus, hf, opts)
        cases = [(i, pair, add) for i, _, pair, add in rp.corpus_cases(corpus, docs, opts)]
        expected = encode_cases(hf, docs, cases, cfg["fields"], cfg["batch"], True)
        job["corpora"].append({"name": corpus, "docs": docs, "cases": cases,
                               "expected": expected})
    res["hf0_seconds"] = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="compare_hf1_") as tmp:
        in_path, out_path = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.json")
        Path(in_path).write_text(json.dumps(job), encoding="utf-8")
        t1 = time.perf_counter()
        try:
            p = subprocess.run([cfg["hf1_python"], os.path.abspath(__file__),
                                "--worker", in_path, out_path],
                               capture_output=True, text=True, timeout=cfg["timeout"])
            out = json.loads(Path(out_path).read_text()) if p.returncode == 0 else None
            if out is None:
                tail = (p.stderr or p.stdout or "").strip().splitlines()[-3:]
                res["error"] = f"worker exit {p.returncode}: " + " | ".join(tail)[:400]
        except subprocess.TimeoutExpired:
            out, res["error"] = None, f"worker timed out after {cfg['timeout']}s"
        except (OSError, ValueError) as e:
            out, res["error"] = None, f"worker failed: {type(e).__name__}: {e}"[:400]
        res["hf1_seconds"] = time.perf_counter() - t1
    if out is None:
        res["status"] = "WORKER-FAIL"
    elif "refused" in out:
        res["status"], res["error"] = "HF1-REFUSES", out["refused"]
        res["hf1_version"] = out["version"]
    else:
        res["hf1_version"] = out["version"]
        for c, cr in zip(job["corpora"], out["corpora"]):
            if cr["first"] is not None:
                k = cr["first"]["case"]
                i, pair, add = c["cases"][k]
                cr["first"].update({
                    "doc_index": i, "pair": pair, "add_special_tokens": add,
                    "doc": c["docs"][i],
                    "near": snippet(hf, c["docs"][i], pair, add, cr["first"]["index"]),
                })
            res["corpora"].append(cr)
        refused = sum(cr["refused_cases"] for cr in res["corpora"])
        if any(cr["mismatched_cases"] for cr in res["corpora"]):
            res["status"] = "MISMATCH"
        elif refused:
            cases = sum(cr["cases"] for cr in res["corpora"])
            res["status"] = "HF1-REFUSES"
            res["error"] = (next(cr["refusal"] for cr in res["corpora"] if cr["refusal"])
                            + f" (when encoding: {refused} of {cases} cases)")
        else:
            res["status"] = "ok"
    res["seconds"] = time.perf_counter() - t0
    return res


def run_all(tokenizers, corpora, opts, cfg, jobs, progress):
    results = []
    if jobs <= 1:
        for spec in tokenizers:
            r = run_tokenizer(spec, corpora, opts, cfg)
            results.append(r)
            progress(r)
    else:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            futures = {pool.submit(run_tokenizer, spec, corpora, opts, cfg): spec
                       for spec in tokenizers}
            for fut in as_completed(futures):
                spec = futures[fut]
                try:
                    r = fut.result()
                except Exception as e:  # noqa: BLE001 (a crashed pool process)
                    r = {"tokenizer": spec.name, "path": spec.path, "status": "WORKER-FAIL",
                         "corpora": [], "error": f"process died: {e!r}", "seconds": 0.0}
                results.append(r)
                progress(r)
    order = {s.name: i for i, s in enumerate(tokenizers)}
    results.sort(key=lambda r: order.get(r["tokenizer"], 0))
    return results


# ------------------------------------------------------------------ report


def _first(r):
    return next(((cr["name"], cr["first"]) for cr in r["corpora"] if cr["first"]),
                (None, None))


def format_report(results):
    lines = ["== per tokenizer (0.23.3 vs 1.0 " + ", ".join(
        sorted({r.get("hf1_version", "?") for r in results} - {"?"}) or ["?"]) + ")",
        f"{'tokenizer':52} {'status':12} {'docs':>6} {'cases':>6} {'mism.docs':>9}  detail"]
    totals = {}
    for r in results:
        totals[r["status"]] = totals.get(r["status"], 0) + 1
        docs = sum(cr["docs"] for cr in r["corpora"])
        cases = sum(cr["cases"] for cr in r["corpora"])
        mism = sum(len(cr["mismatched_docs"]) for cr in r["corpora"])
        if r["status"] == "HF1-REFUSES":
            detail = "HF 1.0 refuses: " + r["error"]
        elif r["status"] == "HF0-REFUSES":
            detail = "HF 0.23.3 refuses (skipped): " + r["error"]
        elif r["status"] == "WORKER-FAIL":
            detail = r["error"] or ""
        elif r["status"] == "MISMATCH":
            name, f = _first(r)
            detail = (f"first: {name} doc {f['doc_index']} "
                      f"{'pair ' if f['pair'] is not None else ''}"
                      f"add_special_tokens={f['add_special_tokens']} {f['field']}[{f['index']}]: "
                      f"0.23.3 {rp.shorten(f['hf0'], 60)} vs 1.0 {rp.shorten(f['hf1'], 60)}")
        else:
            detail = f"{r['seconds']:.1f}s"
        lines.append(f"{r['tokenizer']:52} {r['status']:12} {docs:6} {cases:6} {mism:9}  {detail}")

    bad = [r for r in results if r["status"] == "MISMATCH"]
    if bad:
        lines += ["", "== mismatches (tokenizer x corpus)"]
        for r in bad:
            for cr in r["corpora"]:
                if not cr["mismatched_cases"]:
                    continue
                f = cr["first"]
                lines.append(f"{r['tokenizer']} on {cr['name']}: {len(cr['mismatched_docs'])} "
                             f"of {cr['docs']} docs ({cr['mismatched_cases']} of "
                             f"{cr['cases']} cases) differ")
                lines.append(f"    first: doc {f['doc_index']} add_special_tokens="
                             f"{f['add_special_tokens']} field={f['field']} index={f['index']} "
                             f"(lengths 0.23.3 {f['hf0_len']}, 1.0 {f['hf1_len']})")
                lines.append(f"      doc:    {rp.shorten(f['doc'], 160)}")
                if f["pair"] is not None:
                    lines.append(f"      pair:   {rp.shorten(f['pair'], 80)}")
                if f.get("near"):
                    n = f["near"]
                    lines.append(f"      at:     token {n['token']!r} = {n['token_text']!r} "
                                 f"(chars {n['offsets'][0]}..{n['offsets'][1]} of "
                                 f"{'pair' if n['sequence'] == 1 else 'doc'}), in "
                                 f"{n['text']!r}")
                lines.append(f"      0.23.3: {rp.shorten(f['hf0'])}  ids near: {f['hf0_ids_near']}")
                lines.append(f"      1.0:    {rp.shorten(f['hf1'])}  ids near: {f['hf1_ids_near']}")
    refused = [r for r in results if r["status"] == "HF1-REFUSES"]
    if refused:
        lines += ["", f"== HF 1.0 refuses {len(refused)} tokenizer(s) (not a failure)"]
        lines += [f"{r['tokenizer']:52} {r['error']}" for r in refused]
    partial = [r for r in results if r["status"] == "MISMATCH"
               and any(cr["refused_cases"] for cr in r["corpora"])]
    if partial:
        lines += ["", "== HF 1.0 also refuses some inputs of mismatching tokenizers"]
        lines += [f"{r['tokenizer']:52} " + next(cr["refusal"] for cr in r["corpora"]
                                                 if cr["refusal"]) for r in partial]
    both = sum(cr["both_refuse"] for r in results for cr in r["corpora"])
    lines += ["", "== totals: " + ", ".join(f"{k} {v}" for k, v in sorted(totals.items()))
              + f"; cases compared {sum(cr['cases'] for r in results for cr in r['corpora'])}"
              + (f" ({both} refused by both versions)" if both else "")]
    return "\n".join(lines)


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--worker"]:
        if len(argv) != 3:
            print("usage: compare_hf1.py --worker IN.json OUT.json", file=sys.stderr)
            return 2
        return worker(argv[1], argv[2])
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:" + __doc__.split("Examples:")[1])
    rp.add_selection_arguments(ap)
    ap.add_argument("--jobs", type=int, default=2,
                    help="tokenizers in flight at once (each: one 0.23.3 process, "
                         "then one 1.0 worker; one Rayon thread each)")
    ap.add_argument("--hf1-python", default=DEFAULT_HF1_PYTHON,
                    help=f"a Python with tokenizers 1.x (default {DEFAULT_HF1_PYTHON})")
    ap.add_argument("--fields", default="ids",
                    help="comma-separated subset of: " + ",".join(FIELDS) + " (default ids)")
    ap.add_argument("--long", action="store_true",
                    help="also run builtin/long (3 strings of --long-bytes per tokenizer)")
    ap.add_argument("--batch", action="store_true",
                    help="encode through encode_batch (per mode) in both versions, "
                         "instead of one encode call per case")
    ap.add_argument("--worker-timeout", type=float, default=1800,
                    help="seconds one tokenizer's 1.0 worker may take")
    ap.add_argument("--json", metavar="PATH", help="also write every result as JSON")
    args = ap.parse_args(argv)

    fields = [f for f in args.fields.split(",") if f]
    if not fields or any(f not in FIELDS for f in fields):
        ap.error(f"--fields: choose from {','.join(FIELDS)}")
    if not (Path(args.hf1_python).is_file() and os.access(args.hf1_python, os.X_OK)):
        print(f"--hf1-python {args.hf1_python} is missing; make it with:\n"
              "  python3 -m venv /tmp/hf1 && /tmp/hf1/bin/pip install --pre "
              "'tokenizers>=1.0.0rc1' numpy", file=sys.stderr)
        return 2
    # One Rayon thread per process (0.23.3 here, 1.0 in the workers), unless set.
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    shared = rp.selected_shared(args)
    tokenizers = rp.discover_tokenizers(shared, args.tokenizers)
    corpora = rp.discover_corpora(shared, args.corpus)
    if not args.long:
        corpora = [c for c in corpora if c != "builtin/long"]
    if not tokenizers or not corpora:
        print("nothing to compare (no tokenizer or no corpus matched)", file=sys.stderr)
        return 2
    opts = rp.Options(shared=str(shared) if shared else None, doc_bytes=args.doc_bytes,
                      max_docs=args.max_docs_per_corpus, pair_every=args.pair_every,
                      pair_chars=args.pair_chars, long_bytes=args.long_bytes,
                      added_limit=args.added_limit)
    cfg = {"hf1_python": args.hf1_python, "fields": fields, "batch": args.batch,
           "timeout": args.worker_timeout}
    print(f"comparing HF 0.23.3 with {args.hf1_python} on {len(tokenizers)} tokenizers x "
          f"{len(corpora)} corpora (shared data: {shared or 'absent'}), jobs {args.jobs}",
          file=sys.stderr)
    t0 = time.perf_counter()

    def progress(r):
        cases = sum(cr["cases"] for cr in r["corpora"])
        print(f"[{time.perf_counter() - t0:7.1f}s] {r['tokenizer']}: {r['status']} "
              f"({cases} cases, {r['seconds']:.1f}s)", file=sys.stderr)

    results = run_all(tokenizers, corpora, opts, cfg, args.jobs, progress)
    print(format_report(results))
    elapsed = time.perf_counter() - t0
    print(f"done in {elapsed:.0f}s", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({"seconds": elapsed, "results": results},
                                              indent=1, default=str))
    return 1 if any(r["status"] in ("MISMATCH", "WORKER-FAIL") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
