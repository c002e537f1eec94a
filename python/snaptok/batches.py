"""Encoding Arrow batches and id arrays, shared by the engine integrations
(``snaptok.ray``, ``snaptok.spark``, ``snaptok.datatrove``) and the
``snaptok encode`` command: ``Tokenize`` (a pyarrow batch's text column into
a list column of ids), ``load_tokenizer`` (from ``.st`` bytes, a path or a
Tokenizer), ``with_eos`` and ``add_boundaries`` (EOS/BOS around rows).
"""

from __future__ import annotations

import os
from typing import Optional, Union

import numpy as np

import snaptok

__all__ = ["Tokenize", "add_boundaries", "load_tokenizer", "token_id", "with_eos"]


def load_tokenizer(tokenizer: Union[bytes, str, "snaptok.Tokenizer"]) -> "snaptok.Tokenizer":
    """A Tokenizer from itself, its ``.st`` bytes, or a tokenizer.json / .st path.

        >>> load_tokenizer(tok.to_st_bytes()).encode("Hi").ids
        [17250]
    """
    if isinstance(tokenizer, snaptok.Tokenizer):
        return tokenizer
    if isinstance(tokenizer, (bytes, bytearray, memoryview)):
        return snaptok.Tokenizer.from_buffer(bytes(tokenizer))
    if isinstance(tokenizer, (str, os.PathLike)):
        return snaptok.Tokenizer.from_file(os.fspath(tokenizer))
    raise TypeError(f"tokenizer: expected a snaptok.Tokenizer, .st bytes or a path, got {type(tokenizer).__name__}")


def token_id(tokenizer: "snaptok.Tokenizer", token: str, what: str, source: str = "the tokenizer") -> int:
    """The id of the token `token`; ValueError naming `what` and `source` when none has it.

        >>> token_id(tok, "<|endoftext|>", "append_eos")
        50256
    """
    found = tokenizer.token_to_id(token)
    if found is None:
        raise ValueError(f"{what}: {token!r} is not a token of {source}")
    return int(found)


class Tokenize:
    """Encodes the text column of each pyarrow batch into a list column of ids.

    ``tokenizer``: ``.st`` bytes (best: shipped once per actor), a path, or a
    Tokenizer. The batch keeps its other columns; ``text_column`` is dropped
    unless ``keep_text``. ``append_eos`` (a token such as "<|endoftext|>")
    ends every row with that token's id, after the post-processor's tokens
    (``add_special_tokens``). ``int32`` gives ``list<int32>`` ids (Spark's and
    HF datasets' default type) instead of ``large_list<uint32>``.
    ``num_threads`` is per actor (0: every core the actor may use).

        >>> import pyarrow as pa
        >>> Tokenize(tok.to_st_bytes())(pa.table({"text": ["Hello world", "Hi"]})).to_pydict()
        {'input_ids': [[15496, 995], [17250]]}
    """

    def __init__(self, tokenizer, *, text_column: str = "text", output_column: str = "input_ids",
                 add_special_tokens: bool = True, append_eos: Optional[str] = None, int32: bool = False,
                 keep_text: bool = False, num_threads: int = 1):
        self.tokenizer = load_tokenizer(tokenizer)
        self.text_column = text_column
        self.output_column = output_column
        self.add_special_tokens = add_special_tokens
        self.int32 = int32
        self.keep_text = keep_text
        self.num_threads = num_threads
        self.eos_id = None if append_eos is None else token_id(self.tokenizer, append_eos, "append_eos")

    def __call__(self, batch):
        """Returns `batch` (a pyarrow Table or RecordBatch) with the ids column."""
        import pyarrow as pa

        if self.text_column not in batch.column_names:
            raise KeyError(f"no column {self.text_column!r} in the batch (columns: {batch.column_names})")
        ids = self.tokenizer.encode_to_arrow(batch.column(self.text_column),
                                             add_special_tokens=self.add_special_tokens,
                                             num_threads=self.num_threads)
        ids = with_eos(ids, self.eos_id)
        if self.int32:
            ids = ids.cast(pa.list_(pa.int32()))
        table = batch if isinstance(batch, pa.Table) else pa.Table.from_batches([batch])
        if not self.keep_text:
            table = table.drop_columns([self.text_column])
        return table.append_column(self.output_column, ids)


def with_eos(ids, eos_id: Optional[int]):
    """Returns the LargeListArray `ids` with `eos_id` ending every row (itself for None).

        >>> import pyarrow as pa
        >>> with_eos(pa.array([[1, 2], []], pa.large_list(pa.uint32())), 0).to_pylist()
        [[1, 2, 0], [0]]
    """
    if eos_id is None:
        return ids
    import pyarrow as pa

    values = ids.flatten().to_numpy(zero_copy_only=False)  # the rows' ids, a slice's included
    offsets = ids.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    values, offsets = add_boundaries(values, offsets - offsets[0], None, eos_id)
    return pa.LargeListArray.from_arrays(pa.array(offsets), pa.array(values, pa.uint32()))


def add_boundaries(ids: np.ndarray, offsets: np.ndarray, bos: Optional[int],
                   eos: Optional[int]) -> tuple:
    """Returns (ids, offsets) with `bos` before and `eos` after every document
    (each None for none); e.g. ids [5, 6, 7], offsets [0, 2, 3], eos 0 ->
    [5, 6, 0, 7, 0], [0, 3, 5]."""
    extra = (bos is not None) + (eos is not None)
    if not extra:
        return ids, offsets
    n = len(offsets) - 1
    new_offsets = offsets + extra * np.arange(n + 1, dtype=np.int64)
    out = np.empty(int(new_offsets[-1]), dtype=ids.dtype)
    body = np.ones(out.size, dtype=bool)
    if bos is not None:
        out[new_offsets[:-1]] = bos
        body[new_offsets[:-1]] = False
    if eos is not None:
        out[new_offsets[1:] - 1] = eos
        body[new_offsets[1:] - 1] = False
    out[body] = ids
    return out, new_offsets
