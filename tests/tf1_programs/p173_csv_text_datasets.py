"""CSV and fixed-length binary files as TF 1.8-1.15 input code read them with tf.data: TextLineDataset with
skip(1) and a map of tf.decode_csv (record_defaults with a string column and a missing value filled in),
tf.data.experimental.CsvDataset with header=True and select_cols, tf.data.experimental.make_csv_dataset
(shuffle=False, num_epochs=1, label_name=) giving an OrderedDict of columns, FixedLengthRecordDataset with
header_bytes decoded by tf.decode_raw (the CIFAR-10 binary layout), Dataset.window(size, shift,
drop_remainder) + flat_map(batch) for sliding windows, and unbatch; the values, shapes and the error for a
malformed row."""

import os

import numpy as np

CSV = "a,b,name,y\n1,2.5,x,0\n3,,yy,1\n5,6.5,zzz,0\n7,8.0,w,1\n9,1.5,v,0\n"


def drain(sess, t):
    vals = []
    while True:
        try:
            vals.append(sess.run(t))
        except Exception as e:  # OutOfRangeError of either system
            if type(e).__name__ != "OutOfRangeError":
                raise
            return vals


def main(tf, workdir):
    tf.reset_default_graph()
    csv_path = os.path.join(workdir, "data.csv")
    with open(csv_path, "w") as f:
        f.write(CSV)
    bad_path = os.path.join(workdir, "bad.csv")
    with open(bad_path, "w") as f:
        f.write("1,2\n3\n")
    bin_path = os.path.join(workdir, "data.bin")
    records = np.arange(3 * 5, dtype=np.uint8).reshape(3, 5)
    with open(bin_path, "wb") as f:
        f.write(b"HEAD")
        f.write(records.tobytes())

    defaults = [[0], [-1.0], [""], [0]]
    lines = tf.data.TextLineDataset(csv_path).skip(1).map(lambda l: tf.decode_csv(l, record_defaults=defaults))
    lines_it = lines.batch(2).make_one_shot_iterator().get_next()
    csv_ds = tf.data.experimental.CsvDataset(csv_path, [tf.int32, tf.float32], header=True, select_cols=[0, 3])
    csv_it = csv_ds.make_one_shot_iterator().get_next()
    made = tf.data.experimental.make_csv_dataset(
        csv_path, batch_size=2, label_name="y", shuffle=False, num_epochs=1,
        column_defaults=[0, 0.0, "", 0],
    )  # fmt: skip
    made_it = made.make_one_shot_iterator().get_next()
    fixed = tf.data.FixedLengthRecordDataset(bin_path, record_bytes=5, header_bytes=4).map(
        lambda r: tf.cast(tf.decode_raw(r, tf.uint8), tf.int32)
    )
    fixed_it = fixed.make_one_shot_iterator().get_next()
    windows = tf.data.Dataset.range(7).window(3, shift=2, drop_remainder=True).flat_map(lambda w: w.batch(3))
    win_it = windows.make_one_shot_iterator().get_next()
    unb = tf.data.Dataset.from_tensor_slices(np.arange(6).reshape(3, 2)).batch(2).unbatch()
    unb_it = unb.make_one_shot_iterator().get_next()
    bad = tf.data.TextLineDataset(bad_path).map(lambda l: tf.decode_csv(l, record_defaults=[[0], [0]]))
    bad_it = bad.make_one_shot_iterator().get_next()
    out = {
        "made_keys": sorted(made_it[0]),
        "made_shape": made_it[1].shape.as_list(),
        "csv_types": [t.dtype.name for t in csv_it],
        "win_shape": win_it.shape.as_list(),
        "unb_shape": unb_it.shape.as_list(),
    }
    with tf.Session() as sess:
        out["lines"] = [list(v) for v in drain(sess, lines_it)]
        out["csv"] = [list(v) for v in drain(sess, csv_it)]
        out["made"] = [[dict(f), y] for f, y in drain(sess, made_it)]
        out["fixed"] = drain(sess, fixed_it)
        out["windows"] = drain(sess, win_it)
        out["unbatch"] = drain(sess, unb_it)
        out["bad_first"] = list(sess.run(bad_it))
        try:
            sess.run(bad_it)
            out["bad"] = None
        except tf.errors.InvalidArgumentError as e:
            out["bad"] = [type(e).__name__, "Expect 2 fields but have 1" in e.message]
    return out
