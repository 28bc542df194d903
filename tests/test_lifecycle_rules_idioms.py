"""The seventh round of English the formation rules read: homes had, idioms of moving and of being
somewhere, moves an employer made, employers as the subject of hiring and dismissing, first days, past
jobs ("used to work at"), a year of birth (no birthday), days that fall on a date, counted birthdays,
names in apposition or in the clause after, and deaths told by euphemism. Each rule has a case it reads
and a near miss it must leave alone. The sentences are made up for these tests, not taken from the
labelled set."""

from __future__ import annotations

import pytest

from lifecycle_rules_support import SAID, pairs
from tinymemory.api import About
from tinymemory.lifecycle.rules import extract

HOME = About("profile", "home")
EMPLOYER = About("profile", "employer")
ROLE = About("profile", "role")
RELATIONSHIP = About("profile", "relationship")


# -- homes -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("I've got a flat in Lisbon.", "Lisbon"),
        ("We own a little house near Utrecht.", "Utrecht"),
        ("Our flat is in Leith.", "Leith"),
        ("We've upped sticks to Cork.", "Cork"),
        ("I'm up in Inverness these days.", "Inverness"),
        ("I'm based out of Austin.", "Austin"),
        ("My company transferred me to Lyon.", "Lyon"),
        ("I was posted to Nairobi last year.", "Nairobi"),
    ],
)
def test_a_home_had_or_reached_by_idiom(text: str, place: str) -> None:
    assert pairs(text) == [(f"The user lives in {place}.", HOME)]


def test_a_second_home_or_a_trip_is_no_home() -> None:
    assert pairs("We have a holiday cottage in Wales.") == []
    assert pairs("My company sent me to Oslo for a week.") == []
    assert pairs("I'm up in Inverness.") == []  # no marker of the present: a visit as likely as a home


def test_not_in_a_place_any_more_ends_the_home_and_the_place_set_against_it_is_the_new_one() -> None:
    assert pairs("I'm not in Leeds any more, I'm in York.") == [
        ("The user no longer lives in Leeds.", HOME),
        ("The user lives in York.", HOME),
    ]
    # without "any more" it says where the user is today
    assert all(a != HOME for _, a in pairs("I'm not in Leeds today, I'm in York."))


def test_a_fronted_originally_is_set_aside() -> None:
    assert pairs("Originally I'm from Accra.") == [("The user is from Accra.", About("profile", "origin"))]


def test_leaving_a_held_place_by_idiom() -> None:
    held = {HOME: "The user lives in Perth."}
    assert pairs("We said goodbye to Perth in May.", held=held) == [
        ("The user no longer lives in Perth.", HOME)
    ]
    assert all(a != HOME for _, a in pairs("We said goodbye to Perth in May.", notes=True))


# -- work ------------------------------------------------------------------------------------------------


def test_the_employer_as_the_subject_of_hiring_and_dismissing() -> None:
    assert pairs("Aldi have taken me on as a store manager.") == [
        ("The user works at Aldi.", EMPLOYER),
        ("The user works as a store manager.", ROLE),
    ]
    assert pairs("Spotify laid me off in January.") == [("The user no longer works at Spotify.", EMPLOYER)]
    assert pairs("They let me go early on Friday.") == []  # a pronoun names no employer


@pytest.mark.parametrize(
    ("text", "org"),
    [("Yesterday was my first day at Ocado.", "Ocado"), ("I'm on the payroll at Siemens.", "Siemens")],
)
def test_a_first_day_or_being_on_the_payroll_names_the_employer(text: str, org: str) -> None:
    assert pairs(text) == [(f"The user works at {org}.", EMPLOYER)]


def test_a_first_day_somewhere_unnamed_is_no_employer() -> None:
    assert all(a != EMPLOYER for _, a in pairs("Today was my first day at school."))


def test_a_role_stepped_up_to_or_worked_in_shifts() -> None:
    assert pairs("I've stepped up to head chef.") == [("The user works as a head chef.", ROLE)]
    assert pairs("I work weekends as a lifeguard.") == [("The user works as a lifeguard.", ROLE)]
    assert pairs("I'm a senior nurse on a children's ward.") == [("The user works as a senior nurse.", ROLE)]
    assert pairs("I stepped up to the challenge.") == []


def test_a_past_job_is_kept_as_past_not_as_the_job() -> None:
    [past] = extract("I used to work at a bakery.", SAID)
    assert past.text == "The user used to work at a bakery." and past.about == About(
        "profile", "past employer bakery"
    )
    [was] = extract("I used to work as a welder.", SAID)
    assert was.about == About("profile", "past role welder")
    assert all(f.about not in {EMPLOYER, ROLE} for f in (past, was))


# -- days and ages ---------------------------------------------------------------------------------------


def test_a_year_of_birth_is_no_birthday() -> None:
    assert pairs("I was born in 1987.") == [("The user was born in 1987.", About("profile", "birth year"))]
    assert pairs("I was born on 4 July 1987.") == [
        ("The user was born on 4 July 1987.", About("profile", "birthday"))
    ]


def test_a_relative_named_before_a_birthday_keeps_the_name_out_of_the_relation() -> None:
    said = pairs("My sister Ama's birthday falls on 2 March.")
    assert said == [
        ("The user's sister Ama's birthday is 2 March.", About("date", "sister ama birthday")),
        ("The user's sister is Ama.", About("family", "sister ama")),
    ]
    # the possessive is not part of a relative's name elsewhere either
    assert pairs("My sister Ama's car broke down.") == [
        ("The user's sister is Ama.", About("family", "sister ama"))
    ]


def test_days_celebrated_counted_or_set_beside() -> None:
    assert pairs("We celebrate our anniversary on 9 June.") == [
        ("The user's anniversary is 9 June.", About("date", "anniversary"))
    ]
    assert pairs("My birthday's coming up, it's 3 April.") == [
        ("The user's birthday is 3 April.", About("profile", "birthday"))
    ]
    assert pairs("Celebrated my 40th birthday on Saturday.") == [
        ("The user is 40 years old.", About("profile", "age"))
    ]
    assert pairs("Dad was born on 2 May.") == [
        ("The user's dad's birthday is 2 May.", About("date", "dad birthday"))
    ]


def test_a_day_not_a_date_or_a_count_of_something_else_is_no_day() -> None:
    assert pairs("We celebrate our anniversary at home.") == []
    assert pairs("Dad was born in 1950.") == []
    assert pairs("I had my 3rd coffee of the day.") == []


# -- people and pets -------------------------------------------------------------------------------------


def test_a_name_in_apposition_before_its_relation() -> None:
    assert pairs("Tomas, my brother, fixes bikes.") == [
        ("The user's brother is Tomas.", About("family", "brother tomas"))
    ]
    assert pairs("Honestly, my brother, he never calls.", notes=True) == [
        ("The user's brother, he never calls.", None)
    ]


def test_a_name_given_in_the_clause_after() -> None:
    assert pairs("We adopted a rescue lurcher; he's called Bramble.") == [
        ("The user has a rescue lurcher named Bramble.", About("pet", "bramble"))
    ]
    assert pairs("I'm dating someone new, her name's Ines.") == [("The user is dating Ines.", RELATIONSHIP)]
    assert pairs("I bought a new bike; it's red.") == []


def test_children_by_sex_pets_kept_or_named_inside_a_clause() -> None:
    assert [a for _, a in pairs("We have two girls, Ada and Mae.")] == [
        About("family", "daughter ada"),
        About("family", "daughter mae"),
    ]
    assert pairs("I keep a corn snake named Noodle.") == [
        ("The user has a corn snake named Noodle.", About("pet", "noodle"))
    ]
    assert pairs("I keep a blog called Crumbs.") == []  # a made thing is not a creature
    said = pairs("We live in Bath with a dog called Biscuit.")
    assert ("The user lives in Bath.", HOME) in said and (
        "The user has a dog named Biscuit.",
        About("pet", "biscuit"),
    ) in said
    assert pairs("My grumpy old cat, Tigger, hates mornings.") == [
        ("The user has a cat named Tigger.", About("pet", "tigger"))
    ]


def test_a_divorce_finalised_and_a_death_told_by_euphemism() -> None:
    assert pairs("Jo and I finalised our divorce.") == [("The user is divorced from Jo.", RELATIONSHIP)]
    known = {"pip": About("pet", "pip"), "leo": About("family", "son leo")}
    assert pairs("Pip didn't make it.", known=known) == [("Pip died.", About("pet", "pip"))]
    assert pairs("We said our goodbyes to Pip at the vet's.", known=known) == [
        ("Pip died.", About("pet", "pip"))
    ]
    # saying goodbye to a person is a parting, and a name the thread never bound may be anyone
    assert pairs("We said our goodbyes to Leo at the airport.", known=known) == []
    assert pairs("Rex didn't make it.", known=known) == []


# -- health ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I'm asthmatic.", ("The user is asthmatic.", "condition asthma")),
        ("I'm type 2 diabetic.", ("The user is type 2 diabetic.", "condition diabetes")),
        ("I've had eczema since I was little.", ("The user has eczema.", "condition eczema")),
        ("I'm on medication for hypertension.", ("The user has hypertension.", "condition hypertension")),
        ("I was told yesterday that I'm epileptic.", ("The user is epileptic.", "condition epilepsy")),
    ],
)
def test_a_condition_by_its_adjective_its_treatment_or_its_duration(text: str, want: tuple[str, str]) -> None:
    assert pairs(text) == [(want[0], About("health", want[1]))]


def test_a_treatment_or_a_perfect_without_a_condition_is_none() -> None:
    assert all(a is None for _, a in pairs("I'm on the train for work.", notes=True))
    assert all(a is None for _, a in pairs("I've had a cold since Monday.", notes=True))


def test_a_reaction_names_an_allergy_and_a_bare_allergic_points_back() -> None:
    assert pairs("I have asthma, and latex gives me a rash.") == [
        ("The user has asthma.", About("health", "condition asthma")),
        ("The user is allergic to latex.", About("health", "allergy latex")),
    ]
    assert pairs("Kiwi makes me itch; I'm allergic.") == [
        ("The user is allergic to kiwi.", About("health", "allergy kiwi"))
    ]
    assert pairs("I'm allergic.") == []


def test_a_diet_concluded_and_ended_by_eating_again() -> None:
    diet = About("health", "diet")
    assert pairs("I eat eggs but no meat, so vegetarian, basically.") == [("The user is vegetarian.", diet)]
    held = {diet: "The user is vegan."}
    assert pairs("I've started eating cheese again.", held=held) == [("The user is no longer vegan.", diet)]
    # what the diet allows changes nothing
    assert pairs("I've started eating fish again.", held={diet: "The user is pescatarian."}) == []


def test_a_measure_back_to_normal_ends_the_condition_naming_it() -> None:
    cond = About("health", "condition high cholesterol")
    held = {cond: "The user has high cholesterol."}
    assert pairs("My cholesterol is back to normal.", held=held) == [
        ("The user no longer has high cholesterol.", cond)
    ]
    assert all(a != cond for _, a in pairs("My knee is back to normal.", held=held))


# -- preferences -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "about"),
    [
        ("Nothing beats a cold lager in the evening.", About("preference", "cold lager")),
        ("There's nothing like a strong espresso.", About("preference", "drink")),
        ("I practically live on green tea.", About("preference", "drink")),
        ("I'm nuts about sailing.", About("preference", "sailing")),
        ("I'm a huge cricket fan.", About("preference", "cricket")),
        ("Emacs is my editor of choice.", About("preference", "editor")),
        ("Purple has always been my favourite colour.", About("preference", "colour")),
        ("I've jumped ship to Neovim.", About("preference", "editor")),
    ],
)
def test_likings_and_choices_said_by_idiom(text: str, about: About) -> None:
    assert [a for _, a in pairs(text)] == [about]


def test_a_habit_of_speech_or_a_clause_is_no_favourite() -> None:
    assert all(a is None for _, a in pairs("My go-to excuse is that I'm busy.", notes=True))
    assert all(a is None for _, a in pairs("My usual answer is the weather.", notes=True))
    assert pairs("Nothing beats that feeling.") == []
    assert pairs("I'm a big fan.") == []


def test_loving_it_after_an_activity_is_loving_the_activity() -> None:
    assert ("The user loves swimming.", About("preference", "swimming")) in pairs(
        "I swim on Fridays and love it."
    )
    # possession is no activity: "it" is the thing had
    assert all(a != About("preference", "having") for _, a in pairs("I have a kayak and love it."))


# -- instructions ----------------------------------------------------------------------------------------


def test_an_imperative_bounded_by_what_the_assistant_does_each_time_stands() -> None:
    [f] = extract("Use British spelling whenever you write emails.", SAID)
    assert f.kind == "instruction" and f.text == "Use British spelling whenever you write emails."
    [g] = extract("Keep it formal when you reply to clients.", SAID)
    assert g.kind == "instruction"
    # an event of the moment is no standing condition
    assert extract("Ring me when you get home.", SAID) == []


def test_a_condition_is_part_of_a_whenever_instructions_subject() -> None:
    [sql] = extract("Whenever you write SQL, put keywords in capitals.", SAID)
    [css] = extract("Whenever you write CSS, put keywords in capitals.", SAID)
    assert sql.about != css.about


def test_a_negative_imperative_on_a_bare_plural_is_a_never() -> None:
    assert pairs("Don't bother with footnotes.") == [
        ("Never bother with footnotes.", About("instruction", "bother with footnotes"))
    ]
    assert pairs("Don't use those tables.") == []  # a thing at hand, not a kind


def test_an_instruction_dropped_by_its_noun_without_what_places_it() -> None:
    [held] = extract("Always end each answer with a short summary.", SAID)
    assert held.about is not None
    known = {f"instruction {held.about.key}": held.about}
    [dropped] = extract("Forget the summary at the end.", SAID, known=known)
    assert dropped.about == held.about and dropped.text.startswith("No longer a standing instruction")


# -- names, and appointments read against the thread -----------------------------------------------------


def test_a_name_in_a_cleft_of_calling() -> None:
    assert pairs("Kit is what everyone calls me.") == [("The user's name is Kit.", About("profile", "name"))]
    assert pairs("Paris is what I want.") == []


def test_a_name_spelled_out_corrects_the_held_name() -> None:
    name = About("profile", "name")
    assert pairs("It's Cathryn with a y.", held={name: "The user's name is Catherine."}) == [
        ("The user's name is Cathryn.", name)
    ]
    assert pairs("It's Cathryn with a y.") == []


def test_an_appointment_read_against_a_held_role() -> None:
    held = {ROLE: "The user works as a solicitor."}
    assert pairs("The firm has made me a partner.", held=held) == [("The user works as a partner.", ROLE)]
    assert pairs("My boss made me a coffee.", held=held) == []
    assert pairs("The firm has made me a partner.") == []


# -- more of the same classes, in other words -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("These days we're in Denver.", "Denver"),
        ("We bought a house in Derby.", "Derby"),
        ("I'm renting in Hackney at the moment.", "Hackney"),
        ("I'm settling into life in Graz.", "Graz"),
        ("We're Berlin-based now.", "Berlin"),
    ],
)
def test_more_homes(text: str, place: str) -> None:
    assert pairs(text) == [(f"The user lives in {place}.", HOME)]


def test_more_work() -> None:
    assert pairs("I'm now head of sales at Ikea.") == [
        ("The user works as a head of sales.", ROLE),
        ("The user works at Ikea.", EMPLOYER),
    ]
    assert pairs("I handed in my notice.") == [("The user left their job.", EMPLOYER)]
    assert pairs("I've been hired as a porter at Kings.") == [
        ("The user works as a porter.", ROLE),
        ("The user works at Kings.", EMPLOYER),
    ]
    assert pairs("I'm going freelance.") == [("The user is freelance.", ROLE)]
    assert pairs("I'm a Vim user.") == [("The user uses Vim.", About("preference", "editor"))]


def test_a_relative_lost_or_a_child_welcomed() -> None:
    assert pairs("I lost my mum in April.") == [("The user's mum died.", About("family", "mother"))]
    assert all(a != About("family", "mother") for _, a in pairs("I lost my mum's ring.", notes=True))
    assert pairs("We welcomed a baby boy, Arlo, in May.") == [
        ("The user's son is Arlo.", About("family", "son arlo"))
    ]
    assert all(a is None for _, a in pairs("I had a girl in my class called Zoe.", notes=True))


def test_conditions_cleared_and_foods_kept_off() -> None:
    assert pairs("My eczema has cleared up.") == [
        ("The user no longer has eczema.", About("health", "condition eczema"))
    ]
    assert pairs("My car has gone.") == []
    assert pairs("I'm off dairy.") == [("The user avoids dairy.", About("health", "avoids dairy"))]
    assert pairs("I'm teetotal.") == [("The user does not drink alcohol.", About("health", "avoids alcohol"))]
    assert pairs("Shellfish is a no-go for me, I'm allergic.") == [
        ("The user is allergic to shellfish.", About("health", "allergy shellfish"))
    ]


def test_activities_taken_up_and_kinds_of_person() -> None:
    assert pairs("I've taken up climbing.") == [
        ("The user is a fan of climbing.", About("preference", "climbing"))
    ]
    assert pairs("I got into Cambridge.") == []
    assert pairs("I took up the offer.") == []
    assert pairs("I'm more of a coffee person.") == [
        ("The user is a coffee person.", About("preference", "drink"))
    ]
    assert pairs("I'm a morning person.") == []
    assert pairs("No more exclamation marks, please.") == [
        ("Never use exclamation marks.", About("instruction", "use exclamation marks"))
    ]


def test_hiring_needs_the_user_as_its_object() -> None:
    assert pairs("Apple has taken on 200 staff.") == []
    assert pairs("Ocado has offered me a job.") == []  # an offer is not a job yet


def test_a_middle_name_gone_by_and_moving_in_with_someone_somewhere() -> None:
    assert pairs("I go by my middle name, Rose.") == [("The user's name is Rose.", About("profile", "name"))]
    assert pairs("I moved in with my boyfriend in Leith.") == [("The user lives in Leith.", HOME)]
    assert all(a != HOME for _, a in pairs("I moved in with my sister.", notes=True))


def test_an_attribute_stays_an_attribute_but_a_habit_of_speech_is_a_note() -> None:
    assert pairs("My goal is to run a marathon.") == [
        ("The user's goal is to run a marathon.", About("profile", "goal"))
    ]
    assert pairs("My go-to excuse is the traffic.", notes=True) == [
        ("The user's go-to excuse is the traffic.", None)
    ]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("I'm now a Derby resident.", "Derby"),
        ("We've made Cardiff our home.", "Cardiff"),
        ("We've emigrated to Chile.", "Chile"),
        ("We just closed on a house in Tulsa.", "Tulsa"),
    ],
)
def test_homes_by_residence_emigration_or_purchase(text: str, place: str) -> None:
    assert pairs(text) == [(f"The user lives in {place}.", HOME)]


def test_a_held_home_swapped_for_another_place() -> None:
    held = {HOME: "The user lives in Leeds."}
    assert pairs("We've swapped Leeds for Lyon.", held=held) == [("The user lives in Lyon.", HOME)]
    assert all(a != HOME for _, a in pairs("I swapped Chrome for Firefox.", notes=True, held=held))


def test_more_jobs_begun_and_ended() -> None:
    assert pairs("I'm starting at Arup on Monday.") == [("The user works at Arup.", EMPLOYER)]
    assert pairs("I got sacked from Argos.") == [("The user no longer works at Argos.", EMPLOYER)]
    assert pairs("I packed in my job at the council.") == [
        ("The user no longer works at the council.", EMPLOYER)
    ]
    assert pairs("I work from home for a firm called Loop.") == [("The user works at Loop.", EMPLOYER)]
    assert pairs("I start as a junior doctor next week.") == [("The user works as a junior doctor.", ROLE)]


def test_instructions_ended_or_asked_to_stop() -> None:
    assert pairs("Please don't add a summary any more.") == [
        ("Never add a summary.", About("instruction", "add summary"))
    ]
    assert pairs("Can you stop adding emojis?") == [("Never add emojis.", About("instruction", "add emojis"))]
    assert pairs("Can you stop by later?") == []
    assert pairs("Don't worry about it any more.") == []
    # the user's own preference said with "in your replies" is no instruction in the first person
    assert all(f.kind != "instruction" for f in extract("I prefer tables in your replies.", SAID))


def test_a_pet_rehomed_is_no_longer_the_users_but_did_not_die() -> None:
    assert pairs("We had to rehome our cat Pixel.") == [
        ("The user no longer has the cat Pixel.", About("pet", "pixel"))
    ]


def test_a_conditioned_instruction_is_changed_by_the_same_action_unconditioned() -> None:
    [held] = extract("Whenever you write Python, add type hints.", SAID)
    assert held.about is not None
    known = {f"instruction {held.about.key}": held.about}
    [stop] = extract("Stop adding type hints.", SAID, known=known)
    assert stop.about == held.about and stop.text == "Never add type hints."
    # with nothing held under a condition the action keeps its own subject
    [bare] = extract("Stop adding type hints.", SAID)
    assert bare.about == About("instruction", "add type hints")


def test_requests_at_the_assistants_convenience_or_about_this_one_are_no_standing_instruction() -> None:
    assert pairs("Whenever you're ready, send the summary.") == []
    assert pairs("Keep it short when you reply to this one.") == []
    assert pairs("I'm a huge fan of yours.") == []


def test_more_health_and_likings_in_other_words() -> None:
    assert pairs("I'm lactose intolerant now.") == [
        ("The user is intolerant to lactose.", About("health", "intolerance lactose"))
    ]
    assert pairs("I've developed a soy intolerance.") == [
        ("The user is intolerant to soy.", About("health", "intolerance soy"))
    ]
    assert pairs("I was diagnosed as asthmatic.") == [
        ("The user is asthmatic.", About("health", "condition asthma"))
    ]
    assert pairs("My migraines have stopped.") == [
        ("The user no longer has migraines.", About("health", "condition migraines"))
    ]
    assert [a for _, a in pairs("I'm allergic to nuts, especially almonds.")] == [
        About("health", "allergy nuts"),
        About("health", "allergy almonds"),
    ]
    assert pairs("I've gone right off tea.") == [
        ("The user is no longer interested in tea.", About("preference", "drink"))
    ]
    assert pairs("My all-time favourite book is Emma.") == [
        ("The user's favourite book is Emma.", About("preference", "book"))
    ]
    assert pairs("I'm more into jazz than rock.") == [
        ("The user is a fan of jazz.", About("preference", "jazz"))
    ]
    assert pairs("I've converted to Vim.") == [("The user prefers Vim.", About("preference", "editor"))]


def test_names_with_a_title_or_a_comment_and_ages_in_words() -> None:
    name = About("profile", "name")
    assert pairs("I'm Dr. Nia Obi.") == [("The user's name is Dr. Nia Obi.", name)]
    assert pairs("I'm Femi, by the way.") == [("The user's name is Femi.", name)]
    assert pairs("You can call me by my nickname, Dee.") == [("The user's name is Dee.", name)]
    assert pairs("I just turned forty-one.") == [("The user is 41 years old.", About("profile", "age"))]
    assert all(a is None for _, a in pairs("I'm twenty minutes away.", notes=True))


def test_a_kinship_word_is_read_whole() -> None:
    # "grandson" is not "gran" and a son
    assert pairs("We have a grandson now, Eli.") == [
        ("The user's grandson is Eli.", About("family", "grandson eli"))
    ]


def test_there_a_bare_correction_and_a_pet_by_kind_read_against_the_thread() -> None:
    held = {EMPLOYER: "The user works at Arup.", HOME: "The user lives in Leeds."}
    assert pairs("I don't work there any more.", held=held) == [
        ("The user no longer works at Arup.", EMPLOYER)
    ]
    assert pairs("We moved out last month.", held=held) == [("The user no longer lives in Leeds.", HOME)]
    assert pairs("Sorry, I meant Leith.", held={HOME: "The user lives in Leeds."}) == [
        ("The user lives in Leith.", HOME)
    ]
    # the latest held value must end in a name, and a day is no correction of one
    assert pairs("Sorry, I meant Leith.", held={DRINK_HELD: "The user drinks tea."}) == []
    assert pairs("I mean Tuesday.", held=held) == []
    pets = {About("pet", "rex"): "The user has a dog named Rex."}
    assert pairs("Our dog passed away.", held=pets) == [("The user's dog died.", About("pet", "rex"))]
    assert pairs("Our cat passed away.", held=pets) == []
    assert pairs("Rex is no longer with us.", known={"rex": About("pet", "rex")}) == [
        ("Rex died.", About("pet", "rex"))
    ]
    assert pairs("My dog is lovely.") == []  # a pet's trait is no attribute of the user's


DRINK_HELD = About("preference", "drink")


def test_living_with_someone_somewhere_home_contracted_and_a_chief_of_a_firm() -> None:
    assert pairs("We're living with my in-laws in Ayr.") == [("The user lives in Ayr.", HOME)]
    assert all(a != HOME for _, a in pairs("I live with my sister.", notes=True))
    assert pairs("Home's Lagos these days.") == [("The user lives in Lagos.", HOME)]
    assert pairs("I'm CTO of Loop.") == [("The user works as a CTO of Loop.", ROLE)]


def test_near_misses_of_the_seventh_round() -> None:
    assert (
        pairs("I live on a boat.") == []
    )  # living on a thing is a staple only with an adverb or a known kind
    assert pairs("I basically live on toast.") == [("The user loves toast.", About("preference", "toast"))]
    assert pairs("My company moved me to the London office.") == []  # part of the employer, not a place
    assert pairs("They posted me to Kabul for six months.") == []  # a bounded stay
    assert pairs("Google let me go home early.") == []  # leave, not a dismissal
    assert pairs("Please don't mention it any more.") == []  # "it" is something said, not a kind of answer


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Kai and I got back together.", "The user is in a relationship with Kai."),
        ("Mo and I are officially a couple.", "The user is in a relationship with Mo."),
        ("Lena and I went our separate ways.", "The user broke up with Lena."),
        ("My boyfriend Sam dumped me.", "The user broke up with Sam."),
        ("I proposed to Kate and she said yes!", "The user is engaged to Kate."),
    ],
)
def test_relationships_begun_again_parted_or_proposed(text: str, want: str) -> None:
    assert (want, RELATIONSHIP) in pairs(text)


def test_a_partner_leaving_a_thing_or_a_proposal_not_accepted_is_no_state() -> None:
    assert all(a != RELATIONSHIP for _, a in pairs("My husband left me a note.", notes=True))
    assert all(a != RELATIONSHIP for _, a in pairs("I proposed a toast.", notes=True))


def test_choices_switched_to_taken_up_or_newly_favoured() -> None:
    editor = About("preference", "editor")
    assert pairs("I've moved to Neovim.") == [("The user prefers Neovim.", editor)]
    assert pairs("I've moved to Seville for work.") == [("The user lives in Seville.", HOME)]
    assert pairs("I've moved to Lyon.") == [("The user lives in Lyon.", HOME)]  # a place is a home
    assert pairs("Emacs is my new favourite editor.") == [("The user's favourite editor is Emacs.", editor)]
    assert pairs("I've started using Zed.") == [("The user uses Zed.", editor)]
    assert pairs("I'm loving pilates at the moment.") == [
        ("The user loves pilates.", About("preference", "pilates"))
    ]
    assert pairs("I'm enjoying the book.") == []  # a thing at hand
    assert all(a is None for _, a in pairs("I fell in love with Tom.", notes=True))


def test_pets_named_together_or_after_their_breed() -> None:
    assert [a for _, a in pairs("Our dogs are called Fig and Plum.")] == [
        About("pet", "fig"),
        About("pet", "plum"),
    ]
    assert pairs("Our new kitten is a tabby called Miso.") == [
        ("The user has a kitten named Miso.", About("pet", "miso"))
    ]
    assert all(a is None for _, a in pairs("My dog is a good boy.", notes=True))


def test_a_pet_said_to_be_in_the_users_home_or_added_to_a_list() -> None:
    assert pairs("There's a tabby tom called Biscuit who runs our house.") == [
        ("The user has a tom named Biscuit.", About("pet", "biscuit"))
    ]
    assert pairs("There's a cat called Tom next door.") == []  # not the user's home
    assert pairs("And a whippet, Dot, who's very shy.") == [
        ("The user has a whippet named Dot.", About("pet", "dot"))
    ]
    assert pairs("And a friend, Sam, who helps.") == []
    assert pairs("And a car, Betsy.") == []


def test_birthdays_in_other_words_and_born_on_a_thing() -> None:
    bday = About("profile", "birthday")
    assert pairs("It's my birthday on the 2nd of May.") == [("The user's birthday is the 2nd of May.", bday)]
    assert pairs("My b-day is 5 Jan.") == [("The user's birthday is 5 Jan.", bday)]
    assert pairs("I was born on Boxing Day.") == [("The user was born on Boxing Day.", bday)]
    assert pairs("I'm a Gemini, born 3 June.") == [("The user's birthday is 3 June.", bday)]
    # born on a thing is neither a day nor a named place
    assert all(a is None for _, a in pairs("I was born on a farm.", notes=True))


def test_more_names_and_wanting_every_answer_so() -> None:
    name = About("profile", "name")
    assert pairs("Most folks call me Jimmy.") == [("The user's name is Jimmy.", name)]
    assert pairs("Call me by my first name, Sue.") == [("The user's name is Sue.", name)]
    assert pairs("Please address me as Ms Lee.") == [("The user's name is Ms Lee.", name)]
    assert pairs("Address me as soon as possible.") == []
    assert pairs("I prefer Samantha, actually.", held={name: "The user's name is Sam."}) == [
        ("The user's name is Samantha.", name)
    ]
    assert all(a != name for _, a in pairs("I prefer Samantha, actually."))  # no name held just before
    assert pairs("I want short answers from now on.") == [
        ("From now on, short answers.", About("instruction", "keep answers"))
    ]
    assert all(f.kind != "instruction" for f in extract("I want pizza from now on.", SAID, notes=True))


def test_a_name_set_against_the_one_just_held() -> None:
    name = About("profile", "name")
    assert pairs("On reflection, Bill is better.", held={name: "The user's name is William."}) == [
        ("The user's name is Bill.", name)
    ]
    assert pairs("On reflection, Bill is better.", held={HOME: "The user lives in Leeds."}) == []


def test_appointments_in_the_passive_partings_by_idiom_and_moves_between_employers() -> None:
    assert pairs("I've been made head of year.") == [("The user works as a head of year.", ROLE)]
    assert pairs("I've been made redundant.") == [("The user lost their job.", EMPLOYER)]
    assert pairs("Ola and I have called it a day.") == [("The user broke up with Ola.", RELATIONSHIP)]
    assert all(a != RELATIONSHIP for _, a in pairs("We called it a day at five.", notes=True))
    held = {EMPLOYER: "The user works at Barclays."}
    assert pairs("I've moved over to HSBC.", held=held) == [("The user works at HSBC.", EMPLOYER)]


def test_an_instructions_proper_value_switched() -> None:
    rule = About("instruction", "answer in")
    held = {rule: "Always answer in French."}
    assert pairs("Switch to German from now on.", held=held) == [("Always answer in German.", rule)]
    assert all(a != rule for _, a in pairs("Switch to German from now on."))  # nothing held to switch


def test_unpacked_put_to_sleep_my_thing_and_a_name_after_actually() -> None:
    assert pairs("We're all unpacked in Bath.") == [("The user lives in Bath.", HOME)]
    assert pairs("Rolo had to be put to sleep.", known={"rolo": About("pet", "rolo")}) == [
        ("Rolo died.", About("pet", "rolo"))
    ]
    assert pairs("Coffee's more my thing these days.") == [
        ("The user likes coffee.", About("preference", "drink"))
    ]
    assert pairs("That's my thing.") == []
    name = About("profile", "name")
    assert pairs("Actually, Alistair please.", held={name: "The user's name is Ali."}) == [
        ("The user's name is Alistair.", name)
    ]


def test_a_bare_correction_or_preference_needs_a_form_of_the_held_name() -> None:
    name = About("profile", "name")
    held = {name: "The user's name is Jon."}
    assert pairs("Sorry Dave.", held=held) == []  # addressing someone
    assert pairs("Actually, Netflix.", held=held) == []
    assert all(a != name for _, a in pairs("I prefer Netflix.", held=held))
    assert pairs("Actually, Jonathan please.", held=held) == [("The user's name is Jonathan.", name)]


def test_last_days_notices_qualifications_and_no_kin_as_a_job() -> None:
    assert pairs("My last day at Aviva was Friday.") == [("The user no longer works at Aviva.", EMPLOYER)]
    assert pairs("I've handed my notice in at Boots.") == [("The user no longer works at Boots.", EMPLOYER)]
    assert all(a != EMPLOYER for _, a in pairs("My last day at school was great.", notes=True))
    assert pairs("I've qualified as a midwife.") == [("The user works as a midwife.", ROLE)]
    assert pairs("I'm now the shift manager.") == [("The user works as a shift manager.", ROLE)]
    assert all(a != ROLE for _, a in pairs("I became a grandad last year.", notes=True))


def test_conditions_overcome_and_diets_stopped_or_ended_by_eating_now() -> None:
    assert pairs("I've beaten cancer.") == [
        ("The user no longer has cancer.", About("health", "condition cancer"))
    ]
    assert pairs("I'm asthma-free now.") == [
        ("The user no longer has asthma.", About("health", "condition asthma"))
    ]
    assert all(a is None for _, a in pairs("I've beaten my record.", notes=True))
    diet = About("health", "diet")
    assert pairs("I stopped being vegan.") == [("The user is no longer vegan.", diet)]
    assert pairs("I eat meat now.", held={diet: "The user is vegetarian."}) == [
        ("The user is no longer vegetarian.", diet)
    ]
    assert all(a != diet for _, a in pairs("I eat meat now.", notes=True))  # no diet held


_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_TEENS = ("thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_SPELLED = {w: 13 + i for i, w in enumerate(_TEENS)} | {t: 20 + 10 * i for i, t in enumerate(_TENS)}
_SPELLED |= {
    f"{t}{sep}{o}": 20 + 10 * i + j
    for i, t in enumerate(_TENS)
    for j, o in enumerate(_ONES, 1)
    for sep in "- "
}


def test_every_age_in_words_from_thirteen_to_ninety_nine_is_read() -> None:
    for words, age in _SPELLED.items():
        want = [(f"The user is {age} years old.", About("profile", "age"))]
        assert pairs(f"I just turned {words}.") == want, words
        assert pairs(f"I am {words.upper()} years old") == want, words
    for words in ("ten", "eleven", "twelve", "a few", "several", "sixty-ten"):  # not ages the rule reads
        assert About("profile", "age") not in {a for _, a in pairs(f"I just turned {words}.")}, words
