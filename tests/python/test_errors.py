"""Clear errors for bad arguments and inputs (issue 10): every bad integer
names the argument and the value with the exception type HF uses
(OverflowError for out of range, TypeError for a non-integer), a batch names
the item that is not valid UTF-8, and file and padding failures are
SnaptokErrors with a message, not a C++ library's text."""

from __future__ import annotations

from pathlib import Path

import pytest

snaptok = pytest.importorskip("snaptok")
np = pytest.importorskip("numpy")
tokenizers = pytest.importorskip("tokenizers")

GPT2 = Path(__file__).resolve().parents[2] / "tests" / "data" / "gpt2" / "tokenizer.json"


@pytest.fixture()
def tok():
    return snaptok.Tokenizer.from_file(str(GPT2))


BAD_INTS = [
    ("decode", lambda t: t.decode([15496, -1]), OverflowError, r"ids\[1\]: -1 is negative"),
    ("decode", lambda t: t.decode([2**32]), OverflowError, r"ids\[0\]: 4294967296 is too large"),
    ("decode", lambda t: t.decode([1.5]), TypeError, r"ids\[0\]: expected an int, got float"),
    ("decode", lambda t: t.decode(["7"]), TypeError, r"ids\[0\]: expected an int, got str"),
    ("decode", lambda t: t.decode(5), TypeError, r"ids: expected a sequence of ints, got int"),
    ("decode_batch", lambda t: t.decode_batch([[1], [2, -3]]), OverflowError, r"sequences\[1\]\[1\]: -3"),
    ("id_to_token", lambda t: t.id_to_token(-1), OverflowError, r"id: -1 is negative"),
    ("id_to_token", lambda t: t.id_to_token(2**40), OverflowError, r"id: 1099511627776 is too large"),
    ("enable_truncation", lambda t: t.enable_truncation(-1), OverflowError, r"max_length: -1"),
    ("enable_truncation", lambda t: t.enable_truncation(8, stride=-2), OverflowError, r"stride: -2"),
    ("enable_padding", lambda t: t.enable_padding(pad_id=-1), OverflowError, r"pad_id: -1"),
    ("enable_padding", lambda t: t.enable_padding(pad_type_id=2**33), OverflowError, r"pad_type_id"),
    ("enable_padding", lambda t: t.enable_padding(length=1.5), TypeError, r"length: expected an int"),
    ("enable_padding", lambda t: t.enable_padding(pad_to_multiple_of=-8), OverflowError,
     r"pad_to_multiple_of: -8"),
    ("set_cache_budget", lambda t: t.set_cache_budget(-1), OverflowError, r"bytes: -1 is negative"),
    ("encode_batch", lambda t: t.encode_batch(["a"], num_threads=-1), OverflowError, r"num_threads: -1"),
    ("encode_to_numpy", lambda t: t.encode_to_numpy(["a"], num_threads=0.5), TypeError, r"num_threads"),
    ("document_encoder", lambda t: t.document_encoder(part_bytes=-5), OverflowError, r"part_bytes: -5"),
]


@pytest.mark.parametrize("name,call,error,message", BAD_INTS, ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD_INTS)])
def test_bad_integers_name_the_argument_and_value(tok, name, call, error, message):
    with pytest.raises(error, match=message):
        call(tok)


def test_good_integers_of_any_int_type_still_work(tok):
    assert tok.decode(np.array([15496, 995], dtype=np.uint32)) == "Hello world"
    assert tok.decode((np.int64(15496), 995)) == "Hello world"
    assert tok.decode_batch([[15496], (995,)]) == ["Hello", " world"]
    assert tok.id_to_token(np.uint16(995)) == "Ġworld"
    tok.enable_padding(length=np.int32(4), pad_id=True)  # a bool is an int, as in Python
    assert tok.encode("Hello").ids == [15496, 1, 1, 1]
    tok.no_padding()
    tok.enable_truncation(np.uint64(2))
    assert tok.encode("Hello world again").ids == [15496, 995]


def test_a_batch_names_the_item_that_is_not_utf8(tok):
    with pytest.raises(snaptok.SnaptokError, match=r"^texts\[2\]: invalid UTF-8 at byte 3$"):
        tok.encode_to_numpy(["fine", "also fine", b"abc\xff"])
    with pytest.raises(snaptok.SnaptokError, match=r"^texts\[1\]: invalid UTF-8 at byte 0$"):
        tok.encode_batch(["ok", b"\xc3"])
    with pytest.raises(snaptok.SnaptokError, match=r"^pairs\[0\]: invalid UTF-8 at byte 1$"):
        tok.encode_batch([("ok", b"o\xff")])
    with pytest.raises(snaptok.SnaptokError, match=r"^input text: invalid UTF-8 at byte 1$"):
        tok.encode(b"a\xff")
    # A large item cut across threads still names itself and the byte in the whole text.
    big = b"word " * 200_000 + b"\xff"
    with pytest.raises(snaptok.SnaptokError, match=rf"^texts\[1\]: invalid UTF-8 at byte {len(big) - 1}$"):
        tok.encode_to_numpy(["x", big], num_threads=2)


def test_a_directory_is_not_a_tokenizer(tmp_path):
    with pytest.raises(snaptok.SnaptokError, match="is a directory"):
        snaptok.Tokenizer.from_file(str(tmp_path))
    with pytest.raises(snaptok.SnaptokError, match="is a directory"):
        snaptok.Tokenizer.from_file(str(tmp_path), st_cache=True)


def test_padding_to_an_impossible_length_is_a_clear_error(tok):
    tok.enable_padding(length=2**62)
    with pytest.raises(snaptok.SnaptokError, match=r"padding: cannot pad to 4611686018427387904 tokens"):
        tok.encode("a")
    with pytest.raises(snaptok.SnaptokError, match=r"padding: cannot pad"):
        tok.encode_batch(["a", "b"])


def split_tokenizer(pattern: str):
    """Returns (HF, snaptok) tokenizers: Split(Regex(pattern)) before a WordLevel model."""
    hf = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), "isolated")
    return hf, snaptok.Tokenizer.from_str(hf.to_str())


def test_catastrophic_backtracking_in_one_match_is_a_clear_error():
    # (a+)+$ tries 2^40 ways to split 40 a's before failing at the b: past
    # Oniguruma's retry limit of 10^7 steps for one match, where HF panics.
    hf, tok = split_tokenizer("(a+)+$")
    with pytest.raises(snaptok.SnaptokError,
                       match=r'pre_tokenizer\.pattern\.Regex: regex "\(a\+\)\+\$" failed on the input, '
                             r"searching from byte 0: retry-limit-in-match over .*HF tokenizers panics"):
        tok.encode("a" * 40 + "b")
    with pytest.raises(snaptok.SnaptokError, match=r"retry-limit-in-match over"):
        tok.encode_batch(["aa", "a" * 40 + "b"])
    # The tokenizer stays usable, and agrees with HF where the pattern is cheap.
    for text in ["a" * 30, "a" * 12 + "b", "ab" * 50]:
        assert tok.encode(text).ids == hf.encode(text).ids


def test_a_search_that_backtracks_on_every_position_is_bounded():
    # Each run of 22 a's costs about 2^23 steps, under the per-match limit, so
    # only the search's budget (65,536 steps per byte) stops it: without that
    # bound the search time grows with every run (HF: ~0.15 s per run).
    _, tok = split_tokenizer("(a+)+$")
    with pytest.raises(snaptok.SnaptokError, match=r"retry-limit-in-search over .*65536 steps per byte"):
        tok.encode(("a" * 22 + "b") * 100)


def test_ids_far_past_the_vocabulary_size_are_refused_with_the_bound():
    # Found by fuzz/targets/json_loader.hpp: a 7 KB tokenizer.json with one id
    # of 333,333,346 took 1.3 GB for the flat id -> token table.
    hf = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0, "a": 1, "b": 333_333_346},
                                                          unk_token="[UNK]"))
    with pytest.raises(snaptok.SnaptokError,
                       match=r"model\.vocab: id 333333346 is far past the 3 tokens; ids may reach "
                             r"max\(4194304, 16 x tokens\)"):
        snaptok.Tokenizer.from_str(hf.to_str())
    # Holes within the bound load, and agree with HF.
    hf = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0, "a": 1, "b": 4_000_000},
                                                          unk_token="[UNK]"))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tok = snaptok.Tokenizer.from_str(hf.to_str())
    assert tok.encode("a b c").ids == hf.encode("a b c").ids == [1, 4_000_000, 0]
    assert tok.id_to_token(4_000_000) == "b" and tok.id_to_token(3_999_999) is None
