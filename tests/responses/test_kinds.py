"""Answers compared within their kind, on cases that are not in the labelled set."""

from __future__ import annotations

import pytest

from invent_core.responses.answer_tables import COMPOUNDS, ELEMENTS
from invent_core.responses.equivalence import rule_verdict
from invent_core.responses.kinds import currency, polarity, substance, when
from invent_core.responses.quantities import quantity


@pytest.mark.parametrize(
    ("question", "a", "b", "same"),
    [
        ("How many legs does a spider have?", "8", "eight legs", True),
        ("How many legs does a spider have?", "eight", "six", False),
        ("What is 13 times 7?", "91", "ninety-one", True),
        ("What is 13 times 7?", "ninety-one", "nineteen", False),
        ("How many days are in a leap year?", "366", "three hundred and sixty-six", True),
        ("How many people attended, roughly?", "12,500", "12.5 thousand", True),
        ("How many people attended, roughly?", "12,500", "1,250", False),
        ("What fraction of the pizza is left?", "3/4", "0.75", True),
        ("What fraction of the pizza is left?", "three quarters", "75%", True),
        ("What fraction of the pizza is left?", "3/4", "4/3", False),
        ("What share of voters turned out?", "62%", "62 per cent", True),
        ("What share of voters turned out?", "0.62", "62%", True),
        ("What share of voters turned out?", "62%", "26%", False),
        ("What is the body's normal temperature?", "37 °C", "98.6 °F", True),
        ("What is the body's normal temperature?", "37 °C", "37 °F", False),
        ("How far is it from Paris to Lyon by road?", "465 km", "465 kilometres", True),
        ("How heavy is the parcel?", "2 kg", "2,000 grams", True),
        ("How heavy is the parcel?", "2 kg", "2 g", False),
        ("How much does the ticket cost?", "$7.50", "7.5 dollars", True),
        ("How much does the ticket cost?", "$7.50", "$75", False),
    ],
)
def test_numbers_compare_by_value(question, a, b, same):
    assert rule_verdict(question, a, b) is same


@pytest.mark.parametrize(
    ("question", "a", "b", "same"),
    [
        ("Is the whale a mammal?", "Yes", "Yes, it breathes air and nurses its young", True),
        ("Is the whale a mammal?", "Yes", "No, it is a fish", False),
        ("Does glass conduct electricity?", "No", "It does not", True),
        ("Does glass conduct electricity?", "No", "Yes, when it is hot", False),
        ("Can ostriches fly?", "Nope", "No, they are too heavy", True),
        ("Was Napoleon short?", "True", "Correct", True),
    ],
)
def test_yes_no_compares_polarity_not_elaboration(question, a, b, same):
    assert rule_verdict(question, a, b) is same


def test_a_negation_alone_on_both_sides_decides_nothing():
    q = "Is the capital Paris or Lyon?"
    assert polarity(q, "Paris, not Lyon") == ("no", False)
    assert rule_verdict(q, "Paris, not Lyon", "Lyon, not Paris") is not True


@pytest.mark.parametrize(
    ("question", "a", "b", "same"),
    [
        ("When did the Wright brothers first fly?", "December 17, 1903", "1903", True),
        ("When did the Wright brothers first fly?", "17 December 1903", "December 1903", True),
        ("When did the Wright brothers first fly?", "December 1903", "November 1903", False),
        ("When did the Wright brothers first fly?", "1903", "1905", False),
        ("When was the Magna Carta sealed?", "June 1215", "13th century", True),
        ("When was the Magna Carta sealed?", "the 13th century", "the 12th century", False),
        ("When did the Battle of Hastings take place?", "in 1066", "14 October 1066", True),
    ],
)
def test_dates_agree_when_the_coarser_contains_the_finer(question, a, b, same):
    assert rule_verdict(question, a, b) is same


@pytest.mark.parametrize(
    ("question", "a", "b", "same"),
    [
        ("What gas do we exhale?", "CO₂", "Carbon Dioxide", True),
        ("Which element makes up most of the Sun?", "H", "Hydrogen", True),
        ("Which element makes up most of the Sun?", "Hydrogen", "Helium", False),
        ("Which metal is used in thermometers?", "Hg", "quicksilver", True),
        ("What is used to make bread rise?", "NaHCO3", "baking soda", True),
        ("What does a chlorophyll molecule contain?", "Mg", "Mn", False),
        ("What is ozone made of?", "O3", "O2", False),
        ("What carries energy in cells?", "ATP", "adenosine triphosphate", True),
        ("Which element is a semiconductor?", "Si", "silicon", True),
        ("Which element is a semiconductor?", "silicon", "selenium", False),
    ],
)
def test_formulas_symbols_and_names_are_one_substance(question, a, b, same):
    assert rule_verdict(question, a, b) is same


def test_the_element_table_is_complete_and_formulas_are_read_without_subscripts():
    assert len(ELEMENTS) == len(set(ELEMENTS.values())) == 118
    assert substance("Og") == "oganesson" and substance("Co") == "cobalt" != substance("CO")
    assert all(substance(formula) == formula for formula in COMPOUNDS)
    assert substance("Paris") is None and substance("gold (Ag)") is None


@pytest.mark.parametrize(
    ("question", "a", "b", "same"),
    [
        ("What currency is used in Canada?", "Dollar", "Canadian dollar", True),
        ("What currency is used in Canada?", "CAD", "Canadian dollar", True),
        ("What currency is used in Canada?", "Dollar", "Australian dollar", False),
        ("What currency is used in Egypt?", "Pound", "Egyptian pound", True),
        ("What currency is used in Egypt?", "Egyptian pound", "Pound sterling", False),
        ("What currency is used in Norway?", "Krone", "NOK", True),
        ("What currency is used in Norway?", "Norwegian krone", "Danish krone", False),
        ("What currency is used in Norway?", "Krone", "Krona", False),
    ],
)
def test_currencies_compare_by_base_and_country(question, a, b, same):
    assert rule_verdict(question, a, b) is same


def test_kind_readers_say_none_outside_their_kind():
    assert when("Paris") is None and when("May 5") == when("5 May")
    assert quantity("The French capital") is None and quantity("a dozen eggs and more") is None
    assert currency("Real Madrid") is None and currency("Euro") == ("", "euro")


@pytest.mark.parametrize(
    ("question", "a", "b", "same"),
    [
        ("What is the chemical symbol for sodium?", "Na", "Sodium", False),
        ("What is the chemical symbol for sodium?", "Na", "sodium (Na)", True),
        ("What is the chemical formula of table salt?", "NaCl", "sodium chloride", False),
        ("Which element has the symbol Pb?", "Lead", "Pb", False),
        ("What does the abbreviation DNA stand for?", "deoxyribonucleic acid", "DNA", False),
        ("Which metal do we mine for jewellery?", "Ag", "silver", True),
    ],
)
def test_where_the_question_asks_for_the_symbol_the_name_is_another_answer(question, a, b, same):
    assert rule_verdict(question, a, b) is same


@pytest.mark.parametrize(
    ("question", "a", "b", "same"),
    [
        ("How many minutes are in 2 hours?", "120 minutes", "2 hours", False),
        ("How many minutes are in 2 hours?", "120", "120 minutes", True),
        ("How many grams are in 3 kilograms?", "3000 g", "3 kg", False),
        ("How long is the bridge?", "1.2 km", "1,200 m", True),
    ],
)
def test_where_the_question_names_the_unit_another_unit_is_another_answer(question, a, b, same):
    assert rule_verdict(question, a, b) is same
