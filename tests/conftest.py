"""Every rule compiled by the tests has its text checked against the code that runs."""

from srcad import compiler

compiler.CHECK_TEXT = True
