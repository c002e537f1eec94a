"""snaptok inside Hugging Face transformers: the same BatchEncoding, faster.

A transformers fast tokenizer (``PreTrainedTokenizerFast``) keeps its
Hugging Face ``tokenizers.Tokenizer`` as its engine; snaptok.Tokenizer
answers every call transformers makes of it, so either of these gives
transformers' results on snaptok's engine:

>>> from transformers import AutoTokenizer, PreTrainedTokenizerFast
>>> import snaptok, snaptok.transformers
>>> tok = snaptok.transformers.patch(AutoTokenizer.from_pretrained("path/to/folder"))  # doctest: +SKIP
>>> tok = PreTrainedTokenizerFast(tokenizer_object=snaptok.Tokenizer.from_file(path))  # a tokenizer.json
>>> tok(["Hello world"], return_offsets_mapping=True)
{'input_ids': [[15496, 995]], 'attention_mask': [[1, 1]], 'offset_mapping': [[(0, 5), (5, 11)]]}

``patch`` keeps everything the folder configures (special tokens, padding
side, chat template, model max length) and only swaps the engine. Tested
against plain transformers in ``tests/python/test_transformers.py``. The one
visible difference: an error from the engine is a ``snaptok.SnaptokError``
(with HF's message) where HF raises a plain ``Exception``.
"""

from __future__ import annotations

from typing import Any

from ._core import Tokenizer

__all__ = ["patch"]


def patch(tokenizer: Any) -> Any:
    """Swaps the engine of a transformers fast tokenizer for snaptok's, in place.

    Args:
        tokenizer: a ``transformers.PreTrainedTokenizerFast`` (what
            ``AutoTokenizer.from_pretrained`` returns for a folder with a
            ``tokenizer.json``).

    Returns:
        The same object, now encoding and decoding with snaptok (its configuration, truncation and padding carried over).

    Raises:
        TypeError: ``tokenizer`` has no Hugging Face engine to swap (a slow,
            Python-only tokenizer).

    >>> from transformers import PreTrainedTokenizerFast
    >>> hf = PreTrainedTokenizerFast(tokenizer_file=path)  # path: a tokenizer.json
    >>> type(patch(hf)._tokenizer).__module__
    'snaptok._core'
    >>> hf("Hello world")["input_ids"]
    [15496, 995]
    """
    engine = getattr(tokenizer, "_tokenizer", None)
    if isinstance(engine, Tokenizer):
        return tokenizer
    if engine is None or not callable(getattr(engine, "to_str", None)):
        raise TypeError(
            f"patch: expected a transformers fast tokenizer (PreTrainedTokenizerFast), "
            f"got {type(tokenizer).__name__}, which has no tokenizers engine to replace")
    tokenizer._tokenizer = Tokenizer.from_str(engine.to_str())
    return tokenizer
