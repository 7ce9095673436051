"""``python -m quartet`` — the Quartet command line."""

from quartet.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
