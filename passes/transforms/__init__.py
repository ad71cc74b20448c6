"""Transforms: passes that rewrite the tree (normal form, reverse and forward mode, the
optimisations), each saying whether it changed anything."""
