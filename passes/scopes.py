"""Scopes: classify every name a function reads as parameter, local, closure, global or builtin."""

from __future__ import annotations

from dataclasses import dataclass, field

import beniget
import gast

from srcad.passes.base import Analysis, Context, function_of


@dataclass
class ScopeInfo:
    """The parameters and locals of the function, and what each name load refers to."""

    parameters: list[str]
    locals: set[str]
    kinds: dict[gast.Name, str] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)  # every identifier the function mentions


class _QuietChains(beniget.DefUseChains):
    """Def-use chains that keep quiet: names beniget cannot bind inside the function are
    globals, closure cells or builtins, which `Scopes` looks up itself."""

    def warn(self, msg: str, node: gast.AST) -> None:
        pass


class Scopes(Analysis[ScopeInfo]):
    """Beniget's def-use chains over the function, completed by its globals and closure.

    A loaded name defined in the function is a "parameter" or "local"; any other is looked
    up where Python would at run time: "closure", "global", "builtin", else "undefined".
    """

    def run(self, tree: gast.Module, ctx: Context) -> ScopeInfo:
        function = function_of(tree)
        chains = _QuietChains()
        chains.visit(gast.Module(body=[function], type_ignores=[]))
        args = function.args
        every_arg = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        every_arg += [a for a in (args.vararg, args.kwarg) if a is not None]
        parameters = [a.id for a in every_arg]
        locals_ = {d.name() for d in chains.locals[function]} - set(parameters)
        info = ScopeInfo(parameters, locals_)
        for node in gast.walk(function):
            if isinstance(node, gast.Name):
                info.names.add(node.id)
                if isinstance(node.ctx, gast.Load):
                    info.kinds[node] = self._kind(node.id, info, ctx)
        return info

    @staticmethod
    def _kind(name: str, info: ScopeInfo, ctx: Context) -> str:
        if name in info.parameters:
            return "parameter"
        if name in info.locals:
            return "local"
        return ctx.source.lookup(name)[0]
