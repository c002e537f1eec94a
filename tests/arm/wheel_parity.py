"""Checks an unpacked aarch64 snaptok wheel from inside Debian's arm64 Python
under qemu (tests/arm/run_wheel_qemu.sh runs it): snaptok imports from the
wheel, loads Oniguruma and simdjson from the wheel's snaptok.libs/ (the
Python root has neither), and gives Hugging Face's ids of
tests/arm/parity_ids.json (computed on x86) for every text under every
tokenizer there, with and without special tokens, one text at a time and as
one batch. Needs nothing but the standard library and the wheel (no NumPy).

Prints one line, e.g. "NEON: 6 tokenizers x 15 texts equal to HF (Python 3.11.2)";
exits 1 listing the differences otherwise.

Usage: python3.11 tests/arm/wheel_parity.py SITE_DIR   (the unpacked wheel)
"""

import json
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    site = Path(sys.argv[1]).resolve()
    sys.path.insert(0, str(site))
    import snaptok

    module = Path(snaptok.__file__).resolve()
    assert module.is_relative_to(site), f"snaptok imported from {module}, not from the wheel in {site}"
    assert platform.machine() == "aarch64", platform.machine()
    maps = Path("/proc/self/maps").read_text()
    for lib in ("libonig", "libsimdjson"):
        paths = {line.split()[-1] for line in maps.splitlines() if lib in line}
        assert paths and all("/snaptok.libs/" in p for p in paths), f"{lib} loaded from {paths or 'nowhere'}"

    data = json.loads((ROOT / "tests" / "arm" / "parity_ids.json").read_text(encoding="utf-8"))
    texts = data["texts"]
    differences = []
    for case in data["cases"]:
        text = (ROOT / "tests" / "data" / case["file"]).read_text(encoding="utf-8")
        if case["replace"]:
            old, new = case["replace"]
            assert text.count(old) == 1, f"{case['name']}: the text to replace is not there once"
            text = text.replace(old, new)
        tok = snaptok.Tokenizer.from_str(text)
        for special, key in ((False, "ids"), (True, "ids_with_special")):
            batch = [e.ids for e in tok.encode_batch(texts, add_special_tokens=special)]
            for i, (want, in_batch) in enumerate(zip(case[key], batch)):
                alone = tok.encode(texts[i], add_special_tokens=special).ids
                if alone != want or in_batch != want:
                    differences.append(f"{case['name']}, text {i}, {key}: HF {want[:12]}..., "
                                       f"encode {alone[:12]}..., encode_batch {in_batch[:12]}...")
    if differences:
        print(f"{snaptok.simd_target()}: {len(differences)} differences from HF", *differences[:20], sep="\n")
        return 1
    print(f"{snaptok.simd_target()}: {len(data['cases'])} tokenizers x {len(texts)} texts equal to HF "
          f"(Python {platform.python_version()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
