"""The tally of an attack corpus and the table the attack benchmarks print."""

from __future__ import annotations

from dataclasses import dataclass, field

MiB = 1024 * 1024


@dataclass
class Tally:
    """Attacks of one class against one tool: how each ended, and the peak memory (bytes)."""

    tried: int = 0
    refused: int = 0
    bypassed: int = 0
    crashed: int = 0
    rss: int = 0
    python: int = 0
    notes: list[str] = field(default_factory=list)


def print_table(tallies: dict[tuple[str, str], Tally], python: bool = True) -> None:
    """One row per (class, tool), a total row, then a note per bypass or crash.

    ``python`` adds the column of peak Python allocations (measured in-process only).
    """
    extra = f" {'peak Python':>11}" if python else ""
    head = (
        f"{'class':<22} {'tool':<30} {'tried':>5} {'refused':>7} {'bypassed':>8} "
        f"{'crashed/hung':>12} {'peak RSS Δ':>10}{extra}"
    )

    def row(kind: str, tool: str, t: Tally) -> str:
        line = (
            f"{kind:<22} {tool:<30} {t.tried:>5} {t.refused:>7} {t.bypassed:>8} "
            f"{t.crashed:>12} {t.rss / MiB:>7.1f} MB"
        )
        return line + (f" {t.python / MiB:>8.1f} MB" if python else "")

    print(head)
    print("-" * len(head))
    for (kind, tool), t in tallies.items():
        print(row(kind, tool, t))
    every = tallies.values()
    total = Tally(
        tried=sum(t.tried for t in every),
        refused=sum(t.refused for t in every),
        bypassed=sum(t.bypassed for t in every),
        crashed=sum(t.crashed for t in every),
        rss=max((t.rss for t in every), default=0),
        python=max((t.python for t in every), default=0),
    )
    print("-" * len(head))
    print(row("all", "", total))
    for (kind, _), t in tallies.items():
        for note in t.notes:
            print(f"  {kind} / {note}")
