"""The encrypted token file from the command line: the opt-in, and its passphrase for this run.

``calculon auth login SERVER --token-store file`` creates the file (:mod:`app.token_file`),
asking for a new passphrase twice unless ``CALCULON_TOKEN_PASSPHRASE`` gives it. Once the file
exists, a command that connects to servers asks for the passphrase at the terminal when the
variable is unset; without a terminal it says which variable to set. Nothing is stored.
"""

from __future__ import annotations

import getpass
import sys

from app import token_file


class Refused(RuntimeError):
    """The opt-in cannot go ahead; the message says why."""


def unlock() -> None:
    """Ask for the token file's passphrase, once, where the file exists and nothing gives it."""
    if token_file.opted_in() and token_file.passphrase() is None and _terminal():
        token_file.remember_passphrase(getpass.getpass(f"Passphrase for {token_file.path()}: "))


def opt_in() -> str:
    """Create the token file (or open the existing one); returns what to tell the user."""
    where = token_file.path()
    if token_file.passphrase() is None:
        if not _terminal():
            raise Refused(
                f"the encrypted token file needs a passphrase: set {token_file.PASSPHRASE_ENV}, "
                "or run this at a terminal"
            )
        chosen = getpass.getpass(f"New passphrase for {where}: ")
        if not chosen or chosen != getpass.getpass("The same passphrase again: "):
            raise Refused("the passphrases were empty or did not match; nothing was written")
        token_file.remember_passphrase(chosen)
    existed = where.is_file()
    try:
        token_file.TokenFile(where).create()
    except token_file.TokenFileError as exc:
        raise Refused(str(exc)) from exc
    return f"sign-in tokens are kept in {where}" + ("" if existed else " (new, encrypted)")


def _terminal() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()
