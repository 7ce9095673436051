"""Comparison questions: the sides compared, and one part for each.

A comparison ("Which is better for a small shop, A or B?", "Is A better than B for P?",
"Compare the P of A and B", "What is the P of A compared to B?", "A vs B", "What is the
difference between A and B?", "Should I take A or B for P?", "A和B哪个更长？", "比较A和B的P",
"A与B有什么区别？") asks about two things on one aspect.
Read as one part it has one subject, the first side, and the second side becomes a word
every sentence must say, so a page about the second side alone answers nothing. It is
planned as three parts: each side on the aspect asked, with its own subject, and the
comparison itself as the user asked it (which needs a sentence naming both).

A side's part asks the measure the comparison names when it names one ("Which is longer,
A or B?" gives "How long is A?", which asks for a figure; "A和B哪个更长？" gives
"A有多长？"), when for one that compares times ("Which opened first, A or B?" gives "When
did A open?", "Which was built first, A or B?" "When was A built?"), the property the
question names ("Compare the P of A and B" gives "What is A's P?"), or else the side on
the question's aspect ("What about A for a small shop?").

The words are English's and Chinese's comparison frames; a question in another language
is planned as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .lemmas import all_lemmas
from .text import CJK, STOP_WORDS, is_bare_verb, terms, word_tag, words

#: English comparatives that name no measure: a side's part asks about the side on the
#: aspect instead ("What about A …?"), since no page says how "good" a thing is.
UNMEASURED = frozenset({"better", "worse", "preferable", "best", "worst"})
#: English comparatives of an amount: after a verb ("which costs less", "which uses more
#: water") a side's part asks how much.
AMOUNTS = frozenset({"more", "less", "fewer"})

_SIDE = r"[^,;:?]+?"
_OPENS_ASPECT = r"(?:for|in|on|at|when|if|as|to|by)\b"
_ASPECT = rf"(?P<aspect>{_OPENS_ASPECT}[^?]*?)"
_CMP = r"(?P<cmp>(?:more|less)\s+\w+|\w+er|better|worse|preferable)"
#: The prepositions that set two sides in one place or way ("to live *in* A or *in* B").
_PREP = r"in|at|on|by|with|from|near|for|to|via|through|under"
#: Verbs of having or offering: "which *has* the better screen" asks about a property of
#: each side, not how well each does something.
_HAVING = r"(?:has|have|had|offers?|offered|gives?|gave|provides?|features?|comes\s+with)\b"
#: English comparison frames, each naming the sides ``a`` and ``b`` and, where it can,
#: the comparative (``cmp``), the aspect (``aspect``: "for a small shop") and a property
#: of both sides (``prop``: "the P of A and B").
_EN = tuple(
    re.compile(p, re.I)
    for p in (
        # Which is better for P, A or B?  Which NOUN is longer, A or B?
        rf"^(?:which|what|who)\b(?:\s+\w+)?\s+(?:is|are|was|were)\s+(?:the\s+)?{_CMP}\b"
        rf"(?:\s+(?!{_OPENS_ASPECT})\w+)?(?P<pre>[^,:?]*?)\s*[,:]\s*(?P<a>{_SIDE}),?\s+or\s+(?P<b>{_SIDE})(?:,?\s+{_ASPECT})?\s*$",
        # Is A or B better for P?
        rf"^(?:is|are|was|were)\s+(?P<a>{_SIDE})\s+or\s+(?P<b>{_SIDE})\s+{_CMP}\b"
        rf"(?:\s+{_ASPECT})?\s*$",
        # Are A better than B for P?  Is A longer than B?
        rf"^(?:is|are|was|were)\s+(?P<a>{_SIDE})\s+{_CMP}(?:\s+to\s+\w+)?\s+than\s+(?P<b>{_SIDE})"
        rf"(?:\s+{_ASPECT})?\s*$",
        # Should I take A or B for P?  Should I install A versus B in P?
        rf"^(?:should|shall|would|could|can|do)\s+(?:i|we|you|one)\s+\w+\s+(?P<a>{_SIDE})\s+"
        rf"(?:or|vs\.?|versus)\s+"
        rf"(?P<b>{_SIDE})(?:\s+{_ASPECT})?\s*$",
        # Compare the P of A and B (for P)
        rf"^compare\s+(?:the\s+(?P<prop>[^,?]+?)\s+of\s+)?(?P<a>{_SIDE})\s+(?:and|with|to|against)"
        rf"\s+(?P<b>{_SIDE})(?:\s+{_ASPECT})?\s*$",
        # What is the P of A compared to B?  How high is the P of A compared with B's?
        rf"^(?:what|how\s+\w+)\s+(?:is|are|was|were)\s+the\s+(?P<prop>[^,?]+?)\s+of\s+"
        rf"(?P<a>{_SIDE})\s+(?:compared|in\s+comparison)\s+(?:to|with)\s+(?P<b>{_SIDE})"
        rf"(?:['’]s)?(?:\s+{_ASPECT})?\s*$",
        # What is the difference between A and B (in P)?  What's the difference …?
        rf"^(?:(?:what|where)(?:'s|\s+(?:is|are))\s+)?(?:the\s+)?(?:main\s+|key\s+)?"
        rf"differences?\s+between\s+(?P<a>{_SIDE})"
        rf"\s+and\s+(?P<b>{_SIDE})(?:\s+{_ASPECT})?\s*$",
        # How does A differ from B (in P)?
        rf"^how\s+(?:does|do|did)\s+(?P<a>{_SIDE})\s+(?:differ\s+from|compare\s+(?:with|to))\s+"
        rf"(?P<b>{_SIDE})(?:\s+{_ASPECT})?\s*$",
        # How do A and B differ / compare (in P)?
        rf"^how\s+(?:do|did)\s+(?P<a>{_SIDE})\s+and\s+(?P<b>{_SIDE})\s+(?:differ|compare)\b"
        rf"(?:\s+{_ASPECT})?\s*$",
        # A vs B (for P)
        rf"^(?P<a>{_SIDE})\s+(?:vs\.?|versus)\s+(?P<b>{_SIDE})(?:\s+{_ASPECT})?\s*$",
        # Is it cheaper to live in A or in B?  Is it better to fly to A or B?
        rf"^(?:is|was)\s+it\s+{_CMP}\s+(?P<setting>to\s+\w+(?:\s+\w+){{0,3}}?\s+(?P<prep>{_PREP}))"
        rf"\s+(?P<a>{_SIDE})\s+or\s+(?P<again>(?P=prep)\s+)?(?P<b>{_SIDE})(?:,?\s+{_ASPECT})?\s*$",
        # Which has the better screen, A or B?  Which one offers longer battery life?
        rf"^(?:which|what|who)\b(?:\s+(?!{_HAVING})\w+)?\s+{_HAVING}\s+(?:(?:a|an|the)\s+)?"
        rf"(?P<cmp>(?!(?:more|less|fewer)\b)\w+er|better|worse)\s+(?P<prop>[^,:?]+?)\s*[,:]\s*"
        rf"(?P<a>{_SIDE}),?\s+or\s+(?P<b>{_SIDE})(?:,?\s+{_ASPECT})?\s*$",
        # Which should I buy, A or B?  Which would you recommend for P, A or B?
        rf"^(?:which|what)\b(?:\s+\w+)?\s+(?P<choice>should|shall|would|could|can|do|must)\s+"
        rf"(?:i|we|you|one)\s+\w+(?P<pre>[^,:?]*?)\s*[,:]\s*(?P<a>{_SIDE}),?\s+or\s+(?P<b>{_SIDE})"
        rf"(?:,?\s+{_ASPECT})?\s*$",
        # Which was built first, A or B?  Which bridge was opened earlier, A or B?  Who was
        # born first, A or B?
        rf"^(?:which|what|who)\b(?:\s+\w+)?\s+(?P<verb>(?:was|were)\s+\w+)\s+"
        rf"(?P<cmp>first|last|earlier|later|sooner)\b(?P<pre>[^,:?]*?)\s*[,:]\s*"
        rf"(?P<a>{_SIDE}),?\s+or\s+(?P<b>{_SIDE})(?:,?\s+{_ASPECT})?\s*$",
        # Which costs less to run, A or B?  Which lasts longer, A or B?  Which one uses
        # more water, A or B?  Which city has more people, A or B?  Who came first, A or B?
        rf"^(?:which|what|who)\b(?:\s+\w+)?\s+(?!(?:is|are|was|were|a|an|the)\b)(?P<verb>[a-z]+)\s+"
        rf"(?P<cmp>more|less|fewer|better|worse|first|last|\w+er)\b(?P<pre>[^,:?]*?)\s*[,:]\s*"
        rf"(?P<a>{_SIDE}),?"
        rf"\s+or\s+(?P<b>{_SIDE})(?:,?\s+{_ASPECT})?\s*$",
    )
)
#: English plurals lemminflect takes for their own lemma: a side's part asks how *many*
#: of them ("How many people does A have?").
PLURAL_NOUNS = frozenset({"people", "cattle", "police"})
#: How a verb's comparative asks about one side ("which works better" → "how well").
_ADVERBS = {"better": "well", "worse": "badly"}
#: The words that compare when things happened ("which opened first", "which came
#: earlier"): a side's part asks when.
IN_TIME = frozenset({"first", "last", "earlier", "later", "sooner"})
#: A question that names the sides before it asks ("A vs B: which is cheaper?", "A or B —
#: which lasts longer?"): the sides, and the ask after them.
_SIDES_FIRST = re.compile(
    rf"^(?P<a>{_SIDE})\s+(?:vs\.?|versus|or)\s+(?P<b>{_SIDE})\s*(?:[:,;]|\s[-–—])\s*"
    r"(?P<ask>(?:which|what)\b[^?]*)\??$",
    re.I,
)

_ZH_AND = "和|与|跟|同|及"
#: What may follow the sides before the ask ("A跟B比，哪个…", "A与B相比较…").
_ZH_SET_SIDE = "相比较|相比|比较起来|比起来|比较|比"
#: Softeners after 比较 or 对比 that are no part of the first side (比较一下A和B).
_ZH_SOFT = "一下|一番|下"
#: What a property after 哪个 may not hold: a verb of being or having, or 的
#: (哪个是首都, 哪个有港口 ask which side is or has something, comparing nothing).
_ZH_NOT_PROP = re.compile("[是有在的]")
#: What asks a Chinese comparison of adjectives ("更长"): 多 and 少 of an amount
#: ("哪个人口多") besides the one-character measures.
_ZH_AMOUNT = "多少"
#: Chinese adjectives that compare without 更 ("A和B哪个长？").
_ZH_ONE = "长高大重深宽远快久老好"
#: "Which" in Chinese: 哪 with the measure word of what it asks about (哪个, 哪一座城市,
#: 哪家, 哪条河), or 谁.
_ZH_WHICH = "哪一?[个种家座所条位部本只间辆艘片支项张类款门台]|谁"
#: Chinese comparison frames (sides ``a`` and ``b``, the comparative ``cmp`` after 更,
#: or a property ``prop`` of both sides).
_ZH = tuple(
    re.compile(p)
    for p in (
        # A和B哪个更长？  A与B相比，哪个更适合P？  A跟B比哪个便宜？  A和B哪个人口多？
        rf"^(?P<a>[^，,？?]+?)(?:{_ZH_AND})(?P<b>[^，,？?]+?)(?:{_ZH_SET_SIDE})?[，,]?"
        rf"(?P<which>{_ZH_WHICH})(?P<ask>[^？?]{{1,12}})$",
        # A还是B更好？
        r"^(?P<a>[^，,？?]+?)还是(?P<b>[^，,？?]+?)(?:更|比较)(?P<cmp>[^？?]+)$",
        # 哪个城市更大，A还是B？
        rf"^(?P<which>{_ZH_WHICH})(?P<ask>[^，,？?]{{1,12}})[，,:：]\s*(?P<a>[^，,？?]+?)"
        rf"(?:还是|{_ZH_AND})(?P<b>[^，,？?]+?)$",
        # A还是B，哪个更便宜？
        rf"^(?P<a>[^，,？?]+?)还是(?P<b>[^，,？?]+?)[，,:：]\s*(?P<which>{_ZH_WHICH})"
        rf"(?P<ask>[^？?]{{1,12}})$",
        # 比较A和B的P
        rf"^(?:请|请你|帮我)?(?:比较|对比)(?:{_ZH_SOFT})?(?P<a>[^，,？?]+?)(?:{_ZH_AND})(?P<b>[^，,？?的]+)(?:的(?P<prop>[^？?。]+))?$",
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
    #: the words an English question sets each side in ("to live in" of "Is it cheaper
    #: to live in A or in B?"), or ""
    setting: str = ""


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
        got["b"] = _named_like(got["b"], got["a"])
        asked = _asked(got)
        if asked is None:
            continue
        got.update(asked)
        if not _fits(got, language, frames):
            continue
        aspect = " ".join(x for x in (got.get("pre", ""), got.get("aspect", "")) if x)
        return Comparison(
            (got["a"], got["b"]),
            got.get("cmp", ""),
            aspect,
            got.get("prop", ""),
            language,
            got.get("verb", ""),
            got.get("setting", ""),
        )
    return None


def _named_like(side: str, other: str) -> str:
    """A side that is only a number or a version, named as the other side names its own
    ("Python 3.11 and 3.12": Python 3.12); any other side as it is."""
    found = re.fullmatch(r"(?P<name>.+?)\s+v?\d[\d.]*", other)
    if found and re.fullmatch(r"v?\d[\d.]*", side):
        return f"{found['name']} {side}"
    return side


def _asked(got: dict[str, str]) -> dict[str, str] | None:
    """What a frame's match adds to what it names: a choice ("Which should I buy, A or
    B?") compares as "better" does; a Chinese ask after 哪个 gives its comparative and
    property (:func:`_zh_ask`); None when that ask compares nothing."""
    if "ask" in got:
        found = _zh_ask(got["ask"])
        return _without_kind(found, got) if found else found
    return {"cmp": "better"} if got.get("choice") else {}


#: The measure words after 哪 that say nothing of what is counted (哪个, 哪种): the noun
#: after them may be a property as well as the kind of the sides (哪个人口更多).
_ZH_ANY_MEASURE = "个种"


def _without_kind(found: dict[str, str], got: dict[str, str]) -> dict[str, str]:
    """A Chinese comparison's property without the noun that opens it when that noun is
    the kind of the sides compared, not a property of theirs (哪座*城市*人口更多, 哪条*河*
    更长): when another noun follows it, when the measure word before it counts a kind of
    thing (座, 条, not 个), or when both sides' names end in it (瓦恩河, 奥斯特河)."""
    cut = words(found.get("prop", ""))
    if not cut:
        return found
    kind, rest = cut[0], "".join(cut[1:])
    specific = got["which"].lstrip("哪一")[:1] not in _ZH_ANY_MEASURE
    headed = all(side.endswith(kind) for side in (got["a"], got["b"]))
    if rest or specific or headed:
        return {**found, "prop": rest}
    return found


def _zh_ask(ask: str) -> dict[str, str] | None:
    """What a Chinese comparison asks after 哪个: the comparative after 更 or 比较 (更长:
    长; 比较适合P), else the adjective the ask ends with (便宜, 长, 多), each with the
    property it is said of before it (人口 of 哪个人口更多); None when the ask ends in no
    comparative (哪个有港口, 哪个是首都, 哪个政党)."""
    found = re.fullmatch(r"(?P<prop>[^更]*?)(?:更|比较)(?P<cmp>.+)", ask)
    if found:
        return None if _ZH_NOT_PROP.search(found["prop"]) else found.groupdict()
    for cut in range(len(ask)):
        prop, cmp = ask[:cut], ask[cut:]
        if _ZH_NOT_PROP.search(prop):
            return None
        if (len(cmp) == 1 and cmp in _ZH_ONE + _ZH_AMOUNT) or word_tag(cmp).startswith("a"):
            return {"prop": prop, "cmp": cmp}
    return None


def _fits(got: dict[str, str], language: str, frames: tuple[re.Pattern[str], ...]) -> bool:
    """Whether a frame's match compares: two different sides that can be sides, a
    comparative that is one, and, when a setting's preposition is left out before the
    second side ("to live in A or B"), a second side that is no act ("… or work from
    home")."""
    a, b = got["a"], got["b"]
    if not (_side(a, language) and _side(b, language)) or a.casefold() == b.casefold():
        return False
    if got.get("setting") and not got.get("again") and is_bare_verb(b.split()[0]):
        return False
    return _comparative(got, frames)


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
    if said.lower().startswith(("more ", "less ")) or word in UNMEASURED | AMOUNTS | IN_TIME:
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


@dataclass(frozen=True)
class SideWords:
    """The terms that tell a comparison's sides apart, for one of its parts."""

    #: the terms naming only the part's side (for the comparison part, only the first side)
    own: tuple[str, ...]
    #: the terms naming only the other side (for the comparison part, only the second)
    other: tuple[str, ...]
    #: whether the part is the comparison itself, which a sentence answers by naming both
    both: bool = False


def side_words(part: str, question: str) -> SideWords | None:
    """What tells the sides of ``question``'s comparison apart, for ``part``: for a part
    asking one side, the terms naming only its side and those naming only the other
    ("How long is the Varn Tunnel?" of "Which is longer, the Varn Tunnel or the Ostel
    Tunnel?": ("varn",) and ("ostel",)); for the comparison as asked, each side's own terms;
    None for any other part, or when the sides share every term.

    Args:
        part: one part of the question's plan.
        question: the whole question.
    """
    found = comparison(question) if question else None
    if found is None:
        return None
    asked = side_parts(found)
    i = asked.index(part) if part in asked else 0
    mine, other = terms(found.sides[i]), terms(found.sides[1 - i])
    words = SideWords(
        tuple(t for t in mine if t not in other),
        tuple(t for t in other if t not in mine),
        part not in asked,
    )
    if words.both and part.rstrip("?？ ") != question.rstrip("?？ "):
        return None
    return words if words.other and (words.own or not words.both) else None


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
    if found.setting:
        return _en_side(f"{a} and {b}", found)
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
    passive = re.fullmatch(r"(?:was|were)\s+(?P<done>\w+)", said)
    if passive:  # "which was built first": "When was A built?"
        be = "were" if plural else "was"
        return " ".join(["When", be, who, passive.group("done"), *found.aspect.split()]) + "?"
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
    elif cmp in IN_TIME:
        rest, how = words, "When"
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
    cmp = found.comparative.lower()
    measured = bool(cmp) and cmp not in UNMEASURED
    if found.setting:  # "How cheap is it to live in Lisbon?"
        how = f"How {_base(cmp)}" if measured else "What"
        return f"{how} is it{'' if measured else ' like'} {found.setting} {side}{aspect}?"
    if found.prop:  # "What is India's GDP growth?": the side is the part's subject
        return _en_owned(side, found.prop, cmp, aspect)
    be = "are" if _plural(side) else "is"
    if measured:
        return f"How {_base(cmp)} {be} {side}{aspect}?"
    if not cmp and not aspect:  # "the difference between A and B": what each one is
        return f"What {be} {side}?"
    return f"What about {side}{aspect}?"


def _en_owned(side: str, prop: str, cmp: str, aspect: str) -> str:
    """A side's part asking a property of it: "How long is A's battery life?" for a
    measure, "What about A's screen?" for "the better screen", "What is A's GDP
    growth?" when only the property is named."""
    owned = f"{side}'" if side.endswith("s") else f"{side}'s"
    if cmp and cmp not in UNMEASURED:
        return f"How {_base(cmp)} is {owned} {prop}{aspect}?"
    return f"{'What about' if cmp else 'What is'} {owned} {prop}{aspect}?"


def _zh_side(side: str, found: Comparison) -> str:
    cmp = found.comparative
    if found.prop and cmp and cmp in _ZH_AMOUNT:  # 哪个人口多: A的人口有多少？
        return f"{side}的{found.prop}有多少？"
    if found.prop and cmp in ZH_MEASURES:
        return f"{side}的{found.prop}有多{cmp}？"
    if found.prop:
        return f"{side}的{found.prop}怎么样？"
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
    "SideWords",
    "as_one",
    "comparison",
    "side_parts",
    "side_words",
    "sides_first",
]
