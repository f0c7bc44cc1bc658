"""Summaries against TF1: the serialized Summary of each summary op (tags, values, histograms, images, tensors),
op names and the SUMMARIES collection, merge/merge_all and their errors. Summaries are parsed with the
framework's own `tf.Summary` (tensorweave's summary.proto has TensorFlow's field numbers)."""

import numpy as np

from tests.fidelity.harness import case


def _values(tf, serialized):
    out = []
    for v in tf.Summary.FromString(serialized).value:
        kind = v.WhichOneof("value")
        item = {"tag": v.tag, "kind": kind}
        if kind == "simple_value":
            item["simple_value"] = v.simple_value
        elif kind == "histo":
            h = v.histo
            item["histo"] = [h.min, h.max, h.num, h.sum, h.sum_squares, list(h.bucket_limit), list(h.bucket)]
        elif kind == "image":
            item["image"] = [v.image.height, v.image.width, v.image.colorspace]
        elif kind == "audio":
            a = v.audio
            item["audio"] = [a.sample_rate, a.num_channels, a.length_frames, a.content_type, a.encoded_audio_string]
        elif kind == "tensor":
            t = v.tensor
            item["tensor"] = [t.dtype, [d.size for d in t.tensor_shape.dim], t.tensor_content, list(t.string_val)]
        if v.HasField("metadata"):
            item["plugin"] = v.metadata.plugin_data.plugin_name
            item["description"] = v.metadata.summary_description
            item["display_name"] = v.metadata.display_name
        out.append(item)
    return out


def _decode_png(png):
    """The pixels of an 8-bit non-interlaced PNG (any filter), decoded independently of either framework."""
    import struct
    import zlib

    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(png):
        (n,) = struct.unpack(">I", png[pos : pos + 4])
        kind, data = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + n]
        assert zlib.crc32(kind + data) == struct.unpack(">I", png[pos + 8 + n : pos + 12 + n])[0]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", data)
        elif kind == b"IDAT":
            idat += data
        pos += 12 + n
    width, height, depth, color = header[0], header[1], header[2], header[3]
    assert depth == 8
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return np.frombuffer(b"".join(rows), np.uint8).reshape(height, width, channels)


@case
def summary_scalar_tags_and_collection(tf, sess):
    x = tf.placeholder(tf.float32, [])
    with tf.name_scope("train"):
        a = tf.summary.scalar("loss", x * 2.0)
        b = tf.summary.scalar("loss", x)
    c = tf.summary.scalar("acc:rate", tf.constant(3, tf.int64), family="metrics")
    d = tf.summary.scalar("private", x, collections=["mine"])
    coll = [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]
    out = sess.run([a, b, c, d], {x: 1.5})
    return [a.op.name, b.op.name, c.op.name, a.shape, coll, [t.name for t in tf.get_collection("mine")]] + [
        _values(tf, s) for s in out
    ]


@case
def summary_histogram_values(tf, sess):
    h = tf.summary.histogram("weights", tf.constant([[-3.5, 0.0, 1e-13], [2.0, 2.0, 250.0]]))
    i = tf.summary.histogram("ints", tf.constant([1, 5, 5, -7]))
    e = tf.summary.histogram("empty", tf.zeros([0]))
    return [h.op.name, _values(tf, sess.run(h)), _values(tf, sess.run(i)), _values(tf, sess.run(e))]


@case
def summary_histogram_nan_is_error(tf, sess):
    return sess.run(tf.summary.histogram("bad", tf.constant([1.0, np.nan])))


@case
def summary_image_tags_and_sizes(tf, sess):
    one = tf.summary.image("pic", tf.zeros([1, 4, 5, 3], tf.uint8))
    many = tf.summary.image("batch", tf.random_uniform([5, 2, 3, 1]), max_outputs=2)
    rgba = tf.summary.image("rgba", tf.ones([2, 3, 2, 4]), family="imgs")
    return [one.op.name, _values(tf, sess.run(one)), _values(tf, sess.run(many)), _values(tf, sess.run(rgba))]


@case
def summary_image_pixels(tf, sess):
    img = np.array([[[[-1.0], [0.0], [0.5]], [[1.0], [np.inf], [0.25]]]], np.float32)
    pos = np.array([[[[0.0, 0.5, 1.0], [2.0, 0.1, 0.0]]]], np.float32)
    s = sess.run([tf.summary.image("signed", img), tf.summary.image("pos", pos)])
    out = []
    for serialized in s:
        png = tf.Summary.FromString(serialized).value[0].image.encoded_image_string
        out.append(png)
    return [_decode_png(p) for p in out]


@case
def summary_image_bad_shape(tf, sess):
    return sess.run(tf.summary.image("x", tf.zeros([2, 3, 3, 2])))


@case
def summary_tensor_and_text(tf, sess):
    t = tf.summary.tensor_summary("t", tf.constant([[1, 2], [3, 4]]), summary_description="desc", display_name="T")
    s = tf.summary.text("notes", tf.constant(["hello", "world"]))
    return [t.op.name, s.op.name, t.op.type, _values(tf, sess.run(t)), _values(tf, sess.run(s))]


@case
def summary_text_needs_strings(tf, sess):
    return tf.summary.text("notes", tf.constant(1.0))


@case
def summary_merge_and_merge_all(tf, sess):
    assert tf.summary.merge_all() is None
    a = tf.summary.scalar("a", tf.constant(1.0))
    b = tf.summary.histogram("b", tf.constant([1.0, 2.0]))
    tf.summary.scalar("c", tf.constant(2.0), collections=["other"])
    m = tf.summary.merge_all()
    mo = tf.summary.merge_all(key="other")
    m2 = tf.summary.merge([a, b], collections=["merged"], name="both")
    return [
        m.op.type,
        m2.op.name,
        [t.name for t in tf.get_collection("merged")],
        _values(tf, sess.run(m)),
        _values(tf, sess.run(mo)),
        _values(tf, sess.run(m2)),
    ]


@case
def summary_merge_duplicate_tag_is_error(tf, sess):
    a = tf.summary.scalar("a", tf.constant(1.0))
    return sess.run(tf.summary.merge([a, a]))


@case
def summary_protos_top_level(tf, sess):
    s = tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=2.5)])
    e = tf.Event(wall_time=1.0, step=3, summary=s)
    log = tf.SessionLog(status=tf.SessionLog.CHECKPOINT, checkpoint_path="/tmp/ckpt")
    h = tf.HistogramProto(min=1.0, max=2.0, num=2, bucket_limit=[1.0, 2.0], bucket=[1, 1])
    md = tf.SummaryMetadata(display_name="d", plugin_data=tf.SummaryMetadata.PluginData(plugin_name="p"))
    lm = tf.LogMessage(level=tf.LogMessage.WARN, message="m")
    return [
        e.SerializeToString(),
        tf.Event(session_log=log).SerializeToString(),
        h.SerializeToString(),
        md.SerializeToString(),
        lm.SerializeToString(),
        tf.summary.SummaryDescription(type_hint="h").SerializeToString(),
        tf.summary.TaggedRunMetadata(tag="t", run_metadata=b"rm").SerializeToString(),
        tf.summary.Event is tf.Event,
    ]


@case
def summary_audio(tf, sess):
    clips = np.array([[[0.0, 1.0], [-1.0, 0.5], [2.0, -3.0]], [[0.25, -0.25], [1e-5, 0.9999], [0.0, 0.0]]], np.float32)
    a = tf.summary.audio("sound", clips, 8000)
    b = tf.summary.audio("mono", clips[:, :, 0], tf.constant(22050.0), max_outputs=1, family="fam")
    return [a.op.name, b.op.name, _values(tf, sess.run(a)), _values(tf, sess.run(b))]


@case
def summary_audio_errors(tf, sess):
    out = []
    for tensor, rate in ((np.zeros([2], np.float32), 8000.0), (np.zeros([1, 2], np.float32), 0.0)):
        try:
            sess.run(tf.summary.audio("bad", tensor, rate))
            out.append("ok")
        except (ValueError, tf.errors.InvalidArgumentError) as e:
            out.append(type(e).__name__)
    return out
