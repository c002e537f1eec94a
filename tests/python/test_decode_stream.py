"""DecodeStream (issue 11): the chunks of HF tokenizers.decoders.DecodeStream,
step for step, on byte-level BPE, SentencePiece (Metaspace, byte fallback),
Unigram and WordPiece decoders; ids one at a time, in groups, after a prompt,
with special tokens kept and skipped."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

snaptok = pytest.importorskip("snaptok")
tokenizers = pytest.importorskip("tokenizers")
from tokenizers.decoders import DecodeStream as HfDecodeStream  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data" / "tokenizers"
SAMPLE = (ROOT / "python" / "snaptok" / "data" / "sample.txt").read_text(encoding="utf-8")
TEXTS = [
    SAMPLE[:600],
    "naïve café — ünïcödé 😀👍🏽 日本語の文章 <|endoftext|> [CLS] </s> <s> x  y\n\tz",
    "Ｈｅｌｌｏ ﬁne 🧑‍🚀 ١٢٣ don't  ... \u0301",
]


def byte_fallback_bpe() -> str:
    # SentencePiece-style BPE whose small vocabulary leaves most non-ASCII
    # chars to <0xXX> tokens: a char spans several ids.
    tok = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="<unk>", byte_fallback=True))
    tok.normalizer = tokenizers.normalizers.Sequence(
        [tokenizers.normalizers.Prepend("▁"), tokenizers.normalizers.Replace(" ", "▁")])
    tok.decoder = tokenizers.decoders.Sequence([
        tokenizers.decoders.Replace("▁", " "), tokenizers.decoders.ByteFallback(),
        tokenizers.decoders.Fuse(), tokenizers.decoders.Strip(" ", 1, 0)])
    specials = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    tok.train_from_iterator(SAMPLE[:60_000].splitlines(), tokenizers.trainers.BpeTrainer(
        vocab_size=600, special_tokens=specials, show_progress=False))
    return tok.to_str()


def wordpiece() -> str:
    tok = tokenizers.Tokenizer(tokenizers.models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = tokenizers.normalizers.BertNormalizer()
    tok.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    tok.decoder = tokenizers.decoders.WordPiece()
    tok.train_from_iterator([SAMPLE], tokenizers.trainers.WordPieceTrainer(
        vocab_size=500, special_tokens=["[UNK]", "[CLS]", "[SEP]"], show_progress=False))
    return tok.to_str()


def sources():
    out = [(p.parent.name, p.read_text(encoding="utf-8"))
           for p in sorted((ROOT / "tests" / "data").glob("*/tokenizer.json"))]
    out += [("byte-fallback-bpe", byte_fallback_bpe()), ("wordpiece", wordpiece())]
    for name in ["phi-3", "qwen2", "t5-small", "all-MiniLM-L6-v2", "spm-kyoto-ja-unigram-8000-proto"]:
        path = SHARED / name / "tokenizer.json"
        if path.exists():
            out.append((name, path.read_text(encoding="utf-8")))
    return out


SOURCES = sources()


def run(stream, tok, steps):
    """The result of each step, or the exception's type name from the first failing one."""
    out = []
    for step in steps:
        try:
            out.append(stream.step(tok, step))
        except Exception as e:  # HF raises Exception, snaptok SnaptokError
            out.append("error")
            break
    return out


def groups(ids, rng):
    """ids cut into lists of 1-4 (HF's step takes an int or a list)."""
    out, i = [], 0
    while i < len(ids):
        n = rng.randint(1, 4)
        out.append(ids[i:i + n])
        i += n
    return out


@pytest.mark.parametrize("name,source", SOURCES, ids=[n for n, _ in SOURCES])
def test_chunks_equal_hfs(name, source):
    hf = tokenizers.Tokenizer.from_str(source)
    st = snaptok.Tokenizer.from_str(source)
    rng = random.Random(7)
    for text in TEXTS:
        ids = hf.encode(text).ids
        assert st.encode(text).ids == ids
        for skip in (False, True):
            want = run(HfDecodeStream(skip_special_tokens=skip), hf, ids)
            got = run(snaptok.DecodeStream(skip_special_tokens=skip), st, ids)
            assert got == want, f"{name}: one id a step, skip={skip}"
            steps = groups(ids, rng)
            assert run(snaptok.DecodeStream(skip_special_tokens=skip), st, steps) == \
                run(HfDecodeStream(skip_special_tokens=skip), hf, steps), f"{name}: groups, skip={skip}"
            for prompt in (1, 2, 5):
                want = run(HfDecodeStream(ids[:prompt], skip_special_tokens=skip), hf, ids[prompt:])
                got = run(snaptok.DecodeStream(ids[:prompt], skip_special_tokens=skip), st, ids[prompt:])
                assert got == want, f"{name}: after a prompt of {prompt}, skip={skip}"


def test_chunks_rebuild_the_decoded_text():
    tok = snaptok.Tokenizer.from_file(str(ROOT / "tests" / "data" / "gpt2" / "tokenizer.json"))
    ids = tok.encode(TEXTS[1]).ids
    stream = snaptok.DecodeStream()
    text = "".join(c for c in (stream.step(tok, i) for i in ids) if c is not None)
    assert text == tok.decode(ids, skip_special_tokens=False)


def test_bad_ids_are_clear_errors():
    tok = snaptok.Tokenizer.from_file(str(ROOT / "tests" / "data" / "gpt2" / "tokenizer.json"))
    stream = snaptok.DecodeStream()
    with pytest.raises(OverflowError, match="id"):
        stream.step(tok, -1)
    with pytest.raises(TypeError, match="id"):
        stream.step(tok, 1.5)
    with pytest.raises(TypeError, match="ids"):
        snaptok.DecodeStream("abc")
