"""Unit tests of a TF1 model written with tf.test.TestCase, run by unittest inside the program: test_session()
and cached_session() (their default graph), self.evaluate, assertAllClose / assertAllEqual / assertArrayNear /
assertNear / assertShapeEqual / assertAllInRange / assertDTypeEqual / assertAllGreater, assertRaisesOpError and
assertRaisesWithPredicateMatch on a run-time failure, tf.test.is_built_with_cuda, and a test meant to fail
(its failure reported, not raised); the results compared are the tests' outcomes and failure messages' kinds."""

import io
import unittest

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()

    def model(x):
        w = tf.constant([[1.0, -1.0], [0.5, 2.0]])
        return tf.nn.relu(tf.matmul(x, w))

    class ModelTest(tf.test.TestCase):
        def testOutputs(self):
            with self.test_session() as sess:
                y = model(tf.constant([[1.0, 2.0], [-1.0, 0.0]]))
                got = sess.run(y)
                self.assertAllClose(got, [[2.0, 3.0], [0.0, 1.0]])
                self.assertShapeEqual(np.zeros([2, 2]), y)
                self.assertDTypeEqual(got, np.float32)
                self.assertAllInRange(got, 0.0, 3.0)
                self.assertAllGreater(got + 1.0, 0.5)

        def testCachedSessionAndEvaluate(self):
            with self.cached_session():
                v = tf.Variable([1, 2, 3])
                self.evaluate(v.initializer)
                self.assertAllEqual(self.evaluate(v * 2), [2, 4, 6])
                self.assertArrayNear([1.0, 2.0], [1.0, 2.0 + 1e-7], 1e-6)
                self.assertNear(3.14159, 3.1416, 1e-3)

        def testRaisesOpError(self):
            with self.test_session() as sess:
                bad = tf.reshape(tf.placeholder_with_default([1, 2, 3], [None]), [2, 2])
                with self.assertRaisesOpError("Input to reshape is a tensor with 3 values"):
                    sess.run(bad)
                with self.assertRaisesWithPredicateMatch(tf.errors.InvalidArgumentError, lambda e: "reshape" in str(e)):
                    sess.run(bad)

        def testMeantToFail(self):
            self.assertAllClose([1.0, 2.0], [1.0, 2.5])

        def testGraphIsFresh(self):
            with self.test_session() as sess:
                self.assertEqual(len(sess.graph.get_operations()), 0)

    suite = unittest.TestLoader().loadTestsFromTestCase(ModelTest)
    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
    return {
        "run": result.testsRun,
        "failures": sorted(t.id().split(".")[-1] for t, _ in result.failures),
        "errors": sorted((t.id().split(".")[-1], tb.strip().split("\n")[-1][:60]) for t, tb in result.errors),
        "failure_kind": [tb.strip().split("\n")[-1].split(":")[0] for _, tb in result.failures],
        "cuda": tf.test.is_built_with_cuda(),
    }
