"""A DQN training step as 2016-2018 TF1 reinforcement-learning code wrote it: online and target Q-networks
built by one function under variable scopes, the target updated by a tf.group of tf.assign copies (and a soft
update with tau), actions chosen by tf.argmax, Q(s, a) picked with tf.gather_nd over tf.stack([range, a]) and with
one_hot masks, the Bellman target with tf.stop_gradient and (1 - done), tf.losses.huber_loss, RMSProp with
gradient clipping by norm, and a replay buffer sampled in numpy with a fixed seed."""

import numpy as np


def q_network(tf, states, scope, n_actions, rng_init):
    with tf.variable_scope(scope):
        h = tf.layers.dense(states, 16, tf.nn.relu, kernel_initializer=tf.constant_initializer(rng_init[0]), name="h")
        return tf.layers.dense(h, n_actions, kernel_initializer=tf.constant_initializer(rng_init[1]), name="q")


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(102)
    n_states, n_actions, gamma = 4, 3, 0.9
    inits = [rng.randn(n_states, 16).astype(np.float32) * 0.3, rng.randn(16, n_actions).astype(np.float32) * 0.3]
    s = tf.placeholder(tf.float32, [None, n_states], name="s")
    a = tf.placeholder(tf.int32, [None], name="a")
    r = tf.placeholder(tf.float32, [None], name="r")
    s2 = tf.placeholder(tf.float32, [None, n_states], name="s2")
    done = tf.placeholder(tf.float32, [None], name="done")
    q = q_network(tf, s, "online", n_actions, inits)
    q_next = q_network(tf, s2, "target", n_actions, [w * 0.5 for w in inits])
    online_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="online")
    target_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="target")
    hard_update = tf.group(*[tf.assign(t, o) for t, o in zip(target_vars, online_vars)], name="hard_update")
    tau = 0.1
    soft_update = tf.group(*[t.assign(tau * o + (1 - tau) * t) for t, o in zip(target_vars, online_vars)])
    greedy = tf.argmax(q, axis=1, output_type=tf.int32)
    idx = tf.stack([tf.range(tf.shape(a)[0]), a], axis=1)
    q_sa = tf.gather_nd(q, idx)
    q_sa_mask = tf.reduce_sum(q * tf.one_hot(a, n_actions), axis=1)
    target = tf.stop_gradient(r + gamma * (1.0 - done) * tf.reduce_max(q_next, axis=1))
    loss = tf.losses.huber_loss(target, q_sa, delta=1.0)
    opt = tf.train.RMSPropOptimizer(0.01, decay=0.95, epsilon=0.01)
    grads, variables = zip(*opt.compute_gradients(loss, var_list=online_vars))
    clipped = [tf.clip_by_norm(g, 5.0) for g in grads]
    train = opt.apply_gradients(zip(clipped, variables))
    n = 64
    buf = {
        "s": rng.randn(n, n_states).astype(np.float32),
        "a": rng.randint(0, n_actions, n).astype(np.int32),
        "r": rng.rand(n).astype(np.float32),
        "s2": rng.randn(n, n_states).astype(np.float32),
        "done": (rng.rand(n) < 0.2).astype(np.float32),
    }
    sample_rng = np.random.RandomState(7)
    out = {
        "online": [v.op.name for v in online_vars],
        "target": [v.op.name for v in target_vars],
        "names": [q_sa.name, loss.name, greedy.name, hard_update.name],
        "slots": sorted(opt.get_slot_names()),
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["q_before_copy"] = sess.run(q_next, {s2: buf["s2"][:2]})
        sess.run(hard_update)
        out["q_after_copy"] = sess.run([q, q_next], {s: buf["s"][:2], s2: buf["s"][:2]})
        for step in range(12):
            i = sample_rng.choice(n, 16, replace=False)
            feed = {s: buf["s"][i], a: buf["a"][i], r: buf["r"][i], s2: buf["s2"][i], done: buf["done"][i]}
            l, qa, qm, _ = sess.run([loss, q_sa, q_sa_mask, train], feed)
            out["losses"].append(l)
            if step == 0:
                out["gather_equals_mask"] = bool(np.allclose(qa, qm))
            if step % 4 == 3:
                sess.run(soft_update)
        out["greedy"] = sess.run(greedy, {s: buf["s"][:8]})
        out["target_q"] = sess.run(q_next, {s2: buf["s2"][:3]})
    return out
