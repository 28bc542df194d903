"""The ninth round of English the formation rules read (from batch 9's misses): titles of address in
a name, introductions closed by a greeting formula, the name asked for after "but", time points fronted
with "as of", gerund clauses fronted with "since", a fronted duration before a perfect, posts held at a
named organisation, allergies and pregnancies with a measure, one subject for a noun in either number,
one spelling for a parent's birthday, relatives described or named in apposition before a birth date,
and clauses cut before a new time adverb or another person's clause. Each rule has a case it reads and
a near miss it must leave alone. The sentences are made up for these tests, not taken from the
labelled set."""

from __future__ import annotations

from lifecycle_rules_support import pairs
from tinymemory.api import About

NAME = About("profile", "name")
HOME = About("profile", "home")
ROLE = About("profile", "role")
EMPLOYER = About("profile", "employer")
RELATIONSHIP = About("profile", "relationship")


def test_a_title_of_address_stays_in_the_name() -> None:
    assert pairs("My name is Prof. Ines Duarte.") == [("The user's name is Prof. Ines Duarte.", NAME)]
    assert pairs("Call me Dr. Okafor.") == [("The user's name is Dr. Okafor.", NAME)]
    # a titled name that is not the user's is no name of the user's
    assert all(about != NAME for _, about in pairs("Dr. Okafor is my GP."))


def test_chat_drops_the_article_of_the_names() -> None:
    assert pairs("Name's Tomasz, by the way.") == [("The user's name is Tomasz.", NAME)]
    assert pairs("Name's not important.") == []


def test_an_introduction_may_close_on_a_greeting_formula() -> None:
    assert pairs("I'm Maren Holt, pleased to meet you.") == [("The user's name is Maren Holt.", NAME)]
    # a surname that ends like a nationality is still a name; a nationality alone is not
    assert pairs("I am Ruth Welch.") == [("The user's name is Ruth Welch.", NAME)]
    assert pairs("I'm Scottish, nice to meet you.") == []
    # a comma and anything else after the name is not an introduction
    assert all(about != NAME for _, about in pairs("I'm Tom, nice weather today."))


def test_the_name_asked_for_after_but_is_the_one_used() -> None:
    assert pairs("I'm Bartholomew but please call me Bart.") == [("The user's name is Bart.", NAME)]
    assert pairs("I'm Josephine but just call me Jo.") == [("The user's name is Jo.", NAME)]
    # what someone else calls the user is no request: the name given stands
    assert pairs("I'm Samuel but my gran calls me Sammy.") == [("The user's name is Samuel.", NAME)]


def test_a_time_point_fronted_with_as_of_is_set_aside() -> None:
    assert pairs("As of Monday we're engaged.") == [("The user is engaged.", RELATIONSHIP)]
    assert pairs("As of this month I'm a sous chef at Nopi.") == [
        ("The user works as a sous chef.", ROLE),
        ("The user works at Nopi.", EMPLOYER),
    ]
    # "as of" without a time is no time phrase
    assert pairs("As of yet we are not sure.") == []


def test_a_gerund_clause_fronted_with_since_dates_what_follows() -> None:
    assert pairs("Since cutting out caffeine I don't get headaches anymore.") == [
        ("The user no longer has headaches.", About("health", "condition headaches"))
    ]
    assert pairs("Since moving to Hove I've been sleeping badly.") == []


def test_a_fronted_duration_reads_the_perfect_as_a_state() -> None:
    assert pairs("Since 2021 I've been a sommelier at Hakkasan.") == [
        ("The user works as a sommelier.", ROLE),
        ("The user works at Hakkasan.", EMPLOYER),
    ]
    # without a duration the perfect is experience, not a state
    assert pairs("I've been a sommelier at Hakkasan.") == []


def test_a_post_at_a_named_organisation_is_a_job_whatever_its_ending() -> None:
    assert pairs("I'm a paralegal at Slaughter and May.") == [
        ("The user works as a paralegal.", ROLE),
        ("The user works at Slaughter and May.", EMPLOYER),
    ]
    # a customer's or a member's relation to a place is no post there
    assert pairs("I'm a regular at Bar Termini.") == []
    # without a named organisation a noun of that ending is not read as a job
    assert pairs("I'm a paralegal.") == []


def test_an_allergy_had_since_a_time_and_a_pregnancy_with_a_measure() -> None:
    assert pairs("I've had a sesame allergy since I was six.") == [
        ("The user is allergic to sesame.", About("health", "allergy sesame"))
    ]
    assert pairs("I'm 12 weeks pregnant.") == [
        ("The user is 12 weeks pregnant.", About("health", "condition pregnant"))
    ]
    # a past perfect without a lasting time is no state now
    assert pairs("I've had a sesame bagel.") == []


def test_a_noun_said_again_in_the_other_number_is_the_subject_held() -> None:
    held = {About("health", "allergy cashew"): "The user is allergic to cashew."}
    assert pairs("I'm no longer allergic to cashews.", held=held) == [
        ("The user is no longer allergic to cashews.", About("health", "allergy cashew"))
    ]
    held = {About("health", "allergy strawberries"): "The user is allergic to strawberries."}
    assert pairs("I have a strawberry allergy.", held=held) == [
        ("The user is allergic to strawberry.", About("health", "allergy strawberries"))
    ]
    # a different noun keeps its own subject
    assert pairs("I'm allergic to cats.", held=held) == [
        ("The user is allergic to cats.", About("health", "allergy cats"))
    ]


def test_a_parent_s_birthday_has_one_subject_however_the_parent_is_called() -> None:
    mom = About("date", "mom birthday")
    assert pairs("My mother's birthday is 9 March.") == [("The user's mother's birthday is 9 March.", mom)]
    assert pairs("Mum's birthday is 9 March.") == [("The user's mum's birthday is 9 March.", mom)]
    assert pairs("Dad was born on 4 June.") == [
        ("The user's dad's birthday is 4 June.", About("date", "dad birthday"))
    ]
    # someone named, not a relative, keeps their name
    assert pairs("Omar's birthday is 9 March.") == [
        ("Omar's birthday is 9 March.", About("date", "omar birthday"))
    ]


def test_a_relative_described_or_named_in_apposition_before_a_birth_date() -> None:
    assert pairs("My mum, Odile, was born on 8 May.") == [
        ("The user's mum's birthday is 8 May.", About("date", "mom birthday")),
        ("The user's mum is Odile.", About("family", "mother")),
    ]
    assert pairs("My baby sister Noor turns 16 on 2 April.") == [
        ("The user's sister Noor's birthday is 2 April.", About("date", "sister noor birthday")),
        ("The user's sister is Noor.", About("family", "sister noor")),
    ]
    # a friend is not a relative
    assert pairs("My friend Noor was born on 2 April.") == []


def test_a_clause_is_cut_before_a_time_adverb_and_before_another_person_s_clause() -> None:
    assert ("The user lives in Gdansk.", HOME) in pairs("I grew up in Lodz, but nowadays I'm in Gdansk.")
    assert pairs("My brother Piet's birthday is 3 June, and he'll sulk if I forget.") == [
        ("The user's brother Piet's birthday is 3 June.", About("date", "brother piet birthday")),
        ("The user's brother is Piet.", About("family", "brother piet")),
    ]
    # another person's clause yields nothing of the user's
    assert pairs("I live in Leeds, and she lives in York.") == [("The user lives in Leeds.", HOME)]


def test_the_language_of_answering_named_is_every_answer_s() -> None:
    assert pairs("Please reply in Portuguese again.") == [
        ("Reply in Portuguese.", About("instruction", "reply in"))
    ]
    # a request about the answer at hand, or the user's own habit, is no standing instruction
    assert pairs("Answer in French this time.") == []
    assert all(f is None or f.kind != "instruction" for _, f in pairs("I answer in French at work."))


def test_an_imperative_of_the_conventions_answers_are_written_in_stands() -> None:
    assert pairs("Stick to imperial units, please.") == [
        ("Stick to imperial units.", About("instruction", "stick imperial units"))
    ]
    assert pairs("Write times as 24-hour clock.") == [
        ("Write times as 24-hour clock.", About("instruction", "write times as 24 hour clock"))
    ]
    # examples after a colon are no part of it
    assert pairs("Use American spelling: color, not colour.") == [
        ("Use American spelling.", About("instruction", "use spelling"))
    ]
    # units of a thing at hand are no convention
    assert pairs("Use the units on the label.") == []


def test_answers_in_general_fronted_scope_the_imperative() -> None:
    assert pairs("At the end of long replies, list the sources.") == [
        ("List the sources at the end of long replies.", About("instruction", "list sources"))
    ]
    # a fronted phrase about something else scopes nothing
    assert pairs("At the end of the day, list the sources.") == []


def test_a_bare_plural_or_any_names_every_answer() -> None:
    assert pairs("Keep replies brief.") == [("Keep replies brief.", About("instruction", "keep replies"))]
    assert pairs("Sign off any emails with 'Best'.") == [
        ("Sign off any emails with 'Best'.", About("instruction", "sign off emails"))
    ]
    # "the answer" is the one at hand
    assert pairs("Keep the answer brief.") == []


def test_an_instruction_dropped_by_its_noun_in_the_other_number() -> None:
    known = {"instruction give me one line summary": About("instruction", "give me one line summary")}
    assert pairs("No need for the summaries anymore.", known=known) == [
        ("No longer a standing instruction: summaries.", About("instruction", "give me one line summary"))
    ]
    # with nothing held of that noun, nothing is dropped
    assert pairs("No need for the tables anymore.", known=known) == []


def test_leads_of_news_and_of_telling_are_set_aside() -> None:
    assert pairs("The good news is that we've moved to Bath.") == [("The user lives in Bath.", HOME)]
    assert pairs("I forgot to mention: we moved to Bath.") == [("The user lives in Bath.", HOME)]
    # news that is someone else's is still theirs
    assert pairs("The big news is my sister moved to Bath.") == []


def test_an_emphatic_reflexive_adds_nothing_to_a_predicate() -> None:
    assert pairs("I'm a midwife myself.") == [("The user works as a midwife.", ROLE)]
    assert pairs("I painted it myself.") == []


def test_an_age_reached_with_the_subject_dropped() -> None:
    assert pairs("Turned 41 on Sunday.") == [("The user is 41 years old.", About("profile", "age"))]
    assert pairs("Turned the corner on Sunday.") == []


def test_twins_one_has_are_children_and_their_age_after_a_comma_is_theirs() -> None:
    assert pairs("I have twins, Ada and Max, they're four.") == [
        ("The user's child is Ada.", About("family", "child ada")),
        ("The user's child is Max.", About("family", "child max")),
    ]
    # "my twin" is a sibling
    assert pairs("My twin Ola lives in Oslo.") == [("The user's twin is Ola.", About("family", "twin ola"))]


def test_a_favourite_without_my_and_one_subject_for_film_and_movie() -> None:
    movie = About("preference", "movie")
    assert pairs("Favourite film has to be Heat.") == [("The user's favourite film is Heat.", movie)]
    assert pairs("Heat is my favourite movie.") == [("The user's favourite movie is Heat.", movie)]
    # an obligation of someone else's is no favourite, and "would" stays a hypothetical
    assert pairs("My favourite film would be Heat.") == []


def test_a_hedge_of_opinion_asserts_the_clause_it_frames() -> None:
    assert pairs("These days I'd say Heat is my favourite film.") == [
        ("The user's favourite film is Heat.", About("preference", "movie"))
    ]
    assert pairs("I'd say it's fine.") == []


def test_a_fan_with_the_i_m_a_dropped_and_a_comment_after_a_kind_of_person() -> None:
    assert pairs("Huge Radiohead fan, I've seen them twice.")[0] == (
        "The user is a fan of Radiohead.",
        About("preference", "radiohead"),
    )
    assert pairs("I'm a cortado person, no sugar.") == [
        ("The user is a cortado person.", About("preference", "cortado"))
    ]
    # an intensifier with no kind of person after it names nothing
    assert pairs("Huge day today.") == []


def test_a_list_introduced_as_about_the_user() -> None:
    assert pairs("A few facts about me: 52, live in Turin, sous chef at Eataly.") == [
        ("The user is 52 years old.", About("profile", "age")),
        ("The user lives in Turin.", HOME),
        ("The user works as a sous chef.", ROLE),
        ("The user works at Eataly.", EMPLOYER),
    ]
    # a list about something else says nothing of the user
    assert pairs("Facts about Turin: 52, big, old.") == []


def test_being_back_at_a_dwelling_is_living_there() -> None:
    assert pairs("We're back at my gran's house in Cork.") == [("The user lives in Cork.", HOME)]
    # a hotel is no dwelling of the user's
    assert all(about != HOME for _, about in pairs("I'm back at the hotel in Rome."))


def test_the_post_a_promotion_led_to_after_so() -> None:
    assert pairs("I got promoted in May, so head chef now.") == [("The user works as a head chef.", ROLE)]
    assert all(about != ROLE for _, about in pairs("I got promoted, so we celebrated."))


def test_reacting_to_a_substance_in_general_is_an_allergy() -> None:
    assert pairs("I react badly to latex, it's a real allergy.")[0] == (
        "The user is allergic to latex.",
        About("health", "allergy latex"),
    )
    # a reaction to something at hand, or one in the past, is no allergy
    assert all(f is None or f.kind != "health" for _, f in pairs("I react badly to the news."))
    assert all(f is None or f.kind != "health" for _, f in pairs("I reacted to penicillin once."))


def test_a_name_given_with_the_one_it_shortens() -> None:
    assert pairs("it's Mo btw, short for Mohammed") == [("The user's name is Mo.", NAME)]
    # a name pointed at is someone else's
    assert all(about != NAME for _, about in pairs("That's Rob, short for Robert, my brother."))


def test_letters_listed_in_a_name_spelled_out_correct_the_held_name() -> None:
    held = {NAME: "The user's name is Katrin."}
    assert pairs("It's Catrin, with a C and an i.", held=held) == [("The user's name is Catrin.", NAME)]
    # with no name held, spelling corrects nothing
    assert pairs("It's Catrin, with a C and an i.") == []


def test_a_divorce_completed_said_of_the_divorce() -> None:
    assert pairs("We split in May and the divorce came through last week.")[-1] == (
        "The user is divorced.",
        RELATIONSHIP,
    )
    assert pairs("My brother's divorce went through.") == []
    assert pairs("The divorce went badly.") == []


def test_a_convention_set_against_another_with_no_verb() -> None:
    assert pairs("And Australian spelling, not American.") == [
        ("Use Australian spelling.", About("instruction", "use spelling"))
    ]
    assert pairs("Imperial units, not metric.") == [
        ("Use imperial units.", About("instruction", "use imperial units"))
    ]
    assert pairs("British food, not American.") == []


def test_pets_added_after_a_named_creature_of_any_kind() -> None:
    assert pairs("I keep a corn snake named Noodle and two geckos, Pip and Squeak.") == [
        ("The user has a corn snake named Noodle.", About("pet", "noodle")),
        ("The user has a gecko named Pip.", About("pet", "pip")),
        ("The user has a gecko named Squeak.", About("pet", "squeak")),
    ]
    # relatives after "and" are not pets
    assert pairs("I keep a corn snake named Noodle and two sisters, Ann and Bea.") == [
        ("The user has a corn snake named Noodle.", About("pet", "noodle"))
    ]


def test_living_somewhere_with_a_named_creature_and_the_subject_dropped() -> None:
    assert pairs("Living in Hove with an iguana called Gus.") == [
        ("The user lives in Hove.", HOME),
        ("The user has an iguana named Gus.", About("pet", "gus")),
    ]
    # a person lived with is no pet, and a participle of anything else keeps nothing
    assert pairs("I live in Hove with a flatmate called Gus.") == [("The user lives in Hove.", HOME)]
    assert pairs("Living the dream.") == []


def test_a_sibling_s_baby_is_a_nephew_or_a_niece() -> None:
    assert pairs("My brother Kofi just had a baby girl, Ama!") == [
        ("The user's brother is Kofi.", About("family", "brother kofi")),
        ("The user's niece is Ama.", About("family", "niece ama")),
    ]
    # a friend's baby is no relative
    assert all(f is None or f.kind != "family" for _, f in pairs("My friend Kofi just had a baby girl, Ama!"))


def test_a_known_condition_with_an_additive_and_no_verb() -> None:
    assert pairs("Eczema too, every winter.") == [
        ("The user has eczema.", About("health", "condition eczema"))
    ]
    # a thing that is no condition names nothing
    assert pairs("Cats too, every winter.") == []


def test_an_activity_kept_to_a_schedule_is_the_activity() -> None:
    assert pairs("I play squash every Tuesday evening.") == [
        ("The user plays squash every Tuesday evening.", About("preference", "squash"))
    ]
    assert pairs("I go rowing twice a week.") == [
        ("The user goes rowing twice a week.", About("preference", "rowing"))
    ]
    # going to a place on a schedule is no activity kept
    assert all(about is None for _, about in pairs("I go to work every day."))


def test_an_adverb_before_a_negated_activity_is_no_part_of_it() -> None:
    assert pairs("I don't really play squash anymore.") == [
        ("The user no longer plays squash.", About("preference", "squash"))
    ]


def test_an_imperative_joined_to_getting_to_the_point_is_about_every_answer() -> None:
    assert pairs("Cut the small talk and get right to the point.") == [
        ("Cut the small talk and get right to the point.", About("instruction", "cut small talk"))
    ]
    # this once, or getting anywhere else, is no manner of answering
    assert pairs("Skip the intro this time and get to the point.") == []
    assert pairs("Skip the queue and get to the front.") == []
