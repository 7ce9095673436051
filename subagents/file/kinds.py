"""The kinds of file the File subagent reads, as a person names them.

What the web app's start page lists: kept apart from the readers so that naming them
loads none of them (the readers bring agentscope and the document libraries, over a
hundred megabytes the web server would otherwise hold for one line of its start page).
The module imports nothing.
"""

#: Each kind of file the File subagent reads, named for a person, with its endings.
READABLE_KINDS = (
    ("PDF", (".pdf",)),
    ("Word", (".docx",)),
    ("OpenDocument text", (".odt",)),
    ("RTF", (".rtf",)),
    ("EPUB", (".epub",)),
    ("Excel", (".xlsx", ".xlsm")),
    ("CSV", (".csv", ".tsv")),
    ("PowerPoint", (".pptx",)),
    ("text and Markdown", (".txt", ".md")),
    ("HTML, JSON, YAML and XML", (".html", ".htm", ".json", ".yaml", ".yml", ".xml")),
    ("images", (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff")),
)
