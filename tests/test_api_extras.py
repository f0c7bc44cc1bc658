"""The smaller TF1 top-level names: tw.flags' absl names (against absl.flags), tw.autograph, tw.resource_loader,
tw.sysconfig, load_op_library, wrap_function, the TypeSpec family, debugging/errors extras, sequence feature
columns (against TensorFlow's tf.compat.v1)."""

import enum

import numpy as np
import pytest
import tensorweave as tw

absl_flags = pytest.importorskip("absl.flags")


class Color(enum.Enum):
    RED = 1
    GREEN = 2


def _outcome(fl, scenario):
    """Runs scenario(fl) on a fresh FlagValues; returns its result or (error class name, message)."""
    fv = fl.FlagValues()
    try:
        return scenario(fl, fv)
    except Exception as e:  # noqa: BLE001  (compared against absl)
        return (type(e).__name__, str(e))


def _parse(fv, *args):
    rest = fv(["prog", *args])
    return rest, {name: fv[name].value for name in sorted(fv)}


def _multi(fl, fv, *args):
    fl.DEFINE_multi_integer("n", [1], "ints", lower_bound=0, flag_values=fv)
    fl.DEFINE_multi_float("x", None, "floats", flag_values=fv)
    fl.DEFINE_multi_enum("mode", ["a"], ["a", "b"], "modes", flag_values=fv)
    fl.DEFINE_multi_enum_class("color", [], Color, "colors", flag_values=fv)
    fl.DEFINE_spaceseplist("words", "p q", "words", flag_values=fv)
    fl.DEFINE_spaceseplist("wc", None, "words", comma_compat=True, flag_values=fv)
    fl.DEFINE_enum_class("one", Color.RED, Color, "one color", flag_values=fv)
    fl.DEFINE_list("names", "a,b", "names", flag_values=fv)
    return _parse(fv, *args)


MULTI_ARGS = [
    (),
    ("--n=3", "--n", "0x10", "--x=1.5", "--x=-2", "--mode=b", "--mode=a", "--color=green", "--color=RED"),
    ("--words=a  b\tc", "--wc=a,b c", "--one=green", '--names="x,y",z', "rest"),
    ("--n=-1",),
    ("--n=abc",),
    ("--mode=c",),
    ("--color=blue",),
    ("--one=Blue",),
    ("--x=nan", "--x=inf"),
    ("--undefined=1",),
]


@pytest.mark.parametrize("args", MULTI_ARGS)
def test_flags_multi_enum_class_lists_match_absl(args):
    want = _outcome(absl_flags, lambda fl, fv: _multi(fl, fv, *args))
    got = _outcome(tw.flags, lambda fl, fv: _multi(fl, fv, *args))
    if isinstance(want, tuple) and isinstance(want[0], str):
        assert got[0] == want[0], (got, want)
        assert got[1].split(":")[0] == want[1].split(":")[0]
    else:
        np.testing.assert_equal(got, want)


def _validators(fl, fv, *args):
    fl.DEFINE_integer("lo", None, "low", flag_values=fv)
    fl.DEFINE_integer("hi", None, "high", flag_values=fv)
    fl.DEFINE_string("a", None, "a", flag_values=fv)
    fl.DEFINE_string("b", None, "b", flag_values=fv)
    fl.DEFINE_boolean("p", False, "p", flag_values=fv)
    fl.DEFINE_boolean("q", False, "q", flag_values=fv)
    fl.register_validator("lo", lambda v: v is None or v % 2 == 0, message="lo must be even", flag_values=fv)

    @fl.multi_flags_validator(["lo", "hi"], message="lo must be <= hi", flag_values=fv)
    def _ordered(d):
        return d["lo"] is None or d["hi"] is None or d["lo"] <= d["hi"]

    fl.mark_flags_as_mutual_exclusive(["a", "b"], flag_values=fv)
    fl.mark_bool_flags_as_mutual_exclusive(["p", "q"], flag_values=fv)
    return _parse(fv, *args)


VALIDATOR_ARGS = [
    (),
    ("--lo=2", "--hi=4", "--a=x", "--p"),
    ("--lo=3",),
    ("--lo=6", "--hi=4"),
    ("--a=x", "--b=y"),
    ("--p", "--q"),
    ("--nop", "--q"),
]


@pytest.mark.parametrize("args", VALIDATOR_ARGS)
def test_flags_validators_match_absl(args):
    want = _outcome(absl_flags, lambda fl, fv: _validators(fl, fv, *args))
    got = _outcome(tw.flags, lambda fl, fv: _validators(fl, fv, *args))
    assert got == want


def test_flags_validator_runs_on_assignment_and_required_mutual_exclusion():
    for fl in (absl_flags, tw.flags):
        fv = fl.FlagValues()
        fl.DEFINE_integer("k", 4, "k", lower_bound=1, flag_values=fv)
        fl.DEFINE_string("a", None, "a", flag_values=fv)
        fl.DEFINE_string("b", None, "b", flag_values=fv)
        fl.mark_flags_as_mutual_exclusive(["a", "b"], required=True, flag_values=fv)
        with pytest.raises(fl.IllegalFlagValueError, match=r"Exactly one of \(a, b\)"):
            fv(["prog"])
        fv(["prog", "--a=1"])
        with pytest.raises(fl.IllegalFlagValueError, match="flag --k=0: 0 is not a positive integer"):
            fv.k = 0
        with pytest.raises(fl.ValidationError, match="not Boolean"):
            fl.mark_bool_flags_as_mutual_exclusive(["a", "k"], flag_values=fv)


def _holders(fl, fv):
    h = fl.DEFINE_integer("steps", 5, "steps", flag_values=fv)
    s = fl.DEFINE_string("name", "x", "name", flag_values=fv)
    alias = fl.DEFINE_alias("num_steps", "steps", flag_values=fv)
    fv(["prog", "--num_steps=7"])
    out = [type(h).__name__, h.name, h.value, h.default, h.present, alias.value, h.serialize()]
    fl.set_default(s, "y")
    out.append(s.value)
    fl.override_value(s, "z")
    fl.set_default(s, "w")
    out += [s.value, s.default, fv["name"].using_default_value]
    try:
        fl.override_value(h, "8")
    except fl.IllegalFlagValueError as e:
        out.append(str(e))
    for bad in (lambda: bool(h), lambda: h == 1):
        try:
            bad()
        except TypeError as e:
            out.append(type(e).__name__)
    return out


def test_flags_holder_alias_set_default_override_match_absl():
    assert _outcome(tw.flags, _holders) == _outcome(absl_flags, _holders)


def test_flags_define_with_parser_and_flag_classes():
    for fl in (absl_flags, tw.flags):
        fv = fl.FlagValues()
        fl.DEFINE(fl.IntegerParser(upper_bound=-1), "neg", -2, "negative", flag_values=fv)
        fl.DEFINE_multi(fl.FloatParser(0, 1), fl.ArgumentSerializer(), "fracs", "0.5", "fractions", flag_values=fv)
        fl.DEFINE_flag(fl.BooleanFlag("flip", True, "flip"), flag_values=fv)
        fl.DEFINE_flag(fl.EnumFlag("e", "x", "e", ["x", "y"]), flag_values=fv)
        fl.DEFINE_flag(fl.EnumClassFlag("c", "red", "c", Color), flag_values=fv)
        fl.DEFINE_flag(fl.MultiEnumClassFlag("cs", ["green"], "cs", Color), flag_values=fv)
        fl.DEFINE_flag(fl.MultiFlag(fl.ArgumentParser(), fl.ArgumentSerializer(), "m", None, "m"), flag_values=fv)
        fv(["prog", "--fracs=0.25", "--fracs", "1", "--noflip", "--e=y", "--m=u", "--m=v"])
        assert (fv.neg, fv.fracs, fv.flip, fv.e, fv.c, fv.cs, fv.m) == (
            -2,
            [0.25, 1.0],
            False,
            "y",
            Color.RED,
            [Color.GREEN],
            ["u", "v"],
        )
        assert fv["cs"].serialize() == "--cs=green" and fv["e"].help == "<x|y>: e"
        assert fv["fracs"].flag_type() == "multi float" and fv["m"].serialize() == "--m=u\n--m=v"
        with pytest.raises(fl.IllegalFlagValueError, match="is not a negative integer"):
            fv(["prog", "--neg=3"])
        with pytest.raises(fl.FlagNameConflictsWithMethodError):
            fl.DEFINE_string("is_parsed", "", "bad", flag_values=fv)
        with pytest.raises(fl.DuplicateFlagError):
            fl.DEFINE_string("e", "", "dup", flag_values=fv)
        with pytest.raises(fl.UnrecognizedFlagError):
            fl.DEFINE_alias("al", "nothere", flag_values=fv)
        fl.declare_key_flag("e", flag_values=fv)
        fl.disclaim_key_flags()


PARSER_CASES = [
    ("IntegerParser", (), "0x1F"),
    ("IntegerParser", (), "0o17"),
    ("IntegerParser", (0, 10), "11"),
    ("IntegerParser", (), "1.5"),
    ("IntegerParser", (), 3.0),
    ("FloatParser", (), "1e3"),
    ("FloatParser", (None, 0), "0.5"),
    ("FloatParser", (), True),
    ("BooleanParser", (), "T"),
    ("BooleanParser", (), "yes"),
    ("BooleanParser", (), 2),
    ("EnumParser", (["Ab", "cd"], False), "AB"),
    ("EnumParser", (["Ab", "cd"],), "ab"),
    ("EnumClassParser", (Color,), "GREEN"),
    ("EnumClassParser", (Color, False), "green"),
    ("EnumClassParser", (Color,), 1),
    ("ListParser", (), 'a, "b,c" ,d'),
    ("ListParser", (), ""),
    ("WhitespaceSeparatedListParser", (), " a b\n c "),
    ("WhitespaceSeparatedListParser", (True,), "a,b c"),
    ("ArgumentParser", (), 5),
]


@pytest.mark.parametrize("cls,args,text", PARSER_CASES)
def test_flags_parsers_match_absl(cls, args, text):
    def run(fl):
        parser = getattr(fl, cls)(*args)
        try:
            return parser.parse(text), parser.flag_type(), parser.syntactic_help
        except (TypeError, ValueError) as e:
            return type(e).__name__

    assert run(tw.flags) == run(absl_flags)


def test_flags_serializers_and_helpers_match_absl():
    def run(fl):
        doc = """First line
            of a paragraph.

            Second    paragraph.
        """
        return [
            fl.CsvListSerializer(",").serialize(["a", "b,c", 3]),
            fl.ListSerializer(" ").serialize(["a", 1]),
            fl.EnumClassSerializer(lowercase=True).serialize(Color.RED),
            fl.EnumClassListSerializer(";", lowercase=False).serialize([Color.RED, Color.GREEN]),
            fl.ArgumentSerializer().serialize(1.5),
            list(fl.flag_dict_to_args({"a": 1, "b": True, "c": False, "d": None, "e": [1, 2], "m": ["x", "y"]}, {"m"})),
            fl.text_wrap("word " * 30, length=40, indent="  ", firstline_indent="* "),
            fl.doc_to_help(doc),
            isinstance(fl.get_help_width(), int),
            issubclass(fl.ValidationError, fl.Error) and issubclass(fl.CantOpenFlagFileError, fl.Error),
            issubclass(fl.WhitespaceSeparatedListParser, fl.BaseListParser),
        ]

    assert run(tw.flags) == run(absl_flags)
    with pytest.raises(ValueError, match="indent exceeds length"):
        tw.flags.text_wrap("x", length=2, indent="   ")
    with pytest.raises(TypeError, match="not a subclass of Enum"):
        tw.flags.EnumClassParser(int)
    with pytest.raises(ValueError, match="cannot be empty"):
        tw.flags.EnumParser([])


def test_app_flags_is_flags_and_exports_absl_names():
    assert tw.app.flags is tw.flags
    missing = [n for n in dir(absl_flags) if not n.startswith("_") and n[0].isupper() and not hasattr(tw.flags, n)]
    assert missing == []
