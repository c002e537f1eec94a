"""Parity of every pre-tokenizer and option with the pinned HF ``tokenizers``.

For each configuration a small BPE model is trained here with HF's own
trainer (through the pre-tokenizer under test) on a built-in multilingual
text; the resulting tokenizer.json is loaded by both HF and snaptok, and the
two encodings of many edge-case strings (and of corpus lines when
../shared/data is present) must agree in ids, tokens, offsets, word ids,
type ids and masks. The ids-only path (``encode_ids``) is compared too.
Word ids make every pre-token boundary visible even where BPE yields the same
tokens either way. snaptok has no ``pre_tokenize_str``, so all comparisons go
through ``encode``.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

hf = pytest.importorskip("tokenizers")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tokenizers import AddedToken, Tokenizer, models, trainers  # noqa: E402
from tokenizers import pre_tokenizers as hf_pre  # noqa: E402

import snaptok  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"

# --------------------------------------------------------------------------
# Inputs

TRAIN_TEXT = [
    "The quick brown fox jumps over the lazy dog. It's 3:45 p.m., isn't it?",
    "Hello, world!!! How are you -- fine; thanks... (really) [yes] {no} <maybe>",
    "Numbers: 0 1 12 123 1234 3.14159 1,000,000 ٣٤٥ ७८९ ¼ ½ Ⅻ ²",
    "Привет, мир! Как дела? Съешь же ещё этих мягких французских булок.",
    "東京タワーは日本の電波塔です。ひらがなとカタカナと漢字。ー",
    "مرحبا بالعالم، كيف حالك؟ السلام عليكم",
    "สวัสดีครับ ภาษาไทยไม่มีช่องว่างระหว่างคำ",
    "Emoji: 😀 👍🏽 👩‍👩‍👧‍👦 🇫🇷 ❤️ and café naïve coöperate e\u0301 a\u0308",
    "Γειά σου κόσμε. Ελληνικά γράμματα αβγδε.",
    "한국어 문장입니다. 안녕하세요!",
    "snake_case camelCase kebab-case dot.separated path/to/file.txt",
    "tabs\tand\nnewlines\r\nand  double  spaces   here",
    "It’s “quoted” ‘text’ — with em dash – en dash … ellipsis «guillemets»",
    "▁already▁has▁metaspace ▁ ▁▁",
    "def f(x): return x**2 + 1  # comment",
    "user@example.com https://example.org/a?b=c&d=e#frag $100 50% #tag @handle",
]

EDGE_CASES = [
    "",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "   \t\t\n\n\r\n  ",
    "a",
    "hello",
    "hello world",
    " hello world",
    "hello world ",
    "  hello   world  ",
    "hello\tworld\nnew\r\nline",
    "hello  \t  world",
    "trailing spaces    ",
    "    leading spaces",
    "a b c d e f g",
    "Hello, world!!!",
    "...!!!???",
    "(a)[b]{c}<d>",
    "don't can't won't it's y'all",
    "end.",
    "--",
    "a-b--c---d",
    "123",
    "abc123def456",
    "3.14159 1,000 1e10 -5",
    "٣٤٥ ७८९ ¼½ Ⅻ ² ①",
    "0123456789" * 3,
    "Привет мир",
    "東京タワー日本語",
    "ひらがなカタカナー漢字",
    "مرحبا بالعالم",
    "สวัสดีครับ",
    "한국어",
    "Γειά σου",
    "mixedРусскийEnglish日本語عربى",
    "café naïve",
    "e\u0301 a\u0308 o\u0302\u0323",
    "\u0301leading combining",
    "😀",
    "😀😀 👍🏽",
    "👩‍👩‍👧‍👦 family",
    "🇫🇷🇩🇪 flags",
    "❤️ ❤",
    "▁",
    "▁▁hello",
    "hello▁world",
    "▁ ▁",
    "_under_score_",
    "a\u00a0b\u2003c\u3000d",
    "zero\u200bwidth\u200djoiner",
    "\u2028\u2029\u0085",
    "x" * 40,
    "It’s “quoted” — yes…",
    "user@example.com https://example.org/a?b=c",
    "def f(x):\n    return x**2\n",
    "¡Hola! ¿Qué tal?",
    "\x00\x01control\x7f",
    "a~b~~c #&-x #&- \\d\\d 5",
    "tab\tseparated\tvalues",
]

PAIRS = [
    ("hello world", "second sentence"),
    ("  lead", " lead too"),
    ("first", ""),
    ("日本語", "Привет 123"),
]


def corpus_lines(limit_per_file: int = 60) -> list[str]:
    """A sample of real text from ../shared/data (empty when absent)."""
    files = [
        "corpus/en/brown_untagged.txt",
        "corpus/en/wikitext2_test_tokenized.txt",
        "corpus/multilingual/udhr_all_languages.txt",
        "corpus/multilingual/kougo_bible_ja.txt",
        "corpus/code/cpython311_stdlib_8MB.py.txt",
        "corpus/unicode/grapheme_break_test_strings.txt",
    ]
    out: list[str] = []
    for rel in files:
        path = SHARED / rel
        if not path.exists():
            continue
        with open(path, encoding="utf-8", errors="replace") as fh:
            taken = 0
            for i, line in enumerate(fh):
                if i % 7:  # spread over the start of the file
                    continue
                out.append(line.rstrip("\n"))
                taken += 1
                if taken >= limit_per_file:
                    break
    return out


CORPUS = corpus_lines()

# --------------------------------------------------------------------------
# Building tokenizers


@functools.lru_cache(maxsize=None)
def trained_json(pre_tokenizer_json: str, byte_level_alphabet: bool = False,
                 model: str = "bpe") -> str:
    """Trains a small model (BPE by default) through the given pre-tokenizer;
    returns its JSON."""
    if model == "bpe":
        tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    elif model == "wordlevel":
        tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    else:
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    data = json.loads(tok.to_str())
    data["pre_tokenizer"] = json.loads(pre_tokenizer_json)
    tok = Tokenizer.from_str(json.dumps(data))
    kwargs = {}
    if byte_level_alphabet and model != "wordlevel":
        kwargs["initial_alphabet"] = hf_pre.ByteLevel.alphabet()
    common = dict(vocab_size=400, min_frequency=1, special_tokens=["[UNK]"], show_progress=False)
    if model == "bpe":
        trainer = trainers.BpeTrainer(**common, **kwargs)
    elif model == "wordlevel":
        trainer = trainers.WordLevelTrainer(**common)
    else:
        trainer = trainers.WordPieceTrainer(**common, **kwargs)
    tok.train_from_iterator(TRAIN_TEXT * 3, trainer=trainer)
    # HF writes every default and drops legacy fields when it saves; put the
    # configuration back as written so that snaptok reads the same text.
    data = json.loads(tok.to_str())
    data["pre_tokenizer"] = json.loads(pre_tokenizer_json)
    return json.dumps(data, ensure_ascii=False)


def with_added_tokens(tokenizer_json: str) -> str:
    tok = Tokenizer.from_str(tokenizer_json)
    tok.add_special_tokens(["[CLS]", "<s>"])
    tok.add_tokens(
        [
            AddedToken("<x>", normalized=False),
            AddedToken("<y>", normalized=True),
            AddedToken("<ls>", lstrip=True, normalized=False),
            AddedToken("<rs>", rstrip=True, normalized=False),
            AddedToken("word", single_word=True, normalized=False),
        ]
    )
    data = json.loads(tok.to_str())
    data["pre_tokenizer"] = json.loads(tokenizer_json)["pre_tokenizer"]  # as written
    return json.dumps(data, ensure_ascii=False)


def load_pair(tokenizer_json: str):
    return Tokenizer.from_str(tokenizer_json), snaptok.Tokenizer.from_str(tokenizer_json)


def pt_json(obj) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


# --------------------------------------------------------------------------
# Comparing

FIELDS = ("ids", "tokens", "offsets", "word_ids", "type_ids", "attention_mask",
          "special_tokens_mask")


def _fields(enc) -> dict:
    out = {f: list(getattr(enc, f)) for f in FIELDS}
    out["offsets"] = [tuple(o) for o in out["offsets"]]
    return out


def diff(hf_tok, st_tok, text: str, pair: str | None = None,
         add_special_tokens: bool = True) -> str | None:
    """Returns a description of the first difference, or None."""
    if pair is None:
        h = hf_tok.encode(text, add_special_tokens=add_special_tokens)
        s = st_tok.encode(text, add_special_tokens=add_special_tokens)
    else:
        h = hf_tok.encode(text, pair, add_special_tokens=add_special_tokens)
        s = st_tok.encode(text, pair, add_special_tokens=add_special_tokens)
    hf_fields, st_fields = _fields(h), _fields(s)
    for f in FIELDS:
        if hf_fields[f] != st_fields[f]:
            return (f"{f} differ for {text!r} / {pair!r}:\n  hf      {hf_fields[f]}\n"
                    f"  snaptok {st_fields[f]}\n  hf tokens {hf_fields['tokens']}")
    if pair is None:
        ids = list(st_tok.encode_ids(text, add_special_tokens=add_special_tokens))
        if ids != hf_fields["ids"]:
            return f"encode_ids differ for {text!r}:\n  hf      {hf_fields['ids']}\n  snaptok {ids}"
    return None


def assert_parity(tokenizer_json: str, texts, pairs=()) -> int:
    hf_tok, st_tok = load_pair(tokenizer_json)
    problems = []
    n = 0
    for t in texts:
        n += 1
        d = diff(hf_tok, st_tok, t)
        if d:
            problems.append(d)
    for a, b in pairs:
        n += 1
        d = diff(hf_tok, st_tok, a, b)
        if d:
            problems.append(d)
    assert not problems, f"{len(problems)}/{n} mismatches; first ones:\n" + "\n".join(problems[:3])
    return n


# --------------------------------------------------------------------------
# Configurations: every pre-tokenizer and option

BEHAVIORS = ["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"]

CONFIGS: dict[str, dict] = {
    "whitespace": {"type": "Whitespace"},
    "whitespace_split": {"type": "WhitespaceSplit"},
    "bert": {"type": "BertPreTokenizer"},
    "punctuation_default": {"type": "Punctuation"},
    **{f"punctuation_{b}": {"type": "Punctuation", "behavior": b} for b in BEHAVIORS},
    "digits_individual": {"type": "Digits", "individual_digits": True},
    "digits_contiguous": {"type": "Digits", "individual_digits": False},
    **{
        f"metaspace_{scheme}_split{split}": {
            "type": "Metaspace", "replacement": "\u2581", "prepend_scheme": scheme, "split": split,
        }
        for scheme in ("always", "first", "never")
        for split in (True, False)
    },
    "metaspace_minimal": {"type": "Metaspace", "replacement": "\u2581"},
    "metaspace_underscore": {"type": "Metaspace", "replacement": "_", "prepend_scheme": "first"},
    "metaspace_multibyte_repl": {"type": "Metaspace", "replacement": "é", "split": True},
    "metaspace_legacy_prefix_true": {
        "type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True,
        "str_rep": "\u2581",
    },
    "metaspace_legacy_prefix_false": {
        "type": "Metaspace", "replacement": "\u2581", "add_prefix_space": False,
        "prepend_scheme": "never", "split": None,
    },
    "unicode_scripts": {"type": "UnicodeScripts"},
    "char_delimiter_space": {"type": "CharDelimiterSplit", "delimiter": " "},
    "char_delimiter_dash": {"type": "CharDelimiterSplit", "delimiter": "-"},
    "char_delimiter_multibyte": {"type": "CharDelimiterSplit", "delimiter": "\u2581"},
    "fixed_length_default": {"type": "FixedLength"},
    "fixed_length_1": {"type": "FixedLength", "length": 1},
    "fixed_length_3": {"type": "FixedLength", "length": 3},
    "fixed_length_7": {"type": "FixedLength", "length": 7},
    **{
        f"split_string_space_{b}_invert{inv}": {
            "type": "Split", "pattern": {"String": " "}, "behavior": b, "invert": inv,
        }
        for b in BEHAVIORS
        for inv in (False, True)
    },
    **{
        f"split_regex_words_{b}_invert{inv}": {
            "type": "Split", "pattern": {"Regex": r"\p{L}+|\d"}, "behavior": b, "invert": inv,
        }
        for b in BEHAVIORS
        for inv in (False, True)
    },
    "split_string_multichar": {
        "type": "Split", "pattern": {"String": "--"}, "behavior": "Isolated", "invert": False},
    "split_string_metachars": {
        "type": "Split", "pattern": {"String": ".*"}, "behavior": "Removed", "invert": False},
    "split_string_escapes": {
        "type": "Split", "pattern": {"String": "~"}, "behavior": "Isolated", "invert": False},
    "split_string_hash_amp_dash": {
        "type": "Split", "pattern": {"String": "#&-"}, "behavior": "MergedWithPrevious",
        "invert": True},
    "split_string_backslash": {
        "type": "Split", "pattern": {"String": "\\d"}, "behavior": "Removed", "invert": False},
    "split_string_empty": {
        "type": "Split", "pattern": {"String": ""}, "behavior": "Removed", "invert": False},
    "split_regex_empty_matches": {
        "type": "Split", "pattern": {"Regex": "a*"}, "behavior": "Isolated", "invert": False},
    "split_regex_lookahead": {
        "type": "Split", "pattern": {"Regex": r"(?=[A-Z])"}, "behavior": "MergedWithNext",
        "invert": False},
    "split_regex_whitespace_runs": {
        "type": "Split", "pattern": {"Regex": r"\s+"}, "behavior": "Removed", "invert": False},
    "sequence_empty": {"type": "Sequence", "pretokenizers": []},
    "sequence_whitespace_digits": {
        "type": "Sequence", "pretokenizers": [
            {"type": "Whitespace"}, {"type": "Digits", "individual_digits": True}]},
    "sequence_wss_metaspace_first": {
        "type": "Sequence", "pretokenizers": [
            {"type": "WhitespaceSplit"},
            {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first"}]},
    "sequence_punct_scripts_fixed": {
        "type": "Sequence", "pretokenizers": [
            {"type": "Punctuation", "behavior": "MergedWithNext"},
            {"type": "UnicodeScripts"},
            {"type": "FixedLength", "length": 4}]},
    "sequence_nested": {
        "type": "Sequence", "pretokenizers": [
            {"type": "Sequence", "pretokenizers": [{"type": "BertPreTokenizer"}]},
            {"type": "CharDelimiterSplit", "delimiter": "a"}]},
}

BYTE_LEVEL_CONFIGS: dict[str, dict] = {
    **{
        f"byte_level_prefix{p}_regex{r}_trim{t}": {
            "type": "ByteLevel", "add_prefix_space": p, "trim_offsets": t, "use_regex": r,
        }
        for p in (False, True)
        for r in (False, True)
        for t in (False, True)
    },
    "byte_level_no_use_regex_field": {
        "type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True},
    "sequence_punct_digits_byte_level": {
        "type": "Sequence", "pretokenizers": [
            {"type": "Punctuation", "behavior": "Isolated"},
            {"type": "Digits", "individual_digits": True},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
             "use_regex": False}]},
    "sequence_split_byte_level": {
        "type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+"},
             "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
             "use_regex": False}]},
    "sequence_metaspace_byte_level": {
        "type": "Sequence", "pretokenizers": [
            {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
             "split": True},
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
             "use_regex": True}]},
}

ALL_CONFIGS = {**CONFIGS, **BYTE_LEVEL_CONFIGS}


def tokenizer_for(name: str) -> str:
    return trained_json(pt_json(ALL_CONFIGS[name]), name in BYTE_LEVEL_CONFIGS)


def test_every_config_loads_in_hf_as_written():
    # Guards the configurations themselves: HF must accept each one as written
    # (defaults left out, legacy fields in).
    for name, cfg in ALL_CONFIGS.items():
        text = tokenizer_for(name)
        assert json.loads(text)["pre_tokenizer"] == cfg, name
        Tokenizer.from_str(text)


@pytest.mark.parametrize("name", sorted(ALL_CONFIGS))
def test_edge_cases(name):
    assert_parity(tokenizer_for(name), EDGE_CASES + TRAIN_TEXT, PAIRS)


@pytest.mark.parametrize("name", sorted(ALL_CONFIGS))
def test_added_tokens(name):
    texts = [
        "<x>hello", "hello<x>", "hello<x>world", "<x> hello", " <x>hello", "hello <x> world",
        "<x><x>", "<x>", " <x> ", "[CLS] hello [CLS]", "<s>hello", "<s> hello", "hello<s>",
        "a <ls> b", "a<ls>b", "a  <rs>  b", "word words sword word.", "<y>hello <y> 123<y>",
        "  <x>  ", "Привет<x>мир", "日本<s>語", "1<x>2", "▁<x>▁", "<x>\t\n",
    ]
    n = assert_parity(with_added_tokens(tokenizer_for(name)), texts + EDGE_CASES[:20],
                      [("<x>a", "<s> b"), ("a", "<x>b")])
    assert n > 40


# WordLevel turns every pre-token into exactly one token (or [UNK]), so the
# pieces themselves are compared; WordPiece adds its ## continuation logic.
OTHER_MODEL_CONFIGS = [
    "whitespace", "whitespace_split", "bert", "punctuation_Contiguous", "digits_individual",
    "metaspace_first_splitTrue", "metaspace_never_splitFalse", "unicode_scripts",
    "char_delimiter_dash", "fixed_length_3", "split_string_space_MergedWithNext_invertFalse",
    "byte_level_prefixTrue_regexTrue_trimFalse", "sequence_wss_metaspace_first",
]


@pytest.mark.parametrize("model", ["wordlevel", "wordpiece"])
@pytest.mark.parametrize("name", OTHER_MODEL_CONFIGS)
def test_other_models(name, model):
    text = trained_json(pt_json(ALL_CONFIGS[name]), name in BYTE_LEVEL_CONFIGS, model)
    assert json.loads(text)["model"]["type"].lower() == model
    assert_parity(with_added_tokens(text), EDGE_CASES + TRAIN_TEXT + CORPUS[:100], PAIRS)


@pytest.mark.skipif(not CORPUS, reason="../shared/data corpus not present")
@pytest.mark.parametrize("name", sorted(ALL_CONFIGS))
def test_corpus_sample(name):
    assert_parity(tokenizer_for(name), CORPUS)


def test_add_special_tokens_false_and_batch():
    hf_tok, st_tok = load_pair(with_added_tokens(tokenizer_for("metaspace_first_splitTrue")))
    for t in EDGE_CASES:
        assert diff(hf_tok, st_tok, t, add_special_tokens=False) is None
    got = st_tok.encode_batch(EDGE_CASES)
    want = hf_tok.encode_batch(EDGE_CASES)
    assert [_fields(e) for e in got] == [_fields(e) for e in want]


# --------------------------------------------------------------------------
# Metaspace "first": the prefix goes only on a piece that starts at the very
# beginning of the input (HF checks offsets_original().start == 0).


def metaspace_first_json(split: bool, normalizer=None, sequence_before=None) -> str:
    ms = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": split}
    pre = ms if sequence_before is None else {
        "type": "Sequence", "pretokenizers": [sequence_before, ms]}
    data = json.loads(with_added_tokens(trained_json(pt_json(pre))))
    if normalizer is not None:
        data["normalizer"] = normalizer
    return json.dumps(data)


@pytest.mark.parametrize("split", [True, False])
def test_metaspace_first_after_added_tokens(split):
    texts = ["<x>hello", "<s>hello world", "hello<x>world", " <x> hello", "<x> hello",
             "<ls>hello", "a<rs> b", "[CLS]", "[CLS]x", " hello", "hello"]
    hf_tok, st_tok = load_pair(metaspace_first_json(split))
    # The guard: HF prefixes "hello" alone but not after a leading added token.
    assert hf_tok.encode("hello").tokens[0].startswith("\u2581")
    assert not any(t.startswith("\u2581") for t in hf_tok.encode("<x>hello").tokens[1:])
    for t in texts:
        assert diff(hf_tok, st_tok, t) is None, diff(hf_tok, st_tok, t)
    for a, b in [("<x>a", "b"), ("a", "<x>b"), ("a", "b")]:
        assert diff(hf_tok, st_tok, a, b) is None, diff(hf_tok, st_tok, a, b)


@pytest.mark.parametrize(
    "normalizer",
    [
        {"type": "Strip", "strip_left": True, "strip_right": True},
        {"type": "Prepend", "prepend": "\u2581"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
    ],
    ids=["strip", "prepend", "replace"],
)
@pytest.mark.parametrize("before", [None, {"type": "WhitespaceSplit"},
                                    {"type": "Punctuation", "behavior": "Isolated"}],
                         ids=["alone", "after_wss", "after_punct"])
def test_metaspace_first_with_normalizers(normalizer, before):
    # A normalizer that removes the leading text moves the first piece's
    # original start off 0, so HF does not prefix it.
    texts = ["  hello", "hello", " , hello", ",hello", "<x>  hello", "  <x>hello", "a  b  "]
    assert_parity(metaspace_first_json(True, normalizer, before), texts + EDGE_CASES)


# --------------------------------------------------------------------------
# Synthetic files from ../shared/data (trained with HF trainers elsewhere)


def synthetic_files() -> list[Path]:
    d = SHARED / "tokenizers" / "synthetic"
    if not d.exists():
        return []
    return sorted(p for p in d.glob("pre-*.json"))


@pytest.mark.skipif(not synthetic_files(), reason="../shared/data synthetic files not present")
@pytest.mark.parametrize("path", synthetic_files(), ids=lambda p: p.stem)
def test_synthetic_file(path):
    assert_parity(path.read_text(encoding="utf-8"), EDGE_CASES + TRAIN_TEXT + CORPUS[:120], PAIRS)


# --------------------------------------------------------------------------
# Property tests on random Unicode text

POOL = list(" \t\n\r\u00a0\u2003\u3000\u2581_-.,!?'\"()[]0123456789٣७¼Ⅻ²"
            "aZéßПжΩ日本ひカー한مสั\u0301\u0308\u200b\u200d😀👍🏽🇫🇷❤\ufe0f")

random_text = st.text(
    alphabet=st.one_of(st.sampled_from(POOL), st.characters(blacklist_categories=("Cs",))),
    max_size=48,
)

# For the configurations that run Oniguruma (ByteLevel, Split) the random
# text keeps to code points assigned in Python's Unicode data (14.0): letters
# and digits added later are checked, deterministically, by
# test_regex_classes_follow_hf_unicode_version.
assigned_text = st.text(
    alphabet=st.one_of(st.sampled_from(POOL),
                       st.characters(blacklist_categories=("Cs", "Cn"))),
    max_size=48,
)

REGEX_CONFIGS = {"split_regex_words_Contiguous_invertTrue",
                 "byte_level_prefixTrue_regexTrue_trimTrue"}

PROPERTY_CONFIGS = [
    "whitespace", "whitespace_split", "bert", "punctuation_MergedWithPrevious",
    "digits_contiguous", "metaspace_first_splitTrue", "metaspace_always_splitFalse",
    "unicode_scripts", "fixed_length_3", "split_regex_words_Contiguous_invertTrue",
    "byte_level_prefixTrue_regexTrue_trimTrue", "sequence_punct_scripts_fixed",
]


@pytest.mark.parametrize("name", PROPERTY_CONFIGS)
def test_random_unicode(name):
    hf_tok, st_tok = load_pair(with_added_tokens(tokenizer_for(name)))

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=assigned_text if name in REGEX_CONFIGS else random_text)
    def check(text):
        d = diff(hf_tok, st_tok, text)
        assert d is None, d

    check()


# Letters and digits of Unicode 15.1/16.0 (Cyrillic TJE, Latin additions,
# Egyptian hieroglyphs ext-A, CJK ext-I, Garay digits, Kirat Rai digits):
# HF's bundled Oniguruma classifies them as \p{L} / \p{N}; a regex engine
# with older Unicode tables (e.g. Debian's libonig 6.9.8, Unicode 15.0) does
# not, and ByteLevel / Split then cut differently.
RECENT_CODE_POINTS = "\u1c89\ua7cb\U000105c0\U00013460\U0002ebf0\U00010d40\U00016d70"


@pytest.mark.parametrize("name", sorted(REGEX_CONFIGS))
def test_regex_classes_follow_hf_unicode_version(name):
    texts = [f"a{c}b :{c} 1{c} {c}{c}" for c in RECENT_CODE_POINTS]
    assert_parity(with_added_tokens(tokenizer_for(name)), texts + [RECENT_CODE_POINTS])


# --------------------------------------------------------------------------
# Errors: what HF refuses, snaptok refuses with the JSON path; what HF accepts
# (odd but legal), snaptok accepts.


def base_with_pre_tokenizer(pre) -> str:
    data = json.loads(trained_json(pt_json({"type": "WhitespaceSplit"})))
    data["pre_tokenizer"] = pre
    return json.dumps(data)


BAD = [
    ({"type": "Foo"}, "pre_tokenizer", "unknown type"),
    ({"type": "Delimiter", "delimiter": "x"}, "pre_tokenizer", "unknown type"),
    ({"add_prefix_space": True}, "pre_tokenizer", "type"),
    ({"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}, {"type": "Bar"}]},
     "pre_tokenizer.pretokenizers[1]", "unknown type"),
    ({"type": "Sequence"}, "pre_tokenizer", "pretokenizers"),
    ({"type": "Metaspace"}, "pre_tokenizer", "replacement"),
    ({"type": "Metaspace", "replacement": "ab"}, "pre_tokenizer.replacement", "single"),
    ({"type": "Metaspace", "replacement": ""}, "pre_tokenizer.replacement", "single"),
    ({"type": "Metaspace", "replacement": "_", "prepend_scheme": "First"},
     "pre_tokenizer.prepend_scheme", "First"),
    ({"type": "Metaspace", "replacement": "_", "prepend_scheme": None},
     "pre_tokenizer.prepend_scheme", "null"),
    ({"type": "Metaspace", "replacement": "_", "add_prefix_space": False},
     "pre_tokenizer.add_prefix_space", "prepend_scheme"),
    ({"type": "Metaspace", "replacement": "_", "split": "yes"}, "pre_tokenizer.split", ""),
    ({"type": "Punctuation", "behavior": "isolated"}, "pre_tokenizer.behavior", "isolated"),
    ({"type": "Punctuation", "behavior": None}, "pre_tokenizer.behavior", "null"),
    ({"type": "Digits"}, "pre_tokenizer", "individual_digits"),
    ({"type": "Digits", "individual_digits": 1}, "pre_tokenizer.individual_digits", ""),
    ({"type": "CharDelimiterSplit"}, "pre_tokenizer", "delimiter"),
    ({"type": "CharDelimiterSplit", "delimiter": "ab"}, "pre_tokenizer.delimiter", "single"),
    ({"type": "FixedLength", "length": -1}, "pre_tokenizer.length", ""),
    ({"type": "FixedLength", "length": 2.5}, "pre_tokenizer.length", ""),
    ({"type": "FixedLength", "length": None}, "pre_tokenizer.length", "null"),
    ({"type": "ByteLevel"}, "pre_tokenizer", "add_prefix_space"),
    ({"type": "ByteLevel", "add_prefix_space": True}, "pre_tokenizer", "trim_offsets"),
    ({"type": "Split", "pattern": {"String": " "}, "behavior": "Removed"},
     "pre_tokenizer", "invert"),
    ({"type": "Split", "pattern": {"Regex": "("}, "behavior": "Removed", "invert": False},
     "pre_tokenizer.pattern.Regex", "regex"),
    ({"type": "Split", "pattern": {"Foo": "x"}, "behavior": "Removed", "invert": False},
     "pre_tokenizer.pattern", ""),
    ({"type": "Split", "pattern": {"String": " ", "Regex": "a"}, "behavior": "Removed",
      "invert": False}, "pre_tokenizer.pattern", ""),
]


@pytest.mark.parametrize("pre,path,words", BAD, ids=[str(i) for i in range(len(BAD))])
def test_invalid_pre_tokenizer(pre, path, words):
    text = base_with_pre_tokenizer(pre)
    with pytest.raises(Exception):
        Tokenizer.from_str(text)  # HF refuses it too
    with pytest.raises(snaptok.SnaptokError) as err:
        snaptok.Tokenizer.from_str(text)
    msg = str(err.value)
    assert msg.startswith(path + ":"), msg
    assert words in msg, msg


GOOD_ODDITIES = [
    {"type": "Whitespace", "unknown_field": 1},
    {"type": "Metaspace", "replacement": "\u2581", "str_rep": "x", "add_prefix_space": None},
    {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True,
     "prepend_scheme": "never"},
    {"type": "Metaspace", "replacement": "\u2581", "split": None},
    {"type": "FixedLength", "length": 0},
    {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "extra": [1]},
]


@pytest.mark.parametrize("pre", GOOD_ODDITIES, ids=[str(i) for i in range(len(GOOD_ODDITIES))])
def test_oddities_hf_accepts(pre):
    text = base_with_pre_tokenizer(pre)
    hf_tok, st_tok = load_pair(text)
    for t in ["", "hello world", " a  b "] if pre["type"] != "FixedLength" else [""]:
        assert diff(hf_tok, st_tok, t) is None, diff(hf_tok, st_tok, t)


def test_fixed_length_zero_fails_on_text_like_hf():
    # HF loads length 0 and panics on the first non-empty text.
    text = base_with_pre_tokenizer({"type": "FixedLength", "length": 0})
    hf_tok, st_tok = load_pair(text)
    with pytest.raises(BaseException):
        hf_tok.encode("abc")
    with pytest.raises(snaptok.SnaptokError, match="pre_tokenizer.length"):
        st_tok.encode("abc")
    with pytest.raises(snaptok.SnaptokError, match="pre_tokenizer.length"):
        st_tok.encode_ids("abc")
    assert st_tok.encode("").ids == hf_tok.encode("").ids


def test_configs_cover_every_hf_pre_tokenizer_type():
    # Every type HF's Python API exposes has a configuration above.
    hf_types = {
        name for name in dir(hf_pre)
        if isinstance(getattr(hf_pre, name), type) and name not in ("PreTokenizer",)
    }
    covered = set()

    def walk(cfg):
        covered.add(cfg["type"])
        for sub in cfg.get("pretokenizers", []):
            walk(sub)

    for cfg in ALL_CONFIGS.values():
        walk(cfg)
    assert hf_types <= covered, hf_types - covered
