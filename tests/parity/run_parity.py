#!/usr/bin/env python3
"""Parity harness: snaptok against the pinned Hugging Face `tokenizers`.

For every tokenizer (tests/data/**/tokenizer.json and, when the shared data is
present, ../shared/data/tokenizers/**/tokenizer.json and its synthetic/*.json)
and every corpus (../shared/data/corpus/** cut into documents, plus built-in
corpora: edge cases, a small sample text, every added token of the tokenizer
next to text, and 1 MB strings without a space), encodes each document with
add_special_tokens on and off (and some as pairs) in both libraries and
compares, element by element: ids, tokens, offsets, type_ids,
special_tokens_mask, attention_mask, word_ids, overflowing, and decode of the
ids with skip_special_tokens on and off.

Prints one line per tokenizer x corpus that has a mismatch (with the first
mismatch: document, field, index, both values), a per-tokenizer summary, and
exits non-zero if any document differs or if snaptok refuses a tokenizer that
HF loads.

Examples:
  python tests/parity/run_parity.py                       # everything
  python tests/parity/run_parity.py --tokenizers '*gpt2*' --corpus 'en/*'
  python tests/parity/run_parity.py --max-docs-per-corpus 20 --jobs 2
  python tests/parity/run_parity.py --fields ids,offsets --table full
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


def default_shared():
    env = os.environ.get("SNAPTOK_SHARED_DATA")
    return Path(env) if env else ROOT / ".." / "shared" / "data"


ALL_FIELDS = [
    "ids", "tokens", "offsets", "type_ids", "special_tokens_mask",
    "attention_mask", "word_ids", "overflowing", "decode", "decode_keep_special",
    "ids_only",  # snaptok's ids-only path (encode_ids: the fused fast paths) vs HF's ids
]
ENCODING_FIELDS = ALL_FIELDS[:7]

# ------------------------------------------------------------------ corpora

EDGE_CASES = [
    "", " ", "  ", "     ", "\t", "\n", "\r\n", "\r", "\n\n\n", " \n ",
    "\t\t\t\t", "  \t \t  ", "\r\n\r\n\r\n", "a\r\nb\r\n", "a\rb\rc", "\x0b\x0c",
    "hello world", "hello  world", "hello   world", "hello\tworld",
    "hello\t\tworld", "hello\nworld", "hello\r\nworld", "hello \r\n world",
    "trailing space ", "trailing spaces    ", "   leading spaces",
    "  both sides  ", " a ", "a  \n  b", "end with newline\n",
    "\u00a0non-breaking\u00a0space", "ideographic\u3000space",
    "zero\u200bwidth\u200cjoiners\u200d", "\ufeffBOM at start",
    "I'M", "You'Re", "we'LL", "they'VE", "She'S", "it'd", "I'm", "you're",
    "don't", "DON'T", "Don'T", "won't've", "y'all'd've", "O'Neil's",
    "'s 't 're 've 'm 'll 'd", "'S 'T 'RE 'VE 'M 'LL 'D", "rock 'n' roll",
    "\u2019s it\u2019s I\u2019M",
    "0", "7", "42", "123", "1234", "12345", "1234567890",
    "12345678901234567890123456789012345678901234567890",
    "3.14159265358979323846", "1,000,000.00", "2024-01-31T12:34:56Z",
    "+1 (555) 010-9999", "0x7fffffff", "1e-10", "٠١٢٣٤٥٦٧٨٩", "१२३", "１２３",
    "😀", "😀😀😀", "👍🏽", "👨\u200d👩\u200d👧\u200d👦", "🏳\ufe0f\u200d🌈",
    "🇺🇸🇯🇵🇫", "1\ufe0f\u20e3", "❤\ufe0f", "a😀b", "emoji 🎉 in 🚀 text",
    "🙂" * 40,
    "e\u0301", "a\u0300\u0301\u0302\u0303", "Z\u0351\u0352\u0353\u0354\u0355",
    "n\u0303o\u0308", "\u0301leading combining", "\u05d0\u05b8", "\u0915\u093f",
    "क्षत्रिय", "ज्ञान", "สวัสดีครับ", "مرحبا بالعالم", "שלום עולם",
    "中文字符测试", "日本語のテキスト。カタカナ、ひらがな", "한국어 텍스트",
    "ＡＢＣ　ｄｅｆ！", "ﬁﬂ ﬃ", "™ ℃ № ½ ² ①", "Ⅻ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟏𝟐𝟑",
    "Straße", "İstanbul", "ΣΑΣ σας", "Ǆ ǅ ǆ", "ﬅ",
    "\x00", "\x01\x02\x03", "a\x00b", "\x1b[31mred\x1b[0m", "\x7f\x80\x9f",
    "\u202eRTL override\u202c", "\u200e\u200f", "\U000e0041\U000e0001",
    "\U0010fffd", "\U000f0000", "\ue000 private use",
    "HeLLo WoRLD", "hELLO", "ALL CAPS SENTENCE HERE", "camelCaseIdentifier",
    "snake_case_identifier", "kebab-case-word", "supercalifragilisticexpialidocious",
    "!!!???...", "......", "____", "<<<>>>", "---", "***", "###", "$$$",
    "http://example.com/path?q=1&r=2#frag", "user@example.com",
    "<html><body><p>Hi</p></body></html>", '{"key": [1, 2, 3], "x": null}',
    "def f(x):\n    return x ** 2\n", "if (a && b || !c) { x += 1; }",
    "C:\\Windows\\System32", "\\n\\t\\r", "'quoted' \"double\" `back`",
    "a" * 300, "ab" * 150, " a" * 150, "\t" * 50, " " * 300, "\n" * 100,
]

SAMPLE_TEXT = """\
The harness reads each corpus line by line and cuts it into documents of a
few kilobytes, so that a mismatch can be shown with its context. Documents
are compared with and without special tokens, and a few of them as pairs.

In 1859, the first oil well was drilled; by 1901 production had reached
20,000 barrels a day. Prices fell from $4.00 to $0.60 -- a drop of 85%.
"Don't panic," she said. "It's only a test." He replied: 'I'M NOT PANICKING!'

def tokenize(text: str) -> list[int]:
    # Returns the ids of `text`.
    return [vocab.get(piece, UNK) for piece in text.split()]

for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; }   // dot product

Le cœur a ses raisons que la raison ne connaît point. Ça va? Très bien!
Der schnelle braune Fuchs springt über den faulen Hund. Größe, Straße.
El niño comió una manzana. ¿Dónde está la biblioteca? ¡Hola!
Быстрая коричневая лиса прыгает через ленивую собаку.
Η γρήγορη καφέ αλεπού πηδάει πάνω από το τεμπέλικο σκυλί.
素早い茶色の狐が怠惰な犬を飛び越える。東京は日本の首都です。
敏捷的棕色狐狸跳过了懒狗。北京是中国的首都。
빠른 갈색 여우가 게으른 개를 뛰어넘는다.
तेज़ भूरी लोमड़ी आलसी कुत्ते के ऊपर कूदती है।
الثعلب البني السريع يقفز فوق الكلب الكسول.
השועל החום המהיר קופץ מעל הכלב העצלן.
สุนัขจิ้งจอกสีน้ำตาลกระโดดข้ามสุนัขขี้เกียจ
Emoji: 😀 👍🏽 👨‍👩‍👧‍👦 🇯🇵 ❤️ 🎉🎉🎉 and symbols: ™ © ® ° ± × ÷ ≤ ≥ ≠ ∞ √ ∑.
"""


def edge_corpus():
    docs = list(EDGE_CASES)
    docs.append(" ".join(EDGE_CASES[:60]))
    docs.append("\n".join(EDGE_CASES))
    return docs


def sample_corpus():
    lines = SAMPLE_TEXT.splitlines(keepends=True)
    return [SAMPLE_TEXT] + ["".join(lines[i:i + 3]) for i in range(0, len(lines), 3)]


def added_token_corpus(hf_tok, limit=None):
    """Every added/special token next to text on both sides."""
    contents = sorted({t.content for t in hf_tok.get_added_tokens_decoder().values()})
    if limit is not None and len(contents) > limit:
        step = len(contents) / limit
        contents = [contents[int(i * step)] for i in range(limit)]
    docs = []
    for t in contents:
        docs.append(f"{t}hello {t} world{t}x{t}{t}. {t}")
        docs.append(f"a{t}b  {t}  \n{t}\n{t}1")
    return docs


def long_corpus(n_bytes):
    """Strings of `n_bytes` without a space (linear-time check)."""
    pattern = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    # A deterministic jumble: letters, digits, punctuation, no whitespace.
    state, chars = 12345, []
    alphabet = pattern + ".,;:-_!?()[]{}'\"/\\@#$%&*+=<>|~^"
    for _ in range(n_bytes):
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        chars.append(alphabet[(state >> 16) % len(alphabet)])
    return ["a" * n_bytes, "".join(chars), "😀" * (n_bytes // 4)]


def file_documents(path, doc_bytes, max_docs):
    """Cuts a text file into ~doc_bytes documents at line boundaries and
    returns at most max_docs of them, spread evenly over the file."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    docs, cur, size = [], [], 0
    for line in text.splitlines(keepends=True):
        cur.append(line)
        size += len(line.encode("utf-8"))
        if size >= doc_bytes:
            docs.append("".join(cur))
            cur, size = [], 0
    if cur:
        docs.append("".join(cur))
    if max_docs and len(docs) > max_docs:
        step = len(docs) / max_docs
        docs = [docs[int(i * step)] for i in range(max_docs)]
    return docs


# --------------------------------------------------------------- discovery


@dataclass
class TokenizerSpec:
    name: str
    path: str


def discover_tokenizers(shared, patterns, include_shared=True):
    found = [TokenizerSpec("data/" + str(p.parent.relative_to(DATA)), str(p))
             for p in sorted(DATA.rglob("tokenizer.json"))]
    if include_shared and shared and (shared / "tokenizers").is_dir():
        tdir = shared / "tokenizers"
        for p in sorted(tdir.rglob("tokenizer.json")):
            found.append(TokenizerSpec("shared/" + str(p.parent.relative_to(tdir)),
                                       str(p)))
        for p in sorted((tdir / "synthetic").glob("*.json")):
            found.append(TokenizerSpec("synthetic/" + p.stem, str(p)))
    return [t for t in found if matches(t.name, t.path, patterns)]


def matches(name, path, patterns):
    if not patterns:
        return True
    return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(path, p)
               for p in patterns)


def discover_corpora(shared, patterns, include_shared=True):
    """Returns corpus names: builtin/* and the shared corpus files."""
    names = ["builtin/edge", "builtin/sample", "builtin/added", "builtin/long"]
    if include_shared and shared and (shared / "corpus").is_dir():
        cdir = shared / "corpus"
        names += [str(p.relative_to(cdir)) for p in sorted(cdir.rglob("*"))
                  if p.is_file()]
    return [n for n in names if matches(n, n, patterns)]


# -------------------------------------------------------------- comparison


@dataclass
class Options:
    shared: str | None
    doc_bytes: int = 2000
    max_docs: int = 100
    fields: tuple = tuple(ALL_FIELDS)
    pair_every: int = 4
    pair_chars: int = 120           # the pair's second text: a prefix this long
    long_bytes: int = 1 << 20
    max_long_seconds: float = 0.0   # 0: no timing check
    added_limit: int | None = None
    via_st: bool = False            # snaptok loads a .st converted from the JSON


@dataclass
class CorpusResult:
    tokenizer: str
    corpus: str
    docs: int = 0
    mismatches: int = 0
    first: dict | None = None
    error: str | None = None
    seconds: float = 0.0
    notes: list = field(default_factory=list)


def encoding_values(enc, name):
    if name == "overflowing":
        return [tuple(tuple(getattr(o, f)) for f in ENCODING_FIELDS)
                for o in enc.overflowing]
    return list(getattr(enc, name))


def first_difference(a, b):
    """Returns the first index where lists a and b differ, or None."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    if len(a) != len(b):
        return min(len(a), len(b))
    return None


def compare_case(hf, st, text, pair, add_special, fields):
    """Returns None, or (field, index, hf_value, snaptok_value). When both
    libraries refuse the input (an HF error or panic, a SnaptokError) they
    agree; when only one does, the field is "error"."""
    a = b = None
    try:
        a = hf.encode(text, pair, add_special_tokens=add_special)
    except BaseException as e:  # noqa: BLE001 (HF panics are BaseException)
        hf_err = f"{type(e).__name__}: {e}"
    try:
        b = st.encode(text, pair, add_special_tokens=add_special)
    except Exception as e:  # noqa: BLE001
        st_err = f"{type(e).__name__}: {e}"
    if a is None or b is None:
        if a is None and b is None:
            return None
        return ("error", 0, "ok" if a is not None else shorten(hf_err, 200),
                "ok" if b is not None else shorten(st_err, 200))
    for f in fields:
        if f == "ids_only":
            if pair is not None:  # encode_ids takes one text
                continue
            va = list(a.ids)
            try:
                vb = list(st.encode_ids(text, add_special_tokens=add_special))
            except Exception as e:  # noqa: BLE001
                vb = [f"<error> {type(e).__name__}: {e}"]
        elif f in ("decode", "decode_keep_special"):
            skip = f == "decode"
            try:
                va = [hf.decode(a.ids, skip_special_tokens=skip)]
            except BaseException:  # noqa: BLE001
                va = ["<error>"]
            try:
                vb = [st.decode(a.ids, skip_special_tokens=skip)]
            except Exception as e:  # noqa: BLE001
                vb = ["<error>" if va == ["<error>"] else
                      f"<error> {type(e).__name__}: {e}"]
        else:
            va, vb = encoding_values(a, f), encoding_values(b, f)
        i = first_difference(va, vb)
        if i is not None:
            return (f, i, va[i] if i < len(va) else "<end>",
                    vb[i] if i < len(vb) else "<end>")
    return None


def shorten(value, n=160):
    s = repr(value)
    return s if len(s) <= n else s[:n] + "..."


_LOADED = {}


def load_snaptok(path, via_st=False):
    """Loads path with snaptok; via_st: through a .st file converted from it
    (written, then mapped, as a user's `snaptok convert` output would be)."""
    import snaptok
    tok = snaptok.Tokenizer.from_file(path)
    if not via_st:
        return tok
    with tempfile.TemporaryDirectory() as tmp:
        st_path = os.path.join(tmp, "tokenizer.st")
        tok.save_st(st_path)
        return snaptok.Tokenizer.from_file(st_path)


def load_both(spec, via_st=False):
    """Returns (hf, snaptok, hf_error, snaptok_error), cached per process."""
    key = (spec.path, via_st)
    if key not in _LOADED:
        from tokenizers import Tokenizer
        hf = st = hf_err = st_err = None
        try:
            hf = Tokenizer.from_file(spec.path)
        except BaseException as e:  # noqa: BLE001
            hf_err = f"{type(e).__name__}: {e}"
        if hf is not None:
            try:
                st = load_snaptok(spec.path, via_st)
            except Exception as e:  # noqa: BLE001
                st_err = f"{type(e).__name__}: {e}"
        _LOADED.clear()  # keep one tokenizer pair per process
        _LOADED[key] = (hf, st, hf_err, st_err)
    return _LOADED[key]


def corpus_documents(corpus, hf, opts):
    if corpus == "builtin/edge":
        return edge_corpus()
    if corpus == "builtin/sample":
        return sample_corpus()
    if corpus == "builtin/added":
        return added_token_corpus(hf, opts.added_limit)
    if corpus == "builtin/long":
        return long_corpus(opts.long_bytes)
    return file_documents(Path(opts.shared) / "corpus" / corpus,
                          opts.doc_bytes, opts.max_docs)


def corpus_cases(corpus, docs, opts):
    """The inputs compared for a corpus: (doc index, text, pair text or None,
    add_special_tokens). Every document with special tokens on and off, every
    opts.pair_every-th also as a pair with the start of the previous one."""
    cases = []
    for i, doc in enumerate(docs):
        cases.append((i, doc, None, True))
        if corpus == "builtin/long":
            continue  # one mode, no pair: these only check size and time
        cases.append((i, doc, None, False))
        if opts.pair_every and i % opts.pair_every == opts.pair_every - 1:
            # The second text is short: with truncation, HF's overflowing
            # grows as the product of both sides' overflows.
            cases.append((i, doc, docs[i - 1][:opts.pair_chars], True))
    return cases


def run_corpus(spec, corpus, opts):
    """Compares one tokenizer on one corpus."""
    res = CorpusResult(spec.name, corpus)
    t0 = time.perf_counter()
    hf, st, hf_err, st_err = load_both(spec, opts.via_st)
    if hf_err:
        res.error = "HF refuses it (skipped): " + hf_err[:300]
        return res
    if st_err:
        res.error = "snaptok refuses it: " + st_err[:500]
        return res
    docs = corpus_documents(corpus, hf, opts)
    cases = corpus_cases(corpus, docs, opts)
    mismatched_docs = set()
    for i, doc, pair, add_special in cases:
        if corpus == "builtin/long":
            t1 = time.perf_counter()
        diff = compare_case(hf, st, doc, pair, add_special, opts.fields)
        if corpus == "builtin/long" and opts.max_long_seconds:
            t_st = time.perf_counter()
            st.encode(doc, pair, add_special_tokens=add_special)
            elapsed = time.perf_counter() - t_st
            res.notes.append(f"{len(doc.encode())} bytes: snaptok {elapsed:.2f}s "
                             f"(pair compare {time.perf_counter() - t1:.2f}s)")
            if elapsed > opts.max_long_seconds:
                diff = diff or ("time", 0, f"<= {opts.max_long_seconds}s",
                                f"{elapsed:.2f}s")
        if diff is None:
            continue
        mismatched_docs.add(i)
        if res.first is None:
            f, idx, va, vb = diff
            res.first = {
                "doc": shorten(doc, 120), "pair": None if pair is None else shorten(pair, 60),
                "add_special_tokens": add_special, "field": f, "index": idx,
                "hf": shorten(va), "snaptok": shorten(vb),
            }
    res.docs = len(docs)
    res.mismatches = len(mismatched_docs)
    res.seconds = time.perf_counter() - t0
    return res


def run_tokenizer(spec, corpora, opts):
    """Runs every corpus for one tokenizer; returns a list of CorpusResult."""
    results = []
    for corpus in corpora:
        r = run_corpus(spec, corpus, opts)
        results.append(r)
        if r.error:  # load failures are reported once per tokenizer
            break
    return results


def run_all(tokenizers, corpora, opts, jobs=1, progress=None):
    results = []
    if jobs <= 1:
        for spec in tokenizers:
            rs = run_tokenizer(spec, corpora, opts)
            results += rs
            if progress:
                progress(spec, rs)
        return results
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = {pool.submit(run_tokenizer, spec, corpora, opts): spec
                   for spec in tokenizers}
        for fut in as_completed(futures):
            spec = futures[fut]
            try:
                rs = fut.result()
            except Exception as e:  # noqa: BLE001 (a crashed worker)
                rs = [CorpusResult(spec.name, "*", error=f"worker died: {e!r}")]
            results += rs
            if progress:
                progress(spec, rs)
    order = {s.name: i for i, s in enumerate(tokenizers)}
    results.sort(key=lambda r: (order.get(r.tokenizer, 0), r.corpus))
    return results


def failed(r):
    return r.mismatches > 0 or (r.error is not None and not r.error.startswith("HF refuses"))


# ------------------------------------------------------------------ report


def format_report(results, table="failures"):
    lines = []
    by_tok = {}
    for r in results:
        by_tok.setdefault(r.tokenizer, []).append(r)
    lines.append("== per tokenizer x corpus " + ("(all)" if table == "full" else "(mismatches only)"))
    for r in results:
        if r.error or (table != "full" and not r.mismatches):
            continue
        lines.append(f"{r.tokenizer:55} {r.corpus:45} docs {r.docs:5}  "
                     f"mismatches {r.mismatches:5}  {r.seconds:6.1f}s")
        if r.first:
            f = r.first
            lines.append(f"    first: field={f['field']} index={f['index']} "
                         f"add_special_tokens={f['add_special_tokens']}")
            lines.append(f"      doc:     {f['doc']}")
            if f["pair"] is not None:
                lines.append(f"      pair:    {f['pair']}")
            lines.append(f"      HF:      {f['hf']}")
            lines.append(f"      snaptok: {f['snaptok']}")
        for note in r.notes:
            lines.append(f"    note: {note}")
    lines.append("")
    lines.append("== per tokenizer")
    lines.append(f"{'tokenizer':55} {'status':12} {'corpora':>7} {'docs':>7} "
                 f"{'mism.docs':>9}  failing corpora / error")
    totals = {"ok": 0, "MISMATCH": 0, "LOAD-FAIL": 0, "HF-REFUSES": 0}
    for tok, rs in by_tok.items():
        err = next((r.error for r in rs if r.error), None)
        docs = sum(r.docs for r in rs)
        mism = sum(r.mismatches for r in rs)
        bad = [r.corpus for r in rs if r.mismatches]
        if err and err.startswith("HF refuses"):
            status = "HF-REFUSES"
        elif err:
            status = "LOAD-FAIL"
        elif mism:
            status = "MISMATCH"
        else:
            status = "ok"
        totals[status] += 1
        detail = err if err else ", ".join(bad)
        lines.append(f"{tok:55} {status:12} {len(rs):7} {docs:7} {mism:9}  {detail}")
    lines.append("")
    lines.append("== totals: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    return "\n".join(lines)


def add_selection_arguments(ap):
    """The options that choose tokenizers, corpora and documents (shared with
    compare_hf1.py)."""
    ap.add_argument("--tokenizers", action="append", metavar="GLOB",
                    help="only tokenizers whose name (data/gpt2, shared/t5-small, "
                         "synthetic/<stem>) or path matches; repeatable")
    ap.add_argument("--corpus", action="append", metavar="GLOB",
                    help="only corpora whose name (builtin/edge, builtin/sample, "
                         "builtin/added, builtin/long, en/brown_untagged.txt, ...) "
                         "matches; repeatable")
    ap.add_argument("--max-docs-per-corpus", type=int, default=100, metavar="N")
    ap.add_argument("--doc-bytes", type=int, default=2000, metavar="N",
                    help="documents are corpus chunks of about N bytes, cut at "
                         "line boundaries")
    ap.add_argument("--pair-every", type=int, default=4, metavar="K",
                    help="also encode every K-th document as a pair with (the "
                         "start of) the previous one (0: never)")
    ap.add_argument("--pair-chars", type=int, default=120, metavar="N",
                    help="the second text of a pair is the previous document's "
                         "first N chars")
    ap.add_argument("--long-bytes", type=int, default=1 << 20,
                    help="size of the builtin/long strings")
    ap.add_argument("--added-limit", type=int, default=None, metavar="N",
                    help="use at most N added tokens per tokenizer")
    ap.add_argument("--shared-data", default=str(default_shared()),
                    help="the shared data folder (default ../shared/data)")
    ap.add_argument("--no-shared", action="store_true",
                    help="use tests/data and the builtin corpora only")


def selected_shared(args):
    """The shared data folder the options select, or None."""
    shared = None if args.no_shared else Path(args.shared_data)
    if shared is not None and not shared.is_dir():
        shared = None
    return shared


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("Examples:")[1] if "Examples:" in __doc__ else None)
    add_selection_arguments(ap)
    ap.add_argument("--fields", default=",".join(ALL_FIELDS),
                    help="comma-separated subset of: " + ",".join(ALL_FIELDS))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--max-long-seconds", type=float, default=10.0,
                    help="fail when snaptok takes longer on one builtin/long "
                         "string (0: no timing check)")
    ap.add_argument("--table", choices=["failures", "full"], default="failures")
    ap.add_argument("--json", metavar="PATH", help="also write every result as JSON")
    ap.add_argument("--via-st", action="store_true",
                    help="load snaptok's side through a .st file converted from each tokenizer.json")
    args = ap.parse_args(argv)

    fields = tuple(f for f in args.fields.split(",") if f)
    unknown = [f for f in fields if f not in ALL_FIELDS]
    if unknown:
        ap.error(f"unknown fields {unknown}; choose from {ALL_FIELDS}")
    shared = selected_shared(args)
    tokenizers = discover_tokenizers(shared, args.tokenizers)
    corpora = discover_corpora(shared, args.corpus)
    if not tokenizers or not corpora:
        print("nothing to compare (no tokenizer or no corpus matched)", file=sys.stderr)
        return 2
    opts = Options(shared=str(shared) if shared else None, doc_bytes=args.doc_bytes,
                   max_docs=args.max_docs_per_corpus, fields=fields,
                   pair_every=args.pair_every, pair_chars=args.pair_chars,
                   long_bytes=args.long_bytes,
                   max_long_seconds=args.max_long_seconds,
                   added_limit=args.added_limit, via_st=args.via_st)
    print(f"comparing {len(tokenizers)} tokenizers x {len(corpora)} corpora "
          f"(shared data: {shared or 'absent'}), jobs {args.jobs}", file=sys.stderr)
    t0 = time.perf_counter()

    def progress(spec, rs):
        bad = sum(r.mismatches for r in rs)
        err = next((r.error for r in rs if r.error), "")
        state = "LOAD-FAIL" if err and not err.startswith("HF refuses") else (
            "MISMATCH" if bad else "ok")
        print(f"[{time.perf_counter() - t0:7.1f}s] {spec.name}: {state}", file=sys.stderr)

    results = run_all(tokenizers, corpora, opts, args.jobs, progress)
    print(format_report(results, args.table))
    if args.json:
        Path(args.json).write_text(json.dumps([r.__dict__ for r in results], indent=1,
                                              default=str))
    print(f"done in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    return 1 if any(failed(r) for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
