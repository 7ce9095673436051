"""The research core: every judgement the Host and the writer make about text.

Pure functions and small classes over typed data, with no agentscope and no file I/O:

- :mod:`research.text` reads Markdown the way a researcher does: blocks, sections, whole
  sentences with exact offsets, terms (English stemmed, Chinese cut by jieba);
- :mod:`research.facts` reads what a sentence states: dates, quantities with units,
  causes, and whether it leans on the sentence before it;
- :mod:`research.plan` breaks a question into the parts a report must answer, each with
  short keyword queries (the offline decomposition), and checks a model's plan;
- :mod:`research.question` reads what a part asks: its subject, its facets and the kind
  of answer it wants (a :class:`~research.question.Focus`);
- :mod:`research.document` prepares a page for scoring (a
  :class:`~research.document.Document`);
- :mod:`research.aboutness` says whether a page, a section or a sentence is about a part;
- :mod:`research.features` describes a sentence for a part by named features;
- :mod:`research.relevance` scores how well a sentence answers a part;
- :mod:`research.coverage` says how well a part is answered so far;
- :mod:`research.selection` picks what each part's section quotes and the leads taken
  in as evidence;
- :mod:`research.lines` picks each part's answer line, its summary line, by a learned
  model;
- :mod:`research.tables` finds tables with their offsets and picks each part's table;
- :mod:`research.disagreements` finds the quantities and dates sources give differently;
- :mod:`research.inputs` says what became of each of the user's files.

Nothing here names a subject: every list is about language (question words, answer
types, units, connectives), never about what a question asks.
"""
