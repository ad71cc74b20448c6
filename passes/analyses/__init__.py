"""Analyses: results about a function's tree (which names are active, their kinds, their
scopes, the rule of each operation), computed once and reused until a transform changes it."""
