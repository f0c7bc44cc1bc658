"""tw.version (TF's tf.version): VERSION, GIT_VERSION, COMPILER_VERSION and the GraphDef versions, tensorweave's.

Example:
  >>> import tensorweave as tw
  >>> tw.version.VERSION == tw.VERSION == tw.__version__
  True
"""

from tensorweave._src.platform.versions import *
from tensorweave._src.platform.versions import __all__  # noqa: F401
