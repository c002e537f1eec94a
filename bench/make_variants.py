"""Writes the tokenizer files of issue 45's configurations off the registry
(bench/off_registry_suite.sh): the shared GPT-2, o200k and Phi-3 files with
the pre-tokenizer or normalizer of other families swapped in, as HF's
converters write them. Each is checked to load in HF `tokenizers`.

    .venv/bin/python bench/make_variants.py OUT_DIR [SHARED_DATA]

Prints one line per file: name, then path.
"""

import copy
import json
import sys
from pathlib import Path

import tokenizers

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def byte_level(use_regex):
    return {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": use_regex}


def split(pattern, behavior="Isolated"):
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": False}


def sequence(*steps):
    return {"type": "Sequence", "pretokenizers": list(steps)}


def variants(shared: Path):
    """Yields (name, tokenizer.json dict)."""
    def load(name):
        return json.loads((shared / "tokenizers" / name / "tokenizer.json").read_text(encoding="utf-8"))

    def with_pre(base, pre):
        out = copy.deepcopy(base)
        out["pre_tokenizer"] = pre
        return out

    gpt2, o200k, phi3 = load("gpt2"), load("o200k"), load("phi-3")
    yield "gpt2-digits-bytelevel", with_pre(gpt2, sequence({"type": "Digits", "individual_digits": True},
                                                           byte_level(True)))  # StarCoder2, SmolLM
    yield "gpt2-single-digit", with_pre(gpt2, sequence(split(GPT2_PATTERN.replace(r" ?\p{N}+", r" ?\p{N}")),
                                                       byte_level(False)))
    single = copy.deepcopy(o200k)
    steps = single["pre_tokenizer"]["pretokenizers"]
    steps[0]["pattern"]["Regex"] = steps[0]["pattern"]["Regex"].replace(r"\p{N}{1,3}", r"\p{N}")
    yield "o200k-single-digit", single
    yield "gpt2-bloom-split", with_pre(gpt2, sequence(split(" ?[^(\\s|[.,!?…。，、।۔،])]+"), byte_level(False)))
    yield "gpt2-five-splits", with_pre(gpt2, sequence(
        split(r"\p{N}{1,3}"), split(r"[一-龥\u3040-ゟ゠-ヿ]+"), split(r"[\r\n]+"),
        split(r" ?[^\s\p{L}\p{N}]+"), split(r" ?\p{L}+"), byte_level(False)))  # code models
    yield "gpt2-falcon-pre", with_pre(gpt2, load("falcon")["pre_tokenizer"])
    gemma = copy.deepcopy(phi3)
    gemma["normalizer"] = {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}
    gemma["pre_tokenizer"] = split(" ", "MergedWithPrevious")
    yield "phi3-gemma-layout", gemma


def main(out: Path, shared: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, tok in variants(shared):
        path = out / f"{name}.json"
        path.write_text(json.dumps(tok, ensure_ascii=False), encoding="utf-8")
        tokenizers.Tokenizer.from_file(str(path))  # HF loads it
        print(name, path)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2] if len(sys.argv) > 2 else "../shared/data"))
