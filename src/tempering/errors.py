"""The one exception type for bad user input (config, CLI flags, data files).

The CLI turns a :class:`UserInputError` into one line on stderr and exit code 2. Library code
raises it wherever input from outside the program is wrong; numerical trouble *inside* a chain is
never an exception (it is a rejected proposal, see
:func:`tempering.numerics.finite_or_neg_inf`).
"""


class UserInputError(ValueError):
    """Bad input from a user: the message names the offending key, file or value."""
