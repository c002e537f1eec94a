"""Writes tests/arm/parity_ids.json: Hugging Face `tokenizers`' ids for a
handful of texts under the bundled tokenizers of tests/data and variants of
GPT-2 that swap its pre-tokenizer for the split patterns of cl100k, o200k,
Qwen2 and DeepSeek V3 (each a different snaptok scanner). The C++ test
tests/cpp/test_platform_parity.cpp encodes the same texts on whatever
machine runs it (aarch64 under qemu in tests/arm/run_qemu.sh) and must get
these ids.

A variant is stored as a text replacement in the bundled tokenizer.json
(`replace`: [old, new], old found exactly once), so nothing but ids is
vendored.

Usage: .venv/bin/python tests/arm/gen_parity_ids.py   (tokenizers 0.23.3)
"""

import json
from pathlib import Path

import tokenizers

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "arm" / "parity_ids.json"

GPT2 = "gpt2/tokenizer.json"
T5 = "spm-botchan-unigram-1000-t5/tokenizer.json"
GPT2_PRE = '"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true}'

SPLITS = {
    "cl100k": r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"
              r"|\s++$|\s*[\r\n]|\s+(?!\S)|\s",
    "o200k": r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
             r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
             r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
             r"|\s+(?!\S)|\s+",
}
DEEPSEEK_V3 = [
    r"\p{N}{1,3}",
    "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
    "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
]


def split(pattern: str) -> dict:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}


def byte_level_after(*patterns: str) -> dict:
    return {"type": "Sequence", "pretokenizers": [split(p) for p in patterns] + [
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]}


def texts() -> list[str]:
    sample = (ROOT / "python" / "snaptok" / "data" / "sample.txt").read_text(encoding="utf-8")
    out = [
        "",
        "Hello world",
        "I'm sure they'll say WE'VE won; don't they? It's 12345678 and 3.14159.",
        "def f(x):\n\tif x:\n        return [x, x ** 2]  # note\r\n\r\n    pass\n",
        " " * 70 + "spaces" + " " * 3 + "\n" * 5 + "\t \u00a0\u3000end",
        "na\u00efve caf\u00e9 \u00c5ngstr\u00f6m e\u0301 \uff21\uff22\uff23 \ufb01 \u2163 \u00bd",
        "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\u3002\u4e2d\u6587\u5b57\u7b26 \ud55c\uad6d\uc5b4 \u0627\u0644\u0639\u0631\u0628\u064a\u0629"
        " \u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22 \u0939\u093f\u0928\u094d\u0926\u0940",
        "emoji \U0001f469\u200d\U0001f469\u200d\U0001f467 \U0001f44d\U0001f3fd flags \U0001f1eb\U0001f1f7 \u2764\ufe0f x\U0001f600y",
        "<|endoftext|>between<|endoftext|> <|endoftext|>",
        "a" * 200 + " " + "9" * 67 + " " + "-" * 65 + "'s'S'll",
        "MixedCASE camelCaseWords HTTPServer iPhone XMLHttpRequest __init__ snake_case_name",
        "https://example.com/path?q=1&r=[2]#frag user@example.org C:\\dir\\file.txt",
    ]
    # Slices of the bundled sample text (prose, crossing many 64-byte blocks).
    for at in (0, 40_000, 150_000):
        out.append(sample[at:at + 1500])
    return out


def main() -> None:
    data = (ROOT / "tests" / "data")
    gpt2 = (data / GPT2).read_text(encoding="utf-8")
    assert gpt2.count(GPT2_PRE) == 1, "the GPT-2 pre_tokenizer text changed"
    cases = [{"name": "gpt2", "file": GPT2, "replace": None},
             {"name": "t5-unigram", "file": T5, "replace": None}]
    variants = {name: byte_level_after(p) for name, p in SPLITS.items()}
    variants["deepseek-v3"] = byte_level_after(*DEEPSEEK_V3)
    for name, pre in variants.items():
        new = '"pre_tokenizer":' + json.dumps(pre, separators=(",", ":"))
        cases.append({"name": f"gpt2-vocab-{name}-split", "file": GPT2, "replace": [GPT2_PRE, new]})

    docs = texts()
    for case in cases:
        text = (data / case["file"]).read_text(encoding="utf-8")
        if case["replace"]:
            old, new = case["replace"]
            text = text.replace(old, new)
        tok = tokenizers.Tokenizer.from_str(text)
        tok.no_truncation()
        tok.no_padding()
        for special in (False, True):
            key = "ids_with_special" if special else "ids"
            case[key] = [e.ids for e in tok.encode_batch(docs, add_special_tokens=special)]

    out = {"generator": "tests/arm/gen_parity_ids.py", "tokenizers": tokenizers.__version__,
           "texts": docs, "cases": cases}
    OUT.write_text(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(cases)} tokenizers, {len(docs)} texts)")


if __name__ == "__main__":
    main()
