"""The Python surface: zero-copy NumPy output, str/bytes input, threads,
errors, and settings that must not change results."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import snaptok

tokenizers = pytest.importorskip("tokenizers")

GPT2 = Path(__file__).resolve().parents[1] / "data" / "gpt2" / "tokenizer.json"
DOCS = [
    "Hello world, this is snaptok!",
    "",
    "<|endoftext|> special tokens  and   spaces\n\n",
    "Ünïcödé — 日本語 😀 " * 50,
    "x" * 70000,
] + [f"document number {i}: " + "words and more words " * (i % 40) for i in range(300)]


@pytest.fixture(scope="module")
def tok():
    return snaptok.Tokenizer.from_file(str(GPT2))


@pytest.fixture(scope="module")
def hf():
    return tokenizers.Tokenizer.from_file(str(GPT2))


def test_encode_to_numpy_is_zero_copy(tok):
    ids, offsets = tok.encode_to_numpy(DOCS)
    for arr, dtype in ((ids, np.uint32), (offsets, np.int64)):
        assert arr.dtype == dtype and arr.ndim == 1
        # NumPy does not own the data: it wraps the buffer the C++ side filled.
        assert not arr.flags.owndata
        assert arr.base is not None and not isinstance(arr.base, np.ndarray)
        # Same address as the exporting buffer: no copy was made on the way.
        exported = np.frombuffer(arr.base, dtype=dtype)
        assert exported.__array_interface__["data"][0] == arr.__array_interface__["data"][0]
        assert exported.size == arr.size


def test_encode_to_numpy_rows_equal_hf(tok, hf):
    ids, offsets = tok.encode_to_numpy(DOCS)
    assert len(offsets) == len(DOCS) + 1 and offsets[0] == 0 and offsets[-1] == len(ids)
    expected = [e.ids for e in hf.encode_batch(DOCS)]
    for i, want in enumerate(expected):
        assert ids[offsets[i] : offsets[i + 1]].tolist() == want, f"document {i}"



# Run in a fresh interpreter: the pool is per process, and what earlier
# tests dropped into it would change the counts.
ID_BUFFER_POOL_CHECK = r"""
import sys
import numpy as np
import snaptok

tok = snaptok.Tokenizer.from_file(sys.argv[1])
kept_now = snaptok._core._kept_id_buffers


def address(arr):
    return arr.__array_interface__["data"][0]


assert kept_now() == (0, 0)
# A batch large enough that malloc would map fresh memory for each result.
big = ["words and more words, " * 50_000] * 16
first, _ = tok.encode_to_numpy(big)
want = first.copy()
second, _ = tok.encode_to_numpy(big)
assert address(second) != address(first)  # `first` is alive: its buffer is not lent out
np.testing.assert_array_equal(second, want)
reused_at = address(second)
del second
buffers, kept_bytes = kept_now()
assert buffers == 1 and kept_bytes >= want.nbytes
third, _ = tok.encode_to_numpy(big)
assert kept_now() == (0, 0) and address(third) == reused_at  # the dropped buffer came back
np.testing.assert_array_equal(third, want)
np.testing.assert_array_equal(first, want)
# A view keeps its array's buffer: nothing is reused under it.
view = third[10:20]
view_copy = view.copy()
del third
other, _ = tok.encode_to_numpy(big[:1])
np.testing.assert_array_equal(view, view_copy)
# A small result neither takes a large buffer nor is kept itself.
del first, view, other
held = kept_now()
assert held[0] == 3  # first, third (second's) and other
small, _ = tok.encode_to_numpy(["a few words"])
assert small.tolist() == tok.encode("a few words").ids
del small
assert kept_now() == held
# Full, the pool drops its smallest buffers for a larger one: small
# results dropped first never keep a corpus loop's batches out.
mid = [tok.encode_to_numpy(big[:2])[0] for _ in range(4)]
del mid
assert kept_now()[0] == 4
large, _ = tok.encode_to_numpy(big * 2)
large_bytes = large.nbytes
del large
buffers, kept_bytes = kept_now()
assert buffers == 4 and kept_bytes >= large_bytes
print("ok")
"""


def test_a_dropped_id_array_is_reused_and_a_held_one_never_is():
    # encode_to_numpy keeps the buffers of dropped id arrays for the next
    # call (bindings/id_buffer_pool.hpp): a corpus job then writes its
    # batches into memory it has touched before.
    run = subprocess.run([sys.executable, "-c", ID_BUFFER_POOL_CHECK, str(GPT2)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-3000:]


def test_encode_ids_returns_a_fresh_list_of_exact_ints(tok, hf):
    # encode_ids reuses a per-thread buffer and kept int objects: every call
    # still gets its own list, equal to HF's, whatever came before it.
    lists = [tok.encode_ids(d) for d in DOCS[:40]]
    for d, ids in zip(DOCS[:40], lists):
        assert ids == hf.encode(d).ids
        assert all(type(i) is int for i in ids)
    first = tok.encode_ids(DOCS[0])
    first.append(-1)
    first[0] = 12345678
    assert tok.encode_ids(DOCS[0]) == hf.encode(DOCS[0]).ids
    assert tok.encode_ids(DOCS[0].encode()) == hf.encode(DOCS[0]).ids  # bytes: checked, same ids
    with pytest.raises(ValueError):
        tok.encode_ids(b"bad \xff byte")


def test_threads_bytes_and_str_give_the_same_ids(tok):
    one, off_one = tok.encode_to_numpy(DOCS, num_threads=1)
    two, off_two = tok.encode_to_numpy([d.encode() for d in DOCS], num_threads=2)
    assert np.array_equal(one, two) and np.array_equal(off_one, off_two)
    assert tok.encode_ids(DOCS[3]) == tok.encode(DOCS[3].encode()).ids


def test_invalid_utf8_names_the_byte(tok):
    with pytest.raises(snaptok.SnaptokError, match="invalid UTF-8 at byte 2"):
        tok.encode(b"ok\xc3(")
    with pytest.raises(snaptok.SnaptokError, match="invalid UTF-8"):
        tok.encode_to_numpy(["fine", b"\xff"])
    with pytest.raises(TypeError):
        tok.encode(42)


def test_load_errors_name_what_failed(tmp_path):
    with pytest.raises(snaptok.SnaptokError, match="cannot open file"):
        snaptok.Tokenizer.from_file(str(tmp_path / "missing.json"))
    with pytest.raises(snaptok.SnaptokError, match="malformed JSON"):
        snaptok.Tokenizer.from_str("{not json")
    bad = GPT2.read_text(encoding="utf-8").replace('"type":"ByteLevel","add_prefix_space":false', '"type":"Nope","add_prefix_space":false', 1)
    with pytest.raises(snaptok.SnaptokError, match='pre_tokenizer: unknown type "Nope"'):
        snaptok.Tokenizer.from_str(bad)


def test_cache_budget_and_special_tokens_switch(tok, hf):
    text = "repeat " * 1000 + "<|endoftext|>"
    before = tok.encode_ids(text)
    tok.set_cache_budget(0)
    try:
        assert tok.encode_ids(text) == before
    finally:
        tok.set_cache_budget(64 << 20)
    assert before[-1] == 50256
    tok.encode_special_tokens = True
    try:
        hf.encode_special_tokens = True
        assert tok.encode(text).ids == hf.encode(text).ids
        assert 50256 not in tok.encode_ids(text)
    finally:
        tok.encode_special_tokens = False
        hf.encode_special_tokens = False


def test_simd_target_names_the_dispatched_target():
    name = snaptok.simd_target()
    assert isinstance(name, str) and name


def test_the_version_is_cmakes_project_version():
    """One version, written once (CMakeLists.txt), seen the same everywhere."""
    import importlib.metadata
    import re

    cmake = (Path(__file__).resolve().parents[2] / "CMakeLists.txt").read_text(encoding="utf-8")
    written = re.search(r"project\(\s*snaptok\s+VERSION\s+([0-9.]+)", cmake).group(1)
    assert snaptok.__version__ == written
    assert importlib.metadata.version("snaptok") == written
    assert importlib.metadata.metadata("snaptok")["License"] == "Apache-2.0"
