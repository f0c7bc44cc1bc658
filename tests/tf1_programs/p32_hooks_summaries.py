"""MonitoredTrainingSession with the stock hooks (CheckpointSaverHook, SummarySaverHook, NanTensorHook,
StepCounterHook, FinalOpsHook, FeedFnHook), image / text / scalar summaries merged by name, and an event file
read back with summary_iterator; NanTensorHook stopping a diverging run."""

import glob
import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 2])
    w = tf.get_variable("w", initializer=tf.constant([[0.5], [-0.5]]))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    tf.summary.scalar("loss", loss)
    img = tf.summary.image("img", tf.reshape(tf.range(16, dtype=tf.float32) / 16.0, [1, 4, 4, 1]), max_outputs=1)
    txt = tf.summary.text("note", tf.constant("hello"))
    merged = tf.summary.merge([img, txt])
    logdir = os.path.join(workdir, "run")
    data = np.array([[1.0, 2.0], [0.5, -1.0]], np.float32)
    final = tf.train.FinalOpsHook(final_ops={"w": w})
    hooks = [
        tf.train.StopAtStepHook(last_step=4),
        tf.train.CheckpointSaverHook(logdir, save_steps=2),
        tf.train.SummarySaverHook(save_steps=1, output_dir=logdir, summary_op=tf.summary.merge_all()),
        tf.train.NanTensorHook(loss),
        tf.train.StepCounterHook(every_n_steps=1, output_dir=logdir),
        tf.train.FeedFnHook(lambda: {x: data}),
        final,
    ]
    losses = []
    with tf.train.MonitoredTrainingSession(hooks=hooks, save_checkpoint_secs=None, save_summaries_steps=None) as sess:
        while not sess.should_stop():
            losses.append(sess.run([train, loss])[1])
    ckpts = tf.train.get_checkpoint_state(logdir).all_model_checkpoint_paths
    tags = set()
    for f in glob.glob(os.path.join(logdir, "events.out.tfevents.*")):
        for e in tf.train.summary_iterator(f):
            tags.update(v.tag for v in e.summary.value)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        merged_bytes = s.run(merged, {x: data})
    summ = tf.Summary()
    summ.ParseFromString(merged_bytes)

    tf.reset_default_graph()
    v = tf.Variable(1.0)
    blow = tf.assign(v, v * 1e30)
    bad = v * v
    nan_stopped = None
    try:
        with tf.train.MonitoredTrainingSession(hooks=[tf.train.NanTensorHook(bad * 0.0 * np.inf)]) as sess:
            for _ in range(3):
                sess.run(blow)
    except RuntimeError as e:
        nan_stopped = "NaN" in str(e)
    return {
        "losses": losses,
        "final_w": final.final_ops_values["w"],
        "ckpts": sorted(os.path.basename(p) for p in ckpts),
        "tags": sorted(t for t in tags if t in ("loss", "img/image", "note/text_summary", "global_step/sec")),
        "merged_tags": sorted(v.tag for v in summ.value),
        "img_shape": [summ.value[0].image.height, summ.value[0].image.width]
        if summ.value[0].HasField("image")
        else None,
        "nan_stopped": nan_stopped,
    }
