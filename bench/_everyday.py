"""Everyday phrasings over the bundled tools, each labelled with the tool that should rank first.

A label is the right tool; ``also`` names tools that answer the question just as
correctly, and a top-1 on one of those counts too. The only such cases:
percentages (``evaluate`` is meant for them, but ``multiply`` by 0.15 is as right),
powers written as ``2^16`` (``evaluate`` takes ``^``), and temperatures
(``convert`` takes C, F and K as well as the one-way tools). Strict top-1 counts the
label alone. The phrasings are written as people type them: with numbers and
without, abbreviations, and words that used to mislead ("times" is not the clock).
"""

from __future__ import annotations

import dataclasses

PERCENT = frozenset({"multiply"})
POWER = frozenset({"evaluate"})
CONVERT = frozenset({"convert"})


@dataclasses.dataclass(frozen=True)
class Phrasing:
    text: str
    tool: str
    also: frozenset[str] = frozenset()

    @property
    def accepted(self) -> frozenset[str]:
        return self.also | {self.tool}


def _set(tool: str, texts: str, also: frozenset[str] = frozenset()) -> list[Phrasing]:
    return [Phrasing(text.strip(), tool, also) for text in texts.strip().split("\n")]


PHRASINGS: tuple[Phrasing, ...] = tuple(
    _set(
        "add",
        """
What is 2 plus 2?
add 17 and 25
sum of 1200 and 345
what's the total of 19.99 and 5.01
how do I add two numbers together
""",
    )
    + _set(
        "subtract",
        """
subtract 999 from 12345
What is 100 minus 37?
difference between 82 and 45
take 15 away from 60
how much is 7 less than 20
""",
    )
    + _set(
        "multiply",
        """
What is 12 times 7?
multiply 6 by 9
product of 13 and 17
3.5 times 4
what is 8 x 12
how much is 45 multiplied by 3
""",
    )
    + _set(
        "divide",
        """
12 shared among 4
divide 100 by 8
what is 1 divided by 3
split 250 between 5 people
how many times does 6 go into 42
""",
    )
    + _set(
        "power",
        """
3 squared
2 to the power of 10
what is 5 cubed
raise 7 to the 4th power
1.05 raised to the 12th
""",
    )
    + _set("power", "2^16", POWER)
    + _set(
        "sqrt",
        """
square root of 2.25
what's the square root of 144
sqrt of 2
how do I find a square root
""",
    )
    + _set(
        "mod",
        """
remainder of 17 by 5
17 mod 5
what is 100 modulo 7
what is left over when 23 is divided by 4
""",
    )
    + _set(
        "evaluate",
        """
15% of 240
what is 20% of 150
what's a 15 percent tip on 80 dollars
""",
        PERCENT,
    )
    + _set(
        "evaluate",
        """
(2 + 3) * 4 / 7
average of 4, 8 and 15
calculate 3 * (4 + 5) - 2
what's the mean of 10, 20, 30 and 40
evaluate 2^10 - 1
work out 12 * 4 + 7 * 3
""",
    )
    + _set(
        "convert",
        """
how many km is 26.2 miles
convert 5 feet to centimetres
what is 70 kg in pounds
how many cups in a gallon
2 litres in fl oz
how many ounces is 250 grams
10 km in miles
convert 3 tablespoons to ml
""",
    )
    + _set(
        "fahrenheit_to_celsius",
        """
72 °F in Celsius
convert 98.6 fahrenheit to celsius
what is 0 F in C
""",
        CONVERT,
    )
    + _set(
        "celsius_to_fahrenheit",
        """
convert 100 °C to Fahrenheit
what's 30 degrees celsius in fahrenheit
25C in F
""",
        CONVERT,
    )
    + _set(
        "celsius_to_kelvin",
        """
0 celsius in kelvin
convert 25 °C to K
""",
        CONVERT,
    )
    + _set(
        "kelvin_to_celsius",
        """
300 K to celsius
what is 273.15 kelvin in degrees celsius
""",
        CONVERT,
    )
    + _set(
        "fahrenheit_to_kelvin",
        """
convert 32 fahrenheit to kelvin
451 °F in kelvins
""",
        CONVERT,
    )
    + _set(
        "kelvin_to_fahrenheit",
        """
5778 K in Fahrenheit
kelvin to fahrenheit
""",
        CONVERT,
    )
    + _set(
        "get_time",
        """
what time is it in Tokyo
what's the date today
current time in London
what time is it
is it morning in New York right now
""",
    )
    + _set(
        "say_hello",
        """
say hello to Ada
greet Bob
say hi to my friend Sam
""",
    )
)

# Written before any retrieval change was made for this set, and never tuned on: it checks
# that what fixed the misses above generalises rather than fitting these phrasings.
HELD_OUT: tuple[Phrasing, ...] = tuple(
    _set(
        "add",
        """
what do 48 and 27 add up to
8 plus 35 equals what
combined, 14 and 9 make how many
""",
    )
    + _set(
        "subtract",
        """
how much more is 90 than 65
deduct 30 from 250
1000 take away 1
""",
    )
    + _set(
        "multiply",
        """
what's 9 times 9
4 lots of 25
multiply 2.5 and 8
""",
    )
    + _set(
        "divide",
        """
what is 144 over 12
half of 37
each of 6 friends pays an equal part of 90, how much each
""",
    )
    + _set(
        "power",
        """
10 to the 6th power
what's 4 to the third
2 with an exponent of 3
""",
    )
    + _set(
        "sqrt",
        """
the root of 49
find the square root of 10
""",
    )
    + _set(
        "mod",
        """
23 modulo 6
what's 50 mod 8
""",
    )
    + _set("evaluate", "what is 8% of 50", PERCENT)
    + _set(
        "evaluate",
        """
1 + 2 * 3 - 4
mean of 3, 7 and 11
""",
    )
    + _set(
        "convert",
        """
how many feet in a mile
convert 3 pints to litres
5 stone in kg
how many inches are 30 cm
""",
    )
    + _set("fahrenheit_to_celsius", "what is 50 degrees fahrenheit in celsius", CONVERT)
    + _set("celsius_to_fahrenheit", "37 °C in °F", CONVERT)
    + _set("kelvin_to_celsius", "convert 0 K to °C", CONVERT)
    + _set("celsius_to_kelvin", "-40 celsius in kelvin", CONVERT)
    + _set(
        "get_time",
        """
what's the time in Sydney
what day is it
time now in UTC
""",
    )
    + _set(
        "say_hello",
        """
say hello
greet the user named Lin
""",
    )
)
