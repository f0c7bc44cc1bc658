"""The op names training graphs expose and that TF1 tooling referred to by string (C++ checkpoint loading by
"save/Const:0" and "save/restore_all", freezing by output names, debugging by "gradients/..."): the Saver's
filename tensor, save and restore ops (saver_def fields), optimizer update ops for each optimizer
("Adam/update_w/ApplyAdam"-style), the gradient tensors' names, dynamic_rnn's output shapes (its op names differ:
tensorweave unrolls a statically known number of steps), the
global step increment, get_total_loss and the initializer ops' names."""


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 5, 3], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    cell = tf.nn.rnn_cell.GRUCell(4)
    outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    w = tf.get_variable("w", [4, 2])
    logits = tf.matmul(state, w, name="logits")
    tf.losses.sparse_softmax_cross_entropy(y, logits)
    tf.losses.add_loss(tf.nn.l2_loss(w) * 1e-3)
    total = tf.losses.get_total_loss()
    step = tf.train.get_or_create_global_step()
    grads = tf.gradients(total, [w, state])
    names = {
        "rnn": [outputs.shape.as_list(), state.shape.as_list()],
        "total": total.name,
        "grads": [g.name for g in grads],
        "train_ops": {},
    }
    for opt in (
        tf.train.GradientDescentOptimizer(0.1),
        tf.train.AdamOptimizer(0.1),
        tf.train.MomentumOptimizer(0.1, 0.9),
        tf.train.RMSPropOptimizer(0.1),
        tf.train.AdagradOptimizer(0.1),
    ):
        train = opt.minimize(total, global_step=step)
        update_ops = sorted(op.name for op in train.control_inputs) if train.control_inputs else []
        names["train_ops"][opt.get_name()] = [train.name, train.type, update_ops[:3]]
    saver = tf.train.Saver()
    sd = saver.saver_def
    names["saver"] = [sd.filename_tensor_name, sd.restore_op_name, sd.max_to_keep, sd.sharded]
    names["init"] = [tf.global_variables_initializer().name, tf.local_variables_initializer().name]
    return names
