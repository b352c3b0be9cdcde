"""Penstock's Python exceptions: the command line's one-line messages, as Python exceptions."""


class PenstockError(Exception):
    """Base of every error Penstock raises."""


class InputError(PenstockError, ValueError):
    """Bad input: a wrong dtype or shape, a file that is not what its name says, a bad option."""


class EncodingError(InputError):
    """A row that cannot be encoded (``on_bad_row="fail"``): the message names the row and the rule."""


class InputNotFoundError(PenstockError, FileNotFoundError):
    """An input file that does not exist."""


_debug = False


def debug(on=True):
    """With ``debug(True)``, errors keep the Java exception (and its stack trace) as their cause."""
    global _debug
    _debug = bool(on)


def translate(e, where):
    """The Python exception for Java exception ``e`` raised while working on ``where``."""
    name = e.getClass().getName()
    message = str(e.getMessage()) if e.getMessage() is not None else name
    if name == "dev.penstock.quantum.EncodingException":
        err = EncodingError("%s: %s (on_bad_row='skip' leaves bad rows out)" % (where, message))
    elif name in ("java.nio.file.NoSuchFileException", "java.io.FileNotFoundException"):
        err = InputNotFoundError("%s: no such file" % where)
    elif name in ("java.lang.IllegalArgumentException", "dev.penstock.io.BadInputException", "java.lang.UnsupportedOperationException") \
            or isinstance(e, __import__("java.lang", fromlist=["IllegalArgumentException"]).IllegalArgumentException):
        err = InputError(message if message.startswith(str(where)) else "%s: %s" % (where, message))
    else:
        err = PenstockError("%s: %s (%s)" % (where, message, name))
    if _debug:
        err.__cause__ = e
    return err
