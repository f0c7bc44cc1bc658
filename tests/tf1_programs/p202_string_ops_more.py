"""String processing of text pipelines: tf.strings.length (bytes and UTF8_CHAR), reduce_join with separator
and keep_dims, string_to_number with out_type, string_to_hash_bucket_fast / _strong, strings.strip, string_join,
string_split with delimiter and skip_empty, tf.strings.split (a SparseTensor in v1), substr with negative
pos, regex_full_match, regex_replace with replace_global=False, as_string with precision / width / fill,
encode_base64 / decode_base64 (pad), decode_raw, strings.format, strings.upper/lower, and the error for a
non-numeric string."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    s = tf.constant(["  Hello World  ", "tensor,flow,,v1", "caf\u00e9 \u00fcber"])
    nums = tf.constant(["3.25", "-7", "1e3"])
    fetch = {
        "len": tf.strings.length(s),
        "len_chars": tf.strings.length(s, unit="UTF8_CHAR"),
        "join_all": tf.reduce_join(s, separator="|"),
        "join_keep": tf.reduce_join(tf.reshape(s, [3, 1]), axis=1, keep_dims=True, separator="-"),
        "to_float": tf.string_to_number(nums),
        "to_double": tf.string_to_number(nums, out_type=tf.float64),
        "to_int": tf.string_to_number(["12", "-3"], out_type=tf.int32),
        "hash_fast": tf.string_to_hash_bucket_fast(s, 100),
        "hash_strong": tf.string_to_hash_bucket_strong(s, 100, key=[1, 2]),
        "hash": tf.string_to_hash_bucket(s, 1000),
        "strip": tf.strings.strip(s),
        "string_join": tf.string_join([s, tf.constant("!")], separator="~"),
        "split": tf.sparse_tensor_to_dense(tf.string_split(s[1:2], delimiter=","), default_value="<e>"),
        "split_empty": tf.string_split(s[1:2], delimiter=",", skip_empty=False).values,
        "ragged_split": tf.strings.split(tf.strings.strip(s)).values,
        "substr": tf.substr(s, -5, 3),
        "full_match": tf.strings.regex_full_match(s, r".*o.*"),
        "replace_first": tf.regex_replace(s, r"[aeiou]", "_", replace_global=False),
        "replace_all": tf.regex_replace(s, r"\s+", " "),
        "as_string": tf.as_string([3.14159, 2.5], precision=2),
        "as_string_fill": tf.as_string([7, 42], width=5, fill="0"),
        "as_string_sci": tf.as_string([12345.678], scientific=True),
        "b64": tf.encode_base64(s, pad=True),
        "b64_round": tf.decode_base64(tf.encode_base64(s)),
        "raw": tf.decode_raw(tf.constant(["\x01\x00\x02\x00"]), tf.int16),
        "format": tf.strings.format("x={} y={}", (tf.constant([1, 2]), tf.constant(0.5))),
        "upper": tf.strings.upper(s),
        "lower": tf.strings.lower(s),
    }
    # (TF infers [1, 3] for "split" by running the constant StringSplit during shape inference)
    out = {"shapes": {k: v.shape.as_list() for k, v in fetch.items() if k != "split"}}
    with tf.Session() as sess:
        out.update(sess.run(fetch))
        try:
            sess.run(tf.string_to_number(["1.5", "abc"]))
            out["bad"] = None
        except tf.errors.InvalidArgumentError as e:
            out["bad"] = [type(e).__name__, "abc" in str(e)]
    out["raw"] = np.asarray(out["raw"]).tolist()
    return out
