"""A tiktoken-compatible API on snaptok's engine.

Switch by changing one line: build the :class:`Encoding` from the same
arguments as ``tiktoken.Encoding`` (or from a local ``.tiktoken`` rank file,
or from a byte-level BPE ``tokenizer.json``) and every method gives what
tiktoken 0.14 gives for the same ranks, pattern and special tokens.

>>> import snaptok.tiktoken as tiktoken           # was: import tiktoken
>>> ranks = tiktoken.load_tiktoken_bpe("r50k_base.tiktoken")      # doctest: +SKIP
>>> enc = tiktoken.Encoding("r50k_base", pat_str=tiktoken.R50K_PAT_STR,
...                         mergeable_ranks=ranks,
...                         special_tokens={"<|endoftext|>": 50256})  # doctest: +SKIP
>>> enc.encode("hello world")
[31373, 995]

How it is exact: the ranks become a byte-level BPE in the engine where ANY
two adjacent symbols whose concatenation is a token merge at that token's
rank, lowest rank first and leftmost on ties, and a piece that is a token is
that token, which is tiktoken's byte-pair merge
(``Tokenizer._from_byte_ranks``). The split pattern is read with tiktoken's
regex meaning (see :func:`engine_pattern`). Special tokens are found here,
in Python, as tiktoken finds them, and the text between them is encoded by
the engine.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
from typing import AbstractSet, Collection, Literal, Sequence

from ._core import Tokenizer

__all__ = [
    "CL100K_PAT_STR",
    "Encoding",
    "O200K_PAT_STR",
    "R50K_PAT_STR",
    "byte_level_chars",
    "engine_pattern",
    "load_tiktoken_bpe",
]

R50K_PAT_STR = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
"""tiktoken's split pattern of gpt2, r50k_base and p50k_base.

>>> Encoding.from_tokenizer_json(path, pat_str=R50K_PAT_STR).encode("hello world")
[31373, 995]
"""
CL100K_PAT_STR = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
"""tiktoken's split pattern of cl100k_base."""
O200K_PAT_STR = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
"""tiktoken's split pattern of o200k_base."""

# cl100k in the spelling whose Oniguruma matches are tiktoken's: Oniguruma
# reads tiktoken's \p{N}{1,3}+ as (?:\p{N}{1,3})+ (whole digit runs), where
# tiktoken's regex engine reads a possessive {1,3} (at most three digits).
_CL100K_ENGINE = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
_KNOWN_PATTERNS = {CL100K_PAT_STR: _CL100K_ENGINE}

_POSSESSIVE_INTERVAL = re.compile(r"(?<!\\)\{\d+(?:,\d*)?\}\+")


def engine_pattern(pat_str: str) -> str:
    """Returns the pattern the engine runs for tiktoken's ``pat_str``.

    tiktoken reads patterns with Rust's ``fancy-regex``; snaptok's engine
    with Oniguruma (as HF ``tokenizers``) or a hand-written scanner of the
    same matches. Where they read a pattern differently it is rewritten:
    cl100k's ``\\p{N}{1,3}+`` (possessive in tiktoken) becomes the spelling
    with the same matches; outside character classes ``$`` and ``^`` become
    ``\\z`` and ``\\A`` (tiktoken's mean the end and start of the text,
    Oniguruma's a line's). Any other possessive interval raises ValueError.
    tiktoken's r50k, cl100k and o200k patterns run on hand-written scanners.

    >>> engine_pattern(CL100K_PAT_STR) == CL100K_PAT_STR
    False
    >>> engine_pattern(R50K_PAT_STR) == R50K_PAT_STR   # scanner 'gpt2'
    True
    >>> engine_pattern(r"\\w+$|\\s+")
    '\\\\w+\\\\z|\\\\s+'
    """
    if pat_str in _KNOWN_PATTERNS:
        return _KNOWN_PATTERNS[pat_str]
    if pat_str in (R50K_PAT_STR, O200K_PAT_STR):
        return pat_str
    if _POSSESSIVE_INTERVAL.search(pat_str):
        raise ValueError(
            f"pat_str {pat_str!r}: a possessive interval such as {{1,3}}+ means a possessive "
            "repeat to tiktoken but a repeated group to Oniguruma; write it as an atomic "
            "group, e.g. (?>\\p{N}{1,3})"
        )
    out = []
    i, in_class = 0, 0
    while i < len(pat_str):
        c = pat_str[i]
        if c == "\\":
            out.append(pat_str[i : i + 2])
            i += 2
            continue
        if c == "[":
            in_class += 1
        elif c == "]" and in_class:
            in_class -= 1
        elif not in_class and c == "$":
            c = "\\z"
        elif not in_class and c == "^":
            c = "\\A"
        out.append(c)
        i += 1
    return "".join(out)


def load_tiktoken_bpe(path: str | os.PathLike[str]) -> dict[bytes, int]:
    """Reads a local ``.tiktoken`` rank file: one ``base64(token) rank`` per line.

    Blank lines are skipped; a malformed line raises ValueError naming it.

    >>> ranks = load_tiktoken_bpe("cl100k_base.tiktoken")   # doctest: +SKIP
    >>> ranks[b"hello"]                                      # doctest: +SKIP
    15339
    >>> with open(f"{tmp}/tiny.tiktoken", "w") as f:        # "aGk=" is base64 of b"hi"
    ...     _ = f.write("aA== 0\\naQ== 1\\naGk= 2\\n")
    >>> load_tiktoken_bpe(f"{tmp}/tiny.tiktoken")
    {b'h': 0, b'i': 1, b'hi': 2}
    """
    with open(path, "rb") as f:
        data = f.read()
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split()
        try:
            if len(fields) != 2:
                raise ValueError("expected two fields")
            ranks[base64.b64decode(fields[0], validate=True)] = int(fields[1])
        except ValueError as e:
            raise ValueError(
                f"{os.fspath(path)}:{number}: expected 'base64(token) rank', got {line[:80]!r} ({e})"
            ) from None
    return ranks


def byte_level_chars() -> dict[str, int]:
    """Returns GPT-2's byte-level table, char -> byte (the ByteLevel
    pre-tokenizer's): printable Latin-1 bytes stand for themselves, the
    others for U+0100 upward in byte order. It turns a byte-level
    tokenizer.json vocabulary into tiktoken ranks:

    >>> chars = byte_level_chars()
    >>> bytes(chars[c] for c in "\u0120world")
    b' world'
    """
    printable = [b for b in range(256) if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF]
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[chr(b)] = b
        else:
            chars[chr(0x100 + extra)] = b
            extra += 1
    return chars


_SPECIAL_DEFAULT: frozenset[str] = frozenset()


@functools.lru_cache(maxsize=128)
def _special_regex(tokens: frozenset[str]) -> re.Pattern[str]:
    # Longest first: at one position the longest special token wins.
    return re.compile("|".join(re.escape(t) for t in sorted(tokens, key=lambda t: (-len(t), t))))


def _raise_disallowed(token: str):
    raise ValueError(
        f"Encountered text corresponding to disallowed special token {token!r}.\n"
        "If you want this text to be encoded as a special token, "
        f"pass it to `allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
        "If you want this text to be encoded as normal text, disable the check for this token "
        f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
        "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
    )


def _without_surrogates(text: str) -> str:
    # What tiktoken does with text UTF-8 cannot hold: surrogate pairs become
    # their character, lone surrogates U+FFFD.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _check_token(token) -> None:
    # Raises what tiktoken raises for an id that cannot be a token at all.
    if not isinstance(token, int):
        raise TypeError(f"'{type(token).__name__}' object cannot be interpreted as an integer")
    if not 0 <= token < 2**32:
        raise OverflowError("out of range integral type conversion attempted")


class Encoding:
    """A tiktoken ``Encoding`` on snaptok's engine (same arguments, same ids).

    Args:
        name: the encoding's name (``repr`` and pickling show it).
        pat_str: the split pattern, as tiktoken reads it (:func:`engine_pattern`).
        mergeable_ranks: each token's bytes and its rank, which is its id;
            every single byte must have one.
        special_tokens: each special token's text and its id.
        explicit_n_vocab: when given, checked to be the number of ranks and
            special tokens and one past the largest id (AssertionError if not).

    >>> ranks = {bytes([b]): b for b in range(256)}
    >>> ranks[b"ab"] = 256
    >>> enc = Encoding("tiny", pat_str=r"\\S+|\\s+", mergeable_ranks=ranks,
    ...                special_tokens={"<|endoftext|>": 257})
    >>> enc.encode("ab a<|endoftext|>", allowed_special="all")
    [256, 32, 97, 257]
    >>> enc.decode([256, 32, 97])
    'ab a'

    The examples of the methods below use ``enc``, an Encoding of GPT-2's
    ranks (r50k_base, as in the module's example).
    """

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: dict[bytes, int],
        special_tokens: dict[str, int],
        explicit_n_vocab: int | None = None,
    ):
        self.name = name
        self._pat_str = pat_str
        self._mergeable_ranks = mergeable_ranks
        self._special_tokens = special_tokens
        self.max_token_value = max(
            max(mergeable_ranks.values()), max(special_tokens.values(), default=0)
        )
        if explicit_n_vocab:
            if len(mergeable_ranks) + len(special_tokens) != explicit_n_vocab:
                raise AssertionError(
                    f"explicit_n_vocab={explicit_n_vocab}, but there are {len(mergeable_ranks)} "
                    f"ranks and {len(special_tokens)} special tokens"
                )
            if self.max_token_value != explicit_n_vocab - 1:
                raise AssertionError(
                    f"explicit_n_vocab={explicit_n_vocab}, but the largest id is {self.max_token_value}"
                )
        self._special_token_values = set(special_tokens.values())
        self._core = Tokenizer._from_byte_ranks(engine_pattern(pat_str), mergeable_ranks)
        decoder = {rank: token.encode("utf-8") for token, rank in special_tokens.items()}
        decoder.update((rank, token) for token, rank in mergeable_ranks.items())
        self._decoder = decoder
        # Ids the engine does not hold (ranks win where a special token's id is a rank too).
        self._special_decoder = {rank: token.encode("utf-8") for token, rank in special_tokens.items()}
        self._special_bytes = {token.encode("utf-8"): rank for token, rank in special_tokens.items()}
        self._all_special = frozenset(special_tokens)

    @classmethod
    def from_tiktoken_file(
        cls,
        path: str | os.PathLike[str],
        *,
        pat_str: str,
        special_tokens: dict[str, int] | None = None,
        name: str | None = None,
        explicit_n_vocab: int | None = None,
    ) -> Encoding:
        """Builds an Encoding from a local ``.tiktoken`` rank file (:func:`load_tiktoken_bpe`).

        ``name`` defaults to the file's name without ``.tiktoken``.

        >>> enc = Encoding.from_tiktoken_file("cl100k_base.tiktoken", pat_str=CL100K_PAT_STR,
        ...                                   special_tokens={"<|endoftext|>": 100257})  # doctest: +SKIP
        >>> enc.encode("hello world")                                                  # doctest: +SKIP
        [15339, 1917]

        A file of GPT-2's ranks, written out from the Encoding ``enc`` of them:

        >>> import base64
        >>> with open(f"{tmp}/gpt2.tiktoken", "wb") as f:
        ...     for t in enc.token_byte_values():
        ...         _ = f.write(base64.b64encode(t) + b" %d\\n" % enc.encode_single_token(t))
        >>> gpt2 = Encoding.from_tiktoken_file(f"{tmp}/gpt2.tiktoken", pat_str=R50K_PAT_STR)
        >>> (gpt2.name, gpt2.encode("hello world"))
        ('gpt2', [31373, 995])
        """
        if name is None:
            name = os.path.basename(os.fspath(path))
            if name.endswith(".tiktoken"):
                name = name[: -len(".tiktoken")]
        return cls(
            name,
            pat_str=pat_str,
            mergeable_ranks=load_tiktoken_bpe(path),
            special_tokens=dict(special_tokens or {}),
            explicit_n_vocab=explicit_n_vocab,
        )

    @classmethod
    def from_tokenizer_json(
        cls, path: str | os.PathLike[str], *, name: str | None = None, pat_str: str | None = None
    ) -> Encoding:
        """Builds an Encoding from a byte-level BPE ``tokenizer.json`` whose ids are ranks.

        Accepted shapes (others raise ValueError saying what does not fit):

        - model: BPE with no dropout, byte fallback, subword prefix or
          word suffix; every vocabulary entry is byte-level text (GPT-2's
          byte-to-char table), all 256 bytes are in it, and the merges, in
          order, form tokens of non-decreasing id (so the ids are ranks);
        - normalizer: none;
        - pre_tokenizer: ``ByteLevel`` with its own regex and no prefix space
          (GPT-2; the pattern is then tiktoken's :data:`R50K_PAT_STR`), or a
          ``Sequence`` of one ``Split`` (a Regex, Isolated, not inverted)
          and ``ByteLevel`` without regex or prefix space (cl100k, o200k,
          Llama 3, ...); ``pat_str`` overrides the pattern;
        - added tokens: all special; they become ``special_tokens`` (and
          leave the ranks when the vocabulary holds them too).

        The post-processor and decoder are not used: tiktoken adds no tokens
        around a text and decodes bytes. The Split regex is read as tiktoken
        reads ``pat_str`` (:func:`engine_pattern`), and ANY pair forming a
        token merges (tiktoken's rule), so where HF's Oniguruma or merge list
        says otherwise the ids are tiktoken's, not HF's.

        >>> enc = Encoding.from_tokenizer_json(path)   # path: GPT-2's tokenizer.json
        >>> enc.encode("hello world")
        [31373, 995]
        """
        where = os.fspath(path)
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)

        def fail(what: str):
            raise ValueError(f"{where}: {what}; from_tokenizer_json takes a byte-level BPE whose ids are ranks")

        model = doc.get("model") or {}
        if model.get("type", "BPE") != "BPE" or "merges" not in model or "vocab" not in model:
            fail(f"model is {model.get('type', 'untyped')!r}, not BPE")
        for key in ("continuing_subword_prefix", "end_of_word_suffix"):
            if model.get(key):
                fail(f"model.{key} is {model[key]!r}")
        if model.get("dropout"):
            fail(f"model.dropout is {model['dropout']!r}")
        if model.get("byte_fallback"):
            fail("model.byte_fallback is true")
        if doc.get("normalizer"):
            fail(f"normalizer is {doc['normalizer'].get('type')!r}")
        pre = doc.get("pre_tokenizer") or {}
        if pre.get("type") == "ByteLevel":
            if pre.get("add_prefix_space") or not pre.get("use_regex", True):
                fail("pre_tokenizer ByteLevel adds a prefix space or has no regex")
            pattern = R50K_PAT_STR
        elif pre.get("type") == "Sequence" and len(pre.get("pretokenizers", [])) == 2:
            split, level = pre["pretokenizers"]
            regex = (split.get("pattern") or {}).get("Regex")
            if split.get("type") != "Split" or regex is None or split.get("behavior") != "Isolated" or split.get("invert"):
                fail("pre_tokenizer[0] is not a Split on a Regex, Isolated, not inverted")
            if level.get("type") != "ByteLevel" or level.get("add_prefix_space") or level.get("use_regex", True):
                fail("pre_tokenizer[1] is not ByteLevel without regex or prefix space")
            pattern = regex
        else:
            fail(f"pre_tokenizer {json.dumps(pre)[:120]} is neither ByteLevel nor [Split, ByteLevel]")
        chars = byte_level_chars()
        vocab: dict[str, int] = model["vocab"]
        special_tokens: dict[str, int] = {}
        for added in doc.get("added_tokens") or []:
            if not added.get("special"):
                fail(f"added token {added.get('content')!r} is not special")
            special_tokens[added["content"]] = added["id"]
        ranks: dict[bytes, int] = {}
        for token, rank in vocab.items():
            if token in special_tokens and special_tokens[token] == rank:
                continue
            try:
                ranks[bytes(chars[c] for c in token)] = rank
            except KeyError:
                fail(f"vocabulary token {token!r} is not byte-level text")
        last = -1
        for i, merge in enumerate(model["merges"]):
            left, right = merge.split(" ") if isinstance(merge, str) else merge
            formed = vocab.get(left + right)
            if formed is None:
                fail(f"merge {i} forms {left + right!r}, which is not in the vocabulary")
            if formed < last:
                fail(f"merge {i} forms id {formed} after a merge formed id {last}, so ids are not ranks")
            last = formed
        if name is None:
            name = os.path.basename(os.path.dirname(os.path.abspath(where))) or "tokenizer"
        return cls(
            name,
            pat_str=pattern if pat_str is None else pat_str,
            mergeable_ranks=ranks,
            special_tokens=special_tokens,
        )

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"

    def __getstate__(self) -> object:
        return {
            "name": self.name,
            "pat_str": self._pat_str,
            "mergeable_ranks": self._mergeable_ranks,
            "special_tokens": self._special_tokens,
        }

    def __setstate__(self, value: dict) -> None:
        self.__init__(**value)

    # Encoding ---------------------------------------------------------------

    def encode_ordinary(self, text: str) -> list[int]:
        """Encodes ``text``, special tokens' text included, as ordinary text.

        The same as ``encode(text, disallowed_special=())``.

        >>> enc.encode_ordinary("hello world")
        [31373, 995]
        """
        try:
            return self._core.encode_ids(text)
        except UnicodeEncodeError:
            return self._core.encode_ids(_without_surrogates(text))

    def _allowed_and_disallowed(self, allowed_special, disallowed_special):
        if allowed_special == "all":
            allowed_special = self.special_tokens_set
        if disallowed_special == "all":
            disallowed_special = self.special_tokens_set - allowed_special
        return allowed_special, disallowed_special

    def _check_disallowed(self, text: str, disallowed) -> None:
        if disallowed:
            if not isinstance(disallowed, frozenset):
                disallowed = frozenset(disallowed)
            if match := _special_regex(disallowed).search(text):
                _raise_disallowed(match.group())

    def _segments(self, text: str, allowed) -> tuple[list[str], list[int]]:
        # Splits text at the allowed special tokens, found as tiktoken finds
        # them (a special token that is not allowed is passed over, the
        # search going on one char after its start): returns the texts
        # between them (one more than there are specials) and their ids.
        pieces: list[str] = []
        specials: list[int] = []
        regex = _special_regex(self._all_special)
        start = 0
        while True:
            pos = start
            while (match := regex.search(text, pos)) is not None and match.group() not in allowed:
                pos = match.start() + 1
            if match is None:
                pieces.append(text[start:])
                return pieces, specials
            pieces.append(text[start : match.start()])
            specials.append(self._special_tokens[match.group()])
            start = match.end()

    def _encode_allowed(self, text: str, allowed) -> list[int]:
        if not allowed or not self._all_special:
            return self._core.encode_ids(text)
        pieces, specials = self._segments(text, allowed)
        ids = self._core.encode_ids(pieces[0])
        for special, piece in zip(specials, pieces[1:]):
            ids.append(special)
            if piece:
                ids.extend(self._core.encode_ids(piece))
        return ids

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = _SPECIAL_DEFAULT,
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """Encodes ``text``, with tiktoken's special-token rules.

        Text of a special token in ``allowed_special`` ("all": every one)
        becomes that token; text of one in ``disallowed_special`` (by
        default every special token not allowed) raises ValueError; any
        other is encoded as ordinary text.

        >>> enc.encode("hello world")
        [31373, 995]
        >>> enc.encode("<|endoftext|>", allowed_special={"<|endoftext|>"})
        [50256]
        >>> enc.encode("<|endoftext|>", disallowed_special=())
        [27, 91, 437, 1659, 5239, 91, 29]
        >>> enc.encode("<|endoftext|>")
        Traceback (most recent call last):
        ValueError: Encountered text corresponding to disallowed special token '<|endoftext|>'...
        """
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        self._check_disallowed(text, disallowed)
        try:
            return self._encode_allowed(text, allowed)
        except UnicodeEncodeError:
            return self._encode_allowed(_without_surrogates(text), allowed)

    def encode_to_numpy(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = _SPECIAL_DEFAULT,
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ):
        """Encodes ``text`` as :meth:`encode` does into a NumPy uint32 array.

        Unlike :meth:`encode`, text with surrogates raises UnicodeEncodeError (as tiktoken).

        >>> enc.encode_to_numpy("hello world")
        array([31373,   995], dtype=uint32)
        """
        import numpy as np

        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        self._check_disallowed(text, disallowed)
        if not allowed or not self._all_special:
            return self._core.encode_to_numpy([text], False)[0]
        return np.asarray(self._encode_allowed(text, allowed), dtype=np.uint32)

    def _encode_texts(self, texts: list[str], num_threads: int) -> list[list[int]]:
        # The ordinary ids of every text, encoded in parallel by the engine.
        try:
            flat, offsets = self._core.encode_to_numpy(texts, False, num_threads)
        except UnicodeEncodeError:
            flat, offsets = self._core.encode_to_numpy([_without_surrogates(t) for t in texts], False, num_threads)
        ids, bounds = flat.tolist(), offsets.tolist()
        return [ids[bounds[i] : bounds[i + 1]] for i in range(len(texts))]

    def encode_ordinary_batch(self, text: list[str], *, num_threads: int = 8) -> list[list[int]]:
        """Encodes every text as :meth:`encode_ordinary`, on ``num_threads`` threads.

        >>> enc.encode_ordinary_batch(["hello world", "goodbye world"])
        [[31373, 995], [11274, 16390, 995]]
        """
        return self._encode_texts(list(text), num_threads)

    def encode_batch(
        self,
        text: list[str],
        *,
        num_threads: int = 8,
        allowed_special: Literal["all"] | AbstractSet[str] = _SPECIAL_DEFAULT,
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[list[int]]:
        """Encodes every text as :meth:`encode`, on ``num_threads`` threads.

        The first text (in order) holding a disallowed special token raises.

        >>> enc.encode_batch(["hello world", "goodbye world"])
        [[31373, 995], [11274, 16390, 995]]
        """
        texts = list(text)
        allowed, disallowed = self._allowed_and_disallowed(allowed_special, disallowed_special)
        if not isinstance(disallowed, frozenset):
            disallowed = frozenset(disallowed)
        for t in texts:
            self._check_disallowed(t, disallowed)
        if not allowed or not self._all_special:
            return self._encode_texts(texts, num_threads)
        pieces: list[str] = []
        layout: list[list[int]] = []
        for t in texts:
            parts, specials = self._segments(t, allowed)
            pieces.extend(parts)
            layout.append(specials)
        encoded = iter(self._encode_texts(pieces, num_threads))
        out = []
        for specials in layout:
            ids = next(encoded)
            for special in specials:
                ids.append(special)
                ids.extend(next(encoded))
            out.append(ids)
        return out

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """Returns the id of the one token whose text (or bytes) is given.

        Special tokens count; anything else raises KeyError.

        >>> enc.encode_single_token("hello")
        31373
        """
        piece = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else text_or_bytes
        if not isinstance(piece, bytes):
            raise TypeError(f"'{type(piece).__name__}' object is not an instance of 'bytes'")
        rank = self._mergeable_ranks.get(piece)
        if rank is None:
            rank = self._special_bytes.get(piece)
        if rank is None:
            raise KeyError(piece)
        return rank

    # Decoding ---------------------------------------------------------------

    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        """Returns the bytes of ``tokens``, joined.

        An id that is no token raises ``KeyError('Invalid token for decoding: N')``.

        >>> enc.decode_bytes([31373, 995])
        b'hello world'
        """
        try:
            fast = self._core._byte_level_bytes(tokens, self._special_decoder)
        except (TypeError, OverflowError):
            fast = None
        if fast is not None:
            return fast
        decoder = self._decoder
        try:
            return b"".join(map(decoder.__getitem__, tokens))
        except KeyError:
            for t in tokens:
                if t not in decoder:
                    _check_token(t)
                    raise KeyError(f"Invalid token for decoding: {t}") from None
            raise

    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        """Returns the text of ``tokens``; bytes that are not UTF-8 follow ``errors``.

        >>> enc.decode([31373, 995])
        'hello world'
        """
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token: int) -> bytes:
        """Returns the bytes of one token (special tokens too); KeyError for no token.

        >>> enc.decode_single_token_bytes(31373)
        b'hello'
        """
        try:
            return self._decoder[token]
        except KeyError:
            _check_token(token)
            raise KeyError(str(token)) from None

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> list[bytes]:
        """Returns the bytes of each token.

        >>> enc.decode_tokens_bytes([31373, 995])
        [b'hello', b' world']
        """
        return [self.decode_single_token_bytes(t) for t in tokens]

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """Returns the text of ``tokens`` and the char offset where each starts.

        A token that starts inside a char (a UTF-8 continuation byte) gets the
        offset of that char. Bytes that are not UTF-8 raise UnicodeDecodeError.

        >>> enc.decode_with_offsets([31373, 995])
        ('hello world', [0, 5])
        """
        token_bytes = self.decode_tokens_bytes(tokens)
        offsets = []
        chars = 0
        for piece in token_bytes:
            inside = 1 if 0x80 <= piece[0] < 0xC0 else 0
            offsets.append(max(0, chars - inside))
            chars += len(piece.translate(None, _CONTINUATION_BYTES))
        return b"".join(token_bytes).decode("utf-8", errors="strict"), offsets

    def decode_batch(
        self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int = 8
    ) -> list[str]:
        """Returns :meth:`decode` of each id list (``num_threads`` is accepted).

        >>> enc.decode_batch([[31373], [995]])
        ['hello', ' world']
        """
        return [self.decode(tokens, errors=errors) for tokens in batch]

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int = 8) -> list[bytes]:
        """Returns :meth:`decode_bytes` of each id list (``num_threads`` is accepted).

        >>> enc.decode_bytes_batch([[31373], [995]])
        [b'hello', b' world']
        """
        return [self.decode_bytes(tokens) for tokens in batch]

    # Miscellaneous ----------------------------------------------------------

    def token_byte_values(self) -> list[bytes]:
        """Returns the bytes of every mergeable token, sorted.

        >>> enc.token_byte_values()[:2]
        [b'\\x00', b'\\x01']
        """
        return sorted(self._mergeable_ranks)

    @property
    def eot_token(self) -> int:
        """The id of ``<|endoftext|>`` (KeyError when there is none).

        >>> enc.eot_token
        50256
        """
        return self._special_tokens["<|endoftext|>"]

    @functools.cached_property
    def special_tokens_set(self) -> set[str]:
        """The special tokens' texts.

        >>> enc.special_tokens_set
        {'<|endoftext|>'}
        """
        return set(self._special_tokens.keys())

    def is_special_token(self, token: int) -> bool:
        """True when ``token`` is a special token's id.

        >>> enc.is_special_token(50256)
        True
        """
        assert isinstance(token, int)
        return token in self._special_token_values

    @property
    def n_vocab(self) -> int:
        """One past the largest id (``max_token_value + 1``), as tiktoken.

        >>> enc.n_vocab
        50257
        """
        return self.max_token_value + 1

    @property
    def tokenizer(self) -> Tokenizer:
        """The snaptok Tokenizer that encodes ordinary text (``save_st``, ``encode_batch``, ...).

        >>> enc.tokenizer.fused_path
        'byte-level BPE'
        """
        return self._core


_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))
