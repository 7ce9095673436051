"""Search subagent: five web sources (Google, Bing, Sogou, GitHub, a MediaWiki) behind one contract.

Each tool takes only ``query`` and returns a YAML list of items with exactly ``title``,
``url``, ``snippet`` and ``source``; outside failures come back as ``unavailable``.
"""
