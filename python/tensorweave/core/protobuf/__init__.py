"""Mirrors `tensorflow.core.protobuf`: `rewriter_config_pb2.RewriterConfig`."""
