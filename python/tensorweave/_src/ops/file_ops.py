"""Whole-file ops: read_file, write_file, matching_files (TF1's `tf.io` / top-level names)."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl


@gen_ops.doc_from("ReadFile")
def read_file(filename, name=None):
    """A string scalar: the bytes of the file.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> path = os.path.join(tempfile.mkdtemp(), "f.txt")
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     sess.run(tw.io.write_file(path, "hello"))
      ...     print(sess.run(tw.io.read_file(path)))
      b'hello'
    """
    return gen_ops.read_file(ops.convert_to_tensor(filename, dtype=dtypes.string), name=name)


@gen_ops.doc_from("WriteFile")
def write_file(filename, contents, name=None):
    """The op that writes the file."""
    return gen_ops.write_file(
        ops.convert_to_tensor(filename, dtype=dtypes.string),
        ops.convert_to_tensor(contents, dtype=dtypes.string),
        name=name,
    )


@gen_ops.doc_from("MatchingFiles")
def matching_files(pattern, name=None):
    """A string vector of the matching paths, sorted."""
    return gen_ops.matching_files(ops.convert_to_tensor(pattern, dtype=dtypes.string), name=name)


def match_filenames_once(pattern, name=None):
    """A local variable holding the files matching `pattern`, listed once when it is initialized (TF1's
    `tf.train.match_filenames_once`)."""
    from tensorweave._src.ops import variables

    graph = ops.get_default_graph()
    with graph.name_scope(name or "matching_filenames") as scope:
        return variables.Variable(
            name=scope,
            initial_value=matching_files(pattern),
            trainable=False,
            validate_shape=False,
            collections=[ops.GraphKeys.LOCAL_VARIABLES],
        )


for _op in ("ReadFile", "WriteFile", "MatchingFiles"):
    gradients_impl.NotDifferentiable(_op)
