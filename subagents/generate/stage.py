"""What the Host needs to have the report written and to tell the Host brain about it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from research.naming import report_name

if TYPE_CHECKING:
    from research.plan import SubQuestion

    from ..spec import Delegated, Desk


def prepare(
    desk: Desk, sub: SubQuestion | None, ctx: dict[str, Any], base: dict[str, Any]
) -> tuple[str | None, dict[str, Any]]:
    """The formats asked for (of the run's), the brief's requirements, the research notes
    the Host has just written, and the name the report's files carry (a short slug of
    the question, see :func:`research.naming.report_name`)."""
    wanted = [f for f in ctx.get("formats") or [] if f in desk.settings.formats]
    return None, {
        **base,
        "formats": wanted or list(desk.settings.formats),
        "requirements": desk.requirements(),
        "from_paths": [desk.notes_path],
        "name": report_name(desk.research.plan.question),
    }


def report(desk: Desk, d: Delegated) -> tuple[list[str], dict[str, Any]]:
    """The reports written and the citations they kept."""
    lines = [f"Reports: {', '.join(desk.outputs) or 'none'}; {desk.citations} citations."]
    return lines, {"outputs": desk.outputs, "citations": desk.citations}
