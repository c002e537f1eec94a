"""``snaptok encode`` input kinds: plain text, --lines, JSON Lines and Parquet,
gzip and zstandard, standard input, and documents larger than --batch-bytes
streamed through Tokenizer.document_encoder in bounded blocks.

Every output is checked id by id against HF ``tokenizers``. Inputs are made
in tmp_path from the bundled sample; zstandard and pyarrow tests are
skipped when those packages are missing.
"""

from __future__ import annotations

import gzip
import json
import sys

import pytest

from cli_helpers import (MIXED_LINES, assert_docs_equal, assert_matches_hf, load_output,
                         needs_document_encoder, run_module, sample_lines, sample_text, split_docs,
                         write_lines)
from cli_helpers import gpt2_path, spy, template_tokenizer  # noqa: F401 (fixtures)
from snaptok import cli

SMALL_BLOCKS = ["--batch-bytes", "4K"]  # streams anything over 4 KiB, in 64 KiB blocks
BLOCK = 64 << 10


def _compress(data: bytes, kind: str) -> bytes:
    if kind == "gzip":
        return gzip.compress(data)
    if kind == "zstd":
        zstd = pytest.importorskip("zstandard")
        c = zstd.ZstdCompressor()
        # Several frames: a reader must not stop after the first.
        third = len(data) // 3
        return b"".join(c.compress(data[a:b]) for a, b in ((0, third), (third, 2 * third), (2 * third, None)))
    return data


SUFFIX = {"none": "", "gzip": ".gz", "zstd": ".zst"}


def _input(tmp_path, kind: str, comp: str):
    """Returns (path, extra args, documents) for one input kind."""
    text = sample_text()
    if kind == "text":
        docs, name, args, data = [text], "doc.txt", [], text.encode()
    elif kind == "lines":
        lines = MIXED_LINES + sample_lines()[:600]
        docs, name, args = lines, "lines.txt", ["--lines"]
        data = ("\r\n".join(lines[:20]) + "\r\n" + "\n".join(lines[20:])).encode()
    else:
        lines = sample_lines()[:800] + MIXED_LINES
        docs, name, args = lines, "docs.jsonl", []
        data = ("\n".join(json.dumps({"id": i, "text": t}, ensure_ascii=i % 2 == 0)
                          for i, t in enumerate(lines)) + "\n").encode()
    path = tmp_path / (name + SUFFIX[comp])
    path.write_bytes(_compress(data, comp))
    return path, args, docs


@needs_document_encoder
@pytest.mark.parametrize("comp", ["none", "gzip", "zstd"])
@pytest.mark.parametrize("kind", ["text", "lines", "jsonl"])
def test_every_kind_and_compression_matches_hf(tmp_path, kind, comp):
    path, args, docs = _input(tmp_path, kind, comp)
    out = tmp_path / "out.npz"
    assert cli.main(["encode", str(path), *args, "-o", str(out), "-q", *SMALL_BLOCKS]) == 0
    assert_matches_hf(out, docs)


@pytest.mark.parametrize("comp", ["gzip", "zstd"])
def test_stdin_compression_is_sniffed(tmp_path, comp):
    data = "\n".join(MIXED_LINES).encode()
    out = tmp_path / "stdin.bin"
    r = run_module("encode", "-", "--lines", "-o", str(out), "-q", stdin=_compress(data, comp))
    assert r.returncode == 0, r.stderr.decode()
    assert_matches_hf(out, MIXED_LINES)


@needs_document_encoder
def test_big_document_streams_in_bounded_blocks(tmp_path, spy):
    """A document larger than --batch-bytes goes through document_encoder in
    blocks of at most batch/4 (64 KiB here), never whole."""
    text = sample_text() * 2
    src = tmp_path / "big.txt"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "big.npz"
    assert cli.main(["encode", str(src), "-o", str(out), "-q", *SMALL_BLOCKS]) == 0
    feeds = spy[0].feeds
    assert spy[0].encoders == 1
    assert sum(feeds) == len(text.encode())
    assert max(feeds) <= BLOCK and len(feeds) >= len(text) // BLOCK
    assert_matches_hf(out, [text])


@needs_document_encoder
def test_small_and_big_documents_mixed(tmp_path, spy):
    """Small files are batched whole, big ones streamed; order is kept."""
    texts = ["small one", sample_text(), "", "another small 👋", sample_text()[:70_000]]
    paths = []
    for i, t in enumerate(texts):
        p = tmp_path / f"f{i}.txt"
        p.write_text(t, encoding="utf-8")
        paths.append(str(p))
    out = tmp_path / "mixed.npz"
    assert cli.main(["encode", *paths, "-o", str(out), "-q", *SMALL_BLOCKS]) == 0
    assert spy[0].encoders == 2
    assert_matches_hf(out, texts)


@needs_document_encoder
def test_multibyte_characters_cut_at_block_edges(tmp_path):
    # 1-, 2-, 3- and 4-byte characters in a pattern whose length is prime
    # to the block size, so block edges fall inside characters of each width.
    unit = "a é€ 😀 Ωmega, 東京 x😀é\n"
    text = unit * (3 * BLOCK // len(unit.encode()) + 7)
    src = tmp_path / "utf8.txt"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "utf8.npz"
    assert cli.main(["encode", str(src), "-o", str(out), "-q", *SMALL_BLOCKS]) == 0
    assert_matches_hf(out, [text])


@needs_document_encoder
def test_template_special_tokens_on_streamed_document(tmp_path, template_tokenizer):
    text = sample_text()
    src = tmp_path / "t.txt"
    src.write_text(text, encoding="utf-8")
    for special in (True, False):
        out = tmp_path / f"t{special}.npz"
        args = [] if special else ["--no-special-tokens"]
        assert cli.main(["encode", str(src), "-o", str(out), "-q", "--tokenizer",
                         str(template_tokenizer), *args, *SMALL_BLOCKS]) == 0
        assert_matches_hf(out, [text], tokenizer=template_tokenizer, add_special_tokens=special)


@needs_document_encoder
def test_long_line_in_lines_mode_is_streamed(tmp_path, spy):
    """--lines: a line longer than the threshold streams; a CR before its LF
    is dropped even when it ends a block; short lines around it are batched."""
    long1 = sample_text().replace("\n", " ")[:200_000]
    long1 = long1[: BLOCK - 1 - len("first\r\n")] + "\r" + long1[BLOCK - len("first\r\n"):]
    long2 = sample_text().replace("\n", "\t")[:150_000]
    lines = ["first", long1, "", "short", long2, "last"]
    raw = "first\r\n" + long1 + "\r\n\nshort\n" + long2 + "\r\nlast\r"
    src = tmp_path / "long.txt"
    src.write_bytes(raw.encode())
    out = tmp_path / "long.npz"
    assert cli.main(["encode", str(src), "--lines", "-o", str(out), "-q", *SMALL_BLOCKS]) == 0
    assert spy[0].encoders == 2
    assert max(spy[0].feeds) <= BLOCK + 1
    assert_matches_hf(out, lines)


@needs_document_encoder
@pytest.mark.parametrize("where", ["middle", "end"])
def test_invalid_utf8_in_a_streamed_document(tmp_path, capsys, where):
    head = sample_text().encode()
    if where == "middle":
        data = head + b"line with \xff inside\n" + head
        offset = len(head) + len(b"line with ")
        line = head.count(b"\n") + 1
        expect = [f":{line}:", f"byte offset {offset}", "column 11"]
    else:
        data = head + b"cut \xe2\x82"
        offset = len(head) + 4
        line = head.count(b"\n") + 1
        expect = [f":{line}:", f"byte offset {offset}", "unexpected end of data"]
    src = tmp_path / "bad.txt"
    src.write_bytes(data)
    out = tmp_path / "bad.npz"
    assert cli.main(["encode", str(src), "-o", str(out), *SMALL_BLOCKS]) == 2
    err = capsys.readouterr().err
    assert err.startswith("snaptok: error: ") and str(src) in err and "invalid UTF-8" in err
    for text in expect:
        assert text in err, (text, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt"]


@needs_document_encoder
def test_invalid_utf8_on_streamed_stdin(tmp_path):
    head = sample_text().encode()
    data = head + b"oops \xc3\x28\n"
    out = tmp_path / "x.npz"
    r = run_module("encode", "-", "-o", str(out), *SMALL_BLOCKS, stdin=data)
    assert r.returncode == 2
    err = r.stderr.decode()
    line = head.count(b"\n") + 1
    assert f"<stdin>:{line}:" in err and f"byte offset {len(head) + 5}" in err
    assert not out.exists()


def test_jsonl_edge_cases(tmp_path):
    lines = [
        '  {"text": "leading spaces"}',
        '{"text": "trailing spaces and CR"}  \r',
        '{"text": "nested", "meta": {"a": [1, {"b": null}]}}',
        '{"text": "escapes \\u00e9 \\ud83d\\ude00 \\n"}',
        '{"text": "non-ASCII é 東京"}',
        "\t",
        '{"text": ""}',
    ]
    src = tmp_path / "edge.jsonl"
    src.write_bytes(("\n".join(lines) + "\n").encode())
    docs = ["leading spaces", "trailing spaces and CR", "nested", "escapes \u00e9 \U0001F600 \n",
            "non-ASCII é 東京", ""]
    out = tmp_path / "edge.npz"
    assert cli.main(["encode", str(src), "-o", str(out), "-q"]) == 0
    assert_matches_hf(out, docs)
    assert cli.main(["encode", str(src), "-o", str(out), "-q", "--skip-empty"]) == 0
    assert_matches_hf(out, docs[:-1])


@pytest.mark.parametrize("line,expected", [
    ('{"text": "a"} {"text": "b"}', ["invalid JSON", "Extra data"]),
    ('{"text": "a"},', ["invalid JSON"]),
    ("[" * 100_000, ["invalid JSON"]),
    ('"just a string"', ["expected a JSON object", "a string"]),
])
def test_jsonl_errors_name_the_line(tmp_path, capsys, line, expected):
    src = tmp_path / "e.jsonl"
    src.write_bytes(b'{"text": "fine"}\n\n' + line.encode() + b"\n")
    assert cli.main(["encode", str(src), "-o", str(tmp_path / "e.npz")]) == 2
    err = capsys.readouterr().err
    assert f"{src}:3:" in err
    for text in expected:
        assert text in err


# --------------------------------------------------------------------------
# Parquet.


def _parquet(tmp_path, docs, name="t.parquet", column="body", typ=None, row_group_size=200):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({"id": pa.array(range(len(docs))), column: pa.array(docs, type=typ)})
    path = tmp_path / name
    pq.write_table(table, path, row_group_size=row_group_size)
    return path


@pytest.mark.parametrize("typ", ["string", "large_string", "binary"])
def test_parquet_column(tmp_path, typ):
    pa = pytest.importorskip("pyarrow")
    docs = MIXED_LINES + sample_lines()[:700]
    values = [d.encode() for d in docs] if typ == "binary" else docs
    path = _parquet(tmp_path, values, typ=getattr(pa, typ)())
    out = tmp_path / "pq.npz"
    assert cli.main(["encode", str(path), "--field", "body", "-o", str(out), "-q", *SMALL_BLOCKS]) == 0
    assert_matches_hf(out, docs)
    assert cli.main(["encode", str(path), "--field", "body", "--skip-empty", "-o", str(out), "-q"]) == 0
    assert_matches_hf(out, [d for d in docs if d])


def test_parquet_mixed_with_other_inputs(tmp_path):
    docs = sample_lines()[:50]
    path = _parquet(tmp_path, docs, column="text")
    other = write_lines(tmp_path / "a.txt", MIXED_LINES)
    out = tmp_path / "m.bin"
    assert cli.main(["encode", str(other), str(path), str(other), "--lines", "-o", str(out), "-q"]) == 0
    assert_matches_hf(out, MIXED_LINES + docs + MIXED_LINES)


@pytest.mark.parametrize("case", ["null", "no column", "not strings", "not parquet"])
def test_parquet_errors(tmp_path, capsys, case):
    pa = pytest.importorskip("pyarrow")
    if case == "null":
        path = _parquet(tmp_path, ["a", "b", None, "d"], row_group_size=2)
        expect = ["row 2", "'body' is null"]
    elif case == "no column":
        path = _parquet(tmp_path, ["a"])
        expect = ["no column 'text'", "'id'", "'body'"]
    elif case == "not strings":
        path = _parquet(tmp_path, [1, 2], typ=pa.int64())
        expect = ["column 'body' holds int64"]
    else:
        path = tmp_path / "fake.parquet"
        path.write_bytes(b"this is not parquet at all")
        expect = ["not a readable Parquet file"]
    args = ["--field", "body"] if case in ("null", "not strings") else []
    assert cli.main(["encode", str(path), *args, "-o", str(tmp_path / "p.npz")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err
    for text in expect:
        assert text in err, (text, err)


# --------------------------------------------------------------------------
# Optional packages missing, and broken compressed data.


@pytest.mark.parametrize("module,name,package", [
    ("zstandard", "a.txt.zst", "zstandard"),
    ("pyarrow.parquet", "a.parquet", "pyarrow"),
])
def test_missing_optional_package_is_a_clear_error(tmp_path, capsys, monkeypatch, module, name, package):
    path = tmp_path / name
    path.write_bytes(b"whatever")
    monkeypatch.setitem(sys.modules, module, None)  # import now raises ImportError
    assert cli.main(["encode", str(path), "-o", str(tmp_path / "o.npz")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and f"needs the '{package}' package" in err and "pip install" in err


@pytest.mark.parametrize("comp", ["gzip", "zstd"])
def test_truncated_compressed_input(tmp_path, capsys, comp):
    data = _compress(sample_text().encode(), comp)
    path = tmp_path / ("cut.txt" + SUFFIX[comp])
    path.write_bytes(data[:-20])
    assert cli.main(["encode", str(path), "--lines", "-o", str(tmp_path / "o.npz")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and ("truncated" in err or "ended before" in err)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_not_compressed_data_with_compressed_suffix(tmp_path, capsys):
    path = tmp_path / "plain.txt.gz"
    path.write_bytes(b"plain text, not gzip\n")
    assert cli.main(["encode", str(path), "-o", str(tmp_path / "o.npz")]) == 2
    assert "not valid gzip data" in capsys.readouterr().err


def test_utf8_error_in_lines_mode_across_chunks(tmp_path, capsys):
    """--lines reads 64 KiB chunks; a bad byte after many chunks keeps its
    absolute line number and byte offset."""
    good = ("x" * 99 + "\n").encode() * 3000
    src = tmp_path / "l.txt"
    src.write_bytes(good + b"ok \xe9 bad\n")
    assert cli.main(["encode", str(src), "--lines", "-o", str(tmp_path / "l.npz"), *SMALL_BLOCKS]) == 2
    err = capsys.readouterr().err
    assert f"{src}:3001:" in err and f"byte offset {len(good) + 3}" in err and "column 4" in err


def test_lines_results_do_not_depend_on_block_size(tmp_path):
    text = ("\r\n".join(sample_lines()[:300]) + "\n" + "\n".join(MIXED_LINES)).encode()
    src = tmp_path / "l.txt"
    src.write_bytes(text)
    results = []
    for batch in ("1", "4K", "16M"):
        out = tmp_path / f"l{batch}.npz"
        assert cli.main(["encode", str(src), "--lines", "-o", str(out), "-q", "--batch-bytes", batch]) == 0
        results.append(out.read_bytes())
    assert results[0] == results[1] == results[2]
    ids, offsets = load_output(tmp_path / "l1.npz")
    assert_docs_equal(split_docs(ids, offsets), sample_lines()[:300] + MIXED_LINES)
