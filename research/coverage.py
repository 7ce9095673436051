"""How well a part of the question is answered so far, and what is still missing.

A part is *answered* with :data:`ANSWERED_ITEMS` strongly relevant quotes (scoring at
least :data:`STRONG`) from :data:`ANSWERED_SOURCES` sources about it (whose title or
headings name what the part asks: a passing mention on a page about something else does
not answer it), one of which gives the kind of answer the part asks for (a date for
*when*, a figure for *how many*: see :mod:`research.answer`); *partly answered* with any
evidence; *not found* with none once its rounds are spent or it was given up; otherwise
*in progress* or *pending*. Under the learned model a part's evidence is scored by the
probability that its page answers the part, and one item reaching the answer model's
calibrated threshold answers it (:func:`calibrated`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

#: A part is answered with this many strongly relevant items, from this many sources
#: about it.
ANSWERED_ITEMS, ANSWERED_SOURCES = 3, 2
#: An item this relevant counts towards "answered"; weaker ones make a part partly answered.
STRONG = 0.7


@dataclass(frozen=True)
class Rule:
    """When a part counts as answered: :attr:`items` items scoring at least
    :attr:`strong`, from :attr:`sources` sources about the part."""

    strong: float = STRONG
    items: int = ANSWERED_ITEMS
    sources: int = ANSWERED_SOURCES


#: The hand-set scores' rule (see the module's notes).
RULES = Rule()


def calibrated(threshold: float) -> Rule:
    """The rule for evidence scored by the learned answer model, whose score is the
    probability that the evidence's page answers the part: answered by one item reaching
    the model's ``threshold`` (calibrated on its training data for the honest-nothing
    rate), from any source, the model having judged the page itself."""
    return Rule(strong=threshold, items=1, sources=1)


@dataclass
class Coverage:
    """How well one part is answered so far."""

    items: int
    sources: int
    status: str  # answered | partly answered | in progress | not found | pending
    #: the kind of answer the part asks for that no strongly relevant item gives ("date",
    #: "figure")
    lacking: str = ""
    #: the strongly relevant items, and the sources about the part they come from
    strong: int = 0
    strong_sources: int = 0


def coverage(
    scores: Mapping[str, float],
    urls: Mapping[str, str],
    about: Collection[str],
    rounds: int,
    closed: bool,
    answering: Collection[str] | None = None,
    kind: str = "",
    rule: Rule = RULES,
) -> Coverage:
    """A part's coverage.

    Args:
        scores: the part's evidence, its score by key.
        urls: the source of each key (keys without one are not counted as sources).
        about: the sources about the part.
        rounds: research rounds the part has had.
        closed: no more research will be done for it (rounds spent, or given up).
        answering: the keys whose text gives the kind of answer the part asks for (None:
            every key does).
        kind: that kind of answer, in words ("date", "figure"; see
            :func:`research.answer.wanted`).
        rule: when the part counts as answered (the hand-set scores' by default; see
            :func:`calibrated` for the learned model's).
    """
    sources = {urls[k] for k in scores if k in urls}
    strong = [k for k, score in scores.items() if score >= rule.strong]
    strong_sources = {urls[k] for k in strong if k in urls and urls[k] in about}
    gives = answering is None or any(k in answering for k in strong)
    lacking = "" if gives or not scores else kind
    if len(strong) >= rule.items and len(strong_sources) >= rule.sources and gives:
        status = "answered"
    elif scores:
        status = "partly answered"
    elif closed:
        status = "not found"
    elif rounds:
        status = "in progress"
    else:
        status = "pending"
    return Coverage(len(scores), len(sources), status, lacking, len(strong), len(strong_sources))


def missing(cov: Coverage) -> str:
    """What is still missing for a part, in words."""
    if cov.status == "answered":
        return f"nothing: answered by {cov.strong_sources} source(s)"
    if cov.lacking:
        return f"a {cov.lacking}: no strongly relevant item gives one"
    if cov.items:
        return (
            f"more evidence from other sources ({cov.items} item(s) from {cov.sources} "
            "source(s) so far)"
        )
    return "any relevant evidence"
