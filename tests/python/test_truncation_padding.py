"""Truncation and padding against the pinned Hugging Face ``tokenizers``.

Byte-level BPE tokenizers are trained here and given no post-processor,
BertProcessing, RobertaProcessing or a TemplateProcessing. Truncation is
checked in every strategy (longest_first, only_first, only_second), both
directions and a range of strides and max lengths (0, below the special
tokens, around the input lengths), on single inputs and pairs, comparing
every Encoding field and the overflowing parts recursively, and HF's errors
(stride too large, sequence too short, no second sequence). Padding is
checked left/right, fixed or batch-longest, pad_to_multiple_of, custom pad
id/type id/token, on encode and on encode_batch with pairs (which pads the
batch together), with overflowing parts padded too. The settings'
tokenizer.json form and the Python properties are compared as well.
"""

from __future__ import annotations

import json
import random

import pytest

hf = pytest.importorskip("tokenizers")
snaptok = pytest.importorskip("snaptok")

from parity_helpers import assert_same_encoding, load_both, synthetic_files  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers  # noqa: E402


CORPUS = [
    "Hello world, this is a test. The quick brown fox jumps over the lazy dog!",
    "Ünïcödé ça va? naïve café 日本語のテキスト 😀 emoji",
    "don't won't I'm we've they're 1234 3.14159",
] * 10
SPECIALS = ["<s>", "</s>", "<pad>", "[CLS]", "[SEP]"]

TEXTS = [
    "",
    "a",
    "Hello world",
    "Hello world, this is a test.",
    "The quick brown fox jumps over the lazy dog! " * 3,
    "Ünïcödé ça va? 日本語 😀 <s> x",
]

def both(fn_hf, fn_st):
    """HF result and snaptok result, or (None, None) when both fail."""
    try:
        a = fn_hf()
    except BaseException as e:  # HF panics are pyo3 PanicException (BaseException)
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        with pytest.raises(Exception):
            fn_st()
        return None, None
    return a, fn_st()


@pytest.fixture(scope="module")
def base_json():
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS, trainer)
    return tok.to_str()


def processor_cases(base_json):
    vocab = json.loads(base_json)["model"]["vocab"]
    v = {t: vocab[t] for t in SPECIALS}
    return {
        "none": None,
        "bert": processors.BertProcessing(("[SEP]", v["[SEP]"]), ("[CLS]", v["[CLS]"])),
        "roberta": processors.RobertaProcessing(("</s>", v["</s>"]), ("<s>", v["<s>"])),
        "template": processors.TemplateProcessing(
            single="<s> $A </s>",
            pair="<s> $A </s> </s>:1 $B:1 </s>:1",
            special_tokens=[("<s>", v["<s>"]), ("</s>", v["</s>"])],
        ),
    }


PROCESSORS = ["none", "bert", "roberta", "template"]


def make_pair(base_json, name):
    tok = Tokenizer.from_str(base_json)
    tok.post_processor = processor_cases(base_json)[name]
    js = tok.to_str()
    return Tokenizer.from_str(js), snaptok.Tokenizer.from_str(js)


def set_truncation(hf_tok, st_tok, **params):
    """Enables truncation on both; returns False when HF refuses it (and
    then snaptok must refuse too)."""
    try:
        hf_tok.enable_truncation(**params)
    except Exception:
        with pytest.raises(ValueError):
            st_tok.enable_truncation(**params)
        return False
    st_tok.enable_truncation(**params)
    assert st_tok.truncation == hf_tok.truncation
    return True


def compare_all(hf_tok, st_tok, texts, pairs, where):
    n = 0
    for text in texts:
        for pair in pairs:
            for add in (True, False):
                a, b = both(
                    lambda: hf_tok.encode(text, pair, add_special_tokens=add),
                    lambda: st_tok.encode(text, pair, add_special_tokens=add),
                )
                if a is None:
                    continue
                assert_same_encoding(b, a, f"{where} encode({text!r}, {pair!r}, {add})")
                if pair is None:
                    assert st_tok.encode_ids(text, add) == a.ids, f"{where} encode_ids({text!r})"
                n += 1
    return n


STRATEGIES = ["longest_first", "only_first", "only_second"]
DIRECTIONS = ["right", "left"]


@pytest.mark.parametrize("name", PROCESSORS)
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_truncation(base_json, name, strategy, direction):
    hf_tok, st_tok = make_pair(base_json, name)
    pairs = [None, "", "jumps over", "The quick brown fox jumps over the lazy dog again and again"]
    compared = 0
    # Small windows with a small stride make pairs overflow into the product
    # of both sides' windows: keep the grid modest.
    for max_length, stride in ((0, 0), (1, 0), (2, 1), (3, 0), (4, 3), (5, 2), (7, 1), (10, 4),
                               (16, 2), (40, 0), (6, 6)):
        if True:
            if not set_truncation(
                hf_tok, st_tok, max_length=max_length, stride=stride, strategy=strategy,
                direction=direction,
            ):
                continue
            compared += compare_all(
                hf_tok, st_tok, TEXTS, pairs, f"{name} {strategy} {direction} {max_length}/{stride}"
            )
    assert compared > 0


def test_truncation_random(base_json):
    """Random texts, pairs and parameters (seeded)."""
    rnd = random.Random(7)
    words = "the quick brown fox jumps over lazy dog ça 日本 😀 , . ! don't <s> </s>".split()
    toks = {name: make_pair(base_json, name) for name in PROCESSORS}
    for _ in range(300):
        name = rnd.choice(PROCESSORS)
        hf_tok, st_tok = toks[name]
        ok = set_truncation(
            hf_tok, st_tok,
            max_length=rnd.randrange(0, 30), stride=rnd.randrange(0, 6),
            strategy=rnd.choice(STRATEGIES), direction=rnd.choice(DIRECTIONS),
        )
        if not ok:
            continue
        text = " ".join(rnd.choice(words) for _ in range(rnd.randrange(0, 25)))
        pair = None if rnd.random() < 0.3 else " ".join(rnd.choice(words) for _ in range(rnd.randrange(0, 25)))
        compare_all(hf_tok, st_tok, [text], [pair], name)


def test_enable_truncation_errors(base_json):
    hf_tok, st_tok = make_pair(base_json, "bert")
    # stride must not exceed max_length less the special tokens of one sequence
    assert not set_truncation(hf_tok, st_tok, max_length=5, stride=4)
    assert set_truncation(hf_tok, st_tok, max_length=5, stride=2)
    # equal is accepted, but cutting then fails (HF panics: stride >= max_len)
    assert set_truncation(hf_tok, st_tok, max_length=5, stride=3)
    long_text = "The quick brown fox jumps over the lazy dog"
    with pytest.raises(BaseException):
        hf_tok.encode(long_text)
    with pytest.raises(Exception):
        st_tok.encode(long_text)
    with pytest.raises(Exception):
        st_tok.encode_ids(long_text)
    assert st_tok.encode("a").ids == hf_tok.encode("a").ids
    # max_length below the special tokens: HF's usize subtraction wraps, no error
    assert set_truncation(hf_tok, st_tok, max_length=1, stride=4)
    for bad in (dict(strategy="longest"), dict(direction="up")):
        with pytest.raises(ValueError):
            hf_tok.enable_truncation(8, **bad)
        with pytest.raises(ValueError):
            st_tok.enable_truncation(8, **bad)
    hf_tok.no_truncation()
    st_tok.no_truncation()
    assert st_tok.truncation is None and hf_tok.truncation is None


def test_truncation_errors_at_encode(base_json):
    hf_tok, st_tok = make_pair(base_json, "none")
    text = "The quick brown fox jumps over the lazy dog"
    # only_second without a pair, only when cutting is needed
    set_truncation(hf_tok, st_tok, max_length=4, strategy="only_second")
    with pytest.raises(Exception):
        hf_tok.encode(text)
    with pytest.raises(Exception):
        st_tok.encode(text)
    with pytest.raises(Exception):
        st_tok.encode_ids(text)
    assert st_tok.encode("a").ids == hf_tok.encode("a").ids
    # the sequence to cut is too short
    set_truncation(hf_tok, st_tok, max_length=4, strategy="only_first")
    with pytest.raises(Exception):
        hf_tok.encode("a", text)
    with pytest.raises(Exception):
        st_tok.encode("a", text)


PAD_CASES = [
    dict(),
    dict(direction="left"),
    dict(pad_id=3, pad_type_id=2, pad_token="[CLS]"),
    dict(length=12),
    dict(length=12, direction="left", pad_id=7),
    dict(length=3),
    dict(pad_to_multiple_of=8),
    dict(pad_to_multiple_of=5, direction="left"),
    dict(length=10, pad_to_multiple_of=4),
    dict(length=0),
    dict(pad_to_multiple_of=0),
    dict(length=None, pad_to_multiple_of=None, pad_token="<pad>", pad_id=2),
]


@pytest.mark.parametrize("case", range(len(PAD_CASES)))
@pytest.mark.parametrize("name", PROCESSORS)
def test_padding(base_json, name, case):
    hf_tok, st_tok = make_pair(base_json, name)
    params = PAD_CASES[case]
    hf_tok.enable_padding(**params)
    st_tok.enable_padding(**params)
    assert st_tok.padding == hf_tok.padding
    pairs = [None, "", "jumps over the lazy dog"]
    compare_all(hf_tok, st_tok, TEXTS, pairs, f"{name} pad {params}")
    batches = [
        TEXTS,
        [(t, p) for t in TEXTS for p in ("x", "jumps over the lazy dog")],
        ["a", ("Hello world", "fox"), ["list", "pair"], "", ("", "")],
        [],
    ]
    for batch in batches:
        for add in (True, False):
            a = hf_tok.encode_batch(batch, add_special_tokens=add)
            b = st_tok.encode_batch(batch, add_special_tokens=add)
            assert len(a) == len(b)
            for i, (x, y) in enumerate(zip(b, a)):
                assert_same_encoding(x, y, f"{name} pad {params} batch[{i}]")
    # ids-only batch paths pad like encode_batch does
    plain = [t for t in TEXTS]
    want = [e.ids for e in hf_tok.encode_batch(plain)]
    assert st_tok.encode_batch(plain)[0].ids == want[0]
    ids, offsets = st_tok.encode_to_numpy(plain)
    rows = [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(plain))]
    assert rows == want
    hf_tok.no_padding()
    st_tok.no_padding()
    assert st_tok.padding is None and hf_tok.padding is None


@pytest.mark.parametrize("name", PROCESSORS)
def test_truncation_and_padding_together(base_json, name):
    """Overflowing parts are padded too; batches pad to the longest."""
    hf_tok, st_tok = make_pair(base_json, name)
    batch = [t for t in TEXTS] + [(t, "jumps over the lazy dog") for t in TEXTS]
    for trunc in (
        dict(max_length=9, stride=2),
        dict(max_length=8, direction="left", strategy="only_first"),
        dict(max_length=11, stride=1, strategy="only_second"),
    ):
        if not set_truncation(hf_tok, st_tok, **trunc):
            continue
        for pad in (dict(), dict(direction="left", pad_to_multiple_of=4), dict(length=14, pad_id=1)):
            hf_tok.enable_padding(**pad)
            st_tok.enable_padding(**pad)
            compare_all(hf_tok, st_tok, TEXTS, [None, "jumps over"], f"{name} {trunc} {pad}")
            for add in (True, False):
                a, b = both(
                    lambda: hf_tok.encode_batch(batch, add_special_tokens=add),
                    lambda: st_tok.encode_batch(batch, add_special_tokens=add),
                )
                if a is None:
                    continue
                for i, (x, y) in enumerate(zip(b, a)):
                    assert_same_encoding(x, y, f"{name} {trunc} {pad} batch[{i}]")


def test_encode_batch_input_forms(base_json):
    hf_tok, st_tok = make_pair(base_json, "bert")
    for bad in ([("a", "b", "c")], [1], [("a", 2)], [["a"]]):
        with pytest.raises(Exception):
            hf_tok.encode_batch(bad)
        with pytest.raises(TypeError):
            st_tok.encode_batch(bad)


# ------------------------------------------------------ tokenizer.json form


JSON_SETTINGS = [
    ({"direction": "Left", "max_length": 7, "strategy": "OnlyFirst", "stride": 2}, None),
    ({"max_length": 6, "strategy": "LongestFirst", "stride": 1}, None),  # no direction: Right
    ({"direction": "Right", "max_length": 8, "strategy": "OnlySecond", "stride": 0},
     {"strategy": {"Fixed": 10}, "direction": "Left", "pad_to_multiple_of": 4, "pad_id": 2,
      "pad_type_id": 1, "pad_token": "<pad>"}),
    (None, {"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": None,
            "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}),
    (None, {"strategy": "BatchLongest", "direction": "Right", "pad_id": 0, "pad_type_id": 0,
            "pad_token": "[PAD]"}),
    # malformed: both must refuse
    ({"max_length": 6, "strategy": "Longest", "stride": 1}, None),
    ({"max_length": 6, "strategy": "LongestFirst"}, None),
    ({"max_length": 6, "strategy": "LongestFirst", "stride": 0, "direction": "Up"}, None),
    (None, {"strategy": "Fixed", "direction": "Right", "pad_id": 0, "pad_type_id": 0,
            "pad_token": "[PAD]"}),
    (None, {"strategy": {"Fixed": 3}, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}),
    (None, {"strategy": "BatchLongest", "direction": "Right", "pad_id": 0, "pad_type_id": 0}),
]


@pytest.mark.parametrize("case", range(len(JSON_SETTINGS)))
@pytest.mark.parametrize("name", ["none", "bert"])
def test_settings_from_json(base_json, name, case):
    trunc, pad = JSON_SETTINGS[case]
    tok = Tokenizer.from_str(base_json)
    tok.post_processor = processor_cases(base_json)[name]
    js = json.loads(tok.to_str())
    js["truncation"] = trunc
    js["padding"] = pad
    js = json.dumps(js)
    try:
        hf_tok = Tokenizer.from_str(js)
    except Exception:
        with pytest.raises(Exception):
            snaptok.Tokenizer.from_str(js)
        return
    st_tok = snaptok.Tokenizer.from_str(js)
    assert st_tok.truncation == hf_tok.truncation
    assert st_tok.padding == hf_tok.padding
    compare_all(hf_tok, st_tok, TEXTS, [None, "", "jumps over the lazy dog"], f"json {case}")
    batch = TEXTS + [(t, "fox") for t in TEXTS]
    a, b = both(lambda: hf_tok.encode_batch(batch), lambda: st_tok.encode_batch(batch))
    if a is not None:
        for i, (x, y) in enumerate(zip(b, a)):
            assert_same_encoding(x, y, f"json {case} batch[{i}]")


def test_settings_roundtrip_through_hf(base_json):
    """Whatever HF writes for enable_truncation / enable_padding, snaptok reads."""
    for name in PROCESSORS:
        tok = Tokenizer.from_str(base_json)
        tok.post_processor = processor_cases(base_json)[name]
        tok.enable_truncation(9, stride=2, strategy="only_first", direction="left")
        tok.enable_padding(direction="left", pad_id=2, pad_type_id=1, pad_token="<pad>",
                           length=11, pad_to_multiple_of=4)
        js = tok.to_str()
        hf_tok, st_tok = Tokenizer.from_str(js), snaptok.Tokenizer.from_str(js)
        assert st_tok.truncation == hf_tok.truncation
        assert st_tok.padding == hf_tok.padding
        compare_all(hf_tok, st_tok, TEXTS, [None, "jumps over the lazy dog"], name)


# ---------------------------------------------------------- shared tokenizers


def truncation_padding_files():
    return synthetic_files(lambda p: "trunc" in p.name or "pad" in p.name)


@pytest.mark.parametrize("path", truncation_padding_files(), ids=lambda p: p.name)
def test_shared_truncation_padding(path):
    hf_tok, st_tok = load_both(path)
    assert st_tok.truncation == hf_tok.truncation
    assert st_tok.padding == hf_tok.padding
    texts = TEXTS + ["Hello world, this is a test. " * 6]
    compare_all(hf_tok, st_tok, texts, [None, "", "jumps over the lazy dog " * 3], path.name)
    batch = texts + [(t, "jumps over the lazy dog") for t in texts]
    a, b = both(lambda: hf_tok.encode_batch(batch), lambda: st_tok.encode_batch(batch))
    if a is not None:
        for i, (x, y) in enumerate(zip(b, a)):
            assert_same_encoding(x, y, f"{path.name} batch[{i}]")
