"""TF's `tensorflow.core.protobuf.rewriter_config_pb2`: `RewriterConfig`, the graph optimizer's switches
(`GraphOptions(rewrite_options=...)`), as a plain Python class."""

from tensorweave._src.client.session_config import RewriterConfig

__all__ = ["RewriterConfig"]
