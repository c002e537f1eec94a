"""Helpers shared by the ``snaptok encode`` tests (test_cli*.py).

Outputs are read back independently of snaptok's writer (np.load and
zipfile for .npz; np.memmap and np.load for memmap's .bin/.idx.npy; json for
manifests; the trainer formats with their consumers' readers in
test_cli_formats.py)
and compared id by id with the pinned Hugging Face ``tokenizers``.
"""

from __future__ import annotations

import functools
import json
import os
import re
import struct
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

hf = pytest.importorskip("tokenizers")

GPT2 = resources.files("snaptok").joinpath("data", "gpt2", "tokenizer.json")
SAMPLE = resources.files("snaptok").joinpath("data", "sample.txt")

MIXED_LINES = [
    "Hello world, it's a test.",
    "",
    "  leading and trailing spaces  ",
    "Ünïcödé: naïve café, 東京タワー, Привет мир, مرحبا",
    "emoji 👩‍👩‍👧‍👦 and flags 🇫🇷 e\u0301 combining",
    "digits 1234567890 3.14159 and tabs\there",
    "They'll've SHE'S we'RE 'tis",
    "<|endoftext|> in the middle <|endoftext|>",
    "last line without newline",
]

RATE = re.compile(r"\d [kMG]?B/s")  # a throughput as the CLI prints it, in a unit that suits it


def sample_text() -> str:
    return SAMPLE.read_text(encoding="utf-8")


def sample_lines() -> list[str]:
    return sample_text().split("\n")[:-1]


def run_module(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snaptok", *args],
        input=stdin,
        capture_output=True,
        timeout=600,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def load_npz(path: Path) -> tuple[np.ndarray, np.ndarray]:
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None  # every member's CRC checks out
    with np.load(path) as z:
        assert sorted(z.files) == ["ids", "offsets"]
        return z["ids"], z["offsets"]


def load_memmap(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Reads BASE.bin + BASE.idx.npy (--format memmap) the way docs/cli.md tells users to."""
    path = Path(path)
    offsets = np.load(path.with_suffix(".idx.npy"))
    assert offsets.dtype == np.int64 and offsets[0] == 0
    n_tokens = int(offsets[-1])
    size = path.stat().st_size
    assert size in (2 * n_tokens, 4 * n_tokens) or n_tokens == 0 == size
    dtype = np.dtype("<u2" if n_tokens and size == 2 * n_tokens else "<u4")
    ids = np.memmap(path, dtype=dtype, mode="r") if n_tokens else np.zeros(0, dtype)
    return np.asarray(ids), offsets


def load_megatron(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Reads PREFIX.bin + PREFIX.idx by the layout in docs/cli.md (Megatron's own
    reader runs in test_cli_formats.py)."""
    raw = Path(path).with_suffix(".idx").read_bytes()
    assert raw[:9] == b"MMIDIDX\0\0"
    version, code, n_seq, n_doc = struct.unpack_from("<QBQQ", raw, 9)
    assert version == 1 and n_doc == n_seq + 1
    dtype = {8: np.dtype("<u2"), 4: np.dtype("<i4")}[code]
    lengths = np.frombuffer(raw, "<i4", n_seq, 34)
    pointers = np.frombuffer(raw, "<i8", n_seq, 34 + 4 * n_seq)
    documents = np.frombuffer(raw, "<i8", n_doc, 34 + 12 * n_seq)
    assert len(raw) == 34 + 20 * n_seq + 8
    offsets = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))
    assert np.array_equal(pointers, offsets[:-1] * dtype.itemsize)
    assert np.array_equal(documents, np.arange(n_doc))
    ids = np.fromfile(path, dtype=dtype)
    assert len(ids) == offsets[-1]
    return ids, offsets


def load_datatrove(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Reads OUT.ds + OUT.ds.index (+ the token count of .ds.metadata)."""
    path = Path(path)
    ends = np.fromfile(f"{path}.index", dtype="<u8").astype(np.int64)
    meta = Path(f"{path}.metadata").read_text(encoding="utf-8").split("\n")
    width = int(meta[0].rsplit("|", 1)[1])
    ids = np.fromfile(path, dtype="<u2" if width == 2 else "<u4")
    assert int(meta[1]) == len(ids) == (ends[-1] if len(ends) else 0)
    return ids, np.concatenate(([0], ends))


def load_parquet(path: Path) -> tuple[np.ndarray, np.ndarray]:
    import pyarrow.parquet as pq

    column = pq.read_table(path).column("input_ids").combine_chunks()
    offsets = column.offsets.to_numpy().astype(np.int64)
    return column.flatten().to_numpy(), offsets - offsets[0]


def load_output(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Reads any format's shard by its first file's name."""
    path = Path(path)
    if path.suffix == ".bin":
        return load_megatron(path) if path.with_suffix(".idx").exists() else load_memmap(path)
    readers = {".ds": load_datatrove, ".parquet": load_parquet}
    return readers.get(path.suffix, load_npz)(path)


def split_docs(ids: np.ndarray, offsets: np.ndarray) -> list[list[int]]:
    assert offsets.dtype == np.int64
    assert offsets.ndim == 1 and ids.ndim == 1
    assert offsets[0] == 0 and offsets[-1] == len(ids)
    assert np.all(np.diff(offsets) >= 0)
    return [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(offsets) - 1)]


@functools.lru_cache(maxsize=8)
def _hf_tokenizer(text: str):
    return hf.Tokenizer.from_str(text)


def hf_ids(tokenizer, docs: list[str], add_special_tokens: bool = True) -> list[list[int]]:
    """HF tokenizers' ids; tokenizer is a path or a package resource."""
    text = (Path(tokenizer).read_text(encoding="utf-8") if isinstance(tokenizer, (str, Path))
            else tokenizer.read_text(encoding="utf-8"))
    tok = _hf_tokenizer(text)
    return [e.ids for e in tok.encode_batch(docs, add_special_tokens=add_special_tokens)]


def assert_docs_equal(got: list[list[int]], docs: list[str], tokenizer=GPT2,
                      add_special_tokens=True) -> None:
    want = hf_ids(tokenizer, docs, add_special_tokens)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"document {i} ({docs[i][:40]!r}) differs"


def assert_matches_hf(out: Path, docs: list[str], tokenizer=GPT2, add_special_tokens=True,
                      dtype=np.uint32):
    ids, offsets = load_output(out)
    assert ids.dtype == dtype
    assert_docs_equal(split_docs(ids, offsets), docs, tokenizer, add_special_tokens)


def read_shards(manifest_path: Path) -> tuple[dict, list[tuple[np.ndarray, np.ndarray]]]:
    """Loads a manifest and its shards, checking everything it claims."""
    manifest_path = Path(manifest_path)
    m = json.loads(manifest_path.read_text(encoding="utf-8"))
    assert m["snaptok_manifest"] == 1
    assert m["shard_count"] == len(m["shards"])
    shards = []
    docs = tokens = 0
    for k, entry in enumerate(m["shards"]):
        assert entry["index"] == k
        paths = [manifest_path.parent / name for name in entry["files"]]
        assert [p.stat().st_size for p in paths] == entry["bytes"]
        ids, offsets = load_output(paths[0])
        assert (len(offsets) - 1, len(ids)) == (entry["documents"], entry["tokens"])
        assert (entry["first_document"], entry["first_token"]) == (docs, tokens)
        docs += entry["documents"]
        tokens += entry["tokens"]
        shards.append((ids, offsets))
    assert (m["documents"], m["tokens"]) == (docs, tokens)
    return m, shards


def assert_shard_rule(shards, shard_size: int) -> None:
    """Each shard but the last ends at the first document end reaching shard_size."""
    for ids, offsets in shards[:-1]:
        assert offsets[-1] >= shard_size
        assert len(offsets) < 3 or offsets[-2] < shard_size
    if shards:
        assert shards[-1][1][-1] >= 0


def shard_docs(shards) -> list[list[int]]:
    return [d for ids, offsets in shards for d in split_docs(ids, offsets)]


@pytest.fixture
def gpt2_path(tmp_path) -> Path:
    dst = tmp_path / "gpt2-tokenizer.json"
    dst.write_bytes(GPT2.read_bytes())
    return dst


@pytest.fixture
def template_tokenizer(tmp_path, gpt2_path) -> Path:
    """GPT-2 with a post-processor that wraps every document in <|endoftext|>."""
    from tokenizers import processors

    tok = hf.Tokenizer.from_file(str(gpt2_path))
    tok.post_processor = processors.TemplateProcessing(
        single="<|endoftext|> $A <|endoftext|>",
        pair="<|endoftext|> $A <|endoftext|> $B:1 <|endoftext|>:1",
        special_tokens=[("<|endoftext|>", 50256)],
    )
    path = tmp_path / "gpt2-template.json"
    path.write_text(tok.to_str(), encoding="utf-8")
    return path


@pytest.fixture
def big_vocab_tokenizer(tmp_path) -> Path:
    """GPT-2 with its vocabulary padded to 70,000 tokens: too many for uint16.

    The extra tokens have no merges, so they never occur and the ids of real
    text stay GPT-2's.
    """
    spec = json.loads(GPT2.read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    for i in range(len(vocab), 70_000):
        vocab[f"\u0120unreachable{i}"] = i
    path = tmp_path / "big-vocab.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    assert hf.Tokenizer.from_file(str(path)).get_vocab_size() == 70_000
    return path


def write_lines(path: Path, lines: list[str], newline: str = "\n", final_newline: bool = True) -> Path:
    text = newline.join(lines) + (newline if final_newline else "")
    path.write_bytes(text.encode("utf-8"))
    return path


def write_jsonl(path: Path, records: list, raw_lines: list[str] | None = None) -> Path:
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    if raw_lines:
        lines += raw_lines
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    return path


def tree(directory: Path) -> dict[str, bytes]:
    """Every file under directory (hidden ones too), name -> contents."""
    return {p.name: p.read_bytes() for p in sorted(Path(directory).iterdir()) if p.is_file()}


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in Path(directory).iterdir() if p.name.endswith(".tmp"))


needs_document_encoder = pytest.mark.skipif(
    not hasattr(__import__("snaptok").Tokenizer, "document_encoder"),
    reason="this snaptok build has no Tokenizer.document_encoder (streaming of documents "
    "larger than --batch-bytes)",
)


class SpyTokenizer:
    """Wraps a Tokenizer; records every document_encoder feed size, so tests
    can check that a big document was streamed in bounded blocks."""

    def __init__(self, tok):
        self._tok = tok
        self.feeds: list[int] = []
        self.encoders = 0

    def __getattr__(self, name):
        return getattr(self._tok, name)

    def document_encoder(self, **kwargs):
        self.encoders += 1
        enc = self._tok.document_encoder(**kwargs)
        spy = self

        class Feeder:
            def feed(self, chunk):
                spy.feeds.append(len(chunk))
                return enc.feed(chunk)

            def finish(self):
                return enc.finish()

        return Feeder()


@pytest.fixture
def spy(monkeypatch):
    """Makes cli load tokenizers wrapped in SpyTokenizer; yields the list of spies."""
    from snaptok import cli

    spies: list[SpyTokenizer] = []
    real = cli.loading.load_tokenizer

    def load(spec):
        tok, path, digest = real(spec)
        spies.append(SpyTokenizer(tok))
        return spies[-1], path, digest

    monkeypatch.setattr(cli.loading, "load_tokenizer", load)
    return spies
