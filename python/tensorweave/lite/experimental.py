"""tw.lite.experimental: `load_delegate` (tensorweave's lite runtime has its kernels built in and takes no
delegates: it raises ValueError, as TensorFlow does for a library it cannot load)."""

from tensorweave._src.lite import load_delegate

__all__ = ["load_delegate"]
