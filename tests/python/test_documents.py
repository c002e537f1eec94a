"""One large document cut across threads, and streamed through a DocumentEncoder.

Every result is compared id by id with HF ``tokenizers`` encoding the whole
document: ``encode_to_numpy([doc])`` on 1-3 threads, and ``document_encoder``
fed in pieces of random sizes (str, bytes, memoryview). The bundled GPT-2
always runs; with ../shared/data, every real shared tokenizer (and the
byte-level synthetic ones) does too, on a document mixed from every corpus,
with special tokens on and off. Tokenizers that cannot cut documents must
still give the same ids (they encode the document whole). Also: a fork after
a parallel call, concurrent callers, errors.
"""

from __future__ import annotations

import functools
import os
import random
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import snaptok

tokenizers = pytest.importorskip("tokenizers")

ROOT = Path(__file__).resolve().parents[2]
GPT2 = ROOT / "tests" / "data" / "gpt2" / "tokenizer.json"
SAMPLE = ROOT / "python" / "snaptok" / "data" / "sample.txt"
SHARED = ROOT.parent / "shared" / "data"

# Shared tokenizers expected to cut documents: byte-level BPE on a known
# pattern, SentencePiece BPE (Prepend + Replace, or Metaspace without split)
# and whitespace words (Unigram after WhitespaceSplit or Metaspace), with no
# added token a cut could change and no truncation or padding in the file.
EXPECT_CUTS = {"gpt2", "gpt2-split-original", "cl100k-hf-spelling", "cl100k-possessive", "o200k",
               "qwen2", "qwen3.5-mark", "deepseek-v3", "deepseek-v4", "kimi", "nemotron",
               "roberta-base", "whisper-tiny", "phi-2", "claude-legacy",
               "phi-3", "phi-3-mini", "spm-botchan-bpe-1000-llama-legacy", "spm-mistral-v3-llama-legacy",
               "spm-botchan-unigram-1000-albert", "spm-botchan-unigram-1000-t5",
               "spm-botchan-unigram-1000-xlnet", "t5-small"}


@functools.lru_cache(maxsize=None)
def corpus_texts() -> tuple[str, ...]:
    sources = [SAMPLE]
    if (SHARED / "corpus").is_dir():
        sources += sorted(p for p in (SHARED / "corpus").rglob("*") if p.is_file())
    return tuple(p.read_bytes().decode("utf-8", errors="replace") for p in sources)


def mixed_document(size: int, seed: int) -> str:
    """About `size` bytes: slices of the bundled sample and, when present, every
    shared corpus, joined by spaces, newlines and added-token-like strings."""
    texts = corpus_texts()
    rng = random.Random(seed)
    glue = [" ", "\n", "\n\n", " <|endoftext|> ", "<s>", " </s>", "\t", "  ", "", "<|im_start|>"]
    parts, n = [], 0
    while n < size:
        text = rng.choice(texts)
        start = rng.randrange(max(1, len(text) - 20000))
        piece = text[start:start + rng.randint(2000, 20000)] + rng.choice(glue)
        parts.append(piece)
        n += len(piece.encode())
    return "".join(parts)


def stream(tok, doc, rng: random.Random, add_special_tokens=True, num_threads=0, part_bytes=1 << 16):
    """Feeds `doc` in random pieces (bytes cut anywhere, str, memoryview)."""
    data = doc.encode()
    enc = tok.document_encoder(add_special_tokens=add_special_tokens, num_threads=num_threads,
                               part_bytes=part_bytes)
    out, at = [], 0
    while at < len(data):
        n = rng.choice([1, 17, 4096, 30000, 70000, 400000])
        kind = rng.randrange(3)
        piece = data[at:at + n]
        if kind == 1:
            piece = memoryview(data)[at:at + n]
        elif kind == 2:
            try:
                piece = piece.decode()
            except UnicodeDecodeError:
                pass  # a str cannot hold half a char: keep bytes
        out.append(enc.feed(piece))
        at = min(at + n, len(data))
        assert enc.bytes_fed == at
    out.append(enc.finish())
    assert all(a.dtype == np.uint32 for a in out)
    return np.concatenate(out).tolist()


def tokenizer_paths():
    paths = [("bundled-gpt2", GPT2)]
    shared = SHARED / "tokenizers"
    if shared.is_dir():
        paths += [(p.parent.name, p) for p in sorted(shared.glob("*/tokenizer.json"))]
        paths += [(p.stem, p) for p in sorted((shared / "synthetic").glob("*bytelevel*.json"))]
    return paths


@pytest.mark.parametrize("name,path", tokenizer_paths(), ids=[n for n, _ in tokenizer_paths()])
def test_cut_and_streamed_documents_equal_hf(name, path):
    js = path.read_text(encoding="utf-8")
    hf = tokenizers.Tokenizer.from_str(js)
    tok = snaptok.Tokenizer.from_str(js)
    if name in EXPECT_CUTS or name == "bundled-gpt2":
        assert tok.can_split_documents, name
    rng = random.Random(name)
    doc = mixed_document(600_000, seed=len(name))
    # Those that cannot cut encode the document whole: one setting suffices.
    cuts = tok.can_split_documents
    for special in (True, False) if cuts else (True,):
        want = hf.encode(doc, add_special_tokens=special).ids
        for threads in (2, 3) if cuts else (2,):
            ids, offsets = tok.encode_to_numpy([doc], add_special_tokens=special, num_threads=threads)
            assert offsets.tolist() == [0, len(want)]
            got = ids.tolist()
            if got != want:
                at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
                pytest.fail(f"{name}: {threads} threads differ from HF at id {at} of {len(want)}")
        assert stream(tok, doc, rng, special, num_threads=2) == want, f"{name}: streamed"


def test_large_document_between_small_ones_keeps_row_offsets():
    hf = tokenizers.Tokenizer.from_file(str(GPT2))
    tok = snaptok.Tokenizer.from_file(str(GPT2))
    doc = mixed_document(1_500_000, seed=3)
    texts = ["one", "", doc, "two <|endoftext|>", doc[:600_000], "end"]
    ids, offsets = tok.encode_to_numpy(texts, num_threads=3)
    assert len(offsets) == len(texts) + 1
    for i, text in enumerate(texts):
        assert ids[offsets[i]:offsets[i + 1]].tolist() == hf.encode(text).ids, i


def test_document_encoder_holds_back_little_and_spends_itself():
    tok = snaptok.Tokenizer.from_file(str(GPT2))
    doc = mixed_document(3_000_000, seed=5).encode()
    enc = tok.document_encoder(num_threads=1)
    got = []
    for at in range(0, len(doc), 1 << 18):
        got.append(enc.feed(doc[at:at + (1 << 18)]))
        assert enc.pending_bytes < (1 << 20) + (1 << 18) + 30_000
    assert sum(len(a) for a in got) > 0  # ids come before finish()
    got.append(enc.finish())
    assert np.concatenate(got).tolist() == tok.encode_ids(doc)
    assert enc.finished and enc.pending_bytes == 0
    with pytest.raises(snaptok.SnaptokError, match="finished"):
        enc.feed(b"more")
    with pytest.raises(TypeError, match="chunk"):
        tok.document_encoder().feed(123)
    arr = np.frombuffer(b"hello world", dtype=np.uint8)
    one = tok.document_encoder()
    assert np.concatenate([one.feed(arr), one.finish()]).tolist() == tok.encode_ids("hello world")


def test_without_cut_points_the_document_is_encoded_whole():
    hf = tokenizers.Tokenizer.from_file(str(GPT2))
    tok = snaptok.Tokenizer.from_file(str(GPT2))
    tok.enable_truncation(1000)
    hf.enable_truncation(1000)
    assert not tok.can_split_documents
    doc = mixed_document(1_200_000, seed=9)
    enc = tok.document_encoder()
    assert len(enc.feed(doc)) == 0 and enc.pending_bytes == len(doc.encode())
    assert enc.finish().tolist() == hf.encode(doc).ids
    ids, _ = tok.encode_to_numpy([doc], num_threads=2)
    assert ids.tolist() == hf.encode(doc).ids


def test_invalid_utf8_in_a_cut_document_names_its_byte():
    tok = snaptok.Tokenizer.from_file(str(GPT2))
    doc = bytearray(mixed_document(1_500_000, seed=1).encode())
    bad = len(doc) - 777
    doc[bad] = 0xFF
    message = f"invalid UTF-8 at byte {bad}"
    with pytest.raises(snaptok.SnaptokError, match=message):
        tok.encode_to_numpy([bytes(doc)], num_threads=3)
    enc = tok.document_encoder(num_threads=2)
    with pytest.raises(snaptok.SnaptokError, match=message):
        for at in range(0, len(doc), 300_000):
            enc.feed(doc[at:at + 300_000])
        enc.finish()
    assert enc.finished


def test_long_strs_are_read_as_code_points_without_a_utf8_copy():
    """encode_to_numpy reads a long non-ASCII str as CPython holds it (1, 2 or 4
    bytes a char), part by part: the ids of its UTF-8, and no UTF-8 copy left
    with the str (which CPython's own conversion would keep for the str's life)."""
    hf = tokenizers.Tokenizer.from_file(str(GPT2))
    tok = snaptok.Tokenizer.from_file(str(GPT2))
    ascii_doc = mixed_document(1_200_000, seed=6).encode("ascii", "ignore").decode()
    for extra in ("café", "em—dash", "smile 😀"):  # Latin-1, UCS-2, UCS-4 inside CPython
        text = f"{extra} " + ascii_doc[:400_000] + f" {extra} " + ascii_doc[400_000:] + f" {extra}"
        size = sys.getsizeof(text)
        want = hf.encode(text.encode().decode()).ids  # another str: HF leaves a UTF-8 copy on it
        for threads in (1, 3):
            ids, offsets = tok.encode_to_numpy(["short é", text, "end"], num_threads=threads)
            assert ids[offsets[1]:offsets[2]].tolist() == want, (extra, threads)
            assert ids[:offsets[1]].tolist() == hf.encode("short é").ids
        assert sys.getsizeof(text) == size, extra
    # A lone surrogate raises what a short str raises: CPython's UnicodeEncodeError.
    broken = "x é" + ascii_doc[:600_000] + "\ud800 tail"
    with pytest.raises(UnicodeEncodeError, match=f"position {len(broken) - 6}: surrogates not allowed"):
        tok.encode_to_numpy(["fine", broken], num_threads=2)
    with pytest.raises(UnicodeEncodeError, match="position 3: surrogates not allowed"):
        tok.encode_to_numpy(["x é\ud800"])


def test_concurrent_callers_with_large_documents():
    tok = snaptok.Tokenizer.from_file(str(GPT2))
    docs = [mixed_document(800_000, seed=s) for s in range(4)]
    want = [tok.encode_ids(d) for d in docs]
    errors = []

    def work(k: int):
        try:
            for round_ in range(3):
                i = (k + round_) % len(docs)
                ids, _ = tok.encode_to_numpy([docs[i]], num_threads=2)
                assert ids.tolist() == want[i]
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_after_a_parallel_call():
    tok = snaptok.Tokenizer.from_file(str(GPT2))
    doc = mixed_document(1_000_000, seed=2)
    ids, _ = tok.encode_to_numpy([doc, doc[:300_000]] * 3, num_threads=2)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the parent's workers are gone; a new pool serves it
        try:
            again, _ = tok.encode_to_numpy([doc, doc[:300_000]] * 3, num_threads=2)
            os.write(write, b"ok" if np.array_equal(again, ids) else b"differ")
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    assert os.read(read, 16) == b"ok"
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
