"""Text Pictionary's checks and pool: the guess check, the reveal check, the guesser's reply, the entity pool."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from debate_core.config import Question
from debate_core.errors import ConfigError
from debate_core.kernel.forms import FormInvalid
from protocols.handraiser.pictionary.entities import find, pool, secret_of
from protocols.handraiser.pictionary.forms import Move, parse_move
from protocols.handraiser.pictionary.matching import complete_words, guessed, normalise, revealed


@pytest.mark.parametrize(
    ("guess", "secret", "aliases"),
    [
        ("An Alarm Clock!", "alarm clock", ()),
        ("the alarm-clocks", "alarm clock", ()),
        ("Alarmclock", "alarm clock", ()),
        ("alarm", "alarm clock", ("alarm",)),
        ("BUTTERFLIES", "butterfly", ()),
        ("mice", "mouse", ()),
        ("knives", "knife", ()),
        ("scissor", "scissors", ()),
        ("It's a giraffe.", "giraffe", ()),
        ("my guess is the lighthouse", "lighthouse", ()),
        ("is it a bike?", "bicycle", ("bike",)),
        ("Ice-cream", "ice cream", ()),
        ("TV", "television", ("tv",)),
        ("Éclair", "éclair", ()),
    ],
)
def test_a_guess_names_the_secret_whatever_its_case_article_plural_spacing_or_alias(guess, secret, aliases):
    assert guessed(guess, secret, aliases)


@pytest.mark.parametrize(
    ("guess", "secret", "aliases"),
    [
        ("clock", "alarm clock", ("alarm",)),
        ("an alarm clock radio", "alarm clock", ()),
        ("alarm clock or a watch", "alarm clock", ()),
        ("snail", "snake", ()),
        ("", "snake", ()),
        ("the", "theatre", ()),
        ("cat", "catapult", ()),
    ],
)
def test_a_guess_that_names_something_else_or_only_part_of_it_does_not_count(guess, secret, aliases):
    assert not guessed(guess, secret, aliases)


def test_normalising_drops_lead_ins_articles_punctuation_and_keeps_a_bare_article():
    assert normalise("  I think it's   an Owl's nest! ") == "owls nest"
    assert normalise("the") == "the"


@pytest.mark.parametrize(
    ("text", "secret", "aliases", "said"),
    [
        ("It wakes you with an ALARM clock sound", "alarm clock", (), "ALARM clock"),
        ("Two alarm-clocks ring", "alarm clock", (), "alarm-clocks"),
        ("It rings when the alarm goes off", "alarm clock", ("alarm",), "alarm"),
        ("Think of a Bicycle's bell", "bicycle", (), "Bicycle"),
        ("A herd of mice", "mouse", (), "mice"),
        ("Butterflies flutter", "butterfly", (), "Butterflies"),
    ],
)
def test_the_describer_reveals_the_secret_by_saying_it_or_an_alias_as_a_word_in_any_case_or_plural(
    text, secret, aliases, said
):
    assert revealed(text, secret, aliases) == said


@pytest.mark.parametrize(
    ("text", "secret", "aliases"),
    [
        ("An alarming sound wakes you", "alarm clock", ("alarm",)),
        ("It has a clock face", "alarm clock", ()),
        ("A catapult throws stones", "cat", ()),
        ("The bees buzz", "beet", ()),
        ("It starts with the letters S, N, A", "snake", ()),
    ],
)
def test_a_word_that_only_contains_the_secret_or_a_part_of_it_does_not_reveal_it(text, secret, aliases):
    assert revealed(text, secret, aliases) is None


def test_only_whole_words_are_checked_while_a_description_is_still_being_said():
    assert complete_words("It rings, an alarm") == "It rings, an "  # "alarm" may go on as "alarming"
    assert complete_words("It rings, an alarm ") == "It rings, an alarm "
    assert complete_words("It rings.") == "It rings."
    assert complete_words("alarm") == ""


@pytest.mark.parametrize(
    ("raw", "move"),
    [
        ("Guess: alarm clock", Move("guess", "alarm clock")),
        ("guess - an owl.", Move("guess", "an owl")),
        ("I have an idea.\nGuess: lamp", Move("guess", "lamp")),
        ("Question: Is it alive?", Move("question", "Is it alive?")),
        ('{"guess": "kite"}', Move("guess", "kite")),
        ('{"question": "Is it big?"}', Move("question", "Is it big?")),
        ("Is it something you eat?", Move("question", "Is it something you eat?")),
        ("A lighthouse.", Move("guess", "A lighthouse")),
    ],
)
def test_the_guessers_reply_is_read_as_a_guess_or_a_question(raw, move):
    assert parse_move(raw) == move


RAMBLING = "I am not sure what this is, it could be many different things really"


@pytest.mark.parametrize("raw", ["", "   ", RAMBLING, "{}"])
def test_a_reply_that_is_neither_is_invalid(raw):
    with pytest.raises(FormInvalid):
        parse_move(raw)


def test_the_pool_has_at_least_100_entities_with_source_licence_and_unique_names():
    data = json.loads((resources.files("protocols.handraiser.pictionary") / "entities.json").read_text("utf-8"))
    assert "source" in data and "MIT" in data["licence"] and data["filtered"].startswith("no")
    entities = pool()
    assert len(entities) >= 100
    names = [normalise(name) for entity in entities for name in (entity.name, *entity.aliases)]
    assert len(names) == len(set(names)), "an entity or alias names two entities"
    assert all(entity.category for entity in entities)
    for entity in entities:  # no entity's name hides another's (the describer could not describe it)
        others = [o for o in entities if o is not entity]
        assert not any(revealed(o.name, entity.name, entity.aliases) for o in others), entity.name


def test_the_secret_is_the_questions_answer_with_the_pools_aliases_or_a_multiple_choice_questions_option():
    secret = secret_of(Question(text="Text Pictionary", answer="Television"), ("telly box",))
    assert (secret.entity, secret.answer, secret.category) == ("Television", "Television", "object")
    assert secret.aliases == ("tv", "telly", "telly box")
    chosen = secret_of(Question(text="Which gas?", options=("Oxygen", "Nitrogen."), answer="B"))
    assert (chosen.entity, chosen.answer, chosen.aliases) == ("Nitrogen", "B", ())
    assert find("bike") is not None and find("bike").name == "bicycle"
    with pytest.raises(ConfigError, match="secret entity"):
        secret_of(Question(text="No answer"))
