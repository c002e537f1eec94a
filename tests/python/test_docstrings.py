"""Every class, function and method in the `__all__` of snaptok, snaptok.tiktoken
and snaptok.transformers has a docstring with a `>>>` example that runs (not all
`+SKIP`), every property and module constant a docstring; every example (the
modules' own too) runs under doctest in fresh globals per docstring: the module's
names, `snaptok`, `np`, `path` (tests/data/gpt2/tokenizer.json), `tok` (loaded
from it), `t5` (tests/data's small T5-style Unigram), `enc` (GPT-2's ranks as a
snaptok.tiktoken.Encoding) and `tmp` (an empty directory)."""

import ast
import doctest
import functools
import importlib.util
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

snaptok = pytest.importorskip("snaptok")
import snaptok.tiktoken  # noqa: E402
import snaptok.transformers  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data"
GPT2 = DATA / "gpt2" / "tokenizer.json"
T5 = DATA / "spm-botchan-unigram-1000-t5" / "tokenizer.json"
MODULES = (snaptok, snaptok.tiktoken, snaptok.transformers)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
# Examples that need a package snaptok does not depend on run only where it is installed.
NEEDS = {"snaptok.transformers": "transformers"}

# nanobind starts a function's docstring with its signature line(s), and gives
# a property without a docstring its getter's signature: neither is a docstring.
_SIGNATURE = re.compile(r"[\w.]*\(.*\)( -> .+)?")


def own_text(obj) -> str:
    """The docstring of `obj` as written, without nanobind's signature lines."""
    doc = obj.__doc__ or ""
    paragraphs = doc.split("\n\n")
    while paragraphs and all(_SIGNATURE.fullmatch(line.strip()) for line in paragraphs[0].strip().splitlines()):
        paragraphs.pop(0)
    return "\n\n".join(paragraphs).strip("\n")


def attribute_docstrings(module) -> dict[str, str]:
    """{name: docstring} for the module-level assignments followed by a string."""
    try:
        body = ast.parse(inspect.getsource(module)).body
    except (OSError, TypeError):
        return {}
    docs = {}
    for node, after in zip(body, body[1:]):
        if not (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Name):
                docs[target.id] = after.value.value
    return docs


@functools.cache
def public_api() -> list[tuple[str, object, str, bool]]:
    """(name, module, docstring, needs an example) for each public object, modules first."""
    items, seen = [], set()
    for module in MODULES:
        items.append((module.__name__, module, own_text(module), False))
    for module in MODULES:
        constants = attribute_docstrings(module)
        for name in module.__all__:
            if name.startswith("__"):  # __version__
                continue
            obj, qualified = getattr(module, name), f"{module.__name__}.{name}"
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if inspect.isclass(obj):
                items.append((qualified, module, own_text(obj), True))
                for member, raw in vars(obj).items():
                    if member.startswith("_"):
                        continue
                    is_property = isinstance(raw, (property, functools.cached_property))
                    items.append((f"{qualified}.{member}", module, own_text(getattr(obj, member)), not is_property))
            elif callable(obj):
                items.append((qualified, module, own_text(obj), True))
            else:
                items.append((qualified, module, constants.get(name, ""), False))
    return items


def test_public_api_is_documented_with_examples():
    parser = doctest.DocTestParser()
    undocumented, without_example = [], []
    for name, _, text, needs_example in public_api():
        if not text.strip():
            undocumented.append(name)
        elif needs_example:
            try:
                examples = parser.get_examples(text, name)
            except ValueError:  # test_examples_run reports it
                continue
            if all(ex.options.get(doctest.SKIP) for ex in examples):
                without_example.append(name)
    if undocumented or without_example:
        pytest.fail(f"no docstring: {undocumented}\nno '>>>' example that runs: {without_example}")


@pytest.fixture(scope="module")
def enc():
    return snaptok.tiktoken.Encoding.from_tokenizer_json(GPT2)


def test_examples_run(enc, tmp_path):
    parser = doctest.DocTestParser()
    failures, ran = [], 0
    for i, (name, module, text, _) in enumerate(public_api()):
        if ">>>" not in text:
            continue
        needed = next((pkg for prefix, pkg in NEEDS.items() if name.startswith(prefix)), None)
        if needed and importlib.util.find_spec(needed) is None:
            continue
        tmp = tmp_path / str(i)
        tmp.mkdir()
        globs = dict(vars(module))
        globs.update(snaptok=snaptok, np=np, path=str(GPT2), tok=snaptok.Tokenizer.from_file(str(GPT2)),
                     t5=snaptok.Tokenizer.from_file(str(T5)), enc=enc, tmp=str(tmp))
        try:
            test = parser.get_doctest(text, globs, name, None, 0)
        except ValueError as e:  # e.g. inconsistent indentation
            failures.append(f"{name}: {e}")
            continue
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        report = []
        result = runner.run(test, out=report.append)
        ran += result.attempted
        if result.failed:
            failures.append("".join(report))
    if failures:
        pytest.fail(f"failing examples in {len(failures)} docstrings:\n" + "\n".join(failures))
    assert ran > 100  # the examples were found and run
