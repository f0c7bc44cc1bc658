"""tw.compat: `tw.compat.v1` is tensorweave itself (so that `tf.compat.v1.placeholder` works after
`import tensorweave as tf`, and `import tensorweave.compat.v1 as tf` works too); `tw.compat.v2` is tensorweave
too (tensorweave has one API, TF1's) except where TF2 gave a TF1 name other semantics: its `where` is `where_v2`
(broadcasting). Also TF's conversion helpers (as_bytes, as_text, ...) and forward_compatible.

Example:
  >>> import tensorweave as tw
  >>> tw.compat.v1 is tw, tw.compat.v2.where is tw.where_v2, tw.compat.as_bytes("a"), tw.compat.as_text(b"b")
  (True, True, b'a', 'b')
"""

import sys as _sys
import types as _types

import tensorweave as _tensorweave
from tensorweave._src.compat import *
from tensorweave._src.compat import __all__ as _names


class _V2(_types.ModuleType):
    """tensorweave's names, with TF2's meaning where it differs from TF1's."""

    def __getattr__(self, name):
        return getattr(_tensorweave, name)

    def __dir__(self):
        return sorted(set(dir(_tensorweave)) | set(self.__dict__))


v1 = _tensorweave
v2 = _V2(__name__ + ".v2", "tensorweave with TF2's meaning of the names TF2 changed (`where` is `where_v2`).")
v2.where = _tensorweave.where_v2
_sys.modules[__name__ + ".v1"] = _tensorweave
_sys.modules[__name__ + ".v2"] = v2

__all__ = list(_names) + ["v1", "v2"]
