"""A shell script's arithmetic expansion, `$(( ... ))`, as bash evaluates it, for the integer
expressions launch scripts use to size a context (`max_model_len=$((85 * 1024))`,
vllm-project/vllm#33155, outcomes round 3, task h54outcomes3): integers, the variables the script
set to integers (with or without `$`), + - * / % ** and parentheses. bash's `/` and `%` truncate
toward zero (bash(1), ARITHMETIC EVALUATION: "the same as in C"); a value beyond bash's signed
64 bits, where bash wraps around, is not read. Anything else (a variable the
script does not set, a comparison, an assignment) is left as written, so the word stays the
unresolved reference it was and is said as such."""

from __future__ import annotations

import ast
import re

# one level of parentheses inside, as `$(( (a + b) * 2 ))`
_ARITH = re.compile(r"\$\(\(((?:[^()]|\([^()]*\))*)\)\)")
_NAME = re.compile(r"\$?\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Mod, ast.Pow)


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _value(node: ast.AST) -> int:
    """The node's integer value; ValueError beyond bash's signed 64 bits, where bash wraps
    around (a script's `y=$(( (10**64)**64 ))` fed into another `$(( y**64 ))` had reached
    262,145 digits and stopped check with an internal error)."""
    value = _node(node)
    if not -(2**63) <= value < 2**63:
        raise ValueError("beyond 64 bits")
    return value


def _node(node: ast.AST) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _value(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and isinstance(node.op, _OPS):
        a, b = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.Pow):
            if b < 0 or b > 64:
                raise ValueError("exponent")
            return a**b
        if b == 0:
            raise ValueError("division by 0")
        q = _c_div(a, b)
        return q if isinstance(node.op, ast.Div) else a - b * q
    raise ValueError("not integer arithmetic")


def evaluate(body: str, env: dict[str, str]) -> int | None:
    """The value of one `$(( body ))`, or None when it is not integer arithmetic kvplan reads."""
    def name(m: re.Match[str]) -> str:
        value = env.get(m.group(1), "")
        return f"({value.strip()})" if re.fullmatch(r"\s*-?\d+\s*", value) else m.group(0)

    text = _NAME.sub(name, body)
    if re.search(r"[^\d\s()+\-*/%]", text):
        return None
    try:
        return _value(ast.parse(text.strip(), mode="eval").body)
    except (SyntaxError, ValueError, RecursionError):
        return None


def expand_arithmetic(text: str, env: dict[str, str]) -> str:
    """`text` with each `$(( ... ))` kvplan can evaluate replaced by its value."""
    def sub(m: re.Match[str]) -> str:
        value = evaluate(m.group(1), env)
        return m.group(0) if value is None else str(value)

    return _ARITH.sub(sub, text) if "$((" in text else text
