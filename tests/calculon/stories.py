"""Word problems from the public corpus that the tests of several modules ask."""

PAIGE = (
    "Paige raised 15 goldfish in the pond but stray cats loved eating them. 5 were eaten. "
    "How many goldfish remained?"
)
FRED = (
    "Last week Fred had 19 dollars and Jason had 16 dollars. They washed cars over the weekend and now "
    "Fred has 40 dollars and Jason has 69 dollars. How much money did Fred earn?"
)
