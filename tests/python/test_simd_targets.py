"""The fused paths give HF's ids under every SIMD target.

SNAPTOK_SIMD is read once per process, so each target runs in its own
subprocess: it encodes the bundled sample text (and, when the shared data is
present, a slice of every corpus) with every byte-level tokenizer at hand,
and the SentencePiece-BPE, Unigram and WordPiece files of the shared data,
and compares each document's ids with HF's (truncation and padding off).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import snaptok

pytest.importorskip("tokenizers")

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
TOKENIZERS = [ROOT / "tests" / "data" / "gpt2" / "tokenizer.json"] + [
    SHARED / "tokenizers" / name / "tokenizer.json"
    for name in ("cl100k-hf-spelling", "cl100k-possessive", "o200k", "qwen2", "qwen3.5-mark",
                 "deepseek-v3", "kimi", "nemotron", "phi-3", "t5-small", "all-MiniLM-L6-v2")
]
TEXTS = [ROOT / "python" / "snaptok" / "data" / "sample.txt"] + sorted(
    (SHARED / "corpus").glob("*/*.txt") if SHARED.is_dir() else [])

DOC_CHARS = 2000
PER_FILE = 30_000


def documents() -> list[str]:
    docs = []
    for t in TEXTS:
        if t.is_file():
            data = t.read_text(encoding="utf-8")[:PER_FILE]
            docs += [data[i:i + DOC_CHARS] for i in range(0, len(data), DOC_CHARS)]
    return docs


CHILD = r"""
import json, sys
import snaptok
ref = json.load(open(sys.argv[1]))
bad = []
for p, want in ref["ids"].items():
    tok = snaptok.Tokenizer.from_file(p)
    tok.no_truncation()
    tok.no_padding()
    ids, offsets = tok.encode_to_numpy(ref["docs"], add_special_tokens=False, num_threads=1)
    for i, w in enumerate(want):
        if ids[offsets[i]:offsets[i + 1]].tolist() != w:
            bad.append(f"{p}: document {i} differs")
            break
print(json.dumps({"target": snaptok.simd_target(), "bad": bad}))
"""


def run_child(cap: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SNAPTOK_SIMD": cap}
    return subprocess.run([sys.executable, "-c", *args], env=env, capture_output=True, text=True,
                          timeout=900)


def distinct_targets() -> list[str]:
    """The caps that lead to different targets on this machine ("" is no
    cap: the best target, such as AVX3_DL)."""
    seen, caps = set(), []
    for cap in ("scalar", "sse4", "avx2", "avx3", ""):
        out = run_child(cap, "import snaptok; print(snaptok.simd_target())")
        name = out.stdout.strip()
        if out.returncode == 0 and name not in seen:
            seen.add(name)
            caps.append(cap)
    return caps


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    import tokenizers

    docs = documents()
    ids = {}
    for p in TOKENIZERS:
        if p.is_file():
            hf = tokenizers.Tokenizer.from_file(str(p))
            hf.no_truncation()
            hf.no_padding()
            ids[str(p)] = [e.ids for e in hf.encode_batch(docs, add_special_tokens=False)]
    path = tmp_path_factory.mktemp("simd") / "reference.json"
    path.write_text(json.dumps({"docs": docs, "ids": ids}))
    return path


@pytest.mark.parametrize("cap", distinct_targets(), ids=lambda cap: cap or "best")
def test_fused_path_equals_hf_under_every_target(cap, reference):
    out = run_child(cap, CHILD, str(reference))
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert not result["bad"], f"under {result['target']}: {result['bad']}"
