"""Beyond one process (issue 11): a Tokenizer pickles (as .st bytes), so
HF datasets.map(num_proc=2) and a Dask LocalCluster of worker processes
encode a corpus with the ids of a local run (and of HF), the Dask run
writing one shard per partition."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

snaptok = pytest.importorskip("snaptok")
tokenizers = pytest.importorskip("tokenizers")

ROOT = Path(__file__).resolve().parents[2]
TOKENIZER = ROOT / "tests" / "data" / "gpt2" / "tokenizer.json"
SAMPLE = (ROOT / "python" / "snaptok" / "data" / "sample.txt").read_text(encoding="utf-8")
DOCS = [SAMPLE[i:i + 700] for i in range(0, 70_000, 700)] + ["", "naïve café 😀 <|endoftext|>"]


def hf_ids(docs):
    hf = tokenizers.Tokenizer.from_file(str(TOKENIZER))
    return [e.ids for e in hf.encode_batch(docs, add_special_tokens=True)]


def test_datasets_map_with_two_processes(tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    tok = snaptok.Tokenizer.from_file(str(TOKENIZER))

    def encode(batch):
        ids, offsets = tok.encode_to_numpy(batch["text"], num_threads=1)
        return {"input_ids": [ids[offsets[i]:offsets[i + 1]].tolist() for i in range(len(batch["text"]))]}

    ds = datasets.Dataset.from_dict({"text": DOCS})
    out = ds.map(encode, batched=True, batch_size=16, num_proc=2)
    assert out["input_ids"] == hf_ids(DOCS)


def encode_partition(tok, docs, shard_dir, index):
    """One Dask partition: its ids as a flat .npy shard and its row offsets."""
    ids, offsets = tok.encode_to_numpy(list(docs), num_threads=1)
    np.save(os.path.join(shard_dir, f"ids-{index:03d}.npy"), ids)
    np.save(os.path.join(shard_dir, f"offsets-{index:03d}.npy"), offsets)
    return [os.getpid()]


def test_dask_local_cluster_writes_shards(tmp_path):
    pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    import dask
    import dask.bag

    tok = snaptok.Tokenizer.from_file(str(TOKENIZER))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  local_directory=str(tmp_path / "dask")) as cluster, \
            distributed.Client(cluster) as client:
        bag = dask.bag.from_sequence(DOCS, npartitions=4)
        tasks = [dask.delayed(encode_partition)(tok, part, str(tmp_path), i)
                 for i, part in enumerate(bag.to_delayed())]
        parts = len(tasks)
        pids = dask.compute(*tasks, scheduler=client)
    assert all(pid != os.getpid() for p in pids for pid in p), "the partitions ran in worker processes"
    rows = []
    for i in range(parts):
        ids = np.load(tmp_path / f"ids-{i:03d}.npy")
        offsets = np.load(tmp_path / f"offsets-{i:03d}.npy")
        rows += [ids[offsets[r]:offsets[r + 1]].tolist() for r in range(len(offsets) - 1)]
    assert rows == hf_ids(DOCS)
    local_ids, local_offsets = tok.encode_to_numpy(DOCS)
    assert rows == [local_ids[local_offsets[r]:local_offsets[r + 1]].tolist() for r in range(len(DOCS))]
