"""Reading text the way a researcher does: blocks, sections, full sentences and terms.

Stored pages and file extracts are Markdown. :func:`passages` walks one into its blocks
(paragraphs, list items, quotes; headings name the section they open, tables are kept
apart) and cuts each block into sentences with a real segmenter (``sentencex``), so that
"Dec. 6", "Dr. Dempsey" and "the U.S. order" stay whole and Chinese full stops end a
sentence. Every sentence keeps its exact character offsets in the original text, which
is what makes it citable.

:func:`terms` gives the comparable words of a text: lower-cased, English words stemmed
(Snowball), the words of another language by its Snowball stemmer or simplemma's lemmas,
Chinese cut into words by jieba (Traditional characters read as Simplified), stop words
dropped.
"""

from __future__ import annotations

import logging
import re
import unicodedata
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any

import regex

from . import cuts
from .lemmas import PAST, all_lemmas, verb_form
from .scope import setting

#: The CJK ideographs, as the body of a regex character class to compose patterns with
#: (``rf"[{CJK_CLASS}0-9]"``): Extension A (U+3400–U+4DBF), the unified ideographs
#: (U+4E00–U+9FFF) and the compatibility ideographs (U+F900–U+FAFF). Every pattern of the
#: research core and the subagents that means "a Chinese character" is built from it.
CJK_CLASS = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: One CJK ideograph (see :data:`CJK_CLASS`).
CJK = re.compile(rf"[{CJK_CLASS}]")
#: The CJK ideographs with CJK punctuation (U+3000–U+303F) and the full-width forms
#: (U+FF00–U+FFEF), as a character class body: what Chinese text is written in.
CJK_TEXT_CLASS = rf"\u3000-\u303f{CJK_CLASS}\uff00-\uffef"
#: One character of Chinese text (see :data:`CJK_TEXT_CLASS`).
CJK_TEXT = re.compile(rf"[{CJK_TEXT_CLASS}]")
_CJK_RUN = re.compile(rf"([{CJK_CLASS}]+)")
#: One word in any script: a letter or digit, then letters with their combining marks (a
#: Devanagari or Thai vowel sign, a decomposed accent: marks, not letters, which ``\w``
#: would cut the word at), digits, apostrophes, hyphens and underscores.
WORD = regex.compile(r"[\p{L}\p{N}][\p{L}\p{M}\p{N}_'’-]*")
#: A run of letters (with their marks) and digits, for character grams.
_LETTER_RUN = regex.compile(r"[\p{L}\p{M}\p{N}]+")
#: Thai letters: a script written without spaces between words, cut into words by
#: PyThaiNLP's dictionary (``newmm``).
_THAI = re.compile(r"[\u0e00-\u0e7f]")
_LATIN = re.compile(r"[A-Za-z]")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_TABLE_ROW = re.compile(r"^[ \t]*\|")
_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")
_QUOTE = re.compile(r"[ \t]*>[ \t]?")
_RULE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_END = re.compile(r"[.!?。！？…।॥؟۔։።][\"'”’)\]）」』»]*$")
#: Scripts that end a sentence with no mark (Thai, Lao, Khmer): a paragraph's last
#: words end one.
_UNMARKED = re.compile(r"[\u0e00-\u0eff\u1780-\u17ff]")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_MD_EMPHASIS = re.compile(r"(?<![\w*_`])(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1(?![\w*_`])")
#: Strong emphasis against a word: Chinese has no spaces around it ("**长江**发源于").
_MD_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")

#: Words that end a fragment, not a sentence ("… described on this site; and").
_CONJUNCTIONS = (
    "and or but nor so yet because although though while whereas if than as "
    "with of to for the a an 和 与 及 以及 或 或者 但 但是 而 并 并且 因为 所以"
)
TRAILING_CONJUNCTIONS = frozenset(_CONJUNCTIONS.split())
_STOP_EN = (
    "a an the of to in on for and or nor but is are was were be been being "
    "by with as at from that this these those it its it's they them their "
    "there here what which who whom whose how when where why do does did "
    "done has have had having not no so than then into onto over under "
    "about also can could would should will shall may might must i we you "
    "he she his her our your my me us him one ones such very more most much "
    "many some any each other same own just only both all s t since until if whether "
    "before after between during within among across through against via per "
    "around behind upon up down out off without along toward towards beyond above below "
    "near throughout despite except besides beside amid"
)
_STOP_ZH = (
    "的 了 是 在 和 与 及 也 就 都 而 吗 呢 啊 之 其 又 着 把 被 对 以 于 为 这 那 "
    "个 它 它们 他 她 我们 什么 哪些 如何 怎么 怎样 为什么 为何 是否 哪 何时 何种 多少 "
    "有 没有 并 并且 一 中 上 下 及其 以及 从 到 由 谁 哪 哪个 哪里 哪儿 会 能 可以 吗 几 "
    "将 根据 按照 关于 对于 且 或 或者 而且 但 但是 "
    # as the English list has this, these, before, after and then
    "这个 那个 这些 那些 之前 以前 之后 以后 然后 "
    # modal verbs and degree words, as the English list has should, must and more, and
    # what a question word asks with (什么时候, 怎样才能, 什么叫)
    "要 应该 应当 能够 才能 让 使 更 很 非常 时候 叫 怎样才能 怎么才能 如何才能"
)
#: Verbs that open an instruction ("Show how …", "End with photos …", "Use the attached …").
_INSTRUCTION_VERBS = (
    "show start begin end finish open use give add include mention explain describe "
    "discuss note remember make keep put check compare list cite write focus avoid highlight "
    "emphasise emphasize consider insert summarise summarize present introduce illustrate "
    "talk point leave skip try see read look let do don't please ask remind quote bring"
)
INSTRUCTION_VERBS = frozenset(_INSTRUCTION_VERBS.split())
_ZH_INSTRUCTION = re.compile(
    r"^(?:请|注意|记得|务必|不要|别|切记|最后用|先用|以.{1,12}开头|以.{1,12}结尾)"
)
#: What follows an instruction verb ("Show how", "End with", "Use the", "Give ranges").
_OBJECTS = (
    "the a an how what why where when which who that this these those your our my it them "
    "with by from on in into up out to for each every all any some one more ranges sources "
    "photos examples"
)
_INSTRUCTION_OBJECTS = frozenset(_OBJECTS.split())
_EN_SUBJECT_FOLLOWS = re.compile(r"^\w+(?:'t)?\s+(?:is|are|was|were|has|had|of|'s)\b", re.I)


@lru_cache(maxsize=65536)
def is_instruction(sentence: str) -> bool:
    """Whether ``sentence`` tells someone what to do (a speaker note, a brief's note to the
    writer) rather than stating a fact: it opens with a bare instruction verb ("Show how
    the city grew …"), also after a clause setting the reader's case ("If you are new to
    the subject, begin with …"), or, in Chinese, with 请/注意/务必 ….
    """
    clean = plain(sentence).lstrip("\"'“‘(（「『-–—•* ")
    if not clean:
        return False
    if is_cjk(clean):
        return bool(_ZH_INSTRUCTION.match(clean))
    addressed = _TO_THE_READER.match(clean)
    if addressed:  # "If you are new to the subject, begin with the overview …"
        return is_instruction(clean[addressed.end() :])
    head = [w.lower().strip(",.:;") for w in clean.split(None, 2)[:2]]
    if len(head) < 2 or _EN_SUBJECT_FOLLOWS.match(clean):
        return False
    if head[0] in INSTRUCTION_VERBS:
        return head[1] in _INSTRUCTION_OBJECTS
    return _bare_command(head[0]) and head[1] in _COMMAND_OBJECTS


#: A clause that opens by setting the reader's case ("If you are new to the subject,",
#: "When you arrive,"): an instruction may follow it.
_TO_THE_READER = re.compile(
    r"^(?:if|when|whenever|once|before|after|as|unless)\s+you\b[^,;:]*,\s*", re.I
)


#: What follows any other verb that opens a command: an article, a pointing or question
#: word, a pronoun, a particle ("Find *out* how …", "Visit *the* …"); not a preposition,
#: which follows an adjective as well ("Close *to* the summit …").
_COMMAND_TEXT = (
    "the a an how what why where when which who whether this these those your our my it "
    "them up out down back"
)
_COMMAND_OBJECTS = frozenset(_COMMAND_TEXT.split())


def _bare_command(word: str) -> bool:
    """Whether an English word opening a sentence reads as a command: a verb in its bare
    form ("find", "visit") that is neither an adjective or adverb too ("close") nor a
    past form, which opens a statement as a participle ("Set in the hills, the town …")."""
    if not is_bare_verb(word) or readings(word) & {"ADJ", "ADV"}:
        return False
    return not verb_form(word) & PAST


#: A label of things to do before a colon: "To visit:", "Key dates to check:" (a short
#: label ending in "to" and a verb).
_TO_DO_LABEL = re.compile(r"^(?:[\w'’-]+\s+){0,3}?to\s+([a-z]+)\s*:", re.I)


@lru_cache(maxsize=65536)
def asks(sentence: str) -> bool:
    """Whether ``sentence`` asks rather than states, and so answers nothing: a question
    ("Question for the group: why did …?", "为什么…？"), or a list of things to do or
    check under a label of the kind ("To visit: …", "Key dates to check: …")."""
    clean = plain(sentence).rstrip(" \"'”’)）")
    if clean.endswith(("?", "？")):
        return True
    label = _TO_DO_LABEL.match(clean)
    return label is not None and is_bare_verb(label.group(1).lower())


#: A sentence that says where something is told instead of telling it: "How the locks
#: worked is explained under [locks](…)", "See [the dam](…) for …", "详见[水源](…)".
_CROSS_REFERENCE = re.compile(
    r"\b(?:is|are|was|were)\s+(?:explained|described|covered|discussed|treated|shown|"
    r"set\s+out|dealt\s+with)\s+(?:more\s+fully\s+|in\s+detail\s+)?(?:under|in|on|at)\s+"
    r"(?:the\s+)?(?:page\s+|section\s+|chapter\s+)?\[[^\]]+\]\([^)]+\)\s*[.。]?\s*$"
    r"|^\s*(?:see|for\s+more(?:\s+(?:on|about))?)\b[^.]*\[[^\]]+\]\([^)]+\)"
    r"|^\s*(?:参见|详见|见下文|见上文|另见)",
    re.I,
)


def is_cross_reference(sentence: str) -> bool:
    """Whether ``sentence`` (as a page writes it, links in Markdown) only points to where
    something is told ("… is explained under [locks and gates](…)"), which answers
    nothing on its own; a fact with a pointer beside it ("… (see [decline](…))") is not."""
    return bool(_CROSS_REFERENCE.search(sentence.strip()))


#: The opening of a pointer set beside a fact in brackets: "(see …)", "（详见…）".
_ASIDE_POINTER = re.compile(r"[(（]\s*(?:see|cf\.|compare|见|详见|参见|参看|另见)", re.I)


def points_elsewhere(sentence: str) -> bool:
    """Whether ``sentence`` sends its reader elsewhere in brackets anywhere in it ("… were
    doubled (see locks and gates), and …"): read alone in a report, such a quote points
    at a page the reader does not have."""
    return _ASIDE_POINTER.search(sentence) is not None


def pointer_aside(sentence: str) -> int:
    """Where a pointer in brackets that closes ``sentence`` begins ("… locks in steps
    (see [gates](…)).", "…建成（详见下文）。"), the spaces before it included, so that a
    quote may end before it; ``len(sentence)`` when it closes with none.

    Args:
        sentence: a sentence as its page writes it (links in Markdown).

    Returns:
        The offset the quote may end at.
    """
    found = list(_ASIDE_POINTER.finditer(sentence))
    if not found:
        return len(sentence)
    start = found[-1].start()
    depth = 0
    for i in range(start, len(sentence)):
        depth += sentence[i] in "(（"
        depth -= sentence[i] in ")）"
        if depth == 0:
            rest = sentence[i + 1 :]
            return len(sentence[:start].rstrip()) if not rest.strip(" .。") else len(sentence)
    return len(sentence)


STOP_WORDS = frozenset(_STOP_EN.split()) | frozenset(_STOP_ZH.split())
#: The English names of the months, lower-cased: "3 May" is a date, no count of mays.
MONTHS = frozenset(
    (
        *("january", "february", "march", "april", "may", "june", "july", "august"),
        *("september", "october", "november", "december"),
    )
)


@lru_cache(maxsize=1)
def jieba_loaded() -> Any:
    """jieba, its dictionary loaded once and its log quiet. Its import touches
    setuptools' ``pkg_resources``, whose deprecation warning newer setuptools prints on
    every command: it says nothing to the user and is silenced here."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*pkg_resources", category=Warning)
        import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def known_word(word: str) -> bool:
    """Whether jieba's word list holds ``word`` (or begins a word with it)."""
    return jieba_loaded().get_FREQ(word) is not None


@lru_cache(maxsize=65536)
def word_tag(word: str) -> str:
    """jieba's part of speech for a Chinese word its word list holds and cuts as one word
    (``n`` nouns, ``v`` verbs, ``f`` localizers, …), else ``""``: the word tagged on its own,
    without guessing new words."""
    jieba_loaded()
    import jieba.posseg

    cut = jieba.posseg.lcut(word, HMM=False)
    return cut[0].flag if len(cut) == 1 and cut[0].word == word else ""


#: A span a text marks as one name or phrase: a title in 《》, or words in quotes.
_MARKED = re.compile(r"《([^《》]+)》|“([^“”]+)”|「([^「」]+)」|『([^『』]+)』|\"([^\"]+)\"")
#: The longest Chinese name taught to jieba (see :func:`learn_words`).
LONGEST_NAME = 20


def marked(text: str) -> list[str]:
    """The spans ``text`` marks as names: in 《》 or in quotes, as written."""
    return [next(g for g in m.groups() if g).strip() for m in _MARKED.finditer(text)]


def learn_words(names: Iterable[str]) -> list[str]:
    """Teach jieba the Chinese names a run knows (a question's titles and quoted spans,
    the titles of its pages), so that a rare name is cut as one word rather than into the
    common words it is written with. Only names of 2 to :data:`LONGEST_NAME` Chinese
    characters that jieba does not hold are added (``jieba.add_word``, as a proper noun,
    ``nz``, with the frequency jieba suggests for it to stay whole); the ones added are
    returned.

    jieba's word list is the process's: a name taught stays for the runs after it. jieba
    is not loaded for names none of which is Chinese.
    """
    taught: list[str] = []
    for name in names:
        word = simplified(name.strip())
        if not 2 <= len(word) <= LONGEST_NAME or not all(CJK.match(ch) for ch in word):
            continue
        jieba = jieba_loaded()
        if jieba.get_FREQ(word) or word in taught:
            continue
        jieba.add_word(word, tag="nz")
        taught.append(word)
    if taught:  # the cuts made before are cut anew
        word_tag.cache_clear()
        cuts.taught(taught)
    return taught


@lru_cache(maxsize=1)
def _to_simplified() -> Any:
    import opencc

    return opencc.OpenCC("t2s")


def simplified(text: str) -> str:
    """``text`` with Traditional Chinese written in Simplified characters (OpenCC's
    ``t2s``), for matching only: the terms of a Traditional sentence are those of its
    Simplified form, while quotes and offsets are always taken from the text as written."""
    return _to_simplified().convert(text) if CJK.search(text) else text


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


#: The language whose words written in Latin letters are being read (the question's,
#: set for a run by :func:`reading`): English unless a run says otherwise.
_READING: ContextVar[str] = ContextVar("reading", default="en")


@contextmanager
def reading(language: str) -> Iterator[None]:
    """Compare the words of every text read inside this block that are written in the
    script of ``language`` (a code such as ``tr``) as words of that language (see
    :func:`_own_stem`), the others as before: a question and the pages read for it are
    compared in the question's language, so "köprüsü" meets "köprü"; English and an
    unknown language compare as English. The block holds for the tasks and threads
    started inside it."""
    with setting(_READING, language):
        yield


def reading_language() -> str:
    """The language words are read in here (see :func:`reading`)."""
    return _READING.get()


@lru_cache(maxsize=256)
def written_in(language: str) -> str:
    """The script the language ``language`` is written in, by ``lang/scripts.yaml``
    (``latin``, ``cyrillic``…), or ``""`` for English, Chinese, Japanese and Korean,
    which have rules of their own, and a language listed nowhere."""
    data = scripts_data()
    for name, languages in data["scripts"].items():
        if language in languages:
            return name
    latin = language in data["latin"] or language in data.get("language_stemmers", {})
    return "latin" if latin and language != "en" else ""


@lru_cache(maxsize=1)
def _language_stemmers() -> dict[str, Any]:
    """The Snowball stemmer of each language ``lang/scripts.yaml`` names one for (None:
    its words are compared as written)."""
    import snowballstemmer

    raw = scripts_data().get("language_stemmers", {})
    return {code: snowballstemmer.stemmer(algo) if algo else None for code, algo in raw.items()}


def _own_stem(word: str, language: str) -> str:
    """A word written in the script of ``language`` compared as a word of it: by the
    language's Snowball stemmer, as written where ``scripts.yaml`` says so, else by its
    lemma in simplemma's dictionary when simplemma knows the language, else as
    written."""
    stemmers = _language_stemmers()
    if language in stemmers:
        stemmer = stemmers[language]
        return (stemmer.stemWord(word) or word) if stemmer else word  # never an empty stem
    return _lemma(word, scripts_data().get("lemmatizer_codes", {}).get(language, language))


def _lemma(word: str, code: str) -> str:
    """simplemma's lemma of ``word`` in the language ``code`` (lower case), or the word
    when simplemma does not know the language."""
    import simplemma

    if code not in _simplemma_languages():
        return word
    return simplemma.lemmatize(word, lang=code).lower() or word


@lru_cache(maxsize=1)
def _simplemma_languages() -> frozenset[str]:
    """The languages simplemma has a dictionary for."""
    from simplemma.strategies.dictionaries.dictionary_factory import SUPPORTED_LANGUAGES

    return frozenset(SUPPORTED_LANGUAGES)


@lru_cache(maxsize=1)
def _script_stemmers() -> dict[str, Any]:
    """A Snowball stemmer for each script ``lang/scripts.yaml`` names one for."""
    import snowballstemmer

    raw = scripts_data().get("stemmers", {})
    return {name: snowballstemmer.stemmer(algo) for name, algo in raw.items()}


@lru_cache(maxsize=1)
def scripts_data() -> dict[str, Any]:
    """``lang/scripts.yaml``: the languages of each script, their stemmers and names
    (read here, below :mod:`research.lang`, which reads it through this too)."""
    import yaml

    return yaml.safe_load((Path(__file__).parent / "lang" / "scripts.yaml").read_text("utf-8"))


@lru_cache(maxsize=65536)
def _script_stem(word: str) -> str:
    """A word not in ASCII letters by the stemmer of its script, when it has one (a
    Latin word with accents, and a script with none, stay as they are)."""
    stemmer = _script_stemmers().get(script(word))
    return (stemmer.stemWord(word) or word) if stemmer else word  # never an empty stem


#: Chinese measure words: right after a number, 几 or 多少 one counts what follows (三座桥,
#: 多少颗卫星, 多少名员工, 两种) or measures a portion of it (一杯), and is no part of it.
ZH_COUNTERS = frozenset(
    "个位名只头条匹座栋所家间颗粒棵株本册张把件台辆架艘部篇首幅封层枚块片根支项届场批"
    "种次类杯碗份罐瓶勺袋盒"
)
#: :data:`ZH_COUNTERS` as the body of a regex character class.
ZH_COUNTER_CLASS = "".join(sorted(ZH_COUNTERS))
#: A word that counts: a number in digits or Chinese numerals, 几, 多少.
_ZH_COUNT = re.compile(r"(?:\d+|[一二三四五六七八九十百千万亿两几]+|多少)")


def uncounted(before: str, word: str) -> str:
    """A Chinese word without the measure word it opens with when ``before``, the word
    before it, counts (颗卫星 after 多少 → 卫星; 名 after 多少 → ""); else ``word``."""
    if word[:1] in ZH_COUNTERS and _ZH_COUNT.fullmatch(before):
        return word[1:]
    return word


def is_cjk(text: str) -> bool:
    """Whether CJK characters make up a fair share of the letters of ``text``."""
    cjk = len(CJK.findall(text))
    return bool(cjk) and cjk * 3 >= len(_LATIN.findall(text))


@lru_cache(maxsize=4096)
def script(text: str) -> str:
    """The writing system most of the letters of ``text`` are in, by the first word of
    their Unicode names (``latin``, ``cjk``, ``cyrillic``, ``greek``, ``arabic``,
    ``devanagari``, ``thai``…; kana and hangul are ``cjk`` too); ``latin`` when it has
    no letters."""
    found: Counter[str] = Counter()
    for ch in text:
        if ch.isalpha():
            name = unicodedata.name(ch, "LATIN").split()[0].lower()
            found[_SCRIPT_OF.get(name, name)] += 1
    return found.most_common(1)[0][0] if found else "latin"


#: Scripts written alongside Chinese characters, counted as one with them.
_SCRIPT_OF = {"hiragana": "cjk", "katakana": "cjk", "hangul": "cjk"}


def language(text: str) -> str:
    """``zh`` for mostly-Chinese text, else ``en``."""
    return "zh" if is_cjk(text) else "en"


def words(text: str, search: bool = False) -> list[str]:
    """The lower-cased words of ``text`` (Chinese cut by jieba), stop words kept.

    With ``search``, a long Chinese word is followed by the shorter words inside it
    (大熊猫 → 大熊, 熊猫, 大熊猫), so that a long name in a question
    still meets the short one a page uses.
    """
    # a capital İ lower-cases to i and a combining dot: read as the i it is elsewhere
    lowered = text.lower().replace("’", "'").replace("i\u0307", "i")
    english = written_in(_READING.get()) != "latin"  # Latin words in Chinese: English
    out: list[str] = []
    for run in _CJK_RUN.split(lowered):
        if not run:
            continue
        if CJK.match(run):
            out.extend(_cut(run, search))
        else:
            found = WORD.findall(run)  # letters of any script: tromsø, पुलों
            for word in found:
                if english:
                    out.extend(_spaced_words(word.removesuffix("'s")))
                else:  # a word with its article or ending after an apostrophe: l'eau, Ankara'da
                    out.extend(_spaced_words(max(word.split("'"), key=len)))
    return out


#: Japanese kana and Korean hangul syllables, as bodies of regex character classes (see
#: :data:`CJK_CLASS`): hiragana, katakana (with its phonetic extensions), hangul.
HIRAGANA_CLASS = r"\u3040-\u309f"
KATAKANA_CLASS = r"\u30a0-\u30ff\u31f0-\u31ff"
KANA_CLASS = HIRAGANA_CLASS + KATAKANA_CLASS
HANGUL_CLASS = r"\uac00-\ud7af"
#: Katakana (a word of its own: a loanword or a name) and hiragana (a Japanese sentence's
#: particles and verb endings: は, を, てられ), cut apart where one meets the other.
_KANA_CUT = re.compile(rf"[{KATAKANA_CLASS}]+|[{HIRAGANA_CLASS}]+|[^{KANA_CLASS}]+")
_KANA = re.compile(rf"[{KANA_CLASS}]")
_HIRAGANA = re.compile(rf"[{HIRAGANA_CLASS}]+")
_HANGUL_WORD = re.compile(rf"[{HANGUL_CLASS}]+")
#: A Korean word keeps at least this many syllables when its particle is cut off.
HANGUL_STEM = 2
#: The Korean syllables a full sentence has at least (as many as six English words).
HANGUL_SENTENCE = 10


@lru_cache(maxsize=200_000)
def _spaced_words(word: str) -> tuple[str, ...]:
    """One word of a spaced run as the words it is made of: Japanese kana cut from the
    characters around them, a Korean word without the particle it ends with (경복궁은 →
    경복궁, as the language's data lists them), any other word as it is."""
    if _KANA.search(word):
        return tuple(_KANA_CUT.findall(word))
    if is_hangul(word):
        return (_particle_off(word),)
    if _THAI.search(word):
        return _thai_cut(word)
    return (word,)


@lru_cache(maxsize=65536)
def _thai_cut(run: str) -> tuple[str, ...]:
    """The words of a run of Thai (PyThaiNLP's dictionary cut, ``newmm``)."""
    from pythainlp.tokenize import word_tokenize

    return tuple(w for w in word_tokenize(run, engine="newmm", keep_whitespace=False) if w.strip())


@lru_cache(maxsize=1)
def _thai_function_words() -> frozenset[str]:
    """Thai's particles, conjunctions and other words that say nothing of what a
    question asks (PyThaiNLP's list)."""
    from pythainlp.corpus import thai_stopwords

    return frozenset(thai_stopwords())


@lru_cache(maxsize=65536)
def _particle_off(word: str) -> str:
    """A Korean word without the particle or verb ending it ends with (the longest
    Korean's data lists, particles first), when :data:`HANGUL_STEM` syllables are
    left."""
    for ending in _korean_endings():
        if word.endswith(ending) and len(word) - len(ending) >= HANGUL_STEM:
            return word[: -len(ending)]
    return word


@lru_cache(maxsize=1)
def _korean_endings() -> tuple[str, ...]:
    """Korean's particles, then its verb endings, each longest first, as its data file
    (``lang/ko.yaml``) lists them (read here, below the :mod:`research.lang` module that
    reads the rest of it)."""
    import yaml

    raw = yaml.safe_load((Path(__file__).parent / "lang" / "ko.yaml").read_text("utf-8"))
    return (*longest_first(raw.get("particles", ())), *longest_first(raw.get("endings", ())))


def longest_first(items: Iterable[object]) -> tuple[str, ...]:
    """``items`` as strings, the longest first (an ending is tried before the shorter
    ones it ends with: 으로 before 로)."""
    return tuple(sorted((str(w) for w in items), key=len, reverse=True))


def is_hangul(word: str) -> bool:
    """Whether ``word`` holds Korean letters (hangul syllables)."""
    return _HANGUL_WORD.search(word) is not None


def is_function_script(word: str) -> bool:
    """Whether ``word`` says nothing of what a question asks by its script: all
    hiragana (in Japanese the script of particles and endings; a content word written in
    hiragana alone is passed over too), or a Thai function word."""
    if _THAI.match(word):
        return word in _thai_function_words()
    return _HIRAGANA.fullmatch(word) is not None


def _cut(run: str, search: bool) -> tuple[str, ...]:
    """jieba's words of one run of Chinese characters (simplified first), cut once: a
    page's sentences, clauses and whole text share their runs, and a run cut by an earlier
    run is taken as it cut it (see :mod:`research.cuts`)."""
    found = cuts.known((run, search))
    if found is None:
        jieba = jieba_loaded()
        cut = jieba.lcut_for_search if search else jieba.lcut
        found = tuple(w for w in cut(simplified(run)) if w.strip())
        cuts.keep((run, search), found)
    return found


@lru_cache(maxsize=200_000)
def lemma(word: str) -> str:
    """The dictionary form of one lower-case English word ("built" → build, "fed" → feed,
    "batteries" → battery); a verb reading first. Other words as they are."""
    if CJK.match(word) or not word.isascii() or not word.isalpha():
        return word
    found = all_lemmas(word)
    for pos in ("VERB", "NOUN", "ADJ", "ADV"):
        if found.get(pos):
            return found[pos][0]
    return word


@lru_cache(maxsize=20_000)
def readings(word: str) -> frozenset[str]:
    """The parts of speech lemminflect knows a lower-case English word as (``NOUN``,
    ``VERB``, ``ADJ``, ``ADV``, ``AUX``, …): "engineer" only as a noun, "managed" as a
    verb or an adjective; none for a word it does not hold."""
    if not (word.isascii() and word.isalpha()):
        return frozenset()
    return frozenset(all_lemmas(word))


def is_word(word: str) -> bool:
    """Whether lemminflect knows ``word`` (lower case) as an English dictionary word."""
    return word.isascii() and word.isalpha() and bool(all_lemmas(word))


def _verb_lemmas(low: str) -> tuple[str, ...]:
    """The verbs a lower-case English word is a form of (none for another script)."""
    if not (low.isascii() and low.isalpha()):
        return ()
    return tuple(all_lemmas(low).get("VERB") or ())


def is_verb_form(word: str) -> bool:
    """Whether an English word reads as an inflected verb ("kept", "grew", "threatens",
    "powered"), not as a bare word that may also be a noun ("steam", "work")."""
    low = word.lower()
    return any(v != low for v in _verb_lemmas(low))


def is_bare_verb(word: str) -> bool:
    """Whether an English word can be a verb in its bare form ("die", "work", "feed"),
    whatever else it can be."""
    low = word.lower()
    return low in _verb_lemmas(low)


def stem(word: str) -> str:
    """The comparable form of one lower-case word: for English, the Snowball stem of its
    verb's base form when it is a form of a verb ("began" and "begin" alike, "built" and
    "building"), else of the word; a word written in the script of the language read in
    (see :func:`reading`) by that language's stemmer or lemmas (:func:`_own_stem`); a
    word in another script by its script's (:func:`_script_stem`); as-is otherwise."""
    return _stem(word, _READING.get())


@lru_cache(maxsize=200_000)
def _stem(word: str, language: str) -> str:
    if is_hangul(word):
        return _particle_off(word)
    if CJK.match(word):
        return word
    if script(word) == written_in(language):
        return _own_stem(word, language)
    if not word.isascii():
        return _script_stem(word)
    verb = all_lemmas(word).get("VERB") if word.isalpha() else None
    return _stemmer().stemWord(verb[0] if verb else word)


def terms(text: str) -> list[str]:
    """The content terms of ``text``, in order: stemmed, stop words and small numbers
    dropped (a number of three or more digits, a year or a count, is a term: "2012").

    Hyphenated words count as their parts ("Coca-Cola" → coca, cola); a Chinese measure
    word after a word that counts is none (条 in 多少条鱼: see :func:`uncounted`).
    """
    reading = _READING.get()
    out: list[str] = []
    before = ""
    for word in words(text, search=True):
        if not (word in ZH_COUNTERS and _ZH_COUNT.fullmatch(before)):
            out.extend(_word_terms(word, reading))
        before = word
    return out


@lru_cache(maxsize=200_000)
def _word_terms(word: str, reading: str) -> tuple[str, ...]:
    """The terms one word of a text gives (see :func:`terms`), read in ``reading``: a
    page says most of its words many times, and each is judged once."""
    found = []
    for part in word.split("-"):
        part = part.strip("'")
        if not part or part in STOP_WORDS or (part.isdigit() and len(part) < 3):
            continue
        if is_function_script(part):
            continue
        if len(part) == 1 and not CJK.match(part):
            continue
        found.append(_stem(part, reading))
    return tuple(found)


def named_terms(text: str) -> set[str]:
    """The terms of ``text`` written as names: capitalised inside a sentence ("the *Golden
    Gate*", "in *Freedonia*"), and never in lower case there."""
    clean = "\n".join(plain(part) for part in text.split("\n\n"))
    capital, lower = set(), set()
    for match in re.finditer(r"[A-Za-z][\w'’-]*", clean):
        before = clean[: match.start()].rstrip(" \"'“‘(*_")
        if not before or before[-1] in ".!?:;\n":
            continue  # a capital opening a sentence says nothing
        word = match.group(0)
        (capital if word[0].isupper() else lower).add(stem(word.lower().removesuffix("'s")))
    return capital - lower


@lru_cache(maxsize=65536)
def plain(text: str) -> str:
    """``text`` as a reader sees it: Markdown link and emphasis syntax removed."""
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_EMPHASIS.sub(r"\2", text)
    text = _MD_STRONG.sub(r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


@dataclass(frozen=True)
class Sentence:
    """One sentence of a text: ``text[start:end]``, the section it is in, and its kind."""

    start: int
    end: int
    text: str
    section: str = ""
    kind: str = "para"  # para | item | quote

    @property
    def complete(self) -> bool:
        """A full sentence stating something: not a heading, label, fragment, a list entry
        naming a link, or an instruction (a speaker note, a brief's note to the writer)."""
        if self.kind == "item" and self.text.lstrip().startswith("["):
            return False
        said = self.text.strip()
        if self.kind == "item" and _ITEM_END.search(said):
            # an entry of an enumeration of clauses: it ends on its semicolon, and an
            # English one opens in lower case ("the gates were closed;")
            said = said[:1].upper() + said[1:-1] + ("。" if said[-1] == "；" else ".")
        return is_complete(said) and not is_instruction(said) and not asks(said)


#: The semicolon a list entry ends on when the list enumerates clauses ("1. 在青溪上修筑…；",
#: "- the gates were closed;").
_ITEM_END = re.compile(r"[;；]$")

#: A bracketed aside inside a sentence: （琉球语：）, (born 1950).
_ASIDE = re.compile(r"\s*[（(][^（）()]{0,40}[）)]")


#: Marks a sentence may open with besides a letter or digit: quotes, brackets, titles.
_OPENERS = "\"'“‘(（「『《〈【"


@lru_cache(maxsize=65536)
def is_complete(sentence: str) -> bool:
    """Whether ``sentence`` reads as a full sentence on its own.

    It must end with a sentence mark (not a colon), not end on a conjunction or article,
    start like a sentence, and be long enough (6 words; 8 Chinese characters, kana,
    digits and letters: 体长可达58公分; :data:`HANGUL_SENTENCE` Korean syllables). A
    bracketed aside decides nothing (…石灶（青州话：）。 ends as a sentence), nor does
    a comma left at its start where a name was cut out of the text
    (，是该省唯一的火山岛，…). A Chinese sentence may open with a title (《…》是…).
    """
    clean = _ASIDE.sub("", plain(sentence)).lstrip("，,、；; ")
    if not clean or not (_END.search(clean) or _UNMARKED.search(clean[-1])):
        return False
    anchors = sum(len(a) for a in _MD_LINK.findall(sentence))
    if anchors * 2 > len(clean):  # a line of links ("See also: …") is navigation
        return False
    body = re.sub(r"[.!?。！？…।॥؟۔։።\"'”’)\]）」』»]+$", "", clean).rstrip()
    if not body or body.endswith((":", "：", ";", "；", ",", "，", "—", "-")):
        return False
    last = words(body[-24:])[-1:] or [""]
    if last[0] in TRAILING_CONJUNCTIONS:
        return False
    first = clean[0]
    caseless = first.isalpha() and first.lower() == first.upper()  # Arabic, Hindi, Thai…
    if not (first.isupper() or first.isdigit() or first in _OPENERS or caseless):
        return False
    if is_cjk(clean):  # Chinese, Japanese (its kana count too)
        return len(re.findall(rf"[{CJK_CLASS}{KANA_CLASS}A-Za-z0-9]", clean)) >= 8
    if _UNMARKED.search(clean):  # written without spaces between words
        return len(clean) >= 16
    if is_hangul(clean):  # a Korean word holds a noun and its particle
        return len(re.findall(rf"[{HANGUL_CLASS}]", clean)) >= HANGUL_SENTENCE
    return len(re.findall(r"\w+", clean)) >= 6


@dataclass(frozen=True)
class Block:
    """A Markdown block: its offsets, kind and the headings above it."""

    start: int
    end: int
    kind: str  # heading | para | item | quote | table
    section: str
    level: int = 0


def blocks(text: str) -> list[Block]:
    """The blocks of a Markdown text, in order, with the nearest heading above each."""
    out: list[Block] = []
    section = ""
    pos = 0
    current: tuple[int, int, str] | None = None  # start, end, kind
    in_fence = False

    def flush() -> None:
        nonlocal current
        if current is not None:
            out.append(Block(current[0], current[1], current[2], section))
            current = None

    for line in text.splitlines(keepends=True):
        start, pos = pos, pos + len(line)
        body = line.rstrip("\r\n")
        end = start + len(body)
        if _FENCE.match(body):
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not body.strip() or _RULE.match(body):
            flush()
            continue
        heading = _HEADING.match(body)
        if heading:
            flush()
            section = plain(heading.group(2))
            out.append(Block(start, end, "heading", section, len(heading.group(1))))
            continue
        kind = (
            "table"
            if _TABLE_ROW.match(body)
            else "item"
            if _ITEM.match(body)
            else "quote"
            if _QUOTE.match(body)
            else "para"
        )
        if current is not None and (kind == current[2] == "table" or kind == "para"):
            current = (current[0], end, current[2])  # a wrapped line continues its block
            continue
        flush()
        current = (start, end, kind)
    flush()
    return out


@lru_cache(maxsize=4)
def _segmenter(lang: str) -> Any:
    import sentencex

    return lambda text: sentencex.segment(lang, text)


def _split(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence offsets inside ``text[start:end]``."""
    piece = text[start:end]
    lang = "zh" if is_cjk(piece) else "en"
    spans: list[tuple[int, int]] = []
    cursor = 0
    for sent in _segmenter(lang)(piece):
        stripped = sent.strip()
        if not stripped:
            continue
        at = piece.find(stripped, cursor)
        if at < 0:
            continue
        cursor = at + len(stripped)
        spans.append((start + at, start + cursor))
    return spans


def _trim_marker(text: str, start: int, end: int, kind: str) -> int:
    """The offset after a list or quote marker at ``start``."""
    pattern = _ITEM if kind == "item" else _QUOTE if kind == "quote" else None
    if pattern is None:
        return start
    match = pattern.match(text, start, end)
    return match.end() if match else start


def passages(text: str) -> list[Sentence]:
    """Every sentence of the readable blocks of ``text`` (headings and tables left out)."""
    out: list[Sentence] = []
    for block in blocks(text):
        if block.kind in ("heading", "table"):
            continue
        begin = _trim_marker(text, block.start, block.end, block.kind)
        for s, e in _split(text, begin, block.end):
            out.append(Sentence(s, e, text[s:e], block.section, block.kind))
    return out


def headings(text: str) -> list[str]:
    """The headings of a Markdown text, in order, as plain text."""
    return [b.section for b in blocks(text) if b.kind == "heading"]


#: A Markdown link; escaped brackets (``\[text\](url)``, which is how a converted page
#: shows a link written as text) are not one.
_LINK = re.compile(r"(?<![!\\])\[((?:[^\]\\]|\\.)+?)(?<!\\)\]\((\S+?)(?:\s+\"[^\"]*\")?\)")


#: Code (fenced blocks and inline spans): what looks like a link there is text.
_CODE = re.compile(r"^[ \t]*(```+|~~~+).*?^[ \t]*\1[ \t]*$|`[^`\n]+`", re.M | re.S)


def links(text: str) -> list[tuple[str, str]]:
    """``(anchor text, target)`` of every Markdown link in ``text``, in order (none from
    code, where ``[text](url)`` is text)."""
    if "`" in text:
        text = _CODE.sub(" ", text)
    return [(plain(a), t) for a, t in _LINK.findall(text)]


#: Scripts written without spaces between words (kana, CJK ideographs, Thai, Lao,
#: Khmer, Myanmar): their grams are pairs of characters.
_SPACELESS = re.compile(rf"[{KANA_CLASS}{CJK_CLASS}\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]")
#: A word's gram is its first letters: enough to meet its inflected forms in most
#: languages written with spaces (Verteidigung, Verteidigungen).
GRAM_PREFIX = 5


def spaceless(text: str) -> bool:
    """Whether ``text`` is written mostly in a script with no spaces between words."""
    letters = re.findall(r"\w", text)
    return bool(letters) and 2 * len(_SPACELESS.findall(text)) > len(letters)


@lru_cache(maxsize=16384)
def grams(text: str) -> frozenset[str]:
    """The matching units of ``text`` in any language, with no word list: each word of
    three letters or more (or a number) by its first :data:`GRAM_PREFIX` letters,
    lower-cased; in scripts written without spaces, each pair of characters in a row."""
    out: set[str] = set()
    for run in _LETTER_RUN.findall(simplified(plain(text)).lower()):
        if _SPACELESS.search(run):
            out.update(a + b for a, b in pairwise(run))
            if len(run) == 1:
                out.add(run)
        elif len(run) > 2 or run.isdigit():
            out.add(run[:GRAM_PREFIX])
    return frozenset(out)
