"""The fixed words of a report, in the question's language (English or Chinese).

Headings, labels and statements a report adds around its quoted evidence come from here,
so that a Chinese question gets a Chinese report. The research notes the Host writes use
the same headings for their special sections, which is how the writer recognises them.
"""

from __future__ import annotations

#: First line of the research notes the Host writes (see :mod:`research.notes`): candidate
#: evidence, best first, for the writer to choose from; other notes are used as written.
RESEARCH_MARKER = "<!-- quartet-research: candidates best first -->"

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "report": "Report",
        "summary": "Summary",
        "sources": "Sources",
        "evidence": "Evidence",
        "continued": "continued",
        "cited": "Quotes cited on this slide",
        "empty": "No notes or verified evidence were available for this report.",
        "disagreements": "Where the sources disagree",
        "not_found": "What could not be found",
        "limits": "Limits of this report",
        "brief": "What the brief asked",
        "req_length": "{requirement} — the writer aimed at this length.",
        "req_covered": "{requirement} — covered.",
        "req_partly": "{requirement} — partly covered: {gaps}.",
        "req_not": "{requirement} — not covered: {gaps}.",
        "gap_missing": "no source gave {missing}",
        "gap_left": "{left} left out to keep within the length",
        "gaps_joined": "; ",
        "req_met": "{requirement} — met: see “{where}”.",
        "req_section_not": "{requirement} — not met: no source gave enough on {missing} "
        "for a section.",
        "req_section_left": "{requirement} — not met: the section on {left} was left out "
        "to keep within the length.",
        "req_followed": "{requirement} — followed: see “{where}”.",
        "req_followed_here": "{requirement} — followed.",
        "req_no_disagreements": "{requirement} — not needed: the sources cited do not disagree.",
        "req_no_tables": "{requirement} — not met: no source gave a table for it.",
        "req_no_citations": "{requirement} — not met: the report cites no source.",
        "req_noted": "{requirement} — noted; how the report is written is not checked.",
        "req_not_checked": "{requirement} — not checked: the brief and the report are in "
        "different languages.",
        "req_not_checked_many": "Not checked, as the brief and the report are in different "
        "languages: {items}",
        "unmet_brief": "Not done as the brief asks: {items} (see “What the brief asked”).",
        "unchecked_brief": "Not checked, as the brief and the report are in different "
        "languages: {items} (see “What the brief asked”).",
        "files_unread": "Your files of a type no reader takes, not read: {files}.",
        "generic_language": "The question is in {name}, which has no word lists here: it "
        "was split at its question marks and matched by words and runs of letters, so a "
        "part may be cut or matched less well than in English or Chinese.",
        "section_on": "the section on {topic}",
        "or": "or",
        "failed_requests": "{requests} failed",
        "request_one": "{n} request",
        "request_many": "{n} requests",
        "and_more": " and {n} more",
        "searched": "What was searched",
        "off_topic": "What was read but off-topic",
        "failed": "What failed",
        "nothing": "No relevant evidence was found for any part of this question, so this "
        "report cites nothing.",
        "interrupted": "This run was interrupted before its research finished: this report "
        "gives what had been found by then.",
        "no_web": "No web source could be reached; this report answers from your files only.",
        "no_web_no_files": "No web source could be reached, and no files were read: this "
        "report has nothing to answer from.",
        "budget_tokens": "This run's token budget ({limit}) was spent before its research "
        "finished: research stopped, and this report gives what had been found by then.",
        "budget_cost": "This run's cost budget ({limit}) was spent before its research "
        "finished: research stopped, and this report gives what had been found by then.",
        "missing": "No relevant evidence was found for this part.",
        "partly_answered": "Partly answered",
        "partly": "{status}: {why}.",
        "lacking_date": "no closely relevant quote gives a date for it",
        "lacking_figure": "no closely relevant quote gives a figure for it",
        "lacking_date_given": "a date is given only by quotes not closely about it",
        "lacking_figure_given": "a figure is given only by quotes not closely about it",
        "near": "no source found answers it closely; these are the nearest quotes",
        "loosely": "it is answered by only {quotes}, and not closely",
        "few_quotes": "it is answered closely by only {quotes}",
        "few_sources": "it is answered closely by only {sources} about it",
        "off_pages": "the quotes that answer it closely come from pages about other things",
        "quote_one": "{n} quote",
        "quote_many": "{n} quotes",
        "source_one": "{n} source",
        "source_many": "{n} sources",
        "not_researched": "Not researched: the research ended before this part was searched",
        "tried": "Searched for",
        "read": "pages and files examined",
        "table": "Table",
        "chart": "Chart",
        "chart_by": "{series} by {label}",
        "chart_each": "{series} of each {label}",
        "chart_range": "{series}, {bounds}",
        "chart_range_each": "{series} of each {label}, {bounds}",
        "chart_range_by": "{series} by {label}, {bounds}",
        "chart_bounds": "low and high",
        "chart_quoted": "“{name}”",
        "chart_and": " and ",
        "appendix": "Data from the sources",
        "source": "Source",
        "stored": "stored copy",
        "fetched": "fetched {date}",
        "published": "published {date}",
        "dates_and": "; ",
        "page": "page",
        "sheet": "sheet",
        "slide": "slide",
        "given_as": "{measure} is given as",
        "and_as": "and as",
        "not_computed": "not computed",
        "table_quote": "Table of {rows} rows with the columns {header}",
        "table_note_one": ", and a note under it",
        "table_note_many": ", and {n} notes under it",
        "swipe": "Swipe the table sideways to see all its columns.",
        "in_en": "in English",
        "in_zh": "in Chinese",
        "colophon": "Made by Quartet {version} on {date} with {brain}; {pages} and {files} read.",
        "colophon_offline": "the offline extractive brain",
        "colophon_model": "the model {model}",
        "colophon_page": "{n} web page",
        "colophon_pages": "{n} web pages",
        "colophon_file": "{n} file",
        "colophon_files": "{n} files",
    },
    "zh": {
        "report": "报告",
        "summary": "摘要",
        "sources": "来源",
        "evidence": "证据",
        "continued": "续",
        "cited": "本页引用的原文",
        "empty": "本报告没有可用的笔记或经过核实的证据。",
        "disagreements": "来源之间的分歧",
        "not_found": "未能找到的内容",
        "limits": "本报告的局限",
        "brief": "简报的要求",
        "req_length": "{requirement}——撰写时以此篇幅为目标。",
        "req_covered": "{requirement}——已涵盖。",
        "req_partly": "{requirement}——部分涵盖：{gaps}。",
        "req_not": "{requirement}——未涵盖：{gaps}。",
        "gap_missing": "没有来源说明{missing}",
        "gap_left": "{left}因篇幅所限未写入",
        "gaps_joined": "；",
        "req_met": "{requirement}——已满足：见“{where}”。",
        "req_section_not": "{requirement}——未满足：没有来源提供足够的内容，无法写成关于"
        "{missing}的一节。",
        "req_section_left": "{requirement}——未满足：关于{left}的一节因篇幅所限未写入。",
        "req_followed": "{requirement}——已遵循：见“{where}”。",
        "req_followed_here": "{requirement}——已遵循。",
        "req_no_disagreements": "{requirement}——无需处理：所引来源之间没有分歧。",
        "req_no_tables": "{requirement}——未满足：没有来源提供相应的表格。",
        "req_no_citations": "{requirement}——未满足：报告没有引用任何来源。",
        "req_noted": "{requirement}——已记录；报告的写法不在检查之列。",
        "req_not_checked": "{requirement}——未核对：简报与报告使用的语言不同。",
        "req_not_checked_many": "以下要求未核对（简报与报告使用的语言不同）：{items}",
        "unmet_brief": "简报要求而本报告未能做到：{items}（见“简报的要求”）。",
        "unchecked_brief": "简报与报告使用的语言不同、未能核对：{items}（见“简报的要求”）。",
        "files_unread": "类型无法读取、因而未读的文件：{files}。",
        "generic_language": "问题使用{name}，本工具没有该语言的词表：只按问号拆分各部分，"
        "并按词和字符序列匹配，拆分和匹配可能不如英文或中文准确。",
        "section_on": "关于{topic}的一节",
        "or": "或",
        "failed_requests": "{requests}失败",
        "request_one": "{n} 个请求",
        "request_many": "{n} 个请求",
        "and_more": "，另有 {n} 个",
        "searched": "检索了什么",
        "off_topic": "已阅读但与问题无关的页面",
        "failed": "失败的来源",
        "nothing": "本问题的各个部分都没有找到相关证据，因此本报告不引用任何来源。",
        "interrupted": "本次运行在研究完成之前被中断：本报告给出截至中断时已找到的内容。",
        "no_web": "无法访问任何网络来源；本报告仅依据你提供的文件作答。",
        "no_web_no_files": "无法访问任何网络来源，也没有读取到任何文件：本报告没有可依据的内容。",
        "budget_tokens": "本次运行的令牌预算（{limit}）在研究完成之前已用完：研究已停止，"
        "本报告给出截至那时已找到的内容。",
        "budget_cost": "本次运行的费用预算（{limit}）在研究完成之前已用完：研究已停止，"
        "本报告给出截至那时已找到的内容。",
        "missing": "这一部分没有找到相关证据。",
        "partly_answered": "部分回答",
        "partly": "{status}：{why}。",
        "lacking_date": "没有密切相关的引文给出相应的时间",
        "lacking_figure": "没有密切相关的引文给出相应的数字",
        "lacking_date_given": "只有不够切题的引文给出了时间",
        "lacking_figure_given": "只有不够切题的引文给出了数字",
        "near": "没有来源直接回答这一部分；以下是最接近的引文",
        "loosely": "只有 {quotes}回答了这一部分，且不够直接",
        "few_quotes": "只有 {quotes}直接回答了这一部分",
        "few_sources": "只有 {sources}直接回答了这一部分",
        "off_pages": "直接回答这一部分的引文都来自讲其他内容的页面",
        "quote_one": "{n} 条引文",
        "quote_many": "{n} 条引文",
        "source_one": "{n} 个相关来源",
        "source_many": "{n} 个相关来源",
        "not_researched": "未研究：研究在检索这一部分之前已结束",
        "tried": "检索词",
        "read": "个页面和文件已检查",
        "table": "表",
        "chart": "图",
        "chart_by": "各{label}的{series}",
        "chart_each": "各{label}的{series}",
        "chart_range": "{series}的{bounds}",
        "chart_range_each": "各{label}{series}的{bounds}",
        "chart_range_by": "各{label}{series}的{bounds}",
        "chart_bounds": "下限和上限",
        "chart_quoted": "“{name}”",
        "chart_and": "和",
        "appendix": "附：资料中的数据",
        "source": "来源",
        "stored": "存档副本",
        "fetched": "{date}获取",
        "published": "{date}发布",
        "dates_and": "，",
        "page": "页",
        "sheet": "工作表",
        "slide": "幻灯片",
        "given_as": "{measure}的说法有",
        "and_as": "以及",
        "not_computed": "未计算",
        "table_quote": "表格（{rows} 行），列为{header}",
        "table_note_one": "，表下附注一条",
        "table_note_many": "，表下附注{n}条",
        "swipe": "左右滑动表格可查看所有列。",
        "in_en": "英文",
        "in_zh": "中文",
        "colophon": "本报告由 Quartet {version} 于 {date} 生成，使用{brain}；"
        "读取了 {pages}和 {files}。",
        "colophon_offline": "离线抽取式引擎",
        "colophon_model": "模型 {model}",
        "colophon_page": "{n} 个网页",
        "colophon_pages": "{n} 个网页",
        "colophon_file": "{n} 个文件",
        "colophon_files": "{n} 个文件",
    },
}

#: What a unit of a table's column measures, for the units :data:`research.facts.UNITS`
#: does not read in running text (a temperature, a currency's code).
UNIT_MEASURES = {
    "°C": "temperature",
    "℃": "temperature",
    "°F": "temperature",
    "℉": "temperature",
    "USD": "amount",
    "EUR": "amount",
    "GBP": "amount",
    "CNY": "amount",
    "RMB": "amount",
    "人民币": "amount",
    "万元": "amount",
    "亿元": "amount",
}

#: A measure's name as a chart's title opens with it ("Length of each trail").
MEASURE_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "length": "Length",
        "area": "Area",
        "weight": "Weight",
        "share": "Share",
        "amount": "Amount",
        "temperature": "Temperature",
    },
    "zh": {
        "length": "长度",
        "area": "面积",
        "weight": "重量",
        "share": "比例",
        "amount": "金额",
        "temperature": "温度",
    },
}

#: Words that make a table's column one bound of a range ("Low (km)", "Max depth",
#: 长度下限), by the bound they name.
RANGE_WORDS = {
    "low": ("low", "lower", "lower bound", "lowest", "min", "min.", "minimum", "下限", "最低",
            "最小", "最低值", "最小值"),
    "high": ("high", "upper", "upper bound", "highest", "max", "max.", "maximum", "上限", "最高",
             "最大", "最高值", "最大值"),
}  # fmt: skip

#: Headings that name a sources list, in every language; such sections are never body text.
SOURCES_HEADINGS = {
    "Sources",
    "References",
    "Bibliography",
    "来源",
    "参考",
    "参考文献",
    "参考资料",
    "引用",
}


def label(lang: str, key: str) -> str:
    """The ``key`` label in ``lang`` (English when the language is unknown)."""
    return LABELS.get(lang, LABELS["en"])[key]


def section_kind(heading: str) -> str:
    """``disagreements``, ``not_found``, ``appendix`` or ``part`` for a section heading, in
    any language."""
    for labels in LABELS.values():
        if heading == labels["disagreements"]:
            return "disagreements"
        if heading == labels["appendix"]:
            return "appendix"
        if heading in (
            labels[k] for k in ("not_found", "limits", "brief", "searched", "off_topic", "failed")
        ):
            return "not_found"
    return "part"
