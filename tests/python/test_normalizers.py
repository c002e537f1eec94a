"""Parity of every normalizer component and option with the pinned HF
``tokenizers``: NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents, Replace,
Prepend, BertNormalizer, Nmt, Sequence, and the untyped forms HF still reads.

Each configuration is put in a tokenizer.json whose model shows the
normalized text (a byte-fallback BPE with only the 256 byte tokens, after a
one-char-per-piece Split or a WhitespaceSplit); snaptok and tokenizers must
give the same ids, tokens and offsets on edge-case strings, seeded random
strings, hypothesis strings, and, when ../shared/data is present, corpus lines
and the Unicode normalization test strings. The ids-only path (encode_ids)
must give the same ids. Configurations HF rejects must be rejected, with an
error that starts with the JSON path of the bad part.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

tokenizers = pytest.importorskip("tokenizers")
snaptok = pytest.importorskip("snaptok")

from parity_helpers import BYTE_VOCAB, BYTE_MODEL, CHAR_SPLIT  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"

PRE_TOKENIZERS = {"chars": CHAR_SPLIT, "words": {"type": "WhitespaceSplit"}}


def tokenizer_json(normalizer, pre_tokenizer=CHAR_SPLIT, added_tokens=()):
    vocab = dict(BYTE_VOCAB)
    for t in added_tokens:
        vocab.setdefault(t["content"], t["id"])
    return json.dumps({
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": list(added_tokens),
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": None,
        "model": dict(BYTE_MODEL, vocab=vocab),
    })


# --------------------------------------------------------------------------
# Configurations: every component, every option.

CONFIGS: dict[str, dict] = {
    "NFC": {"type": "NFC"},
    "NFD": {"type": "NFD"},
    "NFKC": {"type": "NFKC"},
    "NFKD": {"type": "NFKD"},
    "Lowercase": {"type": "Lowercase"},
    "StripAccents": {"type": "StripAccents"},
    "Nmt": {"type": "Nmt"},
    "Strip-both": {"type": "Strip", "strip_left": True, "strip_right": True},
    "Strip-left": {"type": "Strip", "strip_left": True, "strip_right": False},
    "Strip-right": {"type": "Strip", "strip_left": False, "strip_right": True},
    "Strip-none": {"type": "Strip", "strip_left": False, "strip_right": False},
    "Prepend-metaspace": {"type": "Prepend", "prepend": "\u2581"},
    "Prepend-empty": {"type": "Prepend", "prepend": ""},
    "Prepend-multi": {"type": "Prepend", "prepend": "<s>\u0301\u91ce"},
    "Replace-space-metaspace": {"type": "Replace", "pattern": {"String": " "},
                                "content": "\u2581"},
    "Replace-delete": {"type": "Replace", "pattern": {"String": "a"}, "content": ""},
    "Replace-metachars": {"type": "Replace", "pattern": {"String": ".*[x]"},
                          "content": "$1\\"},
    "Replace-empty-string": {"type": "Replace", "pattern": {"String": ""}, "content": "_"},
    "Replace-grow": {"type": "Replace", "pattern": {"String": "e\u0301"},
                     "content": "\u00e9\u00e9\u00e9"},
    "Replace-regex-spaces": {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
    "Replace-regex-empty": {"type": "Replace", "pattern": {"Regex": ""}, "content": "|"},
    "Replace-regex-marks": {"type": "Replace", "pattern": {"Regex": r"\p{M}+"},
                            "content": ""},
    "Replace-regex-anchors": {"type": "Replace", "pattern": {"Regex": r"^\s|\s$"},
                              "content": "#"},
    "Replace-regex-case": {"type": "Replace", "pattern": {"Regex": "(?i)the"},
                           "content": "THE"},
    "Sequence-empty": {"type": "Sequence", "normalizers": []},
    "Sequence-t5ish": {"type": "Sequence", "normalizers": [
        {"type": "Strip", "strip_left": False, "strip_right": True},
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "\u2581"}]},
    "Sequence-llama": {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "\u2581"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
    "Sequence-uncased": {"type": "Sequence", "normalizers": [
        {"type": "NFD"}, {"type": "Lowercase"}, {"type": "StripAccents"}]},
    "Sequence-clip": {"type": "Sequence", "normalizers": [
        {"type": "NFC"}, {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
        {"type": "Lowercase"}]},
    "Sequence-everything": {"type": "Sequence", "normalizers": [
        {"type": "NFKD"}, {"type": "StripAccents"}, {"type": "Nmt"},
        {"type": "Strip", "strip_left": True, "strip_right": True},
        {"type": "Prepend", "prepend": "\u2581"}, {"type": "NFKC"}, {"type": "Lowercase"},
        {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
         "strip_accents": None, "lowercase": False}]},
    "Bert-type-Bert": {"type": "Bert", "clean_text": True, "handle_chinese_chars": True,
                       "lowercase": True},
    # Forms HF reads without a known "type".
    "untyped-Strip": {"strip_left": True, "strip_right": False},
    "untyped-Bert": {"clean_text": True, "handle_chinese_chars": False, "lowercase": True},
    "untyped-Prepend": {"type": "Foo", "prepend": "x"},
    "untyped-Replace": {"pattern": {"String": " "}, "content": "_"},
    "untyped-Sequence": {"type": 7, "normalizers": [{"type": "Lowercase"}]},
}
for ct, hc, sa, lc in itertools.product([True, False], [True, False], [None, True, False],
                                        [True, False]):
    CONFIGS[f"Bert-ct{int(ct)}-hc{int(hc)}-sa{sa}-lc{int(lc)}"] = {
        "type": "BertNormalizer", "clean_text": ct, "handle_chinese_chars": hc,
        "strip_accents": sa, "lowercase": lc}
CONFIGS["Bert-no-strip_accents-field"] = {
    "type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
    "lowercase": False}

# --------------------------------------------------------------------------
# Inputs

EDGE = [
    "", " ", "  ", "a", "A", "\u0301", "\u0301a", "a\u0301", "e\u0301\u0301\u0316x",
    "  Hello  World  ", "\tTabs\tand\nnewlines\r\n", "\u3000ideographic\u3000space\u3000",
    "H\u00e9llo W\u00f6rld \u00c0\u00c9\u00ce\u00d5\u00dc caf\u00e9 na\u00efve",
    "Me llam\u00f3 \u1eadh\u2026", "\u0130stanbul \u0131 I\u0307", "\u01c4 \u01c5 \u01c6 \u1e9e \u00df",
    "\u03a3\u0391\u03a3 \u03c3\u03b1\u03c2 \u2126 \u212b \u212a",
    "\ufb01 \ufb03 \u2460 \u2167 \u00bd \u00b2 \u2075 \u3392 \u32c0 \u1d2c",
    "\uac00\uac01 \u1100\u1161\u11a8 \uac00\u11a8 \u1100\u1161 \u3131\u314f",
    "\u91ce\u53e3\u91cc\u4f73 Noguchi Rika \u4e00\u4e8c\u4e09abc\u56db",
    "\U00020000\U0002a700\U0002ceaf\U0002f800 \u3400\uf900",
    "\u3053\u3093\u306b\u3061\u306f \u30ab\u30bf\u30ab\u30ca \u30fc",
    "\x00a\ufffdb\x01c\x7fd\x9fe\u200bf\u200dg\ufeffh\u2028i\u2029j\x85k",
    "a\x08b\x0bc\x0cd\x0ee\x1ff\x8fg\u1680h\u200ei\u200fj\u2581k",
    "\u0e33\u0e19\u0e49\u0e33 3\u0e25\u0e33", "\u0928\u093f \u0915\u094d\u0937",
    "\u05e9\u05c1\u05b8 \u0627\u064e\u0644\u0652", "\u0f73\u0f75\u0f81 \u0f71\u0f72",
    "\U0001d15e\U0001d160 \U0001d400\U0001d7ce", "\u1e9b\u0323 \u1e0b\u0323 \u0071\u0307\u0323",
    "\U0001f600\U0001f44d\U0001f3fd \U0001f469\u200d\U0001f469\u200d\U0001f467 \U0001f1eb\U0001f1f7",
    "\ue000\U000f0000\U0010ffff \U000e0001\U000e0041",
    "x" + "\u0301" * 50 + "\u0316" * 50 + "y",
    "The the THE tHe. Everything...  ends   here ",
    ".*[x]$1\\ .*[x]", "e\u0301e\u0301", "aaa a", "\u2581already\u2581has",
]


def random_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pool = (list(range(0x20, 0x250)) + list(range(0x300, 0x370)) + list(range(0x370, 0x400))
            + list(range(0x1E00, 0x1F00)) + list(range(0x3000, 0x3100))
            + list(range(0xAC00, 0xAC40)) + list(range(0x1100, 0x1120))
            + list(range(0x1161, 0x1176)) + list(range(0x11A8, 0x11C3))
            + list(range(0xFB00, 0xFB50)) + list(range(0xFF00, 0xFF60))
            + [0, 1, 9, 10, 13, 0x0B, 0x0C, 0x7F, 0x85, 0xA0, 0x1680, 0x2000, 0x200B, 0x200D,
               0x2028, 0xFEFF, 0xFFFD, 0x2581, 0x4E00, 0x9FA5, 0x20000, 0x1F600, 0xE000,
               0x10FFFF, 0x0130, 0x212B, 0x2126, 0x1D15E, 0x0F73, 0x0344, 0x0345, 0x1DFA])
    return ["".join(chr(rng.choice(pool)) for _ in range(rng.randint(0, 24)))
            for _ in range(n)]


def shared_texts() -> list[str]:
    texts: list[str] = []
    rng = random.Random(11)
    for rel in ("corpus/multilingual/udhr_all_languages.txt",
                "corpus/en/brown_untagged.txt",
                "corpus/multilingual/kougo_bible_ja.txt",
                "corpus/code/cpython311_stdlib_8MB.py.txt"):
        path = SHARED / rel
        if path.is_file():
            lines = path.read_text(encoding="utf-8").splitlines()
            texts += rng.sample(lines, min(400, len(lines)))
    tsv = SHARED / "corpus/unicode/normalization_test_strings.tsv"
    if tsv.is_file():
        seen = dict.fromkeys(c for line in tsv.read_text(encoding="utf-8").splitlines()
                             for c in line.split("\t"))
        texts += list(seen)
    return texts


TEXTS = EDGE + random_texts(600, 3)
SHARED_TEXTS = shared_texts()

# --------------------------------------------------------------------------
# Comparison


def assert_same(js: str, texts: list[str], what: str) -> None:
    hf = tokenizers.Tokenizer.from_str(js)
    ours = snaptok.Tokenizer.from_str(js)
    for text in texts:
        want = hf.encode(text, add_special_tokens=False)
        got = ours.encode(text, add_special_tokens=False)
        ctx = f"{what}: {text!r}"
        assert got.ids == want.ids, ctx
        assert got.tokens == want.tokens, ctx
        assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], ctx
        assert list(ours.encode_ids(text, add_special_tokens=False)) == want.ids, ctx


@pytest.mark.parametrize("pre", list(PRE_TOKENIZERS))
@pytest.mark.parametrize("name", list(CONFIGS))
def test_edge_and_random_strings(name, pre):
    assert_same(tokenizer_json(CONFIGS[name], PRE_TOKENIZERS[pre]), TEXTS, name)


@pytest.mark.skipif(not SHARED_TEXTS, reason="../shared/data is not present")
@pytest.mark.parametrize("name", [n for n in CONFIGS if not n.startswith("Bert-ct")]
                         + ["Bert-ct1-hc1-saNone-lc1", "Bert-ct1-hc1-saFalse-lc0"])
def test_corpus_and_normalization_test_strings(name):
    assert_same(tokenizer_json(CONFIGS[name]), SHARED_TEXTS, name)


MARKY = st.text(
    alphabet=st.sampled_from(
        "aAeEoOuUnNcCsSkKiI \u00e9\u00c5\u0130\u212b\u1e9b\ufb01\u2126\u0344\u0f73"
        "\u0300\u0301\u0302\u0303\u0308\u030a\u0316\u0323\u0327\u0328\u0334\u0345\u05b0"
        "\u0f71\u0f72\u0f74\u0f80\u1dfa\u302a\u0b47\u0b3e\u0cc6\u0cd5\u1025\u102e"
        "\uac00\uac01\u1100\u1161\u11a8\u11c2\u3131\u91ce\u4e00\x00\x01\t\u200b\ufffd"
        "\U0001d15e\U0001d165\U0001d16d\U00020000"),
    max_size=30)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=MARKY)
def test_hypothesis_marks_and_hangul(text):
    for name in ("NFC", "NFD", "NFKC", "NFKD", "Sequence-uncased", "Bert-ct1-hc1-saNone-lc1",
                 "StripAccents", "Lowercase"):
        assert_same(tokenizer_json(CONFIGS[name]), [text], name)


def test_added_tokens_with_normalizers():
    """Added tokens are matched before (normalized=False) or after
    (normalized=True) the normalizer, which then runs on the text between."""
    added = [
        {"id": 300, "content": "[MASK]", "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": True},
        {"id": 301, "content": "h\u00e9llo", "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": True, "special": False},
    ]
    texts = ["H\u00c9LLO [MASK] he\u0301llo", "[MASK]\u0301[MASK]", " [MASK] HELLO h\u00e9llo"]
    for name in ("Lowercase", "NFD", "NFC", "Bert-ct1-hc1-saNone-lc1", "Strip-both",
                 "Prepend-metaspace", "Replace-space-metaspace"):
        assert_same(tokenizer_json(CONFIGS[name], CHAR_SPLIT, added), texts, name)


# --------------------------------------------------------------------------
# Loading: HF accepts exactly what snaptok accepts.

LOADS = [
    {"type": "NFC", "unknown_field": 1},
    {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
     "lowercase": True, "strip_accents": None},
    {"type": "Strip", "strip_left": True, "strip_right": True, "extra": [1]},
    {"type": "Foo", "normalizers": []},
    {"type": "Prepend", "prepend": ""},
]
REJECTS = [
    ({"type": "BertNormalizer"}, "normalizer"),
    ({"type": "BertNormalizer", "clean_text": None, "handle_chinese_chars": True,
      "lowercase": True}, "normalizer"),
    ({"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
      "lowercase": True, "strip_accents": 1}, "normalizer"),
    ({"type": "Bert", "clean_text": True, "handle_chinese_chars": True, "lowercase": 1},
     "normalizer.lowercase"),
    ({"type": "Strip"}, "normalizer"),
    ({"type": "Strip", "strip_left": True, "strip_right": 1}, "normalizer.strip_right"),
    ({"type": "Prepend"}, "normalizer"),
    ({"type": "Prepend", "prepend": 5}, "normalizer.prepend"),
    ({"type": "Replace", "pattern": {"String": "a"}}, "normalizer"),
    ({"type": "Replace", "pattern": {"Regex": "("}, "content": "b"}, "normalizer.pattern.Regex"),
    ({"type": "Replace", "pattern": {"Foo": "a"}, "content": "b"}, "normalizer.pattern"),
    ({"type": "Replace", "pattern": "a", "content": "b"}, "normalizer.pattern"),
    ({"type": "Replace", "pattern": {"String": "a", "Regex": "b"}, "content": "b"},
     "normalizer.pattern"),
    ({"type": "Replace", "pattern": {"String": 5}, "content": "b"}, "normalizer.pattern"),
    ({"type": "Foo"}, "normalizer"),
    ({}, "normalizer"),
    ({"type": "Sequence"}, "normalizer"),
    ({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Bar"}]},
     "normalizer.normalizers[1]"),
    ({"pattern": {"Regex": "("}, "content": "b"}, "normalizer"),
    # HF never reads Precompiled without its type.
    ({"precompiled_charsmap": ""}, "normalizer"),
]


@pytest.mark.parametrize("normalizer", LOADS, ids=lambda n: json.dumps(n))
def test_loads_what_hf_loads(normalizer):
    js = tokenizer_json(normalizer)
    tokenizers.Tokenizer.from_str(js)
    snaptok.Tokenizer.from_str(js)


@pytest.mark.parametrize("normalizer,path", REJECTS, ids=lambda n: json.dumps(n))
def test_rejects_what_hf_rejects(normalizer, path):
    js = tokenizer_json(normalizer)
    with pytest.raises(Exception):
        tokenizers.Tokenizer.from_str(js)
    with pytest.raises(Exception) as err:
        snaptok.Tokenizer.from_str(js)
    assert str(err.value).startswith(path), str(err.value)
