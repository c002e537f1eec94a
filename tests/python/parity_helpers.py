"""Helpers shared by the parity tests: comparing Encodings field by field
with HF, and loading a shared tokenizer.json in both libraries."""

from __future__ import annotations

import json
from pathlib import Path

import snaptok
from tokenizers import Tokenizer

SYNTHETIC = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "tokenizers" / "synthetic"
# A model that shows the normalized text char by char: each char's UTF-8
# bytes as byte-fallback tokens (behind CHAR_SPLIT, one char per piece).
BYTE_VOCAB = {"<unk>": 0, **{f"<0x{b:02X}>": b + 1 for b in range(256)}}
BYTE_MODEL = {"type": "BPE", "dropout": None, "unk_token": "<unk>",
              "continuing_subword_prefix": None, "end_of_word_suffix": None,
              "fuse_unk": False, "byte_fallback": True, "ignore_merges": False,
              "vocab": BYTE_VOCAB, "merges": []}


def gpt2_byte_chars() -> list[str]:
    """GPT-2's byte-level table, the char of each byte 0..255 (the tests' own copy):
    printable Latin-1 bytes stand for themselves, the others for U+0100 upward."""
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    others = [b for b in range(256) if b not in printable]
    chars = {b: chr(b) for b in printable} | {b: chr(0x100 + i) for i, b in enumerate(others)}
    return [chars[b] for b in range(256)]


CHAR_SPLIT = {"type": "Split", "pattern": {"Regex": r"[\s\S]"}, "behavior": "Isolated",
              "invert": False}
UNK_WORD_LEVEL = {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"}

FIELDS = (
    "ids",
    "type_ids",
    "tokens",
    "offsets",
    "attention_mask",
    "special_tokens_mask",
    "word_ids",
    "sequence_ids",
    "n_sequences",
)


def _norm(field, value):
    if field == "offsets":
        return [tuple(o) for o in value]
    if isinstance(value, int):
        return value
    return list(value)


def assert_same_encoding(st_enc, hf_enc, where="encoding"):
    """Compares every field, then the overflowing parts recursively."""
    for field in FIELDS:
        got = _norm(field, getattr(st_enc, field))
        want = _norm(field, getattr(hf_enc, field))
        assert got == want, f"{where}.{field}: snaptok {got} != HF {want}"
    assert len(st_enc) == len(hf_enc), where
    assert len(st_enc.overflowing) == len(hf_enc.overflowing), (
        f"{where}.overflowing: snaptok {len(st_enc.overflowing)} parts != HF {len(hf_enc.overflowing)}"
    )
    for i, (a, b) in enumerate(zip(st_enc.overflowing, hf_enc.overflowing)):
        assert_same_encoding(a, b, f"{where}.overflowing[{i}]")


def load_both(path):
    """Returns (HF tokenizer, snaptok tokenizer) for a tokenizer.json file."""
    js = path.read_text(encoding="utf-8")
    return Tokenizer.from_str(js), snaptok.Tokenizer.from_str(js)


def synthetic_files(keep=lambda path: True):
    """The shared synthetic tokenizer.json files (none when the shared data is absent)."""
    if not SYNTHETIC.is_dir():
        return []
    return sorted(p for p in SYNTHETIC.glob("*.json") if keep(p))


def pipeline_json(normalizer=None, pre_tokenizer=None, model=None, added_tokens=()):
    """A tokenizer.json with the given stages (a WordLevel "[UNK]" model by default)."""
    return json.dumps({
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": list(added_tokens),
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": None,
        "model": model or UNK_WORD_LEVEL,
    })
