"""Pathological inputs run in linear time (issue 10).

For each input kind, the text is built at three sizes (x1, x4, x16; x16 is
the size the issue names) and encoded as one call. The `exponent` row is
log(time at x16 / time at x1) / log 16: 1.0 for linear time, 2.0 for
quadratic (noise on a shared machine moves it by a few tenths). snaptok's ids (`encode_ids`, the fused path, and
`encode`, the general stages with offsets) are checked against HF
`tokenizers` at every size HF is run on. HF is timed too, but skipped at the
larger sizes once one call takes more than `--hf-budget` seconds.

    python bench/pathological.py                  # bundled GPT-2 and T5-style Unigram
    python bench/pathological.py --tokenizer path/to/tokenizer.json --scale 0.25

Kinds: 1 MB of letters, digits and punctuation without a space; 300,000
copies of one letter; 100,000 combining marks on one letter; emoji ZWJ
family chains with skin tones, no spaces; 100,000 special tokens in one text,
alone and between words.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from pathlib import Path

import snaptok
import tokenizers

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TOKENIZERS = [
    ROOT / "tests" / "data" / "gpt2" / "tokenizer.json",
    ROOT / "tests" / "data" / "spm-botchan-unigram-1000-t5" / "tokenizer.json",
]


def no_space(n_bytes: int) -> str:
    rng = random.Random(7)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:-_'\"!?()[]{}/"
    return "".join(rng.choice(alphabet) for _ in range(n_bytes))


def special_token_text(tok: tokenizers.Tokenizer) -> str | None:
    specials = [t.content for t in tok.get_added_tokens_decoder().values() if t.special]
    return specials[0] if specials else None


def kinds(hf: tokenizers.Tokenizer, scale: float):
    """Yields (name, builder(size multiplier) -> text)."""
    yield "1 MB, no space", lambda k: no_space(int(64_000 * scale) * k)
    yield "300k x one letter", lambda k: "a" * (int(18_750 * scale) * k)
    yield "100k combining marks", lambda k: "e" + "\u0301" * (int(6_250 * scale) * k)
    family = "\U0001F469\U0001F3FD\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466"
    yield "emoji ZWJ chains", lambda k: family * (int(1_500 * scale) * k)
    special = special_token_text(hf)
    if special:
        yield "100k special tokens", lambda k: special * (int(6_250 * scale) * k)
        yield "100k special tokens + words", lambda k: (special + "word ") * (int(6_250 * scale) * k)


def timed(fn, repeat: int, min_time: float = 0.2) -> tuple[float, object]:
    """Returns (the fastest of at least `repeat` calls, going on until
    `min_time` has passed, and the last result): the fastest is the one
    least disturbed by other work on the machine."""
    times, out = [], None
    while len(times) < repeat or sum(times) < min_time:
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokenizer", action="append", type=Path, help="tokenizer.json (repeatable)")
    ap.add_argument("--scale", type=float, default=1.0, help="size multiplier for every kind (default 1)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per size (at least); the fastest counts")
    ap.add_argument("--min-time", type=float, default=0.2, help="time each size for at least this long (s)")
    ap.add_argument("--hf-budget", type=float, default=5.0, help="skip HF's larger sizes past this (s)")
    args = ap.parse_args()

    print(f"snaptok {snaptok.__version__} (SIMD {snaptok.simd_target()}), tokenizers {tokenizers.__version__}; "
          f"one call per text, fastest of >= {args.repeat} runs")
    print(f"{'tokenizer':<32} {'input':<28} {'size':>9} {'fused ms':>9} {'full ms':>9} {'HF ms':>9}  ids")
    for path in args.tokenizer or DEFAULT_TOKENIZERS:
        hf = tokenizers.Tokenizer.from_file(str(path))
        tok = snaptok.Tokenizer.from_file(str(path))
        for t in (hf, tok):
            t.no_truncation()
            t.no_padding()
        name = path.parent.name
        for kind, build in kinds(hf, args.scale):
            fused_times, full_times, hf_over = [], [], False
            for k in (1, 4, 16):
                text = build(k)
                fused, ids = timed(lambda: tok.encode_ids(text), args.repeat, args.min_time)
                full, enc = timed(lambda: tok.encode(text), args.repeat, args.min_time)
                fused_times.append(fused)
                full_times.append(full)
                verdict, hf_ms = "not run", "-"
                if not hf_over:
                    hf_time, hf_enc = timed(lambda: hf.encode(text), 1, 0.0)
                    hf_ms = f"{hf_time * 1e3:9.1f}"
                    hf_over = hf_time > args.hf_budget
                    same = list(ids) == hf_enc.ids == enc.ids and enc.offsets == hf_enc.offsets
                    verdict = "= HF" if same else "MISMATCH"
                size = f"{len(text.encode()) / 1e3:.0f} KB"
                print(f"{name:<32} {kind:<28} {size:>9} {fused * 1e3:9.1f} {full * 1e3:9.1f} {hf_ms:>9}  {verdict}")
            exponent = lambda t: math.log(t[2] / t[0]) / math.log(16)
            print(f"{'':<32} {'':<28} {'exponent':>9} {exponent(fused_times):9.2f} {exponent(full_times):9.2f}")


if __name__ == "__main__":
    main()
