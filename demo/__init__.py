"""The bundled offline demo: a local web on one topic and sample input files."""
