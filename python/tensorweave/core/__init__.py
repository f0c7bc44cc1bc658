"""Mirrors `tensorflow.core`: the protobuf message classes a TF1 program imports from there."""
