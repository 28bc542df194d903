"""The eighth round of English the formation rules read (from batch 8's misses): time phrases fronted
with "this" or "last", a subject kept after a fronted time phrase for the verb that continues it,
adverbs of repetition before a destination, a comment on the remark after a value, and an adverb of
time before a continuing verb. Each rule has a case it reads and a near miss it must leave alone. The
sentences are made up for these tests, not taken from the labelled set."""

from __future__ import annotations

from lifecycle_rules_support import pairs
from tinymemory.api import About

HOME = About("profile", "home")
ROLE = About("profile", "role")
AGE = About("profile", "age")
RELATIONSHIP = About("profile", "relationship")


def test_a_time_phrase_fronted_with_this_or_last_is_set_aside() -> None:
    assert pairs("As of this summer we're officially separated.") == [
        ("The user is separated.", RELATIONSHIP)
    ]
    assert pairs("Since last spring I work as a welder.") == [("The user works as a welder.", ROLE)]
    # a phrase that names no time is not set aside
    assert pairs("In this house I am the boss.") == []


def test_the_subject_after_a_fronted_time_phrase_carries_to_the_next_verb() -> None:
    assert ("The user lives in Tromso.", HOME) in pairs("Last year I sold the car and moved to Tromso.")
    # a subject other than the user's is not carried
    assert pairs("Last year my sister sold the car and moved to Tromso.") == []


def test_an_adverb_of_repetition_changes_no_destination() -> None:
    assert pairs("I've moved again, to Tallinn.") == [("The user lives in Tallinn.", HOME)]
    assert pairs("We moved once more to Bergen.") == [("The user lives in Bergen.", HOME)]
    assert pairs("I moved the desk again, to the window.") == []


def test_a_comment_on_the_remark_after_a_value_adds_nothing() -> None:
    assert pairs("I'm 44, if that matters for the diet.") == [("The user is 44 years old.", AGE)]
    assert pairs("I'm 44, if it helps.") == [("The user is 44 years old.", AGE)]
    assert pairs("I'm 44, if that matters to you.", notes=True) == [("The user is 44 years old.", AGE)]


def test_an_adverb_of_time_before_a_continuing_verb() -> None:
    assert pairs("I left nursing and now work as a paramedic.") == [("The user works as a paramedic.", ROLE)]
    assert pairs("I live in Derry and also work as a tutor.") == [
        ("The user lives in Derry.", HOME),
        ("The user works as a tutor.", ROLE),
    ]
    # no user before "and": nothing to continue
    assert pairs("My brother left nursing and now works as a paramedic.") == []


def test_a_coat_or_a_breed_names_a_pet_as_its_kind_does() -> None:
    assert pairs("My old tabby Biscuit is asleep on the sofa.") == [
        ("The user has a tabby named Biscuit.", About("pet", "biscuit"))
    ]
    assert pairs("Our spaniel Bramble chewed the rug.") == [
        ("The user has a spaniel named Bramble.", About("pet", "bramble"))
    ]
    # a breed without "my" or "our" is no pet of the user's
    assert pairs("The spaniel Bramble chewed the rug.") == []


def test_how_often_after_a_value_ends_it() -> None:
    drink = About("preference", "drink")
    assert pairs("I'm a huge black coffee drinker, four cups a day or so.") == [
        ("The user is a black coffee drinker.", drink)
    ]
    assert pairs("I'm a keen tea drinker, two mugs per day.") == [("The user is a tea drinker.", drink)]
    # a frequency is no value of its own
    assert pairs("Five cups a day at least.") == []


def test_an_obligation_ended_with_no_longer_withdraws_the_instruction() -> None:
    assert pairs("You no longer need to add a summary, it's fine.") == [
        ("No longer a standing instruction: add a summary.", About("instruction", "add summary"))
    ]
    # the user's own obligation is no instruction
    assert pairs("I no longer have to add a summary.") == []


def test_a_switch_to_a_way_of_answering_is_that_way() -> None:
    assert pairs("From now on, switch to answering in Spanish.") == [
        ("From now on, answer in Spanish.", About("instruction", "answer in"))
    ]
    # without a standing marker it may be this answer only
    assert pairs("Switch to answering in Spanish.") == []


def test_a_correction_restating_the_value_replaces_a_held_title() -> None:
    movie = About("preference", "movie")
    held = {movie: "The user's favourite movie is Toy Story."}
    assert pairs("No, it's Toy Story 3.", held=held) == [
        ("The user's favourite movie is Toy Story 3.", movie)
    ]
    assert pairs("Actually no, it's Up.", held=held) == [("The user's favourite movie is Up.", movie)]
    # a bare name with no "it's" may address someone; a day corrects no title
    assert pairs("Sorry Mark.", held=held) == []
    assert pairs("Actually, it's Friday.", held=held) == []


def test_a_lead_of_oops_before_a_contrast_on_a_held_age() -> None:
    age = About("profile", "age")
    held = {age: "The user is 31 years old."}
    assert pairs("Whoops, typo, I'm 13, not 31 lol.", held=held) == [("The user is 13 years old.", age)]


def test_being_at_a_named_place_while_working_there_as_a_role() -> None:
    assert pairs("Since March I'm at Monzo, working as a data analyst.") == [
        ("The user works at Monzo.", About("profile", "employer")),
        ("The user works as a data analyst.", ROLE),
    ]
    # being somewhere while working on something names no job
    assert pairs("I'm at Gatwick, working on my slides.") == []


def test_a_sentence_that_drops_the_subject_of_a_verb_of_change() -> None:
    assert pairs("Joined Monzo last week.") == [("The user works at Monzo.", About("profile", "employer"))]
    assert pairs("Finally moved to Leith, so long Glasgow.") == [("The user lives in Leith.", HOME)]
    # no note is kept of a clause whose subject was never said, and after "and" the subject is the one before
    assert pairs("Started raining here.", notes=True) == []
    assert pairs("My sister quit Initech and moved to Leeds.") == []


def test_a_switch_of_a_category_named_in_the_plural() -> None:
    editor = About("preference", "editor")
    assert pairs("I switched editors to Zed.") == [("The user prefers Zed as their editor.", editor)]
    assert pairs("Relented and switched editors: Neovim now, no going back.") == [
        ("The user prefers Neovim as their editor.", editor)
    ]
    # a plural that names no category of choice
    assert pairs("I switched trains to Leeds.") == []
    assert pairs("Red and switched editors to Vim.") == []  # "red" is no verb in the past


def test_an_addict_of_a_known_kind_prefers_it_and_of_anything_else_is_a_fan() -> None:
    assert pairs("I'm a total espresso addict.") == [
        ("The user is an espresso addict.", About("preference", "drink"))
    ]
    assert pairs("I'm a self-confessed crossword fiend.") == [
        ("The user is a fan of crossword.", About("preference", "crossword"))
    ]
    assert pairs("I'm a heavy addict.") == []  # an adjective alone names nothing


def test_an_activity_got_into_with_an_adverb_between() -> None:
    assert pairs("I've gotten seriously into bouldering.") == [
        ("The user is a fan of bouldering.", About("preference", "bouldering"))
    ]
    assert pairs("I got really into Cambridge.", notes=False) == []  # a named place is no activity


def test_a_sentence_adverb_after_the_value_comments_on_it() -> None:
    assert pairs("I'm allergic to kiwi, sadly enough.") == [
        ("The user is allergic to kiwi.", About("health", "allergy kiwi"))
    ]
    assert pairs("I'm allergic to kiwi, weirdly.") == [
        ("The user is allergic to kiwi.", About("health", "allergy kiwi"))
    ]
    # a name after a comma is capitalised and stays
    assert pairs("I have a daughter, Lily.") == [
        ("The user's daughter is Lily.", About("family", "daughter lily"))
    ]


def test_a_fronted_when_you_with_a_kind_of_answer_bounds_an_instruction() -> None:
    assert pairs("When you explain maths, always show the working.") == [
        ("Whenever you explain maths, always show the working.", About("instruction", "maths show working"))
    ]
    # a plain "when" with an event is no standing bound
    assert pairs("When you get home, text me.") == []


def test_a_proper_name_used_for_a_kind_of_output_is_the_value() -> None:
    scope = About("instruction", "use for code examples")
    assert pairs("Use Kotlin for your code examples.") == [("Use Kotlin for your code examples.", scope)]
    assert pairs("Use Swift for your code examples.") == [("Use Swift for your code examples.", scope)]
    # thanks or a subject with its verb is no imperative
    assert pairs("Thanks for your answers.") == []
    assert pairs("French would be nicer for your replies.") == []


def test_being_addressed_or_known_as_a_name_is_asking_for_it() -> None:
    name = About("profile", "name")
    assert pairs("I would prefer to be addressed as Professor Lund.") == [
        ("The user's name is Professor Lund.", name)
    ]
    assert pairs("I'd like to be known as Kit.") == [("The user's name is Kit.", name)]
    assert pairs("I would prefer to be addressed as soon as possible.") == []


def test_an_introduction_listing_an_age_and_what_the_user_is_doing() -> None:
    assert pairs("hey, I'm Ines, 34, working as a midwife") == [
        ("The user's name is Ines.", About("profile", "name")),
        ("The user is 34 years old.", AGE),
        ("The user works as a midwife.", ROLE),
    ]
    assert pairs("Hi I'm Ola, 29, living in Turku rn") == [
        ("The user's name is Ola.", About("profile", "name")),
        ("The user is 29 years old.", AGE),
        ("The user lives in Turku.", HOME),
    ]
    # what is not said of the user in the list is left
    assert pairs("Hi, I'm Ola, nice to meet you.") == [("The user's name is Ola.", About("profile", "name"))]


def test_a_birthday_said_as_a_relative_turning_an_age_or_after_it_is() -> None:
    assert pairs("My daughter Bea turns nine on 2 March.") == [
        ("The user's daughter Bea's birthday is 2 March.", About("date", "daughter bea birthday")),
        ("The user's daughter is Bea.", About("family", "daughter bea")),
    ]
    assert pairs("It's my mum Rosa's birthday on 5 July.") == [
        ("The user's mum Rosa's birthday is 5 July.", About("date", "mom rosa birthday")),
        ("The user's mum is Rosa.", About("family", "mother")),
    ]
    # turning an age on a day of the week is an event, not the day a birthday comes round on
    assert all(about is None for _, about in pairs("My son turns six on Friday."))


def test_a_relative_clause_on_the_statement_is_a_comment() -> None:
    assert pairs("I'm gluten intolerant, which makes eating out hard.") == [
        ("The user is intolerant to gluten.", About("health", "intolerance gluten"))
    ]
    # a restrictive relative clause (no comma) belongs to its noun and is left to the rules
    assert pairs("I work at a firm which makes boats.") == [
        ("The user works at a firm.", About("profile", "employer"))
    ]


def test_everywhere_after_a_value_is_where_it_holds_not_part_of_it() -> None:
    assert pairs("I prefer light mode everywhere.") == [
        ("The user prefers light mode.", About("preference", "theme"))
    ]
    assert pairs("I live everywhere.") == []


def test_a_described_workplace_after_a_role_is_named_by_what_it_is_called() -> None:
    assert pairs("I'm a chef at a tiny bistro called Olive.") == [
        ("The user works as a chef.", ROLE),
        ("The user works at Olive.", About("profile", "employer")),
    ]
    # a workplace described and not named gives the role alone
    assert pairs("I'm a chef at a tiny bistro.") == [("The user works as a chef.", ROLE)]


def test_several_pets_of_a_kind_added_to_the_list_counted_then_named() -> None:
    assert pairs("Plus two fat rabbits, Bun and Flop.") == [
        ("The user has a rabbit named Bun.", About("pet", "bun")),
        ("The user has a rabbit named Flop.", About("pet", "flop")),
    ]
    # people or made things counted and named are no pets
    assert pairs("And two sisters, Ana and Eva.") == []
    assert pairs("And two cars, Herbie and Kitt.") == []
