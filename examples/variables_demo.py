"""A first tensorweave program: a graph with a placeholder and variables,
run step by step in a session (the training demo grows from this)."""

import numpy as np

import tensorweave as tw


def main():
    graph = tw.Graph()
    with graph.as_default():
        x = tw.placeholder(tw.float32, [None, 3], name="x")
        w = tw.Variable(np.ones([3, 2], np.float32), name="w")
        b = tw.Variable(tw.zeros([2]), name="b")
        y = tw.matmul(x, w) + b
        step = tw.Variable(0, name="step")
        increment = tw.assign_add(step, 1)
        update = tw.assign_sub(w, 0.1 * tw.matmul(x, y, transpose_a=True))
        init = tw.global_variables_initializer()

    batch = np.arange(6, dtype=np.float32).reshape(2, 3) / 6.0
    with tw.Session(graph=graph) as sess:
        sess.run(init)
        for _ in range(3):
            out, n, _ = sess.run([y, increment, update], {x: batch})
            print(f"step {n}: y = {np.round(out, 4).tolist()}")
        print("w after 3 updates:\n", sess.run(w))
    print(
        "graph has",
        len(graph.get_operations()),
        "ops; GraphDef is",
        len(graph.as_graph_def().SerializeToString()),
        "bytes",
    )


if __name__ == "__main__":
    main()
