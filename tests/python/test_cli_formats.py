"""``snaptok encode --format`` for trainers, read back by the consumers' own code:

* megatron: Megatron-core's ``IndexedDataset`` reads the files, and its
  ``IndexedDatasetBuilder`` given the same ids writes the same bytes;
* datatrove: its ``DocumentTokenizer``, run by ``LocalPipelineExecutor`` on
  the same documents, writes the same ``.ds``, ``.ds.index`` and
  ``.ds.metadata`` bytes;
* llmc: the checks of llm.c's data loader (magic, version, count, size);
* parquet: pyarrow and ``datasets.load_dataset("parquet")``;

and --append-eos / --prepend-bos on batched and streamed documents. Every
id is checked against HF ``tokenizers``.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import sys
import types
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import (GPT2, MIXED_LINES, assert_docs_equal, hf_ids, load_npz, needs_document_encoder,
                         sample_lines, sample_text, write_lines)
from snaptok import cli
from snaptok.cli import writers

EOT = 50256  # GPT-2's <|endoftext|>


def _docs():
    return MIXED_LINES + sample_lines()[:300]


def _encode(tmp_path, *args, docs=None, name="lines.txt"):
    src = write_lines(tmp_path / name, docs if docs is not None else _docs())
    assert cli.main(["encode", str(src), "--lines", "-q", *map(str, args)]) == 0
    return src


def _with_eos(docs, add_special_tokens=True):
    return [ids + [EOT] for ids in hf_ids(GPT2, docs, add_special_tokens)]


# --------------------------------------------------------------------------
# Megatron-core, from the installed wheel (0.16.1). Its indexed_dataset module
# reads and writes with NumPy; it imports torch for Dataset and
# torch.distributed only, so it is loaded here beside a stand-in for those.


def _megatron_module(monkeypatch):
    try:
        files = metadata.files("megatron-core") or []
    except metadata.PackageNotFoundError:
        pytest.skip("megatron-core is not installed (scripts/setup.sh installs it without torch)")
    sources = {str(f): Path(f.locate()) for f in files if str(f).endswith(".py")}

    def load(name, rel):
        spec = importlib.util.spec_from_file_location(name, sources[rel])
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, module)
        spec.loader.exec_module(module)
        return module

    torch = types.ModuleType("torch")
    torch.Tensor = np.ndarray
    torch.utils = types.SimpleNamespace(data=types.SimpleNamespace(Dataset=object))
    torch.distributed = types.SimpleNamespace(is_initialized=lambda: False, get_rank=lambda: 0)
    monkeypatch.setitem(sys.modules, "torch", torch)
    for package in ("megatron", "megatron.core", "megatron.core.datasets"):
        module = types.ModuleType(package)
        module.__path__ = []
        monkeypatch.setitem(sys.modules, package, module)
    utils = types.ModuleType("megatron.core.utils")
    utils.log_single_rank = lambda logger, level, *args, **kwargs: logger.log(level, *args, **kwargs)
    monkeypatch.setitem(sys.modules, "megatron.core.utils", utils)
    load("megatron.core.msc_utils", "megatron/core/msc_utils.py")
    load("megatron.core.datasets.object_storage_utils", "megatron/core/datasets/object_storage_utils.py")
    return load("megatron.core.datasets.indexed_dataset", "megatron/core/datasets/indexed_dataset.py")


@pytest.mark.parametrize("dtype", ["auto", "int32"])
def test_megatron_indexed_dataset_reads_and_writes_the_same_files(tmp_path, monkeypatch, dtype):
    mc = _megatron_module(monkeypatch)
    _encode(tmp_path, "--format", "megatron", "--append-eos", "--dtype", dtype, "-o", tmp_path / "ours")
    want = _with_eos(_docs())
    logging.disable(logging.INFO)
    try:
        dataset = mc.IndexedDataset(str(tmp_path / "ours"))
    finally:
        logging.disable(logging.NOTSET)
    np_dtype = np.uint16 if dtype == "auto" else np.int32  # Megatron's choice for 50,257 tokens
    assert dataset.index.dtype == np_dtype
    assert len(dataset) == len(want)
    assert dataset.document_indices.tolist() == list(range(len(want) + 1))
    for i, ids in enumerate(want):
        assert dataset[i].tolist() == ids, f"document {i}"
    assert dataset.get(3, offset=1, length=2).tolist() == want[3][1:3]

    builder = mc.IndexedDatasetBuilder(str(tmp_path / "theirs.bin"), dtype=np_dtype)
    for ids in want:
        builder.add_document(np.array(ids), [len(ids)])
    builder.finalize(str(tmp_path / "theirs.idx"))
    for suffix in (".bin", ".idx"):
        assert (tmp_path / f"ours{suffix}").read_bytes() == (tmp_path / f"theirs{suffix}").read_bytes()


def test_megatron_shards_are_datasets_each(tmp_path, monkeypatch):
    mc = _megatron_module(monkeypatch)
    _encode(tmp_path, "--format", "megatron", "--shard-size", 2000, "-o", tmp_path / "sh")
    manifest = json.loads((tmp_path / "sh.manifest.json").read_text())
    assert len(manifest["shards"]) >= 3
    got = []
    for shard in manifest["shards"]:
        assert shard["files"][1].endswith(".idx")
        dataset = mc.IndexedDataset(str(tmp_path / shard["files"][0][: -len(".bin")]))
        got += [dataset[i].tolist() for i in range(len(dataset))]
    assert_docs_equal(got, _docs())


# --------------------------------------------------------------------------
# datatrove 0.10.1: its own DocumentTokenizer writes the reference files.


def test_datatrove_files_equal_its_document_tokenizer(tmp_path):
    pytest.importorskip("datatrove")
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.pipeline.tokens.tokenizer import DocumentTokenizer

    docs = [d for d in _docs() if d]  # datatrove's reader drops empty texts
    data = tmp_path / "data"
    data.mkdir()
    with open(data / "docs.jsonl", "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({"text": d}) + "\n")
    tokenizer = str(GPT2)
    LocalPipelineExecutor(pipeline=[
        JsonlReader(str(data)),
        DocumentTokenizer(str(tmp_path / "theirs"), tokenizer_name_or_path=tokenizer,
                          eos_token="<|endoftext|>", shuffle_documents=False, save_filename="x"),
    ], tasks=1, logging_dir=str(tmp_path / "logs")).run()
    theirs = tmp_path / "theirs" / "x_00000_unshuffled.ds"

    # datatrove's convention, $A <EOS> and nothing else: --no-special-tokens --append-eos.
    assert cli.main(["encode", str(data / "docs.jsonl"), "--format", "datatrove", "--no-special-tokens",
                     "--append-eos", "-t", tokenizer, "-o", str(tmp_path / "ours.ds"), "-q"]) == 0
    for suffix in ("", ".index", ".metadata"):
        ours = (tmp_path / f"ours.ds{suffix}").read_bytes()
        assert ours == Path(f"{theirs}{suffix}").read_bytes(), suffix
    ids = np.fromfile(tmp_path / "ours.ds", dtype="<u2")
    ends = np.fromfile(tmp_path / "ours.ds.index", dtype="<u8")
    got = np.split(ids, ends[:-1])
    assert [g.tolist() for g in got] == _with_eos(docs, add_special_tokens=False)


def test_datatrove_metadata_count():
    assert [writers.si_count(n) for n in (0, 999, 1000, 76645, 123_456_789)] == [
        "0 T", "999 T", "1.00 kT", "76.6 kT", "123 MT"]
    humanize = pytest.importorskip("humanize")  # what datatrove writes the line with
    rng = np.random.default_rng(7)
    counts = [10**k + d for k in range(1, 16) for d in (-1, 0, 1)] + [9_995_000_000, 999_500]
    counts += rng.integers(1, 10**15, 2000).tolist()
    for n in counts:
        assert writers.si_count(n) == humanize.metric(n, unit="T"), n


# --------------------------------------------------------------------------
# llm.c: dev/data/data_common.py's layout, checked as its C loader checks it.


def _llmc_read(path: Path):
    raw = path.read_bytes()
    header = np.frombuffer(raw[:1024], dtype="<i4")
    magic, version, ntok = (int(v) for v in header[:3])
    assert (magic, version) in ((20240520, 1), (20240801, 7))
    assert not header[3:].any()
    width = 2 if version == 1 else 4
    assert len(raw) == 1024 + ntok * width  # the loader's size check
    return (magic, version), np.frombuffer(raw, dtype="<u2" if width == 2 else "<u4", offset=1024)


@pytest.mark.parametrize("dtype,header", [("auto", (20240520, 1)), ("uint32", (20240801, 7))])
def test_llmc_header_and_documents_delimited_by_bos(tmp_path, dtype, header):
    _encode(tmp_path, "--format", "llmc", "--prepend-bos", "--bos-token", "<|endoftext|>", "--dtype", dtype,
            "-o", tmp_path / "fw.bin")
    got_header, ids = _llmc_read(tmp_path / "fw.bin")
    assert got_header == header
    want = [[EOT] + ids for ids in hf_ids(GPT2, _docs())]  # llm.c's fineweb.py: EOT, then the text
    assert ids.tolist() == [t for doc in want for t in doc]


def test_llmc_refuses_a_count_its_header_cannot_hold(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(writers, "LLMC_MAX_TOKENS", 100)
    src = write_lines(tmp_path / "l.txt", _docs())
    assert cli.main(["encode", str(src), "--lines", "--format", "llmc", "-o", str(tmp_path / "x.bin")]) == 2
    assert "--shard-size" in capsys.readouterr().err
    assert list(p.name for p in tmp_path.iterdir()) == ["l.txt"]


# --------------------------------------------------------------------------
# Parquet.


@pytest.mark.parametrize("int32", [False, True])
def test_parquet_rows_read_by_pyarrow_and_datasets(tmp_path, int32):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    extra = ["--arrow-int32"] if int32 else []
    _encode(tmp_path, "--format", "parquet", *extra, "-o", tmp_path / "t.parquet")
    table = pq.read_table(tmp_path / "t.parquet")
    want_type = pa.list_(pa.int32()) if int32 else pa.large_list(pa.uint32())
    assert table.schema.field("input_ids").type == want_type
    assert_docs_equal(table.column("input_ids").to_pylist(), _docs())
    datasets = pytest.importorskip("datasets")
    loaded = datasets.load_dataset("parquet", data_files=str(tmp_path / "t.parquet"), split="train",
                                   cache_dir=str(tmp_path / "cache"))
    assert_docs_equal(loaded["input_ids"], _docs())


def test_parquet_row_groups_and_documents_in_pieces(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    options = writers.WriterOptions(row_group_ids=7)
    shard = writers.ParquetShard([str(tmp_path / "p.parquet")], np.uint32, options)
    docs = [list(range(i, i + (i % 5) * 3)) for i in range(40)]
    for i, doc in enumerate(docs):
        half = len(doc) // 2  # each document in two writes, its end after the second
        shard.write_ids(np.array(doc[:half], np.uint32))
        shard.write_ids(np.array(doc[half:], np.uint32))
        shard.add_ends(np.array([shard.tokens], np.int64))
    shard.close()
    meta = pq.ParquetFile(tmp_path / "p.parquet").metadata
    assert meta.num_rows == len(docs) and meta.num_row_groups > 5
    assert pq.read_table(tmp_path / "p.parquet").column("input_ids").to_pylist() == docs


def test_parquet_of_nothing_has_the_schema(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    (tmp_path / "empty.txt").write_text("")
    assert cli.main(["encode", str(tmp_path / "empty.txt"), "--lines", "-o", str(tmp_path / "e.parquet"),
                     "-q"]) == 0
    table = pq.read_table(tmp_path / "e.parquet")
    assert table.num_rows == 0 and table.column_names == ["input_ids"]


# --------------------------------------------------------------------------
# Document boundaries.


def test_eos_and_bos_around_batched_documents(tmp_path):
    _encode(tmp_path, "--append-eos", "--prepend-bos", "--bos-token", "<|endoftext|>", "-o", tmp_path / "b.npz")
    ids, offsets = load_npz(tmp_path / "b.npz")
    got = [ids[offsets[i]:offsets[i + 1]].tolist() for i in range(len(offsets) - 1)]
    assert got == [[EOT] + d + [EOT] for d in hf_ids(GPT2, _docs())]


@needs_document_encoder
def test_eos_and_bos_around_streamed_documents(tmp_path):
    texts = ["small", sample_text(), "after"]
    paths = []
    for i, t in enumerate(texts):
        paths.append(tmp_path / f"{i}.txt")
        paths[-1].write_text(t, encoding="utf-8")
    args = ["--append-eos", "--prepend-bos", "--bos-token", "<|endoftext|>", "--batch-bytes", "4K", "-q"]
    assert cli.main(["encode", *map(str, paths), *args, "-o", str(tmp_path / "s.npz")]) == 0
    ids, offsets = load_npz(tmp_path / "s.npz")
    got = [ids[offsets[i]:offsets[i + 1]].tolist() for i in range(len(offsets) - 1)]
    assert got == [[EOT] + d + [EOT] for d in hf_ids(GPT2, texts)]


def test_eos_from_tokenizer_config(tmp_path):
    tok_dir = tmp_path / "tok"
    tok_dir.mkdir()
    (tok_dir / "tokenizer.json").write_text(GPT2.read_text(encoding="utf-8"), encoding="utf-8")
    (tok_dir / "tokenizer_config.json").write_text(json.dumps({"eos_token": {"content": "!"}}))
    _encode(tmp_path, "--append-eos", "-t", tok_dir, "-o", tmp_path / "c.npz", docs=["a b", "c"])
    ids, offsets = load_npz(tmp_path / "c.npz")
    assert ids[offsets[1:] - 1].tolist() == [0, 0]  # "!" is id 0 in GPT-2's vocabulary


def test_add_boundaries():
    from snaptok.batches import add_boundaries

    ids, offsets = add_boundaries(np.array([5, 6, 7], np.uint32), np.array([0, 2, 2, 3]), None, 0)
    assert ids.tolist() == [5, 6, 0, 0, 7, 0] and offsets.tolist() == [0, 3, 4, 6]
    ids, offsets = add_boundaries(np.array([5], np.uint16), np.array([0, 0, 1]), 9, 8)
    assert ids.tolist() == [9, 8, 9, 5, 8] and offsets.tolist() == [0, 2, 5] and ids.dtype == np.uint16


def test_parquet_keeps_fields_from_jsonl_and_parquet_inputs(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    docs = _docs()[:120]
    records = [{"text": d, "id": i, "url": f"https://x/{i}"} for i, d in enumerate(docs)]
    records[5].pop("url")  # a missing field is a null
    with open(tmp_path / "in.jsonl", "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    pq.write_table(pa.table({"text": docs, "id": list(range(len(docs))), "lang": ["en"] * len(docs)}),
                   tmp_path / "in.parquet", row_group_size=17)
    want = hf_ids(GPT2, docs)
    for src, keep, extra in ((tmp_path / "in.jsonl", "id,url", []), (tmp_path / "in.parquet", "id,lang", []),
                             (tmp_path / "in.jsonl", "id", ["--shard-size", "500", "--batch-bytes", "1K"])):
        out = tmp_path / f"{src.suffix[1:]}-{keep.replace(',', '-')}-{len(extra)}.parquet"
        assert cli.main(["encode", str(src), "--format", "parquet", "--keep-fields", keep, *extra,
                         "-o", str(out), "-q"]) == 0
        files = sorted(tmp_path.glob(out.stem + "-0*.parquet")) if extra else [out]
        assert len(files) > 2 if extra else True
        table = pa.concat_tables([pq.read_table(p) for p in files])
        assert table.column_names == keep.split(",") + ["input_ids"]
        assert table.column("id").to_pylist() == list(range(len(docs)))
        assert table.column("input_ids").to_pylist() == want
        if "url" in keep:
            assert table.column("url").to_pylist() == [r.get("url") for r in records]
        if "lang" in keep:
            assert set(table.column("lang").to_pylist()) == {"en"}


@pytest.mark.parametrize("args,message", [
    (["--format", "npz", "--keep-fields", "id"], "--keep-fields applies to --format parquet only"),
    (["--format", "parquet", "--keep-fields", "id", "--lines"], "needs JSON Lines or Parquet inputs"),
])
def test_keep_fields_errors(tmp_path, capsys, args, message):
    src = write_lines(tmp_path / "l.txt", ["a", "b"])
    assert cli.main(["encode", str(src), *args, "-o", str(tmp_path / "o")]) == 2
    assert message in capsys.readouterr().err


def test_keep_fields_type_change_is_an_error(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    with open(tmp_path / "in.jsonl", "w", encoding="utf-8") as f:
        for i in range(40):
            f.write(json.dumps({"text": "x y", "id": i if i < 20 else f"s{i}"}) + "\n")
    assert cli.main(["encode", str(tmp_path / "in.jsonl"), "--format", "parquet", "--keep-fields", "id",
                     "-o", str(tmp_path / "o.parquet")]) == 2
    err = capsys.readouterr().err
    assert "--keep-fields 'id': values Parquet cannot store in one column" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]
