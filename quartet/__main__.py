"""``python -m quartet`` — the Quartet command line."""

from quartet.cli import run

if __name__ == "__main__":
    run()
