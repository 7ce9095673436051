"""A request is planned as the question it asks: its parts read as a person would ask
them, and its queries search for the subject, not for the words of asking (invented
questions, English and Chinese)."""

from __future__ import annotations

import pytest

from research.plan import offline_plan
from research.requests import direct

EN = [
    # a question put indirectly, asked directly
    ("Explain how a sluice works.", ["How does a sluice work?"], "sluice"),
    ("I wonder when the Varn bridge was built.", ["When was the Varn bridge built?"], "Varn"),
    ("Can you tell me how the Ostel weir works?", ["How does the Ostel weir work?"], "Ostel"),
    ("Do you know why the Harsk famine happened?", ["Why did the Harsk famine happen?"],
     "Harsk"),
    ("I want to know what the capital of Veldania is.", ["What is the capital of Veldania?"],
     "Veldania"),
    ("I'd like to know which bridge in Ardenport is the oldest.",
     ["Which bridge in Ardenport is the oldest?"], "Ardenport"),
    ("I'm curious how many people live in Ardenport.", ["How many people live in Ardenport?"],
     "Ardenport"),
    ("Please explain where the river Tamber rises.", ["Where does the river Tamber rise?"],
     "Tamber"),
    # a wh-phrase before its clause's subject: the subject and its verb are asked
    ("I wonder how many gates the Ostel dam has.", ["How many gates does the Ostel dam have?"],
     "Ostel"),
    ("Tell me which road the Harsk pilgrims took.", ["Which road did the Harsk pilgrims take?"],
     "Harsk"),
    ("Do you know what time the Varn museum opens?", ["What time does the Varn museum open?"],
     "Varn"),
    ("Do you know what the Ostel pump does?", ["What does the Ostel pump do?"], "Ostel"),
    # a yes-no question put indirectly
    ("Do you know whether the Varn bridge is open in winter?",
     ["Is the Varn bridge open in winter?"], "Varn"),
    ("I wonder if the Ostel ferry has ever sunk.", ["Has the Ostel ferry ever sunk?"], "Ostel"),
    ("Explain how a sluice works and when the first one was built.",
     ["How does a sluice work?", "When was the first one built?"], "sluice"),
    # a thing to describe: what it is, or what they are
    ("Define photosynthesis.", ["What is photosynthesis?"], "photosynthesis"),
    ("Tell me about the Ostel tunnel.", ["What is the Ostel tunnel?"], "Ostel"),
    ("Describe the history of the Varn bridge.", ["What is the history of the Varn bridge?"],
     "Varn"),
    ("List the main causes of the Harsk famine.",
     ["What are the main causes of the Harsk famine?"], "Harsk"),
    ("Name the longest river in Veldania.", ["What is the longest river in Veldania?"],
     "Veldania"),
    ("Name three rivers of Veldania.", ["What are three rivers of Veldania?"], "Veldania"),
    ("Could you please give me an overview of the Tamber canal?",
     ["What is the Tamber canal?"], "Tamber"),
]  # fmt: skip

ZH = [
    ("请解释光合作用。", ["光合作用是什么？"], "光合作用"),
    ("介绍一下瓦恩运河。", ["瓦恩运河是什么？"], "瓦恩运河"),
    ("定义熵。", ["熵是什么？"], "熵"),
    ("请列出哈斯克饥荒的主要原因", ["哈斯克饥荒的主要原因有哪些？"], "哈斯克"),
    ("你知道瓦恩运河有多长吗？", ["瓦恩运河有多长？"], "瓦恩运河"),
    ("我想知道瓦恩运河是什么时候建成的", ["瓦恩运河是什么时候建成的？"], "瓦恩运河"),
    ("请问瓦恩运河有多长？", ["瓦恩运河有多长？"], "瓦恩运河"),
]

#: Words of asking no query should search for.
ASKING = {"explain", "wonder", "tell", "know", "want", "describe", "define", "list", "please",
          "curious", "overview", "请", "解释", "介绍", "一下", "知道", "列出", "请问"}  # fmt: skip


@pytest.mark.parametrize(("request_", "parts", "subject"), EN + ZH)
def test_a_request_is_planned_as_the_question_it_asks(request_, parts, subject):
    plan = offline_plan(request_)
    assert [s.text for s in plan.subquestions] == parts
    for sub in plan.subquestions[:1]:
        assert any(subject.lower() in q.lower() for q in sub.queries), sub.queries
    for sub in plan.subquestions:
        said = {w.lower() for q in sub.queries for w in q.split()}
        assert not said & ASKING, sub.queries
        assert not any(w in q for q in sub.queries for w in ASKING if not w.isascii())


@pytest.mark.parametrize(
    "question",
    [
        "Can you swim across the Varn?",
        "What is the Varn?",
        "Who built the Varn bridge, and why?",
        "Name changes of the Varn bridge",
        "Do you know whether the ferry runs in winter?",
        "请愿书是什么？",
        "瓦恩运河有多长？",
        "可以用什么方法测量运河的深度？",
    ],
)
def test_a_question_that_is_no_request_is_left_as_it_is(question):
    assert direct(question) == question
