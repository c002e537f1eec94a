#!/usr/bin/env python3
"""Checks conda-recipe/recipe.yaml without a network or a conda channel.

Parses the recipe as YAML, renders it with py-rattler-build (the library
behind `rattler-build`) for every platform conda-forge builds, using the
variant values in conda-recipe/variants.yaml, and checks what came out:
the package name (against pyproject.toml) and version (against CMakeLists.txt,
the one place it is written),
the build/host/run requirements snaptok needs, the build backend pins
(against pyproject.toml's build-system.requires), the Python variants
(against requires-python), and the test files the recipe copies.

Exits 0 when everything holds; otherwise prints every problem and exits 1.

Usage: python conda-recipe/check_recipe.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

RECIPE_DIR = Path(__file__).resolve().parent
ROOT = RECIPE_DIR.parent
RECIPE = RECIPE_DIR / "recipe.yaml"
VARIANTS = RECIPE_DIR / "variants.yaml"

# (target platform, build platform): native builds everywhere, plus the
# cross-compiled osx-arm64 build conda-forge does from osx-64.
PLATFORMS = [
    ("linux-64", "linux-64"),
    ("linux-aarch64", "linux-aarch64"),
    ("osx-64", "osx-64"),
    ("osx-arm64", "osx-arm64"),
    ("osx-arm64", "osx-64"),
    ("win-64", "win-64"),
]

# Packages each rendered requirement section must name.
REQUIRED = {
    "build": ["cmake", "ninja"],
    "host": ["python", "pip", "scikit-build-core", "nanobind", "libhwy", "oniguruma", "simdjson"],
    "run": ["python", "numpy"],
}
# The C++ compiler package that ${{ compiler('cxx') }} renders to, per OS.
CXX_COMPILER = {"linux": "gxx_", "osx": "clangxx_", "win": "vs20"}

errors: list[str] = []


def fail(message: str) -> None:
    errors.append(message)


def load_toml(path: Path) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            sys.exit("check_recipe: needs Python 3.11+ (tomllib) or the tomli package")
    with path.open("rb") as f:
        return tomllib.load(f)


def spec_name(spec: str) -> str:
    """Returns the package name of a match spec ("cmake >=3.21" -> "cmake")."""
    return re.split(r"[\s=<>!~\[]", spec.strip(), maxsplit=1)[0].lower()


def normalize_spec(spec: str) -> str:
    return re.sub(r"\s+", "", spec).lower()


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def check_yaml() -> dict:
    import yaml

    try:
        recipe = yaml.safe_load(RECIPE.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        sys.exit(f"check_recipe: {RECIPE} is not valid YAML:\n{e}")
    if not isinstance(recipe, dict):
        sys.exit(f"check_recipe: {RECIPE} is not a YAML mapping")
    if recipe.get("schema_version") != 1:
        fail("recipe.yaml: schema_version must be 1 (rattler-build v1 recipe format)")
    for key in ("context", "package", "source", "build", "requirements", "tests", "about"):
        if key not in recipe:
            fail(f"recipe.yaml: missing top-level section '{key}'")
    source = recipe.get("source") or {}
    source_path = (RECIPE_DIR / str(source.get("path", ""))).resolve()
    if source_path != ROOT:
        fail(f"recipe.yaml: source.path should point at the checkout {ROOT}, got {source_path}")
    for test in recipe.get("tests") or []:
        for rel in ((test.get("files") or {}).get("source") or []):
            if not (ROOT / rel).exists():
                fail(f"recipe.yaml: test file '{rel}' (tests[].files.source) does not exist in the checkout")
    return recipe


def render_all(pyproject: dict, cmake_version: str) -> int:
    from rattler_build import (
        JinjaConfig,
        PlatformConfig,
        RenderConfig,
        Stage0Recipe,
        VariantConfig,
    )

    project = pyproject["project"]
    backend = {spec_name(r): normalize_spec(r) for r in pyproject["build-system"]["requires"]}
    min_python = version_tuple(project["requires-python"])

    try:
        stage0 = Stage0Recipe.from_file(RECIPE)
    except Exception as e:  # rattler_build raises its own exception types
        fail(f"rattler-build could not parse recipe.yaml: {e}")
        return 0

    rendered_count = 0
    for target, build in PLATFORMS:
        where = f"{target} (built on {build})"
        platform = PlatformConfig(target_platform=target, build_platform=build, host_platform=target)
        try:
            variants = VariantConfig.from_file_with_context(VARIANTS, JinjaConfig(platform=platform))
            rendered = stage0.render(variants, RenderConfig(platform=platform))
        except Exception as e:
            fail(f"{where}: rendering failed: {e}")
            continue
        if not rendered:
            fail(f"{where}: rendering gave no variants")
            continue
        pythons = set()
        for variant in rendered:
            rendered_count += 1
            recipe = variant.recipe
            label = f"{where}, python {variant.variant.get('python')}"
            pythons.add(variant.variant.get("python"))
            if recipe.package.name != project["name"]:
                fail(f"{label}: package name {recipe.package.name!r} != pyproject {project['name']!r}")
            if recipe.package.version != cmake_version:
                fail(f"{label}: version {recipe.package.version!r} != CMakeLists.txt {cmake_version!r}")
            reqs = recipe.requirements.to_dict()
            sections = {k: [str(s) for s in reqs.get(k, [])] for k in ("build", "host", "run")}
            for section, names in REQUIRED.items():
                present = {spec_name(s) for s in sections[section]}
                for name in names:
                    if name not in present:
                        fail(f"{label}: requirements.{section} lacks {name} (has: {sorted(present)})")
            os_name = target.split("-")[0]
            if not any(s.startswith(CXX_COMPILER[os_name]) for s in sections["build"]):
                fail(f"{label}: requirements.build has no C++ compiler ({CXX_COMPILER[os_name]}*): {sections['build']}")
            for name, spec in backend.items():
                host = [normalize_spec(s) for s in sections["host"] if spec_name(s) == name]
                if host and spec not in host:
                    fail(f"{label}: host pins {host} but pyproject build-system.requires has {spec!r}")
            if target != build:
                cross = {spec_name(s) for s in sections["build"]}
                for name in ("python", f"cross-python_{target}", "nanobind"):
                    if name not in cross:
                        fail(f"{label}: a cross build needs {name} in requirements.build")
        for python in pythons:
            if python and version_tuple(python) < min_python:
                fail(f"{where}: python variant {python} is below requires-python {project['requires-python']}")
    if project.get("version") is not None or "version" not in project.get("dynamic", []):
        fail("pyproject.toml: the version must be dynamic (read from CMakeLists.txt), not written there")
    return rendered_count


def main() -> int:
    try:
        import rattler_build
    except ImportError:
        sys.exit("check_recipe: py-rattler-build is not installed (pip install py-rattler-build)")

    pyproject = load_toml(ROOT / "pyproject.toml")
    match = re.search(r"project\(\s*snaptok\b[^)]*\bVERSION\s+([0-9.]+)",
                      (ROOT / "CMakeLists.txt").read_text(encoding="utf-8"))
    cmake_version = match.group(1) if match else "<not found>"

    recipe = check_yaml()
    context_version = str((recipe.get("context") or {}).get("version"))
    if context_version != cmake_version:
        fail(f"recipe.yaml: context.version {context_version!r} != CMakeLists.txt project VERSION {cmake_version!r}")
    count = render_all(pyproject, cmake_version)

    if errors:
        print(f"check_recipe: {RECIPE.relative_to(ROOT)} FAILED:", file=sys.stderr)
        for e in errors:
            print(f"  - {e}", file=sys.stderr)
        return 1
    print(f"check_recipe: {RECIPE.relative_to(ROOT)} ok: {count} variants rendered "
          f"for {len(PLATFORMS)} platform configurations "
          f"(py-rattler-build {rattler_build.rattler_build_version()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
