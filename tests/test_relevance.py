"""Sentences, terms and the relevance score that decides what counts as evidence."""

from __future__ import annotations

from research.document import Document
from research.facts import points_back
from research.plan import offline_plan
from research.question import (
    Focus,
    Glossary,
    entity,
    question_kind,
    zh_kind_nouns,
    zh_tagged,
)
from research.relevance import (
    LONGEST_QUOTE,
    THRESHOLD,
    assessed,
    quote_bounds,
    relevant,
    score_text,
)
from research.text import is_complete, passages, terms

CANAL_PAGE = """# Water supply: the Daicun Dam and the springs

A canal that crosses a summit needs water delivered to its highest point. In 1411, on
Bai Ying's advice, the Ming built the **Daicun Dam** across the Wen River.

## Pumps today

Large pumping stations lift water towards the [summit](http://example.org/s.html) for the
eastern route.
"""

QUESTION = "How was the Grand Canal built and kept supplied with water, and why did it decline?"
SUBS = [
    "How was the Grand Canal built?",
    "How was the Grand Canal kept supplied with water?",
    "Why did the Grand Canal decline?",
]


def test_sentences_keep_abbreviations_whole_and_have_exact_offsets():
    text = (
        "On Dec. 6 the court ruled. Dr. Dempsey said the U.S. order was final.\n\n"
        "京杭大运河始建于春秋时期。隋朝于605年开凿通济渠！"
    )
    found = passages(text)
    assert [s.text for s in found] == [
        "On Dec. 6 the court ruled.",
        "Dr. Dempsey said the U.S. order was final.",
        "京杭大运河始建于春秋时期。",
        "隋朝于605年开凿通济渠！",
    ]
    assert all(text[s.start : s.end] == s.text for s in found)


def test_headings_tables_and_fragments_are_not_sentences():
    text = (
        "# A heading that is long enough to look like a sentence.\n\n"
        "| year | event |\n|---|---|\n| 605 | The Tongji Canal was opened. |\n\n"
        "- The Qing kept two senior posts for the canal:\n"
        "- the Yuan–Ming–Qing route described on this site; and\n"
        "- See [the overview](a.html), [the timeline](b.html) and [the map](c.html).\n"
    )
    found = passages(text)
    assert not any("heading" in s.text or "Tongji" in s.text for s in found)
    assert not any(s.complete for s in found)
    assert is_complete("Bricks with Linqing kiln stamps are still found in Beijing's buildings.")
    assert not is_complete("The Qing kept two senior posts for the canal:")
    assert not is_complete("the route described on this site; and")


def test_a_short_chinese_sentence_with_a_number_and_one_with_an_aside_are_sentences():
    """Digits count towards the length of a Chinese sentence; a bracketed aside, even an
    empty one closing on a colon, and a comma left where a name was cut out decide
    nothing. A sentence may open with a title in 《》."""
    assert is_complete("全长可达35公里。")
    assert is_complete("青桥亦称为石桥、旧桥，本地称老桥（方言：）。")
    assert is_complete("，是当地唯一的石拱桥，桥长约40米。")
    assert not is_complete("它很长。")
    assert not is_complete("青桥本地称老桥（方言：")
    assert is_complete("《青城旧事》是一部以青城为背景的小说。")  # it opens with a title


def test_terms_are_stemmed_and_chinese_is_cut_into_words():
    assert terms("Canals were BUILT; the canal's building") == ["canal", "build", "canal", "build"]
    assert terms("They began; it begins") == ["begin", "begin"]  # irregular forms meet
    assert {"大运河", "京杭大运河", "水源"} <= set(terms("京杭大运河的水源"))


def test_entities():
    assert entity(QUESTION) == "Grand Canal"
    assert entity("How do heat pumps work?") == "heat pumps"
    assert entity("京杭大运河是如何修建的？") == "京杭大运河"
    assert entity("How many units is it made of?") == "units"  # nothing after "of"
    assert entity("最早时期的名称是什么？") == "最早时期"  # the name asked for is no subject


def test_a_sentence_must_meet_every_part_of_the_sub_question():
    doc = Document.of(CANAL_PAGE, "Water supply: the Daicun Dam — Grand Canal Atlas")
    water = Focus.build(SUBS[1], SUBS, QUESTION)
    decline = Focus.build(SUBS[2], SUBS, QUESTION)
    water_hits = [s.sentence.text for s in relevant(water, doc)]
    assert any("Daicun Dam" in t for t in water_hits)  # the page is about water supply
    assert relevant(decline, doc) == []  # nothing on this page says why it declined


def test_pumps_on_a_canal_page_do_not_answer_a_question_about_heat_pumps():
    doc = Document.of(CANAL_PAGE, "Water supply — Grand Canal Atlas")
    plan = ["What are heat pumps?", "How do heat pumps work?"]
    for sub in plan:
        focus = Focus.build(sub, plan, "How do heat pumps work?")
        assert relevant(focus, doc) == []
        assert max(score_text(focus, s.text) for s in doc.sentences) < THRESHOLD
    heat = Document.of("A heat pump moves heat from cold outside air into a warm house.", "")
    focus = Focus.build(plan[1], plan, "How do heat pumps work?")
    assert relevant(focus, heat)


def test_a_page_about_the_facet_beats_an_incidental_mention():
    focus = Focus.build(SUBS[2], SUBS, QUESTION)
    about = Document.of(
        "In less than sixty years the Grand Canal went from the main artery of the empire to "
        "a series of local waterways.",
        "The decline of the Grand Canal (1855–1950)",
    )
    incidental = Document.of(
        "After the decline of the Grand Canal the town grew as a treaty port and a railway hub.",
        "Tianjin and the northern terminus",
    )
    on_topic, in_passing = relevant(focus, about), relevant(focus, incidental)
    assert on_topic and in_passing
    assert on_topic[0].score > in_passing[0].score


def test_a_longer_name_built_on_the_subject_is_another_thing():
    focus = Focus.build(SUBS[0], SUBS, QUESTION)
    museum = Document.of("The China Grand Canal Museum was built in 2021 in Yangzhou.", "")
    canal = Document.of("The Grand Canal was built in stages between 605 and 1293.", "")
    assert relevant(focus, canal)[0].score > relevant(focus, museum, threshold=0)[0].score


def test_a_section_the_title_announces_lends_the_part_to_the_sentences_under_it():
    focus = Focus.build(SUBS[1], SUBS, QUESTION)
    dam = "In 1411, on Bai Ying's advice, the Ming built the Daicun Dam across it near Dongping."
    page = (
        "# Water supply: the Daicun Dam and the springs\n\n"
        "A canal that crosses a summit needs water at its highest point.\n\n"
        f"## The Daicun Dam on the Wen River\n\n{dam}\n\n"
        f"## Results\n\n{dam}\n"
    )
    doc = Document.of(page, "Water supply: the Daicun Dam and the springs — Grand Canal Atlas")
    scores = {s.sentence.section: s.score for s in relevant(focus, doc) if s.sentence.text == dam}
    # under a heading the title announces, the dam sentence is water-supply evidence as
    # strong as a sentence saying "water"; under "Results" it only borrows from the title
    assert scores["The Daicun Dam on the Wen River"] >= 0.9
    assert scores["The Daicun Dam on the Wen River"] > scores["Results"]


def test_a_section_about_another_part_counts_less():
    built = Focus.build(SUBS[0], SUBS, QUESTION)
    line = "The Tianjin–Pukou railway, completed in 1912, ran parallel to the Grand Canal."
    text = f"# A report\n\n## Construction\n\n{line}\n\n## Decline\n\n{line}\n"
    doc = Document.of(text, "A report on the Grand Canal")
    scores = {s.sentence.section: s.score for s in relevant(built, doc, threshold=0)}
    assert scores["Decline"] < scores["Construction"]


def test_a_three_digit_year_is_a_date_for_a_part_about_the_past():
    focus = Focus.build(SUBS[0], SUBS, QUESTION)
    title = "The Grand Canal"
    year = Document.of("- **605** — the Tongji Canal was opened from Luoyang to the Huai.\n", title)
    length = Document.of("- **605 km** — the Tongji Canal was opened from Luoyang.\n", title)
    between = Document.of("The Sui joined older canals between 605 and 610 into one.\n", title)
    first, kilometres, span = (
        relevant(focus, d, threshold=0)[0].score for d in (year, length, between)
    )
    assert first > kilometres
    assert span > kilometres


def test_a_glossary_gives_a_part_the_words_of_its_field():
    """Without a glossary a word meets only its own forms; with one, a heading saying a
    word the user groups with the part's ("Construction" for "built") names the part,
    and a related word ("dug") meets it in a sentence."""
    sub = "How was the Grand Canal built?"
    page = "# A report\n\n## Construction\n\nThe Grand Canal was dug in stages by many rulers.\n"
    doc = Document.of(page, "A report on the Grand Canal")
    plain_focus = Focus.build(sub, [sub], sub)
    field = Glossary.of([{"same": ["built", "construction"], "related": ["dig", "dug"]}])
    with_words = Focus.build(sub, [sub], sub, glossary=field)
    assert relevant(plain_focus, doc) == []
    assert relevant(with_words, doc)


def test_a_word_the_glossary_names_the_same_thing_by_tells_a_pages_passages_apart():
    """On a page about the subject, the passage that says the part's word in the user's
    own word for it ("warmed" for "heated") stands out by the page-local match as one
    saying "heated" would; without the glossary it says nothing the part asks."""
    from research.features import local_match

    sub = "How is the Brindle observatory heated?"
    page = (
        "# The Brindle observatory\n\n"
        "The Brindle observatory stands on a ridge above the town.\n"
        "Its domes are warmed in winter by a pump drawing on the ground below the car park.\n"
        "Visitors may tour the domes on Saturdays.\n"
    )
    doc = Document.of(page, "The Brindle observatory")
    field = Glossary.of([{"same": ["heat", "heated", "warm", "warmed"]}])
    warmed = next(i for i, s in enumerate(doc.sentences) if "warmed" in s.text)
    tour = next(i for i, s in enumerate(doc.sentences) if "tour" in s.text)
    plain_focus = Focus.build(sub, [sub], sub)
    with_words = Focus.build(sub, [sub], sub, glossary=field)
    assert local_match(plain_focus, doc)[warmed] == 0.0
    local = local_match(with_words, doc)
    assert local[warmed] > local[tour] == 0.0


def test_a_subject_asked_with_a_preposition_is_named_by_a_sentence_writing_it_so():
    """ "Bats in Texas" and "the Bank of Wessex" are named by a sentence that writes
    them with their preposition, on a page whose title does not name them: the function
    word between the subject's words does not make the sentence speak of something else."""
    cases = [
        ("Why are bats in Texas dying?", "Many bats in Texas are dying of a fungus."),
        ("When was the Bank of Wessex founded?", "The Bank of Wessex was founded in 1702."),
    ]
    for question, said in cases:
        focus = Focus.build(question, [question], question)
        page = Document.of(f"# Field notes\n\n{said}\nThe caves are cold in winter.\n", "Notes")
        found = relevant(focus, page)
        assert found and found[0].sentence.text == said, question
        assert found[0].subject == 1.0


def test_a_name_of_the_kind_asked_for_answers_which_and_what_called():
    """ "Which city" is answered by a city's name, not the word "city": a Chinese name that
    ends as its kind does (重庆市, 蒙古族), an English name ending in the kind's word
    ("the Marrow-Lindqvist Scale")."""
    town = "潮音镇位于哪个城市？"
    focus = Focus.build(town, [town, "潮音镇有多少人？"], "潮音镇位于哪个城市？潮音镇有多少人？")
    page = "# 潮音镇\n\n潮音镇位于海边，街道很窄。\n\n潮音镇位于宁州市东部，以渔业闻名。\n"
    found = relevant(focus, Document.of(page, "潮音镇"), threshold=0)
    assert found[0].sentence.text.startswith("潮音镇位于宁州市")
    assert found[0].score > found[1].score
    scale = "What is the scale used to rate the danger of avalanches called?"
    parts = [scale, "When did the 1921 avalanche strike Dunmore?"]
    focus = Focus.build(scale, parts, "About Dunmore Pass: " + " ".join(parts))
    title = "Dunmore Pass avalanches"
    named = "The 1921 avalanche was rated Level 4 on the Marrow-Lindqvist Scale."
    plain = "The 1921 avalanche was rated as a large one by the observers."
    named_score, plain_score = (
        relevant(focus, Document.of(t, title), threshold=0)[0].score for t in (named, plain)
    )
    assert named_score > plain_score


def test_a_one_character_kind_closes_the_question_word_and_no_question_word_hides_one():
    """哪条河 asks for a river (a name ending in 河 answers it); 为什么 holds no 什么 and
    何时 no 何, so neither asks for a kind; 哪一年 asks a date."""
    assert zh_kind_nouns("青石镇旁边是哪条河？") == {"河"}
    assert zh_kind_nouns("这里以前住着什么人？") == {"人"}
    assert zh_kind_nouns("为什么需要第二套历法？") == set()
    assert zh_kind_nouns("何时开通哪些线路？") == {"线路"}
    assert zh_kind_nouns("他出生在哪一年？") == set()
    assert zh_kind_nouns("什么是合数？") == set()
    river = "青石镇旁边是哪条河？"
    parts = [river, "青石镇在什么时候开始衰落？"]
    focus = Focus.build(river, parts, "".join(parts))
    page = "# 青石镇\n\n青石镇在山区东部，位于 白沙江河 沿岸。\n\n青石镇在山区东部，以茶闻名。\n"
    found = relevant(focus, Document.of(page, "青石镇"), threshold=0)
    assert "白沙江河" in found[0].sentence.text and found[0].score > found[1].score


def test_how_many_is_answered_by_a_number_counted_as_the_question_counts():
    """有多少所大学 wants 两所, not the year a university was ranked, and 两所 answers it
    closely (所 counts 大学, no word a sentence must say); 多少只 is not answered by 一年;
    a sentence with no number counts less for how many."""
    many = "石溪有多少所大学？"
    parts = [many, "石溪大学哪一年被评为重点大学？"]
    focus = Focus.build(many, parts, "，".join(parts))
    page = (
        "# 石溪\n\n石溪有 两所 大学：石溪大学和石溪农学院。\n\n"
        "石溪大学以茶学见长，1990年被评为省级重点大学。\n"
    )
    found = {s.sentence.text[:4]: s.score for s in relevant(focus, Document.of(page, "石溪"), 0)}
    assert found["石溪有 "] >= THRESHOLD > found["石溪大学"]
    bees = "一个蜂巢有多少只石蜂？"
    focus = Focus.build(bees, [bees], bees)
    page = "# 石蜂\n\n与石蜂不同，土蜂的蜂巢只存在一年。\n\n一个石蜂巢约有 3万只 石蜂。\n"
    found = relevant(focus, Document.of(page, "石蜂"), threshold=0)
    assert "3万只" in found[0].sentence.text


def test_a_measure_asked_by_its_name_wants_a_number_and_a_cause_asked_for_wants_why():
    assert question_kind("What is the population of Port Selby?") == "number"
    assert question_kind("What was the length of the old wall?") == "number"
    assert question_kind("What is the name of the river?") == "what"
    assert question_kind("何为石溪大火的最初起因？") == "why"
    assert question_kind("What caused the fire at the mill?") == "why"


def test_a_quantity_asked_by_how_and_its_adjective_or_by_a_qualified_measure_wants_a_number():
    """A figure is asked by "how fast", "how hot" and "the estimated population of", and
    the adjective is no word a sentence must say ("the ferry sails at 30 km/h"); a serial
    number or a book's volume is no quantity."""
    for asked in (
        "How fast does the Kelby ferry sail?",
        "How hot is the spring at Varne?",
        "What was the estimated population of Fort Selby in 1800?",
        "What is the average annual temperature in Port Selby?",
        "这条运河有多深？",
    ):
        assert question_kind(asked) == "number", asked
    for named in (
        "What is the serial number of the Kelby engine?",
        "What is the second volume of the Varne chronicle called?",
    ):
        assert question_kind(named) == "what", named
    fast = "How fast does the Kelby ferry sail?"
    assert "fast" not in {f.term for f in Focus.build(fast, [fast], fast).facets}


def test_a_period_asked_for_in_chinese_wants_a_date():
    assert question_kind("向平是什么时期的人？") == "when"
    assert question_kind("第二届议会在什么时间结束？") == "when"
    assert question_kind("In what period was the abbey founded?") == "when"


def test_a_chinese_question_word_and_the_noun_after_it_ask_for_a_kind_not_a_subject():
    """什么后天因素导致…: 因素 is what kind of answer is wanted; the question is about the
    thing it happens to, not about factors."""
    assert entity("什么后天因素导致茶树枯萎？") == "茶树"
    assert entity("哪个城市是德国的首都？") == "德国"
    assert entity("方申有哪些学生？") == ""  # 方申 is cut apart: the kind is no subject
    assert entity("哪几路公交车在青桥站停靠？") != "公交车"  # 哪 几路: a kind, counted
    assert entity("那次修缮接受了谁的资助？") != "资助"  # 谁的 资助: whose, so a kind


def test_a_chinese_title_in_title_marks_and_a_word_the_word_list_lacks_name_the_subject():
    """《…》 names a work: 青州的哪位画家为《青城旧事》画了插图 asks about the book, not
    青州; after a preposition it is where the subject is (石姓 in 《千家谱》). A word jieba
    finds but its word list lacks (缠扎) is a term, whatever part of speech its guess
    gives it."""
    assert entity("青州的哪位画家为《青城旧事》画了插图？") == "青城旧事"
    assert entity("石姓在《千家谱》里出现过几次？") == "石姓"  # the book is where, not what
    mixed = "《STAR 青城旧事》在哪一年上映？"  # its main word is Chinese, not "star"
    assert Focus.build(mixed, [mixed], mixed).core == ("青城",)
    route = "青城巴士7B线途经哪些地方？"  # a code with a number in it tells most
    assert Focus.build(route, [route], route).core == ("7b",)
    assert entity("缠扎的作用是什么？") == "缠扎"


def test_a_chinese_question_opening_with_a_short_name_before_de_or_shi_is_about_it():
    """The tagger cuts names it does not know (疣 斑 鲷鱼, 章 同, 石溪 站): the characters
    before the clause's first 是 or 的 are the name, when short and free of particles. Before
    的 they must hold the nouns the tagger found; before 是 the nouns after it say what the
    name is. A clause that opens with a time, or a longer opening holding a verb, keeps
    the nouns."""
    assert entity("疣斑鲷鱼的尾鳍有什么特点？") == "疣斑鲷鱼"
    assert entity("石溪站的站房有什么特点？") == "石溪站"
    assert entity("硕宁是如何被封为郡王的？") == "硕宁"
    assert entity("章同是哪个朝代的官员？") == "章同"  # 章 同 is no time
    assert entity("文中提到的两场山火为什么被认为起因相同？") == "山火"
    assert entity("青桥机场扩建后是什么等级的机场？") == "青桥机场"
    assert entity("1702年的重修听取了谁的意见？") == ""


def answers(focus: Focus, doc: Document) -> list[str]:
    """The sentences of ``doc`` that may stand as the part's answer: over the threshold,
    or a lead."""
    return [s.sentence.text for s in assessed(focus, doc) if s.lead or s.score >= THRESHOLD]


def test_a_chinese_clause_that_names_nothing_leaves_the_subject_to_the_next():
    """即使在今天 is neither a time alone nor a name: the subject is in the next clause. A
    clause that asks something is a question of its own: naming nothing, it gives no
    subject to the questions after it."""
    assert entity("即使在今天，青桥机场周边还有什么古迹？") == "青桥机场"
    assert entity("哪个季节最冷，青桥机场有几个出口？") == ""


def test_a_chinese_word_an_aspect_particle_follows_is_a_verb_not_the_subject():
    """了, 着 and 过 follow verbs only: a word before one is no noun of the subject, though
    the word list tags it as one (规范, 定义)."""
    assert entity("谁定义了石溪港的税率？") == "石溪港"
    assert entity("哪一年规范了青州的盐业？") == "青州"


def test_a_chinese_word_between_the_passive_marker_and_its_result_is_a_verb():
    """被任命为 and 被改作 are passives: the word between 被 and 为, 成 or 作 is their verb,
    though the word list tags it as a noun (任命), and the subject is what the clause names
    after it."""
    assert entity("谁被任命为石溪港的港务长？") == "石溪港"
    assert entity("谁被青州知府任命为盐运使？") == "青州知府"  # the agent, as asked


def test_the_agent_of_a_passive_that_modifies_a_noun_is_not_the_subject():
    """被石溪县列为文物的古桥: the clause asks about the bridge, the noun the passive leads to
    after 的; the one that did it is no subject. A passive that is the clause's own verb
    keeps its agent."""
    assert entity("被石溪县列为文物的古桥有多长？") == "古桥"
    assert entity("被石溪港务局列入名录的灯塔建于哪一年？") == "灯塔"
    assert entity("谁被拿破仑任命为元帅？") == "拿破仑"


def test_what_a_chinese_clause_says_it_is_about_is_its_subject():
    """关于X的研究: the clause names what its noun is about, whatever jieba tags its words
    (教育 and 改革 as verbs in 教育改革); one asking what it is about names none."""
    assert entity("关于教育改革的报告提到了哪些问题？") == "教育改革"
    assert entity("对于青州盐业的调查发现了什么？") == "青州盐业"
    assert entity("关于什么的研究最多？") == ""


def test_a_bound_character_after_a_name_belongs_to_it():
    """jieba cuts a transliterated name short and tags its last character a bound
    morpheme (``g``), which is no word on its own: it is the name's."""
    first = zh_tagged("莫罗蒂的画作收藏在哪里？")[0]
    assert (first.word, first.flag) == ("莫罗蒂", "nrt")
    assert entity("洛伦蒂的研究发现了什么？") == "洛伦蒂"


def test_a_name_jieba_glues_a_preposition_to_is_cut_before_it():
    """白沙谷以何种矿产出名: jieba guesses 谷以 as one word; a guessed word ending in a
    preposition, copula or particle is a name with the word after it glued on."""
    assert entity("白沙谷以何种矿产出名？") == "白沙谷"


def test_a_chinese_clause_that_sets_where_within_something_names_no_subject():
    """在哪场比赛中 asks where within something the question asks; it is no question of its
    own and names no subject: the next clause does. 哪场 is a question word, never a
    noun of a name, whatever the word list makes of it."""
    assert entity("在哪场比赛中，石溪队得分最多？") == "石溪队"
    assert entity("在这份报告里，白沙湖的面积是多少？") == "白沙湖"
    assert entity("石溪港位于哪里，有多大？") == "石溪港"  # 哪里 asks; it sets nothing


def test_a_chinese_clause_that_sets_the_respect_asked_in_names_no_subject():
    """在人口方面, 就面积而言, 从产量来看 say in what respect the question asks: what they name
    is the measure asked of the subject, which the next clause names."""
    assert entity("在人口方面，青州处于全省什么位置？") == "青州"
    assert entity("就面积而言，白沙湖在全省排第几？").endswith("沙湖")
    assert entity("从产量来看，石溪茶场排在第几位？") == "石溪茶场"


def test_a_chinese_clause_that_sets_the_time_by_an_event_names_no_subject():
    """在大桥建成之前 says when, by an event: what it names (the bridge) is not what the
    question asks about; 之前, 以前 and 这个 are no words a sentence must say."""
    focus = Focus.build("在大桥建成之前，这个石溪镇以前的居民靠什么过河？")
    assert focus.subject == ("石溪镇",)
    assert not {"之前", "以前", "这个"} & {f.term for f in focus.facets}
    assert entity("当铁路通车时，青石镇有多少人口？").startswith("青石")


def test_a_page_on_another_thing_of_the_subjects_kind_is_not_about_it():
    """A Chinese name puts its head last: a page on 长吻鲷鱼 is about another fish than
    疣吻鲷鱼 (which the tagger cuts so that only 鲷鱼 is its noun), though both end in
    吻鲷鱼, unless a sentence of it names 疣吻鲷鱼. A short form that keeps the page's
    characters in order (石溪机场 for 石溪东湖机场) is the same thing."""
    asked = "疣吻鲷鱼通常栖息在什么地方？"
    focus = Focus.build(asked, [asked], asked)

    said = "{}通常栖息在近岸的礁石间，以小虾为食。"
    assert answers(focus, Document.of(said.format("疣吻鲷鱼"), "疣吻鲷鱼"))
    assert not answers(focus, Document.of(said.format("长吻鲷鱼"), "长吻鲷鱼"))
    both = said.format("长吻鲷鱼") + "疣吻鲷鱼则栖息在河口的沙地。"
    assert answers(focus, Document.of(both, "长吻鲷鱼")) == ["疣吻鲷鱼则栖息在河口的沙地。"]
    short = "石溪机场的跑道有多长？"
    airport = Focus.build(short, [short], short)
    page = Document.of("石溪机场的跑道长2450米，可起降中型客机。", "石溪东湖机场")
    assert relevant(airport, page)
    assert not relevant(airport, Document.of(page.text.replace("石溪", "南屿"), "南屿机场"))


def test_a_title_ending_in_a_word_the_question_ends_a_clause_with_names_no_sibling():
    """A page's title and a question may end a clause in the same particle (…说明了,
    …得到了): that is no head of a name, and the page is not about another thing of the
    subject's kind."""
    asked = "哪个部件在第四个水车中得到了改进？"
    focus = Focus.build(asked, [asked], asked)
    said = "在第四个水车中，得到改进的部件是它的铁轴。"
    page = Document.of(f"下列几件器物说明了工艺的变化。{said}", "下列几件器物说明了")
    assert answers(focus, page) == [said]


def test_a_subject_asked_in_its_peoples_word_is_named_by_the_place():
    """ "Veldanian" asked, "Veldania" written: a page that writes only the place's name,
    one letter shorter than the word asked, names the subject, and answers."""
    asked = "Southern Veldanian villages are known for what kind of houses?"
    focus = Focus.build(asked, [asked], asked)
    said = "Much of southern Veldania is known for its villages of painted wooden houses."
    page = Document.of(f"Veldania lies between two seas. {said} Its capital is Orsk.", "Veldania")
    assert said in answers(focus, page)


def test_a_page_naming_the_subject_once_speaks_of_something_else_in_its_other_sentences():
    """A biography of 石青山 that names 陈锦航 once tells where 石青山 took a degree, not
    陈锦航; a sentence naming 陈锦航, or one after it in its paragraph, still speaks of
    him, and his own page answers."""
    asked = "陈锦航在哪里取得的学位？"
    focus = Focus.build(asked, [asked], asked)

    once = (
        "石青山是一位青州学者，著有多部地图史著作。石青山在青州大学地理系取得学位。"
        "他曾与陈锦航合编一部书目。"
    )
    assert answers(focus, Document.of(once, "石青山")) == []
    own = "陈锦航是一位青州诗人。陈锦航在白沙师范学院中文系取得学位。"
    assert "陈锦航在白沙师范学院中文系取得学位。" in answers(focus, Document.of(own, "陈锦航"))
    named = "石青山在青州大学地理系取得学位，陈锦航后来也到那里求学。"
    assert answers(focus, Document.of(f"石青山是一位青州学者。{named}", "石青山")) == [named]
    after = "石青山是一位青州学者。陈锦航是他的学生。陈锦航后来在白沙师范学院取得学位。"
    assert "陈锦航后来在白沙师范学院取得学位。" in answers(focus, Document.of(after, "石青山"))
    then = "石青山是一位青州学者。他的学生陈锦航出身农家。后来在白沙师范学院取得学位。"
    assert "后来在白沙师范学院取得学位。" in answers(focus, Document.of(then, "石青山"))


def test_a_title_that_is_a_common_word_is_named_only_as_a_title():
    """《回家》 is a magazine; a page that says 回家 as a verb does not name it. A page that
    writes the title in 《》, or is named by it, does."""
    asked = "《回家》杂志的主题是什么？"
    focus = Focus.build(asked, [asked], asked)

    verb = "他每年都回家过年，这本杂志的主题是人生。后来他不再回家。"
    assert answers(focus, Document.of(verb, "石青山")) == []
    own = "《回家》是一本以旅行为主题的杂志，每月出版。"
    assert answers(focus, Document.of(own, "回家 (杂志)")) == [own]
    wrote = "他曾为《回家》杂志撰稿，这本杂志以旅行为主题。"
    assert answers(focus, Document.of(wrote, "石青山")) == [wrote]


def test_a_name_the_part_cuts_across_is_one_term():
    """jieba cuts 韩光是谁的老师 as 韩 光是: the name the whole question gives is the
    subject, and the piece glued to it is no facet."""
    question = "韩光是谁的老师，韩光是在哪里去世的？"
    parts = ["韩光是谁的老师？", "韩光是在哪里去世的？"]
    focus = Focus.build(parts[0], parts, question)
    assert focus.subject == ("韩光",)
    assert {f.term for f in focus.facets} == {"老师"}


def test_a_chinese_name_of_several_words_is_met_only_whole():
    """石湾巴士52线 is one name: a page that says 石湾 (or 巴士) is not about it, while its
    own page, which says the whole name (its number apart or not), is. A word the
    tagger took for a noun at the end of the run (主要, which the word list gives as a
    distinguishing word) is no part of the name."""
    asked = "石湾巴士52线是通往哪里的？"
    focus = Focus.build(asked, [asked], asked)
    assert focus.core == ("石湾巴士52线",)
    apart = Document.of("第52线是石湾巴士的一条路线，通往青港。", "路线")
    assert relevant(focus, apart)
    mainly = "青溪鲷鱼主要分布在什么地方？"
    assert Focus.build(mainly, [mainly], mainly).core == ("青溪鲷鱼",)
    own = Document.of("石湾巴士52线是一条巴士路线，通往青港。", "石湾巴士52线")
    other = Document.of("石湾南区的渔村有一条小路通往山上的墓园。", "某墓园")
    assert relevant(focus, own)
    assert not relevant(focus, other)


def test_the_pieces_a_chinese_word_is_cut_into_are_said_as_one_facet():
    """行政区划 gives the facets 行政, 政区, 区划, 行政区 and 行政区划: a sentence saying
    行政区 has said one piece of one of the question's two things, not most of them."""
    asked = "东洲为什么以村社作为行政区划单位？"
    focus = Focus.build(asked, [asked], asked)
    doc = Document.of("东洲特别行政区的居民于去年举行了纪念活动。", "纪念活动")
    said = relevant(focus, doc, threshold=0)[0].said
    assert said < 0.5


def test_a_quote_whose_subject_points_back_carries_the_sentence_it_points_to():
    text = (
        "# Population\n\nThe northern province has two large metropolitan areas. They are "
        "Greater Marrow with 6,214,300 people and Port Selby with 2,105,900.\n\n"
        "It is sunny. Farming grew.\n"
    )
    doc = Document.of(text)
    they = next(s for s in doc.sentences if s.text.startswith("They are"))
    start, end = quote_bounds(doc, they)
    assert text[start:end].startswith("The northern province has two")
    assert text[start:end].endswith("2,105,900.")
    sunny = next(s for s in doc.sentences if s.text.startswith("It is sunny"))
    assert quote_bounds(doc, sunny) == (sunny.start, sunny.end)  # a new paragraph
    farming = next(s for s in doc.sentences if s.text.startswith("Farming"))
    assert quote_bounds(doc, farming) == (farming.start, farming.end)
    zh = Document.of("北省有两个特大都市区。它们是石湾都市区和青港都市区。\n")
    they_zh = next(s for s in zh.sentences if s.text.startswith("它们"))
    assert zh.text[slice(*quote_bounds(zh, they_zh))].startswith("北省有两个")


def test_a_quote_starts_after_an_opening_connective_and_reads_on_its_own():
    """ "However, …" and "然而，…" join a sentence to one the quote does not give; the quote
    starts after the connective and its comma (still a span of the page) and stands alone
    in a report. A sentence whose rest opens in lower case keeps its connective (a quote
    opening "the …" would not read as a sentence), and so does one carried with the
    sentence its pronoun stands for."""
    text = (
        "Rain fell early in the year. However, Dr Ilse Varga counted more snow in three "
        "valleys. However, the wells stayed full.\n\n"
        "雨季来得早。然而，瓦尔加的团队在三个山谷测到了更多的降雪。\n"
    )
    doc = Document.of(text)
    for opening, quoted in (
        ("However, Dr", "Dr Ilse Varga counted more snow in three valleys."),
        ("However, the", "However, the wells stayed full."),
        ("然而", "瓦尔加的团队在三个山谷测到了更多的降雪。"),
    ):
        sentence = next(s for s in doc.sentences if s.text.startswith(opening))
        start, end = quote_bounds(doc, sentence)
        assert doc.text[start:end] == quoted
    assert not points_back("Dr Ilse Varga counted more snow in three valleys.")
    assert points_back("然而，瓦尔加的团队在三个山谷测到了更多的降雪。")


def _quote(doc: Document, opening: str) -> str:
    """The quote of the sentence of ``doc`` opening with ``opening``: a span of the page."""
    sentence = next(s for s in doc.sentences if s.text.startswith(opening))
    start, end = quote_bounds(doc, sentence)
    assert start <= sentence.start and end == sentence.end
    return doc.text[start:end]


def test_a_quote_whose_pronoun_further_on_points_back_carries_the_sentence_before():
    """ "it" cannot be the keepers nor the lamp of its own clause: it is the headland the
    sentence before names. A pointing adverb or phrase ("From there", "At that time") is
    read the same way; the quote is still one span of the page."""
    text = (
        "# The headland\n\n"
        "The Black Rock headland juts two miles into the bay. In 1846, on the harbour "
        "board's orders, the keepers lit a lamp on it every night.\n\n"
        "The old ferry ran from Kell to the island of Marra. From there the mail went on by "
        "cart to the villages.\n\n"
        "The guild hall was rebuilt in 1702. At that time the bakers' guild held forty "
        "masters.\n"
    )
    doc = Document.of(text)
    lamp = _quote(doc, "In 1846")
    assert lamp.startswith("The Black Rock headland") and lamp.endswith("every night.")
    assert lamp in text and not points_back(lamp)
    assert _quote(doc, "From there").startswith("The old ferry ran from Kell")
    assert _quote(doc, "At that time").startswith("The guild hall was rebuilt")


def test_a_quote_pointing_back_over_sentences_that_point_back_carries_them_all():
    """ "this period" is the century the sentence before gives, and that sentence's "It"
    is the fort named before it: the quote starts where the thing is named, in English
    and in Chinese, and reads on its own; it never crosses a paragraph."""
    text = (
        "The first stronghold on the estuary was Carrow Fort, a timber camp above the ford. "
        "It took the name of the tribe that held it in the 4th century. This choice of name "
        "suggests the tribe kept the ford. The garrison of Carrow Fort at this period is "
        "put at 300 men.\n\n"
        "It was burnt in 610. The garrison at that time was moved inland.\n"
    )
    doc = Document.of(text)
    garrison = _quote(doc, "The garrison of Carrow Fort")
    assert garrison.startswith("The first stronghold") and not points_back(garrison)
    moved = _quote(doc, "The garrison at that time")
    assert moved.startswith("The garrison at that time") and points_back(moved)
    zh = Document.of(
        "河口最早的要塞是卡罗堡，一座建在渡口上方的木营。它以四世纪占据它的部落命名。"
        "这个名字表明该部落控制着渡口。此期间卡罗堡的守军约为300人。\n"
    )
    quote = _quote(zh, "此期间")
    assert quote.startswith("河口最早的要塞") and not points_back(quote)


def test_a_quote_whose_pronoun_an_earlier_clause_names_is_the_sentence_alone():
    """A relative clause's pronoun stands for what its sentence named before it; an
    existential "there" points nowhere."""
    text = (
        "Water came down from the moor. The mill turned the stream into a race that "
        "carried it to the wheel. The orchestra played in the hall until 1990, when it "
        "moved to the new centre. There are three inns on the quay. In winter there were "
        "no boats to the island.\n"
    )
    doc = Document.of(text)
    for opening in ("The mill turned", "The orchestra played", "There are", "In winter"):
        quote = _quote(doc, opening)
        assert quote.startswith(opening) and not points_back(quote), opening


def test_a_pointing_sentence_with_no_sentence_to_carry_does_not_stand_alone():
    """First in its paragraph, after a sentence that leans on another in turn, or with a
    sentence before it too long to quote with it, a pointing sentence is quoted alone and
    the writer's test says it cannot stand in a part's body."""
    long_before = (
        "The eastern quay was lengthened in stages through the eighteenth century, first "
        "with timber cribs filled with rubble and later with dressed granite brought by sea "
        "from the quarries on the far side of the firth, until by the end of the century it "
        "could berth a dozen of the largest herring boats at once, take the coal brigs from "
        "the south at any state of the tide, store the salt for the curing yards in vaulted "
        "cellars along its landward side, and shelter the ferry to the islands in the worst "
        "of the winter gales, so that the old beach landing was no longer used except by the "
        "smallest craft of the inshore fishermen."
    )
    text = (
        "# The quay\n\n"
        "From there the road climbs to the pass.\n\n"
        "It was rebuilt in 1702. In 1750 the council sold it to the brewers.\n\n"
        f"{long_before} At that time the harbour dues were paid in salt.\n\n"
        "The western quay was never finished. At that time the ferry sailed twice a week.\n"
    )
    doc = Document.of(text)
    for opening in ("From there", "In 1750", "At that time the harbour"):
        quote = _quote(doc, opening)
        assert quote.startswith(opening) and points_back(quote), opening
    assert len(long_before) + len(" At that time the harbour dues were paid in salt.") > (
        LONGEST_QUOTE
    )
    # the same pointing sentence after a sentence of a sane length carries it
    assert _quote(doc, "At that time the ferry").startswith("The western quay")


def test_a_chinese_quote_whose_pronoun_points_back_carries_the_sentence_before():
    """它 and 那里 as object or subject with nothing named before them in their sentence;
    a 它 whose thing an earlier clause names is quoted alone."""
    text = (
        "灯塔建在黑岩岬上。看守人每晚在它上面点灯。\n\n"
        "渡船从凯尔开往马拉岛。后来那里只剩下两家面包房。\n\n"
        "水手把绳索运到码头，再把它系在铁环上。\n\n"
        "此后，邮件改由马车运送。\n"
    )
    doc = Document.of(text)
    lamp = _quote(doc, "看守人每晚")
    assert lamp.startswith("灯塔建在黑岩岬上。") and not points_back(lamp)
    assert _quote(doc, "后来那里").startswith("渡船从凯尔开往马拉岛。")
    rope = _quote(doc, "水手把绳索")
    assert rope.startswith("水手把绳索") and not points_back(rope)
    after = _quote(doc, "此后")
    assert after.startswith("此后") and points_back(after)


def test_a_part_lent_a_subject_is_answered_by_a_sentence_about_its_own():
    """白沙镇 was lent to a short follow-up that names 游客: a page on visitors answers it
    as asked, though it never names the town."""
    plan = offline_plan("白沙镇始建于哪一年？每年有多少游客？")
    part = plan.subquestions[1]
    assert part.text == "白沙镇每年有多少游客？"
    page = "# 游客\n\n游客是外出旅行的人。每年有约三万名游客来到这里。\n"
    doc = Document.prepare(page, "游客")
    lent_only = Focus.build(part.text, [s.text for s in plan.subquestions], plan.question)
    assert not relevant(lent_only, doc)
    found = [s.sentence.text for s in relevant(plan.focus(part), doc)]
    assert found[:1] == ["每年有约三万名游客来到这里。"]


def _relevant_lines(parts: list[str], part: int, page: str, title: str) -> list[str]:
    """The sentences of ``page`` relevant to ``parts[part]``, asked as parts in a row."""
    focus = Focus.build(parts[part], parts, "".join(parts))
    return [s.sentence.text for s in relevant(focus, Document.prepare(page, title))]


def test_a_chinese_localizer_is_met_by_another_that_places_the_answer():
    """旁边 asks where the river is relative to the town; 沿岸 places it as well."""
    parts = ["白沙镇建于哪一年？", "白沙镇旁边是哪条河？"]
    page = "# 白沙镇\n\n白沙镇建于1820年，是白沙县的县城。白沙镇位于青龙河沿岸，距省城约40公里。\n"
    found = _relevant_lines(parts, 1, page, "白沙镇")
    assert found == ["白沙镇位于青龙河沿岸，距省城约40公里。"]


def test_a_chinese_how_long_is_answered_by_the_span_whatever_its_verb():
    """持续了多久 asks for a span of time: a sentence giving one answers it without 持续."""
    parts = ["白沙之战持续了多久？", "白沙之战的起因是什么？"]
    page = "# 白沙之战\n\n白沙之战从1801年的青石渡口之役打起，五年后双方议和。\n"
    found = _relevant_lines(parts, 0, page, "白沙之战")
    assert found == ["白沙之战从1801年的青石渡口之役打起，五年后双方议和。"]
    assert not _relevant_lines(parts, 1, page, "白沙之战")  # it gives no cause


def test_a_sentence_opening_with_a_pronoun_is_about_what_the_one_before_names():
    """它 after a sentence naming 白沙大学 is about it; after one naming nothing, it may
    be about anything the page speaks of."""
    parts = ["白沙大学建于哪一年？", "白沙大学在1987年获得什么称号？"]
    focus = Focus.build(parts[1], parts, "白沙大学建于哪一年，白沙大学在1987年获得什么称号？")
    page = (
        "# 白沙大学\n\n白沙大学建于1901年，校园在江边。学校有十个学院。它在1987年获得省级"
        "园林单位称号。\n\n白沙大学的图书馆很大。它在1987年获得省级园林单位称号。\n"
    )
    doc = Document.prepare(page, "白沙大学")
    scored = assessed(focus, doc)
    after_name = next(s for s in scored if s.sentence.start > page.index("图书馆"))
    after_other = next(s for s in scored if "它" in s.sentence.text and s is not after_name)
    assert after_name.subject > after_other.subject
    assert after_name.score > after_other.score


def test_a_quote_opening_with_a_share_of_things_named_before_does_not_stand_alone():
    """ "Some grew …" is some of what the sentence before names; "Some towns grew …"
    names what it is a share of."""
    assert points_back("Some grew because the guild kept its hall there.")
    assert points_back("Others stood at the junctions with the rivers.")
    assert points_back("Most were built of stone after the fire.")
    assert not points_back("Some towns grew because the guild kept its hall there.")
    assert not points_back("Many boats still use the Varn Canal.")
    assert not points_back("Both bridges opened in 1990.")


def test_a_page_that_never_writes_an_english_title_is_no_evidence_for_the_work():
    """ "The Lantern" names a work; a page that says "the lantern" of a lamp, or names
    something else with the word, is not about it, while a page that writes the title (in
    either case of its article) or is named by it is."""
    plan = offline_plan("What is The Lantern?")
    focus = plan.focus(plan.subquestions[0])
    lamp = Document.of(
        "# Lighthouse keeping\n\nThe keeper lit the lantern at dusk every evening of the "
        "year. The lantern room was cleaned each morning before the boats went out.",
        "Lighthouse keeping",
    )
    novel = Document.of(
        "# Ostria's writers\n\nHer best-known book is the Lantern, a novel about a "
        "harbour town in winter that was published in 1931 and translated into nine languages.",
        "Ostria's writers",
    )
    named = Document.of(
        "# The Lantern\n\nIt is a novel about a harbour town in winter, published in 1931 "
        "and translated into nine languages.",
        "The Lantern",
    )
    assert not relevant(focus, lamp)
    assert relevant(focus, novel)
    assert relevant(focus, named)


def test_parts_split_from_one_clause_each_ask_its_predicate():
    """ "When and by whom was the Tarn footbridge first built?" is one clause asked by two
    question words: its parts share every word by construction, which does not make
    "first built" part of the subject. Each part asks it, so a sentence about the
    footbridge that says nothing of its building answers neither."""
    question = "When and by whom was the Tarn footbridge first built?"
    parts = [s.text for s in offline_plan(question).subquestions]
    assert len(parts) == 2
    doc = Document.of(
        "The Tarn footbridge was first built in 1871 by the Harle brothers. "
        "The Tarn footbridge was repainted in 1990 by the county council.",
        "The Tarn footbridge",
    )
    built, repainted = doc.sentences[0], doc.sentences[1]
    for part in parts:
        focus = Focus.build(part, parts, question)
        assert "build" in {f.term for f in focus.facets}, focus
        scored = {s.sentence.start: s.score for s in assessed(focus, doc)}
        assert scored[built.start] > scored[repainted.start]


def test_a_heading_naming_a_word_one_part_is_about_is_no_other_parts_section():
    """A word one part asks about and another part is about ("strike" here) is the
    question's topic: a heading saying it does not make its section about the part that
    asks about it, and a third part's sentences under it count in full."""
    question = (
        "Where did the workers live? What was the first meeting in 1921? "
        "How long did the Harlow general strike last? Who were the strike's casualties?"
    )
    plan = offline_plan(question)
    focus = plan.focus(plan.subquestions[0])
    line = "The workers lived in row houses beside the Harlow mill."
    text = f"# A history\n\n## Background\n\n{line}\n\n## The strike\n\n{line}\n"
    doc = Document.of(text, "A history of Harlow")
    scores = {s.sentence.section: s.score for s in relevant(focus, doc, threshold=0)}
    assert scores["The strike"] == scores["Background"]
