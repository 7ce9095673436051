"""Comparison questions: the sides compared, and one part for each.

A comparison ("Which is better for a small shop, A or B?", "Is A better than B for P?",
"Compare the P of A and B", "A vs B", "What is the difference between A and B?", "Should
I take A or B for P?", "A和B哪个更长？", "比较A和B的P", "A与B有什么区别？") asks about two
things on one aspect.
Read as one part it has one subject, the first side, and the second side becomes a word
every sentence must say, so a page about the second side alone answers nothing. It is
planned as three parts: each side on the aspect asked, with its own subject, and the
comparison itself as the user asked it (which needs a sentence naming both).

A side's part asks the measure the comparison names when it names one ("Which is longer,
A or B?" gives "How long is A?", which asks for a figure; "A和B哪个更长？" gives
"A有多长？"), the property the question names ("Compare the P of A and B" gives "What is
A's P?"), or else the side on the question's aspect ("What about A for a small shop?").

The words are English's and Chinese's comparison frames; a question in another language
is planned as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .lemmas import all_lemmas
from .text import CJK, STOP_WORDS

#: English comparatives that name no measure: a side's part asks about the side on the
#: aspect instead ("What about A …?"), since no page says how "good" a thing is.
UNMEASURED = frozenset({"better", "worse", "preferable", "best", "worst"})
#: English comparatives of an amount: after a verb ("which costs less", "which uses more
#: water") a side's part asks how much.
AMOUNTS = frozenset({"more", "less", "fewer"})

_SIDE = r"[^,;:?]+?"
_ASPECT = r"(?P<aspect>(?:for|in|on|at|when|if|as|to)\b[^?]*?)"
_CMP = r"(?P<cmp>(?:more|less)\s+\w+|\w+er|better|worse|preferable)"
#: English comparison frames, each naming the sides ``a`` and ``b`` and, where it can,
#: the comparative (``cmp``), the aspect (``aspect``: "for a small shop") and a property
#: of both sides (``prop``: "the P of A and B").
_EN = tuple(
    re.compile(p, re.I)
    for p in (
        # Which is better for P, A or B?  Which NOUN is longer, A or B?
        rf"^(?:which|what|who)\b(?:\s+\w+)?\s+(?:is|are|was|were)\s+(?:the\s+)?{_CMP}\b"
        rf"(?:\s+one)?(?P<pre>[^,?]*?)\s*,\s*(?P<a>{_SIDE}),?\s+or\s+(?P<b>{_SIDE})(?:,?\s+{_ASPECT})?\s*$",
        # Is A or B better for P?
        rf"^(?:is|are|was|were)\s+(?P<a>{_SIDE})\s+or\s+(?P<b>{_SIDE})\s+{_CMP}\b"
        rf"(?:\s+{_ASPECT})?\s*$",
        # Are A better than B for P?  Is A longer than B?
        rf"^(?:is|are|was|were)\s+(?P<a>{_SIDE})\s+{_CMP}(?:\s+to\s+\w+)?\s+than\s+(?P<b>{_SIDE})"
        rf"(?:\s+{_ASPECT})?\s*$",
        # Should I take A or B for P?
        rf"^(?:should|shall|would|could|can|do)\s+(?:i|we|you|one)\s+\w+\s+(?P<a>{_SIDE})\s+or\s+"
        rf"(?P<b>{_SIDE})(?:\s+{_ASPECT})?\s*$",
        # Compare the P of A and B (for P)
        rf"^compare\s+(?:the\s+(?P<prop>[^,?]+?)\s+of\s+)?(?P<a>{_SIDE})\s+(?:and|with|to|against)"
        rf"\s+(?P<b>{_SIDE})(?:\s+{_ASPECT})?\s*$",
        # What is the difference between A and B (in P)?
        rf"^(?:what|where)\s+(?:is|are)\s+the\s+(?:main\s+)?differences?\s+between\s+(?P<a>{_SIDE})"
        rf"\s+and\s+(?P<b>{_SIDE})(?:\s+{_ASPECT})?\s*$",
        # How does A differ from B (in P)?
        rf"^how\s+(?:does|do|did)\s+(?P<a>{_SIDE})\s+(?:differ\s+from|compare\s+(?:with|to))\s+"
        rf"(?P<b>{_SIDE})(?:\s+{_ASPECT})?\s*$",
        # How do A and B differ / compare (in P)?
        rf"^how\s+(?:do|did)\s+(?P<a>{_SIDE})\s+and\s+(?P<b>{_SIDE})\s+(?:differ|compare)\b"
        rf"(?:\s+{_ASPECT})?\s*$",
        # A vs B (for P)
        rf"^(?P<a>{_SIDE})\s+(?:vs\.?|versus)\s+(?P<b>{_SIDE})(?:\s+{_ASPECT})?\s*$",
        # Which costs less to run, A or B?  Which lasts longer, A or B?  Which one uses
        # more water, A or B?  Which city has more people, A or B?
        rf"^(?:which|what)\b(?:\s+\w+)?\s+(?!(?:is|are|was|were)\b)(?P<verb>[a-z]+)\s+"
        rf"(?P<cmp>more|less|fewer|better|worse|\w+er)\b(?P<pre>[^,?]*?)\s*,\s*(?P<a>{_SIDE}),?"
        rf"\s+or\s+(?P<b>{_SIDE})(?:,?\s+{_ASPECT})?\s*$",
    )
)
#: English plurals lemminflect takes for their own lemma: a side's part asks how *many*
#: of them ("How many people does A have?").
PLURAL_NOUNS = frozenset({"people", "cattle", "police"})
#: How a verb's comparative asks about one side ("which works better" → "how well").
_ADVERBS = {"better": "well", "worse": "badly"}
#: A question that names the sides before it asks ("A vs B: which is cheaper?", "A or B —
#: which lasts longer?"): the sides, and the ask after them.
_SIDES_FIRST = re.compile(
    rf"^(?P<a>{_SIDE})\s+(?:vs\.?|versus|or)\s+(?P<b>{_SIDE})\s*(?:[:,;]|\s[-–—])\s*"
    r"(?P<ask>(?:which|what)\b[^?]*)\??$",
    re.I,
)

_ZH_AND = "和|与|跟|同|及"
#: Chinese adjectives that compare without 更 ("A和B哪个长？").
_ZH_ONE = "长高大重深宽远快久老好"
#: Chinese comparison frames (sides ``a`` and ``b``, the comparative ``cmp`` after 更,
#: or a property ``prop`` of both sides).
_ZH = tuple(
    re.compile(p)
    for p in (
        # A和B哪个更长？  A与B相比，哪个更适合P？
        rf"^(?P<a>[^，,？?]+?)(?:{_ZH_AND})(?P<b>[^，,？?]+?)(?:相比)?[，,]?"
        rf"(?:哪个|哪一个|哪种|哪一种|哪家|谁)(?:(?:更|比较)(?P<cmp>[^？?]{{1,10}})|(?P<one>[{_ZH_ONE}]))$",
        # A还是B更好？
        r"^(?P<a>[^，,？?]+?)还是(?P<b>[^，,？?]+?)(?:更|比较)(?P<cmp>[^？?]+)$",
        # 比较A和B的P
        rf"^(?:比较|对比)(?P<a>[^，,？?]+?)(?:{_ZH_AND})(?P<b>[^，,？?的]+)(?:的(?P<prop>[^？?。]+))?$",
        # A和B有什么区别？  A与B的不同是什么？
        rf"^(?P<a>[^，,？?]+?)(?:{_ZH_AND})(?P<b>[^，,？?]+?)(?:之间)?(?:的|有)(?:什么|哪些)?"
        r"(?:区别|不同|差别|差异)(?:是什么|在哪里|有哪些)?$",
    )
)
#: What a side may not start with: a class of others rather than a named thing ("other
#: ferries", "其他渡轮"), what the sentence asks ("How many …"), a pronoun or an act
#: ("Is it better to rent than to buy?").
_NOT_A_SIDE = re.compile(
    r"^(?:other|others|those|that|these|this|the\s+other|how|what|which|who|when|where|why"
    r"|it|they|there|to)\b"
    r"|^(?:其他|其它|别的|另)|[谁哪什么的]",
    re.I,
)
#: The longest a side may be: a name or a short noun phrase, in words (English) or
#: characters (Chinese; a word in Latin letters counts as one).
SIDE_WORDS, SIDE_CHARS = 6, 10

#: Chinese measures a side's part asks for with 有多… ("有多长"): length, height, size,
#: weight, depth, width, distance, speed, duration, age.
ZH_MEASURES = frozenset("长高大重深宽远快久老")


@dataclass(frozen=True)
class Comparison:
    """A comparison question read into what it compares."""

    #: the two things compared, as the question names them
    sides: tuple[str, str]
    #: the comparative, as written ("longer", "more expensive", "更长": 长), or ""
    comparative: str = ""
    #: what both sides are compared on, as a phrase ("for a small online shop"), or ""
    aspect: str = ""
    #: a property of both sides the question names ("the GDP growth of A and B"), or ""
    prop: str = ""
    #: the language of the question's frame: "en" or "zh"
    language: str = "en"
    #: the verb an English comparative follows ("costs" in "which costs less"), or ""
    verb: str = ""


@lru_cache(maxsize=1024)
def comparison(text: str) -> Comparison | None:
    """The comparison ``text`` asks, or None when it asks none.

    Args:
        text: one part of a question (a clause the planner cut), in English or Chinese.
    """
    turned = sides_first(text)
    if turned != text:
        return comparison(turned)
    body = " ".join(text.split()).strip().rstrip("?？.。!！ ")
    language = "zh" if CJK.search(body) else "en"
    frames = _ZH if language == "zh" else _EN
    for frame in frames:
        found = frame.match(body)
        if found is None:
            continue
        got = {k: (v or "").strip() for k, v in found.groupdict().items()}
        got["cmp"] = got.get("cmp") or got.get("one", "")
        a, b = got["a"], got["b"]
        if not (_side(a, language) and _side(b, language)) or a.casefold() == b.casefold():
            continue
        if not _comparative(got, frames):
            continue
        aspect = " ".join(x for x in (got.get("pre", ""), got.get("aspect", "")) if x)
        return Comparison(
            (a, b), got.get("cmp", ""), aspect, got.get("prop", ""), language, got.get("verb", "")
        )
    return None


def sides_first(question: str) -> str:
    """``question`` with the ask first when it names the two sides it compares before
    asking ("Heat pumps vs gas boilers: which is cheaper to run?" reads as "Which is
    cheaper to run, heat pumps or gas boilers?"); any other question as it is."""
    body = " ".join(question.split())
    found = _SIDES_FIRST.match(body)
    if found is None:
        return question
    a, b, ask = (found.group(k).strip() for k in ("a", "b", "ask"))
    turned = f"{ask[0].upper()}{ask[1:]}, {_inside(a, b)} or {b}?"
    return turned if _SIDES_FIRST.match(turned) is None and comparison(turned) else question


def _inside(side: str, other: str) -> str:
    """A side that opened the question as it reads inside it: its first word in lower
    case when only the sentence made it a capital, as the other side's first word tells
    ("Heat pumps or gas boilers", not "Shopify or WooCommerce", nor "LED bulbs")."""
    first = side.split()[0]
    named = [w for w in other.split() if w.casefold() not in STOP_WORDS]
    if named and named[0].islower() and first[:1].isupper() and first[1:].islower():
        return first.lower() + side[len(first) :]
    return side


def _side(text: str, language: str) -> bool:
    """Whether ``text`` can be a side compared: a named thing or a short noun phrase."""
    if not text or _NOT_A_SIDE.search(text):
        return False
    if language == "zh":  # a Latin name in a Chinese question counts as one
        return len(re.findall(r"[A-Za-z0-9]+|[^A-Za-z0-9\s]", text)) <= SIDE_CHARS
    return len(text.split()) <= SIDE_WORDS


def _lemma_of(word: str, upos: str) -> tuple[str, ...]:
    """lemminflect's ``getLemma(word, upos)``: the lemmas of ``word`` as a ``upos`` by
    its table (kept compact: :func:`research.lemmas.all_lemmas`), else by its rules for
    a word the table lacks (imported by the questions that compare)."""
    listed = all_lemmas(word).get(upos)
    if listed:
        return listed
    from lemminflect import getAllLemmasOOV

    return getAllLemmasOOV(word, upos).get(upos, ())


def _comparative(got: dict[str, str], frames: tuple[re.Pattern[str], ...]) -> bool:
    """Whether the frame's comparative (if it has one) is one: "longer" or "more costly"
    in English (a word ending in -er that is no adjective's comparative, "river", is not)."""
    said = got.get("cmp", "")
    if not said or frames is _ZH:
        return True
    word = said.split()[-1].lower()
    if said.lower().startswith(("more ", "less ")) or word in UNMEASURED | AMOUNTS:
        return True
    return word not in _lemma_of(word, "ADJ")


def _base(comparative: str) -> str:
    """The adjective an English comparative compares by ("longer" → "long", "more
    expensive" → "expensive")."""
    words = comparative.split()
    if len(words) > 1:
        return words[-1]
    return _lemma_of(words[0].lower(), "ADJ")[0]


def side_parts(found: Comparison) -> list[str]:
    """One part for each side of a comparison, in the comparison's language (see the
    module)."""
    if found.language == "zh":
        return [_zh_side(side, found) for side in found.sides]
    return [_en_side(side, found) for side in found.sides]


def as_one(found: Comparison) -> str:
    """The comparison asked of both sides at once, without its comparing words ("How long
    are A and B?", "What about A and B for P?", "A和B有多长？"): what a sentence answering
    it says, read as a part (both sides are its subject; "better", "difference" or
    "区别" are no words a sentence must say)."""
    a, b = found.sides
    if found.language == "zh":  # listed with 、, which no word cut runs across
        both, cmp = f"{a}、{b}", found.comparative
        if found.prop:
            return f"{both}的{found.prop}怎么样？"
        if cmp in ZH_MEASURES:
            return f"{both}有多{cmp}？"
        return f"{both}是否{cmp}？" if cmp and cmp != "好" else f"{both}怎么样？"
    if found.verb:
        return _by_verb(f"{a} and {b}", True, found)
    aspect = f" {found.aspect}" if found.aspect else ""
    cmp = found.comparative.lower()
    if found.prop:
        return f"What is {a}'s and {b}'s {found.prop}{aspect}?"
    if cmp and cmp not in UNMEASURED:
        return f"How {_base(cmp)} are {a} and {b}{aspect}?"
    return f"What about {a} and {b}{aspect}?"


def _by_verb(who: str, plural: bool, found: Comparison) -> str:
    """The part asking a comparison's verb of ``who`` (a side, or both): "How much does
    A cost to run?", "How much water do A and B use?", "How long does A last?", "How
    many goals did A score?"."""
    said = found.verb.lower()
    verb = _lemma_of(said, "VERB")[0]
    past = said != verb and not said.endswith("s")  # "scored", "had": asked of the past
    do = "did" if past else "do" if plural else "does"
    cmp = found.comparative.lower()
    words = found.aspect.split()
    if cmp in AMOUNTS:
        noun = words[0] if words and words[0].lower() not in STOP_WORDS else ""
        rest = words[1:] if noun else words
        plain_noun = noun.lower()
        counted = plain_noun in PLURAL_NOUNS or (
            bool(noun) and _lemma_of(plain_noun, "NOUN")[0] != plain_noun
        )
        many = "many" if cmp == "fewer" or counted else "much"  # "people", "goals": many
        how = f"How {many} {noun}".rstrip()
    else:
        rest = words
        how = f"How {_ADVERBS.get(cmp) or _base(cmp)}"
    return " ".join([how, do, who, verb, *rest]) + "?"


def _plural(side: str) -> bool:
    """Whether a side is plural ("heat pumps"; not a name such as "Harsk Mills")."""
    last = side.split()[-1] if side.split() else side
    return re.search(r"[^s]s$", last) is not None and not last[:1].isupper()


def _en_side(side: str, found: Comparison) -> str:
    if found.verb:
        return _by_verb(side, _plural(side), found)
    aspect = f" {found.aspect}" if found.aspect else ""
    if found.prop:  # "What is India's GDP growth?": the side is the part's subject
        owner = f"{side}'" if side.endswith("s") else f"{side}'s"
        return f"What is {owner} {found.prop}{aspect}?"
    cmp = found.comparative.lower()
    be = "are" if _plural(side) else "is"
    if cmp and cmp not in UNMEASURED:
        return f"How {_base(cmp)} {be} {side}{aspect}?"
    if not cmp and not aspect:  # "the difference between A and B": what each one is
        return f"What {be} {side}?"
    return f"What about {side}{aspect}?"


def _zh_side(side: str, found: Comparison) -> str:
    if found.prop:
        return f"{side}的{found.prop}怎么样？"
    cmp = found.comparative
    if cmp in ZH_MEASURES:
        return f"{side}有多{cmp}？"
    if cmp and cmp != "好":
        return f"{side}是否{cmp}？"
    if not cmp:  # A和B有什么区别: what each one is
        return f"{side}是什么？"
    return f"{side}怎么样？"


__all__ = [
    "AMOUNTS",
    "PLURAL_NOUNS",
    "UNMEASURED",
    "ZH_MEASURES",
    "Comparison",
    "as_one",
    "comparison",
    "side_parts",
    "sides_first",
]
