"""The tenth round of English the formation rules read (from batch 10's misses): encouragement that is no
instruction, refusals and scopes of every answer, clauses cut before consequences and comments, asides,
hedges, pictographs and slips of typing, subjects chat drops (diets, likings, births, states), treatments
and diagnoses, greetings with a name, corrections read against what the thread holds, relatives and pets
as chat names them, and what "it's ... now" names after a liking given up. Each rule has a case it reads
and a near miss it must leave alone. The sentences are made up for these tests, not taken from the
labelled set."""

from __future__ import annotations

from lifecycle_rules_support import pairs
from tinymemory.api import About
from tinymemory.lifecycle.rules import clauses

HOME = About("profile", "home")
DIET = About("health", "diet")


def _instructions(text: str) -> list[tuple[str, About | None]]:
    return [(t, a) for t, a in pairs(text) if a is not None and a.kind == "instruction"]


def test_keep_them_coming_is_encouragement_not_an_instruction() -> None:
    assert pairs("Keep answers coming.") == []
    assert pairs("Keep the replies coming, this is great.") == []
    assert pairs("Keep 'em rolling!") == []
    # the same verb with a manner is an order about every answer
    assert pairs("Keep answers short.") == [("Keep answers short.", About("instruction", "keep answers"))]


def test_a_negative_imperative_on_a_plural_may_say_where_it_goes() -> None:
    assert pairs("Please don't add footnotes to the summaries.") == [
        ("Never add footnotes to the summaries.", About("instruction", "add footnotes"))
    ]
    assert pairs("Don't use hashtags in anything you write for me.") == [
        ("Never use hashtags in anything you write for the user.", About("instruction", "use hashtags"))
    ]
    # a thing at hand is no standing refusal
    assert pairs("Don't add those footnotes to the summary.") == []


def test_a_plural_left_out_is_a_standing_never() -> None:
    assert pairs("Leave out the caveats when I ask about tax.") == [
        ("Never include caveats.", About("instruction", "include caveats"))
    ]
    assert pairs("Omit the citations, please.") == [
        ("Never include citations.", About("instruction", "include citations"))
    ]
    # this once, or a thing in the singular, is a request about the answer at hand
    assert pairs("Skip the citations this time.") == []
    assert pairs("Leave out the intro.") == []


def test_a_kind_of_output_fronted_with_for_is_the_subject() -> None:
    assert pairs("For code samples, stick to Kotlin please.") == [
        ("For code samples, stick to Kotlin.", About("instruction", "code samples stick"))
    ]
    later = _instructions("For code samples, use Swift.")
    assert later == [("For code samples, use Swift.", About("instruction", "code samples use"))]
    assert pairs("For any letters you write for me, close with 'Best, Ana'.") == [
        ("For letters, close with 'Best, Ana'.", About("instruction", "letters close with"))
    ]
    # a fronted "for" before the user's own clause is no imperative
    assert _instructions("For recipes, I mostly use my gran's book.") == []


def test_the_tone_of_answers_kept_or_made_is_every_answer_s() -> None:
    assert pairs("Keep the tone warm but not gushing.") == [
        ("Keep the tone warm but not gushing.", About("instruction", "keep tone"))
    ]
    assert _instructions("Keep the tone formal.")[0][1] == About("instruction", "keep tone")
    # the tone of something else, said by the user, is no instruction
    assert _instructions("The tone of the meeting was tense.") == []


def test_an_answering_language_after_a_comma_and_a_convention_with_an_example() -> None:
    assert pairs("That was hard to follow, reply in German again please.")[-1] == (
        "Reply in German.",
        About("instruction", "reply in"),
    )
    assert pairs("Write times in 24-hour format please, 13:00 not 1pm.") == [
        ("Write times in 24-hour format.", About("instruction", "write times in"))
    ]
    # "reply" after a comma without a language is the user's own clause's business
    assert _instructions("I read it, reply when you can.") == []


def test_a_consequence_with_its_own_subject_is_cut_off() -> None:
    assert pairs("I live in Derby so it rains a lot.") == [("The user lives in Derby.", HOME)]
    assert pairs("I'm allergic to sesame, so keep that in mind.") == [
        ("The user is allergic to sesame.", About("health", "allergy sesame"))
    ]
    # a diet concluded after "so" is still the clause's conclusion
    assert pairs("I eat eggs but no meat, so vegetarian, really.") == [("The user is vegetarian.", DIET)]


def test_a_comment_after_a_comma_is_cut_off_but_a_day_after_it_is_kept() -> None:
    assert clauses("I love opera, it's so dramatic") == ["I love opera", "it's so dramatic"]
    assert clauses("Call me Zee, nobody uses my full name") == ["Call me Zee", "nobody uses my full name"]
    # the pet named in the comment is the one the clause before introduced
    assert pairs("We got a puppy, it's called Olive.") == [
        ("The user has a puppy named Olive.", About("pet", "olive"))
    ]
    assert pairs("My birthday's coming up, it's 2 June.") == [
        ("The user's birthday is 2 June.", About("profile", "birthday"))
    ]


def test_a_sentence_adverb_inside_a_list_and_a_preposition_said_again() -> None:
    assert pairs("I'm allergic to latex and, oddly, to kiwi.") == [
        ("The user is allergic to latex.", About("health", "allergy latex")),
        ("The user is allergic to kiwi.", About("health", "allergy kiwi")),
    ]


def test_a_period_of_life_ends_a_value() -> None:
    assert pairs("I was diagnosed with eczema in my teens.") == [
        ("The user has eczema.", About("health", "condition eczema"))
    ]


def test_a_diet_said_without_its_subject_and_verb() -> None:
    assert pairs("Pescatarian here, have been for years.") == [("The user is pescatarian.", DIET)]
    assert pairs("vegetarian for 5 yrs now") == [("The user is vegetarian.", DIET)]
    ended = [("The user is no longer vegetarian.", DIET)]
    assert pairs("Ate a burger on Friday, not vegetarian anymore.") == ended
    assert pairs("I eat fish again, so pescatarian now I guess.") == [("The user is pescatarian.", DIET)]
    assert pairs("I only eat kosher.") == [("The user is kosher.", DIET)]
    # a diet of someone else's, or a diet word describing a thing, is no diet of the user's
    assert pairs("My flatmate is vegan.") == []
    assert all(about != DIET for _, about in pairs("We found a vegan cafe nearby."))


def test_a_hedge_after_the_statement_is_no_hypothetical() -> None:
    assert pairs("So vegan now, I reckon.") == [("The user is vegan.", DIET)]
    assert pairs("Suppose I went vegan.") == []


def test_a_pictograph_is_no_part_of_the_fact() -> None:
    assert pairs("vegan since 2020 \U0001f331") == [("The user is vegan.", DIET)]


def test_a_condition_straight_after_diagnosed() -> None:
    assert pairs("I was diagnosed asthmatic as a kid.") == [
        ("The user is asthmatic.", About("health", "condition asthma"))
    ]
    assert pairs("I got diagnosed epilepsy in 2019.") == [
        ("The user has epilepsy.", About("health", "condition epilepsy"))
    ]
    # something else diagnosed is no condition of the user's
    assert pairs("I was diagnosed late, which was annoying.") == []


def test_a_treatment_put_on_or_carried_names_what_it_treats() -> None:
    assert pairs("My doctor put me on pills for high cholesterol.") == [
        ("The user has high cholesterol.", About("health", "condition high cholesterol"))
    ]
    assert pairs("I carry an EpiPen for a peanut allergy.") == [
        ("The user is allergic to peanut.", About("health", "allergy peanut"))
    ]
    assert pairs("I always carry an inhaler for asthma.") == [
        ("The user has asthma.", About("health", "condition asthma"))
    ]
    # carrying something else for someone else names no condition
    assert pairs("I carry snacks for my kids.") == []


def test_a_food_refused_with_subject_and_verb_dropped() -> None:
    assert pairs("Trying to be healthier, no sugar at all now.") == [
        ("The user avoids sugar.", About("health", "avoids sugar"))
    ]
    # "no" before a food that is not a refusal of it from now on
    assert pairs("No coffee shop was open.") == []


def test_found_out_with_its_subject_dropped_and_a_place() -> None:
    assert pairs("found out at a barbecue I'm allergic to wasp stings, that was fun") == [
        ("The user is allergic to wasp stings.", About("health", "allergy wasp stings"))
    ]


NAME = About("profile", "name")
AGE = About("profile", "age")


def test_a_name_and_here_after_a_greeting_introduces_the_user() -> None:
    assert pairs("Hi, Marek here, 29, originally from Gdańsk but living in Cork.") == [
        ("The user's name is Marek.", NAME),
        ("The user is 29 years old.", AGE),
        ("The user is from Gdańsk.", About("profile", "origin")),
        ("The user lives in Cork.", HOME),
    ]
    # a clause with its own subject in the list is read as it is
    assert pairs("Hiya, I'm Oona, I'm 40 and I live in Tromsø.") == [
        ("The user's name is Oona.", NAME),
        ("The user is 40 years old.", AGE),
        ("The user lives in Tromsø.", HOME),
    ]
    # without a greeting, "X here" is no introduction
    assert all(about != NAME for _, about in pairs("Monday here, it's raining."))


def test_a_full_title_and_what_a_name_is_set_off_with() -> None:
    assert pairs("I am Professor Lena Brandt, of the physics faculty.") == [
        ("The user's name is Professor Lena Brandt.", NAME)
    ]
    assert pairs("I'm Katharine, with a K.") == [("The user's name is Katharine.", NAME)]
    assert pairs("I'm Jon, spelt without an h.") == [("The user's name is Jon.", NAME)]
    # a title alone names no one
    assert pairs("I am Sir.") == []


def test_a_condition_on_the_remark_without_its_comma() -> None:
    assert pairs("im 52 btw if that changes anything") == [("The user is 52 years old.", AGE)]
    # a condition on the fact itself still keeps nothing
    assert pairs("I'm moving to Oslo if the job works out.") == []


def test_a_bare_number_after_a_correction_lead_corrects_the_age_held() -> None:
    held = {AGE: "The user is 61 years old."}
    assert pairs("Oops, 62.", held=held) == [("The user is 62 years old.", AGE)]
    # with no age held last, a bare number corrects nothing
    assert pairs("Oops, 62.", held={HOME: "The user lives in Oslo."}) == []
    assert pairs("Oops, 62.") == []


def test_a_liking_with_its_subject_dropped() -> None:
    assert pairs("can't stand musicals though") == [
        ("The user cannot stand musicals.", About("preference", "musicals"))
    ]
    assert pairs("Hate crowds.") == [("The user hates crowds.", About("preference", "crowds"))]
    # "love" and "hate" are nouns too, and "love you" is no liking kept
    assert pairs("Love and patience go a long way.") == []
    assert pairs("Love you!") == []
    assert pairs("Love the idea.") == []


def test_things_liked_listed_after_a_colon() -> None:
    assert pairs("Three things I love: jazz, rain and coffee.") == [
        ("The user loves jazz, rain and coffee.", About("preference", "jazz"))
    ]
    # things of another verb are no likings
    assert all(a is None or a.kind != "preference" for _, a in pairs("Things I need: a holiday and sleep."))


def test_a_favourite_asked_of_oneself_and_answered() -> None:
    assert pairs("favourite season? autumn, always has been") == [
        ("The user's favourite season is autumn.", About("preference", "season"))
    ]
    # a question to the assistant about a favourite stays a question
    assert pairs("What's your favourite season? Mine is autumn.") == []


def test_an_aside_before_but_is_no_subject_of_what_follows() -> None:
    assert clauses("don't laugh but I use Vim these days") == ["don't laugh", "I use Vim these days"]
    # a short subject still joins its verb: "Sam and I ..."
    assert clauses("Sam and I moved to Oslo") == ["Sam and I moved to Oslo"]


def test_never_before_a_past_tense_tells_of_the_user() -> None:
    assert pairs("Gave up sugar in May and never went back.") == []
    assert pairs("Never had a chance to see it.") == []
    kept = [("Never use semicolons.", About("instruction", "use semicolons"))]
    assert pairs("Never use semicolons.") == kept


def test_an_activity_on_a_schedule_with_a_time_of_the_day() -> None:
    assert pairs("I go swimming most mornings before work, it keeps me calm.") == [
        ("The user goes swimming most mornings before work.", About("preference", "swimming"))
    ]


def test_a_parent_s_title_as_the_subject_is_the_user_s_parent() -> None:
    assert pairs("Mum turns 70 on 3 May.") == [
        ("The user's mum's birthday is 3 May.", About("date", "mom birthday"))
    ]
    # the title said to the parent, set off by a comma, is an address
    assert pairs("Mum, I turn 70 on 3 May.") != [
        ("The user's mum's birthday is 3 May.", About("date", "mom birthday"))
    ]


def test_a_relative_s_birthday_as_a_heading() -> None:
    assert pairs("Husband's birthday: March 3.") == [
        ("The user's husband's birthday is March 3.", About("date", "husband birthday"))
    ]


def test_born_said_without_i_was_and_with_the_day_straight_after() -> None:
    born = [("The user was born on 4th May 1990.", About("profile", "birthday"))]
    assert pairs("born 4th May 1990, if you need it for the chart") == born
    assert pairs("I was born 4th May 1990.") == born
    # a year alone is no birthday
    assert pairs("I was born in 1990.") == [("The user was born in 1990.", About("profile", "birth year"))]


def test_the_spouse_a_bracketed_name_and_me_and() -> None:
    assert pairs("Me and the husband (Olu) are thinking about moving.") == [
        ("The user's husband is Olu.", About("family", "husband"))
    ]
    # "the wife" of someone else named is not the user's
    assert all(a != About("family", "wife") for _, a in pairs("The wife of my boss is Ana."))


def test_a_relative_set_off_by_the_name_after_it() -> None:
    assert pairs("Our little one, Ada, is only 3.") == [
        ("The user's little one is Ada.", About("family", "child ada"))
    ]


def test_a_relative_the_user_names_in_someone_else_s_clause() -> None:
    assert pairs("My aunt is visiting, and she's brought my nephew Kai along.")[-1] == (
        "The user's nephew is Kai.",
        About("family", "nephew kai"),
    )
    # someone else's relative is not the user's
    assert pairs("She's brought her nephew Kai along.") == []


def test_pets_added_with_a_clause_of_naming_or_an_unchanged_plural() -> None:
    assert pairs("plus a tabby, her name's Miso") == [
        ("The user has a tabby named Miso.", About("pet", "miso"))
    ]
    assert pairs("and three goldfish, Tic, Tac and Toe, obviously") == [
        ("The user has a goldfish named Tic.", About("pet", "tic")),
        ("The user has a goldfish named Tac.", About("pet", "tac")),
        ("The user has a goldfish named Toe.", About("pet", "toe")),
    ]


def test_rest_in_peace_tells_of_a_bound_or_titled_death() -> None:
    known = {"biscuit": About("pet", "biscuit")}
    assert pairs("RIP Biscuit :( such a good boy", known=known)[0] == (
        "Biscuit died.",
        About("pet", "biscuit"),
    )
    assert pairs("RIP Grandpa Joe.") == [("Grandpa Joe died.", About("family", "grandfather joe"))]
    # a name no turn bound and no title names is no death the rules can place
    assert pairs("RIP Prince.") == []


RELATIONSHIP = About("profile", "relationship")


def test_an_aside_of_one_or_two_words_is_no_subject() -> None:
    assert clauses("car's packed and I'm settled in Leeds now") == [
        "car's packed",
        "I am settled in Leeds now",
    ]
    assert clauses("surprise, and we moved to Oslo") == ["surprise", "we moved to Oslo"]
    assert pairs("I'm properly settled in Leeds.") == [("The user lives in Leeds.", HOME)]


def test_been_and_born_said_without_their_subject() -> None:
    assert pairs("Been married for ten years and still happy.") == [("The user is married.", RELATIONSHIP)]
    assert pairs("been seeing Noor since the spring") == [("The user is dating Noor.", RELATIONSHIP)]
    # "been" before anything else is no state of the user's kept
    assert pairs("Been raining all day.") == []


def test_remarried_is_married() -> None:
    assert pairs("I got remarried last year, to Tomas.")[0][1] == RELATIONSHIP
    assert "married" in pairs("I got remarried last year, to Tomas.")[0][0]


def test_a_lead_before_a_colon_may_be_hyphenated_or_longer() -> None:
    assert pairs("fast-forward: we got engaged in June") == [("The user is engaged.", RELATIONSHIP)]
    assert pairs("Should tell you really: we got engaged.") == [("The user is engaged.", RELATIONSHIP)]


def test_moved_again_with_the_place_and_no_to() -> None:
    assert pairs("We've relocated again, Porto this time.") == [("The user lives in Porto.", HOME)]
    assert pairs("I moved to Leeds from York.") == [("The user lives in Leeds.", HOME)]


def test_a_list_about_the_user_holds_states_posts_and_creatures() -> None:
    assert pairs("About me: nurse at a care home, 41, single, and there's a cat called Pip.") == [
        ("The user works as a nurse.", About("profile", "role")),
        ("The user is 41 years old.", About("profile", "age")),
        ("The user is single.", RELATIONSHIP),
        ("The user has a cat named Pip.", About("pet", "pip")),
    ]


def test_a_favourite_set_as_a_heading() -> None:
    assert pairs("Favourite band: Blur.") == [
        ("The user's favourite band is Blur.", About("preference", "band"))
    ]


def test_a_slip_of_the_rules_own_words_is_read_as_the_word() -> None:
    assert pairs("my nmae is Ilse") == [("The user's name is Ilse.", About("profile", "name"))]
    assert pairs("finaly moved to Turin") == [("The user lives in Turin.", HOME)]
    # a slip that spells another word is that word
    assert pairs("The upload was retried twice.") == []


EMPLOYER = About("profile", "employer")
ROLE = About("profile", "role")


def test_a_name_part_set_against_the_one_held() -> None:
    held = {NAME: "The user's name is Ana Costa."}
    assert pairs("my surname's Reis these days, not Costa", held=held) == [
        ("The user's name is Ana Reis.", NAME)
    ]
    # with no name held that has it, the name part is only said
    assert all(a != NAME for _, a in pairs("my surname's Reis these days, not Costa"))


def test_an_aside_after_a_correction_lead() -> None:
    held = {EMPLOYER: "The user works at Ocado."}
    assert pairs("sorry, long day, it's Monzo.", held=held) == [("The user works at Monzo.", EMPLOYER)]
    # an aside with no "it's" after it corrects nothing
    assert pairs("sorry, long day, Monzo.", held=held) == []


def test_the_name_the_assistant_is_asked_to_use_while_one_is_held() -> None:
    held = {NAME: "The user's name is Robert."}
    assert pairs("I'd rather you used Bob.", held=held) == [("The user's name is Bob.", NAME)]
    # with no name held, a tool or a language asked for is no name
    assert pairs("I'd rather you used Python.") == []


def test_a_post_set_off_after_starting_at_an_employer() -> None:
    assert pairs("I started at Ocado on Monday, data engineer, which still feels unreal.") == [
        ("The user works at Ocado.", EMPLOYER),
        ("The user works as a data engineer.", ROLE),
    ]
    # an adverb that ends like a post is none
    assert pairs("I started at Ocado on Monday, however.") == [("The user works at Ocado.", EMPLOYER)]


def test_what_it_is_now_after_a_liking_given_up() -> None:
    colour = About("preference", "colour")
    held = {colour: "The user's favourite colour is green."}
    assert pairs("weirdly I've gone off green, it's teal for me now", held=held) == [
        ("The user's favourite colour is teal.", colour)
    ]
    # with nothing held naming what was given up, it is a switch to the new choice
    assert pairs("gave up cola in May, it's sparkling water now") == [
        ("The user prefers sparkling water.", About("preference", "drink"))
    ]
    # "it's ... now" with nothing given up before it is no choice
    assert pairs("It's raining now.") == []


def test_a_sentence_adverb_before_the_subject() -> None:
    assert clauses("weirdly I have moved to Oslo") == ["I have moved to Oslo"]
    # "only" is no such adverb
    assert clauses("only I know") == ["only I know"]
