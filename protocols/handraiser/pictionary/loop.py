"""Text Pictionary's loop: each round a description heard chunk by chunk, then a guess or a question.

What it does: ``game(g)`` drives one game over a ``Game`` (the run state,
``state``) and yields its events, ending with ``table.finish``:

1. Each round the describer describes the secret (``describe``). The
   description is generated whole (a streamed speaker would produce the same
   text), cut into chunks of ``chunk_tokens`` tokens of the describer's
   tokenizer and disclosed one chunk per turn. After every chunk the reveal
   check runs on the whole words said so far (``matching.revealed``); after
   every chunk but the last the guesser decides under the variant's policy
   (``Table.decide``), and a yes cuts the describer off (``cut(keep=
   "discard")``: the rest is never said).
2. A description that said the secret or an alias, in any of its forms,
   ends the game at once (reason ``early_exit``, phase ``revealed`` naming
   the word): no answer, reward 0; nothing more is disclosed.
3. Otherwise the guesser guesses or asks a question (``guess``), said in
   public. A guess that names the secret (``matching.guessed``) ends the
   game (reason ``verdict``) with the question's answer, scored correct.
4. After ``max_rounds`` without a right guess the game ends (reason
   ``rounds``) with no answer, a failure.

Policies (the variant, as in the debate: HandRaiser's ``state.policy_for``):
``generic`` and ``concise`` never interrupt (``concise`` asks the describer
to be brief), ``random`` one random chunk boundary per description,
``prompted``/``learned`` the one-token ``listen`` form, ``threshold`` P(Yes)
>= ``tau``, ``human`` the person's Interrupt button.

What it does not do: keep the run state (``state``), word or parse anything
(``prompts/``, ``forms``), or count costs (HandRaiser's ``cost`` folds them
from the events).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from typing import Any

from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.chunkers import WholeMessage
from debate_core.kernel.endings import FinalDecision
from debate_core.kernel.floor import Floor
from debate_core.kernel.policies import NeverPolicy
from protocols.handraiser.pictionary.forms import Move
from protocols.handraiser.pictionary.matching import complete_words, guessed, revealed
from protocols.handraiser.pictionary.state import Game
from protocols.handraiser.pictionary.views import CUT_MARK, PictionaryView
from protocols.handraiser.views import record_line, said_prefix


def describe(g: Game) -> Generator[Event, None, None]:
    """The describer's description, chunk by chunk, with the reveal check and the guesser's decisions."""
    table, secret = g.table, g.secret
    table.tick()
    g.cut = False
    said = table.say(g.describer, g.ask(g.forms.describe, g.describer), chunker=g.chunker(g.describer),
                     kind="description", role="describer")  # fmt: skip
    yield said
    floor = table.holder
    if floor is None:
        return
    nobody_listens = isinstance(g.policy, NeverPolicy)

    def listen(floor: Floor) -> Generator[Event, None, bool]:
        """After a chunk: the reveal check on the whole words said, then the guesser's decision."""
        partial = said_prefix(said.text, floor.units, floor.disclosed)
        g.revealed = revealed(complete_words(partial), secret.entity, secret.aliases)
        if g.revealed is not None:
            return True  # the game ends at once: nothing more is said
        if nobody_listens:
            return False
        shown = g.view(g.guesser, partial=partial)
        decided = table.decide([g.guesser], floor, g.policy, _fixed(shown))
        yield decided[g.guesser]
        if not decided[g.guesser].interrupt:
            return False
        yield table.cut(g.guesser, keep="discard", floor=floor)
        g.cut = True
        g.transcript.append(record_line("Describer", partial, cut=True, mark=CUT_MARK))
        return True

    if (yield from table.disclose_rest(floor, one_per_turn=True, listen=listen)):
        return
    g.revealed = revealed(said.text, secret.entity, secret.aliases)
    g.transcript.append(record_line("Describer", said.text))


def guess(g: Game) -> Generator[Event, None, Move]:
    """The guesser's guess or question, said in public; the move (an empty one: none)."""
    table = g.table
    table.tick()
    reply = g.ask(g.forms.guess, g.guesser)
    move: Move = reply.value
    structured: dict[str, Any] | None = {move.kind: move.text} if move.text else None
    yield table.say(g.guesser, reply.with_value(move.words), chunker=WholeMessage(), kind=move.kind, role="guesser",
                    structured=structured)  # fmt: skip
    yield from table.disclose_rest(table.holder)
    if move.text:
        g.transcript.append(record_line("Guesser", move.words))
    return move


def _fixed(view: PictionaryView) -> Callable[[str], PictionaryView]:
    return lambda agent: view


def game(g: Game) -> Iterator[Event]:
    table, params = g.table, g.params
    yield table.phase("game", detail=f"the describer describes a secret entity; {params.max_rounds} rounds at most")
    for round_ in range(1, params.max_rounds + 1):
        g.round = round_
        yield table.phase("round", round_)
        yield from describe(g)
        if g.revealed is not None:
            yield table.phase("revealed", round_, detail=f"the describer said {g.revealed!r}: the game ends, reward 0")
            yield table.finish(EndReason.EARLY_EXIT, decision(g))
            return
        move = yield from guess(g)
        if move.kind == "guess" and move.text and guessed(move.text, g.secret.entity, g.secret.aliases):
            yield table.update_answers({g.guesser: g.secret.answer}, cause="guessed")
            yield table.finish(EndReason.VERDICT, decision(g))
            return
    yield table.finish(EndReason.ROUNDS, decision(g))


def decision(g: Game) -> FinalDecision:
    """The guesser's answer (the secret's, once guessed; else none) is the game's."""
    table = g.table
    return FinalDecision(table.answers.get(g.guesser), "single", table.answer_list(), decided_by=g.guesser)
