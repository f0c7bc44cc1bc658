"""Offline stand-in for rules_proto: forwards to the rules built into Bazel 4."""

def proto_library(**kwargs):
    native.proto_library(**kwargs)

def proto_lang_toolchain(**kwargs):
    native.proto_lang_toolchain(**kwargs)

_BUILTIN_PROTO_INFO = ProtoInfo
ProtoInfo = _BUILTIN_PROTO_INFO
