"""What HF tokenizers 1.0 added to its smaller API, on snaptok: Encoding's
``ids_array``, ``type_ids_array`` and ``attention_mask_array`` (uint32 NumPy
copies), ``Tokenizer.tokenize`` (a text or a (text, pair) tuple),
``Tokenizer.decode_tokens`` (ids to tokens without the decoder) and the
(text, pair) tuple as encode's input. Checked against the pinned
tokenizers 0.23.3's equivalents (encode(...).tokens, id_to_token); the
values HF 1.0rc3 gives are the literal expectations below."""

from pathlib import Path

import numpy as np
import pytest

import snaptok

hf_tokenizers = pytest.importorskip("tokenizers")

DATA = Path(__file__).resolve().parents[1] / "data"
GPT2 = DATA / "gpt2" / "tokenizer.json"
T5 = DATA / "spm-botchan-unigram-1000-t5" / "tokenizer.json"
TEXTS = ["Hello world", "", "naïve café 東京 <|endoftext|> 1234", "  x\t\ny  "]


@pytest.fixture(scope="module", params=[GPT2, T5], ids=["gpt2", "t5"])
def pair(request):
    return snaptok.Tokenizer.from_file(str(request.param)), hf_tokenizers.Tokenizer.from_file(str(request.param))


def test_array_accessors_are_uint32_copies(pair):
    tok, hf = pair
    hf.enable_padding(length=12)
    tok.enable_padding(length=12)
    try:
        for text in TEXTS:
            e, want = tok.encode(text), hf.encode(text)
            for name in ("ids", "type_ids", "attention_mask"):
                array = getattr(e, f"{name}_array")
                assert array.dtype == np.uint32 and array.tolist() == getattr(want, name)
            copy = e.ids_array
            copy[:] = 7
            assert e.ids == want.ids  # a copy: the Encoding is unchanged
    finally:
        hf.no_padding()
        tok.no_padding()


def test_tokenize_and_the_pair_tuple(pair):
    tok, hf = pair
    for text in TEXTS:
        assert tok.tokenize(text) == hf.encode(text).tokens
        assert tok.tokenize(text, add_special_tokens=False) == hf.encode(text, add_special_tokens=False).tokens
        for form in (tuple, list):
            assert tok.tokenize(form((text, "and a pair"))) == hf.encode(text, "and a pair").tokens
            assert tok.encode(form((text, "x"))).ids == hf.encode(text, "x").ids


def test_decode_tokens(pair):
    tok, hf = pair
    specials = {t.content for t in hf.get_added_tokens_decoder().values() if t.special}
    for text in TEXTS:
        e = tok.encode(text)
        want = [hf.id_to_token(i) for i in e.ids]
        assert tok.decode_tokens(e) == want
        assert tok.decode_tokens(np.array(e.ids)) == want
        assert tok.decode_tokens(e.ids, skip_special_tokens=True) == [t for t in want if t not in specials]
    assert tok.decode_tokens([10**9]) == []  # no token: left out, as HF 1.0
    with pytest.raises(OverflowError, match="negative"):
        tok.decode_tokens([-1])


def test_hf1_literal_values():
    t5 = snaptok.Tokenizer.from_file(str(T5))  # the values HF tokenizers 1.0.0rc3 returns
    assert t5.tokenize(("Hello", "world")) == ["▁He", "ll", "o", "</s>", "▁world", "</s>"]
    assert t5.encode(["Hi", "there"]).ids == [4, 165, 25, 2, 105, 2]
    assert t5.decode_tokens(t5.encode("Hello world"), skip_special_tokens=True) == ["▁He", "ll", "o", "▁world"]
