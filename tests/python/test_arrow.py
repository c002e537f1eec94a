"""Tokenizer.encode_to_arrow: rows equal HF's ids for every input form (a list
of str, pyarrow string/large_string/binary arrays, slices, chunked columns
read from Parquet), the result shares encode_to_numpy's buffers (pyarrow
allocates nothing), and nulls, wrong types and invalid UTF-8 are errors that
name the row."""

from pathlib import Path

import numpy as np
import pytest

import snaptok

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
hf_tokenizers = pytest.importorskip("tokenizers")

DATA = Path(__file__).resolve().parents[1] / "data"
GPT2 = DATA / "gpt2" / "tokenizer.json"
T5 = DATA / "spm-botchan-unigram-1000-t5" / "tokenizer.json"
TEXTS = ["Hello world", "", "  spaces  and\ttabs\n", "naïve café 東京 👩‍👩‍👧", "x" * 5000,
         "They'll've 1234567 <|endoftext|> done"] * 7


@pytest.fixture(scope="module", params=[GPT2, T5], ids=["gpt2", "t5"])
def pair(request):
    return snaptok.Tokenizer.from_file(str(request.param)), hf_tokenizers.Tokenizer.from_file(str(request.param))


def _want(hf, texts, add_special_tokens=True):
    return [e.ids for e in hf.encode_batch(list(texts), add_special_tokens=add_special_tokens)]


@pytest.mark.parametrize("form", ["list", "string", "large_string", "binary", "large_binary", "chunked",
                                  "slice"])
def test_rows_equal_hf_for_every_input_form(pair, form):
    tok, hf = pair
    texts = TEXTS
    if form == "list":
        arg = texts
    elif form in ("binary", "large_binary"):
        arg = pa.array([t.encode() for t in texts], getattr(pa, form)())
    elif form == "chunked":
        arg = pa.chunked_array([pa.array(texts[:5], pa.large_string()), pa.array([], pa.large_string()),
                                pa.array(texts[5:], pa.large_string())])
    elif form == "slice":
        arg = pa.array(["before"] + texts + ["after"]).slice(1, len(texts))
    else:
        arg = pa.array(texts, getattr(pa, form)())
    out = tok.encode_to_arrow(arg, num_threads=2)
    assert out.type == pa.large_list(pa.uint32())
    assert out.to_pylist() == _want(hf, texts)
    assert tok.encode_to_arrow(arg, add_special_tokens=False).to_pylist() == _want(hf, texts, False)


def test_a_parquet_column_goes_in_and_out(tmp_path, pair):
    tok, hf = pair
    table = pa.table({"text": TEXTS, "id": list(range(len(TEXTS)))})
    pq.write_table(table, tmp_path / "in.parquet", row_group_size=5)
    column = pq.read_table(tmp_path / "in.parquet").column("text")
    assert column.num_chunks > 1
    ids = tok.encode_to_arrow(column)
    pq.write_table(pa.table({"input_ids": ids}), tmp_path / "out.parquet")
    assert pq.read_table(tmp_path / "out.parquet").column("input_ids").to_pylist() == _want(hf, TEXTS)


def test_the_result_shares_encode_to_numpys_buffers(pair):
    tok, _ = pair
    texts = pa.array([f"document number {i} with some words" for i in range(20000)])
    before = pa.total_allocated_bytes()
    out = tok.encode_to_arrow(texts)
    assert pa.total_allocated_bytes() == before  # nothing copied into pyarrow's pool
    ids, offsets = tok.encode_to_numpy(texts.to_pylist())
    assert np.array_equal(out.values.to_numpy(), ids)
    assert np.array_equal(out.offsets.to_numpy(), offsets)
    del texts
    assert out[-1].as_py() == ids[offsets[-2]:].tolist()  # the buffers outlive the call's inputs


def test_errors_name_the_row(pair):
    tok, _ = pair
    with pytest.raises(ValueError, match=r"texts\[3\] is null"):
        tok.encode_to_arrow(pa.chunked_array([pa.array(["a", "b"]), pa.array(["c", None])]))
    with pytest.raises(TypeError, match="expected a pyarrow array of string.*got int64"):
        tok.encode_to_arrow(pa.array([1, 2]))
    with pytest.raises(snaptok.SnaptokError, match=r"texts\[1\]: invalid UTF-8 at byte 2"):
        tok.encode_to_arrow(pa.array([b"ok", b"ab\xff"], pa.binary()))
    assert tok.encode_to_arrow(pa.array([], pa.string())).to_pylist() == []
