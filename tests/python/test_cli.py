"""Tests of the ``snaptok encode`` command line (the snaptok.cli package): options,
document modes, errors. Input kinds and streaming: test_cli_inputs.py;
formats, shards and resume: test_cli_output.py; helpers: cli_helpers.py.

The CLI is run both in a subprocess (``python -m snaptok``) and in-process
through ``snaptok.cli.main``. Every written .npz is checked id by id against
the pinned Hugging Face ``tokenizers`` on the same documents. Inputs are made
in tmp_path; the only data used is what the package bundles.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

hf = pytest.importorskip("tokenizers")

from cli_helpers import (MIXED_LINES, RATE, SAMPLE, assert_matches_hf, load_npz, run_module,  # noqa: E402
                         write_jsonl, write_lines)
from cli_helpers import big_vocab_tokenizer, gpt2_path, template_tokenizer  # noqa: E402,F401 (fixtures)
from snaptok import cli  # noqa: E402


# --------------------------------------------------------------------------
# Runs through `python -m snaptok`.


def test_version_subprocess():
    r = run_module("--version")
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    assert out.startswith("snaptok ")
    assert len(out.split()) == 2


def test_encode_help_subprocess():
    r = run_module("encode", "--help")
    assert r.returncode == 0, r.stderr
    text = r.stdout.decode()
    for word in ("--lines", "--jsonl", "--field", "--dtype", "--no-special-tokens",
                 "--threads", "--batch-bytes", "--tokenizer", "gpt2"):
        assert word in text


def test_no_command_is_a_usage_error():
    r = run_module()
    assert r.returncode == 2
    assert b"encode" in r.stderr


def test_default_builtin_on_bundled_sample(tmp_path):
    out = tmp_path / "sample.npz"
    r = run_module("encode", "-o", str(out))
    assert r.returncode == 0, r.stderr.decode()
    summary = r.stdout.decode()
    assert str(out) in summary
    assert "tokens" in summary and RATE.search(summary)
    ids, offsets = load_npz(out)
    assert ids.dtype == np.uint32 and offsets.dtype == np.int64
    assert offsets.tolist() == [0, len(ids)]
    text = SAMPLE.read_text(encoding="utf-8")
    assert 200_000 <= len(text.encode("utf-8")) <= 500_000
    assert_matches_hf(out, [text])
    assert f"{len(ids):,}" in summary


def test_missing_file_subprocess_exit_2(tmp_path):
    out = tmp_path / "x.npz"
    missing = tmp_path / "nope.txt"
    r = run_module("encode", str(missing), "-o", str(out))
    assert r.returncode == 2
    err = r.stderr.decode()
    assert str(missing) in err and "no such file" in err
    assert not out.exists()


def test_stdin_lines_subprocess(tmp_path):
    out = tmp_path / "stdin.npz"
    data = "\n".join(MIXED_LINES).encode("utf-8")
    r = run_module("encode", "-", "--lines", "-o", str(out), stdin=data)
    assert r.returncode == 0, r.stderr.decode()
    assert_matches_hf(out, MIXED_LINES)


# --------------------------------------------------------------------------
# Runs through cli.main().


def test_lines_mode_crlf_empty_lines_and_small_batches(tmp_path):
    src = write_lines(tmp_path / "mixed.txt", MIXED_LINES, newline="\r\n", final_newline=False)
    out = tmp_path / "lines.npz"
    # A tiny batch size forces many encode_to_numpy calls and offset stitching.
    rc = cli.main(["encode", str(src), "--lines", "-o", str(out), "--batch-bytes", "40",
                   "--threads", "1", "-q"])
    assert rc == 0
    assert_matches_hf(out, MIXED_LINES)


def test_lines_mode_batching_does_not_change_ids(tmp_path):
    text = SAMPLE.read_text(encoding="utf-8")
    src = tmp_path / "sample.txt"
    src.write_text(text, encoding="utf-8")
    whole, small = tmp_path / "whole.npz", tmp_path / "small.npz"
    assert cli.main(["encode", str(src), "--lines", "-o", str(whole), "-q"]) == 0
    assert cli.main(["encode", str(src), "--lines", "-o", str(small), "-q",
                     "--batch-bytes", "3K", "--threads", "2"]) == 0
    a, b = load_npz(whole), load_npz(small)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert_matches_hf(whole, text.split("\n")[:-1])


def test_lines_skip_empty(tmp_path):
    src = write_lines(tmp_path / "gaps.txt", ["one", "", "two", "", "", "three"])
    out = tmp_path / "gaps.npz"
    assert cli.main(["encode", str(src), "--lines", "--skip-empty", "-o", str(out), "-q"]) == 0
    assert_matches_hf(out, ["one", "two", "three"])


def test_one_document_per_file(tmp_path):
    docs = ["first file\nwith two lines\n", "", "third 👋 file"]
    paths = []
    for i, d in enumerate(docs):
        p = tmp_path / f"doc{i}.txt"
        p.write_bytes(d.encode("utf-8"))
        paths.append(str(p))
    out = tmp_path / "files.npz"
    assert cli.main(["encode", *paths, "-o", str(out), "-q"]) == 0
    assert_matches_hf(out, docs)


def test_empty_file_in_lines_mode_has_no_documents(tmp_path):
    src = tmp_path / "empty.txt"
    src.write_bytes(b"")
    out = tmp_path / "empty.npz"
    assert cli.main(["encode", str(src), "--lines", "-o", str(out), "-q"]) == 0
    ids, offsets = load_npz(out)
    assert ids.size == 0 and offsets.tolist() == [0]


def test_only_empty_lines_skipped_gives_no_documents(tmp_path):
    src = tmp_path / "blank.txt"
    src.write_bytes(b"\n\r\n\n")
    out = tmp_path / "blank.npz"
    assert cli.main(["encode", str(src), "--lines", "--skip-empty", "-o", str(out), "-q"]) == 0
    ids, offsets = load_npz(out)
    assert ids.size == 0 and offsets.tolist() == [0]


@pytest.mark.parametrize("batch_bytes", [1, 5, 7, 20, 1000])
def test_batching_keeps_order_and_accounts_every_byte(batch_bytes):
    from snaptok.cli.inputs import Batch, Docs, StreamChunk, StreamEnd, StreamStart, batches

    def docs(items, consumed):
        n = len(items)
        return Docs(items, 0, list(range(1, n + 1)), [1] * n, consumed, sum(map(len, items)))

    events = [docs([b"ab", b"", b"cdef"], 9), docs([], 3), docs([b"g" * 11, b"hi"], 15),
              StreamStart("big"), StreamChunk(b"x" * 30, 30), StreamEnd(None, 0), docs([b"j"], 2)]
    out = list(batches(iter(events), batch_bytes))
    got = [d for b in out if isinstance(b, Batch) for d in b.documents()]
    assert got == [b"ab", b"", b"cdef", b"g" * 11, b"hi", b"j"]
    assert sum(b.consumed for b in out) == 59
    # A stream flushes the batch before it and keeps its place.
    kinds = [type(b).__name__ for b in out]
    assert kinds[kinds.index("StreamStart") - 1] == "Batch"
    assert kinds[kinds.index("StreamEnd") + 1] == "Batch"
    flushed = out[kinds.index("StreamStart") - 1]
    for b in out:
        if isinstance(b, Batch) and b is not flushed and b is not out[-1]:
            assert b.text_bytes >= batch_bytes


def test_jsonl_with_field(tmp_path):
    records = [
        {"id": 1, "content": MIXED_LINES[0], "text": "not this one"},
        {"content": MIXED_LINES[3], "meta": {"k": [1, 2]}},
        {"content": ""},
        {"content": "escapes \u00e9 \U0001F600 \n newline inside\t tab"},
        {"content": MIXED_LINES[4]},
    ]
    # Blank lines between records are skipped.
    src = write_jsonl(tmp_path / "data.jsonl", records[:2], raw_lines=["", "   "])
    with open(src, "ab") as f:
        f.write(("\n".join(json.dumps(r) for r in records[2:]) + "\n").encode())
    out = tmp_path / "jsonl.npz"
    assert cli.main(["encode", str(src), "--field", "content", "-o", str(out), "-q",
                     "--batch-bytes", "50"]) == 0
    assert_matches_hf(out, [r["content"] for r in records])


def test_jsonl_default_field_and_flag_on_other_extension(tmp_path):
    records = [{"text": line} for line in MIXED_LINES]
    src = write_jsonl(tmp_path / "data.json-lines", records)
    out = tmp_path / "flag.npz"
    assert cli.main(["encode", str(src), "--jsonl", "-o", str(out), "-q"]) == 0
    assert_matches_hf(out, MIXED_LINES)


def test_jsonl_with_byte_order_mark(tmp_path):
    src = tmp_path / "bom.jsonl"
    src.write_bytes(b"\xef\xbb\xbf" + json.dumps({"text": "with a BOM"}).encode() + b"\n")
    out = tmp_path / "bom.npz"
    assert cli.main(["encode", str(src), "-o", str(out), "-q"]) == 0
    assert_matches_hf(out, ["with a BOM"])


def test_uint16_output(tmp_path):
    src = write_lines(tmp_path / "u16.txt", MIXED_LINES)
    out = tmp_path / "u16.npz"
    assert cli.main(["encode", str(src), "--lines", "--dtype", "uint16", "-o", str(out), "-q"]) == 0
    assert_matches_hf(out, MIXED_LINES, dtype=np.uint16)


def test_uint16_refused_for_large_vocabulary(tmp_path, capsys, big_vocab_tokenizer):
    src = write_lines(tmp_path / "words.txt", ["unreachable69999 is plain text"])
    out = tmp_path / "big.npz"
    rc = cli.main(["encode", str(src), "--tokenizer", str(big_vocab_tokenizer),
                   "--dtype", "uint16", "-o", str(out)])
    assert rc == 2
    err = capsys.readouterr().err
    assert "uint16" in err and "70,000" in err
    assert not out.exists()
    # uint32 works for the same tokenizer and gives HF's ids.
    assert cli.main(["encode", str(src), "--lines", "--tokenizer", str(big_vocab_tokenizer),
                     "-o", str(out), "-q"]) == 0
    assert_matches_hf(out, ["unreachable69999 is plain text"], tokenizer=big_vocab_tokenizer)


@pytest.mark.parametrize("add_special", [True, False])
def test_special_tokens_choice(tmp_path, template_tokenizer, add_special):
    src = write_lines(tmp_path / "s.txt", MIXED_LINES[:4])
    out = tmp_path / "special.npz"
    args = ["encode", str(src), "--lines", "--tokenizer", str(template_tokenizer), "-o", str(out), "-q"]
    if not add_special:
        args.append("--no-special-tokens")
    assert cli.main(args) == 0
    assert_matches_hf(out, MIXED_LINES[:4], tokenizer=template_tokenizer,
                      add_special_tokens=add_special)
    ids, offsets = load_npz(out)
    first = ids[offsets[0] : offsets[1]].tolist()
    assert (first[0] == 50256 and first[-1] == 50256) == add_special


def test_tokenizer_given_as_path_and_directory(tmp_path, gpt2_path):
    d = tmp_path / "tokdir"
    d.mkdir()
    (d / "tokenizer.json").write_bytes(gpt2_path.read_bytes())
    src = write_lines(tmp_path / "t.txt", MIXED_LINES)
    for spec in (str(gpt2_path), str(d), "gpt2"):
        out = tmp_path / "t.npz"
        assert cli.main(["encode", str(src), "--lines", "--tokenizer", spec, "-o", str(out), "-q"]) == 0
        assert_matches_hf(out, MIXED_LINES)


def test_progress_and_summary(tmp_path, capsys):
    src = write_lines(tmp_path / "p.txt", MIXED_LINES * 50)
    out = tmp_path / "p.npz"
    assert cli.main(["encode", str(src), "--lines", "--progress", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert RATE.search(captured.err) and "tokens" in captured.err
    assert f"documents  {len(MIXED_LINES) * 50:,}" in captured.out
    assert str(out) in captured.out
    assert cli.main(["encode", str(src), "--lines", "-q", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_compressed_output(tmp_path):
    src = write_lines(tmp_path / "c.txt", MIXED_LINES)
    out = tmp_path / "c.npz"
    assert cli.main(["encode", str(src), "--lines", "--compress", "-o", str(out), "-q"]) == 0
    assert_matches_hf(out, MIXED_LINES)


def test_existing_output_replaced_only_on_success(tmp_path):
    out = tmp_path / "keep.npz"
    out.write_bytes(b"previous contents")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"text": "ok"}\n{"text": 3}\n')
    assert cli.main(["encode", str(bad), "-o", str(out), "-q"]) == 2
    assert out.read_bytes() == b"previous contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "keep.npz"]
    good = write_lines(tmp_path / "good.txt", ["fine"])
    assert cli.main(["encode", str(good), "--lines", "-o", str(out), "-q"]) == 0
    assert_matches_hf(out, ["fine"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "good.txt", "keep.npz"]


# --------------------------------------------------------------------------
# Bad input: exit status 2, a message naming the file (and line), no output.


def _bad_utf8_plain(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"line one\nline two \xff here\n")
    return [str(p)], [str(p), ":2:", "invalid UTF-8", "byte offset 18"]


def _bad_utf8_lines(tmp_path):
    p = tmp_path / "bad_lines.txt"
    p.write_bytes(b"ok\nalso ok\n\xc3\x28 broken\n")
    return [str(p), "--lines"], [str(p), ":3:", "invalid UTF-8", "byte offset 11"]


def _bad_utf8_jsonl(tmp_path):
    p = tmp_path / "bad_utf8.jsonl"
    p.write_bytes(b'{"text": "ok"}\n{"text": "bad \xe2\x82 seq"}\n')
    return [str(p)], [str(p), ":2:", "invalid UTF-8"]


def _invalid_json(tmp_path):
    p = tmp_path / "broken.jsonl"
    p.write_bytes(b'{"text": "ok"}\n{"text": "ok"}\n{"text": "unterminated}\n')
    return [str(p)], [str(p), ":3:", "invalid JSON"]


def _missing_field(tmp_path):
    p = tmp_path / "nofield.jsonl"
    p.write_bytes(b'{"text": "ok"}\n{"body": "wrong key"}\n')
    return [str(p)], [str(p), ":2:", "missing field 'text'", "'body'"]


def _missing_custom_field(tmp_path):
    p = tmp_path / "custom.jsonl"
    p.write_bytes(b'{"content": "ok"}\n{"text": "no content"}\n')
    return [str(p), "--field", "content"], [str(p), ":2:", "missing field 'content'"]


def _field_not_string(tmp_path):
    p = tmp_path / "number.jsonl"
    p.write_bytes(b'{"text": "ok"}\n{"text": 42}\n')
    return [str(p)], [str(p), ":2:", "'text' is a number", "expected a string"]


def _field_null(tmp_path):
    p = tmp_path / "null.jsonl"
    p.write_bytes(b'{"text": null}\n')
    return [str(p)], [str(p), ":1:", "'text' is null"]


def _not_an_object(tmp_path):
    p = tmp_path / "array.jsonl"
    p.write_bytes(b'["text", "in an array"]\n')
    return [str(p)], [str(p), ":1:", "expected a JSON object", "an array"]


def _lone_surrogate(tmp_path):
    p = tmp_path / "surrogate.jsonl"
    p.write_bytes(b'{"text": "fine"}\n{"text": "half \\ud800 pair"}\n')
    return [str(p)], [str(p), ":2:", "surrogate"]


def _missing_file(tmp_path):
    p = tmp_path / "absent.txt"
    return [str(p)], [str(p), "no such file"]


def _missing_second_file(tmp_path):
    ok = write_lines(tmp_path / "ok.txt", ["fine"])
    p = tmp_path / "absent2.txt"
    return [str(ok), str(p)], [str(p), "no such file"]


def _directory_input(tmp_path):
    d = tmp_path / "adir"
    d.mkdir()
    return [str(d)], [str(d), "is a directory"]


def _unknown_tokenizer(tmp_path):
    ok = write_lines(tmp_path / "ok.txt", ["fine"])
    return [str(ok), "--tokenizer", "no-such-tokenizer"], ["no-such-tokenizer", "gpt2"]


def _broken_tokenizer_file(tmp_path):
    ok = write_lines(tmp_path / "ok.txt", ["fine"])
    t = tmp_path / "broken-tokenizer.json"
    t.write_text('{"model": ', encoding="utf-8")
    return [str(ok), "--tokenizer", str(t)], [str(t), "cannot load tokenizer"]


def _missing_output_dir(tmp_path):
    ok = write_lines(tmp_path / "ok.txt", ["fine"])
    return [str(ok), "-o", str(tmp_path / "no" / "such" / "dir" / "out.npz")], ["does not exist"]


BAD_INPUTS = [
    _bad_utf8_plain, _bad_utf8_lines, _bad_utf8_jsonl, _invalid_json, _missing_field,
    _missing_custom_field, _field_not_string, _field_null, _not_an_object, _lone_surrogate,
    _missing_file, _missing_second_file, _directory_input, _unknown_tokenizer,
    _broken_tokenizer_file, _missing_output_dir,
]


@pytest.mark.parametrize("case", BAD_INPUTS, ids=lambda f: f.__name__.strip("_"))
def test_bad_input_exits_2_with_a_clear_message(tmp_path, capsys, case):
    args, expected = case(tmp_path)
    out = tmp_path / "out.npz"
    if "-o" not in args:
        args = args + ["-o", str(out)]
    before = set(tmp_path.iterdir())
    rc = cli.main(["encode", *args])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.startswith("snaptok: error: ")
    for text in expected:
        assert text in err, f"{text!r} not in {err!r}"
    assert set(tmp_path.iterdir()) == before  # no output, no temporary file left


@pytest.mark.parametrize("args", [
    ["--dtype", "int8"], ["--threads", "-1"], ["--batch-bytes", "lots"], ["--batch-bytes", "0"],
])
def test_bad_options_are_usage_errors(tmp_path, capsys, args):
    rc = cli.main(["encode", "-o", str(tmp_path / "o.npz"), *args])
    assert rc == 2
    assert "usage:" in capsys.readouterr().err


def test_batch_bytes_accepts_units():
    assert cli.args.parse_size("16M") == 16 << 20
    assert cli.args.parse_size("512k") == 512 << 10
    assert cli.args.parse_size("1GiB") == 1 << 30
    assert cli.args.parse_size("4096") == 4096
    assert cli.args.parse_size("2MB") == 2 << 20


def test_sizes_and_rates_are_printed_in_a_unit_that_suits_them():
    assert cli.progress.fmt_bytes(0) == "0 B"
    assert cli.progress.fmt_bytes(512) == "512 B"
    assert cli.progress.fmt_bytes(12_345) == "12.3 kB"
    assert cli.progress.fmt_bytes(4_500_000) == "4.5 MB"
    assert cli.progress.fmt_bytes(1_234_567_890_123) == "1,234.6 GB"
    assert cli.progress.fmt_rate(2_000) == "2.0 kB/s"
