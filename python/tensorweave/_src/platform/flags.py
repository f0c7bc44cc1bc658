"""A small absl-style flags library (TF1's tf.flags / tf.app.flags), self-contained.

Follows absl.flags: a Flag pairs an ArgumentParser (text -> value) with an ArgumentSerializer (value -> text);
DEFINE_* register flags on a FlagValues and return a FlagHolder. `FLAGS(argv)` parses `--name=value`,
`--name value`, `--name`/`--noname` (booleans), `-name...` as `--name...`, and `--` ends the flags; then
every validator runs. The global FLAGS parses sys.argv on the first attribute read (TF1's wrapper does);
another FlagValues raises UnparsedFlagAccessError when read before it is parsed (absl's).
"""

import csv as _csv
import enum as _enum
import io as _io
import os as _os
import re as _re
import shutil as _shutil
import sys as _sys
import textwrap as _textwrap
import warnings as _warnings


# Errors.
class Error(Exception):
    """The base class of the flag errors."""


class CantOpenFlagFileError(Error):
    """A --flagfile could not be read."""


class DuplicateFlagError(Error):
    """A flag name was defined twice."""

    @classmethod
    def from_flag(cls, flagname, flag_values, other_flag_values=None):
        return cls(f"The flag '{flagname}' is defined twice.")


class IllegalFlagValueError(Error):
    """A flag was given a value its parser or a validator rejects."""


class UnrecognizedFlagError(Error):
    """A flag name that is not defined."""

    def __init__(self, flagname, flagvalue="", suggestions=None):
        self.flagname = flagname
        self.flagvalue = flagvalue
        tip = f". Did you mean: {', '.join(suggestions)} ?" if suggestions else ""
        super().__init__(f"Unknown command line flag '{flagname}'{tip}")


class UnparsedFlagAccessError(Error, AttributeError):
    """A flag value was read before the flags were parsed."""


class ValidationError(Error):
    """A validator rejected the flag values."""


class FlagNameConflictsWithMethodError(Error):
    """A flag name is the name of a FlagValues method."""


# Parsers and serializers.
class ArgumentParser:
    """Parses a command-line string into a value (raises ValueError/TypeError when it is not legal)."""

    syntactic_help = ""

    def parse(self, argument):
        if not isinstance(argument, str):
            raise TypeError(f'flag value must be a string, found "{type(argument)}"')
        return argument

    def flag_type(self):
        return "string"


class ArgumentSerializer:
    """Turns a flag value back into command-line text."""

    def serialize(self, value):
        return str(value)


class _NumericParser(ArgumentParser):
    number_article = "a"
    number_name = "number"

    def __init__(self, lower_bound=None, upper_bound=None):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        sh = f"{self.number_article} {self.number_name}"
        if lower_bound is not None and upper_bound is not None:
            sh = f"{sh} in the range [{lower_bound}, {upper_bound}]"
        elif lower_bound == 1 and self.number_name == "integer":
            sh = "a positive integer"
        elif upper_bound == -1 and self.number_name == "integer":
            sh = "a negative integer"
        elif lower_bound == 0:
            sh = f"a non-negative {self.number_name}"
        elif upper_bound == 0:
            sh = f"a non-positive {self.number_name}"
        elif upper_bound is not None:
            sh = f"{self.number_name} <= {upper_bound}"
        elif lower_bound is not None:
            sh = f"{self.number_name} >= {lower_bound}"
        self.syntactic_help = sh

    def is_outside_bounds(self, val):
        return (self.lower_bound is not None and val < self.lower_bound) or (
            self.upper_bound is not None and val > self.upper_bound
        )

    def parse(self, argument):
        val = self.convert(argument)
        if self.is_outside_bounds(val):
            raise ValueError(f"{val} is not {self.syntactic_help}")
        return val


class FloatParser(_NumericParser):
    """Parses a float, optionally bounded."""

    number_article = "a"
    number_name = "number"

    def convert(self, argument):
        if isinstance(argument, (float, str)) or (isinstance(argument, int) and not isinstance(argument, bool)):
            return float(argument)
        raise TypeError(f"Expect argument to be a string, int, or float, found {type(argument)}")

    def flag_type(self):
        return "float"


class IntegerParser(_NumericParser):
    """Parses an integer (decimal, or 0x/0o prefixed), optionally bounded."""

    number_article = "an"
    number_name = "integer"

    def convert(self, argument):
        if isinstance(argument, int) and not isinstance(argument, bool):
            return argument
        if isinstance(argument, str):
            base = 10
            if len(argument) > 2 and argument[0] == "0":
                base = {"o": 8, "x": 16}.get(argument[1], 10)
            return int(argument, base)
        raise TypeError(f"Expect argument to be a string or int, found {type(argument)}")

    def flag_type(self):
        return "int"


class BooleanParser(ArgumentParser):
    """Parses true/t/1 and false/f/0 (any case), or a bool/0/1."""

    def parse(self, argument):
        if isinstance(argument, str):
            if argument.lower() in ("true", "t", "1"):
                return True
            if argument.lower() in ("false", "f", "0"):
                return False
            raise ValueError("Non-boolean argument to boolean flag", argument)
        if isinstance(argument, int):
            if argument == bool(argument):
                return bool(argument)
            raise ValueError("Non-boolean argument to boolean flag", argument)
        raise TypeError("Non-boolean argument to boolean flag", argument)

    def flag_type(self):
        return "bool"


class EnumParser(ArgumentParser):
    """Parses one string of a given set (case-insensitively when asked; the set's spelling is returned)."""

    def __init__(self, enum_values, case_sensitive=True):
        if not enum_values:
            raise ValueError(f'enum_values cannot be empty, found "{enum_values}"')
        if isinstance(enum_values, str):
            raise ValueError(f'enum_values cannot be a str, found "{enum_values}"')  # noqa: TRY004  (absl: ValueError)
        self.enum_values = list(enum_values)
        self.case_sensitive = case_sensitive

    def parse(self, argument):
        if self.case_sensitive:
            if argument in self.enum_values:
                return argument
        else:
            for value in self.enum_values:
                if value.upper() == argument.upper():
                    return value
        raise ValueError(f"value should be one of <{'|'.join(self.enum_values)}>")

    def flag_type(self):
        return "string enum"


class EnumClassParser(ArgumentParser):
    """Parses a member (or a member's name) of an enum.Enum class."""

    def __init__(self, enum_class, case_sensitive=True):
        if not (isinstance(enum_class, type) and issubclass(enum_class, _enum.Enum)):
            raise TypeError(f"{enum_class} is not a subclass of Enum.")
        if not enum_class.__members__:
            raise ValueError(f'enum_class cannot be empty, but "{enum_class}" is empty.')
        if not case_sensitive:
            lowered = [name.lower() for name in enum_class.__members__]
            duplicates = {n for n in lowered if lowered.count(n) > 1}
            if duplicates:
                raise ValueError(f"Duplicate enum values for {duplicates} using case_sensitive=False")
        self.enum_class = enum_class
        self._case_sensitive = case_sensitive
        names = tuple(enum_class.__members__)
        self._member_names = names if case_sensitive else tuple(n.lower() for n in names)

    @property
    def member_names(self):
        return self._member_names

    def parse(self, argument):
        if isinstance(argument, self.enum_class):
            return argument
        if not isinstance(argument, str):
            raise ValueError(f"{argument} is not an enum member or a name of a member in {self.enum_class}")  # noqa: TRY004  (absl: ValueError)
        key = EnumParser(self._member_names, case_sensitive=self._case_sensitive).parse(argument)
        for name, value in self.enum_class.__members__.items():
            if name == key or (not self._case_sensitive and name.lower() == key.lower()):
                return value
        raise ValueError(f"{argument} is not a member of {self.enum_class}")

    def flag_type(self):
        return "enum class"


class ListSerializer(ArgumentSerializer):
    """Joins list items with a separator."""

    def __init__(self, list_sep):
        self.list_sep = list_sep

    def serialize(self, value):
        return self.list_sep.join(str(x) for x in value)


class CsvListSerializer(ListSerializer):
    """Writes a list as one CSV row (items with the separator get quoted)."""

    def serialize(self, value):
        output = _io.StringIO()
        _csv.writer(output, delimiter=self.list_sep).writerow([str(x) for x in value])
        return output.getvalue().strip()


class EnumClassSerializer(ArgumentSerializer):
    """Writes an enum member's name (lowercased when asked)."""

    def __init__(self, lowercase):
        self._lowercase = lowercase

    def serialize(self, value):
        name = str(value.name)
        return name.lower() if self._lowercase else name


class EnumClassListSerializer(ListSerializer):
    """Joins enum members' names with a separator."""

    def __init__(self, list_sep, **kwargs):
        super().__init__(list_sep)
        self._element_serializer = EnumClassSerializer(**kwargs)

    def serialize(self, value):
        if isinstance(value, list):
            return self.list_sep.join(self._element_serializer.serialize(x) for x in value)
        return self._element_serializer.serialize(value)


class BaseListParser(ArgumentParser):
    """Splits a string on a token into stripped items."""

    def __init__(self, token=None, name=None):
        if not name:
            raise ValueError("BaseListParser needs the separator's name")
        self._token = token
        self._name = name
        self.syntactic_help = f"a {name} separated list"

    def parse(self, argument):
        if isinstance(argument, list):
            return argument
        if not argument:
            return []
        return [s.strip() for s in argument.split(self._token)]

    def flag_type(self):
        return f"{self._name} separated list of strings"


class ListParser(BaseListParser):
    """Parses a comma-separated list (CSV quoting rules)."""

    def __init__(self):
        super().__init__(",", "comma")

    def parse(self, argument):
        if isinstance(argument, list):
            return argument
        if not argument:
            return []
        try:
            return [s.strip() for s in next(_csv.reader([argument], strict=True))]
        except _csv.Error as e:
            raise ValueError(f"Unable to parse the value {argument!r} as a {self.flag_type()}: {e}") from e


class WhitespaceSeparatedListParser(BaseListParser):
    """Parses a whitespace-separated list (and commas too with comma_compat)."""

    def __init__(self, comma_compat=False):
        self._comma_compat = comma_compat
        super().__init__(None, "whitespace or comma" if comma_compat else "whitespace")

    def parse(self, argument):
        if isinstance(argument, list):
            return argument
        if not argument:
            return []
        if self._comma_compat:
            argument = argument.replace(",", " ")
        return argument.split()


# Flags.
class Flag:
    """One flag: its parser and serializer, name, default, help and current value."""

    def __init__(
        self,
        parser,
        serializer,
        name,
        default,
        help_string,
        short_name=None,
        boolean=False,
        allow_override=False,
        allow_override_cpp=False,
        allow_hide_cpp=False,
        allow_overwrite=True,
        allow_using_method_names=False,
    ):
        self.name = name
        self.help = help_string or "(no help available)"
        self.short_name = short_name
        self.boolean = boolean
        self.present = 0
        self.parser = parser
        self.serializer = serializer
        self.allow_override = allow_override
        self.allow_override_cpp = allow_override_cpp
        self.allow_hide_cpp = allow_hide_cpp
        self.allow_overwrite = allow_overwrite
        self.allow_using_method_names = allow_using_method_names
        self.using_default_value = True
        self._value = None
        self.validators = []
        self._set_default(default)

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, value):
        self._value = value

    def __bool__(self):
        raise TypeError("A Flag instance would always be True. Did you mean to test the `.value` attribute?")

    def parse(self, argument):
        if self.present and not self.allow_overwrite:
            raise IllegalFlagValueError(f"flag --{self.name}={argument}: already defined as {self.value}")
        self.value = self._parse(argument)
        self.present += 1

    def _parse(self, argument):
        try:
            return self.parser.parse(argument)
        except (TypeError, ValueError, OverflowError) as e:
            raise IllegalFlagValueError(f"flag --{self.name}={argument}: {e}") from None

    def unparse(self):
        self.value = self.default
        self.using_default_value = True
        self.present = 0

    def serialize(self):
        return self._serialize(self.value)

    def _serialize(self, value):
        if value is None:
            return ""
        if self.boolean:
            return f"--{self.name}" if value else f"--no{self.name}"
        if not self.serializer:
            raise Error(f"Serializer not present for flag {self.name}")
        return f"--{self.name}={self.serializer.serialize(value)}"

    def _set_default(self, value):
        self.default_unparsed = value
        self.default = None if value is None else self._parse_from_default(value)
        if self.default is None:
            self.default_as_str = None
        elif self.serializer:
            self.default_as_str = repr(self.serializer.serialize(self.default))
        elif self.boolean:
            self.default_as_str = repr("true" if self.default else "false")
        else:
            self.default_as_str = repr(str(self.default))
        if self.using_default_value:
            self.value = self.default

    def _parse_from_default(self, value):
        return self._parse(value)

    def flag_type(self):
        return self.parser.flag_type()


class BooleanFlag(Flag):
    """A flag with no argument: `--name` sets True, `--noname` False."""

    def __init__(self, name, default, help, short_name=None, **args):
        super().__init__(BooleanParser(), None, name, default, help, short_name, True, **args)


class EnumFlag(Flag):
    """A flag whose value is one string of enum_values."""

    def __init__(self, name, default, help, enum_values, short_name=None, case_sensitive=True, **args):
        p = EnumParser(enum_values, case_sensitive)
        super().__init__(p, ArgumentSerializer(), name, default, help, short_name, **args)
        self.help = f"<{'|'.join(p.enum_values)}>: {self.help}"


class EnumClassFlag(Flag):
    """A flag whose value is a member of an enum.Enum class."""

    def __init__(self, name, default, help, enum_class, short_name=None, case_sensitive=False, **args):
        p = EnumClassParser(enum_class, case_sensitive=case_sensitive)
        s = EnumClassSerializer(lowercase=not case_sensitive)
        super().__init__(p, s, name, default, help, short_name, **args)
        self.help = f"<{'|'.join(p.member_names)}>: {self.help}"


class MultiFlag(Flag):
    """A flag that may repeat; its value is the list of every occurrence's value."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.help += ";\n    repeat this option to specify a list of values"

    def parse(self, arguments):
        new_values = self._parse(arguments)
        if self.present:
            self.value.extend(new_values)
        else:
            self.value = new_values
        self.present += len(new_values)

    def _parse(self, arguments):
        if isinstance(arguments, str):
            items = [arguments]
        else:
            try:
                items = list(arguments)
            except TypeError:
                items = [arguments]
        return [Flag._parse(self, item) for item in items]

    def _serialize(self, value):
        if not self.serializer:
            raise Error(f"Serializer not present for flag {self.name}")
        if value is None:
            return ""
        return "\n".join(Flag._serialize(self, item) for item in value)

    def flag_type(self):
        return "multi " + self.parser.flag_type()


class MultiEnumClassFlag(MultiFlag):
    """A repeatable flag whose values are members of an enum.Enum class."""

    def __init__(self, name, default, help_string, enum_class, case_sensitive=False, **args):
        p = EnumClassParser(enum_class, case_sensitive=case_sensitive)
        s = EnumClassListSerializer(list_sep=",", lowercase=not case_sensitive)
        super().__init__(p, s, name, default, help_string, **args)
        self.help = (
            f"<{'|'.join(p.member_names)}>: {help_string or '(no help available)'};\n"
            "    repeat this option to specify a list of values"
        )


# Validators.
class _Validator:
    _count = 0

    def __init__(self, flag_names, checker, message, single):
        _Validator._count += 1
        self.insertion_index = _Validator._count
        self.flag_names = list(flag_names)
        self.checker = checker
        self.message = message
        self.single = single

    def verify(self, flag_values):
        values = {n: flag_values[n].value for n in self.flag_names}
        arg = values[self.flag_names[0]] if self.single else values
        if not self.checker(arg):
            raise ValidationError(self.message)

    def describe(self, flag_values):
        if self.single:
            return f"flag --{self.flag_names[0]}={flag_values[self.flag_names[0]].value}"
        return "flags " + ", ".join(f"{n}={flag_values[n].value}" for n in self.flag_names)


_METHOD_NAMES = frozenset(
    (
        "is_parsed",
        "mark_as_parsed",
        "unparse_flags",
        "flag_values_dict",
        "get_flag_value",
        "set_default",
        "validate_all_flags",
        "append_flag_values",
        "remove_flag_values",
        "read_flags_from_files",
        "sanitize",
    )
)


class FlagValues:
    """A registry of flags: attribute access gives values; `FLAGS(argv)` parses and returns the remaining args."""

    def __init__(self, lazy=False):
        self.__dict__["_flags"] = {}
        self.__dict__["_parsed"] = False
        self.__dict__["_lazy"] = lazy
        self.__dict__["_key_flags"] = set()
        self.__dict__["__flags"] = self.__dict__["_flags"]  # TF1 programs read FLAGS.__flags (absl's dict)

    # Registration and lookup.
    def __setitem__(self, name, flag):
        if not isinstance(flag, Flag):
            raise IllegalFlagValueError(
                f"Expect Flag instances, found type {type(flag)}. Maybe you didn't mean to use FlagValue.__setitem__?"
            )
        if not isinstance(name, str):
            raise Error("Flag name must be a string")
        if not name:
            raise Error("Flag name cannot be empty")
        if " " in name:
            raise Error("Flag name cannot contain a space")
        if name in _METHOD_NAMES and not flag.allow_using_method_names:
            raise FlagNameConflictsWithMethodError(
                f'Cannot define a flag named "{name}". It conflicts with a method on class "{type(self).__name__}". '
                "To allow defining it, use allow_using_method_names and access the flag value with "
                f"FLAGS['{name}'].value. FLAGS.{name} returns the method, not the flag value."
            )
        flags = self._flags
        if name in flags and not flag.allow_override and not flags[name].allow_override:
            raise DuplicateFlagError.from_flag(name, self)
        flags[name] = flag
        if flag.short_name:
            if flag.short_name in flags and flags[flag.short_name] is not flag and not flag.allow_override:
                raise DuplicateFlagError.from_flag(flag.short_name, self)
            flags[flag.short_name] = flag

    def _register(self, flag):
        self[flag.name] = flag

    def append_flag_values(self, flag_values):
        """Registers here every flag of another FlagValues (DuplicateFlagError for a name already used)."""
        for name, flag in flag_values._flags.items():
            if name == flag.name:
                self[name] = flag

    def remove_flag_values(self, flag_values):
        """Removes the flags named by another FlagValues (or an iterable of names)."""
        for name in list(flag_values):
            self.__delattr__(name)

    def __dir__(self):
        return sorted(self._flags)

    def __contains__(self, name):
        return name in self._flags

    def __iter__(self):
        return iter(self._flags)

    def __len__(self):
        return len(self._flags)

    def __getitem__(self, name):
        return self._flags[name]

    def __getattr__(self, name):
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(name)
        if not self.__dict__["_parsed"]:
            if self.__dict__["_lazy"]:
                self(_sys.argv, known_only=True)
            else:
                raise UnparsedFlagAccessError(f"Trying to access flag --{name} before flags were parsed.")
        return flags[name].value

    def __setattr__(self, name, value):
        if name not in self._flags:
            raise AttributeError(f"Unknown flag: {name}")
        flag = self._flags[name]
        flag.value = value
        flag.using_default_value = False
        self._assert_validators(flag.validators)
        return value

    def __delattr__(self, name):
        if name not in self._flags:
            raise AttributeError(name)
        flag = self._flags.pop(name)
        if flag.short_name and self._flags.get(flag.short_name) is flag:
            del self._flags[flag.short_name]

    def is_parsed(self):
        return self._parsed

    def mark_as_parsed(self):
        self.__dict__["_parsed"] = True

    def unparse_flags(self):
        for flag in self._flags.values():
            flag.unparse()
        self.__dict__["_parsed"] = False

    def flag_values_dict(self):
        return {name: flag.value for name, flag in self._flags.items()}

    def get_flag_value(self, name, default):
        return self._flags[name].value if name in self._flags else default

    def set_default(self, name, value):
        """Changes a flag's default (and its value while it still uses the default)."""
        if name not in self._flags:
            raise UnrecognizedFlagError(name, value)
        self._flags[name]._set_default(value)
        self._assert_validators(self._flags[name].validators)

    def validate_all_flags(self):
        validators = set()
        for flag in self._flags.values():
            validators.update(flag.validators)
        self._assert_validators(validators)

    def _assert_validators(self, validators):
        messages = []
        bad = set()
        for v in sorted(validators, key=lambda v: v.insertion_index):
            if bad.intersection(v.flag_names):
                continue
            try:
                v.verify(self)
            except ValidationError as e:
                bad.update(v.flag_names)
                messages.append(f"{v.describe(self)}: {e}")
        if messages:
            raise IllegalFlagValueError("\n".join(messages))

    def __call__(self, argv, known_only=False):
        """Parses the flags in argv[1:]; returns [argv[0]] + the arguments that are not flags (and, with
        known_only, the unknown flags)."""
        if isinstance(argv, (str, bytes)):
            raise TypeError("argv should be a tuple/list of strings, not bytes or string.")
        if not argv:
            raise ValueError("argv cannot be an empty list, and must contain the program name as the first element.")
        argv = list(argv)
        remaining = [argv[0]]
        args = _expand_flagfiles(argv[1:], [])
        flags = self._flags
        i = 0
        while i < len(args):
            arg = args[i]
            i += 1
            if arg == "--":
                remaining.extend(args[i:])
                break
            if not isinstance(arg, str) or not arg.startswith("-") or arg == "-":
                remaining.append(arg)
                continue
            body = arg[2:] if arg.startswith("--") else arg[1:]
            name, has_value, value = body.partition("=")
            flag = flags.get(name)
            if not name:
                remaining.append(arg)
                continue
            if flag is None and not has_value and name.startswith("no") and name[2:] in flags:
                negated = flags[name[2:]]
                if negated.boolean:
                    negated.parse("false")
                    negated.using_default_value = False
                    continue
            if flag is None:
                if known_only:
                    remaining.append(arg)
                    continue
                raise UnrecognizedFlagError(name, value, _suggestions(name, list(flags)))
            if has_value:
                flag.parse(value)
            elif flag.boolean:
                flag.parse("true")
            elif i < len(args):
                flag.parse(args[i])
                i += 1
            else:
                raise Error(f"Missing value for flag {arg}")
            flag.using_default_value = False
        self.mark_as_parsed()
        self.validate_all_flags()
        return remaining

    def read_flags_from_files(self, argv, force_gnu=True):
        """argv with each `--flagfile=<file>` replaced by the flag lines of that file (recursively)."""
        del force_gnu
        return argv[:1] + _expand_flagfiles(list(argv[1:]), [])


def _edit_distance(a, b):
    """Damerau-Levenshtein distance (adjacent transpositions count 1)."""
    rows = [list(range(len(b) + 1))] + [[i] + [0] * len(b) for i in range(1, len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d = min(d, rows[i - 2][j - 2] + 1)
            rows[i][j] = d
    return rows[len(a)][len(b)]


def _suggestions(attempt, names):
    """The defined names nearest to an unknown one (absl's: within half its length in edits of their prefix)."""
    if len(attempt) <= 2 or not names:
        return []
    distances = sorted((_edit_distance(attempt, name[: len(attempt)]), name) for name in names)
    least = distances[0][0]
    if least >= 0.5 * len(attempt):
        return []
    return [name for errors, name in distances if errors == least]


def _expand_flagfiles(args, stack):
    """Replaces --flagfile=<file> (or -flagfile, or with the name as the next argument) by the file's lines that
    are not blank or comments (# or //); arguments after `--` are left alone."""
    out = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            out.extend(args[i - 1 :])
            break
        if not isinstance(arg, str) or arg.lstrip("-").partition("=")[0] != "flagfile" or not arg.startswith("-"):
            out.append(arg)
            continue
        _, has_value, filename = arg.partition("=")
        if not has_value:
            if i >= len(args):
                raise IllegalFlagValueError("--flagfile with no argument")
            filename = args[i]
            i += 1
        filename = _os.path.expanduser(filename.strip())
        if not filename:
            continue
        if filename in stack:
            _sys.stderr.write(f"Warning: Hit circular flagfile dependency. Ignoring flagfile: {filename}\n")
            continue
        try:
            with open(filename) as f:
                lines = [line.strip() for line in f]
        except OSError as e:
            raise CantOpenFlagFileError(f"ERROR:: Unable to open flagfile: {e}") from None
        lines = [line for line in lines if line and not line.startswith(("#", "//"))]
        out.extend(_expand_flagfiles(lines, [*stack, filename]))
    return out


FLAGS = FlagValues(lazy=True)


class FlagHolder:
    """What DEFINE_* return: `.value` reads the flag (parsing the global FLAGS first, as attribute reads do)."""

    def __init__(self, flag_values, flag, ensure_non_none_value=False):
        self._flagvalues = flag_values
        self._name = flag.name
        self._ensure_non_none_value = ensure_non_none_value

    def __eq__(self, other):
        raise TypeError(
            f"unsupported operand type(s) for ==: '{type(self).__name__}' and '{type(other).__name__}' "
            f"(did you mean to use '{type(self).__name__}.value' instead?)"
        )

    def __bool__(self):
        raise TypeError(
            f"bool() not supported for instances of type '{type(self).__name__}' "
            f"(did you mean to use '{type(self).__name__}.value' instead?)"
        )

    __hash__ = object.__hash__
    __nonzero__ = __bool__

    @property
    def name(self):
        return self._name

    @property
    def value(self):
        val = getattr(self._flagvalues, self._name)
        if self._ensure_non_none_value and val is None:
            raise IllegalFlagValueError(f"Unexpected None value for flag {self._name}")
        return val

    @property
    def default(self):
        return self._flagvalues[self._name].default

    @property
    def present(self):
        return bool(self._flagvalues[self._name].present)

    def serialize(self):
        return self._flagvalues[self._name].serialize()


def _resolve(flag_name, flag_values):
    if isinstance(flag_name, FlagHolder):
        return flag_name.name, flag_name._flagvalues
    return flag_name, flag_values


def _resolve_many(flag_names, flag_values):
    names = []
    for name in flag_names:
        name, flag_values = _resolve(name, flag_values)
        names.append(name)
    return names, flag_values


# Defining flags.
def DEFINE_flag(flag, flag_values=FLAGS, module_name=None, required=False):
    """Registers a Flag object; returns its FlagHolder."""
    if required and flag.default is not None:
        raise ValueError(f"Required flag --{flag.name} needs to have None as default")
    flag_values[flag.name] = flag
    flag_values._key_flags.add(flag.name)
    holder = FlagHolder(flag_values, flag, ensure_non_none_value=required)
    if required:
        mark_flag_as_required(flag.name, flag_values)
    return holder


def DEFINE(parser, name, default, help, flag_values=FLAGS, serializer=None, module_name=None, required=False, **args):
    """Defines a flag of any type from a parser (and serializer)."""
    return DEFINE_flag(Flag(parser, serializer, name, default, help, **args), flag_values, module_name, required)


def DEFINE_multi(parser, serializer, name, default, help, flag_values=FLAGS, module_name=None, required=False, **args):
    """Defines a repeatable flag from a parser and serializer."""
    return DEFINE_flag(MultiFlag(parser, serializer, name, default, help, **args), flag_values, module_name, required)


def _register_bounds_validator(parser, name, flag_values):
    if parser.lower_bound is not None or parser.upper_bound is not None:

        def checker(value):
            if value is not None and parser.is_outside_bounds(value):
                raise ValidationError(f"{value} is not {parser.syntactic_help}")
            return True

        register_validator(name, checker, flag_values=flag_values)


def _register_multi_bounds_validator(parser, name, flag_values):
    if parser.lower_bound is not None or parser.upper_bound is not None:

        def checker(values):
            for value in values or []:
                if parser.is_outside_bounds(value):
                    raise ValidationError(f"{value} is not {parser.syntactic_help}")
            return True

        register_validator(name, checker, flag_values=flag_values)


def DEFINE_string(name, default, help, flag_values=FLAGS, required=False, **args):
    return DEFINE(ArgumentParser(), name, default, help, flag_values, ArgumentSerializer(), required=required, **args)


def DEFINE_boolean(name, default, help, flag_values=FLAGS, module_name=None, required=False, **args):
    return DEFINE_flag(BooleanFlag(name, default, help, **args), flag_values, module_name, required)


DEFINE_bool = DEFINE_boolean


def DEFINE_float(name, default, help, lower_bound=None, upper_bound=None, flag_values=FLAGS, required=False, **args):
    parser = FloatParser(lower_bound, upper_bound)
    holder = DEFINE(parser, name, default, help, flag_values, ArgumentSerializer(), required=required, **args)
    _register_bounds_validator(parser, name, flag_values)
    return holder


def DEFINE_integer(name, default, help, lower_bound=None, upper_bound=None, flag_values=FLAGS, required=False, **args):
    parser = IntegerParser(lower_bound, upper_bound)
    holder = DEFINE(parser, name, default, help, flag_values, ArgumentSerializer(), required=required, **args)
    _register_bounds_validator(parser, name, flag_values)
    return holder


def DEFINE_enum(name, default, enum_values, help, flag_values=FLAGS, module_name=None, required=False, **args):
    return DEFINE_flag(EnumFlag(name, default, help, enum_values, **args), flag_values, module_name, required)


def DEFINE_enum_class(
    name,
    default,
    enum_class,
    help,
    flag_values=FLAGS,
    module_name=None,
    case_sensitive=False,
    required=False,
    **args,
):
    flag = EnumClassFlag(name, default, help, enum_class, case_sensitive=case_sensitive, **args)
    return DEFINE_flag(flag, flag_values, module_name, required)


def DEFINE_list(name, default, help, flag_values=FLAGS, required=False, **args):
    return DEFINE(ListParser(), name, default, help, flag_values, CsvListSerializer(","), required=required, **args)


def DEFINE_spaceseplist(name, default, help, comma_compat=False, flag_values=FLAGS, required=False, **args):
    parser = WhitespaceSeparatedListParser(comma_compat=comma_compat)
    return DEFINE(parser, name, default, help, flag_values, ListSerializer(" "), required=required, **args)


def DEFINE_multi_string(name, default, help, flag_values=FLAGS, required=False, **args):
    return DEFINE_multi(
        ArgumentParser(), ArgumentSerializer(), name, default, help, flag_values, required=required, **args
    )


def _define_multi_bounded(parser, name, default, help, flag_values, required, args):
    holder = DEFINE_multi(parser, ArgumentSerializer(), name, default, help, flag_values, required=required, **args)
    _register_multi_bounds_validator(parser, name, flag_values)
    return holder


def DEFINE_multi_integer(
    name, default, help, lower_bound=None, upper_bound=None, flag_values=FLAGS, required=False, **args
):
    parser = IntegerParser(lower_bound, upper_bound)
    return _define_multi_bounded(parser, name, default, help, flag_values, required, args)


def DEFINE_multi_float(
    name, default, help, lower_bound=None, upper_bound=None, flag_values=FLAGS, required=False, **args
):
    parser = FloatParser(lower_bound, upper_bound)
    return _define_multi_bounded(parser, name, default, help, flag_values, required, args)


def DEFINE_multi_enum(
    name,
    default,
    enum_values,
    help,
    flag_values=FLAGS,
    case_sensitive=True,
    required=False,
    **args,
):
    parser = EnumParser(enum_values, case_sensitive=case_sensitive)
    return DEFINE_multi(parser, ArgumentSerializer(), name, default, help, flag_values, required=required, **args)


def DEFINE_multi_enum_class(
    name,
    default,
    enum_class,
    help,
    flag_values=FLAGS,
    module_name=None,
    case_sensitive=False,
    required=False,
    **args,
):
    flag = MultiEnumClassFlag(name, default, help, enum_class, case_sensitive=case_sensitive, **args)
    return DEFINE_flag(flag, flag_values, module_name, required)


def DEFINE_alias(name, original_name, flag_values=FLAGS, module_name=None):
    """Defines --name as another name of the existing flag --original_name."""
    if original_name not in flag_values:
        raise UnrecognizedFlagError(original_name)
    flag = flag_values[original_name]

    class _FlagAlias(Flag):
        def parse(self, argument):
            flag.parse(argument)
            self.present += 1

        def _parse_from_default(self, value):
            return value

        @property
        def value(self):
            return flag.value

        @value.setter
        def value(self, value):
            flag.value = value

    alias = _FlagAlias(
        flag.parser, flag.serializer, name, flag.default, f"Alias for --{flag.name}.", boolean=flag.boolean
    )
    return DEFINE_flag(alias, flag_values, module_name)


def set_default(flag_holder, value):
    """Changes a flag's default value (and its value while it is not set)."""
    flag_holder._flagvalues.set_default(flag_holder.name, value)


def override_value(flag_holder, value):
    """Sets a flag's value over the command line's; it must be a value the flag's parser returns unchanged."""
    fv = flag_holder._flagvalues
    parsed = fv[flag_holder.name]._parse(value)
    if parsed != value:
        raise IllegalFlagValueError(f"flag {flag_holder.name}: parsed value {parsed!r} not equal to original {value!r}")
    setattr(fv, flag_holder.name, value)


# Key flags (they only choose what help lists; kept for programs that call them).
def declare_key_flag(flag_name, flag_values=FLAGS):
    flag_name, flag_values = _resolve(flag_name, flag_values)
    if flag_name not in flag_values:
        raise UnrecognizedFlagError(flag_name)
    flag_values._key_flags.add(flag_name)


def adopt_module_key_flags(module, flag_values=FLAGS):
    if not hasattr(module, "__name__") or not isinstance(module, type(_sys)):
        raise Error(f"Expected a module object, not {module!r}.")


def disclaim_key_flags():
    """Marks the calling module as not defining key flags (no effect on parsing)."""


# Validators.
def register_validator(flag_name, checker, message="Flag validation failed", flag_values=FLAGS):
    """Adds a check of one flag's value, run at parse time and on every assignment."""
    flag_name, flag_values = _resolve(flag_name, flag_values)
    v = _Validator([flag_name], checker, message, single=True)
    flag_values[flag_name].validators.append(v)


def validator(flag_name, message="Flag validation failed", flag_values=FLAGS):
    """Decorator form of register_validator."""

    def decorate(function):
        register_validator(flag_name, function, message=message, flag_values=flag_values)
        return function

    return decorate


def register_multi_flags_validator(
    flag_names, multi_flags_checker, message="Flags validation failed", flag_values=FLAGS
):
    """Adds a check of several flags' values (the checker gets a {name: value} dict)."""
    flag_names, flag_values = _resolve_many(flag_names, flag_values)
    v = _Validator(flag_names, multi_flags_checker, message, single=False)
    for name in flag_names:
        flag_values[name].validators.append(v)


def multi_flags_validator(flag_names, message="Flag validation failed", flag_values=FLAGS):
    """Decorator form of register_multi_flags_validator."""

    def decorate(function):
        register_multi_flags_validator(flag_names, function, message=message, flag_values=flag_values)
        return function

    return decorate


def mark_flag_as_required(flag_name, flag_values=FLAGS):
    """Parsing fails (IllegalFlagValueError) while the flag's value is None."""
    flag_name, flag_values = _resolve(flag_name, flag_values)
    if flag_values[flag_name].default is not None:
        _warnings.warn(
            f"Flag --{flag_name} has a non-None default value; therefore, mark_flag_as_required will pass even if "
            "flag is not specified in the command line!",
            stacklevel=2,
        )
    register_validator(
        flag_name,
        lambda value: value is not None,
        message=f"Flag --{flag_name} must have a value other than None.",
        flag_values=flag_values,
    )


def mark_flags_as_required(flag_names, flag_values=FLAGS):
    for name in flag_names:
        mark_flag_as_required(name, flag_values)


def mark_flags_as_mutual_exclusive(flag_names, required=False, flag_values=FLAGS):
    """At most one (exactly one with required) of the flags may have a value other than None."""
    flag_names, flag_values = _resolve_many(flag_names, flag_values)
    for name in flag_names:
        if flag_values[name].default is not None:
            _warnings.warn(
                f"Flag --{name} has a non-None default value. That does not make sense with "
                "mark_flags_as_mutual_exclusive, which checks whether the listed flags have a value other than None.",
                stacklevel=2,
            )

    def check(flags_dict):
        count = sum(1 for val in flags_dict.values() if val is not None)
        if count == 1 or (not required and count == 0):
            return True
        raise ValidationError(
            f"{'Exactly' if required else 'At most'} one of ({', '.join(flag_names)}) must have a value other than None."
        )

    register_multi_flags_validator(flag_names, check, flag_values=flag_values)


def mark_bool_flags_as_mutual_exclusive(flag_names, required=False, flag_values=FLAGS):
    """At most one (exactly one with required) of the boolean flags may be True."""
    flag_names, flag_values = _resolve_many(flag_names, flag_values)
    for name in flag_names:
        if not flag_values[name].boolean:
            raise ValidationError(
                f"Flag --{name} is not Boolean, which is required for flags used in "
                "mark_bool_flags_as_mutual_exclusive."
            )

    def check(flags_dict):
        count = sum(bool(val) for val in flags_dict.values())
        if count == 1 or (not required and count == 0):
            return True
        raise ValidationError(f"{'Exactly' if required else 'At most'} one of ({', '.join(flag_names)}) must be True.")

    register_multi_flags_validator(flag_names, check, flag_values=flag_values)


# Helpers.
def get_help_width():
    """The width of help lines: the terminal's columns, 80 when there is no terminal."""
    return _shutil.get_terminal_size(fallback=(80, 1)).columns


def text_wrap(text, length=None, indent="", firstline_indent=None):
    """Wraps each paragraph of text to length columns with the given indents (empty lines kept)."""
    if length is None:
        length = get_help_width()
    if indent is None:
        indent = ""
    if firstline_indent is None:
        firstline_indent = indent
    if len(indent) >= length:
        raise ValueError("Length of indent exceeds length")
    if len(firstline_indent) >= length:
        raise ValueError("Length of first line indent exceeds length")
    text = text.expandtabs(4)
    result = []
    wrapper = _textwrap.TextWrapper(width=length, initial_indent=firstline_indent, subsequent_indent=indent)
    subsequent = _textwrap.TextWrapper(width=length, initial_indent=indent, subsequent_indent=indent)
    for paragraph in (p.strip() for p in text.splitlines()):
        if paragraph:
            result.extend(wrapper.wrap(paragraph))
        else:
            result.append("")
        wrapper = subsequent
    return "\n".join(result)


def flag_dict_to_args(flag_map, multi_flags=None):
    """Yields command-line arguments (`--k=v`, `--k`, `--nok`) for a {name: value} dict."""
    for key, value in flag_map.items():
        if value is None:
            yield f"--{key}"
        elif isinstance(value, bool):
            yield f"--{key}" if value else f"--no{key}"
        elif isinstance(value, (bytes, str)):
            yield f"--{key}={value}"
        else:
            try:
                if multi_flags and key in multi_flags:
                    for item in value:
                        yield f"--{key}={item}"
                else:
                    yield f"--{key}={','.join(str(item) for item in value)}"
            except TypeError:
                yield f"--{key}={value}"


def _trim_docstring(docstring):
    if not docstring:
        return ""
    lines = docstring.expandtabs().splitlines()
    indent = min((len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()), default=None)
    trimmed = [lines[0].strip()]
    if indent is not None:
        trimmed.extend(line[indent:].rstrip() for line in lines[1:])
    while trimmed and not trimmed[-1]:
        trimmed.pop()
    while trimmed and not trimmed[0]:
        trimmed.pop(0)
    return "\n".join(trimmed)


def doc_to_help(doc):
    """Turns a docstring into help text: trimmed, with single line breaks inside paragraphs joined."""
    doc = _re.sub("^[ \t]+$", "", doc.strip(), flags=_re.MULTILINE)
    doc = _trim_docstring(doc)
    return _re.sub(r"(?<=\S)\n(?=\S)", " ", doc, flags=_re.MULTILINE)


__all__ = [
    "DEFINE",
    "FLAGS",
    "ArgumentParser",
    "ArgumentSerializer",
    "BaseListParser",
    "BooleanFlag",
    "BooleanParser",
    "CantOpenFlagFileError",
    "CsvListSerializer",
    "DEFINE_alias",
    "DEFINE_bool",
    "DEFINE_boolean",
    "DEFINE_enum",
    "DEFINE_enum_class",
    "DEFINE_flag",
    "DEFINE_float",
    "DEFINE_integer",
    "DEFINE_list",
    "DEFINE_multi",
    "DEFINE_multi_enum",
    "DEFINE_multi_enum_class",
    "DEFINE_multi_float",
    "DEFINE_multi_integer",
    "DEFINE_multi_string",
    "DEFINE_spaceseplist",
    "DEFINE_string",
    "DuplicateFlagError",
    "EnumClassFlag",
    "EnumClassListSerializer",
    "EnumClassParser",
    "EnumClassSerializer",
    "EnumFlag",
    "EnumParser",
    "Error",
    "Flag",
    "FlagHolder",
    "FlagNameConflictsWithMethodError",
    "FlagValues",
    "FloatParser",
    "IllegalFlagValueError",
    "IntegerParser",
    "ListParser",
    "ListSerializer",
    "MultiEnumClassFlag",
    "MultiFlag",
    "UnparsedFlagAccessError",
    "UnrecognizedFlagError",
    "ValidationError",
    "WhitespaceSeparatedListParser",
    "adopt_module_key_flags",
    "declare_key_flag",
    "disclaim_key_flags",
    "doc_to_help",
    "flag_dict_to_args",
    "get_help_width",
    "mark_bool_flags_as_mutual_exclusive",
    "mark_flag_as_required",
    "mark_flags_as_mutual_exclusive",
    "mark_flags_as_required",
    "multi_flags_validator",
    "override_value",
    "register_multi_flags_validator",
    "register_validator",
    "set_default",
    "text_wrap",
    "validator",
]
