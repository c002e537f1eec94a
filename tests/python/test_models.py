"""Parity of the four models (BPE, Unigram, WordPiece, WordLevel) and of every
model option with the pinned HF ``tokenizers``.

Each tokenizer here is trained in the test with HF's own trainer on a small
built-in English + multilingual text, then its tokenizer.json is edited to set
the option under test; HF and snaptok load the same JSON and must agree on
ids, tokens and offsets (and on failing: when HF raises, snaptok raises) for
edge-case strings, random strings, and corpus lines of ../shared/data when
present. Hand-made vocabularies pin what training cannot reach: Viterbi ties,
scores that serde_json reads 1 ULP off, fused unknown runs, legacy files
without a model "type". Real tokenizers of ../shared/data are compared as
they are when snaptok loads them, and always with their normalizer (and
pre-tokenizer) removed, so that the model itself is checked either way.
"""

from __future__ import annotations

import copy
import functools
import json
import random
from pathlib import Path

import pytest

hf = pytest.importorskip("tokenizers")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tokenizers import Tokenizer, models, trainers  # noqa: E402
from tokenizers import pre_tokenizers as hf_pre  # noqa: E402

import snaptok  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"

# --------------------------------------------------------------------------
# Inputs

TRAIN_TEXT = [
    "The quick brown fox jumps over the lazy dog. It's 3:45 p.m., isn't it?",
    "Hello, world!!! How are you -- fine; thanks... (really) [yes] {no} <maybe>",
    "Tokenizers split text into pieces; the pieces become ids, and the ids feed the model.",
    "She sells sea shells by the sea shore, and the shells she sells are surely seashells.",
    "Numbers: 0 1 12 123 1234 3.14159 1,000,000 and dates like 2024-05-17.",
    "Привет, мир! Как дела? Съешь же ещё этих мягких французских булок.",
    "東京タワーは日本の電波塔です。ひらがなとカタカナと漢字。",
    "مرحبا بالعالم، كيف حالك؟ السلام عليكم",
    "Γειά σου κόσμε. Ελληνικά γράμματα αβγδε.",
    "Der schnelle braune Fuchs springt über den faulen Hund. Größe, Übung, Straße.",
    "Le cœur a ses raisons que la raison ne connaît point. Ça va? Déjà vu, naïve café.",
    "El veloz murciélago hindú comía feliz cardillo y kiwi. ¿Qué tal? ¡Olé!",
    "snake_case camelCase kebab-case dot.separated path/to/file.txt",
    "def tokenize(text): return [piece for piece in text.split() if piece]",
    "It’s “quoted” ‘text’ — with em dash – en dash … ellipsis «guillemets»",
    "user@example.com https://example.org/a?b=c&d=e#frag $100 50% #tag @handle",
    "unbelievable unbelievably believer believing disbelief relieved relief",
    "internationalization internationally national nationality nation nations",
]

EDGE_CASES = [
    "",
    " ",
    "   ",
    "\t\n\r\n",
    "a",
    "hello",
    "hello world",
    "  hello   world  ",
    "Hello, world!!!",
    "unbelievable",
    "internationalization" * 3,
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "abababababababababababababababab",
    "The quick brown fox jumps over the lazy dog.",
    "ÀÉÎÕÜ àéîõü ñ ç ß ø å",
    "e\u0301 a\u0308 o\u0302\u0323",
    "日本語のテキスト、中文文本，한국어 텍스트",
    "🤗🤗🤗 emoji 👍🏽 👩‍👩‍👧‍👦 🇫🇷",
    "𝕳𝖊𝖑𝖑𝖔 𝒲ℴ𝓇𝓁𝒹",
    "\x00\x01\x7f control \u200b zero width \ufeff bom",
    "ไม่มีช่องว่าง",
    "a😀b😀c",
    "xyz qqq zzz jjj",
    "▁already▁metaspace ▁ ▁▁",
    "[UNK] <unk> [unk] <s> </s>",
    "x" * 300,
    "中" * 40,
    "😀" * 20,
    "ab" * 150,
    "12345678901234567890",
    "a-b--c---d",
    "tab\tseparated\tvalues",
    "mixed English и русский и 日本語 and عربي",
]

# Alphabet for random strings: ASCII letters the models know, letters they
# may not, spaces, and multi-byte characters of every UTF-8 length.
RANDOM_ALPHABET = "abcdeilnorst THEQ.,!'-0123456789éüßñ中文日本語한😀👍\u0301\u2581\t\n"


@functools.cache
def corpus_lines() -> list[str]:
    """A few hundred lines of the shared corpora (none when absent)."""
    if not SHARED.is_dir():
        return []
    picks = [
        ("corpus/en/wikitext2_test_tokenized.txt", 150),
        ("corpus/en/shakespeare_gutenberg.txt", 60),
        ("corpus/multilingual/udhr_all_languages.txt", 150),
        ("corpus/multilingual/kougo_bible_ja.txt", 40),
        ("corpus/code/cpython311_stdlib_8MB.py.txt", 60),
    ]
    out: list[str] = []
    for rel, n in picks:
        path = SHARED / rel
        if not path.is_file():
            continue
        got = 0
        with path.open(encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f):
                line = line.rstrip("\n")
                if line.strip() and i % 7 == 0:  # spread over the file
                    out.append(line[:1000])
                    got += 1
                    if got >= n:
                        break
    return out


def texts() -> list[str]:
    return EDGE_CASES + TRAIN_TEXT + corpus_lines()


# --------------------------------------------------------------------------
# Comparison


def _encode_or_error(tok, text):
    try:
        return tok.encode(text)
    except BaseException as e:  # HF panics surface as pyo3 PanicException
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return e


def assert_parity(tokenizer_json: str, inputs: list[str], *, label: str = "") -> int:
    """Encodes every input with HF and snaptok; asserts the same ids, tokens
    and offsets, or that both fail. Returns how many inputs were compared."""
    h = Tokenizer.from_str(tokenizer_json)
    s = snaptok.Tokenizer.from_str(tokenizer_json)
    for text in inputs:
        a = _encode_or_error(h, text)
        b = _encode_or_error(s, text)
        if isinstance(a, BaseException) or isinstance(b, BaseException):
            assert isinstance(a, BaseException) and isinstance(b, BaseException), (
                f"{label}: one side failed on {text!r}: HF={a!r} snaptok={b!r}"
            )
            assert isinstance(b, ValueError), f"{label}: snaptok raised {b!r}"
            continue
        assert b.ids == a.ids, f"{label}: ids differ on {text!r}\nHF {a.tokens}\nst {b.tokens}"
        assert b.tokens == a.tokens, f"{label}: tokens differ on {text!r}"
        assert b.offsets == a.offsets, f"{label}: offsets differ on {text!r}"
        assert s.encode_ids(text) == a.ids, f"{label}: encode_ids differs on {text!r}"
    return len(inputs)


def assert_vocab_parity(tokenizer_json: str, *, sample: int = 3000) -> None:
    h = Tokenizer.from_str(tokenizer_json)
    s = snaptok.Tokenizer.from_str(tokenizer_json)
    assert s.get_vocab_size(False) == h.get_vocab_size(False)
    assert s.get_vocab_size(True) == h.get_vocab_size(True)
    vocab = sorted(h.get_vocab(with_added_tokens=False).items(), key=lambda kv: kv[1])
    rng = random.Random(0)
    for token, i in rng.sample(vocab, min(sample, len(vocab))):
        assert s.token_to_id(token) == h.token_to_id(token), token
        assert s.id_to_token(i) == h.id_to_token(i), i
    assert s.token_to_id("\u0000not a token\u0000") is None


def with_model(j: dict, **changes) -> str:
    """Returns tokenizer.json `j` with model fields changed (None deletes)."""
    j = copy.deepcopy(j)
    for k, v in changes.items():
        if v is None:
            j["model"].pop(k, None)
        else:
            j["model"][k] = v
    return json.dumps(j, ensure_ascii=False)


def bare(model: dict, pre_tokenizer: dict | None = None) -> str:
    """A tokenizer.json with only `model` (and a pre-tokenizer)."""
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": pre_tokenizer,
            "post_processor": None,
            "decoder": None,
            "model": model,
        },
        ensure_ascii=False,
    )


def snaptok_error(tokenizer_json: str) -> str:
    with pytest.raises(ValueError) as info:
        snaptok.Tokenizer.from_str(tokenizer_json)
    return str(info.value)


# --------------------------------------------------------------------------
# Training (cached: the trainers are the slow part)


def _train(model, pre, trainer) -> dict:
    tok = Tokenizer(model)
    if pre is not None:
        tok.pre_tokenizer = pre
    tok.train_from_iterator(TRAIN_TEXT * 3, trainer)
    return json.loads(tok.to_str())


@functools.cache
def trained_bpe(kind: str) -> dict:
    special = ["[UNK]", "[PAD]"]
    if kind == "bytelevel":
        return _train(
            models.BPE(),
            hf_pre.ByteLevel(add_prefix_space=False),
            trainers.BpeTrainer(
                vocab_size=600,
                special_tokens=special,
                initial_alphabet=hf_pre.ByteLevel.alphabet(),
                show_progress=False,
            ),
        )
    if kind == "small_alphabet":  # many characters stay out of the vocabulary
        return _train(
            models.BPE(unk_token="[UNK]"),
            hf_pre.Whitespace(),
            trainers.BpeTrainer(
                vocab_size=400, special_tokens=special, limit_alphabet=40, show_progress=False
            ),
        )
    if kind == "metaspace":
        return _train(
            models.BPE(unk_token="<unk>"),
            hf_pre.Metaspace(replacement="\u2581", prepend_scheme="first", split=False),
            trainers.BpeTrainer(
                vocab_size=500, special_tokens=["<unk>"], limit_alphabet=60, show_progress=False
            ),
        )
    if kind in ("prefix", "suffix", "prefix_suffix"):
        kw = {}
        if "prefix" in kind:
            kw["continuing_subword_prefix"] = "##"
        if "suffix" in kind:
            kw["end_of_word_suffix"] = "</w>"
        return _train(
            models.BPE(unk_token="[UNK]", **kw),
            hf_pre.Whitespace(),
            trainers.BpeTrainer(
                vocab_size=500, special_tokens=special, limit_alphabet=80, show_progress=False, **kw
            ),
        )
    raise AssertionError(kind)


def add_byte_pieces(j: dict, byte_range=range(256)) -> dict:
    """Adds <0xNN> tokens (new ids at the end) to a BPE vocab."""
    j = copy.deepcopy(j)
    vocab = j["model"]["vocab"]
    next_id = max(vocab.values()) + 1
    for b in byte_range:
        name = f"<0x{b:02X}>"
        if name not in vocab:
            vocab[name] = next_id
            next_id += 1
    return j


def permute_ids(j: dict, seed: int = 1) -> dict:
    """Gives the BPE vocab shuffled ids (ids no longer follow merge ranks)."""
    j = copy.deepcopy(j)
    vocab = j["model"]["vocab"]
    ids = list(vocab.values())
    random.Random(seed).shuffle(ids)
    remap = dict(zip(vocab.values(), ids))
    j["model"]["vocab"] = {t: remap[i] for t, i in vocab.items()}
    for a in j.get("added_tokens") or []:
        a["id"] = remap.get(a["id"], a["id"])
    return j


def add_whole_words(j: dict, pre) -> dict:
    """Adds every pre-token of the training text as a vocabulary entry (new
    ids, no merges): entries that merges alone do not rebuild, which is what
    ignore_merges is for."""
    j = copy.deepcopy(j)
    vocab = j["model"]["vocab"]
    next_id = max(vocab.values()) + 1
    for line in TRAIN_TEXT:
        for piece, _ in pre.pre_tokenize_str(line):
            if piece not in vocab:
                vocab[piece] = next_id
                next_id += 1
    return j


def merges_as_strings(j: dict) -> dict:
    j = copy.deepcopy(j)
    merges = j["model"]["merges"]
    assert all(" " not in a and " " not in b for a, b in merges)
    j["model"]["merges"] = [f"{a} {b}" for a, b in merges]
    return j


# --------------------------------------------------------------------------
# BPE: every option


def _bpe_cases():
    bl = lambda: trained_bpe("bytelevel")  # noqa: E731
    sa = lambda: trained_bpe("small_alphabet")  # noqa: E731
    ms = lambda: trained_bpe("metaspace")  # noqa: E731
    return {
        "bytelevel": lambda: with_model(bl()),
        "bytelevel_no_pre_tokenizer": lambda: json.dumps({**bl(), "pre_tokenizer": None}),
        "unk_fuse_false": lambda: with_model(sa(), unk_token="[UNK]", fuse_unk=False),
        "unk_fuse_true": lambda: with_model(sa(), unk_token="[UNK]", fuse_unk=True),
        "no_unk_unknown_dropped": lambda: with_model(sa(), unk_token=None),
        "unk_not_in_vocab": lambda: with_model(sa(), unk_token="[NOT-THERE]"),
        "byte_fallback": lambda: with_model(
            add_byte_pieces(ms()), byte_fallback=True, fuse_unk=True
        ),
        "byte_fallback_no_pre_tokenizer": lambda: json.dumps(
            {**json.loads(with_model(add_byte_pieces(ms()), byte_fallback=True)),
             "pre_tokenizer": None}
        ),
        "byte_fallback_partial_unk_fused": lambda: with_model(
            add_byte_pieces(ms(), range(0x80)), byte_fallback=True, fuse_unk=True
        ),
        "byte_fallback_partial_unk_unfused": lambda: with_model(
            add_byte_pieces(ms(), range(0x80)), byte_fallback=True, fuse_unk=False
        ),
        "byte_fallback_without_byte_pieces": lambda: with_model(ms(), byte_fallback=True),
        "byte_fallback_no_unk": lambda: with_model(
            add_byte_pieces(ms(), range(0x40, 0x100)), byte_fallback=True, unk_token=None
        ),
        "continuing_subword_prefix": lambda: with_model(trained_bpe("prefix")),
        "end_of_word_suffix": lambda: with_model(trained_bpe("suffix")),
        "prefix_and_suffix": lambda: with_model(trained_bpe("prefix_suffix")),
        "prefix_byte_fallback": lambda: with_model(
            add_byte_pieces(trained_bpe("prefix")), byte_fallback=True
        ),
        "ignore_merges": lambda: with_model(
            add_whole_words(bl(), hf_pre.ByteLevel(add_prefix_space=False)), ignore_merges=True
        ),
        "ignore_merges_off_with_whole_words": lambda: with_model(
            add_whole_words(bl(), hf_pre.ByteLevel(add_prefix_space=False))
        ),
        "ignore_merges_whitespace": lambda: with_model(
            add_whole_words(sa(), hf_pre.Whitespace()), ignore_merges=True
        ),
        "merges_as_strings": lambda: with_model(merges_as_strings(bl())),
        "merges_as_strings_with_version_line": lambda: with_model(
            merges_as_strings(bl()),
            merges=["#version: 0.2"] + merges_as_strings(bl())["model"]["merges"],
        ),
        "ids_not_in_merge_order": lambda: with_model(permute_ids(bl())),
        "ids_not_in_merge_order_unk": lambda: with_model(permute_ids(sa(), 5), fuse_unk=True),
        "dropout_null": lambda: with_model(bl(), dropout=None),
        "dropout_zero": lambda: with_model(bl(), dropout=0.0),
        "dropout_one": lambda: with_model(bl(), dropout=1.0),
        "dropout_one_ignore_merges": lambda: with_model(
            add_whole_words(bl(), hf_pre.ByteLevel(add_prefix_space=False)),
            dropout=1.0, ignore_merges=True,
        ),
        "dropout_one_byte_fallback": lambda: with_model(
            add_byte_pieces(ms()), dropout=1.0, byte_fallback=True
        ),
        "legacy_no_type": lambda: with_model(bl(), type=None),
    }


BPE_CASES = _bpe_cases()


@pytest.mark.parametrize("case", sorted(BPE_CASES))
def test_bpe_option_parity(case):
    tokenizer_json = BPE_CASES[case]()
    assert_parity(tokenizer_json, texts(), label=f"BPE {case}")
    if "dropout" not in case and "unk_not_in_vocab" not in case:
        assert_vocab_parity(tokenizer_json)


def test_bpe_option_cases_really_set_their_option():
    """Guards the cases above against silently testing the default."""
    j = json.loads(BPE_CASES["byte_fallback"]())
    assert j["model"]["byte_fallback"] is True and "<0xE4>" in j["model"]["vocab"]
    h = Tokenizer.from_str(BPE_CASES["byte_fallback"]())
    assert any(t.startswith("<0x") for t in h.encode("한국어 😀").tokens)
    h = Tokenizer.from_str(BPE_CASES["unk_fuse_true"]())
    assert "[UNK]" in h.encode("한국어").tokens
    fused = h.encode("한국어").tokens.count("[UNK]")
    h = Tokenizer.from_str(BPE_CASES["unk_fuse_false"]())
    assert h.encode("한국어").tokens.count("[UNK]") > fused
    h = Tokenizer.from_str(BPE_CASES["continuing_subword_prefix"]())
    assert any(t.startswith("##") for t in h.encode("relievingly renationalized").tokens)
    h = Tokenizer.from_str(BPE_CASES["end_of_word_suffix"]())
    assert any(t.endswith("</w>") for t in h.encode("relievingly renationalized").tokens)
    plain = Tokenizer.from_str(BPE_CASES["ignore_merges_off_with_whole_words"]())
    ignore = Tokenizer.from_str(BPE_CASES["ignore_merges"]())
    line = TRAIN_TEXT[0]
    assert len(ignore.encode(line).ids) < len(plain.encode(line).ids)
    assert Tokenizer.from_str(BPE_CASES["dropout_one"]()).encode("hello").tokens == list("hello")


@pytest.mark.parametrize("dropout", [0.1, 0.5, 0.9])
def test_bpe_dropout_gives_valid_segmentations(dropout):
    """With dropout the output is random (HF's too); every run must still
    be a segmentation of each word into vocabulary tokens, and over many runs
    both the merged and the unmerged forms must appear."""
    tokenizer_json = with_model(trained_bpe("bytelevel"), dropout=dropout)
    h = Tokenizer.from_str(tokenizer_json)
    s = snaptok.Tokenizer.from_str(tokenizer_json)
    vocab = h.get_vocab()
    text = "unbelievable internationalization the shells"
    chars = Tokenizer.from_str(with_model(trained_bpe("bytelevel"), dropout=1.0)).encode(text)
    seen = set()
    for _ in range(60):
        enc = s.encode(text)
        assert all(vocab[t] == i for t, i in zip(enc.tokens, enc.ids))
        assert "".join(enc.tokens) == "".join(chars.tokens)
        assert [o for o in enc.offsets if o[0] == o[1]] == []
        seen.add(tuple(enc.ids))
    assert len(seen) > 1


def test_bpe_errors_name_the_path():
    base = {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}
    bad = dict(base, merges=[["a", "b"], ["a", "c"]])
    assert "model.merges[1]" in snaptok_error(bare(bad))
    with pytest.raises(BaseException):
        Tokenizer.from_str(bare(bad))
    bad = dict(base, merges=["a b", "a b c"])
    assert "model.merges[1]" in snaptok_error(bare(bad))
    with pytest.raises(BaseException):
        Tokenizer.from_str(bare(bad))
    bad = dict(base, merges=["a b", ["a", "b"]])
    assert "model.merges[1]" in snaptok_error(bare(bad))
    with pytest.raises(BaseException):
        Tokenizer.from_str(bare(bad))
    bad = dict(base, dropout=1.5)
    assert "model.dropout" in snaptok_error(bare(bad))
    with pytest.raises(BaseException):
        Tokenizer.from_str(bare(bad))
    # unk_token missing from the vocabulary fails only when it is needed
    tj = bare(dict(base, unk_token="<unk>"))
    assert snaptok.Tokenizer.from_str(tj).encode("ab").ids == [2]
    with pytest.raises(ValueError, match="model.unk_token"):
        snaptok.Tokenizer.from_str(tj).encode("abc")
    with pytest.raises(Exception):
        Tokenizer.from_str(tj).encode("abc")


# --------------------------------------------------------------------------
# Unigram


@functools.cache
def trained_unigram(kind: str = "metaspace") -> dict:
    if kind == "metaspace":
        pre = hf_pre.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    elif kind == "whitespace":
        pre = hf_pre.WhitespaceSplit()
    else:
        raise AssertionError(kind)
    return _train(
        models.Unigram(),
        pre,
        trainers.UnigramTrainer(
            vocab_size=400,
            special_tokens=["<unk>", "<pad>"],
            unk_token="<unk>",
            show_progress=False,
        ),
    )


def add_byte_pieces_unigram(j: dict, byte_range=range(256)) -> dict:
    j = copy.deepcopy(j)
    vocab = j["model"]["vocab"]
    low = min(score for _, score in vocab) - 1.0
    have = {p for p, _ in vocab}
    for b in byte_range:
        name = f"<0x{b:02X}>"
        if name not in have:
            vocab.append([name, low])
    return j


def _unigram_cases():
    ms = lambda: trained_unigram("metaspace")  # noqa: E731
    ws = lambda: trained_unigram("whitespace")  # noqa: E731
    return {
        "metaspace": lambda: with_model(ms()),
        "whitespace_split": lambda: with_model(ws()),
        "no_pre_tokenizer": lambda: json.dumps({**ms(), "pre_tokenizer": None}),
        "byte_fallback": lambda: with_model(add_byte_pieces_unigram(ms()), byte_fallback=True),
        "byte_fallback_partial": lambda: with_model(
            add_byte_pieces_unigram(ms(), range(0xC0)), byte_fallback=True
        ),
        "byte_fallback_without_byte_pieces": lambda: with_model(ms(), byte_fallback=True),
        "no_unk_id": lambda: with_model(ms(), unk_id=None),
        "unk_id_not_zero": lambda: json.dumps({
            **json.loads(with_model(
                ms(), vocab=ms()["model"]["vocab"][1:] + ms()["model"]["vocab"][:1],
                unk_id=len(ms()["model"]["vocab"]) - 1)),
            "added_tokens": [],
        }),
        "legacy_no_type": lambda: with_model(ms(), type=None, byte_fallback=None),
    }


UNIGRAM_CASES = _unigram_cases()


@pytest.mark.parametrize("case", sorted(UNIGRAM_CASES))
def test_unigram_option_parity(case):
    tokenizer_json = UNIGRAM_CASES[case]()
    assert_parity(tokenizer_json, texts(), label=f"Unigram {case}")
    assert_vocab_parity(tokenizer_json)


def test_unigram_cases_really_set_their_option():
    h = Tokenizer.from_str(UNIGRAM_CASES["byte_fallback"]())
    assert any(t.startswith("<0x") for t in h.encode("한국어 😀").tokens)
    h = Tokenizer.from_str(UNIGRAM_CASES["metaspace"]())
    assert "<unk>" not in h.encode("😀😀 한").tokens  # unk tokens keep their text
    assert h.encode("😀😀 한").ids.count(0) >= 1
    with pytest.raises(Exception):
        Tokenizer.from_str(UNIGRAM_CASES["no_unk_id"]()).encode("😀")


def _unigram(vocab, unk_id=0, byte_fallback=False, **extra):
    model = {"type": "Unigram", "unk_id": unk_id, "vocab": vocab, "byte_fallback": byte_fallback}
    model.update(extra)
    return bare(model)


def _serde_tie_scores():
    """Returns texts (s_ab, s_b) of scores where, as serde_json reads them,
    score("a") + score("b") beats score("ab") by 1 ULP, while with correctly
    rounded parsing the two paths tie exactly (and the tie keeps "ab")."""

    def serde(s: str) -> float:
        neg = s.startswith("-")
        ip, fp = s.lstrip("-").split(".")
        f = float(int(ip + fp)) / float(f"1e{len(fp)}")
        return -f if neg else f

    rng = random.Random(7)
    while True:
        c_ab = -rng.uniform(5, 15)
        s_ab = repr(c_ab)
        if "e" in s_ab or not serde(s_ab) < c_ab:
            continue
        c_b = c_ab + 1.5
        s_b = repr(c_b)
        if "e" in s_b or serde(s_b) != c_b or -1.5 + c_b != c_ab:
            continue
        return s_ab, s_b


def test_unigram_scores_are_read_as_serde_json_reads_them():
    s_ab, s_b = _serde_tie_scores()
    tj = _unigram([["<unk>", 0.0], ["a", -1.5], ["b", 0.0], ["ab", 0.0]])
    tj = tj.replace('["b", 0.0]', f'["b", {s_b}]').replace('["ab", 0.0]', f'["ab", {s_ab}]')
    assert Tokenizer.from_str(tj).encode("ab").tokens == ["a", "b"]
    assert snaptok.Tokenizer.from_str(tj).encode("ab").tokens == ["a", "b"]
    assert_parity(tj, ["ab", "abab", "aab", "abb", "xab"])


HAND_MADE_UNIGRAM = {
    # equal scores everywhere: every choice is a tie
    "all_ties": _unigram([["<unk>", -1.0]] + [[p, -1.0] for p in
                         ["a", "b", "c", "ab", "bc", "abc", "ca", "cab", "bca", "aa"]]),
    # equal-score paths: the one whose last token starts earliest wins
    "tie_earlier_start_wins": _unigram([["<unk>", -5.0], ["a", -1.0], ["b", -1.0],
                                        ["ab", -2.0], ["bb", -1.0]]),
    # "<unk>" written in the text is a piece whose id is unk_id: it fuses
    # with the unknown characters around it
    "literal_unk_fuses": _unigram([["<unk>", -1.0], ["a", -1.0], ["<", -5.0], ["u", -5.0],
                                   ["n", -5.0], ["k", -5.0], [">", -5.0]]),
    "literal_unk_byte_fallback": _unigram(
        [["<unk>", -1.0], ["a", -1.0]] + [[f"<0x{b:02X}>", -3.0] for b in range(256)],
        byte_fallback=True),
    # a fused unknown run can be a piece itself (scores above 20 make the
    # unknown path win over the piece)
    "unknown_run_is_a_piece": _unigram([["<unk>", 100.0], ["xy", 50.0], ["a", 100.0]]),
    # repeated pieces: the last id wins, with its score
    "duplicate_pieces": _unigram([["<unk>", 0.0], ["a", -1.0], ["ab", -5.0], ["b", -1.0],
                                  ["ab", -1.5]]),
    # integer scores, exponent notation
    "number_forms": _unigram([["<unk>", 0], ["a", -1], ["b", -2.5e0], ["ab", -3.5E+0],
                              ["ba", -1e-05], ["bb", -4]]),
    # no unk_id: fails only when an unknown node would win
    "no_unk_only_fails_when_needed": _unigram([["ab", -1.0], ["a", -1.0], ["c", -50.0]],
                                              unk_id=None),
    "no_unk_unknown_loses": _unigram([["ab", -100.0], ["a", -1.0]], unk_id=None),
    "empty_vocab_no_unk": _unigram([], unk_id=None),
    "unk_id_last": _unigram([["a", -1.0], ["b", -2.0], ["<unk>", 0.0]], unk_id=2),
}


@pytest.mark.parametrize("case", sorted(HAND_MADE_UNIGRAM))
def test_unigram_hand_made_parity(case):
    tj = HAND_MADE_UNIGRAM[case]
    inputs = ["a", "b", "ab", "ba", "bbb", "abbb", "abc", "cab", "bcabca", "aaaa", "x", "xy", "xya", "axyb",
              "x<unk>ya", "<unk>", "<unk><unk>", "ab<unk>", "é", "😀a😀", "abcabcabcabc",
              "cc", "c", "xyxy", "aabbaabb", ""]
    assert_parity(tj, inputs, label=case)


def test_unigram_hand_made_cases_do_what_they_say():
    h = Tokenizer.from_str(HAND_MADE_UNIGRAM["tie_earlier_start_wins"])
    assert h.encode("ab").tokens == ["ab"]
    assert h.encode("bbb").tokens == ["b", "bb"]
    h = Tokenizer.from_str(HAND_MADE_UNIGRAM["literal_unk_fuses"])
    assert h.encode("x<unk>ya").tokens == ["x<unk>y", "a"]
    h = Tokenizer.from_str(HAND_MADE_UNIGRAM["unknown_run_is_a_piece"])
    assert h.encode("xya").ids == [1, 2]
    with pytest.raises(Exception):
        Tokenizer.from_str(HAND_MADE_UNIGRAM["no_unk_only_fails_when_needed"]).encode("abx")
    assert Tokenizer.from_str(HAND_MADE_UNIGRAM["no_unk_unknown_loses"]).encode("ab").ids == [0]


def test_unigram_errors_name_the_path():
    assert "model.unk_id" in snaptok_error(_unigram([["a", 0.0]], unk_id=3))
    assert "model.unk_id" in snaptok_error(_unigram([], unk_id=0))
    assert "model.vocab[1]" in snaptok_error(_unigram([["a", 0.0], ["b"]]))
    assert "model.vocab[1]" in snaptok_error(_unigram([["a", 0.0], ["b", "x"]]))
    assert "model.byte_fallback" in snaptok_error(_unigram([["a", 0.0]], byte_fallback=None))
    for tj in (_unigram([["a", 0.0]], unk_id=3), _unigram([], unk_id=0),
               _unigram([["a", 0.0], ["b"]]), _unigram([["a", 0.0]], byte_fallback=None)):
        with pytest.raises(Exception):
            Tokenizer.from_str(tj)
    s = snaptok.Tokenizer.from_str(_unigram([["a", 0.0]], unk_id=None))
    with pytest.raises(ValueError, match="model.unk_id"):
        s.encode("ab")


_PIECE = st.text(alphabet="ab€", min_size=1, max_size=3)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    pieces=st.lists(st.tuples(_PIECE, st.sampled_from([-1.0, -2.0, -3.0, -1.5])),
                    min_size=1, max_size=25),
    unk=st.booleans(),
    byte_fallback=st.booleans(),
    inputs=st.lists(st.text(alphabet="ab€x😀", max_size=30), min_size=1, max_size=5),
)
def test_unigram_random_vocabularies(pieces, unk, byte_fallback, inputs):
    """Random vocabularies with few distinct scores (so ties are common)."""
    vocab = ([["<unk>", -2.0]] if unk else []) + [list(p) for p in pieces]
    if byte_fallback:
        vocab += [[f"<0x{b:02X}>", -4.0] for b in range(0, 256, 3)]
    assert_parity(_unigram(vocab, unk_id=0 if unk else None, byte_fallback=byte_fallback),
                  inputs)


# --------------------------------------------------------------------------
# WordPiece


@functools.cache
def trained_wordpiece(prefix: str = "##") -> dict:
    return _train(
        models.WordPiece(unk_token="[UNK]"),
        hf_pre.BertPreTokenizer(),
        trainers.WordPieceTrainer(
            vocab_size=500,
            special_tokens=["[UNK]", "[CLS]", "[SEP]"],
            limit_alphabet=80,
            continuing_subword_prefix=prefix,
            show_progress=False,
        ),
    )


def _wordpiece_cases():
    wp = lambda: trained_wordpiece("##")  # noqa: E731
    return {
        "bert": lambda: with_model(wp()),
        "whitespace_pre_tokenizer": lambda: json.dumps(
            {**wp(), "pre_tokenizer": {"type": "Whitespace"}}),
        "prefix_at_at": lambda: with_model(trained_wordpiece("@@")),
        "prefix_empty": lambda: with_model(trained_wordpiece("")),
        "max_chars_5": lambda: with_model(wp(), max_input_chars_per_word=5),
        "max_chars_0": lambda: with_model(wp(), max_input_chars_per_word=0),
        "max_chars_huge_no_pre_tokenizer": lambda: json.dumps(
            {**json.loads(with_model(wp(), max_input_chars_per_word=100000)),
             "pre_tokenizer": None}),
        "unk_not_in_vocab": lambda: with_model(wp(), unk_token="[NOT-THERE]"),
        "legacy_no_type": lambda: with_model(wp(), type=None),
    }


WORDPIECE_CASES = _wordpiece_cases()


@pytest.mark.parametrize("case", sorted(WORDPIECE_CASES))
def test_wordpiece_option_parity(case):
    tokenizer_json = WORDPIECE_CASES[case]()
    extra = ["ééééé", "éééééé", "abcde", "abcdef", "中文中文中", "unbelievable" * 10]
    assert_parity(tokenizer_json, texts() + extra, label=f"WordPiece {case}")
    assert_vocab_parity(tokenizer_json)


def test_wordpiece_max_chars_counts_chars_not_bytes():
    tj = bare({"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
               "max_input_chars_per_word": 3, "vocab": {"[UNK]": 0, "é": 1, "##é": 2}})
    assert snaptok.Tokenizer.from_str(tj).encode("ééé").ids == [1, 2, 2]
    assert snaptok.Tokenizer.from_str(tj).encode("éééé").ids == [0]
    assert_parity(tj, ["é", "éé", "ééé", "éééé", "e", "éx", "xé"])


def test_wordpiece_errors():
    tj = bare({"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
               "max_input_chars_per_word": 3, "vocab": {"é": 1}})
    assert snaptok.Tokenizer.from_str(tj).encode("é").ids == [1]
    with pytest.raises(ValueError, match="model.unk_token"):
        snaptok.Tokenizer.from_str(tj).encode("x")
    with pytest.raises(Exception):
        Tokenizer.from_str(tj).encode("x")
    # all four fields are required, as in HF
    for field in ("unk_token", "continuing_subword_prefix", "max_input_chars_per_word", "vocab"):
        model = {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                 "max_input_chars_per_word": 3, "vocab": {"é": 1}}
        del model[field]
        assert field in snaptok_error(bare(model))
        with pytest.raises(Exception):
            Tokenizer.from_str(bare(model))


# --------------------------------------------------------------------------
# WordLevel


@functools.cache
def trained_wordlevel() -> dict:
    return _train(
        models.WordLevel(unk_token="[UNK]"),
        hf_pre.Whitespace(),
        trainers.WordLevelTrainer(vocab_size=300, special_tokens=["[UNK]"], show_progress=False),
    )


WORDLEVEL_CASES = {
    "whitespace": lambda: with_model(trained_wordlevel()),
    "no_pre_tokenizer": lambda: json.dumps({**trained_wordlevel(), "pre_tokenizer": None}),
    "unk_not_in_vocab": lambda: with_model(trained_wordlevel(), unk_token="[NOT-THERE]"),
    "legacy_no_type": lambda: with_model(trained_wordlevel(), type=None),
}


@pytest.mark.parametrize("case", sorted(WORDLEVEL_CASES))
def test_wordlevel_option_parity(case):
    tokenizer_json = WORDLEVEL_CASES[case]()
    assert_parity(tokenizer_json, texts(), label=f"WordLevel {case}")
    assert_vocab_parity(tokenizer_json)


def test_wordlevel_unk_error_names_the_path():
    tj = bare({"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "[UNK]"})
    assert snaptok.Tokenizer.from_str(tj).encode("a").ids == [0]
    with pytest.raises(ValueError, match="model.unk_token"):
        snaptok.Tokenizer.from_str(tj).encode("b")
    assert "unk_token" in snaptok_error(bare({"type": "WordLevel", "vocab": {"a": 0}}))


# --------------------------------------------------------------------------
# Model type detection


LEGACY_MODELS = {
    "bpe": {"vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
    "wordpiece": {"vocab": {"[UNK]": 0, "a": 1, "##b": 2}, "unk_token": "[UNK]",
                  "continuing_subword_prefix": "##", "max_input_chars_per_word": 100},
    "wordlevel": {"vocab": {"<unk>": 0, "a": 1, "ab": 2}, "unk_token": "<unk>"},
    "unigram": {"vocab": [["<unk>", 0.0], ["a", -1.0], ["ab", -1.5]], "unk_id": 0},
    # BPE fails (a merge token is missing), WordPiece lacks fields: HF loads
    # it as WordLevel
    "broken_bpe_is_wordlevel": {"vocab": {"<unk>": 0, "a": 1, "b": 2}, "merges": ["a x"],
                                "unk_token": "<unk>"},
    "wordpiece_fields_win_over_wordlevel": {"vocab": {"[UNK]": 0, "a": 1, "##b": 2},
                                            "unk_token": "[UNK]",
                                            "continuing_subword_prefix": "##",
                                            "max_input_chars_per_word": 1},
}


@pytest.mark.parametrize("case", sorted(LEGACY_MODELS))
def test_legacy_model_without_type(case):
    tj = bare(LEGACY_MODELS[case])
    assert_parity(tj, ["a", "b", "ab", "abab", "ba", "x", "axb", "ab ab"], label=case)
    assert_vocab_parity(tj)


def test_unknown_or_unloadable_model_fails_like_hf():
    cases = [
        {"type": "Foo", "vocab": {}},
        {"vocab": {"a": 0}},  # no type, matches nothing
        {"type": "BPE", "vocab": {"a": 0}},  # missing merges
        {"type": "Unigram", "vocab": {"a": 0}},  # vocab of the wrong shape
        {"type": None, "vocab": {"a": 0}, "unk_token": "a"},
    ]
    for model in cases:
        with pytest.raises(BaseException):
            Tokenizer.from_str(bare(model))
        assert snaptok_error(bare(model)).startswith("model")
    assert 'unknown type "Foo"' in snaptok_error(bare(cases[0]))


# --------------------------------------------------------------------------
# Shared real and synthetic tokenizers (skipped when ../shared is absent)


def _shared_model_files() -> list[str]:
    root = SHARED / "tokenizers"
    if not root.is_dir():
        return []
    out = []
    for path in sorted(root.glob("*/tokenizer.json")) + sorted(root.glob("synthetic/*.json")):
        try:
            model = json.loads(path.read_text(encoding="utf-8"))["model"]
        except (OSError, ValueError, KeyError):
            continue
        t = model.get("type")
        # BPE with an option beyond byte-level merging; large byte-level files
        # whose only option is ignore_merges are left to the BPE parity tests.
        interesting_bpe = t in (None, "BPE") and (
            model.get("byte_fallback") or model.get("unk_token") is not None
            or model.get("continuing_subword_prefix") or model.get("end_of_word_suffix")
            or model.get("dropout")
            or (model.get("ignore_merges") and path.stat().st_size < 1_000_000)
        )
        if t in ("Unigram", "WordPiece", "WordLevel") or interesting_bpe or (
            t is None and isinstance(model.get("vocab"), list)
        ):
            out.append(str(path.relative_to(root)))
    return out


SHARED_FILES = _shared_model_files()


def _shared_json(rel: str) -> dict:
    return json.loads((SHARED / "tokenizers" / rel).read_text(encoding="utf-8"))


@pytest.mark.parametrize("rel", SHARED_FILES or ["(no shared data)"])
@pytest.mark.parametrize("variant", ["as_is", "no_normalizer", "model_only"])
def test_shared_tokenizer_model_parity(rel, variant):
    if not SHARED_FILES:
        pytest.skip("../shared/data is absent")
    j = _shared_json(rel)
    if variant != "as_is":
        j["normalizer"] = None
    if variant == "model_only":
        j["pre_tokenizer"] = None
        j["post_processor"] = None
        j["decoder"] = None
    tj = json.dumps(j, ensure_ascii=False)
    try:
        snaptok.Tokenizer.from_str(tj)
    except ValueError as e:
        msg = str(e)
        # Only other stages may be missing; the model must always load.
        if variant == "model_only" or msg.startswith("model"):
            raise
        pytest.skip(f"snaptok cannot load a non-model stage yet: {msg}")
    assert_parity(tj, texts(), label=f"{rel} {variant}")
    if variant == "model_only":
        assert_vocab_parity(tj)
