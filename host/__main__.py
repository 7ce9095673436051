"""``python -m host`` — the Quartet command line."""

from host.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
