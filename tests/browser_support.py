"""Reading Browser tool results the way a model does: from their text, not their metadata.

The metadata of a result is only the fixed envelope (status, paths, evidence_ids, reason);
the URL, the tier, the stored page and the evidence are lines of the text.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from agentscope.tool import ToolResponse

from subagents.net import netguard
from subagents.net.netguard import UnresolvableHostError
from subagents.results import text_of
from subagents.settings import NetworkPolicy, ToolSettings

#: What the tests may reach: the sites on 127.0.0.1 and nothing else private.
LOOPBACK = NetworkPolicy.parse("127.0.0.1,localhost")
#: Settings that let viewer_fetch and http_download reach those sites.
LOOPBACK_SETTINGS = ToolSettings(network=LOOPBACK)

_EVIDENCE = re.compile(r'^- \[(ev-[0-9a-f]{12})\] "(.*?)" \(characters (\d+)–(\d+)\)$', re.M | re.S)


@dataclass(frozen=True)
class Quote:
    """One evidence line of a viewer_fetch answer."""

    id: str
    span: str
    start: int
    end: int


def line_value(res: ToolResponse, label: str) -> str:
    """The rest of the first text line that starts with ``label: ``."""
    m = re.search(rf"^{re.escape(label)}: (.*)$", text_of(res), re.M)
    assert m, f"no {label!r} line in: {text_of(res)[:500]}"
    return m.group(1)


def url_of(res: ToolResponse) -> str:
    """The final URL of the page, from the ``URL:`` line."""
    return line_value(res, "URL").split(" (from ", 1)[0]


def tier_of(res: ToolResponse) -> str:
    """``http`` or ``chromium``, from the ``Read by:`` line."""
    m = re.match(r"(\w+) tier, ", line_value(res, "Read by"))
    assert m, text_of(res)[:500]
    return m.group(1)


def stored_path(res: ToolResponse) -> str:
    """Where the page text is stored: the envelope's path, which the ``Stored:`` line names."""
    (path,) = res.metadata["paths"]
    assert line_value(res, "Stored").startswith(f"{path} ("), text_of(res)[:500]
    return path


def answer_of(res: ToolResponse) -> tuple[str, str]:
    """``(method, answer)`` of a viewer_fetch answer."""
    m = re.search(r"^Answer \((.*?)\): (.*?)\n\nEvidence", text_of(res), re.M | re.S)
    assert m, text_of(res)[:1000]
    return m.group(1), m.group(2)


def evidence_of(res: ToolResponse) -> list[Quote]:
    """The evidence lines of a viewer_fetch answer, checked against the envelope's ids."""
    quotes = [
        Quote(i, span, int(start), int(end))
        for i, span, start, end in _EVIDENCE.findall(text_of(res))
    ]
    assert [q.id for q in quotes] == res.metadata["evidence_ids"], text_of(res)
    return quotes


class ScriptedResolver:
    """Answers each host name from a script: the n-th lookup gets the n-th answer.

    The last answer repeats; an answer of None, or a name not in the script, fails the
    lookup. Literal addresses resolve to themselves, as with the real resolver.
    """

    def __init__(self, script: dict[str, list[list[str] | None]]) -> None:
        self.script = script
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int) -> list[netguard.IPAddress]:
        try:
            return [ipaddress.ip_address(host)]
        except ValueError:
            pass
        self.calls.append(host)
        answers = self.script.get(host)
        if answers is None:  # never the real resolver: tests send no DNS queries
            raise UnresolvableHostError(f"Error: the host name {host!r} is not scripted.")
        answer = answers[min(self.calls.count(host), len(answers)) - 1]
        if answer is None:
            raise UnresolvableHostError(f"Error: the host name {host!r} could not be resolved.")
        return [ipaddress.ip_address(a) for a in answer]
