"""Summaries (TF1's tf.summary): summary ops, their protos and event-file writers."""
