"""``python -m snaptok``: the snaptok command line (see snaptok.cli)."""

from snaptok.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
