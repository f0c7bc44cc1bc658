"""TensorBoard summaries beyond scalars, as TF1 scripts wrote them: tf.summary.audio (sample_rate,
max_outputs), tf.summary.text, tf.summary.tensor_summary, tf.summary.histogram of ints, summaries in a name scope and
a family, merge of a list, FileWriter(graph=...) plus add_graph, add_summary with a global step, add_run_metadata,
flush/close; read back with tf.train.summary_iterator: the tags, steps, value kinds, the audio's sample rate and
channel count, the text, and the histogram's bucket totals."""

import glob
import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(137)
    wave = tf.constant(np.sin(np.linspace(0, 20, 2 * 800)).reshape(2, 800, 1).astype(np.float32) * 0.5)
    with tf.name_scope("media"):
        audio = tf.summary.audio("tone", wave, sample_rate=8000, max_outputs=1)
        text = tf.summary.text("note", tf.constant("hello **tensorboard**"))
    tensor = tf.summary.tensor_summary("raw", tf.constant([[1, 2], [3, 4]]))
    counts = tf.summary.histogram("ids", tf.constant(rng.randint(0, 10, 100)))
    fam = tf.summary.scalar("loss", tf.constant(0.25), family="train")
    merged = tf.summary.merge([audio, text, tensor, counts, fam])
    logdir = os.path.join(workdir, "logs")
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(logdir, graph=sess.graph)
        options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        metadata = tf.RunMetadata()
        summary = sess.run(merged, options=options, run_metadata=metadata)
        writer.add_summary(summary, global_step=7)
        writer.add_run_metadata(metadata, "step7", global_step=7)
        writer.flush()
        writer.close()
    out = {"names": [t.op.name for t in (audio, text, tensor, counts, fam)], "events": []}
    (event_file,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    for event in tf.train.summary_iterator(event_file):
        kind = event.WhichOneof("what")
        if kind == "summary":
            for v in event.summary.value:
                entry = [event.step, v.tag, v.WhichOneof("value")]
                if v.HasField("audio"):
                    entry += [v.audio.sample_rate, v.audio.num_channels, v.audio.length_frames, v.audio.content_type]
                if v.HasField("histo"):
                    entry += [v.histo.num, v.histo.min, v.histo.max]
                if v.HasField("tensor") and v.metadata.plugin_data.plugin_name == "text":
                    entry += [v.tensor.string_val[0]]
                out["events"].append(entry)
        else:
            out["events"].append([event.step, kind])
    return out
