"""The source of a compiled count (paramcount.compiled): an architecture's formula tree written
as plain Python over integers and Fractions, from SymPy. Only generating imports SymPy (inside
the functions); the fast path only imports this module to name :func:`generate`."""

from __future__ import annotations

from collections.abc import Sequence

from paramcount import cache

__all__ = ["generate"]


# --- generation (SymPy) --------------------------------------------------------------------------
def _code(expr, sym: str = "_s_{}") -> str:
    """Python source evaluating a SymPy expression exactly (:func:`paramcount.exact.code`)."""
    from paramcount.exact import code

    return code(expr, sym)


def _names(expr) -> tuple[str, ...]:
    import sympy

    return tuple(sorted(s.name for s in sympy.sympify(expr).free_symbols))


def _fn(name: str, exprs: Sequence) -> list[str]:
    """``def name(V)``: the list of the expressions' values at a complete hyperparameter set."""
    lines = [f"def {name}(V):"]
    used = sorted({n for e in exprs for n in _names(e)})
    lines += [f"    _s_{n} = V[{n!r}]" for n in used]
    lines.append(f"    return [{', '.join(_code(e) for e in exprs)}]")
    return lines


def _lambdas(name: str, exprs: Sequence) -> list[str]:
    """``name = (lambda V: ..., ...)``: one function per expression, each reading only its own
    symbols (a default or a constraint is evaluated as soon as the symbols it names are known)."""
    return [f"{name} = ("] + [f"    lambda V: {_code(e, 'V[{}]')}," for e in exprs] + [")"]


def generate(arch) -> str:
    """The Python source of ``arch``'s compiled count (an Architecture of the registry)."""
    import sympy

    from paramcount.context import EMBEDDING_KINDS, rule_applies
    from paramcount.hparams import Divisible, Relation
    from paramcount.render import component_label

    f = arch.formula
    syms = sorted({s.name for s in (*arch.required, *arch.optional, *arch.fixed)})
    # The breakdown rows, exactly as render.count_rows forms them.
    row_meta, row_exprs = [], []
    mults: dict[str, sympy.Expr] = {}
    for path, depth, term in f.walk():
        mult = mults.get(path.rpartition(".")[0], sympy.Integer(1)) * term.times
        mults[path] = mult
        if depth:
            row_meta.append((depth, component_label(term)))
            row_exprs.append(mult * term.per_instance())
    # The nested components, exactly as Term.breakdown forms them.
    comp_exprs: list = []

    def nested(term, mult) -> dict:
        out: dict[str, object] = {}
        for child in term.children:
            m = mult * child.times
            if child.is_leaf:
                out[child.name] = len(comp_exprs)
                comp_exprs.append(m * child.expr)
            else:
                out[child.name] = nested(child, m)
        return out

    comp_shape = nested(f, sympy.Integer(1))
    emb = [lf.expr for lf in f.leaves() if lf.term.trainable and lf.kind in EMBEDDING_KINDS]
    totals = [f.trainable_total(True), f.trainable_total(False), f.total()]
    if f.has_active:
        totals.append(f.active_total())

    presets = {p.name: dict(p.hparams) for p in arch.presets_table().values()}
    for name, hp in arch.examples.items():
        presets.setdefault(name, dict(hp))  # arch.preset(): the presets' table first
    flags = sorted(n for n in syms if _flag(n))
    zero_ok = sorted(n for n in syms if _zero_ok(n))
    defaults = [*((s, e) for s, e in arch.optional.items()), *arch.fixed.items()]
    digest = cache.key(sympy.srepr(f.total()), [sympy.srepr(e) for e in row_exprs + comp_exprs],
                       [sympy.srepr(e) for _, e in defaults])

    out = [f"# paramcount.compiled: the count of {arch.id!r}, generated from its formula tree.",
           f"# tree {digest}", "",
           f"ID = {arch.id!r}", f"TREE = {digest!r}",
           f"REQUIRED = {tuple(s.name for s in arch.required)!r}",
           f"OPTIONAL = {tuple(s.name for s in arch.optional)!r}",
           f"FIXED = {tuple(s.name for s in arch.fixed)!r}",
           f"FLAGS = frozenset({flags!r})",
           f"ZERO_OK = frozenset({zero_ok!r})",
           f"PRESETS = {presets!r}",
           f"ROWS = {tuple(row_meta)!r}",
           f"COMPONENTS = {comp_shape!r}",
           f"EMBEDDINGS = {len(emb)}",
           f"HAS_ACTIVE = {bool(f.has_active)!r}",
           f"RULE_APPLIES = {bool(rule_applies(arch))!r}",
           f"CHECKED_BY = {tuple(arch.checked_by)!r}", ""]
    out += ["DEFAULTS = ("]
    for i, (s, e) in enumerate(defaults):
        out.append(f"    ({s.name!r}, {_names(e)!r}, {i}),")
    out += [")", ""]
    out += [*_lambdas("DEFAULT_FNS", [e for _, e in defaults]), ""]
    cons: list[tuple] = []
    cexprs: list = []
    for c in arch.constraints:
        if isinstance(c, Divisible):
            cons.append(("div", None, _names(c.dividend) + _names(c.divisor), None, len(cexprs)))
            cexprs += [sympy.sympify(c.dividend), sympy.sympify(c.divisor)]
        elif isinstance(c, Relation):
            when = None
            if c.when is not None:
                when = (_names(c.when), len(cexprs))
                cexprs.append(sympy.sympify(c.when))
            cons.append(("rel", c.op, _names(c.lhs) + _names(c.rhs), when, len(cexprs)))
            cexprs += [sympy.sympify(c.lhs), sympy.sympify(c.rhs)]
        else:
            raise NotImplementedError(f"cannot compile constraint {type(c).__name__}")
    out.append(f"CONSTRAINTS = {tuple(cons)!r}")
    out += [*_lambdas("CONSTRAINT_FNS", cexprs), ""]
    out += [*_fn("rows", row_exprs), ""]
    out += [*_fn("components", comp_exprs), ""]
    out += [*_fn("embeddings", emb), ""]
    out += [*_fn("totals", totals), ""]
    return "\n".join(out)


def _flag(name: str) -> bool:
    from paramcount import symbols

    return symbols.info(name).flag


def _zero_ok(name: str) -> bool:  # a count that may be 0 (layers of one kind in a mixed stack)
    from paramcount import symbols

    return symbols.info(name).zero_ok
