"""The plan: the offline decomposition, and validation of a model's plan."""

from __future__ import annotations

import pytest

from research.plan import (
    REPAIRED,
    Plan,
    checked,
    key_terms,
    offline_plan,
    query_problem,
    text_language,
    validated,
)

DEMO = (
    "How was China's Beijing-Hangzhou Grand Canal built and kept supplied with water, "
    "why did it decline, and what role does it play today?"
)
DEMO_ZH = "京杭大运河是如何修建并解决水源问题的？它为何衰落，今天又发挥着什么作用？"


def test_the_demo_question_splits_into_its_four_parts_each_naming_the_canal():
    plan = offline_plan(DEMO)
    assert [s.id for s in plan.subquestions] == ["q1", "q2", "q3", "q4"]
    texts = [s.text for s in plan.subquestions]
    assert texts == [
        "How was China's Beijing-Hangzhou Grand Canal built?",
        "How was China's Beijing-Hangzhou Grand Canal kept supplied with water?",
        "Why did China's Beijing-Hangzhou Grand Canal decline?",
        "What role does China's Beijing-Hangzhou Grand Canal play today?",
    ]
    assert plan.language == "en" and all(s.status == "pending" for s in plan.subquestions)


def test_queries_are_key_terms_not_the_question():
    plan = offline_plan(DEMO)
    for sub in plan.subquestions:
        assert 1 <= len(sub.queries) <= 4
        for query in sub.queries:
            assert query != sub.text and query != DEMO
            assert "?" not in query and len(query.split()) <= 8
            assert "Canal" in query  # the subject travels with every query
    assert any("water" in q for q in plan.subquestions[1].queries)
    assert any("decline" in q for q in plan.subquestions[2].queries)


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("How much does a Zorvex Model 3 cost?", "Zorvex Model 3"),
        ("Is the Quillon 15 waterproof?", "Quillon 15"),
        ("When was Route 71 of Ardenport paved?", "Route 71"),
        # a capital letter marks the word before it: the letter alone names nothing
        ("What is vitamin Q good for?", "vitamin Q"),
        ("How is hepatitis Q spread?", "hepatitis Q"),
        # a version is one number
        ("What changed in Quillon 3.12?", "Quillon 3.12"),
    ],
)
def test_a_names_number_or_letter_stays_in_its_queries(question, name):
    """A number or a capital letter after a name's word is part of the name ("Model 3",
    "vitamin Q"): every query keeps it."""
    (part,) = offline_plan(question).subquestions
    assert all(name in query for query in part.queries), part.queries


def test_a_comparison_of_two_versions_searches_both_and_no_stray_year():
    parts = offline_plan("What are the main differences between Quillon 3.11 and 3.12?")
    *sides, compared = parts.subquestions
    assert [s.queries[0] for s in sides] == ["Quillon 3.11", "Quillon 3.12"]
    assert "3.11" in compared.queries[0] and "3.12" in compared.queries[0], compared.queries
    # a year after a name that is no part of it is searched once, as a word of its own
    (part,) = offline_plan("How many people lived in Ardenport in 1900?").subquestions
    assert all(q.split().count("1900") <= 1 for q in part.queries), part.queries


def test_a_chinese_question_is_cut_with_jieba_and_keeps_its_subject():
    plan = offline_plan(DEMO_ZH)
    assert plan.language == "zh"
    texts = [s.text for s in plan.subquestions]
    assert len(texts) == 4 and all(t.startswith("京杭大运河") for t in texts)
    assert "修建" in texts[0] and "水源" in texts[1] and "衰落" in texts[2] and "作用" in texts[3]
    for sub in plan.subquestions:
        assert all(" " in q and "？" not in q for q in sub.queries)  # words, not the sentence


def test_bing_before_a_negation_stresses_it_and_joins_no_two_questions():
    """并 joins two verb phrases (…如何修建的并如何保持畅通); 并不是 stresses a negation."""
    one = "为什么石桥并不是当地人最常走的路线？"
    assert [s.text for s in offline_plan(one).subquestions] == [one]
    two = [s.text for s in offline_plan("青桥是如何修建的并如何保持畅通？").subquestions]
    assert len(two) == 2


def test_a_chinese_verb_phrase_after_bing_shares_the_setting_subject_and_question_word():
    """…青石镇何时停电并全部被大雪覆盖: the second verb phrase asks 何时 of 青石镇 too."""
    plan = offline_plan("入冬以来，青石镇何时停电并全部被大雪覆盖？")
    texts = [s.text for s in plan.subquestions]
    assert texts == ["入冬以来，青石镇何时停电？", "入冬以来，青石镇何时全部被大雪覆盖？"]


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("石溪镇是以谁的名字命名的，石溪镇离白沙镇有多远？", 2),  # 多 before a measure
        ("石溪电台的呼号还在何处使用，石溪电台哪一年开播？", 2),  # 何 before what it asks
        ("何为石溪病的起因，石溪镇有多少人？", 2),
        ("石溪镇有没有图书馆，石溪镇有多少人？", 2),  # a verb asked as yes or no
        ("很多学校有图书馆，石溪大学建于哪一年？", 1),  # 很多 asks nothing: a lead-in
        ("任何人都能进入，石溪大学建于哪一年？", 1),
        ("如果两块石板相叠并压紧，这种石墙称为什么？", 1),  # 并 inside a setting
        ("石溪茶有时与哪些茶同时饮用？", 1),  # 同时 closes 与's phrase
    ],
)
def test_every_chinese_way_of_asking_starts_a_part_of_its_own(question, count):
    assert len(offline_plan(question).subquestions) == count


def test_a_chinese_part_lent_another_clauses_subject_keeps_its_own_words():
    """A short follow-up (每年有多少游客) is lent the subject and keeps its own words; a
    sentence that says enough of its own is a question of its own, lent nothing."""
    plan = offline_plan("白沙镇始建于哪一年？每年有多少游客？")
    first, second = plan.subquestions
    assert second.text == "白沙镇每年有多少游客？"
    assert second.own == "每年有多少游客？" and first.own == ""
    assert Plan.from_dict(plan.to_dict()).subquestions[1].own == second.own
    assert plan.focus(second).alternative.core == ("游客",)  # its own subject
    assert plan.focus(first).alternative is None
    plan = offline_plan("白沙镇始建于哪一年？用来测量冰川厚度的仪器叫什么？")
    second = plan.subquestions[1]
    assert (second.text, second.own) == ("用来测量冰川厚度的仪器叫什么？", "")
    assert plan.focus(second).core == ("冰川厚度",)


def test_a_chinese_clause_that_stops_where_its_answer_goes_asks_it():
    """石溪镇的旧称是，… is two questions: the first leaves a blank for its answer."""
    texts = [s.text for s in offline_plan("石溪镇的旧称是，石溪镇有多少人？").subquestions]
    assert texts == ["石溪镇的旧称是？", "石溪镇有多少人？"]
    one = "2012年，石溪镇的排名是第几？"  # a lead-in asks nothing
    assert [s.text for s in offline_plan(one).subquestions] == [one]


@pytest.mark.parametrize(
    ("question", "parts", "first"),
    [
        ("How do heat pumps work?", 1, "How do heat pumps work?"),
        ("When was the Eiffel Tower built?", 1, "When was the Eiffel Tower built?"),
        (
            "What are the health effects of microplastics and how can they be removed "
            "from drinking water?",
            2,
            "What are the health effects of microplastics?",
        ),
        ("Who founded Tesla, when did it go public, and why did its stock rise?", 3, None),
    ],
)
def test_other_questions_decompose_sensibly(question, parts, first):
    plan = offline_plan(question)
    assert len(plan.subquestions) == parts
    if first:
        assert plan.subquestions[0].text == first
    assert all(not s.text.lower().startswith(("it ", "they ")) for s in plan.subquestions)
    if "microplastics" in question:
        assert plan.subquestions[1].text == "How can microplastics be removed from drinking water?"
    if "Tesla" in question:
        assert plan.subquestions[1].text == "When did Tesla go public?"


def test_a_models_plan_is_validated_and_a_bad_one_is_refused_with_a_reason():
    good = {
        "subquestions": [
            {"text": "How was the canal built?", "queries": ["canal construction", " "]},
            {"text": "Why did it decline?", "queries": []},
        ]
    }
    plan, why = validated(good, "How was the canal built and why did it decline?")
    assert why == "" and plan is not None and plan.planner == "model"
    assert plan.subquestions[0].queries == ["canal construction"]
    assert plan.subquestions[1].queries  # empty queries are filled with key terms
    for bad, reason in [
        (None, "no valid plan"),
        ({"subquestions": "two"}, "did not validate"),
        ({"subquestions": []}, "0 usable"),
        (
            {"subquestions": [{"text": f"Part {i}?", "queries": ["x"]} for i in range(9)]},
            "9 usable",
        ),
    ]:
        plan, why = validated(bad, "Q?")
        assert plan is None and reason in why


def test_a_plan_round_trips_through_json():
    plan = offline_plan(DEMO)
    plan.subquestions[0].status = "answered"
    plan.rounds.append({"round": 1})
    again = Plan.from_dict(plan.to_dict())
    assert again.to_dict() == plan.to_dict()
    assert set(plan.to_dict()) == {
        "question",
        "language",
        "question_language",
        "planner",
        "fallbacks",
        "subquestions",
        "rounds",
    }
    assert set(plan.to_dict()["subquestions"][0]) == {
        "id",
        "text",
        "queries",
        "status",
        "evidence_ids",
        "own",
        "answer_id",
    }


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "Lithium-ion batteries: who invented them, when were they first sold, and why do "
            "they lose capacity?",
            [
                "Who invented Lithium-ion batteries?",
                "When were Lithium-ion batteries first sold?",
                "Why do Lithium-ion batteries lose capacity?",
            ],
        ),
        (
            "About Cup Final 12: Which club represented the north? Where was the game played?",
            ["Which club represented the north?", "Where was the game played?"],
        ),
        (
            "Why is the price of eggs rising: what does the new law promise, since when has the "
            "ban been in place, and what happens if farmers ignore it?",
            [
                "Why is the price of eggs rising?",
                "What does the new law promise?",
                "Since when has the ban been in place?",
                "What happens if farmers ignore eggs?",
            ],
        ),
        (
            "Where do red pandas live? Name one of their predators. List two foods they eat.",
            [
                "Where do red pandas live?",
                "Name one of red pandas' predators?",
                "List two foods red pandas eat?",
            ],
        ),
        (
            "According to a 1962 audit, what were tolls thought to fund?",
            ["According to a 1962 audit, what were tolls thought to fund?"],
        ),
        (
            "锂离子电池是谁发明的、何时开始商用、为什么会衰减？",
            ["锂离子电池是谁发明的？", "锂离子电池何时开始商用？", "锂离子电池为什么会衰减？"],
        ),
        (
            "富士山位于哪里、海拔多少米？它最近一次喷发是在什么时候？",
            ["富士山位于哪里？", "富士山海拔多少米？", "富士山最近一次喷发是在什么时候？"],
        ),
        (
            "石溪镇的茶农什么时候采摘新茶，他们把茶卖到哪里？",
            ["石溪镇的茶农什么时候采摘新茶？", "石溪镇的茶农把茶卖到哪里？"],
        ),
        (
            "王小梅在哪里出生？她后来为什么搬到上海？",
            ["王小梅在哪里出生？", "王小梅后来为什么搬到上海？"],
        ),
        (
            "青州移民住在哪里？1821年的第一次洪水淹没了哪些村庄？",
            ["青州移民住在哪里？", "1821年的第一次洪水淹没了哪些村庄？"],
        ),
        (
            "石溪茶农平均每天工作几个小时，1998 年，石溪在这项统计中位列第几？",
            ["石溪茶农平均每天工作几个小时？", "1998 年，石溪在这项统计中位列第几？"],
        ),
        (
            "布兰森提议收购哪家报社，根据布兰森的收购方案，青石日报将得到多少补偿？",
            ["布兰森提议收购哪家报社？", "根据布兰森的收购方案，青石日报将得到多少补偿？"],
        ),
    ],
)
def test_one_part_per_thing_asked(question, parts):
    """A list after a colon, questions in a row, a lead-in that asks nothing, Chinese 、
    and ， lists; a pronoun takes the subject (a pronoun for people, the subject of the
    clause before it), a clause naming its own keeps it."""
    plan = offline_plan(question)
    assert [s.text for s in plan.subquestions] == parts
    for sub in plan.subquestions:
        assert all(1 <= len(q.split()) <= 6 for q in sub.queries)


# --- checking a model's plan -------------------------------------------------------------

VOLCANO = "When did Mount Vesuvius last erupt, and why is Naples still at risk?"
BATTERY = "Who invented lithium-ion batteries, when were they first sold, and why do they age?"
PANDA_ZH = "大熊猫主要分布在哪里？它们为什么以竹子为食？"


def raw_parts(raw: dict) -> list[tuple[str, list[str]]]:
    return [(p["text"], p["queries"]) for p in raw["subquestions"]]


def _raw(*parts: tuple[str, list[str]]) -> dict:
    return {"subquestions": [{"text": t, "queries": q} for t, q in parts]}


def test_a_plan_covering_every_part_in_the_questions_language_is_kept_as_it_is():
    raw = _raw(
        ("When did Mount Vesuvius last erupt?", ["Vesuvius last eruption 1944"]),
        (
            "Why is Naples still at risk from Vesuvius?",
            ["Naples Vesuvius risk", "Vesuvius evacuation plan"],
        ),
    )
    plan = checked(raw, VOLCANO)
    assert plan.planner == "model" and plan.fallbacks == [] and plan.language == "en"
    assert [s.queries for s in plan.subquestions] == [q for _, q in raw_parts(raw)]


def test_a_part_the_plan_leaves_out_is_added_from_the_offline_plan_with_its_reason():
    raw = _raw(("Who invented the lithium-ion battery?", ["lithium-ion battery inventor"]))
    plan = checked(raw, BATTERY)
    offline = offline_plan(BATTERY).subquestions
    assert plan.planner == "model"
    assert plan.subquestions[0].text == "Who invented the lithium-ion battery?"
    added = [s.text for s in plan.subquestions[1:]]
    assert added == [s.text for s in offline[1:]]  # the sale and the ageing parts
    assert [(f["action"], f["part"]) for f in plan.fallbacks] == [
        ("part added", "q2"),
        ("part added", "q3"),
    ]
    assert offline[1].text in plan.fallbacks[0]["reason"]


@pytest.mark.parametrize(
    ("question", "raw", "found"),
    [
        (
            VOLCANO,
            _raw(("Wann ist der Vesuv zuletzt ausgebrochen?", ["Vesuv Ausbruch 1944"])),
            "German",
        ),
        (VOLCANO, _raw(("维苏威火山最后一次喷发是什么时候？", ["维苏威火山 喷发"])), "Chinese"),
        (
            PANDA_ZH,
            _raw(
                ("Where do giant pandas live?", ["giant panda range"]),
                ("Why do giant pandas eat bamboo?", ["panda bamboo diet"]),
            ),
            "English",
        ),
    ],
)
def test_a_plan_not_in_the_questions_language_is_replaced_by_the_offline_plan(question, raw, found):
    plan = checked(raw, question)
    assert plan.planner.startswith("offline (fallback: part q1 is in " + found)
    assert [s.text for s in plan.subquestions] == [
        s.text for s in offline_plan(question).subquestions
    ]
    assert plan.fallbacks == [
        {
            "action": "plan replaced",
            "part": "",
            "reason": plan.planner[len("offline (fallback: ") : -1],
        }
    ]


def test_a_chinese_plan_for_a_chinese_question_is_kept():
    raw = _raw(
        ("大熊猫主要分布在哪里？", ["大熊猫 分布 四川"]),
        ("大熊猫为什么以竹子为食？", ["大熊猫 竹子 食性"]),
    )
    plan = checked(raw, PANDA_ZH)
    assert plan.planner == "model" and plan.language == "zh" and plan.fallbacks == []


def test_unusable_queries_are_dropped_or_replaced_by_key_terms():
    raw = _raw(
        ("When did Mount Vesuvius last erupt?", ["x", "Vesuvius eruption 1944"]),
        ("Why is Naples still at risk from Vesuvius?", ["", "Naples"]),
    )
    plan = checked(raw, VOLCANO)
    first, second = plan.subquestions
    assert first.queries == ["Vesuvius eruption 1944"]
    assert second.queries and all(2 <= len(key_terms(q)) <= 5 for q in second.queries)
    assert "Naples" not in second.queries
    actions = {f["part"]: f for f in plan.fallbacks}
    assert actions["q1"]["action"] == "queries dropped" and "'x'" in actions["q1"]["reason"]
    assert (
        actions["q2"]["action"] == "queries replaced" and "1 key terms" in actions["q2"]["reason"]
    )


def test_repaired_json_is_refused_even_when_it_validates():
    raw = _raw(("When did Mount Vesuvius last erupt?", ["x"]))
    plan = checked(raw, VOLCANO, repaired=True)
    assert plan.planner == f"offline (fallback: {REPAIRED})"
    assert len(plan.subquestions) == len(offline_plan(VOLCANO).subquestions) == 2


@pytest.mark.parametrize(
    ("query", "usable"),
    [
        ("x", False),
        ("", False),
        ("Tesla", False),
        ("Tesla initial public offering 2010", True),
        ("heat pump efficiency winter cold climate performance", False),
        ("光伏 组件 效率", True),
    ],
)
def test_a_query_is_usable_with_two_to_five_key_terms(query, usable):
    assert (query_problem(query) == "") is usable


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("How do heat pumps work in winter?", "en"),
        ("Wie funktionieren Wärmepumpen im Winter?", "de"),
        ("Comment fonctionnent les pompes à chaleur ?", "fr"),
        ("热泵在冬天如何工作？", "zh"),
        ("Как работают тепловые насосы?", "ru"),
        ("ᎠᏂᏴᏫ ᏧᏂᎸᏫᏍᏓᏁᏗ?", "other"),
    ],
)
def test_the_language_of_a_part_is_detected(text, language):
    assert text_language(text) == language


def test_a_bare_why_searches_what_the_part_before_asks_about():
    """ "…, and why?" is a part of its own, and its searches name what it asks why of,
    never the bare question word (in Chinese the part says it too: see
    :func:`test_a_bare_chinese_question_word_after_a_clause_asks_it_of_that_clause`)."""
    question = "How large were winter colony losses in 2021, and why?"
    first, why = offline_plan(question).subquestions
    assert why.text == "Why?"
    assert why.queries == first.queries and "Why?" not in why.queries


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("瓦恩桥是什么时候倒塌的，为什么？", ["瓦恩桥是什么时候倒塌的？", "瓦恩桥为什么倒塌？"]),
        ("这座桥哪一年关闭，为什么？", ["这座桥哪一年关闭？", "这座桥为什么关闭？"]),
        ("阿登港是谁建立的，为什么？", ["阿登港是谁建立的？", "阿登港为什么建立？"]),
        ("瓦恩运河是如何修建的，何时？", ["瓦恩运河是如何修建的？", "瓦恩运河何时修建？"]),
    ],
)
def test_a_bare_chinese_question_word_after_a_clause_asks_it_of_that_clause(question, parts):
    """ "…，为什么？" asks why of what the clause before asks: the part says the verb, and
    searches it, as "…, and why?" does in English."""
    plan = offline_plan(question)
    assert [s.text for s in plan.subquestions] == parts
    verb = parts[1].rstrip("？")[-2:]
    for part in plan.subquestions:
        assert all(verb in q for q in part.queries), part.queries
        assert not any(w in q for q in part.queries for w in ("为什么", "何时", "如何"))


@pytest.mark.parametrize(
    ("question", "counted"),
    [
        ("阿登港有多少座码头？", "码头"),
        ("瓦恩湖里有多少条鱼？", "鱼"),
        ("瓦恩公司有多少名员工？", "员工"),
        ("阿登港有几艘货船？", "货船"),
    ],
)
def test_a_measure_word_after_how_many_is_no_part_of_what_is_counted(question, counted):
    """多少座码头 counts 码头: the measure word is searched for neither on its own nor glued to
    the noun, and a page saying 码头 says what the part asks."""
    plan = offline_plan(question)
    (part,) = plan.subquestions
    focus = plan.focus(part)
    said = {f.term for f in focus.facets} | set(focus.subject)
    assert counted in said, said
    assert counted in part.queries[0].split(), part.queries
    for query in part.queries:
        assert not any(w[0] in "座条名艘几" for w in query.split()), part.queries


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        (
            "How many piers does Ardenport have, and which is the oldest?",
            "oldest of Ardenport's piers",
        ),
        (
            "How many ferries cross the Sallow at Harlow, and which is the largest?",
            "largest of the ferries that cross the Sallow at Harlow",
        ),
        ("阿登港有几座码头，最老的是哪座？", "阿登港最老的码头是哪座"),
    ],
)
def test_a_superlative_with_no_noun_after_a_count_asks_it_of_what_was_counted(question, asked):
    """ "…, and which is the oldest?" after "How many piers …" asks which pier is the
    oldest: the part names the piers and their owner, so a page on them answers it."""
    parts = [s.text for s in offline_plan(question).subquestions]
    assert len(parts) == 2 and asked in parts[1], parts


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("青州书院是哪一年建立的？", "青州书院"),
        ("瓦恩运河位于哪个省？", "瓦恩运河"),
        ("哪位建筑师设计了瓦恩桥？", "瓦恩桥"),
        ("瓦恩桥是哪座城市的地标？", "瓦恩桥"),
    ],
)
def test_a_chinese_word_that_asks_which_is_searched_for_by_no_query(question, subject):
    """哪一年, 哪个, 哪位, 哪座 ask; no page says them, so no query searches for them."""
    sub = offline_plan(question).subquestions[0]
    assert sub.queries and all(subject in q and "哪" not in q for q in sub.queries), sub.queries
