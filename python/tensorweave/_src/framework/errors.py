"""Exception classes, with TensorFlow's names and error codes."""

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failure of an operation: at graph construction or while running.

    Attributes:
      message: what went wrong, naming the node.
      op: the `Operation` that failed, when known.
      node_def: that operation's NodeDef, when known.
      error_code: one of the codes in this module.
    """

    def __init__(self, node_def, op, message, error_code):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self):
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        return self._node_def

    @property
    def error_code(self):
        return self._error_code

    def __str__(self):
        return self._message

    def __reduce__(self):
        return (type(self), (self._node_def, self._op, self._message))


def _make(name, code, *bases, doc):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code)

    return type(name, (OpError,) + bases, {"__init__": __init__, "__doc__": doc})


CancelledError = _make("CancelledError", CANCELLED, doc="An operation was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, doc="An unknown error.")
# Also a ValueError, as TensorFlow raises for bad shapes at construction.
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT, ValueError, doc="An argument was invalid.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, doc="A deadline expired.")
NotFoundError = _make("NotFoundError", NOT_FOUND, doc="Something requested was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, doc="Something to create already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, doc="Permission was denied.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED, doc="A resource ran out.")
FailedPreconditionError = _make(
    "FailedPreconditionError",
    FAILED_PRECONDITION,
    doc="The system is not in a state for the operation (e.g. an uninitialized variable).",
)
AbortedError = _make("AbortedError", ABORTED, doc="An operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, doc="A value was out of range.")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, doc="Not implemented.")
InternalError = _make("InternalError", INTERNAL, doc="An internal invariant broke.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, doc="A service is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, doc="Data was lost or corrupted.")


class _UnparsableFileError(DataLossError, OSError):
    """A MetaGraphDef or SavedModel file that does not parse: a DataLossError, also the OSError ("Cannot parse
    file ...") that TensorFlow raises for it."""


UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, doc="Credentials were missing or invalid.")

_CODE_TO_CLASS = {
    CANCELLED: CancelledError,
    UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError,
    UNAUTHENTICATED: UnauthenticatedError,
}


def exception_type_from_error_code(error_code):
    return _CODE_TO_CLASS.get(error_code, UnknownError)


def _raise_from_status(code, message):
    """Called by the C++ bindings for a failed status."""
    raise exception_type_from_error_code(code)(None, None, message)
