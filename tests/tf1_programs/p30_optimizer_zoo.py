"""Every tf.train optimizer on the same small problem, with dense and sparse (embedding_lookup, IndexedSlices)
gradients, slots and their names, var_list / gate_gradients / colocate args, and Optimizer.get_slot."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(30)
    emb0 = rng.randn(6, 3).astype(np.float32)
    w0 = rng.randn(3, 2).astype(np.float32)
    ids = np.array([1, 4, 1])
    target = rng.randn(3, 2).astype(np.float32)
    makers = {
        "sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
        "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
        "nesterov": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
        "adagrad": lambda: tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.2),
        "adadelta": lambda: tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6),
        "rmsprop": lambda: tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5),
        "rmsprop_centered": lambda: tf.train.RMSPropOptimizer(0.01, centered=True),
        "adam": lambda: tf.train.AdamOptimizer(0.05, beta1=0.8, beta2=0.99, epsilon=1e-7),
        "ftrl": lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.01),
        "proximal_sgd": lambda: tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.01),
        "proximal_adagrad": lambda: tf.train.ProximalAdagradOptimizer(0.1, l2_regularization_strength=0.01),
    }
    out = {}
    for name, make in makers.items():
        with tf.Graph().as_default():
            emb = tf.Variable(emb0, name="emb")
            w = tf.Variable(w0, name="w")
            y = tf.matmul(tf.nn.embedding_lookup(emb, ids), w)
            loss = tf.reduce_sum(tf.square(y - target))
            opt = make()
            step = tf.train.get_or_create_global_step()
            gvs = opt.compute_gradients(loss, gate_gradients=tf.train.Optimizer.GATE_OP)
            train = opt.apply_gradients(gvs, global_step=step)
            slots = sorted(opt.get_slot_names())
            slot_names = sorted(opt.get_slot(w, s).op.name for s in slots)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                losses = [sess.run([train, loss])[1] for _ in range(3)]
                out[name] = {
                    "losses": losses,
                    "vars": sess.run([emb, w]),
                    "slots": slots,
                    "slot_names": slot_names,
                    "grad_types": [isinstance(g, tf.IndexedSlices) for g, _ in gvs],
                    "step": sess.run(step),
                    "n_globals": len(tf.global_variables()),
                }
    with tf.Graph().as_default():
        a = tf.Variable(1.0)
        b = tf.Variable(2.0)
        loss = a * b
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, var_list=[a])
        grads = tf.train.GradientDescentOptimizer(0.5).compute_gradients(loss, var_list=[b])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            out["var_list"] = sess.run([a, b])
            out["grads"] = [(sess.run(g), v.name) for g, v in grads]
    return out
