"""A shell script's arithmetic expansion, `$(( ... ))`, as bash evaluates it, for the integer
expressions launch scripts use to size a context (`max_model_len=$((85 * 1024))`,
vllm-project/vllm#33155, outcomes round 3, task h54outcomes3): integers, the variables the script
set to integers (with or without `$`), + - * / % ** and parentheses. bash's `/` and `%` truncate
toward zero (bash(1), ARITHMETIC EVALUATION: "the same as in C"); a value beyond bash's signed
64 bits, where bash wraps around, is not read, nor is a power of a power (`9**9**9`, a `**`
tower: 9^387,420,489 has 369 million digits, task h80shell). Anything else (a variable the
script does not set, a comparison, an assignment) is left as written, so the word stays the
unresolved reference it was, said as an arithmetic expansion with the reason (`why_not`)."""

from __future__ import annotations

import ast
import re

# one level of parentheses inside, as `$(( (a + b) * 2 ))`
_ARITH = re.compile(r"\$\(\(((?:[^()]|\([^()]*\))*)\)\)")
_NAME = re.compile(r"\$?\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Mod, ast.Pow)
BOUND = 2**63  # bash's signed 64 bits: -BOUND <= value < BOUND


class NotRead(ValueError):
    """Why an arithmetic expansion is not evaluated, in words for the ERROR that names it."""


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _value(node: ast.AST) -> int:
    """The node's integer value; NotRead beyond bash's signed 64 bits, where bash wraps
    around (a script's `y=$(( (10**64)**64 ))` fed into another `$(( y**64 ))` had reached
    262,145 digits and stopped check with an internal error)."""
    value = _node(node)
    if not -BOUND <= value < BOUND:
        raise NotRead(f"a value past bash's signed 64-bit integers ({-BOUND:,} to "
                      f"{BOUND - 1:,}), where bash wraps around")
    return value


def _is_pow(node: ast.AST) -> bool:
    while isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow)


def _node(node: ast.AST) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _value(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and isinstance(node.op, _OPS):
        if isinstance(node.op, ast.Pow) and (_is_pow(node.left) or _is_pow(node.right)):
            raise NotRead("a power of a power (a `**` tower)")
        a, b = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.Pow):
            if b < 0:
                raise NotRead(f"a negative exponent ({b}), which bash refuses")
            if b > 64 and abs(a) > 1:
                raise NotRead(f"{a}**{b}, past bash's signed 64-bit integers, where bash "
                              "wraps around")
            return a**b
        if b == 0:
            raise NotRead("a division by 0, which bash refuses")
        q = _c_div(a, b)
        return q if isinstance(node.op, ast.Div) else a - b * q
    raise NotRead(_NOT_ARITH)


_NOT_ARITH = "not the integer arithmetic kvplan reads (integers, + - * / % ** and parentheses)"
# task h90hostile: bash's integer constants (bash(1), ARITHMETIC EVALUATION): 0x/0X hexadecimal,
# a leading 0 octal, base#n for a base of 2 to 64 (digits 0-9, a-z, A-Z, @, _; a base up to 36
# takes either case). `$((0x2000))` was read as the unset variable x2000, `$((010))` as not
# arithmetic (bash: 8)
_CONSTANT = re.compile(r"(?<![\w$#@])(0[xX][0-9A-Fa-f]+|0[0-9]+|[0-9]+#[0-9A-Za-z@_]+)(?![\w#@])")
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_"


def _constant(text: str) -> int:
    """A bash integer constant's value (NotRead where bash stops: "value too great for base")."""
    if text[:2] in ("0x", "0X"):
        return int(text[2:], 16)
    base, digits = (int(text.split("#")[0]), text.split("#")[1]) if "#" in text else (8, text[1:])
    if not 2 <= base <= 64:
        raise NotRead(f"{text}: base {base} is not 2 to 64, which bash refuses (invalid "
                      "arithmetic base)")
    value = 0
    for d in digits:
        n = _DIGITS.index(d.lower() if base <= 36 else d)
        if n >= base:
            raise NotRead(f"{text}: {d} is no digit of base {base}, which bash refuses "
                          "(value too great for base)")
        value = value * base + n
    return value


def _constants(body: str) -> str:
    return _CONSTANT.sub(lambda m: str(_constant(m.group(1))), body)


def _read(body: str, env: dict[str, str]) -> int:
    """The value of one `$(( body ))`; NotRead with the reason when kvplan does not read it."""
    def name(m: re.Match[str]) -> str:
        value = env.get(m.group(1), "")
        return f"({value.strip()})" if re.fullmatch(r"\s*-?\d+\s*", value) else m.group(0)

    if "=" in body.replace("==", "").replace("<=", "").replace(">=", "").replace("!=", "") \
            or "," in body:
        raise NotRead("an assignment or a comma inside, whose effect kvplan does not follow")
    text = _NAME.sub(name, _constants(body))
    unset = [m.group(1) for m in _NAME.finditer(text)]
    if unset and unset[0] in env:
        value = env[unset[0]]
        value = value if len(value) <= 40 else value[:40] + "..."
        raise NotRead(f"{unset[0]} is {value!r}, not an integer kvplan reads")
    if unset:
        raise NotRead(f"{unset[0]}, which the script does not set")
    if re.search(r"[^\d\s()+\-*/%]", text):
        raise NotRead(_NOT_ARITH)
    try:
        return _value(ast.parse(text.strip(), mode="eval").body)
    except RecursionError:  # bash evaluates it; kvplan's parser cannot (task h90hostile)
        raise NotRead(_TOO_DEEP) from None
    except SyntaxError as err:
        raise NotRead(_TOO_DEEP if "nested" in str(err) else _NOT_ARITH) from None


_TOO_DEEP = "an expression longer or more deeply nested than kvplan's parser reads"
# the expansion pattern reads one level of parentheses inside `$(( ))`
_NESTED = ("parentheses nested more than one level deep inside `$(( ))`, which kvplan does not "
           "read (or no closing `))`)")


def evaluate(body: str, env: dict[str, str]) -> int | None:
    """The value of one `$(( body ))`, or None when it is not integer arithmetic kvplan reads."""
    try:
        return _read(body, env)
    except NotRead:
        return None


def why_not(word: str, env: dict[str, str] | None = None) -> str | None:
    """Why the first `$(( ... ))` of `word` is not evaluated (None: it is, or there is none)."""
    for m in _ARITH.finditer(word):  # the first one kvplan does not evaluate
        try:
            _read(m.group(1), env or {})
        except NotRead as err:
            return str(err)
    return None if "$((" not in expand_arithmetic(word, env or {}) else _NESTED


def expand_arithmetic(text: str, env: dict[str, str]) -> str:
    """`text` with each `$(( ... ))` kvplan can evaluate replaced by its value."""
    def sub(m: re.Match[str]) -> str:
        value = evaluate(m.group(1), env)
        return m.group(0) if value is None else str(value)

    # innermost first, until none is left that kvplan evaluates: `$(( $(( 8192 )) ))` left the
    # outer one as written after one pass, and its ERROR said "does not evaluate: None"
    while "$((" in text:
        done = _ARITH.sub(sub, text)
        if done == text:
            break
        text = done
    return text
