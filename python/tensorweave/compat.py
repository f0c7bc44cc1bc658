"""tw.compat: `tw.compat.v1` is tensorweave itself (so that `tf.compat.v1.placeholder` works after
`import tensorweave as tf`, and `import tensorweave.compat.v1 as tf` works too); `tw.compat.v2` is the same module
(tensorweave has one API, TF1's). Also TF's conversion helpers (as_bytes, as_text, ...) and forward_compatible.

Example:
  >>> import tensorweave as tw
  >>> tw.compat.v1 is tw, tw.compat.as_bytes("a"), tw.compat.as_text(b"b")
  (True, b'a', 'b')
"""

import sys as _sys

import tensorweave as _tensorweave
from tensorweave._src.compat import *
from tensorweave._src.compat import __all__ as _names

v1 = _tensorweave
v2 = _tensorweave
_sys.modules[__name__ + ".v1"] = _tensorweave
_sys.modules[__name__ + ".v2"] = _tensorweave

__all__ = list(_names) + ["v1", "v2"]
