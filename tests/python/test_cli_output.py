"""``snaptok encode`` output: .npz and memmap (.bin/.idx.npy), uint16/uint32,
shards and their manifest, atomic writes, --resume after an injected
failure, a SIGKILL and a SIGTERM (the resumed output must equal an
uninterrupted run byte for byte), and progress.

Outputs are read back independently (cli_helpers) and checked id by id
against HF ``tokenizers``.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import zlib

import numpy as np
import pytest

from cli_helpers import (MIXED_LINES, RATE, assert_docs_equal, assert_matches_hf,
                         assert_shard_rule, leftovers, load_memmap, load_output, needs_document_encoder,
                         read_shards, run_module, sample_lines, sample_text, shard_docs, split_docs,
                         tree, write_lines)
from cli_helpers import gpt2_path, spy  # noqa: F401 (fixtures)
from snaptok import cli
from snaptok.cli import shards as _cli_shards
from snaptok.cli import writers as _cli_writers

SHARD = 3000  # ids per shard in these tests: the sample's lines make ~25 shards


def _lines_file(tmp_path):
    return write_lines(tmp_path / "lines.txt", MIXED_LINES + sample_lines()[:400])


def _lines_docs():
    return MIXED_LINES + sample_lines()[:400]


# --------------------------------------------------------------------------
# Formats.


@pytest.mark.parametrize("dtype", ["uint32", "uint16"])
@pytest.mark.parametrize("fmt", ["npz", "npz-deflated", "memmap"])
def test_formats_and_dtypes(tmp_path, fmt, dtype):
    src = _lines_file(tmp_path)
    out = tmp_path / ("out.bin" if fmt == "memmap" else "out.npz")
    args = ["--compress"] if fmt == "npz-deflated" else []
    assert cli.main(["encode", str(src), "--lines", "--dtype", dtype, "-o", str(out), "-q", *args]) == 0
    assert_matches_hf(out, _lines_docs(), dtype=np.dtype(dtype))
    if fmt == "memmap":
        offsets = np.load(tmp_path / "out.idx.npy")
        assert offsets.dtype == np.int64 and len(offsets) == len(_lines_docs()) + 1
        assert offsets[-1] * np.dtype(dtype).itemsize == (tmp_path / "out.bin").stat().st_size
    else:
        import zipfile
        with zipfile.ZipFile(out) as zf:
            kinds = {i.filename: i.compress_type for i in zf.infolist()}
        want = zipfile.ZIP_DEFLATED if args else zipfile.ZIP_STORED
        assert kinds == {"ids.npy": want, "offsets.npy": want}


def test_memmap_read_as_the_readme_shows(tmp_path):
    src = _lines_file(tmp_path)
    assert cli.main(["encode", str(src), "--lines", "-o", str(tmp_path / "out.bin"), "-q"]) == 0
    os.chdir(tmp_path)
    # docs/cli.md's reader, verbatim:
    ids = np.memmap("out.bin", dtype=np.uint32, mode="r")
    offsets = np.load("out.idx.npy")
    doc = ids[offsets[3]:offsets[3 + 1]]
    assert doc.tolist() == split_docs(np.asarray(ids), np.asarray(offsets))[3]
    assert_docs_equal(split_docs(np.asarray(ids), np.asarray(offsets)), _lines_docs())


def test_crc32_combine_matches_zlib():
    rng = np.random.default_rng(7)
    for la, lb in [(0, 0), (0, 9), (5, 0), (1, 1), (100, 3), (7, 4096), (12345, 1 << 20)]:
        a, b = rng.bytes(la), rng.bytes(lb)
        assert _cli_shards.crc32_combine(zlib.crc32(a), zlib.crc32(b), lb) == zlib.crc32(a + b)


@pytest.mark.parametrize("o_direct", [True, False])
def test_direct_file_writes_every_byte(tmp_path, monkeypatch, o_direct):
    # A staging buffer of three blocks, so that pieces of odd sizes cross it,
    # fill it exactly, and leave tails that are not whole blocks; then a
    # flush() mid-file (O_DIRECT turned off), more writes, and close(); then
    # seek() back to patch a header.
    # Without O_DIRECT (a platform or file system without it) it is a plain
    # unbuffered file that hands its pages to writeback as it goes.
    from snaptok.cli import direct_file

    path = str(tmp_path / "direct.bin")
    if not o_direct:
        monkeypatch.delattr(os, "O_DIRECT", raising=False)
    monkeypatch.setattr(direct_file, "STAGING_BYTES", 3 * 4096)
    monkeypatch.setattr(direct_file, "WRITEBACK_BYTES", 2 * 4096)  # the plain file's writeback runs too
    rng = np.random.default_rng(7)
    sizes = [1, 4095, 4097, 12288, 12288 - 4097 - 4095 - 1, 3 * 4096 + 5, 0, 100_000, 3]
    pieces = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in sizes]
    f = direct_file.DirectFile(path)
    if not o_direct:
        assert not f.direct
    for i, piece in enumerate(pieces):
        f.write(piece)
        if i == 6:
            f.flush()
            assert not f.direct
    assert f.tell() == sum(sizes)
    f.close()
    f.close()  # a second close does nothing
    with open(path, "rb") as g:
        assert g.read() == b"".join(pieces)

    # A header patched at the end, as a zip member's: seek() flushes first.
    f = direct_file.DirectFile(path)
    f.write(b"\0" * 16)
    f.write(pieces[5])
    end = f.tell()
    f.seek(3)
    f.write(b"patch")
    f.seek(end)
    f.write(b"tail")
    assert f.tell() == end + 4
    f.close()
    with open(path, "rb") as g:
        assert g.read() == b"\0" * 3 + b"patch" + b"\0" * 8 + pieces[5] + b"tail"


@pytest.mark.parametrize("dtype,n", [(np.uint32, 0), (np.uint16, 7), (np.int64, 10**15)])
def test_npy_header_reads_back(dtype, n):
    header = _cli_shards.npy_header(dtype, n)
    assert len(header) == _cli_shards.NPY_HEADER_BYTES
    f = io.BytesIO(header)
    assert np.lib.format.read_magic(f) == (1, 0)
    assert np.lib.format.read_array_header_1_0(f) == ((n,), False, np.dtype(dtype))


def test_output_is_deterministic(tmp_path):
    src = _lines_file(tmp_path)
    outs = []
    for name in ("a.npz", "b.npz"):
        assert cli.main(["encode", str(src), "--lines", "-o", str(tmp_path / name), "-q"]) == 0
        outs.append((tmp_path / name).read_bytes())
        time.sleep(0.01)
    assert outs[0] == outs[1]


@pytest.mark.parametrize("output,args,files", [
    ("out.bin", [], ["out.bin", "out.idx.npy"]),
    ("out", ["--format", "memmap"], ["out.bin", "out.idx.npy"]),
    ("out", ["--format", "megatron"], ["out.bin", "out.idx"]),
    ("out.bin", ["--format", "llmc"], ["out.bin"]),
    ("out.ds", [], ["out.ds", "out.ds.index", "out.ds.metadata"]),
    ("out.parquet", [], ["out.parquet"]),
    ("data.tokens", [], ["data.tokens"]),
    ("out.npz", ["--shard-size", "7k"], ["out-00000.npz", "out-00001.npz", "out.manifest.json"]),
    ("out.bin", ["--shard-size", "7k"],
     ["out-00000.bin", "out-00000.idx.npy", "out-00001.bin", "out-00001.idx.npy", "out.manifest.json"]),
    ("out", ["--format", "megatron", "--shard-size", "7k"],
     ["out-00000.bin", "out-00000.idx", "out-00001.bin", "out-00001.idx", "out.manifest.json"]),
])
def test_output_names(tmp_path, output, args, files):
    src = _lines_file(tmp_path)
    out_dir = tmp_path / "o"
    out_dir.mkdir()
    assert cli.main(["encode", str(src), "--lines", "-o", str(out_dir / output), "-q", *args]) == 0
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(files)


@pytest.mark.parametrize("args,expected", [
    (["-o", "x.bin", "--format", "npz"], "--format is npz"),
    (["-o", "x.npz", "--format", "bin"], "--format bin was removed"),
    (["-o", "x.npz", "--format", "megatron"], "a .npz name, but --format is megatron"),
    (["-o", "x.ds", "--format", "llmc"], "a .ds name, but --format is llmc"),
    (["-o", "x", "--format", "megatron", "--dtype", "uint32"], "stores ids as uint16 or int32"),
    (["-o", "x.npz", "--arrow-int32"], "--arrow-int32 applies to --format parquet only"),
    (["-o", "x.bin", "--append-eos", "--eos-token", "<nope>"], "'<nope>' is not a token"),
    (["-o", "x.bin", "--prepend-bos"], "has no BOS token among"),
    (["-o", "x.bin", "--compress"], "--compress applies to --format npz only"),
    (["-o", "x.npz", "--resume"], "--resume needs --shard-size"),
    (["-", "-o", "x.npz", "--resume", "--shard-size", "5"], "cannot check standard input"),
])
def test_output_option_errors(tmp_path, capsys, args, expected):
    os.chdir(tmp_path)
    assert cli.main(["encode", *args]) == 2
    assert expected in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", ["0", "lots", "-5", "1.5x"])
def test_bad_shard_size_is_a_usage_error(tmp_path, capsys, bad):
    assert cli.main(["encode", "-o", str(tmp_path / "o.npz"), "--shard-size", bad]) == 2
    assert "usage:" in capsys.readouterr().err


def test_shard_size_units():
    assert cli.args.parse_count("100M") == 100_000_000
    assert cli.args.parse_count("2.5k") == 2500
    assert cli.args.parse_count("1G") == cli.args.parse_count("1B") == 10**9
    assert cli.args.parse_count("1_000") == cli.args.parse_count("1,000") == 1000


def test_num_threads_and_its_alias(tmp_path):
    src = _lines_file(tmp_path)
    for opt in ("--num-threads", "--threads"):
        out = tmp_path / f"{opt.strip('-')}.npz"
        assert cli.main(["encode", str(src), "--lines", opt, "1", "-o", str(out), "-q"]) == 0
        assert_matches_hf(out, _lines_docs())


# --------------------------------------------------------------------------
# Shards.


@pytest.mark.parametrize("fmt", ["npz", "bin"])
def test_shards_follow_the_rule_and_concatenate_to_the_whole(tmp_path, capsys, fmt):
    src = _lines_file(tmp_path)
    whole = tmp_path / f"whole.{fmt}"
    assert cli.main(["encode", str(src), "--lines", "-o", str(whole), "-q"]) == 0
    base = tmp_path / f"sh.{fmt}"
    assert cli.main(["encode", str(src), "--lines", "-o", str(base), "--shard-size", str(SHARD)]) == 0
    summary = capsys.readouterr().out
    m, shards = read_shards(tmp_path / "sh.manifest.json")
    assert m["complete"] and len(shards) >= 4
    name = {"bin": "memmap"}.get(fmt, fmt)
    assert m["output"] == {"format": name, "dtype": "uint32", "shard_size": SHARD, "compress": False}
    assert m["inputs"][0]["path"] == str(src) and m["inputs"][0]["size"] == src.stat().st_size
    assert_shard_rule(shards, SHARD)
    ids, offsets = load_output(whole)
    assert shard_docs(shards) == split_docs(ids, offsets)
    assert_docs_equal(shard_docs(shards), _lines_docs())
    assert f"shards     {len(shards)} (sh-00000.{fmt} .. sh-{len(shards) - 1:05d}.{fmt})" in summary
    assert str(tmp_path / "sh.manifest.json") in summary


@needs_document_encoder
def test_document_larger_than_a_shard_makes_one_oversized_shard(tmp_path, spy):
    texts = ["a small document", sample_text(), "after the big one", "and one more"]
    paths = []
    for i, t in enumerate(texts):
        paths.append(tmp_path / f"{i}.txt")
        paths[-1].write_text(t, encoding="utf-8")
    base = tmp_path / "big.bin"
    assert cli.main(["encode", *map(str, paths), "-o", str(base), "-q", "--shard-size", "1000",
                     "--batch-bytes", "4K"]) == 0
    assert spy[0].encoders == 1 and max(spy[0].feeds) <= 64 << 10
    m, shards = read_shards(tmp_path / "big.manifest.json")
    assert [s["documents"] for s in m["shards"]] == [2, 2]
    assert m["shards"][0]["tokens"] > 50_000  # the streamed document, whole, in shard 0
    assert_docs_equal(shard_docs(shards), texts)


def test_empty_input_makes_one_empty_shard(tmp_path):
    src = tmp_path / "empty.txt"
    src.write_bytes(b"")
    assert cli.main(["encode", str(src), "--lines", "-o", str(tmp_path / "e.npz"), "-q",
                     "--shard-size", "10"]) == 0
    m, shards = read_shards(tmp_path / "e.manifest.json")
    assert m["complete"] and len(shards) == 1 and shards[0][1].tolist() == [0]


def test_existing_manifest_needs_resume_or_overwrite(tmp_path, capsys):
    src = _lines_file(tmp_path)
    base = tmp_path / "o.npz"
    assert cli.main(["encode", str(src), "--lines", "-o", str(base), "-q", "--shard-size", "5k"]) == 0
    before = tree(tmp_path)
    n_old = json.loads((tmp_path / "o.manifest.json").read_text())["shard_count"]
    assert cli.main(["encode", str(src), "--lines", "-o", str(base), "-q", "--shard-size", "20k"]) == 2
    err = capsys.readouterr().err
    assert "--resume" in err and "--overwrite" in err
    assert tree(tmp_path) == before
    assert cli.main(["encode", str(src), "--lines", "-o", str(base), "-q", "--shard-size", "20k",
                     "--overwrite"]) == 0
    m, shards = read_shards(tmp_path / "o.manifest.json")
    assert len(shards) < n_old
    assert sorted(p.name for p in tmp_path.glob("o-*")) == [f"o-{k:05d}.npz" for k in range(len(shards))]
    assert_docs_equal(shard_docs(shards), _lines_docs())


# --------------------------------------------------------------------------
# Interruption and --resume.


def _resume_case(tmp_path, kind):
    """Returns (inputs, extra args, documents) for one resume scenario."""
    lines = sample_lines()[:500]
    d = tmp_path / "in"
    d.mkdir()
    if kind == "lines":  # CRLF, blank lines skipped, no final newline
        body = "\r\n".join(lines[:100]) + "\r\n\r\n\n" + "\n".join(lines[100:])
        (d / "a.txt").write_bytes(body.encode())
        return [d / "a.txt"], ["--lines", "--skip-empty"], [x for x in lines if x]
    if kind == "jsonl.gz":
        data = "".join(json.dumps({"text": t}) + "\n" for t in lines).encode()
        (d / "a.jsonl.gz").write_bytes(gzip.compress(data))
        half_bytes = data[: data.index(b"\n", len(data) // 2) + 1]
        (d / "b.jsonl").write_bytes(half_bytes)
        half = half_bytes.decode().splitlines()
        return [d / "a.jsonl.gz", d / "b.jsonl"], [], lines + [json.loads(x)["text"] for x in half]
    if kind == "parquet":
        pa = pytest.importorskip("pyarrow")
        pq = pytest.importorskip("pyarrow.parquet")
        pq.write_table(pa.table({"text": lines}), d / "a.parquet", row_group_size=70)
        return [d / "a.parquet"], [], lines
    if kind == "files":  # one document per file; the big one streams
        texts = [f"file {i}: " + " ".join(lines[i * 10 : i * 10 + 30]) for i in range(12)]
        texts[5] = sample_text()
        for i, t in enumerate(texts):
            (d / f"{i:02d}.txt").write_text(t, encoding="utf-8")
        return sorted(d.iterdir()), ["--batch-bytes", "4K"], texts
    raise AssertionError(kind)


RESUME_CASES = [("lines", "npz"), ("jsonl.gz", "memmap"), ("parquet", "npz-deflated"), ("files", "memmap"),
                ("jsonl.gz", "megatron"), ("lines", "datatrove"), ("files", "parquet"), ("lines", "llmc")]


def _format_args(fmt):
    """(extra arguments, the -o name's suffix) of a RESUME_CASES format."""
    if fmt in ("npz", "npz-deflated"):
        return (["--compress"] if fmt == "npz-deflated" else []), "npz"
    return ["--format", fmt], {"memmap": "bin", "megatron": "bin", "llmc": "bin", "datatrove": "ds"}.get(fmt, fmt)


@pytest.mark.parametrize("kind,fmt", RESUME_CASES, ids=[f"{k}-{f}" for k, f in RESUME_CASES])
def test_resume_after_a_failure_equals_an_uninterrupted_run(tmp_path, monkeypatch, capsys, kind, fmt):
    if kind == "files" and not hasattr(__import__("snaptok").Tokenizer, "document_encoder"):
        pytest.skip("needs Tokenizer.document_encoder")
    inputs, args, docs = _resume_case(tmp_path, kind)
    extra, suffix = _format_args(fmt)
    cmd = ["encode", *map(str, inputs), *args, *extra, "--shard-size", str(SHARD), "-q"]
    ref, run = tmp_path / "ref", tmp_path / "run"
    ref.mkdir()
    run.mkdir()
    assert cli.main([*cmd, "-o", str(ref / f"out.{suffix}")]) == 0
    if fmt != "llmc":  # llm.c's files keep no document boundaries
        m, shards = read_shards(ref / "out.manifest.json")
        assert len(shards) >= 4
        assert_shard_rule(shards, SHARD)
        assert_docs_equal(shard_docs(shards), docs)

    # Fail while closing the third shard, as a crash or Ctrl-C would.
    real_close = _cli_shards.ShardSet._close

    def failing_close(self, cursor):
        if len(self.done) == 2:
            raise KeyboardInterrupt
        real_close(self, cursor)

    monkeypatch.setattr(_cli_shards.ShardSet, "_close", failing_close)
    assert cli.main([*cmd, "-o", str(run / f"out.{suffix}")]) == 130
    monkeypatch.undo()
    assert leftovers(run) == []
    partial = json.loads((run / "out.manifest.json").read_text())
    assert partial["complete"] is False and partial["shard_count"] == 2
    assert not list(run.glob("out-00002.*"))

    assert cli.main([*cmd, "-o", str(run / f"out.{suffix}"), "--resume"]) == 0
    assert tree(run) == tree(ref)


_BLOCKING_RUN = textwrap.dedent("""
    import os, sys, time
    from snaptok import cli
    manifest, marker = sys.argv[1], sys.argv[2]
    real = cli.encode.batches

    def batches(*a):
        # Before the 4th work item (by then the 1st is with the writer), wait
        # for the first shard in the manifest, then stop in the main thread.
        for k, item in enumerate(real(*a)):
            if k == 3:
                while not os.path.exists(manifest):
                    time.sleep(0.01)
                open(marker, "w").close()
                time.sleep(600)
            yield item

    cli.encode.batches = batches
    sys.exit(cli.main(sys.argv[3:]))
""")


def _start_blocking_run(tmp_path, out_dir, cmd):
    marker = tmp_path / "marker"
    proc = subprocess.Popen(
        [sys.executable, "-c", _BLOCKING_RUN, str(out_dir / "out.manifest.json"), str(marker), *cmd,
         "-o", str(out_dir / "out.npz")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run never finished its first shard"
        time.sleep(0.02)
    return proc


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_killed_run_leaves_only_complete_files_and_resumes(tmp_path, how):
    src = write_lines(tmp_path / "all.txt", sample_lines())  # 300 KB: five 64 KiB blocks
    cmd = ["encode", str(src), "--lines", "--batch-bytes", "4K", "--shard-size", str(SHARD), "-q"]
    ref, run = tmp_path / "ref", tmp_path / "run"
    ref.mkdir()
    run.mkdir()
    assert cli.main([*cmd, "-o", str(ref / "out.npz")]) == 0

    proc = _start_blocking_run(tmp_path, run, cmd)
    proc.send_signal(getattr(signal, how))
    _, err = proc.communicate(timeout=120)
    if how == "SIGTERM":
        assert proc.returncode == 143, err.decode()
        assert b"terminated" in err
        assert leftovers(run) == []  # cleaned up like Ctrl-C
    else:
        assert proc.returncode == -signal.SIGKILL
        (run / ".out-00009.npz.stale.tmp").write_bytes(b"left by a killed run")
    m, shards = read_shards(run / "out.manifest.json")  # every listed shard is complete
    assert not m["complete"] and len(shards) >= 1
    # Anything else under a final name is complete too: a kill between a
    # shard's rename and the manifest update leaves that shard unlisted, and
    # --resume writes it again, identically.
    reference = tree(ref)
    for p in run.iterdir():
        if not p.name.endswith(".tmp") and p.name != "out.manifest.json":
            assert p.read_bytes() == reference[p.name], p.name

    r = run_module(*cmd, "-o", str(run / "out.npz"), "--resume")
    assert r.returncode == 0, r.stderr.decode()
    assert tree(run) == tree(ref)


def _mismatch(tmp_path, change):
    src = _lines_file(tmp_path)
    cmd = ["encode", str(src), "--lines", "--shard-size", str(SHARD), "-q", "-o", str(tmp_path / "o.npz")]
    real = _cli_shards.ShardSet._close

    def failing(self, cursor):
        if len(self.done) == 1:
            raise KeyboardInterrupt
        real(self, cursor)

    return src, cmd, failing


@pytest.mark.parametrize("change,expected", [
    ("input grew", ["input 1", "size"]),
    ("dtype", ["output dtype", "'uint32' in the manifest, 'uint16' now"]),
    ("shard size", ["output shard_size"]),
    ("special tokens", ["options add_special_tokens"]),
    ("tokenizer", ["tokenizer", "contents differ"]),
    ("more inputs", ["inputs: 1 in the manifest, 2 now"]),
    ("shard deleted", ["o-00000.npz", "is missing"]),
])
def test_resume_refuses_a_different_command(tmp_path, monkeypatch, capsys, gpt2_path, change, expected):
    src, cmd, failing = _mismatch(tmp_path, change)
    monkeypatch.setattr(_cli_shards.ShardSet, "_close", failing)
    assert cli.main(cmd) == 130
    monkeypatch.undo()
    extra = []
    if change == "input grew":
        with open(src, "ab") as f:
            f.write(b"one more line\n")
    elif change == "dtype":
        extra = ["--dtype", "uint16"]
    elif change == "shard size":
        cmd[cmd.index("--shard-size") + 1] = "5000"
    elif change == "special tokens":
        extra = ["--no-special-tokens"]
    elif change == "tokenizer":
        spec = json.loads(gpt2_path.read_text())
        spec["added_tokens"] = spec["added_tokens"] + [dict(spec["added_tokens"][0], id=50257,
                                                            content="<|extra|>")]
        gpt2_path.write_text(json.dumps(spec))
        extra = ["--tokenizer", str(gpt2_path)]
    elif change == "more inputs":
        cmd.insert(2, str(src))
    elif change == "shard deleted":
        (tmp_path / "o-00000.npz").unlink()
    capsys.readouterr()
    before = tree(tmp_path)
    assert cli.main([*cmd, *extra, "--resume"]) == 2
    err = capsys.readouterr().err
    for text in expected:
        assert text in err, (text, err)
    assert tree(tmp_path) == before


def test_resume_without_a_manifest(tmp_path, capsys):
    src = _lines_file(tmp_path)
    assert cli.main(["encode", str(src), "--lines", "-o", str(tmp_path / "o.npz"), "--shard-size", "9",
                     "--resume"]) == 2
    assert "nothing to resume" in capsys.readouterr().err


def test_resume_of_a_finished_run_changes_nothing(tmp_path, capsys):
    src = _lines_file(tmp_path)
    cmd = ["encode", str(src), "--lines", "-o", str(tmp_path / "o.bin"), "--shard-size", str(SHARD)]
    assert cli.main([*cmd, "-q"]) == 0
    before = tree(tmp_path)
    assert cli.main([*cmd, "--resume"]) == 0
    out = capsys.readouterr().out
    assert tree(tmp_path) == before
    m, _ = read_shards(tmp_path / "o.manifest.json")
    assert f"documents  {m['documents']:,}" in out and "resumed    after" in out


def test_failure_in_an_unsharded_run_leaves_the_old_output(tmp_path, monkeypatch):
    src = _lines_file(tmp_path)
    out = tmp_path / "keep.npz"
    out.write_bytes(b"previous contents")

    def broken(self, ids):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_cli_shards.NpzShard, "_write_ids", broken)
    assert cli.main(["encode", str(src), "--lines", "-o", str(out), "-q"]) == 1
    assert out.read_bytes() == b"previous contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.npz", "lines.txt"]


# --------------------------------------------------------------------------
# Progress and summary.


class _FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_tqdm_progress_on_a_terminal():
    pytest.importorskip("tqdm")
    stream = _FakeTerminal()
    progress = cli.progress.make_progress(1000, None, stream)
    assert isinstance(progress, cli.progress.TqdmProgress)
    progress.update(500, 123, force=True)
    progress.update(1000, 456, force=True)
    progress.close()
    text = stream.getvalue()
    assert RATE.search(text) and "tokens/s" in text and "456 tokens" in text


def test_plain_progress_without_tqdm(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    stream = _FakeTerminal()
    progress = cli.progress.make_progress(None, None, stream)
    assert isinstance(progress, cli.progress.Progress)
    progress.update(2_000_000, 500, force=True)
    assert RATE.search(stream.getvalue()) and "tokens/s" in stream.getvalue()
    assert cli.progress.make_progress(10, None, io.StringIO()) is None  # small, not a terminal
    assert isinstance(cli.progress.make_progress(10, True, io.StringIO()), cli.progress.Progress)


def test_summary(tmp_path, capsys):
    src = _lines_file(tmp_path)
    out = tmp_path / "s.bin"
    assert cli.main(["encode", str(src), "--lines", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    ids, offsets = load_memmap(out)
    for piece in (f"documents  {len(offsets) - 1:,}", f"tokens     {len(ids):,} (uint32)",
                  "tokens/s", f"output     {out} + {tmp_path / 's.idx.npy'}"):
        assert piece in text, (piece, text)
    assert RATE.search(text), text


def test_failure_while_closing_a_shard_removes_its_temporary_files(tmp_path, monkeypatch, capsys):
    src = _lines_file(tmp_path)

    def no_space(tmp, final):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_cli_shards, "publish", no_space)
    monkeypatch.setattr(_cli_writers, "publish", no_space)
    for args in (["-o", str(tmp_path / "a.npz"), "--shard-size", str(SHARD)],
                 ["-o", str(tmp_path / "b.bin")], ["-o", str(tmp_path / "c.npz"), "--compress"],
                 ["-o", str(tmp_path / "d"), "--format", "megatron"], ["-o", str(tmp_path / "e.ds")],
                 ["-o", str(tmp_path / "f.bin"), "--format", "llmc"], ["-o", str(tmp_path / "g.parquet")]):
        assert cli.main(["encode", str(src), "--lines", "-q", *args]) == 1
        assert "No space left" in capsys.readouterr().err
        assert sorted(p.name for p in tmp_path.iterdir()) == ["lines.txt"]


@needs_document_encoder
def test_engine_refusing_a_streamed_document_is_bad_input(tmp_path, monkeypatch, capsys):
    """Should the engine reject bytes the reader let through, the message
    names the input (exit 2), not a tokenizer failure."""
    import snaptok

    real = cli.loading.load_tokenizer

    class Refusing:
        def __init__(self, tok):
            self._tok = tok

        def __getattr__(self, name):
            return getattr(self._tok, name)

        def document_encoder(self, **kwargs):
            class Enc:
                def feed(self, chunk):
                    return np.zeros(0, np.uint32)

                def finish(self):
                    raise snaptok.SnaptokError("invalid UTF-8 at byte 12345")
            return Enc()

    monkeypatch.setattr(cli.loading, "load_tokenizer", lambda spec: (Refusing(real(spec)[0]), *real(spec)[1:]))
    src = tmp_path / "big.txt"
    src.write_text(sample_text(), encoding="utf-8")
    assert cli.main(["encode", str(src), "-o", str(tmp_path / "o.npz"), "--batch-bytes", "4K"]) == 2
    err = capsys.readouterr().err
    assert f"{src}: invalid UTF-8 at byte 12345" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt"]
