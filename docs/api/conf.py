"""Sphinx configuration of srcad's API reference, built from the docstrings by autodoc:

    .venv/bin/sphinx-build -W -b html docs/api build/api

(`tests/test_docs.py` builds it, and checks that every name of `srcad.__all__` is in it.)
"""

project = "srcad"
extensions = ["sphinx.ext.autodoc"]
# srcad's docstrings mark code with single backticks, as Markdown does.
default_role = "code"
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"show-inheritance": False}
html_theme = "alabaster"
exclude_patterns = ["_build"]
