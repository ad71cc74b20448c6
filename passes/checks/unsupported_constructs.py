"""UnsupportedConstructs: every construct outside what srcad differentiates, with its place."""

from __future__ import annotations

from typing import Protocol

import gast

from srcad import syntax
from srcad.errors import Diagnostic
from srcad.passes.base import Analysis, Context, function_of
from srcad.passes.transforms.contexts import context_refusal, names_bound
from srcad.passes.transforms.declarations import declaration_refusals
from srcad.passes.transforms.nested_classes import CLASS_HINT, class_refusal

# Diagnostic codes of this check.
UNSUPPORTED_STATEMENT = "E101"
UNSUPPORTED_EXPRESSION = "E102"

_STATEMENT_NAMES: dict[type, str] = {
    gast.AsyncFor: "an `async for` loop",
    gast.With: "a `with` statement",
    gast.AsyncWith: "an `async with` statement",
    gast.Try: "a `try` statement",
    # (`local_imports` and `deletions` take the others)
    gast.Import: "an `import` inside a block, or of a name the function binds otherwise or "
    "reads before it,",
    gast.ImportFrom: "an `import` inside a block, or of a name the function binds otherwise or "
    "reads before it,",
    gast.Global: "a `global` declaration",
    gast.Nonlocal: "a `nonlocal` declaration",
    gast.Delete: "a `del` of a name read after it, or not surely bound where it runs,",
    gast.AsyncFunctionDef: "a nested function definition",
}

_IMPORT_HINT = "import it at the module's level, or at the top of the function's body"
_HINTS: dict[type, str] = {
    gast.Import: _IMPORT_HINT,
    gast.ImportFrom: _IMPORT_HINT,
    gast.Delete: "assign the name once before the `del`, in the same block, and read it only "
    "between the two, or leave the `del` out",
}

_EXPRESSION_NAMES: dict[type, str] = {
    gast.Await: "`await`",
    gast.Yield: "`yield`",
    gast.YieldFrom: "`yield from`",
    gast.NamedExpr: "an assignment expression (`:=`)",
    gast.Starred: "star-unpacking",
}

# BitOr and BitAnd make masks and type unions, with no derivative (`|` of dicts merges them:
# `rules/dicts.py`); the shifts and BitXor take integers (and booleans, sets), piecewise
# constant as `//` is.
_OPERATORS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.MatMult, gast.FloorDiv,
              gast.Mod, gast.BitOr, gast.BitAnd, gast.LShift, gast.RShift, gast.BitXor)  # fmt: skip
_UNARY = (gast.USub, gast.UAdd, gast.Not, gast.Invert)


class UnsupportedConstructs(Analysis[list[Diagnostic]]):
    """All constructs in the function that srcad does not differentiate, at once.

    Supported: assignments (tuple unpacking, starred targets included) and augmented
    assignment to a name, expression statements, `return` anywhere, `if`/`elif`/`else`,
    `for` and `while` loops with `break`, `continue` and `else`, `assert` and `raise`; the
    operators `+ - * / ** @`, unary `-`/`+`/`not`, comparisons, `and`/`or`, conditional
    expressions, f-strings; calls of functions named through globals, closures or
    builtins, unpacking arguments too (`f(*args, **kwargs)`); attribute reads; indexing;
    tuple displays.
    """

    def run(self, tree: gast.Module, ctx: Context) -> list[Diagnostic]:
        function = function_of(tree)
        found: list[Diagnostic] = []

        def report(node: gast.AST, code: str, message: str, hint: str = "") -> None:
            found.append(ctx.diagnostic(node, code, message, hint))

        self._parameters(function.args, report)
        self.rule_hint = f"register a rule with @srcad.rrule.register({function.name})"
        self.function = function
        self.ctx = ctx
        self.declarations = declaration_refusals(function)
        self._block(function.body, report)
        return found

    @staticmethod
    def _parameters(args: gast.arguments, report: Report) -> None:
        """Every kind of parameter is supported: `*args` is differentiated (one cotangent
        per argument received), keyword-only ones and `**kwargs` are not, as keyword
        arguments never are."""

    def _block(self, statements: list[gast.stmt], report: Report) -> None:
        for statement in statements:
            self._statement(statement, report)

    def _statement(self, statement: gast.stmt, report: Report) -> None:
        if isinstance(statement, gast.Return):
            if statement.value is not None:
                self._expression(statement.value, report)
        elif isinstance(statement, gast.Assign):
            for target in statement.targets:
                self._target(target, report)
            value = statement.value
            if (
                isinstance(value, gast.Lambda)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], gast.Name)
            ):
                self._parameters(value.args, report)
                value = value.body  # `name = lambda ...` is a nested function
            self._expression(value, report)
        elif isinstance(statement, gast.FunctionDef):
            if statement.decorator_list:
                report(
                    statement.decorator_list[0],
                    UNSUPPORTED_STATEMENT,
                    "a decorated nested function is not supported",
                    "define it at module level",
                )
            self._parameters(statement.args, report)
            self._block(statement.body, report)
        elif isinstance(statement, gast.ClassDef):  # one `hoist_classes` could not make
            report(
                statement,
                UNSUPPORTED_STATEMENT,
                class_refusal(statement, self.function),
                CLASS_HINT,
            )
        elif isinstance(statement, gast.Global | gast.Nonlocal):
            why = self.declarations.get(id(statement))
            if why is not None:  # (one that changes nothing is dropped: `declarations`)
                report(statement, UNSUPPORTED_STATEMENT, why, "pass the value as an argument "
                       "and return the new one, or " + self.rule_hint)  # fmt: skip
        elif isinstance(statement, gast.With):  # one `lower_contexts` could not take
            why = context_refusal(statement, self.ctx.source, names_bound(self.function))
            if why is None:  # it names srcad's markers
                why = "a `with` statement is not supported in a function that binds "
                why += "`enter_context` or `exit_context`"
            report(statement, UNSUPPORTED_STATEMENT, why, self.rule_hint)
        elif isinstance(statement, gast.AnnAssign) and statement.value is not None:
            self._target(statement.target, report)  # `name: type = value` is an assignment
            self._expression(statement.value, report)
        elif isinstance(statement, gast.Raise):
            pass  # it ends the call: nothing after it is differentiated
        elif isinstance(statement, gast.Assert):
            self._expression(statement.test, report)  # its message is a `raise`'s
        elif isinstance(statement, gast.AugAssign):
            self._target(statement.target, report)
            if not isinstance(statement.op, _OPERATORS):
                report(
                    statement,
                    UNSUPPORTED_EXPRESSION,
                    f"the operator `{_symbol(statement.op)}=` is not supported",
                )
            self._expression(statement.value, report)
        elif isinstance(statement, gast.Expr):
            if not isinstance(statement.value, gast.Constant):
                self._expression(statement.value, report)
        elif isinstance(statement, gast.If):
            self._expression(statement.test, report)
            self._block(statement.body, report)
            self._block(statement.orelse, report)
        elif isinstance(statement, gast.For | gast.While):
            if isinstance(statement, gast.For):
                self._target(statement.target, report)
                self._expression(statement.iter, report)
            else:
                self._expression(statement.test, report)
            self._block(statement.body, report)
            self._block(statement.orelse, report)  # `ToANF` tests a flag `break` clears
        elif isinstance(statement, gast.Delete) and not any(
            isinstance(t, gast.Name) for t in statement.targets
        ):
            pass  # `del x[i]` or `del x.a` is a mutation: the Mutations check reports it
        elif not isinstance(statement, gast.Pass | gast.Break | gast.Continue):
            what = _STATEMENT_NAMES.get(type(statement), f"`{type(statement).__name__}`")
            hint = _HINTS.get(type(statement), self.rule_hint)
            report(statement, UNSUPPORTED_STATEMENT, f"{what} is not supported here", hint)

    def _target(self, target: gast.expr, report: Report) -> None:
        if isinstance(target, gast.Name):
            return
        if isinstance(target, gast.Tuple | gast.List):
            for element in target.elts:  # `first, *rest = ...`: `ToANF` slices the items
                self._target(element.value if isinstance(element, gast.Starred) else element,
                             report)  # fmt: skip
            return
        if isinstance(target, gast.Subscript | gast.Attribute):
            return  # a mutation: the Mutations check reports it
        what = _EXPRESSION_NAMES.get(type(target), f"`{type(target).__name__}`")
        report(target, UNSUPPORTED_EXPRESSION, f"assigning to {what} is not supported")

    def _expression(self, node: gast.expr, report: Report) -> None:
        unpacked: set[int] = set()  # `*rest` passed to a call (`walk` meets the call first)
        for child in syntax.walk(node):
            if type(child) not in _CHECKED:
                continue  # a name, a constant, an attribute, an index...: most nodes
            if isinstance(child, gast.Call):
                unpacked.update(id(a) for a in child.args if isinstance(a, gast.Starred))
            if isinstance(child, gast.List | gast.Tuple | gast.Set):  # a display, or a target
                unpacked.update(id(e) for e in child.elts if isinstance(e, gast.Starred))
            if isinstance(child, gast.Starred) and id(child) in unpacked:
                continue  # unpacking arguments, into a display or a target: `ToANF` lowers it
            bad_binary = isinstance(child, gast.BinOp) and not isinstance(child.op, _OPERATORS)
            bad_unary = isinstance(child, gast.UnaryOp) and not isinstance(child.op, _UNARY)
            if bad_binary or bad_unary:
                report(
                    child,
                    UNSUPPORTED_EXPRESSION,
                    f"the operator `{_symbol(child.op)}` is not supported",
                    self.rule_hint,
                )
            elif isinstance(child, gast.Lambda):
                report(
                    child,
                    UNSUPPORTED_EXPRESSION,
                    "a lambda is only supported as the value of an assignment to a name",
                    "write `name = lambda ...` and use `name`",
                )
            elif _bare_super(child):
                report(
                    child,
                    UNSUPPORTED_EXPRESSION,
                    "`super()` without arguments reads the class of the method that calls it, "
                    "which the compiled code is not defined in",
                    "call the base class's method by name, `Base.method(self, ...)`",
                )
            elif isinstance(child, _COMPREHENSIONS) and any(g.is_async for g in child.generators):
                report(child, UNSUPPORTED_EXPRESSION, "an async comprehension is not supported")
            elif type(child) in _EXPRESSION_NAMES:
                what = _EXPRESSION_NAMES[type(child)]
                hint = self.rule_hint
                if isinstance(child, gast.NamedExpr):  # one `assignment_expressions` left
                    hint = _WALRUS_HINT
                report(child, UNSUPPORTED_EXPRESSION, f"{what} is not supported here", hint)


def _bare_super(node: gast.expr) -> bool:
    """`super()`: Python passes it the `__class__` cell of the method it is written in, and
    the method's first argument; srcad's compiled method has neither."""
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Name)
        and node.func.id == "super"
        and not node.args
        and not node.keywords
    )


# Where `passes/transforms/assignment_expressions.py` leaves a `:=`, Python runs it later or
# in a scope of its own.
_WALRUS_HINT = (
    "inside a lambda, a generator expression, a set or dict comprehension, an assignment's "
    "target or a later comparison of a chain, assign the value in a statement before it"
)

_COMPREHENSIONS = (gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp)

# The classes of expression `_expression` may report (gast's classes have no subclasses).
_CHECKED = frozenset({
    gast.BinOp, gast.UnaryOp, gast.Call, gast.Lambda, gast.Dict, gast.ListComp,
    gast.GeneratorExp, gast.DictComp, gast.SetComp, gast.List, gast.Tuple, gast.Set,
    *_EXPRESSION_NAMES,
})  # fmt: skip

_SYMBOLS = {
    gast.FloorDiv: "//",
    gast.Mod: "%",
    gast.LShift: "<<",
    gast.RShift: ">>",
    gast.BitOr: "|",
    gast.BitXor: "^",
    gast.BitAnd: "&",
    gast.Invert: "~",
    gast.Not: "not",
}


def _symbol(op: gast.AST) -> str:
    return _SYMBOLS.get(type(op), type(op).__name__)


class Report(Protocol):
    """The signature of the `report` callback the checks above share."""

    def __call__(self, node: gast.AST, code: str, message: str, hint: str = "") -> None: ...
