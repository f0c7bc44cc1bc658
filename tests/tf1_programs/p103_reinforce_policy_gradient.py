"""REINFORCE on a toy bandit-like chain, as the 2016-2017 policy-gradient tutorials wrote it in TF1: a softmax
policy network, actions sampled in numpy from the fetched probabilities (seeded), discounted and normalized
returns computed in numpy, the loss as -mean(log pi(a|s) * advantage) through
sparse_softmax_cross_entropy_with_logits and through tf.log(tf.reduce_sum(probs * one_hot)), an entropy bonus,
a learned value baseline (a second head) with its own loss, and Adam; gradients accumulated over episodes with
tf.placeholder gradient buffers fed back to apply_gradients (the Karpathy/Juliani recipe)."""

import numpy as np


def discount(rewards, gamma):
    out, running = np.zeros_like(rewards), 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(103)
    n_states, n_actions = 5, 2
    states = tf.placeholder(tf.float32, [None, n_states], name="states")
    actions = tf.placeholder(tf.int32, [None], name="actions")
    advantages = tf.placeholder(tf.float32, [None], name="advantages")
    returns = tf.placeholder(tf.float32, [None], name="returns")
    w1 = tf.Variable(rng.randn(n_states, 8).astype(np.float32) * 0.5, name="w1")
    h = tf.nn.tanh(tf.matmul(states, w1))
    w_pi = tf.Variable(rng.randn(8, n_actions).astype(np.float32) * 0.5, name="w_pi")
    w_v = tf.Variable(rng.randn(8, 1).astype(np.float32) * 0.5, name="w_v")
    logits = tf.matmul(h, w_pi)
    probs = tf.nn.softmax(logits)
    value = tf.squeeze(tf.matmul(h, w_v), axis=1)
    neg_log = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=actions, logits=logits)
    log_manual = tf.log(tf.reduce_sum(probs * tf.one_hot(actions, n_actions), axis=1))
    entropy = -tf.reduce_sum(probs * tf.log(probs + 1e-8), axis=1)
    pg_loss = tf.reduce_mean(neg_log * advantages) - 0.01 * tf.reduce_mean(entropy)
    v_loss = 0.5 * tf.reduce_mean(tf.square(returns - value))
    loss = pg_loss + v_loss
    tvars = tf.trainable_variables()
    grads = tf.gradients(loss, tvars)
    buffers = [tf.placeholder(tf.float32, v.shape, name=f"grad_buffer_{i}") for i, v in enumerate(tvars)]
    opt = tf.train.AdamOptimizer(0.05)
    update = opt.apply_gradients(zip(buffers, tvars))
    out = {"grad_shapes": [g.shape.as_list() for g in grads], "episodes": []}
    sample_rng = np.random.RandomState(11)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        acc = [np.zeros(v.shape.as_list(), np.float32) for v in tvars]
        for episode in range(6):
            obs, acts, rews = [], [], []
            state = 0
            for t in range(6):
                one_hot = np.eye(n_states, dtype=np.float32)[state]
                p = sess.run(probs, {states: one_hot[None]})[0]
                act = int(sample_rng.rand() < p[1])
                obs.append(one_hot)
                acts.append(act)
                rews.append(1.0 if act == state % 2 else 0.0)
                state = min(state + 1, n_states - 1) if act == 1 else max(state - 1, 0)
            ret = discount(np.array(rews, np.float32), 0.95)
            feed = {states: np.stack(obs), actions: acts, returns: ret}
            v = sess.run(value, feed)
            adv = ret - v
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            feed[advantages] = adv
            g, l, nl, lm = sess.run([grads, loss, neg_log, log_manual], feed)
            for i, gi in enumerate(g):
                acc[i] += gi
            if episode % 2 == 1:
                sess.run(update, dict(zip(buffers, acc)))
                acc = [a * 0 for a in acc]
            out["episodes"].append([acts, l, bool(np.allclose(nl, -lm, atol=1e-5))])
        out["final_probs"] = sess.run(probs, {states: np.eye(n_states, dtype=np.float32)})
    return out
