"""BIG-Bench Hard's three generated tasks, made here from their definitions: seeded, answers computed exactly.

What it does: ``generate(task, n, seed)`` makes ``n`` distinct ``BbhQuestion``\\ s
of one of ``GENERATED`` (BIG-bench ships these as Python generators, not as
task files), in BBH's shape:

- ``boolean_expressions``: an expression of exactly 8 tokens over ``True``,
  ``False``, ``not``, ``and``, ``or`` and parentheses, followed by "is"
  ("not ( True ) and ( True ) is"). The tokens follow BIG-bench's grammar (an
  expression or ``(`` opens; after a constant or ``)`` comes ``and``, ``or``
  or ``)``; parentheses balance; it ends on a constant or ``)``); every such
  expression is enumerated, sorted, and a seeded shuffle picks ``n``. Posed
  with the options True (A) and False (B), the two targets BIG-bench scores;
  the answer is ``evaluate_boolean``'s, a parser with Python's precedence (not
  over and over or), never ``eval``.
- ``multistep_arithmetic_two``: two parenthesised groups of four operands
  (-9..9) joined by ``+``, ``-`` or ``*``, the groups joined by one of them,
  then "=" ("((-1 + -6 * -2 + -9) + (-8 - 0 - 5 - -3)) ="); free-form, the
  answer the exact integer ``evaluate_arithmetic`` computes (``*`` before
  ``+``/``-``, left to right).
- ``web_of_lies``: "Question: " and five sentences, the first saying whether
  one person lies, each next one what a new person says of the previous
  ("Jerry says Fidel tells the truth."), then "Does <the last> tell the
  truth?"; posed with the options Yes (A) and No (B), the answer
  ``web_of_lies_answer``'s (who is honest, person by person). The names are
  this module's own list of 50.

A task's questions depend only on the task, ``n`` and ``seed`` (``POOL_SIZE``
and ``GENERATION_SEED`` make the pool ``bbh`` loads), never on Python's hash
seed or the platform.

What it does not do: reproduce BBH's own 250 items (its files are not read
here), few-shot prompts, import ``bigbench``, or read or write any file.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Iterator, Sequence

from debate_core.config import OPTION_LABELS
from experiments.bbh_rows import BbhError, BbhQuestion

GENERATED = ("boolean_expressions", "multistep_arithmetic_two", "web_of_lies")
GENERATION_SEED = 0  # the pool ``bbh`` loads for a generated task: these questions, in this order
POOL_SIZE = 1_000
BOOLEAN_TOKENS = 8  # BBH's expressions: 8 tokens, the longest of BIG-bench's default lengths (1..8)
ARITHMETIC_GROUPS, ARITHMETIC_OPERANDS = 2, 4  # BBH's "two": depth 2, four operands in each inner group
OPERANDS = tuple(range(-9, 10))
OPERATORS = ("+", "-", "*")
WEB_SENTENCES = 5
NAMES = (
    "Abigail", "Alfonso", "Amara", "Anselm", "Beatrix", "Bertram", "Bianca", "Cedric", "Celeste", "Dario",
    "Delphine", "Desmond", "Edith", "Emeric", "Esther", "Felix", "Fiona", "Gideon", "Greta", "Hamish",
    "Helga", "Ignatius", "Imogen", "Jasper", "Juno", "Kasimir", "Kirsten", "Lazarus", "Lucinda", "Magnus",
    "Marisol", "Nestor", "Nora", "Octavia", "Oswin", "Perpetua", "Quentin", "Rosalind", "Rufus", "Saoirse",
    "Severin", "Tabitha", "Thaddeus", "Ursula", "Valentin", "Wilhelmina", "Xavier", "Yolanda", "Zachary", "Zelda",
)  # fmt: skip
BOOLEAN_OPTIONS, YES_NO = ("True", "False"), ("Yes", "No")


def _rng(task: str, seed: int) -> random.Random:
    return random.Random(int(hashlib.sha256(f"{task}:{seed}".encode()).hexdigest()[:16], 16))


# --- boolean_expressions ---------------------------------------------------------------------

_CONSTANTS = ("True", "False")


def _expressions(length: int) -> Iterator[tuple[str, ...]]:
    """Every token sequence of ``length`` the grammar allows (see the module docstring)."""

    def extend(tokens: tuple[str, ...], depth: int) -> Iterator[tuple[str, ...]]:
        left = length - len(tokens)
        if left == 0:
            if depth == 0 and tokens and tokens[-1] in (*_CONSTANTS, ")"):
                yield tokens
            return
        if depth > left:  # too many parentheses open to close in time
            return
        operand_next = not tokens or tokens[-1] in ("not", "and", "or", "(")
        choices = (*_CONSTANTS, "not", "(") if operand_next else ("and", "or", ")")
        for token in choices:
            if token == ")" and depth == 0:
                continue
            yield from extend((*tokens, token), depth + (token == "(") - (token == ")"))

    yield from extend((), 0)


def evaluate_boolean(expression: str) -> bool:
    """The value of an expression over True/False with not/and/or and parentheses (a trailing "is" allowed)."""
    tokens = expression.split()
    if tokens and tokens[-1] == "is":
        tokens = tokens[:-1]
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take(expected: str | None = None) -> str:
        nonlocal position
        token = peek()
        if token is None or (expected is not None and token != expected):
            raise BbhError(f"not a boolean expression: {expression!r} (at token {position})")
        position += 1
        return token

    def chain(operator: str, operand: Callable[[], bool]) -> bool:
        """Operands joined by ``operator`` (every one read, none skipped): or is any, and is all."""
        values = [operand()]
        while peek() == operator:
            take()
            values.append(operand())
        return any(values) if operator == "or" else all(values)

    def disjunction() -> bool:
        return chain("or", lambda: chain("and", negation))

    def negation() -> bool:
        if peek() == "not":
            take()
            return not negation()
        token = take()
        if token == "(":
            value = disjunction()
            take(")")
            return value
        if token not in _CONSTANTS:
            raise BbhError(f"not a boolean expression: {expression!r} (unexpected {token!r})")
        return token == "True"

    value = disjunction()
    if peek() is not None:
        raise BbhError(f"not a boolean expression: {expression!r} (left over from token {position})")
    return value


def boolean_expressions(n: int, seed: int = GENERATION_SEED) -> list[BbhQuestion]:
    pool = sorted(_expressions(BOOLEAN_TOKENS))
    _rng("boolean_expressions", seed).shuffle(pool)
    questions = []
    for index, tokens in enumerate(pool[:n]):
        text = " ".join((*tokens, "is"))
        answer = OPTION_LABELS[BOOLEAN_OPTIONS.index(str(evaluate_boolean(text)))]
        questions.append(BbhQuestion("boolean_expressions", index, text, BOOLEAN_OPTIONS, answer))
    return questions


# --- multistep_arithmetic_two -------------------------------------------------------------------

_ARITHMETIC_TOKEN = re.compile(r"\s*(-?\d+|[-+*()=])")


def evaluate_arithmetic(expression: str) -> int:
    """The exact value of integers (a minus sign attached to a number is its sign) with + - * and parentheses,
    ``*`` first, then ``+`` and ``-`` left to right; a trailing "=" allowed."""
    text = expression.strip().removesuffix("=").rstrip()
    tokens: list[str] = []
    at = 0
    while at < len(text):
        found = _ARITHMETIC_TOKEN.match(text, at)  # "5 - -3": a binary minus stands apart, a sign does not
        if found is None or found.group(1) == "=":
            raise BbhError(f"not an arithmetic expression: {expression!r} (at character {at})")
        tokens.append(found.group(1))
        at = found.end()
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        if position >= len(tokens):
            raise BbhError(f"not an arithmetic expression: {expression!r} (ends too soon)")
        position += 1
        return tokens[position - 1]

    def sum_() -> int:
        value = product()
        while peek() in ("+", "-"):
            value = value + product() if take() == "+" else value - product()
        return value

    def product() -> int:
        value = factor()
        while peek() == "*":
            take()
            value *= factor()
        return value

    def factor() -> int:
        token = take()
        if token == "(":
            value = sum_()
            if take() != ")":
                raise BbhError(f"not an arithmetic expression: {expression!r} (a parenthesis is not closed)")
            return value
        if not token.lstrip("-").isdigit():
            raise BbhError(f"not an arithmetic expression: {expression!r} (unexpected {token!r})")
        return int(token)

    value = sum_()
    if peek() is not None:
        raise BbhError(f"not an arithmetic expression: {expression!r} (left over from token {position})")
    return value


def _arithmetic_text(rng: random.Random) -> str:
    def group() -> str:
        tokens = [str(rng.choice(OPERANDS))]
        for _ in range(ARITHMETIC_OPERANDS - 1):
            tokens += [rng.choice(OPERATORS), str(rng.choice(OPERANDS))]
        return f"({' '.join(tokens)})"

    groups = [group() for _ in range(ARITHMETIC_GROUPS)]
    joined = groups[0] + "".join(f" {rng.choice(OPERATORS)} {g}" for g in groups[1:])
    return f"({joined}) ="


def multistep_arithmetic_two(n: int, seed: int = GENERATION_SEED) -> list[BbhQuestion]:
    rng = _rng("multistep_arithmetic_two", seed)
    return [
        BbhQuestion("multistep_arithmetic_two", index, text, (), str(evaluate_arithmetic(text)))
        for index, text in enumerate(_distinct(lambda: _arithmetic_text(rng), n))
    ]


# --- web_of_lies ---------------------------------------------------------------------------------


def web_of_lies_answer(first_is_honest: bool, claims: Sequence[bool]) -> bool:
    """Whether the last person tells the truth: the first person's honesty is given (``first_is_honest``);
    each next one claims (``claims``, True: "tells the truth") something of the previous one, and is honest
    exactly when that claim is right."""
    honest = first_is_honest
    for claim in claims:
        honest = claim == honest
    return honest


def _web_text(rng: random.Random) -> tuple[str, bool]:
    people = rng.sample(NAMES, WEB_SENTENCES)
    first_is_honest = rng.choice((True, False))
    claims = [rng.choice((True, False)) for _ in people[1:]]

    def verb(truth: bool) -> str:
        return "tells the truth" if truth else "lies"

    sentences = [f"{people[0]} {verb(first_is_honest)}."]
    sentences += [
        f"{who} says {before} {verb(claim)}."
        for who, before, claim in zip(people[1:], people[:-1], claims, strict=True)
    ]
    text = f"Question: {' '.join(sentences)} Does {people[-1]} tell the truth?"
    return text, web_of_lies_answer(first_is_honest, claims)


def web_of_lies(n: int, seed: int = GENERATION_SEED) -> list[BbhQuestion]:
    rng = _rng("web_of_lies", seed)
    answers: dict[str, bool] = {}

    def one() -> str:
        text, answer = _web_text(rng)
        answers.setdefault(text, answer)
        return text

    return [
        BbhQuestion("web_of_lies", index, text, YES_NO, OPTION_LABELS[0 if answers[text] else 1])
        for index, text in enumerate(_distinct(one, n))
    ]


# --- the tasks ---------------------------------------------------------------------------------------


def _distinct(make: Callable[[], str], n: int) -> list[str]:
    """``n`` different texts from ``make``, in the order first made."""
    seen: dict[str, None] = {}
    for _ in range(n * 100):
        if len(seen) == n:
            break
        seen.setdefault(make(), None)
    if len(seen) < n:
        raise BbhError(f"could not make {n} different questions")
    return list(seen)


GENERATORS: dict[str, Callable[[int, int], list[BbhQuestion]]] = {
    "boolean_expressions": boolean_expressions,
    "multistep_arithmetic_two": multistep_arithmetic_two,
    "web_of_lies": web_of_lies,
}


def generate(task: str, n: int = POOL_SIZE, seed: int = GENERATION_SEED) -> list[BbhQuestion]:
    """``n`` different questions of the generated ``task`` (fewer when it has fewer: boolean_expressions),
    the same for the same ``n`` and ``seed``; index i is the i-th made."""
    if task not in GENERATORS:
        raise BbhError(f"{task!r} is not a generated BBH task ({', '.join(GENERATED)})")
    if n < 0:
        raise BbhError(f"cannot make {n} questions of {task}")
    return GENERATORS[task](n, seed)
