"""Parity with HF tokenizers: a CI-sized run of tests/parity/run_parity.py,
plus property tests on random Unicode text.

Without ../shared/data: every tokenizer in tests/data on the builtin corpora
(edge cases, sample text, every added token next to text, 64 KB strings
without a space). With it: also every shared and synthetic tokenizer on the
builtin corpora and a few documents of each shared corpus. The full run is
`python tests/parity/run_parity.py` (see its --help).
"""

import sys
from pathlib import Path

import pytest

tokenizers = pytest.importorskip("tokenizers")
snaptok = pytest.importorskip("snaptok")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as hst  # noqa: E402
from tokenizers import Tokenizer as HfTokenizer  # noqa: E402
from tokenizers import (decoders, models, normalizers, pre_tokenizers,  # noqa: E402
                        processors, trainers)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "parity"))
import run_parity as rp  # noqa: E402

SHARED = rp.default_shared()
HAVE_SHARED = (SHARED / "tokenizers").is_dir() and (SHARED / "corpus").is_dir()

CI_BUILTIN = ["builtin/edge", "builtin/sample", "builtin/added", "builtin/long"]


@pytest.fixture(autouse=True, scope="module")
def _release_tokenizers():
    # Drop cached tokenizers before interpreter exit (nanobind reports
    # instances still alive at shutdown as leaks).
    yield
    rp._LOADED.clear()
    _BUILT.clear()


def assert_parity(specs, corpora, opts):
    results = rp.run_all(specs, corpora, opts, jobs=1)
    assert results, "nothing was compared"
    bad = [r for r in results if rp.failed(r)]
    assert not bad, "\n" + rp.format_report(results)
    # HF must load every tokenizer the project ships.
    refused = [r for r in results if r.error]
    assert not refused, "\n" + rp.format_report(results)


# ------------------------------------------------------------ the harness

DATA_SPECS = rp.discover_tokenizers(None, None, include_shared=False)


def test_tests_data_has_tokenizers():
    names = [s.name for s in DATA_SPECS]
    assert "data/gpt2" in names, names
    assert len(names) >= 2, names


@pytest.mark.parametrize("spec", DATA_SPECS, ids=lambda s: s.name)
def test_tests_data_tokenizers(spec):
    opts = rp.Options(shared=None, long_bytes=64 * 1024, max_long_seconds=0)
    assert_parity([spec], CI_BUILTIN, opts)


def shared_specs():
    if not HAVE_SHARED:
        return []
    return [s for s in rp.discover_tokenizers(SHARED, None)
            if not s.name.startswith("data/")]


@pytest.mark.skipif(not HAVE_SHARED, reason="../shared/data is absent")
@pytest.mark.parametrize("spec", shared_specs(), ids=lambda s: s.name)
def test_shared_tokenizers(spec):
    corpora = ["builtin/edge", "builtin/added"] + [
        c for c in rp.discover_corpora(SHARED, None) if not c.startswith("builtin/")]
    opts = rp.Options(shared=str(SHARED), max_docs=1, doc_bytes=800,
                      pair_every=3, pair_chars=120, added_limit=20,
                      max_long_seconds=0)
    assert_parity([spec], corpora, opts)


# .st: every tokenizer converted, mapped, and compared with HF on the same
# documents (the full run: `run_parity.py --via-st`).

@pytest.mark.parametrize("spec", DATA_SPECS, ids=lambda s: s.name)
def test_tests_data_tokenizers_via_st(spec):
    opts = rp.Options(shared=None, long_bytes=64 * 1024, max_long_seconds=0, via_st=True)
    assert_parity([spec], CI_BUILTIN, opts)


@pytest.mark.skipif(not HAVE_SHARED, reason="../shared/data is absent")
@pytest.mark.parametrize("spec", shared_specs(), ids=lambda s: s.name)
def test_shared_tokenizers_via_st(spec):
    corpora = ["builtin/edge", "builtin/sample"]
    opts = rp.Options(shared=str(SHARED), pair_every=3, pair_chars=120, added_limit=20,
                      max_long_seconds=0, via_st=True)
    assert_parity([spec], corpora, opts)


# ------------------------------------------- the harness catches mismatches


def perturb(name, value):
    if name == "tokens":
        return value + "X"
    if name == "offsets":
        return (value[0], value[1] + 1)
    if name == "word_ids":
        return (value or 0) + 100
    return value + 1


class Perturbed:
    """Wraps a snaptok tokenizer, changing one field of its encodings."""

    def __init__(self, inner, field):
        self.inner, self.field = inner, field

    def encode(self, text, pair=None, add_special_tokens=True):
        enc = self.inner.encode(text, pair, add_special_tokens=add_special_tokens)
        outer = self

        class Enc:
            def __getattr__(self, name):
                value = getattr(enc, name)
                if name == outer.field and len(value):
                    value = list(value)
                    value[-1] = perturb(name, value[-1])
                return value
        return Enc()

    def decode(self, ids, skip_special_tokens=True):
        out = self.inner.decode(ids, skip_special_tokens=skip_special_tokens)
        return out + "!" if self.field == "decode" else out


@pytest.mark.parametrize("field", ["ids", "tokens", "offsets", "word_ids",
                                   "attention_mask", "decode"])
def test_harness_reports_a_mismatch(field, monkeypatch):
    spec = next(s for s in DATA_SPECS if s.name == "data/gpt2")
    hf, st, _, _ = rp.load_both(spec)
    monkeypatch.setitem(rp._LOADED, (spec.path, False), (hf, Perturbed(st, field), None, None))
    opts = rp.Options(shared=None, max_long_seconds=0)
    result = rp.run_corpus(spec, "builtin/sample", opts)
    assert result.mismatches == result.docs > 0
    assert result.first["field"] == field
    assert rp.failed(result)
    assert field in rp.format_report([result])


def test_harness_counts_a_refused_tokenizer_as_failure(tmp_path, monkeypatch):
    # A file HF loads but this build refuses (simulated: an unknown type for
    # snaptok only) is a failure; one HF refuses is skipped.
    spec = rp.TokenizerSpec("data/fake", str(tmp_path / "tokenizer.json"))
    monkeypatch.setitem(rp._LOADED, (spec.path, False),
                        (object(), None, None, "SnaptokError: unknown type"))
    r = rp.run_corpus(spec, "builtin/edge", rp.Options(shared=None))
    assert rp.failed(r) and "snaptok refuses" in r.error
    monkeypatch.setitem(rp._LOADED, (spec.path, False), (None, None, "Exception: bad", None))
    r = rp.run_corpus(spec, "builtin/edge", rp.Options(shared=None))
    assert not rp.failed(r)


def test_documents_are_cut_at_line_boundaries(tmp_path):
    path = tmp_path / "c.txt"
    lines = [f"line {i} " + "x" * (i % 50) + "\n" for i in range(500)]
    path.write_text("".join(lines))
    docs = rp.file_documents(path, 300, 0)
    assert "".join(docs) == "".join(lines)
    assert all(d.endswith("\n") for d in docs)
    assert all(len(d) < 300 + 70 for d in docs)
    few = rp.file_documents(path, 300, 5)
    assert len(few) == 5 and few[0] == docs[0]


def test_cli_exit_status(capsys):
    code = rp.main(["--no-shared", "--tokenizers", "data/gpt2", "--corpus",
                    "builtin/edge", "--jobs", "1", "--max-long-seconds", "0"])
    out = capsys.readouterr().out
    assert "data/gpt2" in out
    assert code == 0, out
    assert rp.main(["--no-shared", "--tokenizers", "no-such-*"]) == 2


# ------------------------------------------------------ property tests

TRAIN_TEXT = [line for line in rp.SAMPLE_TEXT.splitlines() if line] * 4 + \
    [e for e in rp.EDGE_CASES if e.strip()]


def trained_bpe_bytelevel():
    tok = HfTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    tok.train_from_iterator(TRAIN_TEXT, trainers.BpeTrainer(
        vocab_size=600, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    return tok.to_str()


def trained_wordpiece_bert():
    tok = HfTokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator(TRAIN_TEXT, trainers.WordPieceTrainer(
        vocab_size=500, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
        show_progress=False))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")),
                        ("[SEP]", tok.token_to_id("[SEP]"))])
    return tok.to_str()


def trained_unigram_metaspace():
    tok = HfTokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(TRAIN_TEXT, trainers.UnigramTrainer(
        vocab_size=600, special_tokens=["<unk>", "</s>"], unk_token="<unk>",
        show_progress=False))
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>",
        special_tokens=[("</s>", tok.token_to_id("</s>"))])
    return tok.to_str()


PROPERTY_TOKENIZERS = {
    "gpt2": lambda: (ROOT / "tests" / "data" / "gpt2" / "tokenizer.json").read_text(),
    "bpe-bytelevel": trained_bpe_bytelevel,
    "wordpiece-bert": trained_wordpiece_bert,
    "unigram-metaspace": trained_unigram_metaspace,
}

_BUILT = {}


def pair_for(name):
    if name not in _BUILT:
        tok_json = PROPERTY_TOKENIZERS[name]()
        _BUILT[name] = (HfTokenizer.from_str(tok_json),
                        snaptok.Tokenizer.from_str(tok_json))
    return _BUILT[name]


# Random Unicode (every plane, controls, unassigned, private use; no
# surrogates) mixed with pieces that stress pre-tokenizers and normalizers.
PIECES = [" ", "  ", "\t", "\n", "\r\n", "'s", "'M", "'ll", "\u00a0", "\u3000",
          "\u0301", "\u200d", "\ufe0f", "😀", "👍🏽", "🇯🇵", "123", "4567",
          "ﬁ", "Ａ", "é", "क्ष", "<|endoftext|>", "[CLS]", "</s>", "\x00", "\x7f"]
UNICODE_TEXT = hst.lists(
    hst.one_of(
        hst.text(alphabet=hst.characters(blacklist_categories=("Cs",)),
                 min_size=1, max_size=12),
        hst.text(alphabet=hst.characters(min_codepoint=0x10000,
                                         max_codepoint=0x10FFFF,
                                         blacklist_categories=("Cs",)),
                 min_size=1, max_size=4),
        hst.text(alphabet=hst.characters(max_codepoint=0x9F), min_size=1,
                 max_size=8),
        hst.sampled_from(PIECES),
    ),
    max_size=20,
).map("".join)


@pytest.mark.parametrize("name", list(PROPERTY_TOKENIZERS))
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow,
                                 HealthCheck.function_scoped_fixture])
@given(text=UNICODE_TEXT, pair=hst.one_of(hst.none(), UNICODE_TEXT),
       add_special=hst.booleans())
def test_random_unicode(name, text, pair, add_special):
    hf, st = pair_for(name)
    diff = rp.compare_case(hf, st, text, pair, add_special, rp.ALL_FIELDS)
    assert diff is None, (f"{name}: field {diff[0]} index {diff[1]}: "
                          f"HF {diff[2]!r} snaptok {diff[3]!r}")
