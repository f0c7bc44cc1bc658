"""Exception classes (TensorFlow's names and codes)."""

from tensorweave._src.framework.errors import *  # noqa: F401,F403
from tensorweave._src.framework.errors import OpError  # noqa: F401
from tensorweave._src.framework.errors import exception_type_from_error_code  # noqa: F401
from tensorweave._src.ops.debug_extras import error_code_from_exception_type  # noqa: F401
from tensorweave._src.ops.debug_extras import raise_exception_on_not_ok_status  # noqa: F401
