"""snaptok.tiktoken against tiktoken 0.14.0 built from the same ranks (issue 11).

tiktoken cannot download encodings here, so both sides are built locally
from ranks read out of tokenizer files whose ids are ranks: the bundled
GPT-2 always, and cl100k (both spellings), o200k and GPT-2 with its original
Split pattern from /work/shared/data when present. Every public method is
compared element by element on the bundled sample, the shared corpora,
hypothesis text (special-token strings, long runs, any non-surrogate
char), and synthetic rank tables: one that only tiktoken's "any pair forming
a token merges" rule encodes right (a one-split merge list does not), and
tokens with overlapping splits ranked in every order.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

import snaptok
from snaptok import tiktoken as stk

tiktoken = pytest.importorskip("tiktoken")
import tiktoken.load  # noqa: E402
from parity_helpers import gpt2_byte_chars  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
GPT2_JSON = ROOT / "tests" / "data" / "gpt2" / "tokenizer.json"
BUNDLED_GPT2_JSON = ROOT / "python" / "snaptok" / "data" / "gpt2" / "tokenizer.json"
SAMPLE = (ROOT / "python" / "snaptok" / "data" / "sample.txt").read_text(encoding="utf-8")
CORPUS_CHARS = 200_000  # of each shared corpus file


def byte_of_char() -> dict[str, int]:
    """GPT-2's byte-level table, char -> byte."""
    return {c: b for b, c in enumerate(gpt2_byte_chars())}


def ranks_of(path: Path) -> tuple[dict[bytes, int], dict[str, int]]:
    """The mergeable ranks (vocab ids, tokens as bytes) and special tokens of a tokenizer.json."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    specials = {t["content"]: t["id"] for t in doc["added_tokens"] if t["special"]}
    table = byte_of_char()
    ranks = {
        bytes(table[c] for c in token): rank
        for token, rank in doc["model"]["vocab"].items()
        if specials.get(token) != rank
    }
    return ranks, specials


def split_regex(path: Path) -> str:
    return json.loads(path.read_text(encoding="utf-8"))["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"]


# name -> (tokenizer.json, pat_str in tiktoken's spelling or a callable reading it)
CASES = {
    "gpt2": (GPT2_JSON, stk.R50K_PAT_STR),
    "cl100k": (SHARED / "tokenizers" / "cl100k-possessive" / "tokenizer.json", stk.CL100K_PAT_STR),
    "cl100k-hf-spelling": (SHARED / "tokenizers" / "cl100k-hf-spelling" / "tokenizer.json", split_regex),
    "o200k": (SHARED / "tokenizers" / "o200k" / "tokenizer.json", stk.O200K_PAT_STR),
    "gpt2-split-original": (SHARED / "tokenizers" / "gpt2-split-original" / "tokenizer.json", split_regex),
}
_built: dict[str, tuple] = {}


def pair(name: str):
    """(tiktoken Encoding, snaptok.tiktoken Encoding) for a case, built once."""
    if name not in _built:
        path, pat = CASES[name]
        if not path.exists():
            pytest.skip(f"{path} is absent (shared data)")
        pat_str = pat(path) if callable(pat) else pat
        ranks, specials = ranks_of(path)
        args = dict(pat_str=pat_str, mergeable_ranks=ranks, special_tokens=specials)
        _built[name] = (tiktoken.Encoding(name, **args), stk.Encoding(name, **args))
    return _built[name]


ALL = list(CASES)
FUSED = ["gpt2", "cl100k", "o200k"]


def corpus_texts() -> list[str]:
    texts = [SAMPLE]
    corpus = SHARED / "corpus"
    if corpus.exists():
        for f in sorted(corpus.rglob("*")):
            if f.is_file():
                texts.append(f.read_text(encoding="utf-8", errors="replace")[:CORPUS_CHARS])
    return texts


TEXTS = corpus_texts()
EDGE_TEXTS = [
    "",
    " ",
    "\n",
    "hello world",
    "12345678901 1234 12 1",
    "I'M here  you'RE   \n\n  x\r\n\t\tok   ",
    "é" * 50 + "😀" * 40 + "\u200d" * 10,
    "a" * 5000,
    " " * 3000 + "x",
    "\n" * 100 + "tail  ",
    "ſ's 'S 'Ll DON'T",
    "<|endoftext|>",
    "a<|endoftext|>b <|endoftext|><|endoftext|>",
    "<|endoftext|<|endoftext|>|>",
    "\x00\x01\x7f\u0085\u00a0\u2028\u3000",
    "日本語のテキスト、中文文本。한국어 텍스트",
]


@pytest.mark.parametrize("name", ALL)
def test_encode_ordinary_and_decode_on_real_text(name):
    tk, sk = pair(name)
    for text in TEXTS + EDGE_TEXTS:
        ids = tk.encode_ordinary(text)
        assert sk.encode_ordinary(text) == ids
        assert sk.encode(text, disallowed_special=()) == ids
        assert sk.decode(ids) == tk.decode(ids)
        assert sk.decode_bytes(ids) == tk.decode_bytes(ids)
    lines = SAMPLE.splitlines()
    ids = tk.encode_ordinary(SAMPLE[:20000])
    assert sk.decode_tokens_bytes(ids) == tk.decode_tokens_bytes(ids)
    assert sk.decode_with_offsets(ids) == tk.decode_with_offsets(ids)
    assert sk.encode_ordinary_batch(lines, num_threads=2) == tk.encode_ordinary_batch(lines, num_threads=2)


@pytest.mark.parametrize("name", ALL)
def test_batches_and_numpy(name):
    tk, sk = pair(name)
    texts = [t[:5000] for t in TEXTS] + EDGE_TEXTS
    allowed = dict(allowed_special="all")
    assert sk.encode_batch(texts, **allowed) == tk.encode_batch(texts, **allowed)
    assert sk.encode_ordinary_batch(texts) == tk.encode_ordinary_batch(texts)
    assert sk.encode_batch(texts, num_threads=1, disallowed_special=()) == tk.encode_batch(
        texts, num_threads=1, disallowed_special=()
    )
    for text in texts:
        for kwargs in ({}, allowed, {"disallowed_special": ()}):
            try:
                want = tk.encode_to_numpy(text, **kwargs)
            except ValueError:
                with pytest.raises(ValueError):
                    sk.encode_to_numpy(text, **kwargs)
                continue
            got = sk.encode_to_numpy(text, **kwargs)
            assert got.dtype == np.uint32 and want.dtype == np.uint32
            assert got.tolist() == want.tolist()
    batch = [tk.encode_ordinary(t) for t in texts]
    assert sk.decode_batch(batch) == tk.decode_batch(batch)
    assert sk.decode_bytes_batch(batch) == tk.decode_bytes_batch(batch)


SPECIAL_PIECES = ["<|endoftext|>", "<|endoftext|", "|>", "<|", "<|fim_prefix|>", "<|endofprompt|>"]
RUNS = hst.sampled_from([" ", "\n", "\r\n", "\t", "9", "a", "é", "'s", "😀", "\u00a0", "."]).flatmap(
    lambda c: hst.integers(1, 300).map(lambda n: c * n)
)
TEXT = hst.lists(
    hst.one_of(
        hst.text(alphabet=hst.characters(exclude_categories=("Cs",)), max_size=40),
        hst.text(alphabet="ab 'sStT\n\r\t1234567890.,!?-_éü日😀", max_size=40),
        hst.sampled_from(SPECIAL_PIECES),
        RUNS,
    ),
    max_size=8,
).map("".join)


def compare_all(tk, sk, text: str) -> None:
    """Every encode and decode method on `text`, and the special-token rules."""
    assert sk.encode_ordinary(text) == tk.encode_ordinary(text)
    specials = sorted(tk.special_tokens_set)
    for allowed, disallowed in (
        (set(), "all"),
        ("all", "all"),
        (set(), ()),
        (set(specials[:1]), "all"),
        (set(specials[:1]), ()),
        (set(specials[1:]), set(specials[:1])),
        ("all", ()),
    ):
        kwargs = dict(allowed_special=allowed, disallowed_special=disallowed)
        try:
            want = tk.encode(text, **kwargs)
        except ValueError as e:
            with pytest.raises(ValueError) as got:
                sk.encode(text, **kwargs)
            assert str(got.value) == str(e)
            continue
        assert sk.encode(text, **kwargs) == want
        assert sk.encode_batch([text, text[::-1]], **kwargs) == tk.encode_batch([text, text[::-1]], **kwargs)
        assert sk.decode(want) == tk.decode(want)
        for errors in ("strict", "ignore", "backslashreplace"):
            try:
                expected = tk.decode(want, errors=errors)
            except UnicodeDecodeError:
                with pytest.raises(UnicodeDecodeError):
                    sk.decode(want, errors=errors)
                continue
            assert sk.decode(want, errors=errors) == expected
        assert sk.decode_tokens_bytes(want) == tk.decode_tokens_bytes(want)
        try:
            expected = tk.decode_with_offsets(want)
        except UnicodeDecodeError:
            with pytest.raises(UnicodeDecodeError):
                sk.decode_with_offsets(want)
        else:
            assert sk.decode_with_offsets(want) == expected


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT)
def test_random_text(name, text):
    tk, sk = pair(name)
    compare_all(tk, sk, text)


@pytest.mark.parametrize("name", ALL)
def test_special_token_rules_and_messages(name):
    tk, sk = pair(name)
    for text in EDGE_TEXTS + ["x <|endoftext|> y <|fim_prefix|> z <|endofprompt|>"]:
        compare_all(tk, sk, text)
    with pytest.raises(ValueError) as e:
        sk.encode("hi <|endoftext|>")
    assert "disallowed special token '<|endoftext|>'" in str(e.value)
    with pytest.raises(TypeError):
        sk.encode("x", allowed_special=["<|endoftext|>"])  # tiktoken: set - list


def test_surrogates_are_replaced_as_tiktoken_does():
    tk, sk = pair("gpt2")
    for text in ("\ud83d\ude00 pair", "lone \ud800 high", "lone \udfff low", "\udc00\ud800"):
        assert sk.encode(text) == tk.encode(text)
        assert sk.encode_ordinary(text) == tk.encode_ordinary(text)
        assert sk.encode_ordinary_batch([text, "ok"]) == tk.encode_ordinary_batch([text, "ok"])
        for kwargs in ({}, {"allowed_special": "all"}):  # tiktoken refuses them here
            with pytest.raises(UnicodeEncodeError):
                tk.encode_to_numpy(text, **kwargs)
            with pytest.raises(UnicodeEncodeError):
                sk.encode_to_numpy(text, **kwargs)


@pytest.mark.parametrize("name", ALL)
def test_attributes_and_single_tokens(name):
    tk, sk = pair(name)
    assert sk.name == tk.name and repr(sk) == repr(tk)
    assert sk.n_vocab == tk.n_vocab and sk.max_token_value == tk.max_token_value
    assert sk.special_tokens_set == tk.special_tokens_set
    assert sk.eot_token == tk.eot_token
    assert sk.token_byte_values() == tk.token_byte_values()
    for token in (0, 255, 256, 1000, tk.eot_token, tk.max_token_value):
        assert sk.is_special_token(token) == tk.is_special_token(token)
        assert sk.decode_single_token_bytes(token) == tk.decode_single_token_bytes(token)
    for piece in ("hello", " world", "<|endoftext|>", b"\xff", b" the", "\n\n"):
        assert sk.encode_single_token(piece) == tk.encode_single_token(piece)


def error_of(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e), str(e)
    return None


def test_errors_match_tiktoken():
    tk, sk = pair("gpt2")
    unknown = tk.n_vocab + 5
    calls = [
        lambda e: e.decode_single_token_bytes(unknown),
        lambda e: e.decode_single_token_bytes(-1),
        lambda e: e.decode_single_token_bytes(2**40),
        lambda e: e.decode_bytes([1, unknown]),
        lambda e: e.decode_bytes([-1]),
        lambda e: e.decode([unknown]),
        lambda e: e.decode([1.5]),
        lambda e: e.decode_tokens_bytes([3, unknown]),
        lambda e: e.decode_with_offsets([unknown]),
        lambda e: e.decode_with_offsets([tk.encode_single_token(b"\xc3")]),
        lambda e: e.decode([tk.encode_single_token(b"\xc3")], errors="strict"),
        lambda e: e.encode_single_token("not one token"),
        lambda e: e.encode_single_token(b"\xff\xfe\xfd"),
        lambda e: e.encode_single_token(7),
        lambda e: e.encode("<|endoftext|>", allowed_special={"<|endoftext|>"}, disallowed_special={"<|endoftext|>"}),
        lambda e: e.encode(b"bytes"),
    ]
    for call in calls:
        assert error_of(lambda: call(sk)) == error_of(lambda: call(tk))


def test_pickle_and_st_round_trip(tmp_path):
    tk, sk = pair("gpt2")
    back = pickle.loads(pickle.dumps(sk))
    assert repr(back) == repr(sk)
    assert back.encode(SAMPLE, allowed_special="all") == tk.encode(SAMPLE, allowed_special="all")
    # The engine's .st image keeps the ranks exactly: bytes, buffer and file.
    image = sk.tokenizer.to_st_bytes()
    loaded = snaptok.Tokenizer.from_buffer(image)
    assert loaded.to_st_bytes() == image
    assert loaded.fused_path == "byte-level BPE"
    sk.tokenizer.save_st(tmp_path / "gpt2.st")
    from_file = snaptok.Tokenizer.from_file(tmp_path / "gpt2.st")
    for text in TEXTS + EDGE_TEXTS:
        assert loaded.encode_ids(text) == from_file.encode_ids(text) == tk.encode_ordinary(text)


@pytest.mark.parametrize("name", FUSED)
def test_fast_path_is_chosen_for_tiktoken_patterns(name):
    _, sk = pair(name)
    assert sk.tokenizer.fused_path == "byte-level BPE"
    assert sk.tokenizer.can_split_documents


def test_rank_file_loader_and_from_tiktoken_file(tmp_path):
    import base64

    tk, sk = pair("gpt2")
    ranks = sk._mergeable_ranks
    path = tmp_path / "r50k_like.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in ranks.items()))
    assert stk.load_tiktoken_bpe(path) == tiktoken.load.load_tiktoken_bpe(str(path)) == ranks
    enc = stk.Encoding.from_tiktoken_file(path, pat_str=stk.R50K_PAT_STR, special_tokens={"<|endoftext|>": 50256}, explicit_n_vocab=50257)
    assert enc.name == "r50k_like"
    assert enc.encode(SAMPLE, allowed_special="all") == tk.encode(SAMPLE, allowed_special="all")
    bad = tmp_path / "bad.tiktoken"
    bad.write_bytes(b"YQ== 0\nnot-base64!! 1\n")
    with pytest.raises(ValueError, match=r"bad.tiktoken:2: expected 'base64\(token\) rank'"):
        stk.load_tiktoken_bpe(bad)
    with pytest.raises(AssertionError):
        stk.Encoding.from_tiktoken_file(path, pat_str=stk.R50K_PAT_STR, explicit_n_vocab=50257)


@pytest.mark.parametrize("name", ALL)
def test_from_tokenizer_json(name):
    tk, _ = pair(name)
    path = BUNDLED_GPT2_JSON if name == "gpt2" else CASES[name][0]
    enc = stk.Encoding.from_tokenizer_json(path, name=name)
    assert enc._mergeable_ranks == tk._mergeable_ranks and enc._special_tokens == tk._special_tokens
    text = "\n".join(t[:20000] for t in TEXTS) + "".join(EDGE_TEXTS)
    assert enc.encode(text, allowed_special="all") == tk.encode(text, allowed_special="all")
    assert enc.n_vocab == tk.n_vocab


def write_json(tmp_path, doc) -> Path:
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_from_tokenizer_json_refuses_other_shapes(tmp_path):
    doc = json.loads(GPT2_JSON.read_text(encoding="utf-8"))
    cases = [
        (dict(doc, normalizer={"type": "NFC"}), "normalizer is 'NFC'"),
        (dict(doc, model=dict(doc["model"], type="WordPiece")), "model is 'WordPiece', not BPE"),
        (dict(doc, model=dict(doc["model"], continuing_subword_prefix="##")), "continuing_subword_prefix"),
        (dict(doc, pre_tokenizer={"type": "Whitespace"}), "neither ByteLevel nor"),
        (dict(doc, added_tokens=[dict(doc["added_tokens"][0], special=False)]), "is not special"),
        (dict(doc, model=dict(doc["model"], merges=list(reversed(doc["model"]["merges"])))), "ids are not ranks"),
        (dict(doc, model=dict(doc["model"], vocab=dict(doc["model"]["vocab"], **{"a b": 60000}))), "not byte-level text"),
    ]
    for bad, message in cases:
        with pytest.raises(ValueError, match=message):
            stk.Encoding.from_tokenizer_json(write_json(tmp_path, bad))


def small_ranks(*tokens: bytes) -> dict[bytes, int]:
    ranks = {bytes([b]): b for b in range(256)}
    for t in tokens:
        ranks[t] = len(ranks)
    return ranks


def test_any_pair_that_forms_a_token_merges():
    # "abc" is formed by ("a", "bc") and by ("ab", "c"). tiktoken merges either;
    # a merge list that names one split (as trained HF merge lists do) cannot.
    ranks = small_ranks(b"bc", b"ab", b"abc", b"xyz")
    args = dict(pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    tk, sk = tiktoken.Encoding("t", **args), stk.Encoding("t", **args)
    for text in ("abc", "abcabc ab bc", "xyz xyzx", "aabcc"):
        assert sk.encode(text) == tk.encode(text)
    assert sk.encode("abc") == [ranks[b"abc"]]  # "bc" first (lowest), then "a" + "bc"
    assert sk.encode("xyzx") == list(b"xyzx")  # "xyz" only as a whole piece
    # The index-ordered merge list ["a b", "ab c"] with "bc" too: the engine's
    # tokenizer.json path gives what that list says, which is not tiktoken's.
    level = {bytes([b]).decode("latin-1"): b for b in range(0x21, 0x7F)}
    vocab = dict(level)
    vocab.update({"bc": ranks[b"bc"], "ab": ranks[b"ab"], "abc": ranks[b"abc"]})
    listed = {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "WhitespaceSplit"},
        "post_processor": None,
        "decoder": None,
        "model": {"type": "BPE", "vocab": vocab, "merges": ["b c", "a b", "ab c"]},
    }
    merge_list = snaptok.Tokenizer.from_str(json.dumps(listed))
    assert merge_list.encode_ids("abc") == [ord("a"), ranks[b"bc"]]
    assert merge_list.encode_ids("abc") != tk.encode("abc")


@settings(max_examples=300, deadline=None)
@given(text=hst.text(alphabet="ab ", max_size=40), order=hst.permutations(range(6)))
def test_overlapping_splits_of_one_token(text, order):
    # Tokens with several splits at overlapping positions ([ab][a][ba] both
    # form "aba", [a][aa][a] both "aaa"), ranked in every order. A merge list
    # holding every split, in either order among a token's splits, also gives
    # tiktoken's ids here: an exhaustive check (every order of these ranks,
    # every a/b text up to 10 chars) found no state where two splits of one
    # token compete. What breaks a merge list is a split it lacks
    # (test_any_pair_that_forms_a_token_merges).
    tokens = [b"ab", b"ba", b"aba", b"aa", b"aaa", b"abab"]
    ranks = small_ranks(*[tokens[i] for i in order])
    args = dict(pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    assert stk.Encoding("t", **args).encode(text) == tiktoken.Encoding("t", **args).encode(text)


def test_pattern_read_as_tiktoken_reads_it():
    ranks = small_ranks(b"ab")
    # `$` is the end of the text to tiktoken, a line's end to Oniguruma.
    for pat in (r"\w+$|\s+|\S", r"^\w|\w+|\s+|\S", r"[$^]|\w+|\s+|\S"):
        args = dict(pat_str=pat, mergeable_ranks=ranks, special_tokens={})
        tk, sk = tiktoken.Encoding("t", **args), stk.Encoding("t", **args)
        for text in ("ab\nab", "ab ab\n", "$^ab\n^ab$", "\nab"):
            assert sk.encode(text) == tk.encode(text), (pat, text)
    # cl100k's possessive {1,3}+ keeps at most three digits together.
    _, sk = pair("gpt2")
    cl = stk.Encoding("cl", pat_str=stk.CL100K_PAT_STR, mergeable_ranks=sk._mergeable_ranks, special_tokens={})
    tcl = tiktoken.Encoding("cl", pat_str=stk.CL100K_PAT_STR, mergeable_ranks=sk._mergeable_ranks, special_tokens={})
    assert cl.encode("1234567") == tcl.encode("1234567")
    with pytest.raises(ValueError, match="possessive interval"):
        stk.Encoding("t", pat_str=r"\d{1,3}+|\s+|\S", mergeable_ranks=ranks, special_tokens={})


def test_bad_ranks_are_refused():
    ranks = small_ranks(b"ab")
    del ranks[b"A"]
    with pytest.raises(ValueError, match="byte 0x41 has no rank"):
        stk.Encoding("t", pat_str=r"\S+", mergeable_ranks=ranks, special_tokens={})
    ranks = small_ranks(b"ab")
    ranks[b"cd"] = 5
    with pytest.raises(ValueError, match="rank 5 is given to both"):
        stk.Encoding("t", pat_str=r"\S+", mergeable_ranks=ranks, special_tokens={})
    with pytest.raises(TypeError, match="keys must be bytes"):
        stk.Encoding("t", pat_str=r"\S+", mergeable_ranks={"a": 0, **small_ranks()}, special_tokens={})
