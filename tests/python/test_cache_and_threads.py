"""Per-thread piece caches and settings snapshots.

- Every thread's cache of one tokenizer draws from one budget: the bytes in
  use never exceed it, whatever the thread count, and ids never depend on it.
- Pieces of every size class (short keys, long keys, pieces too long to
  cache, pieces merged on the stack or through the heap) give HF's ids.
- Setters swap settings snapshots while other threads encode: every result
  equals HF's result under one complete configuration.
"""

import random
import threading
from pathlib import Path

import pytest

import snaptok

tokenizers = pytest.importorskip("tokenizers")

GPT2 = Path(__file__).resolve().parents[1] / "data" / "gpt2" / "tokenizer.json"


@pytest.fixture()
def tok():
    return snaptok.Tokenizer.from_file(str(GPT2))


@pytest.fixture(scope="module")
def hf():
    return tokenizers.Tokenizer.from_file(str(GPT2))


def sized_pieces(rng: random.Random, n: int) -> list[str]:
    """Texts whose pieces span every cache class: 1-15 bytes, 16-128 bytes,
    longer than 128, and runs longer than the stack merge (48 bytes)."""
    words = ["a", "the", "tokenizer", "Ünïcödé", "日本語", "😀👍🏽", "x" * 20, "ab" * 30,
             "q" * 200, "0123456789" * 7, "  ", "\n\n", "'s", "!!??", "é" * 40]
    out = []
    for _ in range(n):
        k = rng.randint(1, 40)
        out.append("".join(rng.choice(words) + rng.choice([" ", "", "\t", ", "]) for _ in range(k)))
    return out


def test_every_piece_size_equals_hf_with_and_without_cache(tok, hf):
    texts = sized_pieces(random.Random(7), 400)
    want = [e.ids for e in hf.encode_batch(texts)]
    for budget in (64 << 20, 1 << 20, 0):
        tok.set_cache_budget(budget)
        for _ in range(2):  # cold, then warm
            got = [tok.encode_ids(t) for t in texts]
            assert got == want, f"budget {budget}"


def test_cache_stays_within_its_budget_across_threads(tok, hf):
    texts = sized_pieces(random.Random(11), 3000)
    want = [e.ids for e in hf.encode_batch(texts)]
    tok.set_cache_budget(256 << 10)
    ids, offsets = tok.encode_to_numpy(texts, num_threads=4)
    got = [ids[offsets[i]:offsets[i + 1]].tolist() for i in range(len(texts))]
    assert got == want
    stats = tok.cache_stats()
    assert stats["bytes_budget"] == 256 << 10
    assert 0 < stats["bytes_used"] <= stats["bytes_budget"]
    assert stats["hits"] > 0 and stats["misses"] > 0

    tok.set_cache_budget(0)
    assert tok.cache_stats() == {"hits": 0, "misses": 0, "bytes_used": 0, "bytes_budget": 0}
    ids0, offsets0 = tok.encode_to_numpy(texts, num_threads=2)
    assert ids0.tolist() == ids.tolist() and offsets0.tolist() == offsets.tolist()
    assert tok.cache_stats()["bytes_used"] == 0


def test_setters_swap_whole_snapshots_under_concurrent_encodes(tok):
    """One thread flips padding and the special-token switch while others
    encode; each result must be HF's result for one of the four
    configurations, and its tokens must be readable."""
    texts = ["<|endoftext|> hello there", "short", "a longer text with <|endoftext|> inside it"]
    expected = {}
    for padded in (False, True):
        for special_as_text in (False, True):
            h = tokenizers.Tokenizer.from_file(str(GPT2))
            h.encode_special_tokens = special_as_text
            if padded:
                h.enable_padding(pad_id=50256, pad_token="<|endoftext|>", length=24)
            expected[(padded, special_as_text)] = [
                (e.ids, e.tokens) for e in h.encode_batch(texts)
            ]
    valid_rows = [{tuple(v[i][0]) for v in expected.values()} for i in range(len(texts))]
    valid_batches = {tuple(tuple(ids) for ids, _ in v) for v in expected.values()}

    stop = threading.Event()
    errors: list[str] = []

    def flip():
        rng = random.Random(3)
        while not stop.is_set():
            if rng.random() < 0.5:
                tok.enable_padding(pad_id=50256, pad_token="<|endoftext|>", length=24)
            else:
                tok.no_padding()
            tok.encode_special_tokens = rng.random() < 0.5

    def encode(worker: int):
        try:
            for n in range(300):
                i = (worker + n) % len(texts)
                enc = tok.encode(texts[i])
                assert tuple(enc.ids) in valid_rows[i], f"encode({texts[i]!r}) = {enc.ids}"
                assert all(isinstance(t, str) for t in enc.tokens)
                assert tuple(tok.encode_ids(texts[i])) in valid_rows[i]
                batch = tok.encode_batch(texts)
                assert tuple(tuple(e.ids) for e in batch) in valid_batches
        except AssertionError as e:  # reported from the main thread
            errors.append(str(e))

    flipper = threading.Thread(target=flip)
    workers = [threading.Thread(target=encode, args=(w,)) for w in range(3)]
    flipper.start()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    stop.set()
    flipper.join()
    assert not errors, errors[0]
