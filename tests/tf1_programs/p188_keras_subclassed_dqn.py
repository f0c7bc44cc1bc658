"""A DQN step as TF 1.13-1.15 code wrote it with subclassed tf.keras Models in graph mode (the TF 2 transition
style): a QNetwork(tf.keras.Model) made twice (online and target, layers named by Keras at construction, so the
target's are "dense_2"...), each called on placeholders, the target's weights copied by a tf.group of tf.assign over
zip(online.trainable_variables, target.trainable_variables) and by set_weights(get_weights()), the TD target with
tf.stop_gradient and tf.reduce_max, Huber loss from tf.losses.huber_loss, gradients clipped with
tf.clip_by_global_norm and applied with Adam on var_list=online.trainable_variables; the variables' names, the
layers' names and the losses."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    K = tf.keras
    init = K.initializers.RandomUniform(-0.2, 0.2, seed=188)

    class QNetwork(K.Model):
        def __init__(self, actions, name):
            super().__init__(name=name)
            self.hidden = K.layers.Dense(16, activation="relu", kernel_initializer=init)
            self.q = K.layers.Dense(actions, kernel_initializer=init)

        def call(self, inputs):
            return self.q(self.hidden(inputs))

    online = QNetwork(3, "online")
    target = QNetwork(3, "target")
    obs = tf.placeholder(tf.float32, [None, 4], name="obs")
    next_obs = tf.placeholder(tf.float32, [None, 4], name="next_obs")
    actions = tf.placeholder(tf.int32, [None], name="actions")
    rewards = tf.placeholder(tf.float32, [None], name="rewards")
    done = tf.placeholder(tf.float32, [None], name="done")
    q = online(obs)
    q_next = target(next_obs)
    q_taken = tf.reduce_sum(q * tf.one_hot(actions, 3), axis=1)
    td_target = tf.stop_gradient(rewards + 0.9 * (1.0 - done) * tf.reduce_max(q_next, axis=1))
    loss = tf.losses.huber_loss(td_target, q_taken)
    opt = tf.train.AdamOptimizer(0.01)
    grads, variables = zip(*opt.compute_gradients(loss, var_list=online.trainable_variables))
    clipped, norm = tf.clip_by_global_norm(grads, 1.0)
    train = opt.apply_gradients(zip(clipped, variables))
    copy = tf.group(*[tf.assign(t, o) for o, t in zip(online.trainable_variables, target.trainable_variables)])
    out = {
        "online_vars": [v.name for v in online.trainable_variables],
        "target_vars": [v.name for v in target.trainable_variables],
        "layers": [l.name for l in online.layers + target.layers],
        "q_name": q.name,
        "loss_name": loss.name,
    }
    rng = np.random.RandomState(188)
    batch = {
        obs: rng.rand(8, 4),
        next_obs: rng.rand(8, 4),
        actions: rng.randint(0, 3, 8),
        rewards: rng.rand(8),
        done: (rng.rand(8) > 0.8).astype(np.float32),
    }
    sess = K.backend.get_session()
    sess.run(tf.global_variables_initializer())
    out["before_copy_equal"] = bool(np.allclose(sess.run(q, batch), sess.run(q_next, {next_obs: batch[obs]})))
    sess.run(copy)
    out["after_copy_equal"] = bool(np.allclose(sess.run(q, batch), sess.run(q_next, {next_obs: batch[obs]})))
    out["losses"] = []
    for step in range(6):
        l, n, _ = sess.run([loss, norm, train], batch)
        out["losses"].append([l, n])
        if step == 2:
            target.set_weights(online.get_weights())
    out["final_q"] = sess.run(q, batch)
    return out
