"""Summaries written by hand as TF1 evaluation loops did (values computed in numpy, no summary op):
tf.Summary(value=[tf.Summary.Value(tag=, simple_value=)]) added per step, a histogram built into a HistogramProto,
add_session_log(SessionLog(status=START)) on restart, FileWriter.get_logdir / flush / close (not reopen: TF's
reopened writer names its file by the second and overwrites the first one within it),
tf.summary.FileWriterCache.get(logdir) returning one writer per directory, and the events read back
with tf.train.summary_iterator: kinds, steps, tags, values and the session log statuses."""

import glob
import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    logdir = os.path.join(workdir, "eval")
    writer = tf.summary.FileWriter(logdir)
    out = {"logdir": os.path.basename(writer.get_logdir())}
    for step, acc in enumerate([0.5, 0.625, 0.75]):
        summary = tf.Summary(value=[tf.Summary.Value(tag="eval/accuracy", simple_value=acc)])
        writer.add_summary(summary, global_step=step * 10)
    values = np.array([0.1, 0.4, 0.4, 0.9])
    hist = tf.HistogramProto(min=float(values.min()), max=float(values.max()), num=len(values),
                             sum=float(values.sum()), sum_squares=float((values ** 2).sum()))  # fmt: skip
    hist.bucket_limit.extend([0.25, 0.5, 1.0])
    hist.bucket.extend([1, 2, 1])
    writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="weights", histo=hist)]), global_step=30)
    writer.add_session_log(tf.SessionLog(status=tf.SessionLog.START), global_step=30)
    writer.flush()
    writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="eval/accuracy", simple_value=0.875)]), 40)
    writer.close()
    cached = tf.summary.FileWriterCache.get(os.path.join(workdir, "cached"))
    out["cache_same"] = cached is tf.summary.FileWriterCache.get(os.path.join(workdir, "cached"))
    tf.summary.FileWriterCache.clear()
    events = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        for event in tf.train.summary_iterator(path):
            kind = event.WhichOneof("what")
            if kind == "summary":
                for v in event.summary.value:
                    if v.HasField("histo"):
                        events.append([event.step, v.tag, "histo", v.histo.num, list(v.histo.bucket)])
                    else:
                        events.append([event.step, v.tag, round(v.simple_value, 4)])
            elif kind == "session_log":
                events.append([event.step, "session_log", event.session_log.status])
            else:
                events.append([event.step, kind])
    out["events"] = sorted(events, key=lambda e: (e[0], str(e[1])))
    out["num_files"] = len(glob.glob(os.path.join(logdir, "events.out.tfevents.*")))
    return out
