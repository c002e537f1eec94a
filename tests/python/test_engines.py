"""snaptok inside data engines, each in its local mode, against a
single-process reference: datatrove's pipeline step (the same files as
datatrove's own DocumentTokenizer, byte for byte, shuffled or not, and resumed
from its completion markers)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import GPT2, MIXED_LINES, hf_ids, sample_lines

pytest.importorskip("datatrove")
pytest.importorskip("orjson")  # datatrove's JsonlReader

from datatrove.executor import LocalPipelineExecutor  # noqa: E402
from datatrove.pipeline.readers import JsonlReader  # noqa: E402
from datatrove.pipeline.tokens.tokenizer import DocumentTokenizer  # noqa: E402

from snaptok.datatrove import SnaptokTokenizer  # noqa: E402

DOCS = [d for d in MIXED_LINES + sample_lines()[:500] if d]


def _jsonl_folder(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    for part in range(2):  # two files: two tasks
        with open(data / f"part{part}.jsonl", "w", encoding="utf-8") as f:
            for d in DOCS[part::2]:
                f.write(json.dumps({"text": d}) + "\n")
    return data


def _run(step_class, data: Path, out: Path, logs: Path, **kwargs) -> None:
    LocalPipelineExecutor(pipeline=[
        JsonlReader(str(data)),
        step_class(str(out), tokenizer_name_or_path=str(GPT2), save_filename="t", **kwargs),
    ], tasks=2, workers=1, logging_dir=str(logs)).run()


def _files(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("kwargs", [
    {"eos_token": "<|endoftext|>", "shuffle_documents": False},
    {"eos_token": "<|endoftext|>", "shuffle_documents": True, "seed": 3},
    {"eos_token": None, "shuffle_documents": False, "max_tokens_per_file": 2000},
], ids=["eos", "shuffled", "no-eos-split-files"])
def test_datatrove_step_writes_document_tokenizers_files(tmp_path, kwargs):
    data = _jsonl_folder(tmp_path)
    _run(DocumentTokenizer, data, tmp_path / "theirs", tmp_path / "logs-theirs", **kwargs)
    _run(SnaptokTokenizer, data, tmp_path / "ours", tmp_path / "logs-ours", **kwargs)
    theirs, ours = _files(tmp_path / "theirs"), _files(tmp_path / "ours")
    assert sorted(ours) == sorted(theirs) and any(name.endswith(".ds") for name in ours)
    for name in theirs:
        assert ours[name] == theirs[name], name

    if not kwargs["shuffle_documents"] and "max_tokens_per_file" not in kwargs:  # ids in input order
        eos = [50256] if kwargs["eos_token"] else []
        for part in range(2):
            ids = np.frombuffer(ours[f"t_{part:05d}_unshuffled.ds"], dtype="<u2")
            ends = np.frombuffer(ours[f"t_{part:05d}_unshuffled.ds.index"], dtype="<u8")
            got = [d.tolist() for d in np.split(ids, ends[:-1])]
            assert got == [want + eos for want in hf_ids(GPT2, DOCS[part::2])]


def test_datatrove_step_resumes_from_completion_markers(tmp_path):
    data = _jsonl_folder(tmp_path)
    out, logs = tmp_path / "out", tmp_path / "logs"
    _run(SnaptokTokenizer, data, out, logs, shuffle_documents=False)
    first = _files(out)
    (out / "t_00001_unshuffled.ds").unlink()  # a file of a finished task: not redone
    _run(SnaptokTokenizer, data, out, logs, shuffle_documents=False)
    assert "t_00001_unshuffled.ds" not in _files(out)
    (logs / "completions" / "00001").unlink()  # an unfinished task: redone
    _run(SnaptokTokenizer, data, out, logs, shuffle_documents=False)
    assert _files(out) == first


def test_datatrove_step_refuses_what_it_cannot_write_alike(tmp_path):
    with pytest.raises(ValueError, match="loss metadata"):
        SnaptokTokenizer(str(tmp_path), tokenizer_name_or_path=str(GPT2), save_loss_metadata=True)
    step = SnaptokTokenizer(str(tmp_path), tokenizer_name_or_path=str(GPT2), eos_token="<nope>")
    with pytest.raises(ValueError, match="'<nope>' is not a token"):
        step._eos_id


# --------------------------------------------------------------------------
# Ray Data, on a local cluster of 2 CPUs.


@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    ray.init(num_cpus=2, object_store_memory=256 << 20, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_ray_map_batches_equals_a_local_run(ray_local, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    import snaptok
    from snaptok.ray import Tokenize

    tok = snaptok.Tokenizer.from_file(str(GPT2))
    table = pa.table({"id": list(range(len(DOCS))), "text": DOCS})
    pq.write_table(table, tmp_path / "docs.parquet", row_group_size=64)
    ds = ray_local.data.read_parquet(str(tmp_path / "docs.parquet"))
    ds = ds.map_batches(Tokenize, fn_constructor_kwargs={"tokenizer": tok.to_st_bytes(),
                                                         "append_eos": "<|endoftext|>"},
                        batch_format="pyarrow", batch_size=100, concurrency=1)  # a CPU left for reads
    ds.write_parquet(str(tmp_path / "out"))  # the recipe: one Parquet file per block
    out = pq.read_table(tmp_path / "out").sort_by("id")
    assert out.column_names == ["id", "input_ids"]
    assert out.column("id").to_pylist() == list(range(len(DOCS)))
    assert out.column("input_ids").to_pylist() == [ids + [50256] for ids in hf_ids(GPT2, DOCS)]


def test_tokenize_batches_locally():
    import pyarrow as pa

    import snaptok
    from snaptok.batches import Tokenize, with_eos

    tok = snaptok.Tokenizer.from_file(str(GPT2))
    batch = pa.record_batch({"text": DOCS[:50], "n": list(range(50))})
    out = Tokenize(str(GPT2), int32=True, keep_text=True, add_special_tokens=False)(batch)
    assert out.column_names == ["text", "n", "input_ids"]
    assert out.schema.field("input_ids").type == pa.list_(pa.int32())
    assert out.column("input_ids").to_pylist() == hf_ids(GPT2, DOCS[:50], add_special_tokens=False)
    sliced = tok.encode_to_arrow(DOCS[:6]).slice(2, 3)
    assert with_eos(sliced, 7).to_pylist() == [ids + [7] for ids in hf_ids(GPT2, DOCS[2:5])]
    with pytest.raises(KeyError, match="no column 'body'"):
        Tokenize(tok, text_column="body")(batch)
    with pytest.raises(ValueError, match="not a token"):
        Tokenize(tok, append_eos="<nope>")


# --------------------------------------------------------------------------
# Spark, local[2] (needs pyspark and a Java 17 runtime).


@pytest.fixture(scope="module")
def spark():
    import shutil

    pytest.importorskip("pyspark")
    if not shutil.which("java"):
        pytest.skip("no Java runtime (apt install openjdk-17-jre-headless)")
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable  # workers run this venv's Python
    session = (SparkSession.builder.master("local[2]").appName("snaptok-test")
               .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


def test_spark_map_in_arrow_equals_a_local_run(spark):
    import snaptok
    import snaptok.spark

    tok = snaptok.Tokenizer.from_file(str(GPT2))
    df = spark.createDataFrame([(i, d) for i, d in enumerate(DOCS)], ["id", "text"]).repartition(3)
    out = snaptok.spark.tokenize(df, tok, append_eos="<|endoftext|>")
    assert out.columns == ["id", "input_ids"]
    assert out.schema["input_ids"].dataType.simpleString() == "array<int>"
    rows = sorted(out.collect())
    assert [r.id for r in rows] == list(range(len(DOCS)))
    assert [r.input_ids for r in rows] == [ids + [50256] for ids in hf_ids(GPT2, DOCS)]
    with pytest.raises(KeyError, match="no column 'body'"):
        snaptok.spark.tokenize(df, tok, text_column="body")
