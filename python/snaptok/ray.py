"""snaptok in Ray Data: ``Tokenize``, a callable class for
``Dataset.map_batches`` that loads the tokenizer once per actor and encodes
each block's text column in place (``Tokenizer.encode_to_arrow``: the
Arrow string buffer is read directly, the ids come back as a list column).

The tokenizer travels as its ``.st`` bytes (``Tokenizer.to_st_bytes()``,
loaded in about a millisecond), so the workers need neither the
tokenizer.json nor a shared file system. Needs ray (``pip install
'snaptok[ray]'``).

Example (one Parquet shard of ``input_ids`` per block; Parquet rows are
also what ``snaptok encode --format parquet`` writes)::

    import ray, snaptok
    from snaptok.ray import Tokenize

    tok = snaptok.Tokenizer.from_file("tokenizer.json")
    ds = ray.data.read_parquet("s3://bucket/docs/")
    ds = ds.map_batches(Tokenize, fn_constructor_kwargs={"tokenizer": tok.to_st_bytes()},
                        batch_format="pyarrow", concurrency=8)
    ds.write_parquet("s3://bucket/tokenized/")
"""

from snaptok.batches import Tokenize

__all__ = ["Tokenize"]
