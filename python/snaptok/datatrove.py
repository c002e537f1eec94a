"""snaptok inside datatrove pipelines: ``SnaptokTokenizer``, a drop-in for
datatrove's ``DocumentTokenizer`` that writes the same ``.ds``,
``.ds.index`` and ``.ds.metadata`` files (the same ids, the same bytes),
encoding each batch with ``Tokenizer.encode_to_numpy`` (GIL released, all
cores) instead of one HF ``Encoding`` per document.

Everything else is datatrove's own: document shuffling, chunk shuffling,
``max_tokens_per_file``, the final metadata, and the executors (local,
Slurm, Ray), which resume from their completion markers. Needs datatrove
(``pip install 'snaptok[datatrove]'``).

Example::

    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import JsonlReader
    from snaptok.datatrove import SnaptokTokenizer

    LocalPipelineExecutor(pipeline=[
        JsonlReader("data/"),
        SnaptokTokenizer("tokenized/", tokenizer_name_or_path="tokenizer.json",
                         eos_token="<|endoftext|>"),
    ], tasks=8).run()
"""

from __future__ import annotations

import os
from functools import cached_property

import numpy as np

import snaptok
from snaptok.batches import add_boundaries, token_id

try:
    from datatrove.pipeline.tokens.tokenizer import DocumentTokenizer, TokenizedFile
    from datatrove.utils.batching import batched
except ImportError as e:  # pragma: no cover - exercised without datatrove
    raise ImportError(f"snaptok.datatrove needs datatrove (pip install 'snaptok[datatrove]'): {e}") from None

__all__ = ["SnaptokTokenizer"]


class SnaptokTokenizer(DocumentTokenizer):
    """datatrove's ``DocumentTokenizer`` with snaptok encoding each batch.

    Takes DocumentTokenizer's arguments, plus ``num_threads`` (0: every core
    this process may use). ``tokenizer_name_or_path`` is a tokenizer.json or
    ``.st`` file, or a name HF ``tokenizers`` resolves (then converted once).
    As in datatrove, ``eos_token`` replaces the tokenizer's post-processor
    with ``$A <EOS>``; ``eos_token=None`` keeps the tokenizer's own. A custom
    ``post_processor`` and ``save_loss_metadata`` are refused (ValueError).

        >>> from datatrove.data import Document
        >>> step = SnaptokTokenizer(str(tmp), tokenizer_name_or_path=str(path),
        ...                         shuffle_documents=False, save_filename="t")
        >>> step.run(iter([Document(text="Hello world", id="0")]))
        >>> np.fromfile(tmp / "t_00000_unshuffled.ds", dtype="<u2").tolist()
        [15496, 995, 50256]
    """

    name = "✂️ snaptok"

    def __init__(self, output_folder, *args, num_threads: int = 0, **kwargs):
        if kwargs.get("save_loss_metadata"):
            raise ValueError("SnaptokTokenizer does not write loss metadata; use DocumentTokenizer for that")
        if kwargs.get("post_processor") is not None:
            raise ValueError("SnaptokTokenizer takes eos_token, not a custom post_processor")
        super().__init__(output_folder, *args, **kwargs)
        self.num_threads = num_threads

    @cached_property
    def tokenizer(self) -> snaptok.Tokenizer:
        """The snaptok Tokenizer, loaded once per worker."""
        name = self.tokenizer_name_or_path
        if not name:
            raise ValueError("tokenizer_name_or_path needs to be set")
        if os.path.isfile(name):
            return snaptok.Tokenizer.from_file(name)
        from tokenizers import Tokenizer as HfTokenizer

        return snaptok.Tokenizer.from_str(HfTokenizer.from_pretrained(name).to_str())

    @cached_property
    def _eos_id(self):
        if not self.eos_token:
            return None
        return token_id(self.tokenizer, self.eos_token, "eos_token", self.tokenizer_name_or_path)

    def write_unshuffled(self, data, filename: str):
        """Encodes the documents in batches and writes them, unshuffled, as
        DocumentTokenizer does (the same file, index and metadata)."""

        unshuffled = TokenizedFile(
            self.output_folder
            if (not self.shuffle_documents and not self.shuffle_chunk_size) or not self.local_working_dir
            else self.local_working_dir,
            filename,
            save_index=self.save_index or self.shuffle_documents or self.shuffle_chunk_size,
            save_loss_metadata=False,
            upload_block_size=self.upload_block_size,
            tokenizer_name_or_path=self.tokenizer_name_or_path,
            save_final_metadata=self.save_final_metadata,
            token_size=self.token_size,
        )
        dtype = np.dtype("<u4" if self.token_size == 4 else "<u2")
        eos = self._eos_id
        for batch in batched(data, self.batch_size):
            with self.track_time(unit="batch"):
                ids, offsets = self.tokenizer.encode_to_numpy(
                    [document.text for document in batch], add_special_tokens=eos is None,
                    num_threads=self.num_threads)
                ids, offsets = add_boundaries(ids, offsets, None, eos)
                unshuffled.write_bytes(ids.astype(dtype).tobytes(), doc_ends=offsets[1:].tolist())
                for length in np.diff(offsets).tolist():
                    self.stat_update("tokens", value=length)
        unshuffled.close()
        return unshuffled
