"""The TF 1.0 models-repo readers: PTB's ptb_producer (range_input_producer over epoch_size with an
assert_positive under control_dependencies, strided_slice windows with set_shape), the CIFAR-10 binary reader
(FixedLengthRecordReader over files of label + 32x32x3 bytes, decode_raw, strided_slice, reshape, transpose to
HWC), WholeFileReader over a string_input_producer, TFRecordReader + parse_single_sequence_example
(context and sequence features), and tf.train.batch(dynamic_pad=True) padding variable-length rows; all driven by
queue runners and a Coordinator."""

import os

import numpy as np


def ptb_producer(tf, raw_data, batch_size, num_steps, name=None):
    with tf.name_scope(name, "PTBProducer", [raw_data, batch_size, num_steps]):
        raw_data = tf.convert_to_tensor(raw_data, name="raw_data", dtype=tf.int32)
        data_len = tf.size(raw_data)
        batch_len = data_len // batch_size
        data = tf.reshape(raw_data[0 : batch_size * batch_len], [batch_size, batch_len])
        epoch_size = (batch_len - 1) // num_steps
        assertion = tf.assert_positive(epoch_size, message="epoch_size == 0, decrease batch_size or num_steps")
        with tf.control_dependencies([assertion]):
            epoch_size = tf.identity(epoch_size, name="epoch_size")
        i = tf.train.range_input_producer(epoch_size, shuffle=False).dequeue()
        x = tf.strided_slice(data, [0, i * num_steps], [batch_size, (i + 1) * num_steps])
        x.set_shape([batch_size, num_steps])
        y = tf.strided_slice(data, [0, i * num_steps + 1], [batch_size, (i + 1) * num_steps + 1])
        y.set_shape([batch_size, num_steps])
        return x, y, epoch_size


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    x, y, epoch_size = ptb_producer(tf, list(range(23)), 2, 3)
    rng = np.random.RandomState(135)
    record = 1 + 4 * 4 * 3
    cifar_files = []
    for f in range(2):
        path = os.path.join(workdir, f"data_batch_{f}.bin")
        with open(path, "wb") as fh:
            fh.writelines(
                bytes([(f * 3 + r) % 10]) + rng.randint(0, 256, record - 1).astype(np.uint8).tobytes() for r in range(3)
            )
        cifar_files.append(path)
    reader = tf.FixedLengthRecordReader(record_bytes=record)
    key, value = reader.read(tf.train.string_input_producer(cifar_files, shuffle=False))
    raw = tf.decode_raw(value, tf.uint8)
    label = tf.cast(tf.strided_slice(raw, [0], [1]), tf.int32)
    depth_major = tf.reshape(tf.strided_slice(raw, [1], [record]), [3, 4, 4])
    image = tf.transpose(depth_major, [1, 2, 0])
    texts = []
    for n, text in enumerate(["alpha", "beta gamma", "delta"]):
        path = os.path.join(workdir, f"doc{n}.txt")
        with open(path, "w") as fh:
            fh.write(text)
        texts.append(path)
    wkey, wvalue = tf.WholeFileReader().read(tf.train.string_input_producer(texts, shuffle=False))
    seq_path = os.path.join(workdir, "seq.tfrecord")
    with tf.python_io.TFRecordWriter(seq_path) as writer:
        for n in range(3):
            ex = tf.train.SequenceExample()
            ex.context.feature["length"].int64_list.value.append(n + 1)
            tokens = ex.feature_lists.feature_list["tokens"]
            for t in range(n + 1):
                tokens.feature.add().int64_list.value.append(10 * n + t)
            writer.write(ex.SerializeToString())
    _, serialized = tf.TFRecordReader().read(tf.train.string_input_producer([seq_path], shuffle=False))
    context, sequence = tf.parse_single_sequence_example(
        serialized,
        context_features={"length": tf.FixedLenFeature([], tf.int64)},
        sequence_features={"tokens": tf.FixedLenSequenceFeature([], tf.int64)},
    )
    padded = tf.train.batch([sequence["tokens"], context["length"]], batch_size=3, dynamic_pad=True)
    out["static"] = [
        x.shape.as_list(),
        image.shape.as_list(),
        label.shape.as_list(),
        sequence["tokens"].shape.as_list(),
        padded[0].shape.as_list(),
    ]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        out["epoch_size"] = sess.run(epoch_size)
        out["ptb"] = [sess.run([x, y]) for _ in range(4)]
        cifar = [sess.run([key, label, image]) for _ in range(6)]
        out["cifar_keys"] = [os.path.basename(k.decode()) for k, _, _ in cifar]
        out["cifar_labels"] = [int(lab[0]) for _, lab, _ in cifar]
        out["cifar_pixel"] = [img[1, 2].tolist() for _, _, img in cifar]
        out["files"] = [[os.path.basename(k.decode()), v] for k, v in (sess.run([wkey, wvalue]) for _ in range(3))]
        out["padded"] = sess.run(padded)
        coord.request_stop()
        coord.join(threads)
    tf.reset_default_graph()
    bad = ptb_producer(tf, list(range(5)), 2, 3)
    with tf.Session() as sess:
        try:
            sess.run(bad[2])
        except tf.errors.InvalidArgumentError as e:
            out["too_small"] = [
                "InvalidArgumentError",
                "epoch_size == 0, decrease batch_size or num_steps" in e.message,
            ]
    return out
