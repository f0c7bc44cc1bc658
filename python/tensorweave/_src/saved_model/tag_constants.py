"""The tags of a SavedModel's meta graphs (`tf.saved_model.tag_constants`)."""

SERVING = "serve"
TRAINING = "train"
EVAL = "eval"
GPU = "gpu"
TPU = "tpu"
