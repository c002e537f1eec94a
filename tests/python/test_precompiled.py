"""Precompiled normalizer (SentencePiece charsmap): parity with HF tokenizers.

The normalizer is checked three ways:
- through a "byte probe" tokenizer (Precompiled + ByteLevel without regex +
  BPE over the 256 byte symbols, no merges), whose tokens spell out every byte
  of the normalized text and whose offsets give every byte's alignment, on
  every code point U+0000..U+10FFFF and on pairs that expose the grapheme
  cluster walk HF does;
- with hand-built tries (a small Darts double-array builder below) that
  exercise expansions, deletions, multi-char keys and the shortest-prefix rule;
- through real SentencePiece-converted tokenizers (tests/data, and
  ../shared/data when present) on corpus text and NFKC-sensitive strings.
Bad charsmaps must give a SnaptokError naming the JSON path, never a crash.
"""

import base64
import json
import os
import random
import struct
from pathlib import Path

import pytest

tokenizers = pytest.importorskip("tokenizers")
snaptok = pytest.importorskip("snaptok")

from tokenizers import Tokenizer as HfTokenizer  # noqa: E402
from tokenizers import decoders, models, pre_tokenizers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
SHARED = Path(os.environ.get("SNAPTOK_SHARED_DATA", ROOT / ".." / "shared" / "data"))
BOTCHAN = DATA / "spm-botchan-unigram-1000-t5" / "tokenizer.json"

ALL_CPS = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


# ---------------------------------------------------------------- helpers


def find_precompiled(node):
    """Returns the first Precompiled normalizer dict inside `node`."""
    if not node:
        return None
    if node.get("type") == "Precompiled":
        return node
    for child in node.get("normalizers", []):
        found = find_precompiled(child)
        if found:
            return found
    return None


def botchan_charsmap():
    return find_precompiled(json.loads(BOTCHAN.read_text())["normalizer"])[
        "precompiled_charsmap"]


def probe_json(normalizer):
    """A tokenizer whose tokens are the bytes of the normalized text."""
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    tok = HfTokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)},
                                 merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False,
                                                 use_regex=False)
    tok.decoder = decoders.ByteLevel()
    data = json.loads(tok.to_str())
    data["normalizer"] = normalizer
    return json.dumps(data)


def precompiled(charsmap_b64):
    return {"type": "Precompiled", "precompiled_charsmap": charsmap_b64}


def load_pair(tok_json):
    return HfTokenizer.from_str(tok_json), snaptok.Tokenizer.from_str(tok_json)


def compare(hf, st, texts, fields=("ids", "tokens", "offsets")):
    """Asserts snaptok == HF on every text; reports the first difference."""
    for text in texts:
        a = hf.encode(text)
        b = st.encode(text)
        for field in fields:
            va, vb = list(getattr(a, field)), list(getattr(b, field))
            if va != vb:
                n = next((i for i, (x, y) in enumerate(zip(va, vb)) if x != y),
                         min(len(va), len(vb)))
                pytest.fail(
                    f"{field} differ on {text[:80]!r} "
                    f"({[hex(ord(c)) for c in text[:12]]}) at index {n}: "
                    f"HF {va[n:n + 4]} snaptok {vb[n:n + 4]} "
                    f"(lengths {len(va)} / {len(vb)})")


def chunks(items, sep, size):
    """Joins `items` with `sep` into documents of `size` items each."""
    return [sep.join(items[i:i + size]) for i in range(0, len(items), size)]


class DartsBuilder:
    """Builds a valid Darts-clone double array for {key bytes: replacement}.

    Each trie node gets a fresh 256-unit block (so no collisions); a node's
    children sit at base ^ label, its leaf value at base ^ 0. The charsmap is
    [u32 trie bytes][units][replacements, each followed by NUL].
    """

    def __init__(self, rules):
        self.rules = {k.encode() if isinstance(k, str) else k: v
                      for k, v in rules.items()}

    def build(self):
        trie = {}
        for key in self.rules:
            node = trie
            for b in key:
                node = node.setdefault(b, {})
            node[None] = key
        strings, value_of = b"", {}
        for key, repl in self.rules.items():
            value_of[key] = len(strings)
            strings += repl.encode() + b"\0"
        blocks = []

        def new_block():
            blocks.append([0] * 256)
            return (len(blocks) - 1) * 256

        units = {}
        new_block()  # block 0 holds the root unit, at 0
        base = new_block()
        units[0] = base << 10
        todo = [(trie, base)]
        while todo:
            node, base = todo.pop()
            for label, child in node.items():
                if label is None:
                    continue
                pos = base ^ label
                child_base = new_block()
                leaf = None in child
                units[pos] = ((pos ^ child_base) << 10) | (0x100 if leaf else 0) \
                    | label
                if leaf:
                    units[child_base] = value_of[child[None]] | (1 << 31)
                todo.append((child, child_base))
        n = len(blocks) * 256
        arr = [0] * n
        for pos, unit in units.items():
            arr[pos] = unit
        trie_bytes = struct.pack(f"<{n}I", *arr)
        return struct.pack("<I", len(trie_bytes)) + trie_bytes + strings


def b64(blob):
    return base64.b64encode(blob).decode()


# ------------------------------------------------------- the real charsmap


@pytest.fixture(scope="module")
def nmt_probe():
    return load_pair(probe_json(precompiled(botchan_charsmap())))


def test_every_code_point_alone(nmt_probe):
    # LF always ends a grapheme cluster (GB4/GB5), so each code point is
    # normalized in isolation; offsets check every byte's alignment.
    hf, st = nmt_probe
    docs = chunks([chr(c) for c in ALL_CPS], "\n", 2048)
    compare(hf, st, docs)


def test_clusters_after_a_mapped_char(nmt_probe):
    # U+00AA maps to "a"; when the next char joins its cluster (Extend,
    # SpacingMark, ZWJ), HF replaces the whole cluster by "a".
    hf, st = nmt_probe
    bmp = [chr(c) for c in ALL_CPS if c < 0x10000]
    compare(hf, st, chunks(["\u00aa" + c for c in bmp], "\n", 1024))
    compare(hf, st, chunks([c + "\u00aa" for c in bmp], "\n", 1024))
    compare(hf, st, chunks(["\uff21" + chr(c) for c in range(0x80, 0x800)],
                           "\n", 256))


NFKC_STRINGS = [
    "ＡＢＣ　ｄｅｆ　１２３！？",              # full-width forms, ideographic space
    "ﬁﬂﬃ ﬀ ﬆ ǆ Ǳ ĳ",                      # ligatures
    "™ ℠ ℡ № ℃ ℉ Ω K Å ½ ¼ ⅞ ² ³ ¹ ⁴ ₅",    # compatibility symbols
    "① ⑳ ㉑ ⒜ ⓐ Ⓐ ㈱ ㍿ ㌔ ㋿",              # enclosed / squared
    "Ⅻ ⅻ ⅰⅱⅲ",                             # roman numerals
    "e\u0301 a\u0300\u0301\u0302 o\u0308\u0304 \u0041\u030a",  # combining
    "\u1e9b\u0323 \u0071\u0307\u0323 \u00c5\u0327",
    "ｶﾞｷﾞｸﾞ ﾊﾟﾋﾟ ｱｲｳｴｵ",                 # half-width katakana
    "👨\u200d👩\u200d👧\u200d👦 🏳\ufe0f\u200d🌈 👍🏽 1\ufe0f\u20e3 🇯🇵🇺🇸🇫",
    "क्षत्रिय ज्ञान क\u094d\u200dष",          # Indic conjuncts (GB9c)
    "\u0915\u093c \u0958 \u09a1\u09bc \u0b21\u0b3c",
    "한국어 \u1100\u1161\u11a8 ᄀᄀᄀ각ᆨᆨ",      # Hangul L/V/T
    "\u00a0\u2000\u2009\u200b\u200c\u200d\u2028\u2029\u202f\u205f\ufeff",
    "tab\there\x0bvt\x0cff\rcr\r\nlf\x00nul\x01\x1f\x7f\x80\x9f",
    "\u2122\x1eg \u00aa\u0301 \uff21\u0301x",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟏𝟐𝟑 𝐀𝐁𝐂",                     # mathematical alphanumerics
    "Straße İstanbul ΣΑΣ ﬅ ǅ",
    "…‥ ‼ ⁇ ‐‑‒–—― ′″ ‴",
    "\U000e0041\U000e0001 \U000f0000 \U0010fffd",
]


def test_nfkc_sensitive_strings(nmt_probe):
    hf, st = nmt_probe
    compare(hf, st, NFKC_STRINGS)
    compare(hf, st, [" ".join(NFKC_STRINGS)])


def test_random_mixtures(nmt_probe):
    hf, st = nmt_probe
    rng = random.Random(20231129)
    pool = list("aA e1 \t\r\n") + [
        "\u0301", "\u0308", "\u200d", "\u094d", "\u0915", "\u0937", "\u093f",
        "\U0001F600", "\U0001F1E6", "\U0001F1E8", "\U0001F3FD", "\uff21",
        "\u00aa", "\u3000", "\ufe0f", "\u1100", "\u1161", "\u11a8", "\uac00",
        "\u0600", "\u0e33", "\u2122", "\x1e", "\ufb01", "\u00bd", "\u0000",
    ] + [chr(rng.choice(ALL_CPS)) for _ in range(200)]
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(1, 40)))
             for _ in range(3000)]
    compare(hf, st, texts)


# ------------------------------------------------------ hand-built tries

RULES = {
    "a": "",                 # deletion
    "b": "xyz",              # expansion
    "cd": "C",               # two-char key, no rule for "c" alone
    "e\u0301": "\u00e9",     # a whole cluster
    "\u00aa": "a",           # shortest prefix wins over "\u00aa\u0301"
    "\u00aa\u0301": "NO",
    "\uff21": "A",
    "\U0001F600": ":)",
    "\U0001F1E6\U0001F1E8": "[AC]",   # one cluster of two regional indicators
    "\u0915\u094d": "K",
    "\u2122": "TM",
    "\x1e": "",
    "z": "\u00e9\u00e9",
    "\u0937\u0301": "SH",   # only a cluster when no conjunct precedes (GB9c)
    "\u00a9\u0301": "C!",   # only a cluster when no emoji ZWJ precedes (GB11)
    "\u0600": "#",          # Prepend: takes the next char into its cluster
}


@pytest.fixture(scope="module")
def toy_probe():
    blob = DartsBuilder(RULES).build()
    return load_pair(probe_json(precompiled(b64(blob))))


def test_toy_trie(toy_probe):
    hf, st = toy_probe
    texts = [
        "", "a", "aaa", "bab", "b", "cd", "c", "cdcd", "ccd", "e\u0301",
        "e\u0301\u0301", "\u00aa", "\u00aa\u0301", "\u00aa\u0301\u0301x",
        "\uff21\u0301", "\U0001F600", "\U0001F600\U0001F3FD",
        "\U0001F1E6\U0001F1E8\U0001F1E6\U0001F1E8\U0001F1E6",
        "\u0915\u094d\u0937", "\u2122\x1eg", "\x1e\x1ea", "a\x1e", "za",
        "xyz abz", "abcde\u0301\u00aa\u2122\x1e\U0001F600",
        "\u0937\u0301", "\u0915\u0937\u0301", "\u0915\u094d\u0937\u0301",
        "\u0915\u094d\u0301\u0937\u0301", "\u0915\u093c\u094d\u0937\u0301",
        "\u094d\u0937\u0301", "a\u094d\u0937\u0301",
        "\u00a9\u0301", "\u00a9\u200d\u00a9\u0301",
        "\u00a9\u0308\u200d\u00a9\u0301", "a\u200d\u00a9\u0301",
        "\u0600a", "\u0600\u0600a", "\u0600 ", "\u0600\n", "\u0600\u0301",
        "\u0600\U0001F600",
    ]
    compare(hf, st, texts)
    rng = random.Random(7)
    pool = list("abcdez \n") + ["e\u0301", "\u0301", "\u00aa", "\uff21",
                                "\U0001F600", "\U0001F1E6", "\U0001F1E8",
                                "\u0915", "\u094d", "\u2122", "\x1e", "\u200d",
                                "\u0937", "\u00a9", "\u0600", "\u093c"]
    compare(hf, st, ["".join(rng.choice(pool) for _ in range(rng.randint(1, 25)))
                     for _ in range(3000)])


def test_trie_with_unaligned_size_and_empty_replacement_table():
    # A trie size that is not a multiple of 4 leaves its tail bytes to the
    # replacement strings (as spm_precompiled reads it).
    blob = DartsBuilder({"q": "Q"}).build()
    size = struct.unpack_from("<I", blob)[0]
    hacked = struct.pack("<I", size + 3) + blob[4:]
    tok_json = probe_json(precompiled(b64(hacked)))
    try:
        hf = HfTokenizer.from_str(tok_json)
        hf.encode("q")
    except BaseException:  # noqa: BLE001 (HF panics are BaseException)
        with pytest.raises(snaptok.SnaptokError):
            snaptok.Tokenizer.from_str(tok_json)
        return
    compare(hf, snaptok.Tokenizer.from_str(tok_json), ["q", "qq", "xq"])


# ------------------------------------------------------------ bad blobs


def hf_outcome(tok_json, text="abc"):
    """'ok', 'load' (HF refuses the file) or 'encode' (HF panics on text)."""
    try:
        hf = HfTokenizer.from_str(tok_json)
    except BaseException:  # noqa: BLE001
        return "load"
    try:
        hf.encode(text)
    except BaseException:  # noqa: BLE001
        return "encode"
    return "ok"


def with_trailing_bits(blob):
    """Base64 of `blob` whose last symbol carries non-zero unused bits."""
    blob = blob + b"\0" * ((1 - len(blob)) % 3)  # len % 3 == 1: "XY=="
    text = b64(blob)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = alphabet.index(text[-3])
    return text[:-3] + alphabet[last | 1] + "=="


GOOD = DartsBuilder({"a": "b", "\u00e9": "e"}).build()
# Blob bytes chosen so that its base64 uses '+' and '/'.
PLUS_SLASH = DartsBuilder({"\u00fb\u00ef": "\u00ff\u00ff\u00ff>?"}).build()


@pytest.mark.parametrize("name,text", [
    ("good", b64(GOOD)),
    ("unpadded", b64(GOOD + b"x").rstrip("=")),
    ("plus-slash", b64(PLUS_SLASH)),
])
def test_base64_accepted_like_hf(name, text):
    tok_json = probe_json(precompiled(text))
    assert hf_outcome(tok_json) == "ok", name
    compare(*load_pair(tok_json), ["abc \u00e9 \u00fb\u00ef"])


@pytest.mark.parametrize("name,text", [
    ("empty", ""),
    ("extra-pad", b64(GOOD) + "="),
    ("four-pads", b64(GOOD) + "===="),
    ("inner-space", b64(GOOD)[:8] + " " + b64(GOOD)[8:]),
    ("trailing-newline", b64(GOOD) + "\n"),
    ("url-safe", b64(PLUS_SLASH).replace("+", "-").replace("/", "_")),
    ("bad-char", b64(GOOD)[:-4] + "!!!!"),
    ("pad-inside", "AA==" + b64(GOOD)),
    ("trailing-bits", None),
    ("one-symbol", "A"),
    ("two-bytes", b64(b"\x04\x00")),
    ("truncated-trie", b64(GOOD[:100])),
    ("huge-trie-size", b64(struct.pack("<I", 1 << 30) + GOOD[4:])),
    ("bad-utf8-strings", b64(GOOD + b"\xff")),
    ("value-at-end", b64(GOOD[:-2])),  # "é" -> the empty tail: HF accepts
])
def test_bad_charsmap_is_an_error_naming_the_path(name, text):
    if name == "trailing-bits":
        text = with_trailing_bits(GOOD)
    tok_json = probe_json(precompiled(text))
    outcome = hf_outcome(tok_json)
    if outcome == "ok":
        # Not bad for HF either: then snaptok must agree with HF.
        compare(*load_pair(tok_json), ["abc \u00e9"])
        return
    with pytest.raises(snaptok.SnaptokError, match=r"normalizer\.precompiled_charsmap"):
        snaptok.Tokenizer.from_str(tok_json)


def corrupt(blob, unit_index, value):
    out = bytearray(blob)
    struct.pack_into("<I", out, 4 + 4 * unit_index, value)
    return bytes(out)


def test_trie_that_would_make_hf_panic_is_refused():
    size = struct.unpack_from("<I", GOOD)[0] // 4
    root_base = struct.unpack_from("<I", GOOD, 4)[0] >> 10
    pos_a = root_base ^ ord("a")
    unit_a = struct.unpack_from("<I", GOOD, 4 + 4 * pos_a)[0]
    cases = {
        # root offset far outside the array
        "root-offset": (corrupt(GOOD, 0, (size + 4096) << 10), "abc"),
        # the unit for "a" sends its child outside the array
        "child-offset": (corrupt(GOOD, pos_a, ((pos_a ^ (size + 4096)) << 10)
                                 | (unit_a & 0x3FF)), "abc"),
        # the leaf value of "a" points past the replacement strings
        "value-range": (None, "abc"),
        "empty-trie": (struct.pack("<I", 0) + b"b\0", "abc"),
    }
    child = pos_a ^ (unit_a >> 10)
    cases["value-range"] = (corrupt(GOOD, child, (1 << 31) | 10_000), "abc")
    for name, (blob, text) in cases.items():
        tok_json = probe_json(precompiled(b64(blob)))
        # HF loads these but panics while normalizing: snaptok refuses them
        # at load time with an error that names the field.
        assert hf_outcome(tok_json, text) in ("load", "encode"), name
        with pytest.raises(snaptok.SnaptokError,
                           match=r"normalizer\.precompiled_charsmap"):
            snaptok.Tokenizer.from_str(tok_json)


def test_error_path_inside_a_sequence():
    tok_json = probe_json({"type": "Sequence", "normalizers": [
        precompiled(b64(GOOD)), precompiled("!!!!")]})
    with pytest.raises(snaptok.SnaptokError,
                       match=r"normalizer\.normalizers\[1\]\.precompiled_charsmap"):
        snaptok.Tokenizer.from_str(tok_json)


def test_missing_or_null_charsmap():
    for normalizer in ({"type": "Precompiled"},
                       {"type": "Precompiled", "precompiled_charsmap": None},
                       {"type": "Precompiled", "precompiled_charsmap": 12}):
        tok_json = probe_json(normalizer)
        assert hf_outcome(tok_json) == "load"
        with pytest.raises(snaptok.SnaptokError, match="precompiled_charsmap"):
            snaptok.Tokenizer.from_str(tok_json)


def test_random_garbage_never_crashes():
    rng = random.Random(99)
    base = bytearray(GOOD)
    for _ in range(300):
        blob = bytearray(base)
        for _ in range(rng.randint(1, 8)):
            blob[rng.randrange(len(blob))] = rng.randrange(256)
        if rng.random() < 0.3:
            blob = blob[:rng.randrange(len(blob))]
        tok_json = probe_json(precompiled(b64(bytes(blob))))
        try:
            st = snaptok.Tokenizer.from_str(tok_json)
        except snaptok.SnaptokError as e:
            assert "precompiled_charsmap" in str(e)
            continue
        # snaptok accepted it: HF must then normalize the same way.
        texts = ["abc", "\u00e9a", "ba\u00e9\u0301", "".join(
            chr(rng.randrange(0x20, 0x300)) for _ in range(30))]
        hf = HfTokenizer.from_str(tok_json)
        for text in texts:
            assert hf.encode(text).tokens == st.encode(text).tokens, text


# ------------------------------------------------ real converted tokenizers


def corpus_texts():
    texts = list(NFKC_STRINGS)
    texts += [
        "Hello world! This is a test of the Precompiled normalizer.",
        "  leading and trailing spaces   ", "multiple   spaces\t\ttabs",
        "I'M here, You'Re there; they'VE gone.", "1234567890" * 8,
        "Ｔｈｅ ｑｕｉｃｋ ｂｒｏｗｎ ｆｏｘ", "Ce n'est pas ça. Über straße.",
        "日本語のテキストです。ｶﾀｶﾅ", "Привет, мир!", "مرحبا بالعالم",
    ]
    corpus = SHARED / "corpus"
    if corpus.is_dir():
        for path in sorted(corpus.glob("unicode/*")) + sorted(
                corpus.glob("multilingual/*")):
            lines = path.read_text(encoding="utf-8",
                                   errors="replace").splitlines()
            step = max(1, len(lines) // 150)
            texts += ["\n".join(lines[i:i + 3]) for i in range(0, len(lines), step)]
    return texts


def real_tokenizers():
    paths = [BOTCHAN]
    shared = SHARED / "tokenizers"
    if shared.is_dir():
        for path in sorted(shared.glob("*/tokenizer.json")):
            data = json.loads(path.read_text())
            if find_precompiled(data.get("normalizer")):
                paths.append(path)
    return paths


@pytest.mark.parametrize("path", real_tokenizers(),
                         ids=lambda p: p.parent.name)
def test_real_spm_tokenizers(path):
    hf = HfTokenizer.from_file(str(path))
    st = snaptok.Tokenizer.from_file(str(path))
    compare(hf, st, corpus_texts())


def test_untyped_charsmap_is_refused_like_hf():
    # spm_precompiled's form is tagged ("type": "Precompiled"), so HF's
    # untyped fallback never reads an object without the type as Precompiled.
    tok_json = probe_json({"precompiled_charsmap": b64(GOOD)})
    assert hf_outcome(tok_json) == "load"
    with pytest.raises(snaptok.SnaptokError):
        snaptok.Tokenizer.from_str(tok_json)
