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


# --- TensorFlow oracle for the rest --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tf1():
    tf = pytest.importorskip("tensorflow")
    return tf.compat.v1


def _norm(text):
    """TF1's TensorShape repr spells dims Dimension(n) (tensorweave's), TF 2's plain n."""
    import re

    return re.sub(r"Dimension\(([^)]*)\)", r"\1", text).replace("?", "None")


def test_autograph_pass_through_and_do_not_convert(tf1):
    def f(x):
        return x + 1

    assert tw.autograph.to_graph(f) is f
    assert "return x + 1" in tw.autograph.to_code(f)
    assert [m.name for m in tw.autograph.experimental.Feature] == [m.name for m in tf1.autograph.experimental.Feature]
    for ag in (tf1.autograph, tw.autograph):
        plain = ag.experimental.do_not_convert(f)
        called = ag.experimental.do_not_convert()(f)

        @ag.experimental.do_not_convert
        def g(x):
            return x * 3

        assert (plain(1), called(2), g(2), g.__name__, plain.__name__) == (2, 3, 6, "g", "f")
        ag.set_verbosity(0)
        ag.experimental.set_loop_options(maximum_iterations=3)
    for bad in (5, "s", int):
        with pytest.raises(Exception, match="doesn't expose a __code__") as ours:
            tw.autograph.to_graph(bad)
        with pytest.raises(Exception, match="doesn't expose a __code__") as theirs:
            tf1.autograph.to_graph(bad)
        assert type(ours.value).__name__ == type(theirs.value).__name__ == "ConversionError"
        assert str(ours.value) == str(theirs.value)
    method = Color.RED.__str__
    assert tw.autograph.to_graph(method) is method
    with pytest.raises(TypeError, match="callable"):
        tw.autograph.experimental.do_not_convert(5)


def test_resource_loader_and_sysconfig(tmp_path, tf1):
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    assert tw.resource_loader.get_data_files_path() == here
    assert tw.resource_loader.get_path_to_datafile("data/x.bin") == os.path.join(here, "data/x.bin")
    assert tw.resource_loader.readahead_file_path("a/b") == tf1.resource_loader.readahead_file_path("a/b") == "a/b"
    (tmp_path / "r.txt").write_bytes(b"abc")
    assert tw.resource_loader.load_resource(str(tmp_path / "r.txt")) == b"abc"
    with pytest.raises(FileNotFoundError):
        tw.resource_loader.load_resource("no/such/file")
    include = tw.sysconfig.get_include()
    assert os.path.isfile(os.path.join(include, "core", "framework", "tensor.h")) or os.path.isdir(include)
    assert os.path.exists(os.path.join(tw.sysconfig.get_lib(), tw.sysconfig.get_link_flags()[1][3:]))
    assert tw.sysconfig.get_compile_flags()[0] == "-I" + include
    assert set(tw.sysconfig.get_build_info()) >= {"is_cuda_build", "is_rocm_build"}
    assert tw.CXX_VERSION == tw.sysconfig.CXX_VERSION == tf1.sysconfig.CXX_VERSION == 201703
    assert tw.user_ops.__name__ == "tensorweave.user_ops"


def test_load_op_library_errors(tmp_path, tf1):
    for fn in ("load_op_library", "load_file_system_library"):
        with pytest.raises(tf1.errors.NotFoundError, match="cannot open shared object file"):
            getattr(tf1, fn)(str(tmp_path / "none.so"))
        with pytest.raises(tw.errors.NotFoundError, match=r"none\.so: cannot open shared object file"):
            getattr(tw, fn)(str(tmp_path / "none.so"))
    with pytest.raises(FileNotFoundError, match="kernel libraries"):
        tf1.load_library(str(tmp_path / "none.so"))
    with pytest.raises(FileNotFoundError, match="kernel libraries"):
        tw.load_library(str(tmp_path / "none.so"))
    lib = tmp_path / "custom_op.so"
    lib.write_bytes(b"\x7fELF")
    for fn in (tw.load_op_library, tw.load_library):
        with pytest.raises(NotImplementedError, match="custom_op.so"):
            fn(str(lib))


def test_wrap_function_in_graph_mode_matches_tf(tf1):
    import tensorflow as tf

    def fn(x, y):
        return {"sum": tf1.reduce_sum(x * y), "prod": x * y} if isinstance(x, tf.Tensor) else None

    def build(m, fn):
        g = m.Graph()
        with g.as_default():
            f = m.wrap_function(fn, [m.TensorSpec([None], m.float32), m.TensorSpec([], m.float32)])
            x = m.placeholder(m.float32, [None])
            out = f(x, 3.0)
            with m.Session() as sess:
                return sess.run(out, {x: [1.0, 2.0]}), [t.shape.as_list() for t in f.inputs], len(f.outputs)

    def tw_fn(x, y):
        return {"sum": tw.reduce_sum(x * y), "prod": x * y}

    got, want = build(tw, tw_fn), build(tf1, fn)
    np.testing.assert_equal(got, want)
    with tw.Graph().as_default():
        f = tw.wrap_function(lambda x: x + 1.0, [tw.TensorSpec([2], tw.float32)])
        with pytest.raises(ValueError, match="not compatible"):
            f(tw.constant([1.0, 2.0, 3.0]))
        with pytest.raises(TypeError, match="expected 1 argument"):
            f(1.0, 2.0)
        with pytest.raises(TypeError, match="TensorSpecs"):
            tw.wrap_function(lambda x: x, [3])


def test_symbolic_and_eager_queries_match_tf(tf1):
    for m in (tw, tf1):
        with m.Graph().as_default():
            x = m.placeholder(m.float32)
            got = (m.is_symbolic_tensor(x), m.is_symbolic_tensor(1.0), m.is_symbolic_tensor(np.ones(2)))
            assert got == (True, False, False)
            assert m.executing_eagerly_outside_functions() is False


def test_type_specs_match_tf(tf1):
    import tensorflow as tf

    pairs = [
        (lambda m: m.SparseTensorSpec(), None),
        (lambda m: m.SparseTensorSpec([2, None], m.int32), None),
        (lambda m: m.RaggedTensorSpec([2, None]), None),
        (lambda m: m.RaggedTensorSpec([2, None, 3], m.int32, 1), None),
        (lambda m: m.TensorArraySpec(), None),
        (lambda m: m.TensorArraySpec([2], m.int32, True, False), None),
        (lambda m: m.IndexedSlicesSpec([4, 3], m.float32, m.int32), None),
        (lambda m: m.NoneTensorSpec(), None),
    ]
    for make, _ in pairs:
        assert _norm(repr(make(tw))) == repr(make(tf1))
    assert tw.RaggedTensorSpec([2, None, 3]).ragged_rank == tf.RaggedTensorSpec([2, None, 3]).ragged_rank == 2
    for m in (tw, tf1):
        with pytest.raises(ValueError, match="must be less than rank"):
            m.RaggedTensorSpec([2, None], ragged_rank=2)
        with pytest.raises(ValueError, match="ragged_rank or a shape"):
            m.RaggedTensorSpec()
        a, b = m.SparseTensorSpec([2], m.int32), m.SparseTensorSpec([2], m.int32)
        assert a == b and hash(a) == hash(b) and a != m.SparseTensorSpec([3], m.int32)
        assert m.SparseTensorSpec([2, None]).is_compatible_with(m.SparseTensorSpec([2, 5]))
        assert not m.SparseTensorSpec([2, None]).is_compatible_with(m.SparseTensorSpec([3, 5]))
        assert isinstance(m.TensorSpec([1]), m.TypeSpec) and isinstance(a, m.TypeSpec)
    assert tw.SparseTensorSpec().value_type is tw.SparseTensor and tw.TensorSpec([1]).value_type is tw.Tensor
    assert repr(tw.OptionalSpec(tw.TensorSpec([2], tw.int32))).startswith("OptionalSpec(TensorSpec(")


def test_type_spec_from_value_matches_tf(tf1):
    def specs(m):
        out = []
        with m.Graph().as_default():
            out.append(m.type_spec_from_value(m.placeholder(m.float32, [None, 3])))
            out.append(m.type_spec_from_value(np.zeros([2, 3], np.int64)))
            out.append(m.type_spec_from_value(3))
            out.append(m.type_spec_from_value([1.0, 2.0]))
            out.append(m.type_spec_from_value("s"))
            out.append(m.type_spec_from_value(m.sparse_placeholder(m.float32, [3, 4])))
            out.append(m.type_spec_from_value(m.ragged.constant([[1, 2], [3]])))
            out.append(m.type_spec_from_value(m.TensorArray(m.float32, size=2)))
            out.append(m.type_spec_from_value(None))
        return [_norm(repr(s)) for s in out]

    assert specs(tw) == specs(tf1)
    with tw.Graph().as_default() as g:
        tw.type_spec_from_value([1.0, 2.0])
        assert g.get_operations() == []
    with pytest.raises(TypeError, match="Could not build a TypeSpec"):
        tw.type_spec_from_value(object())


def test_resource_and_variant_dtypes_match_tf(tf1):
    for name in ("resource", "variant"):
        ours, theirs = getattr(tw, name), getattr(tf1, name)
        assert getattr(tw.dtypes, name) is ours and tw.as_dtype(name) is ours
        assert (ours.name, ours.as_datatype_enum, repr(ours), str(ours)) == (
            theirs.name,
            theirs.as_datatype_enum,
            repr(theirs),
            str(theirs),
        )
        assert (ours.is_numpy_compatible, ours.size, ours.is_floating, ours.is_integer) == (
            theirs.is_numpy_compatible,
            theirs.size,
            theirs.is_floating,
            theirs.is_integer,
        )
        assert tw.as_dtype(theirs.as_datatype_enum) is ours
        with pytest.raises(TypeError):
            ours.min  # noqa: B018
        with pytest.raises(TypeError, match="no numpy dtype"):
            ours.as_numpy_dtype  # noqa: B018
    assert tw.as_dtype(np.object_) is tw.string


ASSERT_SHAPES_CASES = [
    ("ok", lambda a, b, p: [(a, ("N", "Q")), (b, ("N", "D")), (p, (".", "Q"))], None),
    ("symbol", lambda a, b, p: [(a, ("N", "D")), (b, ("N", "D"))], None),
    ("explicit", lambda a, b, p: [(a, (10, 4))], "msg"),
    ("inner", lambda a, b, p: [(a, (..., 3))], None),
    ("inner_sym", lambda a, b, p: [(a, ("*", "Q")), (b, (10, "Q"))], None),
    ("scalar", lambda a, b, p: [(1.0, ())], None),
    ("dict", lambda a, b, p: {a: ("N", 3), b: ("N", 7)}, None),
    ("not_iterable", lambda a, b, p: [(a, 5)], "msg"),
    ("ellipsis_late", lambda a, b, p: [(a, ("N", ...))], "msg"),
]


@pytest.mark.parametrize("case,shapes,message", ASSERT_SHAPES_CASES, ids=[c[0] for c in ASSERT_SHAPES_CASES])
def test_assert_shapes_static_matches_tf(tf1, case, shapes, message):
    def run(m):
        with m.Graph().as_default():
            a, b, p = m.zeros([10, 3]), m.ones([10, 7]), m.placeholder(m.float32, [None, 3])
            try:
                m.debugging.assert_shapes(shapes(a, b, p), message=message)
            except ValueError as e:
                return str(e)
            return "ok"

    assert run(tw) == run(tf1)


def test_assert_shapes_dynamic_fails_at_run_time(tf1):
    with tw.Graph().as_default():
        p = tw.placeholder(tw.float32, [None, 3])
        b = tw.ones([10, 7])
        check = tw.debugging.assert_shapes([(p, ("N", "Q")), (b, ("N", "D"))])
        with tw.control_dependencies([check]):
            out = tw.identity(p)
        with tw.Session() as sess:
            assert sess.run(out, {p: np.ones([10, 3])}).shape == (10, 3)
            with pytest.raises(tw.errors.InvalidArgumentError, match="must have size"):
                sess.run(out, {p: np.ones([1, 3])})


def test_enable_check_numerics_instruments_later_float_ops(tf1):
    def run(m):
        with m.Graph().as_default():
            before = m.log(m.placeholder_with_default(-1.0, []))
            m.debugging.enable_check_numerics()
            try:
                x = m.placeholder(m.float32)
                y = m.log(x)
                n = m.placeholder(m.int32) + 1
            finally:
                m.debugging.disable_check_numerics()
            z = m.log(x)
            with m.Session() as sess:
                fine = sess.run([y, n], {x: 1.0, n.op.inputs[0]: 1})
                try:
                    sess.run(y, {x: -1.0})
                    failed = None
                except m.errors.InvalidArgumentError as e:
                    failed = "Log" in str(e)
                unchecked = np.isnan(sess.run(z, {x: -1.0})) and np.isnan(sess.run(before))
            return fine, failed, unchecked

    assert run(tw) == run(tf1) == ([0.0, 2], True, True)


def test_debugging_switches_match_tf(tf1):
    import tensorflow as tf

    for dbg in (tf.debugging, tw.debugging):
        assert dbg.get_log_device_placement() is False
        dbg.set_log_device_placement(True)
        assert dbg.get_log_device_placement() is True
        dbg.set_log_device_placement(False)
        assert dbg.is_traceback_filtering_enabled() is True
        dbg.disable_traceback_filtering()
        assert dbg.is_traceback_filtering_enabled() is False
        dbg.enable_traceback_filtering()


def test_errors_extras_match_tf(tf1):
    for cls in ("NotFoundError", "InvalidArgumentError", "OutOfRangeError", "UnauthenticatedError"):
        want = tf1.errors.error_code_from_exception_type(getattr(tf1.errors, cls))
        assert tw.errors.error_code_from_exception_type(getattr(tw.errors, cls)) == want
    with pytest.warns(UserWarning, match="Unknown class exception"):
        unknown = tw.errors.error_code_from_exception_type(ValueError)
    assert isinstance(unknown, tw.errors.UnknownError)
    with tw.errors.raise_exception_on_not_ok_status() as status:
        pass
    with pytest.raises(tw.errors.NotFoundError, match="gone"), tw.errors.raise_exception_on_not_ok_status() as status:
        status.code, status.message = tw.errors.NOT_FOUND, "gone"


def _seq_columns(fc, vocab_file):
    return [
        fc.sequence_categorical_column_with_identity("ids", 5),
        fc.sequence_categorical_column_with_hash_bucket("w", 10),
        fc.sequence_categorical_column_with_vocabulary_list("v", ["a", "b"], num_oov_buckets=1),
        fc.sequence_categorical_column_with_vocabulary_file("f", vocab_file, vocabulary_size=3),
    ]


def test_sequence_categorical_columns_match_tf(tf1, tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("x\ny\nz\nq\n")
    ours, theirs = _seq_columns(tw.feature_column, str(vocab)), _seq_columns(tf1.feature_column, str(vocab))
    for a, b in zip(ours, theirs):
        assert (type(a).__name__, a.name, a.num_buckets) == (type(b).__name__, b.name, b.num_buckets)
    assert repr(tw.feature_column.make_parse_example_spec(ours)) == repr(
        tf1.feature_column.make_parse_example_spec(theirs)
    )

    def run(m):
        fc = m.feature_column
        with m.Graph().as_default():
            ids = fc.sequence_categorical_column_with_identity("ids", 5)
            sp = m.SparseTensor([[0, 0], [0, 1], [1, 0]], m.constant([1, 2, 3], m.int64), [2, 2])
            feats = {"ids": sp}
            errors = []
            for cols in ([fc.embedding_column(ids, 3)], [fc.indicator_column(ids)], [ids]):
                try:
                    fc.input_layer(feats, cols)
                except ValueError as e:
                    errors.append(str(e))
            logits = fc.linear_model(feats, [ids])
            with m.Session() as sess:
                sess.run(m.global_variables_initializer())
                return errors, sess.run(logits).tolist()

    (got_errors, got), (want_errors, want) = run(tw), run(tf1)
    assert got == want and len(got_errors) == len(want_errors) == 3
    for ours_error, tf_error in zip(got_errors, want_errors):
        assert ours_error.split("Given")[0] == tf_error.split("Given")[0]


def test_sequence_numeric_column_matches_tf(tf1):
    for m in (tf1, tw):
        fc = m.feature_column
        n = fc.sequence_numeric_column("x", shape=(2,))
        assert (type(n).__name__, n.name, n.shape, n.default_value, n.dtype.name) == (
            "SequenceNumericColumn",
            "x",
            (2,),
            0.0,
            "float32",
        )
        assert repr(n.parse_example_spec) == "{'x': VarLenFeature(dtype=tf.float32)}"
        for kw, err, msg in (
            ({"shape": (0,)}, ValueError, "greater than 0"),
            ({"dtype": m.string}, ValueError, "convertible to float"),
            ({"normalizer_fn": 3}, TypeError, "must be a callable"),
            ({"shape": (1.5,)}, TypeError, "must be integer"),
        ):
            with pytest.raises(err, match=msg):
                fc.sequence_numeric_column("x", **kw)
        with pytest.raises(ValueError, match="must be _FeatureColumn instances"):
            fc.make_parse_example_spec([n])
        with pytest.raises(ValueError, match="Items of feature_columns must be a _FeatureColumn"):
            fc.input_layer({"x": np.ones([2, 1], np.float32)}, [n])


def test_flags_flagfile_matches_absl(tmp_path):
    inner = tmp_path / "inner.flags"
    inner.write_text("--n=5\n")
    outer = tmp_path / "outer.flags"
    outer.write_text(f"# comment\n// also a comment\n\n--name=from_file\n--flagfile={inner}\n")

    def scenario(fl, fv):
        fl.DEFINE_string("name", "x", "name", flag_values=fv)
        fl.DEFINE_integer("n", 1, "n", flag_values=fv)
        out = [_parse(fv, f"--flagfile={outer}", "rest")]
        out.append(fv.read_flags_from_files(["prog", "--flagfile", str(inner), "--", "--flagfile=x"]))
        try:
            fv(["prog", "--flagfile=" + str(tmp_path / "missing")])
        except fl.CantOpenFlagFileError as e:
            out.append(type(e).__name__)
        return out

    assert _outcome(tw.flags, scenario) == _outcome(absl_flags, scenario)


PARSE_EDGE_ARGS = [
    ["--nobogus"],
    ["--noname"],
    ["--name"],
    ["-n", "3"],
    ["--b", "false"],
    ["-B"],
    ["--noB"],
    ["--b=yes"],
    ["x", "--n=2", "y"],
    ["--n", "--b"],
    ["-", "--=3"],
    ["---n=3"],
    ["--name="],
    ["--nam=1"],
    ["--learnig_rate=3"],
    ["--nmae=2"],
]


@pytest.mark.parametrize("args", PARSE_EDGE_ARGS)
def test_flags_command_line_edges_match_absl(args):
    def scenario(fl, fv):
        fl.DEFINE_string("name", "x", "n", flag_values=fv)
        fl.DEFINE_string("names", "x", "n", flag_values=fv)
        fl.DEFINE_boolean("b", False, "b", flag_values=fv, short_name="B")
        fl.DEFINE_integer("n", 1, "n", flag_values=fv)
        fl.DEFINE_integer("learning_rate", 1, "n", flag_values=fv)
        return _parse(fv, *args)

    assert _outcome(tw.flags, scenario) == _outcome(absl_flags, scenario)


def test_flags_dict_access_append_remove_match_absl():
    def scenario(fl, fv):
        fl.DEFINE_integer("steps", 3, "steps", flag_values=fv, short_name="s")
        other = fl.FlagValues()
        fl.DEFINE_string("extra", "e", "extra", flag_values=other)
        fv.append_flag_values(other)
        rest = fv(["prog", "--extra=z", "-s", "4"])
        by_name = {k: f.value for k, f in sorted(fv.__flags.items())}  # TF1 programs read FLAGS.__flags
        out = [rest, by_name, dir(fv)]
        fv.remove_flag_values(other)
        out.append(sorted(fv))
        try:
            fv.append_flag_values(fv)
        except fl.DuplicateFlagError:
            out.append("duplicate")
        try:
            fv["x"] = 3
        except fl.IllegalFlagValueError as e:
            out.append(str(e))
        return out

    assert _outcome(tw.flags, scenario) == _outcome(absl_flags, scenario)


def test_check_numerics_leaves_training_and_control_flow_working():
    with tw.Graph().as_default():
        tw.debugging.enable_check_numerics()
        try:
            x = tw.placeholder(tw.float32, [None, 3])
            y = tw.layers.dense(tw.nn.relu(tw.layers.dense(x, 2)), 4)
            loss = tw.reduce_mean(tw.square(y))
            train = tw.train.AdamOptimizer(0.1).minimize(loss)
            c = tw.cond(tw.reduce_sum(x) > 0, lambda: x * 2.0, lambda: tw.log(x))
            i = tw.while_loop(lambda i: i < 3.0, lambda i: i + 1.0, [tw.constant(0.0)])
            ta = tw.TensorArray(tw.float32, size=2).write(0, 1.0).write(1, 2.0).stack()
            (g,) = tw.gradients(tw.reduce_sum(c), x)
        finally:
            tw.debugging.disable_check_numerics()
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            sess.run(train, {x: np.ones([2, 3])})
            np.testing.assert_allclose(sess.run(c, {x: np.ones([1, 3])}), 2 * np.ones([1, 3]))
            assert sess.run(i) == 3.0
            np.testing.assert_allclose(sess.run(ta), [1.0, 2.0])
            np.testing.assert_allclose(sess.run(g, {x: np.ones([1, 3])}), 2 * np.ones([1, 3]))
            with pytest.raises(tw.errors.InvalidArgumentError, match="Infinity or NaN"):
                sess.run(c, {x: -np.ones([1, 3])})
