"""HF `tokenizers.Tokenizer` API parity (issue 11): to_str / save, get_vocab,
get_added_tokens_decoder and AddedToken, checked against HF on the bundled
tokenizers, on synthetic WordPiece and WordLevel ones, and on the shared ones
when ../shared/data is there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

snaptok = pytest.importorskip("snaptok")
tokenizers = pytest.importorskip("tokenizers")

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data" / "tokenizers"
SAMPLE = (ROOT / "python" / "snaptok" / "data" / "sample.txt").read_text(encoding="utf-8")[:6000]
TEXTS = [SAMPLE, "naïve café — ünïcödé 😀👍🏽 日本語 <|endoftext|> [CLS] </s>", "", "   x  "]


def synthetic(kind: str) -> str:
    words = SAMPLE.split()
    if kind == "wordpiece":
        tok = tokenizers.Tokenizer(tokenizers.models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = tokenizers.normalizers.BertNormalizer()
        tok.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
        trainer = tokenizers.trainers.WordPieceTrainer(vocab_size=400, special_tokens=["[UNK]", "[CLS]", "[SEP]"])
        tok.decoder = tokenizers.decoders.WordPiece()
    else:
        tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(unk_token="[UNK]"))
        tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
        trainer = tokenizers.trainers.WordLevelTrainer(vocab_size=300, special_tokens=["[UNK]"])
    tok.train_from_iterator([" ".join(words[i:i + 40]) for i in range(0, len(words), 40)], trainer)
    return tok.to_str()


def sources():
    out = [(p.parent.name, p.read_text(encoding="utf-8")) for p in sorted((ROOT / "tests" / "data").glob("*/tokenizer.json"))]
    out += [("synthetic-wordpiece", synthetic("wordpiece")), ("synthetic-wordlevel", synthetic("wordlevel"))]
    for name in ["all-MiniLM-L6-v2", "phi-3", "qwen2", "roberta-base", "spm-kyoto-ja-unigram-8000-proto", "t5-small"]:
        path = SHARED / name / "tokenizer.json"
        if path.exists():
            out.append((name, path.read_text(encoding="utf-8")))
    return out


SOURCES = sources()


@pytest.fixture(scope="module", params=SOURCES, ids=[name for name, _ in SOURCES])
def source(request):
    return request.param[1]


def ids_of(tok, with_specials=True):
    return [tok.encode(t, add_special_tokens=with_specials).ids for t in TEXTS]


def test_to_str_loads_to_the_same_tokenizer_in_hf_and_snaptok(source):
    hf = tokenizers.Tokenizer.from_str(source)
    text = snaptok.Tokenizer.from_str(source).to_str()
    assert ids_of(tokenizers.Tokenizer.from_str(text)) == ids_of(hf)
    assert ids_of(snaptok.Tokenizer.from_str(text)) == ids_of(hf)
    assert ids_of(snaptok.Tokenizer.from_str(text), False) == ids_of(hf, False)


def test_to_str_of_an_hf_written_file_is_hfs_json(source):
    # HF's to_str fills in every default; a file written by HF comes back the
    # same, member for member (vocab and merges included), truncation and
    # padding as currently set.
    hf = tokenizers.Tokenizer.from_str(source)
    tok = snaptok.Tokenizer.from_str(hf.to_str())
    assert json.loads(tok.to_str()) == json.loads(hf.to_str())
    for t in (hf, tok):
        t.enable_truncation(7, stride=2, strategy="only_first", direction="left")
        t.enable_padding(direction="left", pad_id=0, pad_token=hf.id_to_token(0), length=9, pad_to_multiple_of=3)
    assert json.loads(tok.to_str()) == json.loads(hf.to_str())
    assert list(json.loads(tok.to_str())) == list(json.loads(hf.to_str()))  # HF's member order


def test_save_writes_pretty_json_that_loads(tmp_path, source):
    tok = snaptok.Tokenizer.from_str(source)
    tok.save(str(tmp_path / "tokenizer.json"))
    text = (tmp_path / "tokenizer.json").read_text(encoding="utf-8")
    assert text.startswith("{\n  ") and json.loads(text) == json.loads(tok.to_str())
    assert tok.to_str(pretty=True) == text
    assert ids_of(snaptok.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))) == ids_of(tok)
    tok.save(tmp_path / "min.json", pretty=False)
    assert (tmp_path / "min.json").read_text(encoding="utf-8") == tok.to_str()


def test_get_vocab_and_added_tokens_equal_hf(source):
    hf, tok = tokenizers.Tokenizer.from_str(source), snaptok.Tokenizer.from_str(source)
    assert tok.get_vocab() == hf.get_vocab()
    assert tok.get_vocab(with_added_tokens=False) == hf.get_vocab(with_added_tokens=False)
    ours, theirs = tok.get_added_tokens_decoder(), hf.get_added_tokens_decoder()
    assert list(ours) == list(theirs)
    for i in theirs:
        assert repr(ours[i]) == repr(theirs[i])
        for field in ("content", "single_word", "lstrip", "rstrip", "normalized", "special"):
            assert getattr(ours[i], field) == getattr(theirs[i], field)


def test_added_token_defaults_equal_hf():
    for kwargs in [{}, {"special": True}, {"special": True, "normalized": True}, {"lstrip": True, "rstrip": True},
                   {"single_word": True, "normalized": False}]:
        ours, theirs = snaptok.AddedToken("<x>", **kwargs), tokenizers.AddedToken("<x>", **kwargs)
        assert repr(ours) == repr(theirs) and str(ours) == str(theirs) == "<x>"
    assert snaptok.AddedToken("a") == snaptok.AddedToken("a") != snaptok.AddedToken("a", special=True)
    assert len({snaptok.AddedToken("a"), snaptok.AddedToken("a")}) == 1


def encoding_fields(e) -> dict:
    return {"ids": e.ids, "type_ids": e.type_ids, "tokens": e.tokens, "offsets": [tuple(o) for o in e.offsets],
            "attention_mask": e.attention_mask, "special_tokens_mask": e.special_tokens_mask,
            "word_ids": e.word_ids, "sequence_ids": e.sequence_ids,
            "overflowing": [encoding_fields(o) for o in e.overflowing]}


WORDS = [["Hello", "wörld", "it's", "2026!"], ["naïve", "café", " — ", "😀👍🏽", "日本語", "<|endoftext|>", "</s>"],
         [], ["", "  x  ", "[CLS]"]]


def test_is_pretokenized_equals_hf(source):
    hf, tok = tokenizers.Tokenizer.from_str(source), snaptok.Tokenizer.from_str(source)
    for words in WORDS:
        for specials in (True, False):
            assert encoding_fields(tok.encode(words, is_pretokenized=True, add_special_tokens=specials)) == \
                encoding_fields(hf.encode(words, is_pretokenized=True, add_special_tokens=specials))
            assert encoding_fields(tok.encode(words, tuple(WORDS[1]), True, specials)) == \
                encoding_fields(hf.encode(words, tuple(WORDS[1]), True, specials))
    batch = [WORDS[0], (WORDS[1], WORDS[0]), tuple(WORDS[3]), [WORDS[2], ["pair"]]]
    for t in (hf, tok):
        t.enable_padding(pad_token=hf.id_to_token(0))
        t.enable_truncation(12, stride=1)
    assert [encoding_fields(e) for e in tok.encode_batch(batch, is_pretokenized=True)] == \
        [encoding_fields(e) for e in hf.encode_batch(batch, is_pretokenized=True)]


def test_batches_take_any_iterable_but_not_one_text():
    tok = snaptok.Tokenizer.from_file(str(ROOT / "tests" / "data" / "gpt2" / "tokenizer.json"))
    texts = ["Hello world", "second text", ""]
    want = [e.ids for e in tok.encode_batch(texts)]
    assert [e.ids for e in tok.encode_batch(t for t in texts)] == want
    assert [e.ids for e in tok.encode_batch(iter([(texts[0], texts[1])]))] == [tok.encode(texts[0], texts[1]).ids]
    ids, offsets = tok.encode_to_numpy(t for t in texts)
    assert [list(ids[offsets[i]:offsets[i + 1]]) for i in range(3)] == want
    assert [e.ids for e in tok.encode_batch(({"a": 1}.keys() and texts), is_pretokenized=False)] == want
    with pytest.raises(TypeError, match=r"input: expected an iterable of texts, got one str \(wrap it in a list\)"):
        tok.encode_batch("Hello")
    with pytest.raises(TypeError, match=r"input: expected an iterable, got int"):
        tok.encode_batch(5)
    with pytest.raises(TypeError, match=r"text: expected a list or tuple of words \(is_pretokenized\), got str"):
        tok.encode("Hello world", is_pretokenized=True)
    with pytest.raises(TypeError, match=r"input\[1\]\[0\]: expected str or bytes, got int"):
        tok.encode_batch([["a"], [1]], is_pretokenized=True)
    # The item that is not a text is named, wherever it is.
    with pytest.raises(TypeError, match=r"input\[2\]: expected str, bytes or a \(text, pair\) tuple, got float"):
        tok.encode_batch(["a", b"b", 4.5])
    with pytest.raises(TypeError, match=r"texts\[1\]: expected str or bytes, got int"):
        tok.encode_to_numpy(["a", 3])
    with pytest.raises(TypeError, match=r"text\[2\]: expected str or bytes, got NoneType"):
        tok.encode(["a", "b", None], is_pretokenized=True)


def fields(e):
    """Every field of an Encoding, overflowing parts included."""
    return (e.ids, e.type_ids, e.tokens, e.offsets, e.word_ids, e.special_tokens_mask, e.attention_mask,
            e.sequence_ids, [fields(o) for o in e.overflowing])


def test_encode_batch_fast_equals_hfs(source):
    # HF's encode_batch_fast: offsets (0, 0), no word ids, empty token
    # strings but for the post-processor's and the padding's.
    hf = tokenizers.Tokenizer.from_str(source)
    st = snaptok.Tokenizer.from_str(source)
    texts = [TEXTS[0][:800], (TEXTS[1], "and a pair"), TEXTS[2], TEXTS[3]]
    words = [["Hello", "world", "[CLS]"], (["a", "pair"], ["of", "word", "lists"])]
    for setup in ("plain", "padded", "truncated"):
        for t in (hf, st):
            t.no_truncation()
            t.no_padding()
            if setup != "plain":
                t.enable_padding(length=None)
            if setup == "truncated":
                t.enable_truncation(12, stride=3)
        for special in (True, False):
            want = [fields(e) for e in hf.encode_batch_fast(texts, add_special_tokens=special)]
            assert [fields(e) for e in st.encode_batch_fast(texts, add_special_tokens=special)] == want, setup
            want = [fields(e) for e in hf.encode_batch_fast(words, is_pretokenized=True, add_special_tokens=special)]
            got = [fields(e) for e in st.encode_batch_fast(words, is_pretokenized=True, add_special_tokens=special)]
            assert got == want, f"{setup}, pre-tokenized"


def test_post_process_equals_hfs(source):
    # HF post_process: truncation, the post-processor, padding, applied to
    # encodings made without them.
    hf = tokenizers.Tokenizer.from_str(source)
    st = snaptok.Tokenizer.from_str(source)
    for setup in ("plain", "truncated", "padded"):
        for t in (hf, st):
            t.no_truncation()
            t.no_padding()
            if setup == "truncated":
                t.enable_truncation(10, stride=2)
            if setup == "padded":
                t.enable_padding(length=64)
        first, second = TEXTS[0][:300], TEXTS[1]
        for special in (True, False):
            a_hf, b_hf = hf.encode(first, add_special_tokens=False), hf.encode(second, add_special_tokens=False)
            a_st, b_st = st.encode(first, add_special_tokens=False), st.encode(second, add_special_tokens=False)
            assert fields(st.post_process(a_st, add_special_tokens=special)) == \
                fields(hf.post_process(a_hf, add_special_tokens=special)), setup
            assert fields(st.post_process(a_st, b_st, add_special_tokens=special)) == \
                fields(hf.post_process(a_hf, b_hf, add_special_tokens=special)), f"{setup}, pair"


def test_components_answer_as_hfs(source):
    # tokenizer.normalizer, .pre_tokenizer, .model, .post_processor,
    # .decoder: the same presence and type as HF's objects, the settings as
    # loaded, and each stage alone giving HF's answers.
    hf = tokenizers.Tokenizer.from_str(source)
    st = snaptok.Tokenizer.from_str(source)
    loaded = json.loads(source)
    texts = TEXTS + ["Héllo  WORLD\t\n ½ x² Ⅷ ﬁ Ａ", "don't   stop 123456 ..."]
    for stage in ("normalizer", "pre_tokenizer", "model", "post_processor", "decoder"):
        ours, theirs = getattr(st, stage), getattr(hf, stage)
        assert (ours is None) == (theirs is None), stage
        if ours is None:
            continue
        assert ours.type in ("", type(theirs).__name__), stage
        want = {k: v for k, v in loaded[stage].items() if k not in ("vocab", "merges")} if stage == "model" \
            else loaded[stage]
        assert {k: v for k, v in ours.config.items() if k != "type"} == \
            {k: v for k, v in want.items() if k != "type"}, stage
        assert repr(ours).startswith((ours.type or "Component") + "(")
    for text in texts:
        if hf.normalizer:
            assert st.normalizer.normalize_str(text) == hf.normalizer.normalize_str(text)
        if hf.pre_tokenizer:
            assert st.pre_tokenizer.pre_tokenize_str(text) == hf.pre_tokenizer.pre_tokenize_str(text)
        if hf.decoder:
            tokens = hf.encode(text).tokens
            assert st.decoder.decode(tokens) == hf.decoder.decode(tokens)
    if hf.post_processor:
        for is_pair in (False, True):
            assert st.post_processor.num_special_tokens_to_add(is_pair) == \
                hf.post_processor.num_special_tokens_to_add(is_pair)
    for token in ["hello", "Ġthe", "▁the", "the", "[UNK]", "<unk>", "</s>", "<|endoftext|>", "zzzqqq"]:
        assert st.model.token_to_id(token) == hf.model.token_to_id(token), token
    for i in (0, 1, 5, 100, 10**6):
        assert st.model.id_to_token(i) == hf.model.id_to_token(i), i


def test_from_buffer_takes_tokenizer_json_bytes_as_hf(source):
    data = source.encode("utf-8")
    hf = tokenizers.Tokenizer.from_buffer(data)
    st = snaptok.Tokenizer.from_buffer(data)
    assert ids_of(st) == ids_of(hf)
    # .st bytes still load through the same call (told apart by their magic).
    assert ids_of(snaptok.Tokenizer.from_buffer(st.to_st_bytes())) == ids_of(hf)
