"""Post-processors against the pinned Hugging Face ``tokenizers``.

Tokenizers are trained here with HF's own trainers, given each
post-processor (BertProcessing, RobertaProcessing in every trim/prefix
combination, TemplateProcessing with type ids and multi-token specials,
ByteLevel, Sequence, none), serialized with ``to_str()`` and loaded by
snaptok. Every field of every Encoding (ids, type ids, tokens, offsets,
masks, word ids, sequence ids, overflowing, recursively) is compared for
single inputs and pairs, with and without special tokens; the ids-only path
(``encode_ids``) must give the same ids. HF's reading of post-processor JSON
(untagged, "type" ignored by Bert/Roberta/Template) and its errors are
checked too. /work/shared synthetic tokenizers are used when present.
"""

from __future__ import annotations

import json

import pytest

hf = pytest.importorskip("tokenizers")
snaptok = pytest.importorskip("snaptok")

from parity_helpers import assert_same_encoding, load_both, synthetic_files  # noqa: E402
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors, trainers  # noqa: E402


CORPUS = [
    "Hello world, this is a test. The quick brown fox jumps over the lazy dog!",
    "Ünïcödé ça va? naïve café 日本語のテキスト 😀 emoji 👩‍👩‍👧 e\u0301",
    "don't won't I'm we've they're 1234 3.14159",
    "  leading and trailing spaces  \t tabs\nnewlines\r\n",
] * 10

SPECIALS = ["<s>", "</s>", "<pad>", "[CLS]", "[SEP]", "<mask>"]

TEXTS = [
    "Hello world, this is a test.",
    "",
    " ",
    "  spaced  out  ",
    "Ünïcödé ça va? 日本語 😀",
    "<s> inside </s> text [SEP]",
    "don't won't",
    "a",
]
PAIRS = [None, "The quick brown fox", "", "jumps over the lazy dog! <mask>"]

def run_both(fn_hf, fn_st):
    """Returns (hf result, snaptok result); an exception on one side must be
    matched by one on the other (HF panics are BaseExceptions)."""
    try:
        a = fn_hf()
    except BaseException as e:  # pyo3 PanicException derives from BaseException
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        with pytest.raises(Exception):
            fn_st()
        return None, None
    return a, fn_st()


def compare_encode(hf_tok, st_tok, text, pair, add_special_tokens):
    a, b = run_both(
        lambda: hf_tok.encode(text, pair, add_special_tokens=add_special_tokens),
        lambda: st_tok.encode(text, pair, add_special_tokens=add_special_tokens),
    )
    if a is None:
        return 0
    assert_same_encoding(b, a, f"encode({text!r}, {pair!r}, add_special_tokens={add_special_tokens})")
    if pair is None:
        assert st_tok.encode_ids(text, add_special_tokens) == a.ids, f"encode_ids({text!r})"
    return 1


def _train(tok, vocab_size=320, **kw):
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False, **kw
    )
    tok.train_from_iterator(CORPUS, trainer)
    return tok


@pytest.fixture(scope="module")
def byte_level_json():
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    _train(tok, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    return tok.to_str()


@pytest.fixture(scope="module")
def byte_level_prefix_json():
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    _train(tok, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    return tok.to_str()


@pytest.fixture(scope="module")
def words_json():
    # WordPiece-like: words and punctuation split apart, "##" continuations.
    tok = Tokenizer(models.BPE(unk_token="<mask>", continuing_subword_prefix="##"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"\w+|[^\w\s]+"), "removed", invert=True)
    tok.decoder = decoders.WordPiece()
    _train(tok, continuing_subword_prefix="##")
    return tok.to_str()


def ids_of(base_json):
    vocab = json.loads(base_json)["model"]["vocab"]
    return {t: vocab[t] for t in SPECIALS}


def make_processors(ids):
    cls, sep, s, es = ids["[CLS]"], ids["[SEP]"], ids["<s>"], ids["</s>"]
    T = processors.TemplateProcessing
    return {
        "none": None,
        "bert": processors.BertProcessing(("[SEP]", sep), ("[CLS]", cls)),
        "roberta-TT": processors.RobertaProcessing(("</s>", es), ("<s>", s)),
        "roberta-TF": processors.RobertaProcessing(
            ("</s>", es), ("<s>", s), trim_offsets=True, add_prefix_space=False
        ),
        "roberta-FT": processors.RobertaProcessing(
            ("</s>", es), ("<s>", s), trim_offsets=False, add_prefix_space=True
        ),
        "roberta-FF": processors.RobertaProcessing(
            ("</s>", es), ("<s>", s), trim_offsets=False, add_prefix_space=False
        ),
        "template-bert": T(
            single="[CLS] $A [SEP]",
            pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
        ),
        "template-typeids": T(
            single="[CLS]:3 $0:2 [SEP]:1",
            pair="$B:5 [SEP]:4 $A:7 [CLS]:2",
            special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
        ),
        "template-multi": T(
            single=["<s>", "$A", "[2X]"],
            pair=["[2X]:1", "$A", "<s>", "$B:1", "</s>:1"],
            special_tokens=[
                ("<s>", s),
                ("</s>", es),
                {"id": "[2X]", "ids": [sep, cls], "tokens": ["[SEP]", "[CLS]"]},
            ],
        ),
        "template-bare": T(single="$A", pair="$A $B", special_tokens=[]),
        "template-repeat": T(
            single="$A [SEP] $A:1", pair="$B $A:1 $B:2", special_tokens=[("[SEP]", sep)]
        ),
        "bytelevel-trim": processors.ByteLevel(trim_offsets=True, add_prefix_space=False),
        "bytelevel-trim-prefix": processors.ByteLevel(trim_offsets=True, add_prefix_space=True),
        "bytelevel-notrim": processors.ByteLevel(trim_offsets=False),
        "sequence-bytelevel-template": processors.Sequence(
            [
                processors.ByteLevel(trim_offsets=True),
                T(single="<s> $A", pair="<s> $A <s>:1 $B:1", special_tokens=[("<s>", s)]),
            ]
        ),
        "sequence-bert-roberta": processors.Sequence(
            [
                processors.BertProcessing(("[SEP]", sep), ("[CLS]", cls)),
                processors.RobertaProcessing(("</s>", es), ("<s>", s)),
            ]
        ),
        "sequence-template-bert": processors.Sequence(
            [
                T(single="[CLS] $A", pair="$A [SEP] $B", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]),
                processors.BertProcessing(("[SEP]", sep), ("[CLS]", cls)),
            ]
        ),
        "sequence-empty": processors.Sequence([]),
    }


PROCESSOR_NAMES = list(make_processors({t: i for i, t in enumerate(SPECIALS)}))


def pair_of(base_json, processor):
    tok = Tokenizer.from_str(base_json)
    tok.post_processor = processor
    js = tok.to_str()
    return Tokenizer.from_str(js), snaptok.Tokenizer.from_str(js)


@pytest.mark.parametrize("name", PROCESSOR_NAMES)
@pytest.mark.parametrize("base", ["byte_level_json", "byte_level_prefix_json", "words_json"])
def test_processor_encodings(request, base, name):
    base_json = request.getfixturevalue(base)
    proc = make_processors(ids_of(base_json))[name]
    hf_tok, st_tok = pair_of(base_json, proc)
    compared = 0
    for text in TEXTS:
        for pair in PAIRS:
            for add in (True, False):
                compared += compare_encode(hf_tok, st_tok, text, pair, add)
    assert compared > 0


@pytest.mark.parametrize("name", PROCESSOR_NAMES)
def test_processor_with_truncation_overflow(byte_level_json, name):
    """Overflowing parts go through the processor too (and through
    Encoding.merge's cross product for pairs)."""
    proc = make_processors(ids_of(byte_level_json))[name]
    hf_tok, st_tok = pair_of(byte_level_json, proc)
    for params in (
        dict(max_length=12, stride=3),
        dict(max_length=9, stride=1, direction="left"),
        dict(max_length=10, strategy="only_first"),
        dict(max_length=10, strategy="only_second", stride=2),
    ):
        try:
            hf_tok.enable_truncation(**params)
        except Exception:
            with pytest.raises(Exception):
                st_tok.enable_truncation(**params)
            continue
        st_tok.enable_truncation(**params)
        for text in TEXTS:
            for pair in PAIRS:
                for add in (True, False):
                    compare_encode(hf_tok, st_tok, text, pair, add)


def test_added_tokens_count_shows_in_truncation(byte_level_json):
    """added_tokens() per processor is what truncation reserves."""
    for name, proc in make_processors(ids_of(byte_level_json)).items():
        if proc is None:
            continue
        hf_tok, st_tok = pair_of(byte_level_json, proc)
        for is_pair in (False, True):
            n = proc.num_special_tokens_to_add(is_pair)
            assert st_tok.num_special_tokens_to_add(is_pair) == n == hf_tok.num_special_tokens_to_add(is_pair)
            hf_tok.enable_truncation(n + 3)
            st_tok.enable_truncation(n + 3)
            text = "Hello world, this is a test. The quick brown fox"
            pair = "jumps over the lazy dog!" if is_pair else None
            a = hf_tok.encode(text, pair)
            b = st_tok.encode(text, pair)
            assert_same_encoding(b, a, f"{name} is_pair={is_pair}")


def test_batch_with_processors(byte_level_json):
    batch = [t if i % 2 else (t, PAIRS[i % 4] or "x") for i, t in enumerate(TEXTS)]
    for name, proc in make_processors(ids_of(byte_level_json)).items():
        hf_tok, st_tok = pair_of(byte_level_json, proc)
        for add in (True, False):
            a = hf_tok.encode_batch(batch, add_special_tokens=add)
            b = st_tok.encode_batch(batch, add_special_tokens=add)
            assert len(a) == len(b)
            for i, (x, y) in enumerate(zip(b, a)):
                assert_same_encoding(x, y, f"{name} batch[{i}]")


# ---------------------------------------------------------------- JSON forms


def _with_post_processor(base_json, pp):
    js = json.loads(base_json)
    js["post_processor"] = pp
    return json.dumps(js)


JSON_CASES = [
    # HF reads post-processors untagged: Bert and Roberta ignore "type".
    {"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0]},
    {"type": "BertProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": False,
     "add_prefix_space": False},
    {"type": "Foo", "sep": ["</s>", 1], "cls": ["<s>", 0]},
    {"sep": ["</s>", 1], "cls": ["<s>", 0]},
    {"sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": True, "add_prefix_space": False},
    {"type": "ByteLevel", "sep": ["[SEP]", 4], "cls": ["[CLS]", 3]},
    {"type": "RobertaProcessing", "sep": ["</s>", 1]},
    {"type": "BertProcessing", "sep": ["</s>", 1, 2], "cls": ["<s>", 0]},
    {"type": "ByteLevel"},
    {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True},
    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
    {"type": "ByteLevel", "trim_offsets": False},
    {"trim_offsets": False, "add_prefix_space": False},
    {"type": "Sequence", "processors": []},
    {"type": "Sequence", "processors": [{"sep": ["</s>", 1], "cls": ["<s>", 0]}]},
    {"type": "Foo", "processors": []},
    {"processors": []},
    {"type": "Nope"},
    {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}}],
     "pair": [{"Sequence": {"id": "B", "type_id": 1}}, {"Sequence": {"id": "A", "type_id": 2}}],
     "special_tokens": {}},
    # Template ignores "type" too.
    {"type": "Foo", "single": [{"SpecialToken": {"id": "X", "type_id": 1}},
                               {"Sequence": {"id": "A", "type_id": 0}}],
     "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
     "special_tokens": {"X": {"id": "X", "ids": [3, 4], "tokens": ["[CLS]", "[SEP]"]}}},
    {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "C", "type_id": 0}}],
     "pair": [], "special_tokens": {}},
    {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A"}}], "pair": [],
     "special_tokens": {}},
    # A template special token missing from the map: loads, fails at encode time.
    {"type": "TemplateProcessing",
     "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
     "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
     "special_tokens": {}},
    # The pair template without $B, and a single template using $B.
    {"type": "TemplateProcessing",
     "single": [{"Sequence": {"id": "A", "type_id": 0}}],
     "pair": [{"Sequence": {"id": "B", "type_id": 1}}],
     "special_tokens": {}},
    {"type": "TemplateProcessing",
     "single": [{"Sequence": {"id": "B", "type_id": 0}}],
     "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
     "special_tokens": {}},
]


@pytest.mark.parametrize("case", range(len(JSON_CASES)))
def test_post_processor_json_forms(byte_level_json, case):
    js = _with_post_processor(byte_level_json, JSON_CASES[case])
    try:
        hf_tok = Tokenizer.from_str(js)
    except Exception:
        with pytest.raises(Exception):
            snaptok.Tokenizer.from_str(js)
        return
    st_tok = snaptok.Tokenizer.from_str(js)
    for text in TEXTS[:5]:
        for pair in PAIRS:
            for add in (True, False):
                compare_encode(hf_tok, st_tok, text, pair, add)


# ---------------------------------------------------------- shared tokenizers


@pytest.mark.parametrize("path", synthetic_files(), ids=lambda p: p.name)
def test_shared_tokenizers(path):
    hf_tok, st_tok = load_both(path)
    texts = TEXTS + ["The quick brown fox jumps over the lazy dog. " * 8]
    for text in texts:
        for pair in PAIRS:
            for add in (True, False):
                compare_encode(hf_tok, st_tok, text, pair, add)
