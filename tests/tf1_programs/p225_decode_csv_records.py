"""CSV parsing as the census/iris input functions wrote it: tf.decode_csv with record_defaults of each type
(int32, int64, float32, float64, string) and a required column (an empty default), field_delim, quoted fields
with embedded delimiters, na_value, select_cols; TextLineDataset with skip(1) for the header and filter() of
comment lines, parsed by map into a features dict and batched; tf.data.experimental.CsvDataset with header and
select_cols; and the errors for a missing required field and a wrong number of fields."""

import os


def main(tf, workdir):
    tf.reset_default_graph()
    path = os.path.join(workdir, "data.csv")
    with open(path, "w") as f:
        f.write("age|income|name|score|label\n")
        f.write('39|77516|"Smith|John"|0.5|1\n')
        f.write("# a comment line\n")
        f.write("50||Doe|NA|0\n")
        f.write('38|215646|"Roe"|1.25|1\n')
    defaults = [[0], tf.constant([-1], tf.int64), [""], [0.0], tf.constant([], tf.int32)]
    lines = tf.constant(['39|77516|"Smith|John"|0.5|1', "50||Doe|NA|0", "7|8|x|9.5|1"])
    cols = tf.decode_csv(lines, defaults, field_delim="|", na_value="NA")
    selected = tf.decode_csv(lines, [[""], [0.0]], field_delim="|", select_cols=[2, 3], na_value="NA")
    doubles = tf.decode_csv(["1.5,2", "3,4e2"], [tf.constant([0.0], tf.float64), [0.0]])
    names = ["age", "income", "name", "score", "label"]

    def parse(line):
        fields = tf.decode_csv(line, defaults, field_delim="|", na_value="NA")
        features = dict(zip(names, fields))
        return features, features.pop("label")

    ds = tf.data.TextLineDataset(path).skip(1).filter(lambda l: tf.logical_not(tf.strings.regex_full_match(l, "#.*")))
    batch = ds.map(parse).batch(2).make_one_shot_iterator().get_next()
    csv_ds = tf.data.experimental.CsvDataset(path, [[0.0], [""]], header=True, field_delim="|", select_cols=[0, 2])
    csv_next = csv_ds.filter(lambda a, n: tf.strings.length(n) > 0).make_one_shot_iterator().get_next()
    out = {"dtypes": [c.dtype.name for c in cols], "shapes": [c.shape.as_list() for c in cols]}
    with tf.Session() as sess:
        out["cols"] = sess.run(cols)
        out["selected"] = sess.run(selected)
        out["doubles"] = sess.run(doubles)
        out["batches"] = []
        while True:
            try:
                out["batches"].append(sess.run(batch))
            except tf.errors.OutOfRangeError:
                break
        rows = []
        try:
            while True:
                rows.append(sess.run(csv_next))
        except (tf.errors.OutOfRangeError, tf.errors.InvalidArgumentError) as e:
            rows.append(type(e).__name__)
        out["csv_rows"] = rows
        errors = []
        for bad in (["1|2|x|0.5|"], ["1|2|x"]):
            try:
                sess.run(tf.decode_csv(bad, defaults, field_delim="|"))
                errors.append(None)
            except tf.errors.InvalidArgumentError as e:
                errors.append(type(e).__name__)
        out["errors"] = errors
    return out
