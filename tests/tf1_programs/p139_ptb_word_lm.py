"""The TF1 ptb_word_lm.py tutorial model (models repo, tf.contrib-free): a PTBModel class with is_training and a
config object, embedding on the CPU by tf.get_variable("embedding"), dropout on inputs by keep_prob, a
MultiRNNCell of BasicLSTMCell(forget_bias=0.0, state_is_tuple=True) wrapped in DropoutWrapper, the static
unrolled loop inside variable_scope("RNN") with reuse_variables() after the first step, softmax_w / softmax_b,
the sequence loss by hand (per-token sparse softmax cross entropy averaged over the batch and summed over time),
tf.clip_by_global_norm of tf.gradients, a learning rate Variable assigned through a placeholder (assign_lr), the
final state fed back as the next batch's initial state (`for i, (c, h) in enumerate(model.initial_state)`),
train and valid models sharing variables by reuse=True under tf.name_scope("Train") / ("Valid"), perplexity per
epoch; values compared within tolerance."""

import numpy as np


class Config:
    init_scale = 0.1
    learning_rate = 1.0
    max_grad_norm = 5
    num_layers = 2
    num_steps = 5
    hidden_size = 8
    keep_prob = 1.0
    lr_decay = 0.5
    batch_size = 4
    vocab_size = 12


class PTBModel:
    def __init__(self, tf, is_training, config):
        self.batch_size = batch_size = config.batch_size
        self.num_steps = num_steps = config.num_steps
        size, vocab_size = config.hidden_size, config.vocab_size
        self.input_data = tf.placeholder(tf.int32, [batch_size, num_steps])
        self.targets = tf.placeholder(tf.int32, [batch_size, num_steps])

        def lstm_cell():
            cell = tf.nn.rnn_cell.BasicLSTMCell(size, forget_bias=0.0, state_is_tuple=True)
            if is_training and config.keep_prob < 1:
                cell = tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=config.keep_prob)
            return cell

        cell = tf.nn.rnn_cell.MultiRNNCell([lstm_cell() for _ in range(config.num_layers)], state_is_tuple=True)
        self.initial_state = cell.zero_state(batch_size, tf.float32)
        with tf.device("/cpu:0"):
            embedding = tf.get_variable("embedding", [vocab_size, size], dtype=tf.float32)
            inputs = tf.nn.embedding_lookup(embedding, self.input_data)
        if is_training and config.keep_prob < 1:
            inputs = tf.nn.dropout(inputs, config.keep_prob)
        outputs = []
        state = self.initial_state
        with tf.variable_scope("RNN"):
            for time_step in range(num_steps):
                if time_step > 0:
                    tf.get_variable_scope().reuse_variables()
                (cell_output, state) = cell(inputs[:, time_step, :], state)
                outputs.append(cell_output)
        output = tf.reshape(tf.concat(outputs, 1), [-1, size])
        softmax_w = tf.get_variable("softmax_w", [size, vocab_size], dtype=tf.float32)
        softmax_b = tf.get_variable("softmax_b", [vocab_size], dtype=tf.float32)
        logits = tf.matmul(output, softmax_w) + softmax_b
        logits = tf.reshape(logits, [batch_size, num_steps, vocab_size])
        crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=self.targets, logits=logits)
        loss = tf.reduce_sum(tf.reduce_mean(crossent, axis=0))
        self.cost = cost = loss
        self.final_state = state
        self.logits_shape = logits.shape.as_list()
        if not is_training:
            return
        self.lr = tf.Variable(0.0, trainable=False)
        tvars = tf.trainable_variables()
        grads, self.global_norm = tf.clip_by_global_norm(tf.gradients(cost, tvars), config.max_grad_norm)
        optimizer = tf.train.GradientDescentOptimizer(self.lr)
        self.train_op = optimizer.apply_gradients(zip(grads, tvars), global_step=tf.train.get_or_create_global_step())
        self.new_lr = tf.placeholder(tf.float32, shape=[], name="new_learning_rate")
        self.lr_update = tf.assign(self.lr, self.new_lr)

    def assign_lr(self, session, lr_value):
        session.run(self.lr_update, feed_dict={self.new_lr: lr_value})


def ptb_iterator(raw_data, batch_size, num_steps):
    raw_data = np.array(raw_data, dtype=np.int32)
    batch_len = len(raw_data) // batch_size
    data = raw_data[: batch_size * batch_len].reshape(batch_size, batch_len)
    epoch_size = (batch_len - 1) // num_steps
    for i in range(epoch_size):
        x = data[:, i * num_steps : (i + 1) * num_steps]
        y = data[:, i * num_steps + 1 : (i + 1) * num_steps + 1]
        yield x, y


def run_epoch(session, model, data, eval_op=None):
    costs, iters = 0.0, 0
    state = session.run(model.initial_state)
    fetches = {"cost": model.cost, "final_state": model.final_state}
    if eval_op is not None:
        fetches["eval_op"] = eval_op
    for x, y in ptb_iterator(data, model.batch_size, model.num_steps):
        feed_dict = {model.input_data: x, model.targets: y}
        for i, (c, h) in enumerate(model.initial_state):
            feed_dict[c] = state[i].c
            feed_dict[h] = state[i].h
        vals = session.run(fetches, feed_dict)
        state = vals["final_state"]
        costs += vals["cost"]
        iters += model.num_steps
    return float(np.exp(costs / iters)), state


def main(tf, workdir):
    tf.reset_default_graph()
    config = Config()
    rng = np.random.RandomState(139)
    pattern = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0]
    train_data = [pattern[(i + (i // 24)) % 12] if rng.rand() > 0.1 else rng.randint(12) for i in range(260)]
    valid_data = [pattern[i % 12] for i in range(130)]
    out = {"train_ppl": [], "valid_ppl": []}
    with tf.Graph().as_default():
        tf.set_random_seed(139)
        initializer = tf.random_uniform_initializer(-config.init_scale, config.init_scale)
        with tf.name_scope("Train"):
            with tf.variable_scope("Model", reuse=None, initializer=initializer):
                m = PTBModel(tf, is_training=True, config=config)
        with tf.name_scope("Valid"):
            with tf.variable_scope("Model", reuse=True, initializer=initializer):
                mvalid = PTBModel(tf, is_training=False, config=config)
        out["variables"] = [(v.name, v.shape.as_list()) for v in tf.global_variables()]
        out["state_structure"] = [type(s).__name__ for s in m.initial_state]
        out["state_names"] = [s.c.name for s in m.initial_state]
        out["logits_shape"] = m.logits_shape
        out["cost_name"] = [m.cost.name, mvalid.cost.name]
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            for i in range(3):
                lr_decay = config.lr_decay ** max(i + 1 - 2, 0.0)
                m.assign_lr(session, config.learning_rate * lr_decay)
                out.setdefault("lr", []).append(session.run(m.lr))
                ppl, state = run_epoch(session, m, train_data, eval_op=m.train_op)
                out["train_ppl"].append(ppl)
                out["valid_ppl"].append(run_epoch(session, mvalid, valid_data)[0])
            out["final_state"] = [[s.c, s.h] for s in state]
            out["global_step"] = session.run(tf.train.get_global_step())
    return out
