"""transformers drop-in (issue 11): a PreTrainedTokenizerFast on snaptok's
engine gives plain transformers' BatchEncoding, whether built with
tokenizer_object= or patched after AutoTokenizer.from_pretrained on a local
folder (no hub, no torch): plain calls, pairs, offsets, truncation with
overflow and stride, padding, alignment lookups, decode and batch_decode,
pickling and copies."""

from __future__ import annotations

import copy
import json
import pickle
import warnings
from pathlib import Path

import pytest

snaptok = pytest.importorskip("snaptok")
tokenizers = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")
import snaptok.transformers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data" / "tokenizers"
SAMPLE = (ROOT / "python" / "snaptok" / "data" / "sample.txt").read_text(encoding="utf-8")

# tokenizer_config.json special tokens per file, as the model folders have them.
SPECIALS = {
    "gpt2": {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>",
             "pad_token": "<|endoftext|>"},
    "spm-botchan-unigram-1000-t5": {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"},
    "t5-small": {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"},
    "all-MiniLM-L6-v2": {"cls_token": "[CLS]", "sep_token": "[SEP]", "unk_token": "[UNK]", "pad_token": "[PAD]",
                         "mask_token": "[MASK]"},
    "roberta-base": {"bos_token": "<s>", "eos_token": "</s>", "cls_token": "<s>", "sep_token": "</s>",
                     "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>"},
    "phi-3": {"bos_token": "<s>", "eos_token": "<|endoftext|>", "unk_token": "<unk>", "pad_token": "<|endoftext|>"},
    "qwen2": {"eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>"},
}


def files():
    out = [(p.parent.name, p) for p in sorted((ROOT / "tests" / "data").glob("*/tokenizer.json"))]
    out += [(n, SHARED / n / "tokenizer.json") for n in SPECIALS if (SHARED / n / "tokenizer.json").exists()]
    return out


FILES = files()
TEXTS = [SAMPLE[:400], "naïve café — 😀👍🏽 日本語 don't", "Short one", ""]
PAIRS = ["and a pair", "second pair, with more words than the first one", "x", "y z"]


def folder(tmp_path: Path, name: str, path: Path) -> Path:
    d = tmp_path / name
    d.mkdir()
    (d / "tokenizer.json").write_bytes(path.read_bytes())
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 512, **SPECIALS.get(name, {})}
    (d / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return d


CALLS = {
    "one text": lambda t: t(TEXTS[0]),
    "batch": lambda t: t(TEXTS),
    "pairs": lambda t: t(TEXTS, PAIRS),
    "offsets": lambda t: t(TEXTS, PAIRS, return_offsets_mapping=True),
    "padding longest": lambda t: t(TEXTS, padding=True),
    "padding left, max_length": lambda t: t(TEXTS, padding="max_length", max_length=40, padding_side="left"),
    "overflow": lambda t: t(TEXTS, truncation=True, max_length=12, stride=3, return_overflowing_tokens=True,
                            return_offsets_mapping=True),
    "pair overflow": lambda t: t(TEXTS[:3], PAIRS[:3], truncation="longest_first", max_length=16,
                                 return_overflowing_tokens=True, stride=2),
    "masks": lambda t: t(TEXTS, return_special_tokens_mask=True, return_token_type_ids=True, return_length=True),
    "no specials": lambda t: t(TEXTS, add_special_tokens=False),
    "split into words": lambda t: t([["Hello", "world"], ["a", "b", "c"]], is_split_into_words=True),
    "tokenize": lambda t: t.tokenize(TEXTS[1]),
    "encode": lambda t: t.encode(TEXTS[0], TEXTS[1]),
    "word_ids": lambda t: [t(TEXTS).word_ids(i) for i in range(len(TEXTS))],
    "char_to_token": lambda t: [t(TEXTS).char_to_token(0, c) for c in range(0, 60, 7)],
    "token_to_chars": lambda t: [t(TEXTS).token_to_chars(0, i) for i in range(5)],
    "tokens": lambda t: t(TEXTS).tokens(1),
    "decode": lambda t: t.decode(t.encode(TEXTS[1]), skip_special_tokens=False),
    "batch_decode": lambda t: t.batch_decode(t(TEXTS)["input_ids"], skip_special_tokens=True),
    "convert": lambda t: (t.convert_ids_to_tokens(list(range(10))), t.convert_tokens_to_ids(["the", "a", "zzq"])),
    "vocab": lambda t: (len(t), sorted(t.get_vocab().items())[:50]),
}


def outcome(call, tok):
    """The call's result (a BatchEncoding as a dict), or the error's message."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = call(tok)
        except Exception as e:  # HF raises Exception, snaptok SnaptokError: same message
            return ("error", str(e))
    return dict(out) if hasattr(out, "keys") else out


@pytest.mark.parametrize("name,path", FILES, ids=[n for n, _ in FILES])
def test_patched_folder_gives_transformers_results(tmp_path, name, path):
    d = folder(tmp_path, name, path)
    plain = transformers.AutoTokenizer.from_pretrained(str(d))
    ours = snaptok.transformers.patch(transformers.AutoTokenizer.from_pretrained(str(d)))
    assert isinstance(ours._tokenizer, snaptok.Tokenizer)
    for what, call in CALLS.items():
        assert outcome(call, ours) == outcome(call, plain), f"{name}: {what}"
    # Copies and pickles keep snaptok's engine and its answers.
    for clone in (copy.deepcopy(ours), pickle.loads(pickle.dumps(ours))):
        assert isinstance(clone._tokenizer, snaptok.Tokenizer)
        assert outcome(CALLS["overflow"], clone) == outcome(CALLS["overflow"], plain)


@pytest.mark.parametrize("name,path", FILES, ids=[n for n, _ in FILES])
def test_tokenizer_object(name, path):
    # The folder's special tokens, also those the file lacks (transformers
    # adds them through add_special_tokens).
    kwargs = SPECIALS.get(name, {})
    plain = transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizers.Tokenizer.from_file(str(path)), **kwargs)
    ours = transformers.PreTrainedTokenizerFast(tokenizer_object=snaptok.Tokenizer.from_file(str(path)), **kwargs)
    assert isinstance(ours._tokenizer, snaptok.Tokenizer)
    for what, call in CALLS.items():
        assert outcome(call, ours) == outcome(call, plain), f"{name}: {what}"


@pytest.mark.parametrize("name,path", FILES, ids=[n for n, _ in FILES])
def test_tokens_added_through_transformers(tmp_path, name, path):
    d = folder(tmp_path, name, path)
    plain = transformers.AutoTokenizer.from_pretrained(str(d))
    ours = snaptok.transformers.patch(transformers.AutoTokenizer.from_pretrained(str(d)))
    for tok in (plain, ours):
        assert tok.add_tokens(["snaptokenizer", "new word"]) == 2
        assert tok.add_special_tokens({"additional_special_tokens": ["<|tool|>", "<|end_tool|>"]}) == 2
        assert tok.add_tokens([transformers.AddedToken("  padded", lstrip=True, rstrip=True)]) == 1
    text = "<|tool|> a snaptokenizer  padded new word<|end_tool|>Hello"
    calls = {"call": lambda t: t([text, TEXTS[0]], padding=True, return_offsets_mapping=True),
             "decode": lambda t: t.decode(t.encode(text), skip_special_tokens=True),
             "vocab": lambda t: (len(t), t.added_tokens_decoder == plain.added_tokens_decoder)}
    for what, call in {**calls, **CALLS}.items():
        assert outcome(call, ours) == outcome(call, plain), f"{name}: {what}"


def test_patch_refuses_what_has_no_engine():
    with pytest.raises(TypeError, match="fast tokenizer"):
        snaptok.transformers.patch(object())
