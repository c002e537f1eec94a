#!/usr/bin/env python3
"""Generates include/snaptok/unicode/generated/tables.hpp from the pinned HF
`tokenizers`.

Hugging Face `tokenizers` does not follow one Unicode version: Rust's char
methods (whitespace, numeric, lowercase), the Rust `regex` crate (\\w, \\s),
`unicode_categories` (punctuation, "other", non-spacing marks), the
`unicode-normalization-alignments` crate (NFD/NFKD/NFC/NFKC data, combining
marks) and its own UnicodeScripts table each bring their own data. So every
per-code-point fact here is obtained by asking the pinned `tokenizers` itself,
through its Python API, for every code point U+0000..U+10FFFF (surrogates
excluded). Python's `unicodedata` is used only for what cannot be observed in
one probe (canonical combining classes and the pairs of primary composites),
and those are then verified against `tokenizers`; its Unicode version (14.0.0,
Python 3.11's) is pinned too, since the script names and the count of marks
tokenizers does not know come from it.

Usage: python tools/gen_unicode_tables.py [--out FILE] [--workers N]
  (--out defaults to include/snaptok/unicode/generated/tables.hpp)
Needs: tokenizers==0.23.3 (the version the project pins), Python 3.11. Takes
about a minute and a half on two cores. tools/check_generated.py regenerates
it and diffs.
"""

import argparse
import multiprocessing
import os
import sys
import time
import unicodedata

PINNED = "0.23.3"
PINNED_UNIDATA = "14.0.0"  # Python 3.11's unicodedata
MAX_CP = 0x110000
HANGUL_S_BASE, HANGUL_S_COUNT = 0xAC00, 11172

# Bits of the per-code-point flags table (emitted as tables::k* in tables.hpp).
F_WHITESPACE = 1 << 0       # Rust char::is_whitespace (WhitespaceSplit)
F_REGEX_SPACE = 1 << 1      # Rust regex \s (Whitespace pre-tokenizer)
F_WORD = 1 << 2             # Rust regex \w (Whitespace, added tokens single_word)
F_NUMERIC = 1 << 3          # Rust char::is_numeric (Digits)
F_PUNCT = 1 << 4            # ascii punct || unicode_categories is_punctuation
F_OTHER = 1 << 5            # unicode_categories is_other (BERT control)
F_MARK_NONSPACING = 1 << 6  # unicode_categories is_mark_nonspacing (Bert strip)
F_COMBINING_MARK = 1 << 7   # unicode-normalization-alignments is_combining_mark
F_HAS_LOWER = 1 << 8        # char::to_lowercase(c) != [c]
F_CANON_DECOMP = 1 << 9     # NFD(c) != c
F_COMPAT_DECOMP = 1 << 10   # NFKD(c) != c
F_COMPOSE_FIRST = 1 << 11   # first char of some composition pair (incl. Hangul)
F_COMPOSE_SECOND = 1 << 12  # second char of some composition pair (incl. Hangul)
F_NFC_QUICK = 1 << 13       # NFC leaves c, and any run of such chars, as is
F_NFKC_QUICK = 1 << 14      # NFKC leaves c, and any run of such chars, as is


def all_cps():
    return [c for c in range(MAX_CP) if not 0xD800 <= c <= 0xDFFF]


def is_hangul(cp):
    return HANGUL_S_BASE <= cp < HANGUL_S_BASE + HANGUL_S_COUNT


def hangul_decompose(cp):
    s = cp - HANGUL_S_BASE
    out = [0x1100 + s // 588, 0x1161 + (s % 588) // 28]
    if s % 28:
        out.append(0x11A7 + s % 28)
    return "".join(map(chr, out))


# ---------------------------------------------------------------------------
# Probes. Each returns, for a list of code points, what tokenizers does to it.
# Strings are batched: one long string per call, cut back apart afterwards.

def make_normalizer(name):
    from tokenizers import normalizers as N
    return {
        "NFD": N.NFD, "NFKD": N.NFKD, "NFC": N.NFC, "NFKC": N.NFKC,
        "Lowercase": N.Lowercase, "StripAccents": N.StripAccents,
        "clean_text": lambda: N.BertNormalizer(
            clean_text=True, handle_chinese_chars=False, strip_accents=False,
            lowercase=False),
        "chinese": lambda: N.BertNormalizer(
            clean_text=False, handle_chinese_chars=True, strip_accents=False,
            lowercase=False),
        "bert_strip": lambda: N.BertNormalizer(
            clean_text=False, handle_chinese_chars=False, strip_accents=True,
            lowercase=False),
    }[name]()


def probe_normalizer(args):
    """Returns [normalize(left + chr(cp) + right)] for cps, batched with `sep`."""
    name, cps, left, right, sep, alt_sep = args
    norm = make_normalizer(name)
    out = {}
    for s, group in ((sep, [c for c in cps if chr(c) != sep]),
                     (alt_sep, [c for c in cps if chr(c) == sep])):
        if not group:
            continue
        for lo in range(0, len(group), 200000):
            chunk = group[lo:lo + 200000]
            text = s.join(left + chr(c) + right for c in chunk)
            parts = norm.normalize_str(text).split(s)
            if len(parts) != len(chunk):
                raise SystemExit(f"{name}: separator {s!r} not preserved")
            out.update(zip(chunk, parts))
    return name, [out[c] for c in cps]


def make_pre_tokenizer(name):
    from tokenizers import pre_tokenizers as P
    return {
        "WhitespaceSplit": P.WhitespaceSplit, "Whitespace": P.Whitespace,
        "Digits": lambda: P.Digits(individual_digits=True),
        "Punctuation": P.Punctuation, "Bert": P.BertPreTokenizer,
        "Scripts": P.UnicodeScripts,
    }[name]()


def probe_boundaries(args):
    """Pre-tokenizes segments left + X + right joined by sep (no piece may
    span a separator); returns, per cp, the piece boundaries inside the
    segment (char offsets relative to its start, 0 and its length excluded)
    and the segment chars some piece keeps."""
    key, name, cps, left, right, sep = args
    pre = make_pre_tokenizer(name)
    seg_len = len(left) + 1 + len(right)
    stride = seg_len + len(sep)
    memo = {}
    result = []
    for lo in range(0, len(cps), 100000):
        chunk = cps[lo:lo + 100000]
        text = sep.join(left + chr(c) + right for c in chunk)
        pieces = [[] for _ in chunk]
        for _, (s, e) in pre.pre_tokenize_str(text):
            seg, rel = divmod(s, stride)
            if rel >= seg_len:
                continue  # the separator itself
            if e - seg * stride > seg_len:
                raise SystemExit(f"{key}: a piece spans a separator")
            pieces[seg].append((rel, e - seg * stride))
        for p in pieces:
            sig = tuple(p)
            if sig not in memo:
                bounds = {b for q in sig for b in q} - {0, seg_len}
                kept = {k for a, b in sig for k in range(a, b)}
                memo[sig] = (tuple(sorted(bounds)), tuple(sorted(kept)))
            result.append(memo[sig])
    return key, result


def run_parallel(fn, jobs, workers):
    if workers <= 1:
        return dict(map(fn, jobs))
    with multiprocessing.Pool(workers) as pool:
        return dict(pool.imap_unordered(fn, jobs))


# ---------------------------------------------------------------------------

def script_classes(cps, latin, greek):
    """Returns {cp: class id} for HF's fixed UnicodeScripts script (0 = Any).
    `latin` and `greek` are the Scripts probes of "aXa" and "\u03b1X\u03b1"."""
    from tokenizers import pre_tokenizers as P
    pre = P.UnicodeScripts()
    # Pass 1: Any iff neither a Latin nor a Greek neighbour is split from it.
    non_any = []
    for cp, (cuts_l, _), (cuts_g, _) in zip(cps, latin, greek):
        if 1 in cuts_l or 1 in cuts_g:
            non_any.append(cp)
    # Pass 2: runs of equal script among consecutive non-Any code points.
    runs = []  # (first index, last index) into non_any
    starts = set()
    for lo in range(0, len(non_any), 200000):
        chunk = non_any[lo:lo + 200000]
        for _, (s, _) in pre.pre_tokenize_str("".join(map(chr, chunk))):
            starts.add(lo + s)
        starts.add(lo)  # chunk edges: re-checked by the clustering below
    cur = 0
    for i in range(1, len(non_any) + 1):
        if i == len(non_any) or i in starts:
            runs.append((cur, i - 1))
            cur = i
    # Pass 3: cluster the runs by comparing a representative with each class.
    reps = []  # representative cp per class (class id = index + 1)
    cls = {}
    for a, b in runs:
        r = non_any[a]
        found = None
        for lo in range(0, len(reps), 256):
            cand = reps[lo:lo + 256]
            text = "".join(chr(r) + chr(c) for c in cand)
            pieces = pre.pre_tokenize_str(text)
            split_at = {s for _, (s, _) in pieces}
            for k, c in enumerate(cand):
                if 2 * k + 1 not in split_at:
                    found = lo + k
                    break
            if found is not None:
                break
        if found is None:
            reps.append(r)
            found = len(reps) - 1
        for i in range(a, b + 1):
            cls[non_any[i]] = found + 1
    return cls, reps


def simulate_scripts(text, script):
    """HF UnicodeScripts on `text` given a script table; returns the pieces'
    (start, end). A piece starts at every non-Any char whose script differs
    from the last non-Any one (or that is the first non-Any char): leading
    Any chars belong to no piece."""
    cuts = []
    last = None
    for i, ch in enumerate(text):
        s = script(ord(ch))
        if s != 0 and last != s:
            cuts.append(i)
        if s != 0:
            last = s
    cuts.append(len(text))
    return list(zip(cuts, cuts[1:]))


def verify_scripts(cps, script):
    from tokenizers import pre_tokenizers as P
    import random
    pre = P.UnicodeScripts()
    rng = random.Random(1234)
    orders = [list(cps)]
    shuffled = list(cps)
    rng.shuffle(shuffled)
    orders.append(shuffled)
    for order in orders:
        for lo in range(0, len(order), 200000):
            text = "".join(map(chr, order[lo:lo + 200000]))
            got = [o for _, o in pre.pre_tokenize_str(text)]
            if got != simulate_scripts(text, script):
                raise SystemExit("UnicodeScripts verification failed")


# ---------------------------------------------------------------------------

def combining_classes(cps, nfd):
    """Returns ({cp: ccc} for NFD-stable code points as tokenizers' NFD orders
    them, count of Python classes tokenizers does not know): Python's ccc where
    tokenizers agrees (checked), 0 where it does not know the character."""
    from tokenizers import normalizers as N
    norm = N.NFD()
    stable = [c for c in cps if nfd[c] == chr(c)]
    py = {c: unicodedata.combining(chr(c)) for c in stable}

    def swapped(pairs):
        """pairs of (x, m): returns for each whether NFD("a"+x+m) reorders."""
        text = "\x01".join("a" + chr(x) + chr(m) for x, m in pairs)
        parts = norm.normalize_str(text).split("\x01")
        out = []
        for (x, m), p in zip(pairs, parts):
            if p == "a" + chr(x) + chr(m):
                out.append(False)
            elif p == "a" + chr(m) + chr(x):
                out.append(True)
            else:
                raise SystemExit(f"ccc probe: unexpected NFD {p!r}")
        return out

    ccc = {x: 0 for x in stable}
    xs = [c for c in stable if c > 0x7F]
    # T1: x before U+0334 (ccc 1) swaps iff ccc(x) > 1.
    # T2: U+0301 (ccc 230) before x swaps iff 0 < ccc(x) < 230.
    t1 = swapped([(x, 0x0334) for x in xs])
    t2 = swapped([(0x0301, x) for x in xs])
    nonzero = [x for x, a, b in zip(xs, t1, t2) if a or b]
    # One reference mark per class, among marks tokenizers reorders at all.
    ref = {}
    for x in sorted(nonzero):
        ref.setdefault(py[x], x)
    classes = sorted(ref)
    # T3/T4 pin every ccc > 1 between the next lower class and Python's.
    checks3, checks4 = [], []
    for x, a, b in zip(xs, t1, t2):
        v = py[x]
        if not a and not b:
            continue
        if not a and b:
            if v != 1:
                raise SystemExit(f"U+{x:04X}: tokenizers ccc 1, Python {v}")
        elif v <= 1:
            raise SystemExit(f"U+{x:04X}: tokenizers ccc > 1, Python {v}")
        else:
            lower = max(k for k in classes if k < v)
            checks3.append((x, ref[lower]))
            checks4.append((x, ref[v]))
        ccc[x] = v
    for (x, _), s in zip(checks3, swapped(checks3)):
        if not s:
            raise SystemExit(f"U+{x:04X}: ccc not above the next lower class")
    for (x, _), s in zip(checks4, swapped(checks4)):
        if s:
            raise SystemExit(f"U+{x:04X}: ccc above Python's {py[x]}")
    dropped = sum(1 for x in stable if py[x] and not ccc[x])
    return ccc, dropped


def composition_pairs(cps, nfd):
    """Returns {(a, b): composite} as tokenizers' NFC composes, Hangul aside."""
    from tokenizers import normalizers as N
    cand = []
    for c in cps:
        if is_hangul(c) or nfd[c] == chr(c):
            continue
        d = unicodedata.decomposition(chr(c))
        if not d or d.startswith("<"):
            continue
        parts = [int(x, 16) for x in d.split()]
        if len(parts) == 2:
            cand.append((parts[0], parts[1], c))
    text = "\x01".join(chr(a) + chr(b) for a, b, _ in cand)
    got = N.NFC().normalize_str(text).split("\x01")
    pairs = {}
    for (a, b, c), g in zip(cand, got):
        if g == chr(c):
            pairs[(a, b)] = c
    return pairs


# ---------------------------------------------------------------------------
# Emission: two-stage tables.

def two_stage(values, elem_bytes):
    """Returns (shift, stage1, stage2) minimising the table size."""
    best = None
    for shift in range(4, 10):
        size = 1 << shift
        blocks, index, stage2 = {}, [], []
        for lo in range(0, MAX_CP, size):
            blk = tuple(values[lo:lo + size])
            if blk not in blocks:
                blocks[blk] = len(blocks)
                stage2.extend(blk)
            index.append(blocks[blk])
        s1_bytes = 1 if len(blocks) <= 256 else 2
        total = len(index) * s1_bytes + len(stage2) * elem_bytes
        if best is None or total < best[0]:
            best = (total, shift, index, stage2)
    return best[1], best[2], best[3]


def c_array(name, ctype, data, per_line=24):
    lines = [f"inline constexpr {ctype} {name}[{len(data)}] = {{"]
    for i in range(0, len(data), per_line):
        lines.append(",".join(str(v) for v in data[i:i + per_line]) + ",")
    lines.append("};")
    return "\n".join(lines)


def emit_two_stage(prefix, values, elem_type, elem_bytes):
    shift, s1, s2 = two_stage(values, elem_bytes)
    s1_type = "std::uint8_t" if max(s1) < 256 else "std::uint16_t"
    return "\n".join([
        f"inline constexpr unsigned {prefix}_shift = {shift};",
        c_array(f"{prefix}_stage1", s1_type, s1),
        c_array(f"{prefix}_stage2", elem_type, s2),
    ])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(
        here, "..", "include", "snaptok", "unicode", "generated", "tables.hpp"))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache", help="pickle the probe results here and reuse "
                    "them on the next run (for working on the generator)")
    args = ap.parse_args()

    import tokenizers
    if tokenizers.__version__ != PINNED:
        raise SystemExit(f"tokenizers {tokenizers.__version__} found, "
                         f"{PINNED} pinned")
    if unicodedata.unidata_version != PINNED_UNIDATA:
        raise SystemExit(f"Python's unicodedata {unicodedata.unidata_version} "
                         f"found, {PINNED_UNIDATA} pinned (Python 3.11)")
    t0 = time.time()
    cps = all_cps()

    def log(msg):
        print(f"[{time.time() - t0:6.1f}s] {msg}", file=sys.stderr)

    norm_jobs = [
        ("NFD", cps, "", "", "\x01", "\x02"),
        ("NFKD", cps, "", "", "\x01", "\x02"),
        ("NFC", cps, "", "", "\x01", "\x02"),
        ("NFKC", cps, "", "", "\x01", "\x02"),
        ("Lowercase", cps, "", "", "\x01", "\x02"),
        ("StripAccents", cps, "a", "a", "|", "/"),
        ("clean_text", cps, "a", "a", "|", "/"),
        ("chinese", cps, "a", "a", "|", "/"),
        ("bert_strip", cps, "a", "a", "|", "/"),
    ]
    pre_jobs = [
        ("WhitespaceSplit", "WhitespaceSplit", cps, "a", "a", " "),
        ("Whitespace", "Whitespace", cps, "a", "a", " "),
        ("Digits", "Digits", cps, "a", "a", "0"),
        ("Punctuation", "Punctuation", cps, "a", "a", "!"),
        ("Bert", "Bert", cps, "a", "a", " "),
        ("ScriptsLatin", "Scripts", cps, "a", "a", "\u03b1"),
        ("ScriptsGreek", "Scripts", cps, "\u03b1", "\u03b1", "a"),
    ]
    import pickle
    if args.cache and os.path.exists(args.cache):
        with open(args.cache, "rb") as fh:
            norm, pre = pickle.load(fh)
    else:
        norm = run_parallel(probe_normalizer, norm_jobs, args.workers)
        log("normalizer probes done")
        pre = run_parallel(probe_boundaries, pre_jobs, args.workers)
        log("pre-tokenizer probes done")
        if args.cache:
            with open(args.cache, "wb") as fh:
                pickle.dump((norm, pre), fh)

    nfd = dict(zip(cps, norm["NFD"]))
    nfkd = dict(zip(cps, norm["NFKD"]))
    lower = dict(zip(cps, norm["Lowercase"]))

    flags = [0] * MAX_CP
    lower_map, canon_map, compat_map = {}, {}, {}
    for i, cp in enumerate(cps):
        ch = chr(cp)
        f = 0
        # WhitespaceSplit: "aXa" splits around X iff X is whitespace.
        cuts, kept = pre["WhitespaceSplit"][i]
        if 1 not in kept:
            f |= F_WHITESPACE
        # Whitespace (\w+|[^\w\s]+): X in \w: one piece; \s: removed.
        cuts, kept = pre["Whitespace"][i]
        if 1 not in kept:
            f |= F_REGEX_SPACE
        elif cuts == ():
            f |= F_WORD
        cuts, kept = pre["Digits"][i]
        if cuts == (1, 2):
            f |= F_NUMERIC
        elif cuts != ():
            raise SystemExit(f"Digits: U+{cp:04X} unexpected cuts {cuts}")
        cuts, kept = pre["Punctuation"][i]
        if cuts == (1, 2):
            f |= F_PUNCT
        elif cuts != ():
            raise SystemExit(f"Punctuation: U+{cp:04X} unexpected cuts {cuts}")
        # BertPreTokenizer must agree: whitespace removed, punctuation isolated.
        cuts, kept = pre["Bert"][i]
        want = ((1, 2), (0, 2)) if f & F_WHITESPACE else \
            (((1, 2), (0, 1, 2)) if f & F_PUNCT else ((), (0, 1, 2)))
        if (cuts, kept) != want:
            raise SystemExit(f"BertPreTokenizer: U+{cp:04X} disagrees")
        # clean_text: removed iff 0, U+FFFD or control; whitespace -> ' '.
        ct = norm["clean_text"][i]
        if ct == "aa":
            if cp not in (0, 0xFFFD):
                f |= F_OTHER
        elif ct == "a a" and cp != 0x20:
            if not f & F_WHITESPACE:
                raise SystemExit(f"clean_text: U+{cp:04X} mapped to space")
        elif ct != "a" + ch + "a":
            raise SystemExit(f"clean_text: U+{cp:04X} gave {ct!r}")
        elif f & F_WHITESPACE and cp != 0x20:
            raise SystemExit(f"clean_text: whitespace U+{cp:04X} kept")
        if cp in (0, 0xFFFD, 0x09, 0x0A, 0x0D):
            # Unobservable through clean_text (special-cased there); the
            # unicode_categories answer (Cc / So) is recorded.
            if unicodedata.category(ch) == "Cc":
                f |= F_OTHER
        if norm["StripAccents"][i] == "aa":
            f |= F_COMBINING_MARK
        elif norm["StripAccents"][i] != "a" + ch + "a":
            raise SystemExit(f"StripAccents: U+{cp:04X} unexpected")
        ch_out = norm["chinese"][i]
        want_cn = "a " + ch + " a"
        if ch_out not in (want_cn, "a" + ch + "a"):
            raise SystemExit(f"handle_chinese_chars: U+{cp:04X} unexpected")
        in_ranges = (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or
                     0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F or
                     0x2B740 <= cp <= 0x2B81F or 0x2B920 <= cp <= 0x2CEAF or
                     0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)
        if (ch_out == want_cn) != in_ranges:
            raise SystemExit(f"handle_chinese_chars: U+{cp:04X} range differs")
        if lower[cp] != ch:
            if not 1 <= len(lower[cp]) <= 3:
                raise SystemExit(f"Lowercase: U+{cp:04X} gave {lower[cp]!r}")
            f |= F_HAS_LOWER
            lower_map[cp] = lower[cp]
        if nfd[cp] != ch:
            f |= F_CANON_DECOMP
            if is_hangul(cp):
                if nfd[cp] != hangul_decompose(cp):
                    raise SystemExit(f"NFD: Hangul U+{cp:04X} differs")
            else:
                canon_map[cp] = nfd[cp]
        if nfkd[cp] != ch:
            f |= F_COMPAT_DECOMP
            if is_hangul(cp):
                if nfkd[cp] != hangul_decompose(cp):
                    raise SystemExit(f"NFKD: Hangul U+{cp:04X} differs")
            elif nfkd[cp] != nfd[cp]:
                compat_map[cp] = nfkd[cp]
        if cp <= 0x7F and (nfd[cp] != ch or nfkd[cp] != ch):
            raise SystemExit("ASCII decomposes?")
        flags[cp] = f
    log("flags derived")

    # Non-spacing marks (Bert strip_accents: NFD then drop Mn). Observable for
    # NFD-stable X; decomposable X (never seen after NFD) keep Python's Mn.
    mn = {}
    for i, cp in enumerate(cps):
        if nfd[cp] == chr(cp):
            out = norm["bert_strip"][i]
            if out == "aa":
                mn[cp] = True
            elif out == "a" + chr(cp) + "a":
                mn[cp] = False
            else:
                raise SystemExit(f"bert strip: U+{cp:04X} gave {out!r}")
        else:
            mn[cp] = unicodedata.category(chr(cp)) == "Mn"
    for i, cp in enumerate(cps):
        if nfd[cp] != chr(cp):
            want = "a" + "".join(c for c in nfd[cp] if not mn[ord(c)]) + "a"
            if norm["bert_strip"][i] != want:
                raise SystemExit(f"bert strip: U+{cp:04X} inconsistent")
        if mn[cp]:
            flags[cp] |= F_MARK_NONSPACING
    log("non-spacing marks derived")

    ccc, dropped = combining_classes(cps, nfd)
    log(f"combining classes verified ({dropped} unknown to tokenizers)")
    ccc_values = [0] * MAX_CP
    for cp, v in ccc.items():
        ccc_values[cp] = v

    pairs = composition_pairs(cps, nfd)
    for (a, b) in pairs:
        flags[a] |= F_COMPOSE_FIRST
        flags[b] |= F_COMPOSE_SECOND
    for cp in range(0x1100, 0x1113):
        flags[cp] |= F_COMPOSE_FIRST   # Hangul L
    for cp in range(0x1161, 0x1176):
        flags[cp] |= F_COMPOSE_SECOND  # Hangul V
    for cp in range(0x11A8, 0x11C3):
        flags[cp] |= F_COMPOSE_SECOND  # Hangul T
    for cp in range(HANGUL_S_BASE, HANGUL_S_BASE + HANGUL_S_COUNT, 28):
        flags[cp] |= F_COMPOSE_FIRST   # Hangul LV
    log(f"{len(pairs)} composition pairs verified")

    # Quick checks: c is "quick" for a composing form when that form leaves c
    # alone and nothing can compose across it: c is not the second char of a
    # pair, and its decomposition starts with a starter that is not either.
    # A run of quick chars then comes out of the crate unchanged, every
    # change 0 (each char decomposes and recomposes on its own).
    for key, dec, bit in (("NFC", nfd, F_NFC_QUICK), ("NFKC", nfkd, F_NFKC_QUICK)):
        for i, cp in enumerate(cps):
            if norm[key][i] != chr(cp) or flags[cp] & F_COMPOSE_SECOND:
                continue
            first = ord(dec[cp][0])
            if ccc_values[first] or flags[first] & F_COMPOSE_SECOND:
                continue
            flags[cp] |= bit

    cls, reps = script_classes(cps, pre["ScriptsLatin"], pre["ScriptsGreek"])
    script_values = [0] * MAX_CP
    for cp, v in cls.items():
        script_values[cp] = v
    if len(reps) > 255:
        raise SystemExit("too many script classes")
    verify_scripts(cps, lambda c: script_values[c])
    log(f"{len(reps)} script classes derived and verified")

    # Mapping pools: sorted keys, start offsets into a shared pool.
    pool = []

    def mapping(name, m):
        keys, starts = [], []
        for cp in sorted(m):
            keys.append(cp)
            starts.append(len(pool))
            pool.extend(ord(c) for c in m[cp])
        starts.append(len(pool))
        return keys, starts

    lower_keys, lower_starts = mapping("lower", lower_map)
    canon_keys, canon_starts = mapping("canon", canon_map)
    compat_keys, compat_starts = mapping("compat", compat_map)
    pair_list = sorted(pairs.items())
    pair_keys = [(a << 21) | b for (a, b), _ in pair_list]
    pair_vals = [c for _, c in pair_list]

    # Readable names: the most common first word of the members' names.
    words = [dict() for _ in reps]
    for cp, v in cls.items():
        try:
            w = unicodedata.name(chr(cp)).split()[0]
        except ValueError:
            continue
        words[v - 1][w] = words[v - 1].get(w, 0) + 1
    script_names = [max(w, key=w.get) if w else f"U+{r:04X}"
                    for w, r in zip(words, reps)]

    hdr = f"""\
// GENERATED by tools/gen_unicode_tables.py -- do not edit; rerun the generator
// (tools/check_generated.py regenerates it and diffs).
//
// Pinned to Hugging Face tokenizers=={PINNED}: every per-code-point fact below
// was obtained by probing that release through its Python API for every code
// point U+0000..U+10FFFF except surrogates (Rust char methods, the Rust regex
// crate's \\w and \\s, unicode_categories, unicode-normalization-alignments,
// and tokenizers' own UnicodeScripts table). Canonical combining classes and
// composition pairs come from Python's unicodedata
// {unicodedata.unidata_version} and were verified against tokenizers' NFD and NFC; {dropped} marks that
// tokenizers' Unicode 9 data does not know have class 0 here.
//
// Layout: two-stage tables (value = stage2[(stage1[cp >> shift] << shift) |
// (cp & mask)]) and sorted mapping keys with start offsets into one pool.
#pragma once

#include <cstdint>

namespace snaptok::unicode::tables {{

enum : std::uint16_t {{
  kWhitespace = {F_WHITESPACE},
  kRegexSpace = {F_REGEX_SPACE},
  kWord = {F_WORD},
  kNumeric = {F_NUMERIC},
  kPunctuation = {F_PUNCT},
  kOther = {F_OTHER},
  kMarkNonspacing = {F_MARK_NONSPACING},
  kCombiningMark = {F_COMBINING_MARK},
  kHasLower = {F_HAS_LOWER},
  kCanonDecomp = {F_CANON_DECOMP},
  kCompatDecomp = {F_COMPAT_DECOMP},
  kComposeFirst = {F_COMPOSE_FIRST},
  kComposeSecond = {F_COMPOSE_SECOND},
  kNfcQuick = {F_NFC_QUICK},
  kNfkcQuick = {F_NFKC_QUICK},
}};

// Script classes of tokenizers' UnicodeScripts pre-tokenizer after its fixes
// (Hiragana/Katakana/U+30FC count as Han, ' ' as Any); 0 is Any. The names
// (the commonest first word of the class's character names) are for reading.
inline constexpr unsigned kScriptCount = {len(reps) + 1};
inline constexpr const char* kScriptNames[kScriptCount] = {{
"Any",{",".join('"' + n + '"' for n in script_names)}}};
"""
    body = [
        emit_two_stage("kFlags", flags, "std::uint16_t", 2),
        emit_two_stage("kCcc", ccc_values, "std::uint8_t", 1),
        emit_two_stage("kScript", script_values, "std::uint8_t", 1),
        c_array("kMapPool", "std::uint32_t", pool),
        c_array("kLowerKeys", "std::uint32_t", lower_keys),
        c_array("kLowerStarts", "std::uint16_t", lower_starts),
        c_array("kCanonKeys", "std::uint32_t", canon_keys),
        c_array("kCanonStarts", "std::uint16_t", canon_starts),
        c_array("kCompatKeys", "std::uint32_t", compat_keys),
        c_array("kCompatStarts", "std::uint16_t", compat_starts),
        "// Composition pairs (first << 21 | second) -> composite, Hangul aside.",
        c_array("kComposeKeys", "std::uint64_t", pair_keys, 12),
        c_array("kComposeValues", "std::uint32_t", pair_vals),
    ]
    if len(pool) >= 65536:
        raise SystemExit("mapping pool too large for uint16 starts")
    text = hdr + "\n" + "\n\n".join(body) + "\n\n}  // namespace snaptok::unicode::tables\n"
    out = os.path.abspath(args.out)
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(text)
    log(f"wrote {out} ({len(text) / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
