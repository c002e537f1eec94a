"""Regression tests for parity bugs found in reports: each builds its
pipeline here with HF ``tokenizers`` (no downloads) and compares snaptok with
HF element by element (ids, tokens, offsets).

1. Unicode classes inside a bracket. Oniguruma gives ``\\w`` (and
   ``\\p{Word}``) a different set alone than inside a bracket: alone it
   matches ² ³ ¹ ¼ ½ ¾ (Unicode No), in ``[\\w]`` it does not. snaptok pinned
   both to the lone set, so ``Replace([^\\w\\s], "")`` kept ½ and ² where HF
   deletes them. Also covered: POSIX brackets (``[[:punct:]]``), \\p{..}
   names the system Oniguruma knows from older Unicode data, and ``(?i)``,
   which folds case in a bracket but not in a lone ``\\p{..}``.
2. BPE byte fallback with a continuing_subword_prefix / end_of_word_suffix.
   HF gives each byte token of "##" + char a length of one byte, prefix
   included, so later offsets of the word run past its end; HF then maps
   those byte offsets to chars with a start-in-text, end-past-text rule that
   snaptok did not follow (``##🏽`` at (16, 20) instead of HF's (8, 10)).
"""

from __future__ import annotations

import json
import random

import pytest

tokenizers = pytest.importorskip("tokenizers")
snaptok = pytest.importorskip("snaptok")

from parity_helpers import BYTE_VOCAB, BYTE_MODEL, CHAR_SPLIT, pipeline_json  # noqa: E402

CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
ALL_CODE_POINTS = "".join(map(chr, CODE_POINTS))


def assert_same_tokens(st_enc, hf_enc, where):
    """Compares ids, tokens and offsets, naming the first differing token."""
    got = list(zip(st_enc.ids, st_enc.tokens, [tuple(o) for o in st_enc.offsets]))
    want = list(zip(hf_enc.ids, hf_enc.tokens, [tuple(o) for o in hf_enc.offsets]))
    for i, (mine, theirs) in enumerate(zip(got, want)):
        assert mine == theirs, f"{where}: token {i}: snaptok {mine} != HF {theirs}"
    assert len(got) == len(want), f"{where}: snaptok {len(got)} tokens != HF {len(want)}"


def encode_both(spec, text):
    hf = tokenizers.Tokenizer.from_str(spec).encode(text, add_special_tokens=False)
    st = snaptok.Tokenizer.from_str(spec).encode(text, add_special_tokens=False)
    return st, hf


# --------------------------------------------------------------------------
# 1. Unicode classes inside brackets


def report_pipeline():
    """The report's pipeline: Replace([^\\w\\s], "") then Split(\\s+),
    Split((\\d)(\\d)) and ByteLevel, before a WordPiece model."""
    vocab = {"[UNK]": 0, "Ġx": 1, "x": 2, "Ġâħ§": 3, "Ġ": 4}
    return json.dumps({
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": {"type": "Replace", "pattern": {"Regex": r"[^\w\s]"}, "content": ""},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": r"\s+"}, "behavior": "Removed", "invert": False},
            {"type": "Split", "pattern": {"Regex": r"(\d)(\d)"}, "behavior": "Isolated",
             "invert": False},
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
             "use_regex": True},
        ]},
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    })


@pytest.mark.parametrize("text", ["½ x² Ⅷ", "² ½", "x²", "¼¾³¹ Ⅷ x", "ª º µ"])
def test_replace_not_word_nor_space_matches_hf(text):
    st, hf = encode_both(report_pipeline(), text)
    assert_same_tokens(st, hf, repr(text))


def test_replace_not_word_nor_space_deletes_other_numbers():
    """The report's case, pinned down: HF deletes ½ and ² (No), keeps Ⅷ (Nl)."""
    st, hf = encode_both(report_pipeline(), "½ x² Ⅷ")
    assert hf.tokens == ["Ġx", "Ġâħ§"]
    assert st.tokens == hf.tokens


# Bracket forms of \w, \d, \s and \p{..}, negated and combined; lone forms
# whose pinned set must differ from the bracket one; POSIX brackets; names
# the system Oniguruma answers from older Unicode data; (?i).
BRACKET_PATTERNS = [
    r"[^\w\s]",
    r"[\w\-]",
    r"[\w]",
    r"[^\w]",
    r"[\W]",
    r"[^\W]",
    r"\W",
    r"\p{Word}",
    r"[\p{Word}]",
    r"[^\p{Word}]",
    r"[\P{Word}]",
    r"[^\d]",
    r"[\d\p{Nl}]",
    r"[\s\p{P}]",
    r"[^\s]",
    r"[^\p{L}\p{N}]",
    r"[^\w\s\p{P}]",
    r"[\w&&[^\d]]",
    r"[\x{80}-\x{FF}&&\w]",
    r"[[:word:]]",
    r"[^[:alnum:]]",
    r"[[:punct:][:space:]]",
    r"[[:^print:]]",
    r"\p{Print}",
    r"[\p{C}]",
    r"\p{Common}",
    r"(?i)\p{Lu}",
    r"(?i:\p{Ll})|x\p{Lu}",
]


def split_removed(pattern):
    """A WordLevel tokenizer whose pieces are the text between class members."""
    return pipeline_json(pre_tokenizer={"type": "Split", "pattern": {"Regex": pattern},
                                        "behavior": "Removed", "invert": False})


@pytest.mark.parametrize("pattern", BRACKET_PATTERNS)
def test_bracket_class_membership_of_every_code_point(pattern):
    st, hf = encode_both(split_removed(pattern), ALL_CODE_POINTS)
    # The offsets of the pieces left over are exactly the non-members.
    for mine, theirs in zip(st.offsets, hf.offsets):
        if mine != theirs:
            first = ALL_CODE_POINTS[min(mine[0], theirs[0])]
            pytest.fail(f"{pattern}: pieces differ at U+{ord(first):04X}: {mine} vs {theirs}")
    assert len(st.offsets) == len(hf.offsets), pattern


# The normalized text, one char per piece, as byte-fallback tokens.


@pytest.mark.parametrize("pattern", [r"[^\w\s]", r"[\w\-]"])
def test_replace_normalizer_on_every_code_point(pattern):
    spec = pipeline_json(
        normalizer={"type": "Replace", "pattern": {"Regex": pattern}, "content": ""},
        pre_tokenizer=CHAR_SPLIT, model=BYTE_MODEL)
    hf_tok = tokenizers.Tokenizer.from_str(spec)
    st_tok = snaptok.Tokenizer.from_str(spec)
    for chunk in range(0, len(CODE_POINTS), 0x10000):
        text = ALL_CODE_POINTS[chunk:chunk + 0x10000]
        hf = hf_tok.encode(text, add_special_tokens=False)
        st = st_tok.encode(text, add_special_tokens=False)
        assert_same_tokens(st, hf, f"{pattern} from U+{ord(text[0]):04X}")


# --------------------------------------------------------------------------
# 2. BPE byte fallback with a prefix / suffix

CORPUS = ["hello world emoji 👍🏽 fun", "thumbs 👍🏽 up 👍", "skin 🏽 tone é",
          "emoji party 日本", "a b c d e f g", "x_y z!", "family 👨‍👩‍👧 flag 🇫🇷"] * 3


def trained_bpe(prefix="##", suffix="_", fuse_unk=True, vocab_size=200,
                normalizer=None, pre_tokenizer=None):
    """A BPE trained on CORPUS with the byte fallback tokens <0x00>..<0xFF>."""
    affixes = {}
    if prefix:
        affixes["continuing_subword_prefix"] = prefix
    if suffix:
        affixes["end_of_word_suffix"] = suffix
    tok = tokenizers.Tokenizer(tokenizers.models.BPE(
        unk_token="<unk>", fuse_unk=fuse_unk, byte_fallback=True, **affixes))
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["<unk>"], show_progress=False, **affixes)
    tok.train_from_iterator(CORPUS, trainer)
    spec = json.loads(tok.to_str())
    vocab = spec["model"]["vocab"]
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    spec["normalizer"] = normalizer
    spec["pre_tokenizer"] = pre_tokenizer
    return json.dumps(spec)


def test_bpe_byte_fallback_prefix_suffix_report():
    # HF's trainer breaks frequency ties differently from run to run, so the
    # vocabulary, and with it the report's token ("##🏽" at (8, 10), which
    # most runs give), varies; whatever HF gives, snaptok must give too.
    spec = trained_bpe(normalizer={"type": "Nmt"})
    st, hf = encode_both(spec, "emoji 😀👍🏽!")
    assert_same_tokens(st, hf, "emoji 😀👍🏽!")


POOL = list("abcdeemojithumbs xyz  ") + [
    "😀", "👍", "🏽", "👍🏽", "👨‍👩‍👧", "🇫🇷", "1️⃣", "é", "e\u0301", "日本", "語", "\t", "\n",
    "\x01", "\x0c", "\u200b", "\u00a0", "!", "?", "#", "##", "_", "</w>", "\u3000", "ß",
    "Ⅷ", "½", "🧑\u200d💻", "🏳️‍🌈", "\ufeff", "\x7f"]
AFFIXES = [("##", "_"), ("##", None), (None, "_"), ("##", "</w>"), (None, None)]
NORMALIZERS = [{"type": "Nmt"}, None]
PRE_TOKENIZERS = [None, {"type": "WhitespaceSplit"},
                  {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
                   "split": True}]


def random_texts(seed, n):
    rng = random.Random(seed)
    return ["".join(rng.choice(POOL) for _ in range(rng.randint(0, 14))) for _ in range(n)]


@pytest.mark.parametrize("prefix,suffix", AFFIXES)
@pytest.mark.parametrize("normalizer", NORMALIZERS, ids=["nmt", "none"])
@pytest.mark.parametrize("pre_tokenizer", PRE_TOKENIZERS, ids=["none", "ws", "metaspace"])
def test_bpe_byte_fallback_ids_and_tokens(prefix, suffix, normalizer, pre_tokenizer):
    spec = trained_bpe(prefix, suffix, normalizer=normalizer, pre_tokenizer=pre_tokenizer)
    hf_tok = tokenizers.Tokenizer.from_str(spec)
    st_tok = snaptok.Tokenizer.from_str(spec)
    for text in ["emoji 😀👍🏽!", *random_texts(AFFIXES.index((prefix, suffix)), 150)]:
        hf = hf_tok.encode(text)
        st = st_tok.encode(text)
        assert (st.ids, st.tokens) == (hf.ids, hf.tokens), repr(text)


@pytest.mark.parametrize("prefix,suffix", AFFIXES)
@pytest.mark.parametrize("fuse_unk", [True, False])
def test_bpe_byte_fallback_offsets(prefix, suffix, fuse_unk):
    # Only a prefix makes a token start inside the text and end past it: a
    # suffix goes to the last char alone, whose byte tokens end the word.
    spec = trained_bpe(prefix, suffix, fuse_unk=fuse_unk, normalizer={"type": "Nmt"},
                       pre_tokenizer={"type": "WhitespaceSplit"})
    hf_tok = tokenizers.Tokenizer.from_str(spec)
    st_tok = snaptok.Tokenizer.from_str(spec)
    for text in ["emoji 😀👍🏽!", *random_texts(7, 300)]:
        assert_same_tokens(st_tok.encode(text), hf_tok.encode(text), repr(text))
