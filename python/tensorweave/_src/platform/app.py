"""TF1's tf.app.run: parses the known flags from argv, then sys.exit(main(remaining argv))."""

import sys as _sys

from tensorweave._src.platform import flags


def run(main=None, argv=None):
    """Runs `main` (default: the __main__ module's main) with the arguments left after the known flags."""
    main = main or _sys.modules["__main__"].main
    args = flags.FLAGS(_sys.argv if argv is None else argv, known_only=True)
    _sys.exit(main(args))
