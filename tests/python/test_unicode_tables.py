"""Every code point U+0000..U+10FFFF (surrogates excluded) is treated by
snaptok exactly as by the pinned `tokenizers`, for each fact that
include/snaptok/unicode/generated/tables.hpp (tools/gen_unicode_tables.py) pins:

- NFD, NFKD, NFC, NFKC, Lowercase, StripAccents, Nmt and each BertNormalizer
  step, per code point, with the alignment of every normalized char;
- the char classes the pre-tokenizers use: Rust char::is_whitespace
  (WhitespaceSplit), Rust regex \\w and \\s (Whitespace), char::is_numeric
  (Digits), punctuation (Punctuation, BertPreTokenizer), HF's script table
  (UnicodeScripts), and \\w as added tokens' single_word sees it.

Oniguruma's classes (\\p{L}, \\p{N}, \\p{M}, \\s, ...) used by Split patterns
are checked the same way in test_regex_classes.py.

Each check builds a tiny tokenizer.json (the component under test and a
model whose tokens show the text: a byte-fallback BPE with only the 256 byte
tokens after a one-char-per-piece Split, or a WordLevel model when only the
pieces matter) and compares ids and offsets of snaptok and tokenizers on long
strings made of every code point of one plane (the tokens follow from the
ids there).
"""

from __future__ import annotations

import random
import unicodedata

import pytest

tokenizers = pytest.importorskip("tokenizers")
snaptok = pytest.importorskip("snaptok")

from parity_helpers import BYTE_MODEL, CHAR_SPLIT  # noqa: E402
from parity_helpers import pipeline_json as tokenizer_json  # noqa: E402

PLANES = [
    [c for c in range(lo, lo + 0x10000) if not 0xD800 <= c <= 0xDFFF]
    for lo in range(0, 0x110000, 0x10000)
]


# Planes with assigned characters (the others are unassigned or private use).
ASSIGNED_PLANES = (0, 1, 2, 3, 14)


def assert_same(js: str, text: str, what: str) -> None:
    """Encodes `text` with both libraries; on a difference, names the first
    differing token and the code points around it."""
    want = tokenizers.Tokenizer.from_str(js).encode(text, add_special_tokens=False)
    got = snaptok.Tokenizer.from_str(js).encode(text, add_special_tokens=False)
    if want.ids == got.ids and want.offsets == [tuple(o) for o in got.offsets]:
        return
    w = list(zip(want.ids, [tuple(o) for o in want.offsets]))
    g = list(zip(got.ids, [tuple(o) for o in got.offsets]))
    i = next((k for k, (a, b) in enumerate(zip(w, g)) if a != b), min(len(w), len(g)))
    at = (w[i] if i < len(w) else g[i])[1][0]
    around = " ".join(f"U+{ord(c):04X}" for c in text[max(0, at - 3):at + 4])
    pytest.fail(f"{what}: token {i} differs (tokenizers (id, offsets) {w[i:i + 3]}, "
                f"snaptok {g[i:i + 3]}); input around char {at}: {around}")


NORMALIZERS = {
    "NFD": {"type": "NFD"},
    "NFKD": {"type": "NFKD"},
    "NFC": {"type": "NFC"},
    "NFKC": {"type": "NFKC"},
    "Lowercase": {"type": "Lowercase"},
    "StripAccents": {"type": "StripAccents"},
    "Nmt": {"type": "Nmt"},
    "Bert-clean_text": {"type": "BertNormalizer", "clean_text": True,
                        "handle_chinese_chars": False, "strip_accents": False,
                        "lowercase": False},
    "Bert-chinese": {"type": "BertNormalizer", "clean_text": False,
                     "handle_chinese_chars": True, "strip_accents": False,
                     "lowercase": False},
    "Bert-strip_accents": {"type": "BertNormalizer", "clean_text": False,
                           "handle_chinese_chars": False, "strip_accents": True,
                           "lowercase": False},
    "Bert-default": {"type": "BertNormalizer", "clean_text": True,
                     "handle_chinese_chars": True, "strip_accents": None,
                     "lowercase": True},
}


@pytest.mark.parametrize("name", list(NORMALIZERS))
def test_normalizer_every_code_point(name):
    """Every code point alone between spaces (planes with assigned chars),
    then all code points of each plane back to back (marks reorder and
    compose across neighbours)."""
    normalizer = NORMALIZERS[name]
    js = tokenizer_json(normalizer, CHAR_SPLIT, BYTE_MODEL)
    for plane in ASSIGNED_PLANES:
        assert_same(js, " ".join(map(chr, PLANES[plane])), f"{name} plane {plane} spaced")
    for plane, cps in enumerate(PLANES):
        assert_same(js, "".join(map(chr, cps)), f"{name} plane {plane}")


PRE_TOKENIZERS = {
    "WhitespaceSplit": {"type": "WhitespaceSplit"},
    "Whitespace": {"type": "Whitespace"},
    "Digits": {"type": "Digits", "individual_digits": True},
    "Digits-contiguous": {"type": "Digits", "individual_digits": False},
    "Punctuation": {"type": "Punctuation", "behavior": "Isolated"},
    "BertPreTokenizer": {"type": "BertPreTokenizer"},
    "UnicodeScripts": {"type": "UnicodeScripts"},
}


@pytest.mark.parametrize("name", list(PRE_TOKENIZERS))
def test_pre_tokenizer_classes_every_code_point(name):
    """Each code point between two letters: its class decides the pieces."""
    pre = PRE_TOKENIZERS[name]
    for plane, cps in enumerate(PLANES):
        text = "".join("a" + chr(c) + "a " for c in cps)
        assert_same(tokenizer_json(None, pre), text, f"{name} plane {plane}")


def test_unicode_scripts_classes_every_code_point():
    """All code points in order, then shuffled: a piece starts exactly where
    the script class changes, so this compares every class boundary."""
    pre = PRE_TOKENIZERS["UnicodeScripts"]
    rng = random.Random(20240501)
    everything = [c for cps in PLANES for c in cps]
    shuffled = everything[:]
    rng.shuffle(shuffled)
    for label, order in (("in order", everything), ("shuffled", shuffled)):
        for lo in range(0, len(order), 0x20000):
            text = "".join(map(chr, order[lo:lo + 0x20000]))
            assert_same(tokenizer_json(None, pre), text, f"UnicodeScripts {label} @{lo}")


def test_single_word_added_token_every_code_point():
    """An added token with single_word matches only between non-\\w chars
    (HF checks `\\w$` before it and `^\\w` after it with Rust regex)."""
    added = [{"id": 1, "content": "@", "single_word": True, "lstrip": False,
              "rstrip": False, "normalized": False, "special": False}]
    model = {"type": "WordLevel", "vocab": {"[UNK]": 0, "@": 1}, "unk_token": "[UNK]"}
    js = tokenizer_json(None, {"type": "WhitespaceSplit"}, model, added)
    for plane, cps in enumerate(PLANES):
        text = "".join(chr(c) + "@" + chr(c) + " " for c in cps)
        assert_same(js, text, f"single_word plane {plane}")


def test_strip_every_space_like_code_point():
    """Strip uses char::is_whitespace at both ends: every separator, control
    and format char (and everything Python calls a space) at both ends."""
    candidates = [c for cps in PLANES for c in cps
                  if chr(c).isspace() or unicodedata.category(chr(c))[0] == "Z"
                  or unicodedata.category(chr(c)) in ("Cc", "Cf")]
    for c in candidates:
        text = chr(c) + chr(c) + "x" + chr(c) + "y" + chr(c)
        for left, right in ((True, True), (True, False), (False, True)):
            normalizer = {"type": "Strip", "strip_left": left, "strip_right": right}
            js = tokenizer_json(normalizer, CHAR_SPLIT, BYTE_MODEL)
            assert_same(js, text, f"Strip({left}, {right}) U+{c:04X}")
