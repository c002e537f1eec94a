"""snaptok in Apache Spark: ``tokenize_batches``, a function for
``DataFrame.mapInArrow`` that encodes each Arrow batch's text column in
place (``Tokenizer.encode_to_arrow``) into an ``array<int>`` column, and
``tokenize``, which applies it to a DataFrame with the right schema.

The tokenizer travels in the function as its ``.st`` bytes and is loaded
once per Python worker (about a millisecond). Spark has no unsigned
integers, so ids are ``int`` (``list<int32>`` in Arrow), which holds every
vocabulary. Needs pyspark and a Java 17 runtime (``pip install
'snaptok[spark]'``).

Example::

    from pyspark.sql import SparkSession
    import snaptok, snaptok.spark

    spark = SparkSession.builder.getOrCreate()
    df = spark.read.parquet("docs/")
    tok = snaptok.Tokenizer.from_file("tokenizer.json")
    snaptok.spark.tokenize(df, tok, append_eos="<|endoftext|>").write.parquet("tokenized/")
"""

from __future__ import annotations

import hashlib
from typing import Callable, Iterator, Optional

from snaptok.batches import Tokenize, load_tokenizer

__all__ = ["tokenize_batches", "tokenize"]

# Tokenizers loaded in this (worker) process, by the SHA-256 of their .st bytes.
_loaded: dict = {}


def tokenize_batches(tokenizer, *, text_column: str = "text", output_column: str = "input_ids",
                     add_special_tokens: bool = True, append_eos: Optional[str] = None,
                     keep_text: bool = False, num_threads: int = 1) -> Callable[[Iterator], Iterator]:
    """Returns a function for ``DataFrame.mapInArrow``: each pyarrow RecordBatch
    out has the batch's columns, ``text_column`` dropped unless ``keep_text``,
    and ``output_column`` with the ids as ``list<int32>`` (Spark's
    ``array<int>``); arguments as ``snaptok.ray.Tokenize``.

        >>> import pyarrow as pa
        >>> fn = tokenize_batches(tok, append_eos="<|endoftext|>")
        >>> [b.to_pydict() for b in fn(iter([pa.record_batch({"text": ["Hi"], "n": [1]})]))]
        [{'n': [1], 'input_ids': [[17250, 50256]]}]
    """
    st = load_tokenizer(tokenizer).to_st_bytes()
    key = hashlib.sha256(st).hexdigest()
    options = dict(text_column=text_column, output_column=output_column, add_special_tokens=add_special_tokens,
                   append_eos=append_eos, int32=True, keep_text=keep_text, num_threads=num_threads)

    def encode(batches: Iterator) -> Iterator:
        step = _loaded.get(key)
        if step is None:
            step = _loaded[key] = Tokenize(st, **options)
        for batch in batches:
            yield from step(batch).to_batches()

    return encode


def tokenize(df, tokenizer, *, text_column: str = "text", output_column: str = "input_ids",
             add_special_tokens: bool = True, append_eos: Optional[str] = None, keep_text: bool = False,
             num_threads: int = 1):
    """Returns ``df`` with ``output_column`` (``array<int>``) holding the ids of
    ``text_column`` (dropped unless ``keep_text``), through ``mapInArrow``.

        >>> tokenize(spark.createDataFrame([("Hi",)], ["text"]), tok).collect()  # doctest: +SKIP
        [Row(input_ids=[17250])]
    """
    from pyspark.sql.types import ArrayType, IntegerType, StructField, StructType

    if text_column not in df.columns:
        raise KeyError(f"no column {text_column!r} in the DataFrame (columns: {df.columns})")
    fields = [f for f in df.schema.fields if keep_text or f.name != text_column]
    schema = StructType(fields + [StructField(output_column, ArrayType(IntegerType(), containsNull=False), False)])
    fn = tokenize_batches(tokenizer, text_column=text_column, output_column=output_column,
                          add_special_tokens=add_special_tokens, append_eos=append_eos, keep_text=keep_text,
                          num_threads=num_threads)
    return df.mapInArrow(fn, schema)
