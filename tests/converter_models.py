"""Models the converter tests run through every path: each builds its graph
in a fresh tw.Graph with seeded random weights, and returns (graph,
session, {input name: tensor}, {output name: tensor}, feed batch)."""

import numpy as np

import tensorweave as tw


def _var(rng, shape, scale, name):
    return tw.Variable(rng.normal(0.0, scale, shape).astype(np.float32), name=name)


def _dense(rng, x, n_in, n_out, name, activation=None):
    w = _var(rng, [n_in, n_out], np.sqrt(2.0 / n_in), f"{name}/kernel")
    b = _var(rng, [n_out], 0.1, f"{name}/bias")
    y = tw.nn.bias_add(tw.matmul(x, w), b)
    return activation(y) if activation else y


def _conv(rng, x, k, c_in, c_out, name, padding="SAME", strides=1):
    w = _var(rng, [k, k, c_in, c_out], np.sqrt(2.0 / (k * k * c_in)), f"{name}/kernel")
    return tw.nn.conv2d(x, w, [1, strides, strides, 1], padding)


def mlp(rng):
    """784-512-512-10 with relu and softmax."""
    x = tw.placeholder(tw.float32, [None, 784], name="x")
    h = _dense(rng, x, 784, 512, "dense1", tw.nn.relu)
    h = _dense(rng, h, 512, 512, "dense2", tw.nn.relu)
    logits = _dense(rng, h, 512, 10, "logits")
    probs = tw.nn.softmax(logits, name="probs")
    return {"x": x}, {"probs": probs}, rng.normal(size=(4, 784)).astype(np.float32)


def lenet(rng):
    """LeNet-5: conv5x5(6) relu maxpool, conv5x5(16) relu maxpool, 120-84-10."""
    x = tw.placeholder(tw.float32, [None, 28, 28, 1], name="image")
    b1 = _var(rng, [6], 0.1, "conv1/bias")
    h = tw.nn.relu(tw.nn.bias_add(_conv(rng, x, 5, 1, 6, "conv1"), b1))
    h = tw.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    b2 = _var(rng, [16], 0.1, "conv2/bias")
    h = tw.nn.relu(tw.nn.bias_add(_conv(rng, h, 5, 6, 16, "conv2", padding="VALID"), b2))
    h = tw.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    h = tw.reshape(h, [-1, 5 * 5 * 16])
    h = _dense(rng, h, 400, 120, "fc1", tw.nn.relu)
    h = _dense(rng, h, 120, 84, "fc2", tw.nn.relu)
    logits = _dense(rng, h, 84, 10, "fc3")
    probs = tw.nn.softmax(logits, name="probs")
    return {"image": x}, {"probs": probs}, rng.normal(size=(3, 28, 28, 1)).astype(np.float32)


def _batch_norm(rng, x, channels, name):
    scale = _var(rng, [channels], 0.2, f"{name}/gamma")
    offset = _var(rng, [channels], 0.2, f"{name}/beta")
    mean = _var(rng, [channels], 0.2, f"{name}/moving_mean")
    variance = tw.Variable(rng.uniform(0.5, 2.0, [channels]).astype(np.float32), name=f"{name}/moving_variance")
    y, _, _ = tw.nn.fused_batch_norm(x, scale + 1.0, offset, mean, variance, epsilon=1e-3, is_training=False)
    return y


def conv_bn(rng):
    """conv+BN+relu, depthwise+BN+relu6, avg pool, global mean, dense, softmax."""
    x = tw.placeholder(tw.float32, [None, 16, 16, 3], name="image")
    h = tw.nn.relu(_batch_norm(rng, _conv(rng, x, 3, 3, 8, "conv1", strides=2), 8, "bn1"))
    dw = _var(rng, [3, 3, 8, 2], 0.3, "dw/kernel")
    h = tw.nn.depthwise_conv2d(h, dw, [1, 1, 1, 1], "SAME")
    h = tw.nn.relu6(_batch_norm(rng, h, 16, "bn2"))
    h = tw.nn.avg_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    h = tw.reduce_mean(h, axis=[1, 2])
    logits = _dense(rng, h, 16, 5, "head")
    probs = tw.nn.softmax(logits, name="probs")
    return {"image": x}, {"probs": probs}, rng.normal(size=(2, 16, 16, 3)).astype(np.float32)


MODELS = {"mlp": mlp, "lenet": lenet, "conv_bn": conv_bn}


def build(name, seed=0):
    """(graph, session, inputs, outputs, feed) with variables initialized."""
    rng = np.random.default_rng(seed)
    graph = tw.Graph()
    with graph.as_default():
        inputs, outputs, feed = MODELS[name](rng)
        sess = tw.Session(graph=graph)
        sess.run(tw.global_variables_initializer())
    return graph, sess, inputs, outputs, feed
