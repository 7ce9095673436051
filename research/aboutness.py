"""Whether a page, a section or a sentence is about a part of the question.

How far a sentence, or at least its page, is about the part's subject
(:func:`_aboutness`): whether it names the subject, leans on a sentence that does, stands
on the subject's own article, or on a page about another thing of the subject's kind;
whether a section is about this part or about another part of the question
(:func:`context_about`, :func:`about_other_part`); how a sentence and its context meet
one facet (:func:`_facet_match`); and how much a page is about the part's facets
(:func:`page_salience`). What a page and a section are for a part is computed once per
page and part (:func:`_page_view`, :func:`_section_view`).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .document import Document, _normal, _without_site
from .facts import opens_leaning
from .question import _ZH_FUNCTION, ZH_ASKS, Facet, Focus, _unsegmented
from .text import CJK, CJK_CLASS, STOP_WORDS, Sentence, is_cjk, plain, spaceless, stem, terms

_CAP_RUN = re.compile(r"\b(?:[A-Z][\w'’]*\s+)+[A-Z][\w'’]*")


def _other_names_masked(text: str, core: tuple[str, ...]) -> str:
    """``text`` with longer names built on the subject masked: "Eiffel Tower Museum"
    and "Eiffel Tower Gift Shop" name something else than the Eiffel Tower."""
    if not core or CJK.match(core[0]):
        return text

    def mask(match: re.Match[str]) -> str:
        names = [stem(w.lower()) for w in match.group(0).split()]
        if set(core) <= set(names) and names[-1] not in core:
            return " "
        return match.group(0)

    return _CAP_RUN.sub(mask, text)


#: How far a sentence that does not name the subject is about it, on a page that names
#: the subject only once and not in its title, unless it follows the sentence naming it:
#: the page is about something else, and its other sentences are about that (石X's
#: biography, which names 陈Y once, tells where 石X took a degree, not 陈Y).
PASSING = 0.5
#: A page naming the subject this many times (or in its title) is about it in part.
MENTIONS = 2


def _speaks_of(core: tuple[str, ...], doc: Document, index: int) -> bool:
    """Whether sentence ``index`` of a page may speak of the subject without naming it:
    the page names the subject's core in its title or at least :data:`MENTIONS` times (a
    name with a number in it, met only by its pieces, counts as often), or the sentence
    follows one naming it in the same paragraph ("…在青石湖中发现了三种。这三种都没有…")."""
    if core not in doc.mentions:
        cjk = len(core) == 1 and bool(CJK.match(core[0]))
        if cjk:
            said = doc.lowered.replace(" ", "").count(core[0])
            named = core[0] in doc.name.replace(" ", "")
        else:
            said = len(_core_pattern(core).findall(f" {doc.lowered} "))
            named = _has_core(core, _normal(doc.name))
        near: frozenset[int] | None = None
        if core and said and not named and said < MENTIONS:
            naming = [
                i
                for i, s in enumerate(doc.sentences)
                if _has_core(core, plain(s.text) if cjk else _normal(s.text))
            ]
            near = frozenset(j for i in naming for j in _paragraph_after(doc, i))
        doc.mentions[core] = near
    near = doc.mentions[core]
    return near is None or index in near


def _paragraph_after(doc: Document, index: int) -> list[int]:
    """The sentences after sentence ``index`` in its paragraph (no blank line between)."""
    out: list[int] = []
    before = doc.sentences[index]
    for j in range(index + 1, len(doc.sentences)):
        after = doc.sentences[j]
        if after.section != before.section or "\n\n" in doc.text[before.end : after.start]:
            break
        out.append(j)
        before = after
    return out


#: The fewest letters a word of the subject's head has for a page's word one letter
#: longer or shorter than it to be read as the same name (see :func:`as_written`): a
#: shorter word is too often another ("Roman" and "Romani").
VARIANT_LEAST = 6


def as_written(focus: Focus, doc: Document) -> Focus:
    """``focus`` with each word of its subject's head in the form the page writes most:
    the word itself, or one a letter longer or shorter at its end, compared as stems (a
    place and its people's word, "Veldanian" asked and "Veldania" written; a name and its
    plural written otherwise, a taxon's "-a" and the common "-es"). Once per page and
    part."""
    key = ("written", focus)
    if key not in doc.memo:
        forms = {term: _page_form(term, doc) for term in focus.core}
        swap = {term: form for term, form in forms.items() if form}
        doc.memo[key] = (
            dataclasses.replace(
                focus,
                subject=tuple(swap.get(t, t) for t in focus.subject),
                core=tuple(swap.get(t, t) for t in focus.core),
                subject_weights={swap.get(t, t): w for t, w in focus.subject_weights.items()},
            )
            if swap
            else focus
        )
    return doc.memo[key]


def _page_form(term: str, doc: Document) -> str:
    """The page's word one letter longer or shorter at its end than ``term``, a word of
    a subject's head, when the page writes it more often than ``term`` itself (see
    :func:`as_written`); "" for none."""
    if CJK.match(term) or len(term) < VARIANT_LEAST:
        return ""
    shorter = term[:-1]
    forms = [
        w
        for w in doc.counts
        if (len(w) == len(term) + 1 and w.startswith(term))
        or (w == shorter and len(w) >= VARIANT_LEAST)
    ]
    best = max(forms, key=lambda w: (doc.counts[w], w), default="")
    return best if best and doc.counts[best] > doc.counts.get(term, 0) else ""


def _has_core(core: tuple[str, ...], text_terms: Sequence[str] | str) -> bool:
    """Whether a text names the subject's head ``core``: its terms in order, in a text's
    terms or in its normal form (see :func:`research.document._normal`), where up to
    :data:`BETWEEN` function words may stand between two of them ("colonies in Vermont"
    and "the Bank of England" name the heads colonies Vermont and bank England)."""
    if not core:
        return False
    if isinstance(text_terms, str):
        if len(core) == 1 and CJK.match(core[0]):  # the text has it cut: 章 同, 石湾 巴士
            return _names_whole(core[0], text_terms.replace(" ", ""))
        joined = " ".join(core)
        return joined in text_terms or (
            len(core) > 1 and _core_pattern(core).search(f" {text_terms} ") is not None
        )
    joined = " ".join(text_terms)
    return " ".join(core) in joined


#: The most function words ("in", "of the") that may stand between two words of a
#: subject's head where a text names it (see :func:`_has_core`).
BETWEEN = 2


@lru_cache(maxsize=4096)
def _core_pattern(core: tuple[str, ...]) -> re.Pattern[str]:
    """Where a text in normal form names ``core`` as whole words, up to :data:`BETWEEN`
    function words between two of its terms (see :func:`_has_core`)."""
    gap = rf" (?:(?:{_FUNCTION_WORDS}) ){{0,{BETWEEN}}}"
    return re.compile(r"(?<= )" + gap.join(map(re.escape, core)) + r"(?= )")


#: The function words (as written and in normal form), longest first, as alternatives.
_FUNCTION_WORDS = "|".join(
    sorted(
        {re.escape(f) for w in STOP_WORDS if not CJK.match(w) for f in (w, stem(w))},
        key=lambda w: (-len(w), w),
    )
)


def _names_whole(name: str, text: str) -> bool:
    """Whether a Chinese text names ``name``: as written, or, for a name with a number
    in it, by each of its pieces (a text writes 石溪杯12 as 第12届石溪杯)."""
    if name in text:
        return True
    pieces = re.findall(r"\d+|\D+", name)
    return len(pieces) > 1 and all(p in text for p in pieces)


#: How a Chinese facet is met by another word sharing one of its telling characters.
MORPHEME = 0.6


def _shares_morpheme(facet: Facet, said: set[str]) -> bool:
    return any(ch in word for word in said for ch in facet.morphemes)


def _facet_match(
    facet: Facet,
    sentence: set[str],
    title: set[str],
    heading: set[str],
    anchors: set[str],
    salience: float,
    near: bool = True,
    lent: bool = False,
) -> float:
    """How a sentence meets a facet.

    1 when it says the word, 0.85 an equivalent one, each a little less when the word is
    not ``near`` the subject (the sentence may be about building something else). The
    sentence's context lends it the facet: when its section is about the part (``lent``,
    see :func:`context_about`), the title or heading saying the word (or a synonym)
    counts nearly as much as the sentence saying it (0.9; 0.8 by an equivalent); one that
    names the facet above a section about something else lends less (0.85; 0.7). A word
    that is only the text of a link, 0.6. Otherwise a facet is met only as far as the
    whole page is about it (``salience``), and not at all on a page about something else.
    """
    group = facet.equivalents
    context = title | heading
    met = [max(0.05, 0.55 * salience)]
    if facet.term in sentence:
        met.append(1.0 if near else 0.85)
    if (facet.synonyms or {facet.term}) & context:  # "Construction" above a part on building
        met.append(0.9 if lent else 0.85)
    if group & sentence:
        met.append(0.85 if near else 0.75)
    if group & context:
        met.append(0.8 if lent else 0.7)
    if facet.morphemes and facet.term not in sentence and _shares_morpheme(facet, sentence):
        met.append(MORPHEME)
    if facet.term in anchors or group & anchors:
        met.append(0.6)
    return max(met)


def _phrases_met(
    facets: tuple[Facet, ...], said: set[str], literal: bool = False, close: bool = False
) -> bool:
    """Whether ``said`` (a title's or heading's terms) names every phrase of the facets,
    by a word of it or an equivalent one (with ``close``, only a synonym); with
    ``literal``, every facet in its own word."""
    if literal:
        return bool(facets) and all(f.term in said for f in facets)
    phrases: dict[int, bool] = {}
    for facet in facets:
        near = (facet.synonyms or {facet.term}) if close else facet.equivalents | {facet.term}
        met = bool(near & said)
        phrases[facet.phrase] = phrases.get(facet.phrase, False) or met
    return bool(phrases) and all(phrases.values())


def context_about(focus: Focus, doc: Document, section: str) -> bool:
    """Whether the section a sentence stands in is about the sub-question's part.

    It is when its heading names the part in its words or their synonyms ("Furnaces"
    does not, "Recycling old phones" does for a question on recycling; "A swollen cell" is
    not a heading about ageing), or when the page title names the part and the
    section is one of the topics the title announces: the lead, or a section whose
    heading shares a word with the title ("Smelting in a furnace" under "Recycling:
    shredding, smelting and the black mass"). A page title naming the part does not make
    every section of the page about it: under "The recycling rules of 2006", a section
    headed "Results" is about what followed.
    """
    return _about(focus.facets, focus, doc, section)


def _about(facets: tuple[Facet, ...], focus: Focus, doc: Document, section: str) -> bool:
    if not facets:
        return False
    heading = doc.section_terms.get(section, set())
    if _phrases_met(facets, heading, close=True):
        return True
    shared = (heading & doc.title_terms) - set(focus.subject)
    return (not heading or bool(shared)) and _phrases_met(facets, doc.title_terms)


def about_other_part(focus: Focus, doc: Document, section: str) -> bool:
    """Whether a section is about another part of the question and not this one (the
    "Eruptions" chapter of a report, for a sub-question on how the volcano formed)."""
    return not context_about(focus, doc, section) and any(
        _about(facets, focus, doc, section) for facets in focus.rivals
    )


def _topic_terms(focus: Focus, doc: Document) -> set[str]:
    """The title's words for what the page says about the part ("shred", "smelt",
    "black", "mass" in "Recycling: shredding, smelting and the black mass"): its terms
    other than the subject's and the facets', when the title names the part in the
    sub-question's own words (a title that only comes close, "The Nevada reuse plant" for
    recycling, does not make "Nevada" a word for recycling)."""
    if not _phrases_met(focus.facets, doc.title_terms, literal=True):
        return set()
    taken = set(focus.subject) | {f.term for f in focus.facets}
    taken |= {e for f in focus.facets for e in f.equivalents}
    site = _site_terms(doc.title)
    return {t for t in doc.title_terms if t not in taken and t not in site}


def _bare_name(name: str) -> str:
    """A page's name without a qualifier after a comma or in brackets ("Springfield,
    Ohio", "回家 (杂志)")."""
    return re.split(r"\s*[,，(（]", name)[0].strip()


def _own_article(focus: Focus, doc: Document) -> bool:
    """Whether the page is the subject's own article: its title (without the site's name
    and a qualifier after a comma or in brackets) is the subject's name ("Springfield,
    Ohio", "方申"), not one aspect of it ("Springfield in the Civil War")."""
    name = _bare_name(doc.name)
    return (
        bool(name)
        and _has_core(focus.core, _normal(name))
        and set(terms(name)) <= set(focus.subject)
    )


#: What a sentence on a page about another thing of the subject's kind weighs as being
#: about the subject, unless it names the subject as the question writes it.
SIBLING = 0.5
#: How far a page that never writes an English title the part asks about is about the
#: work: not at all ("a lantern" and "lanterns" do not name "The Lantern").
UNTITLED = 0.0


def _is_subsequence(short: str, long: str) -> bool:
    """Whether the characters of ``short`` occur in ``long`` in order (石溪 in 石溪东湖)."""
    rest = iter(long)
    return all(ch in rest for ch in short)


@lru_cache(maxsize=4096)
def _sibling_name(question: str, page_name: str, core: tuple[str, ...]) -> str:
    """The name a Chinese question gives its subject when a page is about another thing
    of the same kind: the page's name ends in words the question ends its subject's name
    with, but the question writes another modifier before them (a page on 黑X鱼 for a
    question on 疣X鱼, on 甲机场 for one on 乙机场). A Chinese name puts its head last, so
    a shared head with a different modifier is a sibling, not a short form (石溪机场 for
    石溪东湖机场 keeps the page's characters in order and is the same thing). The shared
    head ends the subject's name (``core``), or ends with its last word. Empty when the
    page's name is in the question, or the question's name around the shared head is not
    its subject's."""
    name = _bare_name(page_name).replace(" ", "")
    written = question.replace(" ", "")
    if len(name) < 2 or not is_cjk(name) or name in written:
        return ""
    joined = "".join(core)
    for size in range(len(name) - 1, 0, -1):
        head = name[-size:]
        if not all(CJK.match(ch) for ch in head) or head not in written:
            continue
        if not (joined.endswith(head) or head.endswith(core[-1])):
            continue  # a particle or word the title and the question both end a clause with
        at = written.index(head)
        before = re.search(rf"[{CJK_CLASS}]*$", written[:at]).group(0)
        cut = max((i + 1 for i, ch in enumerate(before) if ch in _ZH_FUNCTION), default=0)
        asks = [m.end() for m in ZH_ASKS.finditer(before)]
        modifier = before[max([cut, *asks]) :]
        whole = modifier + head
        if not modifier or _is_subsequence(modifier, name[:-size]):
            return ""
        if not any(c in whole or whole in c for c in core if c):
            return ""
        return whole
    return ""


def _writes_title(title: str, doc: Document) -> bool:
    """Whether a page names a work: it writes its title (in 《》 in Chinese; in English
    with its capitals, an opening article of either case), or its own name is it."""
    if _bare_name(doc.name) == title:
        return True
    if is_cjk(title):
        return f"《{title}》" in doc.text
    key = ("writes title", title)
    if key not in doc.memo:
        doc.memo[key] = _title_pattern(title).search(plain(doc.text)) is not None
    return doc.memo[key]


@lru_cache(maxsize=1024)
def _title_pattern(title: str) -> re.Pattern[str]:
    """The pattern of an English title as a page writes it: its words with their
    capitals, its opening word in either case ("The Lantern" and "the Lantern" name the
    work; "the lantern" does not)."""
    first, _, rest = title.partition(" ")
    opener = f"[{first[0].upper()}{first[0].lower()}]{re.escape(first[1:])}"
    return re.compile(rf"(?<!\w){opener}\s+{re.escape(rest)}(?!\w)")


def _site_terms(title: str) -> set[str]:
    """The terms of a site name closing a page title ("… — City Guide")."""
    parts = re.split(r"\s+[—|–-]\s+", title)
    return set(terms(parts[-1])) if len(parts) > 1 else set()


def _salience(facet: Facet, doc: Document) -> float:
    """How much a page is about a facet: 1 in its title, 0.8 in a heading, else by mentions."""
    group = {facet.term} | facet.equivalents
    if group & doc.title_terms:
        return 1.0
    if group & doc.heading_terms:
        return 0.8
    mentions = sum(doc.counts[t] for t in group)
    return 0.8 * min(1.0, mentions / (4 + sum(doc.counts.values()) / 150))


def page_salience(focus: Focus, doc: Document) -> float:
    """How much a whole page is about a sub-question's facets (1 when its title names
    them all; a page about the subject alone, for a sub-question without facets)."""
    if not focus.facets:
        return 1.0
    return sum(_salience(f, doc) for f in focus.facets) / len(focus.facets)


def _geometric(pairs: list[tuple[float, float]]) -> float:
    total = sum(w for _, w in pairs)
    if not total:
        return 1.0
    return math.exp(sum(w * math.log(m) for m, w in pairs) / total)


def _subject_score(focus: Focus, doc: Document, index: int, context: set[str]) -> float:
    """Is the sentence (or at least its page) about the subject?"""
    if focus.facets:  # the subject is the backdrop: the page must be about it
        return _backdrop_score(focus, doc, index)
    return _question_subject_score(focus, doc, index, context)


def _backdrop_score(focus: Focus, doc: Document, index: int) -> float:
    """How far a sentence is about the subject of a part that has facets, the subject
    being the backdrop its page must be about.

    Args:
        focus: the part, with facets.
        doc: the page.
        index: the sentence's index in ``doc``.

    Returns:
        1 when the sentence names the core (other names masked), 0.95 when it names the
        core's last word or leans on a sentence naming the core on a page that names it,
        0.8 or :data:`PASSING` for another sentence of such a page (as the page speaks
        of the core near it or not), and otherwise half the share of the subject's
        weight the page mentions.
    """
    sentence_terms = doc.sentence_terms[index]
    own = _other_names_masked(plain(doc.sentences[index].text), focus.core)
    said = _normal(own)
    own_terms = set(terms(own)) if own != plain(doc.sentences[index].text) else sentence_terms
    if _has_core(focus.core, said) or (
        focus.core and set(focus.core) <= own_terms and len(focus.core) == 1
    ):
        return 1.0
    on_page = _core_on_page(focus, doc)
    if on_page and focus.core and focus.core[-1] in own_terms:
        return 0.95  # "the tower" on a page about the Eiffel Tower
    prior = _leaned_on(doc, doc.sentences[index]) if on_page else None
    if prior is not None and _has_core(focus.core, _normal(prior.text)):
        return 0.95  # "It …" after the sentence naming the subject
    if on_page:
        return 0.8 if _speaks_of(focus.core, doc, index) else PASSING
    return _subject_share(focus, doc)


def _leaned_on(doc: Document, sentence: Sentence) -> Sentence | None:
    """The sentence a sentence opening with a pronoun leans on: the one before it in its
    paragraph, when that one does not lean on another itself."""
    if not opens_leaning(sentence.text):
        return None
    prior = doc.before(sentence)
    if prior is None or opens_leaning(prior.text):
        return None
    return prior


def _subject_share(focus: Focus, doc: Document) -> float:
    """Half the share of the subject's weight whose terms a page mentions.

    Args:
        focus: the part.
        doc: the page.

    Returns:
        A score in [0, 0.5].
    """
    total = sum(focus.subject_weights.values()) or 1.0
    present = sum(w for t, w in focus.subject_weights.items() if doc.counts[t])
    return 0.5 * present / total


def _question_subject_score(focus: Focus, doc: Document, index: int, context: set[str]) -> float:
    """How far a sentence is about the subject of a part without facets, the subject
    being the question: every term of it must be met, in the sentence at best.

    Args:
        focus: the part, without facets.
        doc: the page.
        index: the sentence's index in ``doc``.
        context: the terms of the sentence's context (its page's title, its section's
            heading and the texts of its links).

    Returns:
        The weighted geometric mean of each subject term's match (1 in the sentence, 0.6
        in its context, 0.1 otherwise); 0.9 instead of 1 when the core's words are all
        there but not as the phrase.
    """
    sentence_terms = doc.sentence_terms[index]
    pairs = []
    said_text = plain(doc.sentences[index].text)
    for term, w in focus.subject_weights.items():
        inside = term in sentence_terms or (_unsegmented(term) and term in said_text)
        m = 1.0 if inside else 0.6 if term in context else 0.1
        pairs.append((m, w))
    score = _geometric(pairs)
    said = _normal(doc.sentences[index].text)
    if len(focus.core) > 1 and not _has_core(focus.core, said) and score == 1.0:
        score = 0.9  # the words are there but not as the phrase asked about
    return score


def _aboutness(focus: Focus, doc: Document, index: int, lent: bool) -> float:
    """How far sentence ``index`` (or at least its page) is about the part's subject:
    1 when it names it; less on a page about another thing of the subject's kind."""
    sentence = doc.sentences[index]
    context = (
        doc.title_terms | doc.section_terms.get(sentence.section, set()) | doc.anchor_terms[index]
    )
    subject = _subject_score(focus, doc, index, context)
    if lent and subject < 0.95 and _core_on_page(focus, doc):
        subject = 0.95  # the section is about the part of the page's subject
    if subject > SIBLING and focus.core and is_cjk(focus.text):
        written = plain(sentence.text)
        sibling = _sibling_name(focus.text, doc.name, focus.core)
        if sibling and sibling not in written.replace(" ", ""):
            subject = SIBLING  # the page is about another thing of the subject's kind
        elif focus.titled and not _writes_title(focus.titled, doc):
            subject = SIBLING  # 回家 as a verb does not name 《回家》
    elif focus.titled and not _writes_title(focus.titled, doc):
        subject = UNTITLED  # "the lantern" does not name "The Lantern"
    return subject


@dataclass(frozen=True)
class _PageView:
    """What a page is for a part, the same for each of its sentences."""

    #: how much the page is about each facet (see :func:`_salience`)
    salience: tuple[float, ...]
    #: their mean; 1 on the subject's own article or for a part without facets
    page: float
    #: the page's title names the subject
    named: bool
    #: the title's words for what the page says about the part (see :func:`_topic_terms`)
    topic: frozenset[str]
    #: the part is written in a script without spaces between words (Chinese, Thai)
    spaceless: bool


def _page_view(focus: Focus, doc: Document) -> _PageView:
    """The page's :class:`_PageView` for the part (computed once per page and part)."""
    key = ("page", focus)
    if key not in doc.memo:
        salience = tuple(_salience(f, doc) for f in focus.facets)
        own = not salience or _own_article(focus, doc)
        doc.memo[key] = _PageView(
            salience,
            1.0 if own else sum(salience) / len(salience),
            _names_subject(focus, doc),
            frozenset(_topic_terms(focus, doc)),
            spaceless(focus.text),
        )
    return doc.memo[key]


def _section_view(focus: Focus, doc: Document, section: str) -> tuple[bool, bool]:
    """Whether a section is about the part (:func:`context_about`) and whether it is
    about another part instead (:func:`about_other_part`), once per section and part."""
    key = ("section", focus, section)
    if key not in doc.memo:
        doc.memo[key] = (
            context_about(focus, doc, section),
            about_other_part(focus, doc, section),
        )
    return doc.memo[key]


def _core_on_page(focus: Focus, doc: Document) -> bool:
    """Whether the page names the subject's core anywhere (once per page and part)."""
    key = ("core", focus.core)
    if key not in doc.memo:
        doc.memo[key] = _has_core(focus.core, doc.lowered)
    return doc.memo[key]


def _names_subject(focus: Focus, doc: Document) -> bool:
    """Whether the page's title (without the site's name) names the part's subject: the
    page is about it, so that its own rare words tell where it answers the part."""
    return _has_core(focus.core, _normal(_without_site(doc.title)))
