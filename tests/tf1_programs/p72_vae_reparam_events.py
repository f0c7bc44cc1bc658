"""A VAE written by hand as 2017 tutorials did (no tf.distributions): dense encoder to mean and log-variance,
z = mean + exp(0.5 * logvar) * eps with eps from tf.random_normal (op seed), Bernoulli reconstruction by
sigmoid_cross_entropy_with_logits, the analytic KL, Adam; tf.summary scalar / histogram merged and written by a
FileWriter, then the event file read back with tf.train.summary_iterator (tags, steps, scalar values)."""

import glob

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(72)
    rng = np.random.RandomState(72)
    data = (rng.rand(16, 12) > 0.5).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 12], name="x")
    with tf.variable_scope("encoder"):
        h = tf.layers.dense(x, 8, activation=tf.nn.relu, name="hidden")
        mean = tf.layers.dense(h, 2, name="mean")
        logvar = tf.layers.dense(h, 2, name="logvar")
    eps = tf.random_normal(tf.shape(mean), seed=7, name="eps")
    z = mean + tf.exp(0.5 * logvar) * eps
    with tf.variable_scope("decoder"):
        dh = tf.layers.dense(z, 8, activation=tf.nn.relu, name="hidden")
        logits = tf.layers.dense(dh, 12, name="logits")
    recon = tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=logits), axis=1)
    kl = -0.5 * tf.reduce_sum(1 + logvar - tf.square(mean) - tf.exp(logvar), axis=1)
    loss = tf.reduce_mean(recon + kl, name="loss")
    global_step = tf.train.get_or_create_global_step()
    train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)
    tf.summary.scalar("loss", loss)
    tf.summary.scalar("kl", tf.reduce_mean(kl))
    tf.summary.histogram("z", z)
    merged = tf.summary.merge_all()
    out = {
        "vars": [v.op.name for v in tf.trainable_variables()],
        "shapes": [z.shape.as_list(), recon.shape.as_list(), kl.shape.as_list()],
        "merged": [merged.op.type, merged.dtype.name],
        "losses": [],
    }
    writer = tf.summary.FileWriter(workdir)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(6):
            s, l, _ = sess.run([merged, loss, train], {x: data})
            writer.add_summary(s, step)
            out["losses"].append(l)
        out["step"] = sess.run(global_step)
    writer.close()
    events = []
    for path in glob.glob(workdir + "/events.out.tfevents.*"):
        for e in tf.train.summary_iterator(path):
            for v in e.summary.value:
                kind = "histo" if v.HasField("histo") else "simple"
                val = v.simple_value if kind == "simple" else v.histo.num
                events.append((e.step, v.tag, kind, float(val)))
    out["events"] = sorted(events)
    return out
