"""Split patterns recognised by structure (issue 45, part 1).

A tokenizer whose Split pattern is one step from a listed one (o200k with
\\p{N}, cl100k with \\p{N}{1,2}, GPT-2 with ` ?\\p{N}`, a respelling such as
[\\p{L}] for \\p{L}) runs on the hand-written scanner of its family
(include/snaptok/scanners/pattern_family.hpp) instead of Oniguruma. Each
file here is GPT-2's vocabulary under Sequence[Split(pattern), ByteLevel]:
its ids must equal HF's on varied text, the fused byte-level path must take
it, and (the sign that every Split runs on a scanner) it must be able to cut
documents; near misses must not.
"""

import json
import random
from pathlib import Path

import pytest

import snaptok

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer as HfTokenizer  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GPT2 = ROOT / "tests" / "data" / "gpt2" / "tokenizer.json"
SAMPLE = (ROOT / "python" / "snaptok" / "data" / "sample.txt").read_text(encoding="utf-8")

CONTRACTIONS = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)"
PREFIX = r"[^\r\n\p{L}\p{N}]"
UPPER = r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]"
LOWER = r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"
SPACES = r"\s*[\r\n]+|\s+(?!\S)|\s+"


def cl100k(digits=r"\p{N}{1,3}", letters=r"\p{L}+"):
    return rf"{CONTRACTIONS}|{PREFIX}?{letters}|{digits}| ?[^\s\p{{L}}\p{{N}}]+[\r\n]*|{SPACES}"


def o200k(digits=r"\p{N}{1,3}", suffix=CONTRACTIONS + "?"):
    return (rf"{PREFIX}?{UPPER}*{LOWER}+{suffix}|{PREFIX}?{UPPER}+{LOWER}*{suffix}|{digits}"
            rf"| ?[^\s\p{{L}}\p{{N}}]+[\r\n/]*|{SPACES}")


GPT2_SINGLE_DIGIT = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"

RECOGNISED = {
    "o200k \\p{N}": o200k(digits=r"\p{N}"),
    "o200k \\p{N}{1,2}": o200k(digits=r"\p{N}{1,2}"),
    "cl100k \\p{N}{1,2}": cl100k(digits=r"\p{N}{1,2}"),
    "cl100k \\p{N}+": cl100k(digits=r"\p{N}+"),
    "nemotron \\p{N}{1,3}": o200k(suffix=""),
    "cl100k [\\p{L}\\p{M}]+": cl100k(letters=r"[\p{L}\p{M}]+"),
    "gpt2 ?\\p{N}": GPT2_SINGLE_DIGIT,
    "gpt2 contractions reordered": r"'ll|'s|'d|'t|'re|'ve|'m| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
    "cl100k respelt": (r"'(?i:[sdmt]|ll|ve|re)|[^\n\r\p{N}\p{L}]?[\p{L}]+|\p{N}{1,3}"
                       r"| ?[^\p{L}\s\p{N}]+[\n\r]*|\s*[\n\r]|\s+(?!\S)|\s"),
}

NEAR_MISSES = {
    "o200k \\p{N}{2,3}": o200k(digits=r"\p{N}{2,3}"),
    "cl100k without \\s+(?!\\S)": cl100k().replace(r"|\s+(?!\S)", ""),
    "cl100k (?i) letters": cl100k(letters=r"(?i:\p{L}+)"),
    "cl100k extra alternative": cl100k() + "|x",
}


def byte_level_file(pattern: str) -> str:
    data = json.loads(GPT2.read_text(encoding="utf-8"))
    data["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
        ],
    }
    return json.dumps(data)


_CACHE = {}


def pair(pattern: str):
    if pattern not in _CACHE:
        text = byte_level_file(pattern)
        _CACHE[pattern] = (HfTokenizer.from_str(text), snaptok.Tokenizer.from_str(text))
    return _CACHE[pattern]


PIECES = ["a", "Z", "s", "S", "re", "LL", "'", "'", "\u2019", "\u017f", " ", " ", "  ", "\t", "\n", "\r\n",
          "\u00a0", "\u3000", "1", "42", "12345", "\u0663", "\u00b2", "!", "?!", "/", "//", "\u00e9", "e\u0301",
          "\u0301", "\u0416", "\u01c5", "\u02b0", "\u4e2d", "\u3042", "\U0001F600", "don't", " WE'LL", "Hello"]


def random_texts(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        yield "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 40)))


def texts():
    yield SAMPLE
    yield from SAMPLE.splitlines()[:200]
    yield from random_texts(45, 400)


@pytest.mark.parametrize("name", list(RECOGNISED))
def test_recognised_patterns_take_the_scanner_and_give_hf_ids(name):
    hf, st = pair(RECOGNISED[name])
    assert st.fused_path == "byte-level BPE"
    assert st.can_split_documents, f"{name}: the Split does not run on a scanner"
    for text in texts():
        want = hf.encode(text, add_special_tokens=False).ids
        assert st.encode_ids(text, add_special_tokens=False) == want, f"{name}: {text!r}"
        assert st.encode(text, add_special_tokens=False).ids == want, f"{name}: {text!r}"
    batch = list(random_texts(46, 200))
    assert [e.ids for e in st.encode_batch(batch, add_special_tokens=False)] == [
        e.ids for e in hf.encode_batch(batch, add_special_tokens=False)]


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_near_misses_stay_on_oniguruma_and_give_hf_ids(name):
    hf, st = pair(NEAR_MISSES[name])
    assert not st.can_split_documents, f"{name}: taken for a family member"
    for text in random_texts(47, 100):
        assert st.encode_ids(text, add_special_tokens=False) == hf.encode(text, add_special_tokens=False).ids
