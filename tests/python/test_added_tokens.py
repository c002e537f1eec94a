"""Added tokens against HF: random token sets (every mix of single_word,
lstrip, rstrip and normalized) on random text over whitespace, word chars
and punctuation, compared id by id and offset by offset. Where HF panics
("AddedVocabulary bad split": an lstrip token swallowed by the rstrip of the
token before it, found by the added_tokens fuzz target), snaptok gives a
result: the swallowed match vanishes, as an empty one does in HF.
"""

from __future__ import annotations

import json
import random

import pytest

tokenizers = pytest.importorskip("tokenizers")
snaptok = pytest.importorskip("snaptok")

ALPHABET = [" ", " ", "\n", "\t", "\u3000", "a", "b", "\u00e9", "_", "1", "<", ">", "|", ".", "\"", "\u4e2d"]


def config(tokens):
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [dict(id=i + 1, **t) for i, t in enumerate(tokens)],
        "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"},
    })


def random_case(rng):
    contents = set()
    while len(contents) < rng.randint(1, 5):
        contents.add("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 3))))
    tokens = [dict(content=c, single_word=rng.random() < 0.3, lstrip=rng.random() < 0.4,
                   rstrip=rng.random() < 0.4, normalized=rng.random() < 0.5, special=rng.random() < 0.5)
              for c in sorted(contents)]
    text = "".join(rng.choice(ALPHABET + sorted(contents)) for _ in range(rng.randint(0, 24)))
    return tokens, text


def encode(tok, text):
    e = tok.encode(text, add_special_tokens=False)
    return list(e.ids), [tuple(o) for o in e.offsets]


def test_random_added_tokens_match_hf():
    rng = random.Random(2026)
    compared = panics = 0
    for case in range(3000):
        tokens, text = random_case(rng)
        mine = encode(snaptok.Tokenizer.from_str(config(tokens)), text)
        try:
            theirs = encode(tokenizers.Tokenizer.from_str(config(tokens)), text)
        except BaseException as e:  # HF panics are pyo3 PanicExceptions (BaseException)
            assert "bad split" in str(e), f"case {case}: HF failed unexpectedly: {e!r}"
            panics += 1
            continue
        assert mine == theirs, f"case {case}: tokens {tokens}, text {text!r}"
        compared += 1
    assert compared > 2500 and panics > 0, (compared, panics)


def test_a_match_swallowed_by_the_rstrip_before_it_vanishes():
    # From the added_tokens fuzz target: "\n\n\"" (rstrip) ends past the
    # following "\n\n\n\n\n" match, whose lstrip then starts it past its end.
    tokens = [
        dict(content="\n\n\"", single_word=False, lstrip=True, rstrip=True, normalized=True, special=True),
        dict(content="\"\"\"\"\n", single_word=False, lstrip=True, rstrip=False, normalized=False, special=False),
        dict(content="\n\n\n\n\n", single_word=False, lstrip=True, rstrip=False, normalized=True, special=False),
    ]
    text = "\n\x00\n\n\n\"\n\n\n\n\n\n\n\n\n\n"
    with pytest.raises(BaseException, match="bad split"):
        tokenizers.Tokenizer.from_str(config(tokens)).encode(text, add_special_tokens=False)
    ids, offsets = encode(snaptok.Tokenizer.from_str(config(tokens)), text)
    # "\n\x00" is text; "\n\n\"" swallows the newlines after it (rstrip) and
    # so the "\n\n\n\n\n" matches inside them.
    assert ids == [0, 1] and offsets == [(0, 2), (2, 16)]
