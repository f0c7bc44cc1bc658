"""Exception classes (TensorFlow's names and codes)."""

from tensorweave._src.framework.errors import *  # noqa: F401,F403
from tensorweave._src.framework.errors import OpError  # noqa: F401
from tensorweave._src.framework.errors import exception_type_from_error_code  # noqa: F401
