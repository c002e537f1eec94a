""".st files from Python: every model family round-trips (same ids and full
Encodings as the JSON it came from, and as HF), bytes are deterministic,
settings travel, pickling and copying go through .st, a spawn pool gets the
tokenizer, the st_cache sidecar follows the JSON, damaged files get clear
errors, and `snaptok convert` writes what from_file and `snaptok encode` read.
"""

from __future__ import annotations

import copy
import multiprocessing
import os
import pickle
import stat
import sys
from pathlib import Path

import pytest

snaptok = pytest.importorskip("snaptok")
tokenizers = pytest.importorskip("tokenizers")

from tokenizers import Tokenizer as HfTokenizer  # noqa: E402
from tokenizers import models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

from snaptok import cli  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
GPT2 = DATA / "gpt2" / "tokenizer.json"
T5 = DATA / "spm-botchan-unigram-1000-t5" / "tokenizer.json"

TEXTS = [
    "Hello world! The quick brown fox jumps over the lazy dog.",
    "Ünïcödé: naïve café, 東京タワー, Привет мир 😀👍🏽 <|endoftext|> </s> [CLS]",
    "  spaces\tand\nnewlines  1234567 it's THEY'RE",
    "",
]
TRAIN = [t for t in TEXTS if t] * 20


def trained(kind: str) -> str:
    if kind == "wordpiece":
        tok = HfTokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        trainer = trainers.WordPieceTrainer(vocab_size=200, special_tokens=["[UNK]", "[CLS]", "[SEP]"],
                                            show_progress=False)
    elif kind == "wordlevel":
        tok = HfTokenizer(models.WordLevel(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer = trainers.WordLevelTrainer(special_tokens=["[UNK]"], show_progress=False)
    elif kind == "bpe-byte-fallback":
        tok = HfTokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
        tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
        trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<unk>", "<s>"],
                                      show_progress=False)
    else:
        raise ValueError(kind)
    tok.train_from_iterator(TRAIN, trainer)
    if kind == "wordpiece":
        tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")),
                                                       ("[CLS]", tok.token_to_id("[CLS]")))
    return tok.to_str()


CASES = {
    "gpt2": lambda: GPT2.read_text(encoding="utf-8"),
    "t5-unigram": lambda: T5.read_text(encoding="utf-8"),
    "wordpiece": lambda: trained("wordpiece"),
    "wordlevel": lambda: trained("wordlevel"),
    "bpe-byte-fallback": lambda: trained("bpe-byte-fallback"),
}


def encoding_fields(enc):
    return (enc.ids, enc.tokens, enc.offsets, enc.type_ids, enc.attention_mask,
            enc.special_tokens_mask, enc.word_ids)


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    text = CASES[request.param]()
    return request.param, text, HfTokenizer.from_str(text), snaptok.Tokenizer.from_str(text)


def test_round_trip_matches_json_and_hf(case, tmp_path):
    name, _, hf, tok = case
    path = tmp_path / "tok.st"
    tok.save_st(str(path))
    loaded = snaptok.Tokenizer.from_file(path)  # os.PathLike too
    for text in TEXTS:
        for pair in (None, TEXTS[0]):
            a = tok.encode(text, pair)
            b = loaded.encode(text, pair)
            assert encoding_fields(a) == encoding_fields(b), (name, text)
            assert b.ids == hf.encode(text, pair).ids, (name, text)
        assert loaded.decode(b.ids) == hf.decode(b.ids)
    batch = [t for t in TEXTS] * 3
    assert loaded.encode_batch(batch) == tok.encode_batch(batch) or \
        [e.ids for e in loaded.encode_batch(batch)] == [e.ids for e in tok.encode_batch(batch)]
    assert loaded.get_vocab_size() == tok.get_vocab_size()


def test_bytes_are_deterministic(case):
    name, text, _, tok = case
    image = tok.to_st_bytes()
    assert isinstance(image, bytes) and len(image) % 64 == 0
    assert image[:8] == b"SNAPTOK\0"
    assert snaptok.Tokenizer.from_str(text).to_st_bytes() == image, name
    assert snaptok.Tokenizer.from_buffer(image).to_st_bytes() == image, name


def test_from_buffer_takes_any_bytes_like():
    tok = snaptok.Tokenizer.from_file(str(GPT2))
    image = tok.to_st_bytes()
    want = tok.encode(TEXTS[1]).ids
    for data in (image, bytearray(image), memoryview(image)):
        assert snaptok.Tokenizer.from_buffer(data).encode(TEXTS[1]).ids == want
    with pytest.raises(TypeError, match="data"):
        snaptok.Tokenizer.from_buffer(12)


def test_settings_travel_in_the_file():
    tok = snaptok.Tokenizer.from_file(str(GPT2))
    tok.enable_truncation(7, stride=2, direction="left")
    tok.enable_padding(length=10, pad_id=5, pad_token="<pad>")
    tok.encode_special_tokens = True
    back = snaptok.Tokenizer.from_buffer(tok.to_st_bytes())
    assert back.truncation == tok.truncation
    assert back.padding == tok.padding
    assert back.encode_special_tokens is True
    assert encoding_fields(back.encode(TEXTS[1])) == encoding_fields(tok.encode(TEXTS[1]))


def test_pickle_and_copy_keep_ids_and_settings():
    tok = snaptok.Tokenizer.from_file(str(T5))
    tok.enable_truncation(5)
    for other in (pickle.loads(pickle.dumps(tok)), copy.copy(tok), copy.deepcopy(tok)):
        assert other.truncation == tok.truncation
        assert other.encode(TEXTS[0]).ids == tok.encode(TEXTS[0]).ids
    clone = copy.deepcopy(tok)
    clone.no_truncation()
    assert tok.truncation is not None  # a copy's settings are its own
    assert len(clone.encode(TEXTS[0]).ids) > 5


def _encode_in_worker(tok_and_text):
    tok, text = tok_and_text
    return tok.encode(text).ids


def test_spawn_pool_receives_the_tokenizer():
    tok = snaptok.Tokenizer.from_file(str(GPT2))
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        got = pool.map(_encode_in_worker, [(tok, t) for t in TEXTS])
    assert got == [tok.encode(t).ids for t in TEXTS]


def test_st_cache_sidecar_follows_the_json(tmp_path):
    json_path = tmp_path / "tokenizer.json"
    json_path.write_text(trained("wordlevel"), encoding="utf-8")
    sidecar = tmp_path / "tokenizer.json.st"
    first = snaptok.Tokenizer.from_file(str(json_path), st_cache=True)
    assert sidecar.is_file()
    image = sidecar.read_bytes()
    again = snaptok.Tokenizer.from_file(str(json_path), st_cache=True)
    assert again.encode(TEXTS[0]).ids == first.encode(TEXTS[0]).ids
    assert sidecar.read_bytes() == image  # mapped, not rewritten

    hf = HfTokenizer.from_file(str(json_path))
    hf.add_tokens(["quick brown"])  # a changed JSON: the sidecar is rebuilt
    hf.save(str(json_path))
    changed = snaptok.Tokenizer.from_file(str(json_path), st_cache=True)
    assert changed.encode(TEXTS[0]).ids == hf.encode(TEXTS[0]).ids != first.encode(TEXTS[0]).ids
    assert sidecar.read_bytes() != image

    custom = tmp_path / "elsewhere.st"
    snaptok.Tokenizer.from_file(str(json_path), st_cache=custom)
    assert custom.is_file()
    with pytest.raises(TypeError, match="st_cache"):
        snaptok.Tokenizer.from_file(str(json_path), st_cache=3)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_st_cache_in_a_read_only_folder_still_loads(tmp_path):
    json_path = tmp_path / "tokenizer.json"
    json_path.write_bytes(GPT2.read_bytes())
    tmp_path.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        tok = snaptok.Tokenizer.from_file(str(json_path), st_cache=True)
        assert tok.encode("Hello world").ids == [15496, 995]
        assert not (tmp_path / "tokenizer.json.st").exists()
    finally:
        tmp_path.chmod(stat.S_IRWXU)


def test_damaged_files_get_clear_errors(tmp_path):
    image = snaptok.Tokenizer.from_file(str(GPT2)).to_st_bytes()
    with pytest.raises(snaptok.SnaptokError):  # not .st, so read as tokenizer.json: bad JSON
        snaptok.Tokenizer.from_buffer(b"{" * 100)
    with pytest.raises(snaptok.SnaptokError, match="truncated"):
        snaptok.Tokenizer.from_buffer(image[: len(image) // 2])
    flipped = bytearray(image)
    flipped[len(image) // 3] ^= 0x10
    with pytest.raises(snaptok.SnaptokError, match="checksum mismatch"):
        snaptok.Tokenizer.from_buffer(bytes(flipped))
    path = tmp_path / "broken.st"
    path.write_bytes(image[:4096])
    with pytest.raises(snaptok.SnaptokError, match=r"broken\.st: truncated"):
        snaptok.Tokenizer.from_file(str(path))
    with pytest.raises(snaptok.SnaptokError, match="missing.st: cannot open file"):
        snaptok.Tokenizer.from_file(str(tmp_path / "missing.st"))
    with pytest.raises(snaptok.SnaptokError, match="cannot write"):
        snaptok.Tokenizer.from_file(str(GPT2)).save_st(str(tmp_path / "no" / "dir.st"))


def test_cli_convert_writes_a_file_that_loads_and_encodes(tmp_path, capsys):
    out = tmp_path / "gpt2.st"
    assert cli.main(["convert", str(GPT2), "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().err
    tok = snaptok.Tokenizer.from_file(str(out))
    assert tok.encode("Hello world").ids == [15496, 995]
    assert out.read_bytes() == snaptok.Tokenizer.from_file(str(GPT2)).to_st_bytes()

    npz = tmp_path / "ids.npz"
    text = tmp_path / "in.txt"
    text.write_text("Hello world", encoding="utf-8")
    assert cli.main(["encode", str(text), "-t", str(out), "-o", str(npz), "-q"]) == 0
    import numpy as np
    assert np.load(npz)["ids"].tolist() == [15496, 995]

    local = tmp_path / "t5" / "tokenizer.json"
    local.parent.mkdir()
    local.write_bytes(T5.read_bytes())
    assert cli.main(["convert", str(local.parent), "-q"]) == 0  # a folder; default output
    assert (local.parent / "tokenizer.st").is_file()
    assert cli.main(["convert", "gpt2"]) == 2  # a built-in name needs -o
    assert "give -o" in capsys.readouterr().err
    assert cli.main(["convert", str(GPT2), "-o", str(GPT2)]) == 2
    assert cli.main(["convert", str(tmp_path / "nope.json"), "-o", str(out)]) == 2


def _mapping_of(path: Path) -> dict:
    """The /proc/self/smaps fields (kB) of the mapping of `path`."""
    lines = Path("/proc/self/smaps").read_text().split("\n")
    for i, line in enumerate(lines):
        if line.endswith(str(path)):
            fields = {}
            for entry in lines[i + 1:]:
                key, _, value = entry.partition(":")
                if not value.strip().endswith("kB"):
                    break
                fields[key] = int(value.split()[0])
            return fields
    raise AssertionError(f"{path} is not mapped")


@pytest.mark.skipif(sys.platform != "linux", reason="page sharing is read from /proc")
def test_two_processes_share_the_mapped_pages(tmp_path):
    # A loaded .st maps its tables and never copies them: with a second
    # process holding the same file, the pages count as shared in both.
    path = tmp_path / "gpt2.st"
    snaptok.Tokenizer.from_file(str(GPT2)).save_st(str(path))
    import subprocess
    child = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, snaptok; t = snaptok.Tokenizer.from_file(sys.argv[1]); "
         "t.encode('warm up ' * 100); print('ready', flush=True); sys.stdin.read()", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        tok = snaptok.Tokenizer.from_file(str(path))
        tok.encode(TEXTS[0] * 10)
        fields = _mapping_of(path)
        assert fields["Anonymous"] == 0, fields  # no page was copied on write
        shared = fields["Shared_Clean"] + fields["Shared_Dirty"]
        assert shared >= 0.9 * fields["Rss"] > 0, fields
        del tok
    finally:
        child.stdin.close()
        child.wait(timeout=30)
