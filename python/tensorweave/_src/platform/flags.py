"""A small absl-style flags library (TF1's tf.flags / tf.app.flags), self-contained.

DEFINE_string/integer/float/boolean/bool/enum/list/multi_string register flags on FLAGS; `FLAGS(argv)` parses
`--name=value`, `--name value`, `--name`/`--noname` (booleans), `-name...` as `--name...`, and `--` ends the flags.
The global FLAGS parses sys.argv on the first attribute read (TF1's wrapper does); another FlagValues raises
UnparsedFlagAccessError when read before it is parsed (absl's).
"""

import sys as _sys


class Error(Exception):
    """The base class of the flag errors."""


class UnrecognizedFlagError(Error):
    def __init__(self, flagname, flagvalue="", suggestions=None):
        self.flagname = flagname
        self.flagvalue = flagvalue
        super().__init__(f"Unknown command line flag '{flagname}'")


class IllegalFlagValueError(Error):
    pass


class DuplicateFlagError(Error):
    pass


class UnparsedFlagAccessError(Error, AttributeError):
    pass


class Flag:
    """One flag: its name, default, help and current value."""

    boolean = False
    flag_type = "string"

    def __init__(self, name, default, help_string, short_name=None, **extra):
        self.name = name
        self.help = help_string
        self.short_name = short_name
        self.extra = extra
        self.present = 0
        self.using_default_value = True
        self.default = None if default is None else self._parse_default(default)
        self.value = self.default

    def _parse_default(self, default):
        return self.parse_value(default) if isinstance(default, str) else self.convert(default)

    def convert(self, value):
        return value

    def parse_value(self, text):
        return text

    def parse(self, text):
        try:
            value = self.parse_value(text)
        except (TypeError, ValueError) as e:
            raise IllegalFlagValueError(f"flag --{self.name}={text}: {e}") from None
        self.value = value
        self.present += 1
        self.using_default_value = False

    def _set_value(self, value):
        self.value = value
        self.using_default_value = False


class _StringFlag(Flag):
    def parse_value(self, text):
        return str(text)


class _NumericFlag(Flag):
    kind = int

    def _check(self, value):
        lower, upper = self.extra.get("lower_bound"), self.extra.get("upper_bound")
        if value is not None and ((lower is not None and value < lower) or (upper is not None and value > upper)):
            bounds = []
            if lower is not None:
                bounds.append(f">= {lower}")
            if upper is not None:
                bounds.append(f"<= {upper}")
            raise ValueError(f"{value} is not " + " and ".join(bounds))
        return value

    def parse_value(self, text):
        if self.kind is int:
            value = int(text, 0) if isinstance(text, str) else int(text)
        else:
            value = float(text)
        return self._check(value)

    def convert(self, value):
        return self._check(self.kind(value))


class _IntegerFlag(_NumericFlag):
    flag_type = "int"
    kind = int


class _FloatFlag(_NumericFlag):
    flag_type = "float"
    kind = float


class _BooleanFlag(Flag):
    boolean = True
    flag_type = "bool"

    def parse_value(self, text):
        if isinstance(text, bool):
            return text
        lowered = str(text).lower()
        if lowered in ("true", "t", "1"):
            return True
        if lowered in ("false", "f", "0"):
            return False
        raise ValueError("Non-boolean argument to boolean flag")

    def convert(self, value):
        return self.parse_value(value) if isinstance(value, (bool, int, str)) else bool(value)


class _EnumFlag(Flag):
    flag_type = "string enum"

    def parse_value(self, text):
        values = self.extra["enum_values"]
        if self.extra.get("case_sensitive", True):
            if text in values:
                return text
        else:
            for v in values:
                if v.lower() == str(text).lower():
                    return v
        raise ValueError(f"value should be one of <{'|'.join(values)}>")

    convert = parse_value


class _ListFlag(Flag):
    flag_type = "list"

    def parse_value(self, text):
        text = text.strip()
        return [s.strip() for s in text.split(",")] if text else []

    def convert(self, value):
        return list(value)


class _MultiStringFlag(Flag):
    flag_type = "multi string"

    def parse(self, text):
        if self.using_default_value or not isinstance(self.value, list):
            self.value = []
        try:
            self.value.append(str(text))
        except (TypeError, ValueError) as e:
            raise IllegalFlagValueError(str(e)) from None
        self.present += 1
        self.using_default_value = False

    def convert(self, value):
        return [value] if isinstance(value, str) else list(value)

    def parse_value(self, text):
        return [text]


class FlagValues:
    """A registry of flags: attribute access gives values; `FLAGS(argv)` parses and returns the remaining args."""

    def __init__(self, lazy=False):
        self.__dict__["_flags"] = {}
        self.__dict__["_parsed"] = False
        self.__dict__["_lazy"] = lazy
        self.__dict__["_required"] = []

    # Registration and lookup.
    def _register(self, flag):
        if flag.name in self._flags:
            raise DuplicateFlagError(f"The flag '{flag.name}' is defined twice.")
        self._flags[flag.name] = flag
        if flag.short_name:
            self._flags[flag.short_name] = flag

    def __contains__(self, name):
        return name in self._flags

    def __iter__(self):
        return iter(self._flags)

    def __getitem__(self, name):
        return self._flags[name]

    def __getattr__(self, name):
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(name)
        if not self.__dict__["_parsed"]:
            if self.__dict__["_lazy"]:
                self(_sys.argv)
            else:
                raise UnparsedFlagAccessError(f"Trying to access flag --{name} before flags were parsed.")
        return flags[name].value

    def __setattr__(self, name, value):
        if name not in self._flags:
            raise AttributeError(f"Unknown flag: {name}")
        self._flags[name]._set_value(value)

    def __delattr__(self, name):
        flag = self._flags.pop(name)
        if flag.short_name:
            self._flags.pop(flag.short_name, None)

    def is_parsed(self):
        return self._parsed

    def mark_as_parsed(self):
        self.__dict__["_parsed"] = True

    def unparse_flags(self):
        for flag in self._flags.values():
            flag.value = flag.default
            flag.using_default_value = True
            flag.present = 0
        self.__dict__["_parsed"] = False

    def flag_values_dict(self):
        return {name: flag.value for name, flag in self._flags.items()}

    def get_flag_value(self, name, default):
        return self._flags[name].value if name in self._flags else default

    def __call__(self, argv, known_only=False):
        """Parses the flags in argv[1:]; returns [argv[0]] + the arguments that are not flags (and, with
        known_only, the unknown flags)."""
        if isinstance(argv, str):
            raise TypeError("argv should be a tuple/list of strings, not bytes or string.")
        if not argv:
            raise ValueError("argv cannot be an empty list, and must contain the program name as the first element.")
        argv = list(argv)
        remaining = [argv[0]]
        args = argv[1:]
        i = 0
        while i < len(args):
            arg = args[i]
            i += 1
            if arg == "--":
                remaining.extend(args[i:])
                break
            if not arg.startswith("-") or arg == "-":
                remaining.append(arg)
                continue
            body = arg[2:] if arg.startswith("--") else arg[1:]
            name, has_value, value = body.partition("=")
            flag = self._flags.get(name)
            if flag is None and not has_value and name.startswith("no") and name[2:] in self._flags:  # noqa: SIM102
                if self._flags[name[2:]].boolean:
                    self._flags[name[2:]].parse(False)
                    continue
            if flag is None:
                if known_only:
                    remaining.append(arg)
                    continue
                raise UnrecognizedFlagError(name, value)
            if has_value:
                flag.parse(value)
            elif flag.boolean:
                flag.parse(True)
            elif i < len(args):
                flag.parse(args[i])
                i += 1
            else:
                raise Error(f"Missing value for flag {arg}")
        self.mark_as_parsed()
        for name in self._required:
            if name in self._flags and self._flags[name].value is None:
                raise IllegalFlagValueError(f"flag --{name}=None: Flag --{name} must have a value other than None.")
        return remaining


FLAGS = FlagValues(lazy=True)


def _define(cls, name, default, help, flag_values, **extra):
    flag = cls(name, default, help, **extra)
    flag_values._register(flag)
    return flag


def DEFINE_string(name, default, help, flag_values=FLAGS, **args):
    return _define(_StringFlag, name, default, help, flag_values, **args)


def DEFINE_integer(name, default, help, lower_bound=None, upper_bound=None, flag_values=FLAGS, **args):
    return _define(
        _IntegerFlag, name, default, help, flag_values, lower_bound=lower_bound, upper_bound=upper_bound, **args
    )


def DEFINE_float(name, default, help, lower_bound=None, upper_bound=None, flag_values=FLAGS, **args):
    return _define(
        _FloatFlag, name, default, help, flag_values, lower_bound=lower_bound, upper_bound=upper_bound, **args
    )


def DEFINE_boolean(name, default, help, flag_values=FLAGS, **args):
    return _define(_BooleanFlag, name, default, help, flag_values, **args)


DEFINE_bool = DEFINE_boolean


def DEFINE_enum(name, default, enum_values, help, flag_values=FLAGS, case_sensitive=True, **args):
    if not enum_values:
        raise ValueError(f"enum_values cannot be empty, found '{enum_values}'")
    return _define(
        _EnumFlag,
        name,
        default,
        help,
        flag_values,
        enum_values=list(enum_values),
        case_sensitive=case_sensitive,
        **args,
    )


def DEFINE_list(name, default, help, flag_values=FLAGS, **args):
    return _define(_ListFlag, name, default, help, flag_values, **args)


def DEFINE_multi_string(name, default, help, flag_values=FLAGS, **args):
    return _define(_MultiStringFlag, name, default, help, flag_values, **args)


def mark_flag_as_required(flag_name, flag_values=FLAGS):
    """Parsing fails (IllegalFlagValueError) while the flag's value is None."""
    if flag_name in flag_values and flag_values[flag_name].default is not None:
        from tensorweave._src.platform import tf_logging

        tf_logging.warning(
            "Flag --%s has a non-None default value; therefore, mark_flag_as_required will pass even if flag is not specified in the command line!",
            flag_name,
        )
    flag_values._required.append(flag_name)


def mark_flags_as_required(flag_names, flag_values=FLAGS):
    for name in flag_names:
        mark_flag_as_required(name, flag_values)


__all__ = [
    "FLAGS",
    "DEFINE_bool",
    "DEFINE_boolean",
    "DEFINE_enum",
    "DEFINE_float",
    "DEFINE_integer",
    "DEFINE_list",
    "DEFINE_multi_string",
    "DEFINE_string",
    "DuplicateFlagError",
    "Error",
    "Flag",
    "FlagValues",
    "IllegalFlagValueError",
    "UnparsedFlagAccessError",
    "UnrecognizedFlagError",
    "mark_flag_as_required",
    "mark_flags_as_required",
]
