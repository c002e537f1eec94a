"""Decoders against the pinned Hugging Face ``tokenizers``.

A BPE tokenizer is built here from a hand-made vocabulary whose tokens
exercise every decoder (metaspace chars, "##" continuations, "<0xNN>" byte
tokens, "</w>" suffixes, CTC pads and delimiters, byte-level chars, chars to
strip or replace), plus special and non-special added tokens. For each
decoder and option (ByteLevel, Metaspace, WordPiece, ByteFallback, Fuse,
Strip, Replace, BPEDecoder, CTC, Sequence, none) random and hand-picked id
sequences are decoded with ``decode`` and ``decode_batch``, with
skip_special_tokens on and off, and compared with HF string for string; an
HF error (a panic included) must be an error in snaptok too. HF's reading of
decoder JSON (known "type" strict, legacy untyped forms) is checked as well.
"""

from __future__ import annotations

import json
import random

import pytest

hf = pytest.importorskip("tokenizers")
snaptok = pytest.importorskip("snaptok")

from parity_helpers import load_both, synthetic_files  # noqa: E402
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models  # noqa: E402


VOCAB_TOKENS = [
    # Metaspace / Replace
    "▁", "▁hello", "hello", "▁▁", "a▁b", "▁world", "_x", "__",
    # WordPiece cleanup material
    "play", "##ing", "##", "##s", ".", ",", "?", "!", "'", "n't", "'m", "'s", "'ve", "'re",
    "do", "not", " do", " .", "x ' y",
    # ByteFallback
    "<0x41>", "<0x61>", "<0xE6>", "<0x97>", "<0xA5>", "<0xFF>", "<0xC3>", "<0xA9>",
    "<0x+F>", "<0xZZ>", "<0x4>", "<0x410>", "<0X41>", "<0xé>",
    # BPEDecoder
    "low</w>", "</w>", "er</w>", "a</w>b", "new",
    # CTC
    "<pad>", "|", "h", "e", "l", "o", "<pad>h", "|a|",
    # Strip
    " a ", "  ", "aa", "a", "b", " ",
    # ByteLevel
    "Ġhello", "Ċ", "ðŁĺ", "Ģ", "Ġ", "âĢ", "Ļ", "日", "Ġ日",
]

SPECIAL_ADDED = ["<s>", "</s>", "[CLS]", "<unk>"]
NORMAL_ADDED = ["<user>", " spaced ", "▁added"]


@pytest.fixture(scope="module")
def base_json():
    vocab = {t: i for i, t in enumerate(dict.fromkeys(VOCAB_TOKENS))}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.add_special_tokens(SPECIAL_ADDED)
    tok.add_tokens([AddedToken(t, normalized=False) for t in NORMAL_ADDED])
    return tok.to_str()


def decoder_cases():
    D = decoders
    return {
        "none": None,
        "bytelevel": D.ByteLevel(),
        "metaspace": D.Metaspace(),
        "metaspace-first": D.Metaspace(prepend_scheme="first"),
        "metaspace-never": D.Metaspace(prepend_scheme="never"),
        "metaspace-nosplit": D.Metaspace(split=False),
        "metaspace-underscore": D.Metaspace(replacement="_", prepend_scheme="always"),
        "wordpiece": D.WordPiece(),
        "wordpiece-nocleanup": D.WordPiece(cleanup=False),
        "wordpiece-empty-prefix": D.WordPiece(prefix="", cleanup=True),
        "wordpiece-meta-prefix": D.WordPiece(prefix="▁", cleanup=False),
        "bytefallback": D.ByteFallback(),
        "fuse": D.Fuse(),
        "strip-space-1-0": D.Strip(" ", 1, 0),
        "strip-space-0-1": D.Strip(" ", 0, 1),
        "strip-a-2-2": D.Strip("a", 2, 2),
        "strip-meta-1-1": D.Strip("▁", 1, 1),
        "strip-0-0": D.Strip("x", 0, 0),
        "replace-string": D.Replace("▁", " "),
        "replace-string-meta": D.Replace("a+", "<plus>"),
        "replace-regex": D.Replace(Regex(r"a+|\s"), "_"),
        "replace-regex-empty-match": D.Replace(Regex(r"x*"), "-"),
        "replace-empty-string": D.Replace("", "~"),
        "bpe": D.BPEDecoder(),
        "bpe-custom": D.BPEDecoder(suffix="er"),
        "bpe-empty-suffix": D.BPEDecoder(suffix=""),
        "ctc": D.CTC(),
        "ctc-nocleanup": D.CTC(cleanup=False),
        "ctc-custom": D.CTC(pad_token="h", word_delimiter_token="▁", cleanup=True),
        "ctc-empty-pad": D.CTC(pad_token="", word_delimiter_token="", cleanup=True),
        "sequence-llama": D.Sequence(
            [D.Replace("▁", " "), D.ByteFallback(), D.Fuse(), D.Strip(" ", 1, 0)]
        ),
        "sequence-bytefallback-metaspace": D.Sequence([D.ByteFallback(), D.Metaspace()]),
        "sequence-fuse-wordpiece": D.Sequence([D.Fuse(), D.WordPiece()]),
        "sequence-nested": D.Sequence(
            [D.Sequence([D.ByteFallback(), D.Fuse()]), D.Replace(Regex("l+"), "L"), D.Strip("L", 1, 1)]
        ),
        "sequence-empty": D.Sequence([]),
    }


CASE_NAMES = list(decoder_cases())


def id_sequences(n_ids, seed=1234):
    rnd = random.Random(seed)
    seqs = [[], [0], list(range(n_ids)), list(range(n_ids))[::-1], [n_ids + 5, 0, n_ids + 100]]
    for _ in range(150):
        length = rnd.randrange(0, 12)
        seqs.append([rnd.randrange(n_ids + 2) for _ in range(length)])
    # runs of byte tokens and repeats (CTC dedup, ByteFallback runs)
    for _ in range(40):
        k = rnd.randrange(n_ids)
        seqs.append([k] * rnd.randrange(1, 4) + [rnd.randrange(n_ids) for _ in range(3)] + [k, k])
    return seqs


def named_ids(hf_tok, tokens):
    return [hf_tok.token_to_id(t) for t in tokens]


HAND_PICKED = [
    ["<0xE6>", "<0x97>", "<0xA5>"],  # 日 from bytes
    ["<0xE6>", "<0x97>"],  # truncated: one U+FFFD per byte
    ["<0xC3>", "<0xA9>", "hello", "<0xFF>", "<0x41>"],
    ["<0x+F>", "<0xZZ>", "<0x4>", "<0x410>", "<0X41>", "<0xé>"],
    ["▁hello", "▁world", "a▁b", "▁"],
    ["▁", "▁", "hello"],
    ["play", "##ing", "##", "##s", ".", "do", "not", "n't", "'", "'s", "x ' y", " do", " ."],
    ["low</w>", "er</w>", "a</w>b", "new", "</w>"],
    ["h", "h", "<pad>", "h", "e", "|", "|", "l", "l", "<pad>", "l", "o", "<pad>h", "|a|"],
    [" a ", "  ", "aa", "a", " ", "b"],
    ["a"],
    [" "],
    ["Ġhello", "Ċ", "ðŁĺ", "Ģ", "日", "Ġ日", "âĢ", "Ļ"],
    ["<s>", "hello", "</s>", "<user>", " spaced ", "▁added", "[CLS]"],
]


def compare_decode(hf_tok, st_tok, ids, skip):
    try:
        want = hf_tok.decode(ids, skip_special_tokens=skip)
    except BaseException as e:  # HF panics (PanicException) are BaseExceptions
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        with pytest.raises(Exception):
            st_tok.decode(ids, skip_special_tokens=skip)
        return False
    got = st_tok.decode(ids, skip_special_tokens=skip)
    assert got == want, f"decode({ids}, skip_special_tokens={skip}): snaptok {got!r} != HF {want!r}"
    return True


@pytest.mark.parametrize("name", CASE_NAMES)
def test_decoder(base_json, name):
    dec = decoder_cases()[name]
    tok = Tokenizer.from_str(base_json)
    tok.decoder = dec
    js = tok.to_str()
    hf_tok = Tokenizer.from_str(js)
    st_tok = snaptok.Tokenizer.from_str(js)
    n = hf_tok.get_vocab_size()
    seqs = id_sequences(n) + [named_ids(hf_tok, toks) for toks in HAND_PICKED]
    ok = 0
    for skip in (True, False):
        good = []
        for ids in seqs:
            if compare_decode(hf_tok, st_tok, ids, skip):
                ok += 1
                good.append(ids)
        # decode_batch over the sequences HF can decode
        assert st_tok.decode_batch(good, skip_special_tokens=skip) == hf_tok.decode_batch(
            good, skip_special_tokens=skip
        )
    assert ok > 0


def test_decode_batch_errors_like_hf(base_json):
    tok = Tokenizer.from_str(base_json)
    tok.decoder = decoders.Strip("a", 2, 2)
    js = tok.to_str()
    hf_tok, st_tok = Tokenizer.from_str(js), snaptok.Tokenizer.from_str(js)
    bad = [[hf_tok.token_to_id("a")]]  # "a" stripped from both ends: HF panics
    with pytest.raises(BaseException):
        hf_tok.decode_batch(bad)
    with pytest.raises(Exception):
        st_tok.decode_batch(bad)


def test_roundtrip_encode_decode(base_json):
    tok = Tokenizer.from_str(base_json)
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    js = tok.to_str()
    hf_tok, st_tok = Tokenizer.from_str(js), snaptok.Tokenizer.from_str(js)
    for text in ["hello", "<s>hello</s>", "▁hello▁world", "<user> spaced <0x41>"]:
        ids = hf_tok.encode(text).ids
        assert st_tok.encode(text).ids == ids
        for skip in (True, False):
            compare_decode(hf_tok, st_tok, ids, skip)


# ---------------------------------------------------------------- JSON forms

JSON_CASES = [
    {"type": "ByteLevel"},  # HF requires add_prefix_space and trim_offsets
    {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False},
    {"type": "Metaspace", "replacement": "▁", "add_prefix_space": False},  # conflicts with default
    {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True},
    {"type": "Metaspace", "replacement": "▁", "add_prefix_space": False, "prepend_scheme": "never"},
    {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False},
    {"type": "Metaspace", "replacement": "▁▁"},
    {"type": "Metaspace", "replacement": ""},
    {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "sometimes"},
    {"type": "Metaspace", "replacement": "▁", "str_rep": "▁"},
    {"type": "WordPiece", "prefix": "##"},
    {"type": "WordPiece", "prefix": "##", "cleanup": False},
    {"type": "Strip", "content": "a", "start": 1},
    {"type": "Strip", "content": "ab", "start": 1, "stop": 1},
    {"type": "Fuse", "extra": 1},
    {"type": "ByteFallback"},
    {"type": "BPEDecoder"},
    {"type": "BPEDecoder", "suffix": "</w>"},
    {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|"},
    {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
    {"type": "Replace", "pattern": {"Regex": "("}, "content": " "},
    {"type": "Replace", "pattern": {"Glob": "*"}, "content": " "},
    {"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "Nope"}]},
    {"type": "Sequence"},
    # legacy / unknown "type": the untagged fallback (BPE, WordPiece, CTC, Replace, Strip)
    {"type": "Foo", "suffix": "x"},
    {"suffix": "</w>"},
    {"prefix": "##", "cleanup": True},
    {"pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True},
    {"type": "Foo", "pattern": {"String": "a"}, "content": "b"},
    {"content": "a", "start": 1, "stop": 0},
    {"type": "Foo"},
    {},
    {"replacement": "▁"},
]


@pytest.mark.parametrize("case", range(len(JSON_CASES)))
def test_decoder_json_forms(base_json, case):
    js = json.loads(base_json)
    js["decoder"] = JSON_CASES[case]
    js = json.dumps(js)
    try:
        hf_tok = Tokenizer.from_str(js)
    except Exception:
        with pytest.raises(Exception):
            snaptok.Tokenizer.from_str(js)
        return
    st_tok = snaptok.Tokenizer.from_str(js)
    n = hf_tok.get_vocab_size()
    for ids in id_sequences(n, seed=case)[:60] + [named_ids(hf_tok, t) for t in HAND_PICKED]:
        for skip in (True, False):
            compare_decode(hf_tok, st_tok, ids, skip)


# ---------------------------------------------------------- shared tokenizers


@pytest.mark.parametrize("path", synthetic_files(), ids=lambda p: p.name)
def test_shared_tokenizer_decode(path):
    hf_tok, st_tok = load_both(path)
    n = hf_tok.get_vocab_size()
    seqs = id_sequences(n, seed=len(path.name))
    for text in ["Hello world, this is a test.", "Ünïcödé ça va? 日本語 😀", "  spaced  out  "]:
        seqs.append(hf_tok.encode(text).ids)
    for ids in seqs:
        for skip in (True, False):
            compare_decode(hf_tok, st_tok, ids, skip)
