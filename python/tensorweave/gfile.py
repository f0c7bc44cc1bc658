"""tw.gfile: file access with TensorFlow v1's names (`tf.gfile`) and error classes.

Example:
  >>> import os, tempfile
  >>> import tensorweave as tw
  >>> d = os.path.join(tempfile.mkdtemp(), "a", "b")
  >>> tw.gfile.MakeDirs(d)
  >>> tw.gfile.Exists(d), tw.gfile.ListDirectory(os.path.dirname(d))
  (True, ['b'])
"""

from tensorweave._src.platform.gfile import Copy
from tensorweave._src.platform.gfile import DeleteRecursively
from tensorweave._src.platform.gfile import Exists
from tensorweave._src.platform.gfile import FastGFile
from tensorweave._src.platform.gfile import GFile
from tensorweave._src.platform.gfile import Glob
from tensorweave._src.platform.gfile import IsDirectory
from tensorweave._src.platform.gfile import ListDirectory
from tensorweave._src.platform.gfile import MakeDirs
from tensorweave._src.platform.gfile import MkDir
from tensorweave._src.platform.gfile import Open
from tensorweave._src.platform.gfile import Remove
from tensorweave._src.platform.gfile import Rename
from tensorweave._src.platform.gfile import Stat
from tensorweave._src.platform.gfile import Walk
