"""tw.user_ops (TF1's tf.user_ops): the namespace TF gives user-defined ops. TF's only entry, `my_fact`, is an
example op of its own build; tensorweave has none (ops are registered in its core)."""

__all__ = []
