"""Writes the starting corpus of each fuzz target (fuzz/snaptok_fuzz.cpp)
into a folder, one subfolder per target, from the seeds in fuzz/seeds, the
bundled tokenizers and the bundled sample text. Each input starts with the
option bytes its target reads (see fuzz/targets/*.hpp). Needs the installed
snaptok (for the .st images and the ids of the decode seeds).

    .venv/bin/python fuzz/make_corpora.py build/fuzz/corpus
"""

import hashlib
import sys
from pathlib import Path

import snaptok

ROOT = Path(__file__).resolve().parents[1]
SEEDS = sorted((ROOT / "fuzz" / "seeds").glob("*.json"))
# The order fuzz_support.hpp loads the tokenizers in (the first byte picks one).
TOKENIZERS = SEEDS + [ROOT / "tests/data/gpt2/tokenizer.json",
                      ROOT / "tests/data/spm-botchan-unigram-1000-t5/tokenizer.json"]
SAMPLE = (ROOT / "python/snaptok/data/sample.txt").read_text(encoding="utf-8").splitlines()
# Lines that reach the corners: several scripts, marks, emoji, digits, odd spaces.
EXTRA = [
    "Hello world! It's 2024: café 😀 <|endoftext|> [CLS] </s>",
    "  a\tb\n\nc\u2003d 中文 e\u0301 Ａ 12345 I'LL we'Ve ｶﾀｶﾅ",
    "👩\u200d💻 ﷺ ŉ ǅ Ⅷ ½ ² \u3000x\r\ny\u00a0z",
    "x" * 300 + " " + "9" * 50 + "!" * 20,
]
TEXTS = [line for line in SAMPLE if line.strip()][:48] + EXTRA
# Split patterns the compiled scanner takes (tests/cpp/test_automaton.cpp).
PATTERNS = [
    " ?[^(\\s|[.,!?…。，、।۔،])]+", "[0-9][0-9][0-9]", "\\p{N}{1,3}", "[一-龥\\u3040-ゟ゠-ヿ]+", "[\\r\\n]+",
    " ?[^\\s\\p{L}\\p{N}]+", "(?i:'s|'t|'re|'ve|'m|'ll|'d)| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
    "[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s+(?!\\S)|\\s+",
    "\\S+", ".", "(?i:K)+", "x\\z|\\p{L}+", "\\n$|[a-z]", "a*?", "\\p{N}{2,4}?|(?=\\p{L})\\p{Lu}",
]


def write(folder: Path, data: bytes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def main(out: Path) -> None:
    for seed in SEEDS + TOKENIZERS[-2:]:
        write(out / "json_loader", seed.read_bytes())
        write(out / "st_loader", snaptok.Tokenizer.from_file(str(seed)).to_st_bytes())
    loaded = [snaptok.Tokenizer.from_file(str(p)) for p in TOKENIZERS]
    for i, text in enumerate(TEXTS):
        raw = text.encode()
        which = i % len(TOKENIZERS)
        # encode_paths: tokenizer, flags (add special tokens; 1-7 piece sizes), part bytes, sizes.
        write(out / "encode_paths", bytes([which, (i % 8) << 5 | (i & 1), 1 + i * 7 % 64])
              + bytes(range(3, 3 + i % 8)) + raw)
        # bpe_merges: model, then a piece's raw bytes (a word, a long run, the whole line).
        for piece in (raw.split(b" ")[0], raw[:40], raw):
            write(out / "bpe_merges", bytes([i]) + piece)
        # scanners: pattern, Highway target.
        write(out / "scanners", bytes([i, i // 11]) + raw)
        # automaton: a pattern, NUL, the text.
        write(out / "automaton", PATTERNS[i % len(PATTERNS)].encode() + b"\0" + raw)
        # decode: tokenizer, flags (skip special; text mode), then ids or the text.
        ids = loaded[which].encode_ids(text)
        write(out / "decode", bytes([which, i & 1]) + b"".join(x.to_bytes(2, "little") for x in ids if x < 65536))
        write(out / "decode", bytes([which, 2 | (i & 1)]) + raw)
        # added_tokens: one token per flags byte, then the text.
        tokens = [(i % 32, "<|x|>"), (i * 3 % 32, " ."), (i * 5 % 32, "\u00e9")]
        head = bytes([len(tokens) - 1]) + b"".join(
            bytes([flags, len(c.encode()) - 1]) + c.encode() for flags, c in tokens)
        write(out / "added_tokens", head + f"a<|x|> . {text} <|x|>\u00e9 .".encode())


if __name__ == "__main__":
    main(Path(sys.argv[1]))
