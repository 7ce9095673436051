"""The learned sentence model and the behaviour a reader relies on, whichever scorer runs.

- the committed model file is whole: its features are the core's, its cut-offs make sense,
  and it says what data trained it;
- ``explain`` shows, for a part, its best sentences with every feature and what the model
  made of them, and ``quartet explain RUN_ID`` prints that for a run;
- metamorphic checks on invented pages: renaming the subject consistently leaves a page's
  ranking alone, an unrelated page read beside a part's page leaves its answer alone, and a
  question whose two parts are answered on two pages cites each part from its own page.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from pathlib import Path

import pytest

from demo.corpus import CorpusPage, corpus_world, parts_by_subquestion, research, url_of
from quartet.cli import main as cli_main
from research.document import Document
from research.explain import explain, explained_text
from research.plan import offline_plan
from research.ranking import (
    FEATURES,
    MODEL_PATH,
    QUESTION_FEATURES,
    SENTENCE_FEATURES,
    from_dict,
    model,
)
from research.relevance import THRESHOLD, assessed

PAGE = """# The Corvale ferry

The Corvale ferry crosses Lake Ambry between Halden and Tessmoor.

## History

The Corvale ferry was launched in 1891 by a company of Halden merchants.
Its first boat was a paddle steamer named the Marigold, built at the Tessmoor yard.
In 1934 the ferry was taken over by the county and its fares were halved.

## Today

The Corvale ferry now carries about 420,000 passengers a year on six electric boats.
A crossing takes twenty-five minutes in summer and a little longer in winter storms.
"""

UNRELATED = """# Alpine gardening

Alpine plants grow in thin, stony soils and need sharp drainage.
Gardeners raise them in troughs filled with grit and a little loam.
Most alpines flower in late spring, soon after the snow has melted.
"""


def _best(question: str, pages: list[tuple[str, str]]) -> list[str]:
    plan = offline_plan(question)
    out = []
    for sub in plan.subquestions:
        focus = plan.focus(sub)
        scored = [s for title, text in pages for s in assessed(focus, Document.of(text, title))]
        scored.sort(key=lambda s: -s.score)
        out.append(scored[0].sentence.text if scored else "")
    return out


def test_the_committed_model_is_whole_and_says_what_trained_it():
    raw = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    assert tuple(raw["features"]) == FEATURES
    assert len(raw["weights"]) == len(FEATURES)
    assert 0.0 < raw["threshold"] < 1.0
    training = raw["training"]
    assert set(training["data"]) == {"google-deepmind/xquad", "ymcui/cmrc2018", "emorynlp/selqa"}
    assert all(len(commit) == 40 for commit in training["data"].values())
    assert "tune" in training["split"]
    assert 0.0 < raw["calibration"]["training"]["honest_nothing"] <= 1.0
    assert model().threshold == raw["threshold"]
    assert raw["thresholds"] and all(0.0 < t < 1.0 for t in raw["thresholds"].values())
    assert model().threshold_for("latin") == raw["thresholds"]["latin"]
    assert model().threshold_for("no-such-script") == raw["threshold"]


def test_a_model_with_other_features_is_refused():
    raw = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    raw["features"] = [*raw["features"][:-1], "something_else"]
    with pytest.raises(ValueError, match="retrain"):
        from_dict(raw)


def _explained_ferry(garden_name: str) -> list:
    """The best three sentences explained for the ferry's launch, over the ferry's page
    and a garden page read under ``garden_name``."""
    plan = offline_plan("When was the Corvale ferry launched?")
    parts = {s.id: plan.focus(s) for s in plan.subquestions}
    pages = [
        ("ferry", Document.of(PAGE, "The Corvale ferry")),
        (garden_name, Document.of(UNRELATED, "Alpine gardening")),
    ]
    return explain(parts, "q1", pages, limit=3)


def test_explain_shows_every_feature_and_what_the_model_made_of_it():
    found = _explained_ferry("garden")
    assert found and "1891" in found[0].text
    assert [e.learned for e in found] == sorted((e.learned for e in found), reverse=True)
    for e in found:
        assert set(e.features) == set(FEATURES) | set(QUESTION_FEATURES)
        log_odds = model().bias + sum(e.contributions.values())
        assert math.isclose(1 / (1 + math.exp(-log_odds)), e.learned, rel_tol=1e-9)
    # the ferry's page is the best of the two read for the part, and says so
    assert found[0].features["page_first"] == 1.0 and found[0].features["page_share"] == 1.0
    text = explained_text("q1  When was the Corvale ferry launched?", found, THRESHOLD)
    assert "1891" in text and all(name in text for name in FEATURES)


def test_explain_reads_two_pages_read_under_one_name_each_on_its_own():
    """A page and a copy of it downloaded later may be read under one address: each
    sentence is explained with the page it comes from."""
    found = _explained_ferry("ferry")
    assert found and "1891" in found[0].text


def test_renaming_the_subject_consistently_leaves_the_ranking_alone():
    question = "When was the Corvale ferry launched, and how many passengers does it carry?"
    renamed = question.replace("Corvale", "Brindle")
    before = _best(question, [("The Corvale ferry", PAGE)])
    after = _best(renamed, [("The Brindle ferry", PAGE.replace("Corvale", "Brindle"))])
    assert [s.replace("Corvale", "Brindle") for s in before] == after
    assert "1891" in before[0] and "420,000" in before[1]


def test_words_written_as_links_count_as_the_words_themselves():
    """A page converted from HTML links its key words; the page-local match and every
    feature the models see read a link's text as the sentence's own words (the pages
    the models were trained on have no links)."""
    from research.features import features_of

    linked = PAGE.replace("launched in 1891", "[launched](https://example.org/l) in 1891")
    linked = linked.replace("420,000 passengers", "420,000 [passengers](/p.html)")
    question = "When was the Corvale ferry launched, and how many passengers does it carry?"
    plan = offline_plan(question)
    plain_doc, linked_doc = Document.of(PAGE), Document.of(linked)
    for sub in plan.subquestions:
        focus = plan.focus(sub)
        for i, sentence in enumerate(plain_doc.sentences):
            if "1891" in sentence.text or "420,000" in sentence.text:
                got = features_of(focus, linked_doc, i)
                assert got["local"] == features_of(focus, plain_doc, i)["local"]
                assert got["grams"] == features_of(focus, plain_doc, i)["grams"]


def test_an_unrelated_page_read_beside_it_leaves_a_parts_answer_alone():
    question = "When was the Corvale ferry launched, and how many passengers does it carry?"
    alone = _best(question, [("The Corvale ferry", PAGE)])
    beside = _best(question, [("The Corvale ferry", PAGE), ("Alpine gardening", UNRELATED)])
    assert alone == beside


MILL = CorpusPage(
    "Harrowgate windmill",
    "en/harrowgate-windmill",
    [
        "Harrowgate windmill is a tower mill on the hill above the village of Harrowgate.",
        "The windmill was built in 1802 by the millwright Josiah Penrose for the parish.",
        "It ground corn until 1911, when a storm tore off two of its sails.",
    ],
)
LIGHTHOUSE = CorpusPage(
    "Skerrow Point lighthouse",
    "en/skerrow-point-lighthouse",
    [
        "Skerrow Point lighthouse stands on a granite ledge at the mouth of the Skerrow estuary.",
        "Its lantern is 38 metres above the sea and can be seen from 22 nautical miles away.",
        "The lighthouse keepers left in 1989, when the light was made automatic.",
    ],
)


@pytest.mark.timeout(600)
def test_a_part_answered_on_another_page_is_cited_from_that_page(tmp_path: Path):
    question = (
        "When was Harrowgate windmill built? How far away can the Skerrow Point lighthouse be seen?"
    )
    with corpus_world([MILL, LIGHTHOUSE], tmp_path / "site") as world:
        result = asyncio.run(research(question, world, tmp_path / "runs", max_pages=6))
        mill, light = url_of(world, MILL), url_of(world, LIGHTHOUSE)
    parts = parts_by_subquestion(Path(result.run.path))
    assert len(parts) == 2
    windmill, lighthouse = parts
    assert any("1802" in line.text for line in windmill.answer_lines)
    assert any("22 nautical miles" in line.text for line in lighthouse.answer_lines)
    assert {u for line in windmill.answer_lines for u in line.sources} == {mill}
    assert {u for line in lighthouse.answer_lines for u in line.sources} == {light}

    printed = _explained(result.run.id, tmp_path / "runs")
    assert "1802" in printed and "22 nautical miles" in printed
    assert all(name in printed for name in FEATURES)


@pytest.mark.timeout(600)
def test_explain_compares_words_with_the_glossary_the_run_used(tmp_path: Path):
    """A run given a glossary meets "erected" by "built"; ``quartet explain`` on it
    weighs the sentences with that glossary too, not as if the run had none."""
    import dataclasses

    with corpus_world([MILL], tmp_path / "site") as world:
        world = dataclasses.replace(world, glossary=({"same": ("build", "erect")},))
        result = asyncio.run(
            research("When was Harrowgate windmill erected?", world, tmp_path / "runs")
        )
    printed = _explained(result.run.id, tmp_path / "runs")
    best = printed.split("\n  1. ", 1)[1]
    assert "1802" in best.splitlines()[1]
    assert re.search(r"\bsaid=1\.00\b", best), best


def _explained(run_id: str, runs: Path) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(["explain", run_id, "--runs-dir", str(runs), "--top", "2"])
    assert code == 0
    return out.getvalue()


def test_under_the_learned_model_each_part_is_answered_from_the_page_that_answers_it(
    memory_service, monkeypatch
):
    """``QUARTET_RANKER=learned``: a sentence's score adds its page's standing among the
    pages read to its own features; an unrelated page read beside them answers nothing,
    and each part is cited from its own page."""
    import host.research
    import research.relevance
    from host.research import Research
    from subagents.evidence import EvidenceLedger

    monkeypatch.setattr(research.relevance, "LEARNED", True)
    monkeypatch.setattr(host.research, "LEARNED", True)
    plan = offline_plan(
        "When was Harrowgate windmill built? How far away can the Skerrow Point lighthouse be seen?"
    )
    run = Research(plan, EvidenceLedger(), memory_service, max_rounds=1)
    for name, page in (("garden", None), ("mill", MILL), ("light", LIGHTHOUSE)):
        title = page.title if page else "Alpine gardening"
        text = f"# {title}\n\n" + " ".join(page.paragraphs) if page else UNRELATED
        run._score(f"/workspace/pages/{name}.md", text, f"http://127.0.0.1:9/{name}", title, "web")
    chosen = run.select(limit=3)
    windmill = [run.ledger.get(i) for i in chosen["q1"]]
    lighthouse = [run.ledger.get(i) for i in chosen["q2"]]
    assert windmill and "1802" in windmill[0].span
    assert lighthouse and "22 nautical miles" in lighthouse[0].span
    assert {i.url for i in windmill} == {"http://127.0.0.1:9/mill"}
    assert {i.url for i in lighthouse} == {"http://127.0.0.1:9/light"}
    weighed = run.state()["sentences"]["q1"]
    assert weighed and all(set(v["features"]) == set(SENTENCE_FEATURES) for v in weighed.values())


def test_explain_under_the_learned_model_shows_what_the_answer_model_made_of_the_best(
    monkeypatch,
):
    import research.explain
    import research.relevance

    monkeypatch.setattr(research.relevance, "LEARNED", True)
    monkeypatch.setattr(research.explain, "LEARNED", True)
    plan = offline_plan("When was Harrowgate windmill built?")
    parts = {s.id: plan.focus(s) for s in plan.subquestions}
    mill = Document.of(f"# {MILL.title}\n\n" + " ".join(MILL.paragraphs), MILL.title)
    found = explain(parts, "q1", [("mill", mill), ("garden", Document.of(UNRELATED, "Alps"))])
    assert "1802" in found[0].text and found[0].evidence
    assert found[0].answer is not None and found[0].score == found[0].answer
    assert all(e.answer is None and not e.evidence for e in found if e.source == "garden")
    text = explained_text("q1  When was Harrowgate windmill built?", found, 0.5)
    assert "answer" in text and "evidence" in text


def test_a_sentence_said_alike_on_several_pages_is_one_candidate_where_its_best_page_stands():
    """A copy of an article on another site gives the same sentences again: they must not
    crowd out the part's other candidates, and the copy that stands lower among the pages
    read must not pull the sentence down."""
    from research.ranking import CANDIDATES, answer_model, answers

    plan = offline_plan("When was Harrowgate windmill built?")
    focus = plan.focus(plan.subquestions[0])
    mill = Document.of(f"# {MILL.title}\n\n" + " ".join(MILL.paragraphs), MILL.title)
    own = [s.features for s in assessed(focus, mill)]
    texts = [s.sentence.text for s in assessed(focus, mill)]
    high = {"page_share": 1.0, "page_first": 1.0, "page_agreed": 0.0, "page_asked": 1.0}
    low = {"page_share": 0.4, "page_first": 0.0, "page_agreed": 0.0, "page_asked": 0.4}
    judge = answer_model()
    alone = answers([f | high for f in own], texts, judge)
    copied = answers([f | low for f in own] + [f | high for f in own], texts + texts, judge)
    assert len(alone) == min(CANDIDATES, len(set(texts)))
    said = [(texts + texts)[i] for i, _ in copied]
    assert len(said) == len(set(said)) == len(alone)
    assert [round(p, 9) for _, p in copied] == [round(p, 9) for _, p in alone]


def test_the_answer_model_sees_which_pages_the_questions_other_parts_quote():
    """A part answered on a page makes that page likelier to answer the question's other
    parts: each part's rows carry whether another part quotes their page (by the answer
    model that weighs a part alone), never counting the part's own quotes."""
    from research.ranking import Part, question_rows
    from research.retrieval import rankings_of, standing
    from research.text import script

    plan = offline_plan(
        "When was Harrowgate windmill built? How far away can the Skerrow Point lighthouse be seen?"
    )
    focus = {s.id: plan.focus(s) for s in plan.subquestions}
    docs = {
        "mill": Document.of(f"# {MILL.title}\n\n" + " ".join(MILL.paragraphs), MILL.title),
        "light": Document.of(
            f"# {LIGHTHOUSE.title}\n\n" + " ".join(LIGHTHOUSE.paragraphs), LIGHTHOUSE.title
        ),
    }
    rankings = rankings_of(
        {k: f.words for k, f in focus.items()}, {n: d.counts for n, d in docs.items()}
    )
    parts = {}
    for sid, f in focus.items():
        stand = standing(rankings, sid)  # page_asked as page_share
        mine = [(n, s) for n, d in docs.items() for s in assessed(f, d)]
        parts[sid] = Part(
            rows=[s.features | stand[n] for n, s in mine],
            texts=[s.sentence.text for _, s in mine],
            pages=[n for n, _ in mine],
            script=script(f.text),
        )
    rows = question_rows(parts)
    for sid, other in (("q1", "light"), ("q2", "mill")):
        quoted = {
            p for row, p in zip(rows[sid], parts[sid].pages, strict=True) if row["page_quoted"]
        }
        assert quoted == {other}  # the other part's page, never its own


def test_the_answer_model_adds_the_leaves_its_features_reach():
    """A split sends a value at most its threshold left; a missing feature counts as 0;
    the leaves reached add up to the log-odds."""
    from research.ranking import Trees

    stump = ((0, 0.5, 1, 2), (-1.0,), (2.0,))
    pair = ((1, 0.0, 1, 2), (0.5,), (-0.5,))
    judge = Trees(threshold=0.5, thresholds={}, names=("a", "b"), trees=(stump, pair))
    assert math.isclose(judge.log_odds({"a": 0.5, "b": 1.0}), -1.5)
    assert math.isclose(judge.log_odds({"a": 0.9}), 2.5)
    assert math.isclose(judge.score({"a": 0.9, "b": 0.0}), 1 / (1 + math.exp(-2.5)))


def test_the_committed_answer_models_are_trees_over_the_core_features():
    from research.ranking import ALONE_FEATURES, ANSWER_FEATURES, answer_model

    judge = answer_model()
    assert judge.names == ANSWER_FEATURES and judge.trees
    assert judge.alone is not None and judge.alone.names == ALONE_FEATURES
    for trees in (judge, judge.alone):
        assert trees.thresholds and all(0.0 < t < 1.0 for t in trees.thresholds.values())
        for tree in trees.trees:  # every split names a feature and points inside its tree
            for node in tree:
                assert len(node) in (1, 4)
                if len(node) == 4:
                    assert 0 <= node[0] < len(trees.names)
                    assert 0 < node[2] < len(tree) and 0 < node[3] < len(tree)


def test_a_page_that_answers_a_part_is_quoted_by_its_best_sentences_in_order():
    """When the answer model says a page answers the part, the part quotes that page's
    ``PAGE_QUOTES`` best sentences by the sentence model, the best carrying the answer
    model's probability and the rest under it in order; nothing from a page it does not
    accept, and nothing at all when it accepts none."""
    from research.ranking import PAGE_QUOTES, Part, Trees, chosen

    plan = offline_plan("When was Harrowgate windmill built?")
    focus = plan.focus(plan.subquestions[0])
    mill = Document.of(f"# {MILL.title}\n\n" + " ".join(MILL.paragraphs), MILL.title)
    garden = Document.of(UNRELATED, "Alpine gardening")
    high = {"page_share": 1.0, "page_first": 1.0, "page_agreed": 0.0, "page_asked": 1.0}
    low = {"page_share": 0.1, "page_first": 0.0, "page_agreed": 0.0, "page_asked": 0.1}
    read = [(s.features | high, s.sentence.text, "mill") for s in assessed(focus, mill)]
    read += [(s.features | low, s.sentence.text, "garden") for s in assessed(focus, garden)]
    part = Part([r for r, _, _ in read], [t for _, t, _ in read], [p for _, _, p in read], "latin")
    # a judge that accepts a candidate only on the page that stands first
    first = Trees(0.5, {}, ("page_first",), (((0, 0.5, 1, 2), (-4.0,), (4.0,)),))
    got = chosen(part, part.rows, first)
    assert {part.pages[i] for i in got} == {"mill"}
    assert len(got) == min(PAGE_QUOTES, sum(p == "mill" for p in part.pages))
    order = sorted(got, key=lambda i: -model().log_odds(part.rows[i]))
    assert [got[i] for i in order] == sorted(got.values(), reverse=True)
    assert math.isclose(got[order[0]], 1 / (1 + math.exp(-4.0)))
    assert "1802" in " ".join(part.texts[i] for i in got)
    never = Trees(0.5, {}, ("page_first",), (((-4.0,),),))  # one leaf: never sure
    assert chosen(part, part.rows, never) == {}


def test_the_rules_score_without_the_embedding_model_and_the_learned_model_with_it(
    monkeypatch,
):
    """The hand-set rules read no paraphrase feature, so scoring under them never loads
    or runs the embedding model (its memory and time are the learned core's); the
    learned core weighs it, and ``explain`` shows it under either."""
    import research.features
    import research.relevance
    from research.relevance import assessed

    calls: list[str] = []
    real = research.features.similarities

    def counted(focus, doc):
        calls.append(focus.text)
        return real(focus, doc)

    monkeypatch.setattr(research.features, "similarities", counted)
    plan = offline_plan("When was Harrowgate windmill built?")
    focus = plan.focus(plan.subquestions[0])
    mill = Document.of(f"# {MILL.title}\n\n" + " ".join(MILL.paragraphs), MILL.title)
    ruled = assessed(focus, mill)
    assert ruled and not calls
    assert all("paraphrase" not in s.features for s in ruled)
    found = explain({"q1": focus}, "q1", [("mill", mill)])
    assert calls and all("paraphrase" in e.features for e in found)
    calls.clear()
    monkeypatch.setattr(research.relevance, "LEARNED", True)
    learned = assessed(focus, Document.of(mill.text, MILL.title))
    assert calls and all("paraphrase" in s.features for s in learned)


BELL = CorpusPage(
    "Orsk bell tower",
    "en/orsk-bell-tower",
    [
        "The Orsk bell tower stands in the market square of the old town of Orsk.",
        "The Orsk bell tower was built in 1642 by the mason Hanne Brauer for the town guild.",
        "Its largest bell weighs four tonnes and rings every hour from dawn to dusk.",
        "Visitors may climb its 212 steps on summer afternoons.",
    ],
)


@pytest.mark.timeout(600)
def test_a_summary_line_answering_two_parts_is_each_parts_line_in_the_record(tmp_path: Path):
    """One sentence gives both the date and the builder: the summary shows it once, and the
    run's record names it as the answer line of both parts, so that a reader of the record
    (the web app, the benchmarks) finds each part's answer."""
    question = "When and by whom was the Orsk bell tower built?"
    with corpus_world([BELL], tmp_path / "site") as world:
        result = asyncio.run(research(question, world, tmp_path / "runs", max_pages=4))
    record = json.loads((Path(result.run.path) / "internal" / "run.json").read_text("utf-8"))
    subs = record["plan"]["subquestions"]
    assert len(subs) == 2
    assert subs[0]["answer_id"] and subs[0]["answer_id"] == subs[1]["answer_id"]
    when, who = parts_by_subquestion(Path(result.run.path))
    assert when.summary and when.summary == who.summary
    assert "1642" in when.summary[0].text and "Hanne Brauer" in who.summary[0].text
    report = result.run.real_path(result.outputs[0]).read_text(encoding="utf-8")
    assert report.split("\n## ")[0].count("1642 by the mason") == 1
