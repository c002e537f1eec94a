"""The libraries bench.py compares, one adapter each: how each loads a
tokenizer.json and runs the batch, single-request and large-document
scenarios, and how its results turn into id arrays for the parity check.
Adapters run inside bench.py's worker processes.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from snaptok.tiktoken import byte_level_chars  # GPT-2's char -> byte table

# GPT-2's pre-tokenization regex as HF tokenizers' ByteLevel pre-tokenizer spells it.
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

class Unsupported(Exception):
    """The library cannot load this tokenizer; the message says why."""


def tiktoken_from_tokenizer_json(path: str):
    """Builds a tiktoken.Encoding equal to a byte-level BPE tokenizer.json.

    Ranks are the HF ids, which is valid only when every merge produces a
    token whose id is larger than the ids of all earlier merges' results
    (true for GPT-2/r50k-style files); otherwise Unsupported is raised.
    """
    import tiktoken

    spec = json.loads(Path(path).read_text(encoding="utf-8"))
    model = spec.get("model") or {}
    if model.get("type", "BPE") != "BPE" or "merges" not in model:
        kind = model.get("type") or "not BPE (no merges)"
        raise Unsupported(f"model is {kind}; tiktoken does byte-level BPE only")
    if spec.get("normalizer") is not None:
        raise Unsupported("tokenizer has a normalizer; tiktoken has none")
    pre = spec.get("pre_tokenizer") or {}

    def byte_level_ok(p, regex):
        return (p.get("type") == "ByteLevel" and not p.get("add_prefix_space", False)
                and p.get("use_regex", True) == regex)

    if byte_level_ok(pre, True):
        pattern = GPT2_PATTERN
    elif (pre.get("type") == "Sequence" and len(pre.get("pretokenizers", [])) == 2
          and pre["pretokenizers"][0].get("type") == "Split"
          and "Regex" in pre["pretokenizers"][0].get("pattern", {})
          and pre["pretokenizers"][0].get("behavior") == "Isolated"
          and not pre["pretokenizers"][0].get("invert", False)
          and byte_level_ok(pre["pretokenizers"][1], False)):
        pattern = pre["pretokenizers"][0]["pattern"]["Regex"]
    else:
        raise Unsupported(f"pre-tokenizer {pre.get('type')} has no tiktoken equivalent")
    if model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"):
        raise Unsupported("BPE with subword prefix/suffix")
    if model.get("byte_fallback"):
        raise Unsupported("byte-fallback BPE is not byte-level")
    alphabet = byte_level_chars()

    def to_bytes(token: str) -> bytes:
        try:
            return bytes(alphabet[c] for c in token)
        except KeyError:
            raise Unsupported(f"vocabulary is not byte-level (token {token!r})") from None

    specials = {t["content"]: int(t["id"]) for t in spec.get("added_tokens", [])}
    ranks = {}
    for token, idx in model["vocab"].items():
        if token in specials:
            continue
        ranks[to_bytes(token)] = int(idx)
    if len(set(ranks.values())) != len(ranks):
        raise Unsupported("vocabulary has duplicate ids")
    vocab = model["vocab"]
    last = -1
    for m in model["merges"]:
        left, right = m.split(" ", 1) if isinstance(m, str) else m
        merged = vocab.get(left + right)
        # Several merges may build the same token (equal ids); ids must never go down.
        if merged is None or merged < last:
            raise Unsupported("vocabulary ids are not in merge order, so they cannot be tiktoken ranks")
        last = merged
    return tiktoken.Encoding("bench", pat_str=pattern, mergeable_ranks=ranks,
                             special_tokens=specials)


def read_encodings(encodings):
    """Reads each Encoding's ids and offsets (what a caller of encode_batch
    does with them) and returns the Encodings."""
    for e in encodings:
        e.ids
        e.offsets
    return encodings


class Adapter:
    """One library bound to one tokenizer and one thread setting.

    batch/single/large return the library's own result; *_ids turn a result
    into per-document id arrays for the parity check (outside the timing).
    """

    import_name = ""  # the module a user imports (timed by the import scenario)

    def __init__(self, path: str, threads: int, all_threads: int, add_special: bool):
        self.path = str(path)
        self.threads = threads
        self.all_threads = all_threads
        self.add_special = add_special

    def open(self):
        """Returns a freshly loaded tokenizer object (what the load scenario times)."""
        raise NotImplementedError

    def load(self):
        self.tok = self.open()

    @staticmethod
    def whole_documents(tok):
        """Turns off the truncation and padding a tokenizer.json may set (BERT-style
        files do): the bench encodes whole documents, as the peers without those
        settings do. Returns tok."""
        for name in ("no_truncation", "no_padding"):
            if hasattr(tok, name):
                getattr(tok, name)()
        return tok

    def batch_ids(self, result):
        return result

    def encodings(self, docs):
        """The full Encodings of a batch (HF encode_batch: ids, tokens, char
        offsets), each one's ids and offsets read as a caller would; returns
        the Encodings."""
        raise Unsupported("ids only, no offsets")

    def large_ids(self, result):
        return self.batch_ids(result)[0]


class SnaptokAdapter(Adapter):
    import_name = "snaptok"
    note = ("encode_to_numpy(docs, num_threads=T) for batches and the large document; "
            "encode_ids(text, add_special_tokens) (else encode(text).ids) for single requests")

    def open(self):
        import snaptok

        self.module = snaptok
        self.n = 1 if self.threads == 1 else 0
        return snaptok.Tokenizer.from_file(self.source())

    def source(self) -> str:
        """The file open() loads."""
        return self.path

    def load(self):
        self.tok = self.whole_documents(self.open())
        self.encode_ids = getattr(self.tok, "encode_ids", None)

    def batch(self, docs):
        return self.tok.encode_to_numpy(docs, add_special_tokens=self.add_special, num_threads=self.n)

    def encodings(self, docs):
        return read_encodings(self.tok.encode_batch(docs, add_special_tokens=self.add_special,
                                                    num_threads=self.n))

    def batch_ids(self, result):
        ids, offsets = result
        return [ids[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]

    def single(self, text):
        if self.encode_ids is not None:
            # Positional: a keyword argument costs ~0.2 µs more per call in
            # nanobind's dispatch, about a fifth of a 140-byte call.
            return self.encode_ids(text, self.add_special)
        return self.tok.encode(text, add_special_tokens=self.add_special).ids

    def large(self, text):
        return self.tok.encode_to_numpy([text], add_special_tokens=self.add_special, num_threads=self.n)


class SnaptokStAdapter(SnaptokAdapter):
    note = ("as snaptok, but loaded from a .st file converted from the tokenizer.json before "
            "timing (Tokenizer.from_file(path.st): mmap + validation, warm page cache)")

    def source(self) -> str:
        if not getattr(self, "st_path", None):
            import snaptok

            self.st_dir = tempfile.TemporaryDirectory(prefix="snaptok-bench-")
            self.st_path = os.path.join(self.st_dir.name, "tokenizer.st")
            snaptok.Tokenizer.from_file(self.path).save_st(self.st_path)
            snaptok.Tokenizer.from_file(self.st_path)  # the first map reads the file in
        return self.st_path


class HFAdapter(Adapter):
    import_name = "tokenizers"
    note = "encode_batch_fast(docs) + .ids; encode(text).ids; threads via TOKENIZERS_PARALLELISM/RAYON_NUM_THREADS"

    def open(self):
        import tokenizers

        self.module = tokenizers
        return tokenizers.Tokenizer.from_file(self.path)

    def load(self):
        self.tok = self.whole_documents(self.open())
        self.fast = getattr(self.tok, "encode_batch_fast", self.tok.encode_batch)

    def batch(self, docs):
        return [e.ids for e in self.fast(docs, add_special_tokens=self.add_special)]

    def encodings(self, docs):
        return read_encodings(self.tok.encode_batch(docs, add_special_tokens=self.add_special))

    def single(self, text):
        return self.tok.encode(text, add_special_tokens=self.add_special).ids

    def large(self, text):
        return [self.tok.encode(text, add_special_tokens=self.add_special).ids]


class TiktokenAdapter(Adapter):
    import_name = "tiktoken"
    note = ("Encoding built from tokenizer.json (ranks = HF ids); encode_batch(num_threads=T, "
            "allowed_special='all'); encode_to_numpy for the large document")

    def open(self):
        if self.add_special:
            raise Unsupported("tiktoken has no post-processor (run without --special-tokens)")
        import tiktoken

        self.module = tiktoken
        return tiktoken_from_tokenizer_json(self.path)

    def batch(self, docs):
        return self.tok.encode_batch(docs, num_threads=self.threads, allowed_special="all")

    def single(self, text):
        return self.tok.encode(text, allowed_special="all")

    def large(self, text):
        return [self.tok.encode_to_numpy(text, allowed_special="all")]


class GigatokenAdapter(Adapter):
    import_name = "gigatoken"
    note = "Tokenizer(path); encode_batch(docs, parallel=T>1) -> awkward array; encode(text) -> numpy"

    def open(self):
        if self.add_special:
            raise Unsupported("gigatoken's own API adds no post-processor tokens")
        import gigatoken

        self.module = gigatoken
        self.parallel = self.threads != 1
        return gigatoken.Tokenizer(self.path)

    def batch(self, docs):
        return self.tok.encode_batch(docs, parallel=self.parallel)

    def batch_ids(self, result):
        import numpy as np

        layout = result.layout
        offsets = np.asarray(layout.offsets.data)
        content = np.asarray(layout.content.data)
        return [content[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]

    def single(self, text):
        return self.tok.encode(text)

    def large(self, text):
        return self.tok.encode(text)

    def large_ids(self, result):
        return result


class SnaptokensAdapter(Adapter):
    import_name = "snaptokens"
    note = "Tokenizer.from_file; encode_batch_flat(docs) -> (ids, offsets) bytes; threads via RAYON_NUM_THREADS"

    def open(self):
        import snaptokens

        self.module = snaptokens
        return snaptokens.Tokenizer.from_file(self.path)

    def batch(self, docs):
        return self.tok.encode_batch_flat(docs, add_special_tokens=self.add_special)

    def batch_ids(self, result):
        import numpy as np

        ids = np.frombuffer(result[0], dtype=np.uint32)
        offsets = np.frombuffer(result[1], dtype=np.uint64)
        return [ids[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]

    def single(self, text):
        return self.tok.encode(text, add_special_tokens=self.add_special).ids

    def large(self, text):
        return self.tok.encode_batch_flat([text], add_special_tokens=self.add_special)


class FastokensAdapter(SnaptokensAdapter):
    import_name = "fastokens"
    note = ("Tokenizer.from_file; encode_batch_flat(docs) -> (ids, offsets) bytes, as snaptokens; "
            "encode(text).ids; threads via RAYON_NUM_THREADS")

    def open(self):
        import fastokens

        self.module = fastokens
        return fastokens.Tokenizer.from_file(self.path)

    def single(self, text):
        return self.tok.encode(text, add_special_tokens=self.add_special).ids


ADAPTERS = {"snaptok": SnaptokAdapter, "snaptok-st": SnaptokStAdapter, "hf": HFAdapter, "tiktoken": TiktokenAdapter,
            "gigatoken": GigatokenAdapter, "snaptokens": SnaptokensAdapter,
            "fastokens": FastokensAdapter}
