"""The three stages of ``snaptok encode``: reading (the calling thread),
encoding (one worker thread: ``encode_to_numpy`` and
``Tokenizer.document_encoder``, which release the GIL and use all cores) and
writing (one worker thread, ``ShardSet``). Each stage is at most
PIPELINE_DEPTH work items ahead of the next, all in document order, so
memory stays a few batches whatever the corpus size.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

import numpy as np

from ..batches import add_boundaries
from .common import CliError, EncodeFailed
from .inputs import Batch, Skipped, StreamChunk, StreamEnd, StreamStart
from .shards import ShardSet

# Work items in flight per stage (reading -> encoding -> writing).
PIPELINE_DEPTH = 2
_ID_LIMITS = {np.dtype(np.uint16): 1 << 16, np.dtype(np.int32): 1 << 31}


class Terminated(BaseException):
    """SIGTERM arrived: stop like Ctrl-C, exit status 143."""


class Encoder:
    """Encoding stage: one worker thread, items in document order. `bos` and
    `eos` (ids, or None) go around every document (--prepend-bos, --append-eos)."""

    def __init__(self, tokenizer, add_special: bool, threads: int, dtype: np.dtype,
                 bos: Optional[int] = None, eos: Optional[int] = None):
        self.tokenizer = tokenizer
        self.add_special = add_special
        self.threads = threads
        self.dtype = dtype
        self.bos = bos
        self.eos = eos
        self._doc = None
        self._name = ""  # the input of the document being streamed, if any

    def _ids(self, ids) -> np.ndarray:
        ids = np.asarray(ids)
        limit = _ID_LIMITS.get(self.dtype)
        if limit is not None and ids.size and int(ids.max()) >= limit:
            raise CliError(f"token id {int(ids.max())} does not fit in {self.dtype.name}; "
                           "use --dtype uint32")
        return ids if ids.dtype == self.dtype else ids.astype(self.dtype)

    def __call__(self, item):
        try:
            if isinstance(item, Batch):
                docs = item.documents()
                if not docs:
                    return None
                ids, offsets = self.tokenizer.encode_to_numpy(
                    docs, add_special_tokens=self.add_special, num_threads=self.threads)
                offsets = np.asarray(offsets, dtype=np.int64)
                if len(offsets) != len(docs) + 1 or len(ids) != offsets[-1]:
                    raise EncodeFailed(f"encode_to_numpy returned {len(ids)} ids and "
                                       f"{len(offsets)} offsets for {len(docs)} documents")
                return add_boundaries(self._ids(ids), offsets, self.bos, self.eos)
            if isinstance(item, StreamStart):
                self._name = item.name
                self._doc = self.tokenizer.document_encoder(
                    add_special_tokens=self.add_special, num_threads=self.threads)
                return None if self.bos is None else self._ids([self.bos])
            if isinstance(item, StreamChunk):
                return self._ids(self._doc.feed(item.data))
            if isinstance(item, StreamEnd):
                doc, self._doc = self._doc, None
                ids = self._ids(doc.finish())
                if self.eos is not None:
                    ids = np.append(ids, ids.dtype.type(self.eos))
                self._name = ""
                return ids
        except (CliError, EncodeFailed):
            raise
        except Exception as e:
            # The reader checks UTF-8 first; should the engine still refuse a
            # streamed document's bytes, its message has the byte offset.
            msg = str(e) or type(e).__name__
            if "UTF-8" in msg and self._name:
                raise CliError(f"{self._name}: {msg}") from e
            raise EncodeFailed(msg) from e
        raise TypeError(f"unexpected work item {item!r}")


class Writer:
    """Writing stage: one worker thread; stops doing anything after a failure."""

    def __init__(self, shards: ShardSet):
        self.shards = shards
        self.failed = False

    def __call__(self, item, result) -> None:
        if self.failed:
            return
        try:
            if isinstance(item, Batch):
                if result is not None:
                    self.shards.add_documents(result[0], result[1], item.cursor, item.fields())
            elif isinstance(item, StreamStart):
                self.shards.begin_document()
                if result is not None:
                    self.shards.add_partial(result)
            elif isinstance(item, StreamChunk):
                self.shards.add_partial(result)
            elif isinstance(item, StreamEnd):
                self.shards.add_partial(result)
                self.shards.end_document(item.cursor)
        except BaseException:
            self.failed = True
            raise


def run_pipeline(items, encode, write, on_done, check_item) -> None:
    """Reads items here, encodes them in one thread and writes them in another,
    at most PIPELINE_DEPTH items waiting per stage, all in order."""
    enc_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="snaptok-encode")
    wr_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="snaptok-write")
    encoding: deque = deque()
    writing: deque = deque()

    def hand_over(keep: int) -> None:
        while len(encoding) > keep:
            future, item = encoding.popleft()
            result = future.result()
            writing.append(wr_pool.submit(write, item, result))
            on_done(item, result)
            while len(writing) > PIPELINE_DEPTH:
                writing.popleft().result()

    try:
        for item in items:
            if isinstance(item, Skipped):
                on_done(item, None)
                continue
            check_item(item)
            encoding.append((enc_pool.submit(encode, item), item))
            hand_over(PIPELINE_DEPTH)
        hand_over(0)
        while writing:
            writing.popleft().result()
    finally:
        for future, _ in encoding:
            future.cancel()
        for future in writing:
            future.cancel()
        enc_pool.shutdown(wait=True, cancel_futures=True)
        wr_pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def sigterm_as_exception():
    """Turns SIGTERM into Terminated (main thread only), so temporary files
    are removed as for Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
