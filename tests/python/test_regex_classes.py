"""Every code point's membership in the regex classes tokenizer patterns use
(\\p{L}, \\p{N}, \\p{M}, \\s, \\w, the letter subclasses, \\p{Han}, negations and
intersections) is the same in snaptok as in the pinned `tokenizers`.

snaptok runs regexes on the system Oniguruma but pins Unicode classes to
ranges generated from `tokenizers` (tools/gen_regex_classes.py); this test
is what proves the pinning, over U+0000..U+10FFFF (surrogates excluded)."""

import pytest

tokenizers = pytest.importorskip("tokenizers")
snaptok = pytest.importorskip("snaptok")

from parity_helpers import pipeline_json  # noqa: E402

PATTERNS = [
    r"\p{L}",
    r"\p{N}",
    r"\p{M}",
    r"\s",
    r"\w",
    r"\d",
    r"\p{P}",
    r"\p{S}",
    r"\p{Lu}",
    r"\p{Ll}",
    r"\p{Lt}",
    r"\p{Lm}",
    r"\p{Lo}",
    r"\p{Han}",
    r"\P{L}",
    r"\p{^N}",
    r"[^\s\p{L}\p{N}]",
    r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]",
]

ALL_CODE_POINTS = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


def split_tokenizer(pattern: str) -> str:
    """A WordLevel tokenizer whose pieces are the text between class members."""
    return pipeline_json(
        pre_tokenizer={
            "type": "Split",
            "pattern": {"Regex": pattern},
            "behavior": "Removed",
            "invert": False,
        }
    )


@pytest.mark.parametrize("pattern", PATTERNS)
def test_class_membership_of_every_code_point(pattern):
    spec = split_tokenizer(pattern)
    hf = tokenizers.Tokenizer.from_str(spec).encode(ALL_CODE_POINTS, add_special_tokens=False)
    st = snaptok.Tokenizer.from_str(spec).encode(ALL_CODE_POINTS, add_special_tokens=False)
    # The offsets of the pieces left over are exactly the non-members.
    assert len(st.offsets) == len(hf.offsets)
    for mine, theirs in zip(st.offsets, hf.offsets):
        if mine != theirs:
            first = ALL_CODE_POINTS[min(mine[0], theirs[0])]
            pytest.fail(f"{pattern}: pieces differ at U+{ord(first):04X}: {mine} vs {theirs}")
