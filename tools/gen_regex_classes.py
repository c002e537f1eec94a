#!/usr/bin/env python3
"""Generates include/snaptok/unicode/generated/regex_classes.hpp.

snaptok runs Split/Replace regexes on the system Oniguruma, whose Unicode data
may be older than the Oniguruma that the pinned `tokenizers` release bundles
(Debian 12's 6.9.8 knows Unicode 14; tokenizers 0.23.3 matches Unicode 16
letters). Before compiling a pattern, snaptok replaces each Unicode-dependent
class (\\p{..}, \\P{..}, \\w, \\d, POSIX brackets and their negations) by explicit
code point ranges taken from this file, so matching follows the pinned release.

Every range here is read off `tokenizers` itself: for each class, a Split
pre-tokenizer with pattern `\\p{X}` (behavior "removed") is run over every
code point U+0000..U+10FFFF (surrogates excluded); what it removes is the
class. Each class is probed twice, alone and inside a bracket (`[\\p{X}]`):
Oniguruma answers \\w (and \\p{Word}) from its Latin-1 ctype table for
U+0000..U+00FF outside a bracket, so `\\w` matches ² ³ ¹ ¼ ½ ¾ but `[\\w]`
does not. A class whose two sets differ gets one entry per context. POSIX
brackets (`[[:alnum:]]`, valid only inside a bracket) are probed the same way.

Usage: python tools/gen_regex_classes.py [--out FILE] [--workers N]
  (--out defaults to include/snaptok/unicode/generated/regex_classes.hpp)
Needs: tokenizers==0.23.3 (the version the project pins). Takes about a minute
on two cores. tools/check_generated.py regenerates it and diffs.
"""

import argparse
import io
import multiprocessing
import os
import sys

import tokenizers
from tokenizers import Regex, pre_tokenizers

PINNED = "0.23.3"

# (pattern probed, names that select it; onig ignores case, ' ', '_' and '-').
CLASSES = [
    (r"\p{L}", ["L", "Letter"]),
    (r"\p{Lu}", ["Lu", "Uppercase_Letter"]),
    (r"\p{Ll}", ["Ll", "Lowercase_Letter"]),
    (r"\p{Lt}", ["Lt", "Titlecase_Letter"]),
    (r"\p{Lm}", ["Lm", "Modifier_Letter"]),
    (r"\p{Lo}", ["Lo", "Other_Letter"]),
    (r"\p{M}", ["M", "Mark", "Combining_Mark"]),
    (r"\p{Mn}", ["Mn", "Nonspacing_Mark"]),
    (r"\p{Mc}", ["Mc", "Spacing_Mark"]),
    (r"\p{Me}", ["Me", "Enclosing_Mark"]),
    (r"\p{N}", ["N", "Number"]),
    (r"\p{Nd}", ["Nd", "Decimal_Number", "Digit"]),
    (r"\p{Nl}", ["Nl", "Letter_Number"]),
    (r"\p{No}", ["No", "Other_Number"]),
    (r"\p{P}", ["P", "Punctuation", "Punct"]),
    (r"\p{Pc}", ["Pc", "Connector_Punctuation"]),
    (r"\p{Pd}", ["Pd", "Dash_Punctuation"]),
    (r"\p{Ps}", ["Ps", "Open_Punctuation"]),
    (r"\p{Pe}", ["Pe", "Close_Punctuation"]),
    (r"\p{Pi}", ["Pi", "Initial_Punctuation"]),
    (r"\p{Pf}", ["Pf", "Final_Punctuation"]),
    (r"\p{Po}", ["Po", "Other_Punctuation"]),
    (r"\p{S}", ["S", "Symbol"]),
    (r"\p{Sm}", ["Sm", "Math_Symbol"]),
    (r"\p{Sc}", ["Sc", "Currency_Symbol"]),
    (r"\p{Sk}", ["Sk", "Modifier_Symbol"]),
    (r"\p{So}", ["So", "Other_Symbol"]),
    (r"\p{Z}", ["Z", "Separator"]),
    (r"\p{Zs}", ["Zs", "Space_Separator"]),
    (r"\p{Zl}", ["Zl", "Line_Separator"]),
    (r"\p{Zp}", ["Zp", "Paragraph_Separator"]),
    (r"\p{Cc}", ["Cc", "Control", "Cntrl"]),
    (r"\p{Cf}", ["Cf", "Format"]),
    (r"\p{Co}", ["Co", "Private_Use"]),
    (r"\p{Han}", ["Han", "Hani"]),
    (r"\p{Hiragana}", ["Hiragana", "Hira"]),
    (r"\p{Katakana}", ["Katakana", "Kana"]),
    (r"\p{Hangul}", ["Hangul", "Hang"]),
    (r"\p{Latin}", ["Latin", "Latn"]),
    (r"\p{Greek}", ["Greek", "Grek"]),
    (r"\p{Cyrillic}", ["Cyrillic", "Cyrl"]),
    (r"\p{Arabic}", ["Arabic", "Arab"]),
    (r"\p{Hebrew}", ["Hebrew", "Hebr"]),
    (r"\p{Thai}", ["Thai"]),
    (r"\p{Devanagari}", ["Devanagari", "Deva"]),
    (r"\p{Alpha}", ["Alpha", "Alphabetic"]),
    (r"\p{Alnum}", ["Alnum"]),
    (r"\p{Upper}", ["Upper", "Uppercase"]),
    (r"\p{Lower}", ["Lower", "Lowercase"]),
    (r"\p{Emoji}", ["Emoji"]),
    (r"\p{Emoji_Presentation}", ["Emoji_Presentation", "EPres"]),
    (r"\p{Math}", ["Math"]),
    (r"\p{Ideographic}", ["Ideographic", "Ideo"]),
    (r"\p{Common}", ["Common", "Zyyy"]),
    (r"\p{C}", ["C", "Other"]),
    (r"\p{Cn}", ["Cn", "Unassigned"]),
    (r"\p{Assigned}", ["Assigned"]),
    (r"\p{Print}", ["Print"]),
    (r"\p{Graph}", ["Graph"]),
    (r"\w", ["\\w", "Word"]),
    (r"\d", ["\\d"]),
    (r"\s", ["\\s", "Space", "White_Space"]),
]

# POSIX bracket names, exactly as Oniguruma spells them (lowercase only).
POSIX_BRACKETS = ["alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph",
                  "lower", "print", "punct", "space", "upper", "word", "xdigit"]


def code_points():
    return [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


def members(pattern, cps, text):
    # Every probed pattern is a class of single code points (no context), so
    # the text is split in chunks: one call over all 1.1M chars took 3x as
    # long in tokenizers' bookkeeping of its splits.
    removed_not = set()
    split = pre_tokenizers.Split(Regex(pattern), "removed")
    for at in range(0, len(text), 4096):
        for piece, _ in split.pre_tokenize_str(text[at:at + 4096]):
            removed_not.update(map(ord, piece))
    return [c for c in cps if c not in removed_not]


_CPS = code_points()
_TEXT = "".join(map(chr, _CPS))


def class_ranges(pattern):
    """Returns the ranges of the code points `pattern` matches (a pool job)."""
    return ranges(members(pattern, _CPS, _TEXT))


def ranges(sorted_cps):
    out = []
    for c in sorted_cps:
        if out and out[-1][1] + 1 == c:
            out[-1][1] = c
        elif out and 0xD800 <= out[-1][1] + 1 <= 0xDFFF and c == 0xE000 and out[-1][1] == 0xD7FF:
            out[-1][1] = c  # bridge the surrogate gap
        else:
            out.append([c, c])
    return out


def key(name):
    return name.lower().replace("_", "").replace(" ", "").replace("-", "")


def write_ranges(out, comment, ident, rs):
    out.write(f"// {comment}: {len(rs)} ranges\n")
    out.write(f"inline constexpr Range {ident}[] = {{\n")
    for j in range(0, len(rs), 6):
        out.write("    " + ", ".join(f"{{0x{a:X}, 0x{b:X}}}" for a, b in rs[j:j + 6]) + ",\n")
    out.write("};\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(
        here, "..", "include", "snaptok", "unicode", "generated",
        "regex_classes.hpp"), help="the header to write ('-': stdout)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    if tokenizers.__version__ != PINNED:
        raise SystemExit(f"tokenizers {tokenizers.__version__} found, "
                         f"{PINNED} pinned")

    # Every pattern probed, in the order the header lists them.
    probes = []
    for pattern, _ in CLASSES:
        probes += [pattern, f"[{pattern}]"]
    probes += [f"[[:{name}:]]" for name in POSIX_BRACKETS]
    if args.workers > 1:
        with multiprocessing.Pool(args.workers) as pool:
            found = dict(zip(probes, pool.map(class_ranges, probes, chunksize=1)))
    else:
        found = {p: class_ranges(p) for p in probes}

    out = io.StringIO()
    out.write("// GENERATED by tools/gen_regex_classes.py -- do not edit; rerun the generator\n")
    out.write("// (tools/check_generated.py regenerates it and diffs).\n")
    out.write(f"// Pinned to tokenizers=={PINNED}: each class is the set of code\n")
    out.write("// points a Split pre-tokenizer with that pattern matches in that release.\n")
    out.write("#pragma once\n\n#include <cstddef>\n#include <string_view>\n\n")
    out.write("namespace snaptok::unicode::regex_classes {\n\n")
    out.write("struct Range {\n  char32_t first;\n  char32_t last;\n};\n\n")
    table = []  # (key, ident, size, where)
    count = 0

    def emit(comment, rs):
        nonlocal count
        ident = f"kClass{count}"
        count += 1
        write_ranges(out, comment, ident, rs)
        return ident, len(rs)

    for pattern, names in CLASSES:
        alone = found[pattern]
        bracketed = found[f"[{pattern}]"]
        if alone == bracketed:
            variants = [(pattern, alone, "kAnywhere")]
        else:
            variants = [(pattern, alone, "kOutsideBracket"), (f"[{pattern}]", bracketed, "kInsideBracket")]
        for comment, cls, where in variants:
            ident, n = emit(comment, cls)
            for name in names:
                table.append((key(name), ident, n, where))
    for name in POSIX_BRACKETS:
        ident, n = emit(f"[[:{name}:]]", found[f"[[:{name}:]]"])
        table.append((name, ident, n, "kPosixBracket"))
    out.write("\n// Where a class spelling applies: anywhere, only outside or only inside a\n")
    out.write("// bracket expression, or as a POSIX bracket ([:name:], inside a bracket).\n")
    out.write("enum class Where { kAnywhere, kOutsideBracket, kInsideBracket, kPosixBracket };\n\n")
    out.write("struct Class {\n  std::string_view key;  // lowercase, no '_', ' ' or '-'\n")
    out.write("  const Range* ranges;\n  std::size_t size;\n  Where where;\n};\n\n")
    out.write("inline constexpr Class kClasses[] = {\n")
    for k, ident, n, where in table:
        escaped = k.replace("\\", "\\\\")
        out.write(f'    {{"{escaped}", {ident}, {n}, Where::{where}}},\n')
    out.write("};\n\n}  // namespace snaptok::unicode::regex_classes\n")
    if args.out == "-":
        sys.stdout.write(out.getvalue())
        return
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(out.getvalue())
    print(f"wrote {os.path.abspath(args.out)}: {count} classes", file=sys.stderr)


if __name__ == "__main__":
    main()
