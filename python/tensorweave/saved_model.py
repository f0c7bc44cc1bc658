"""tw.saved_model: SavedModels (TensorFlow v1's `tf.saved_model`): `builder.SavedModelBuilder` writes meta
graphs with tags and signatures over one checkpoint of the variables, `loader.load` brings one back into a
session; `simple_save` writes a serving model in one call, also in the small format `tensorweave-convert` reads
(graph.pb, signature.json).

Note: `tw.saved_model.load` is the small format's loader and returns {"inputs": ..., "outputs": ...} of Tensors;
TF1's `tf.saved_model.load` (returning the MetaGraphDef) is `tw.saved_model.loader.load`.

Example:
  >>> import os, tempfile
  >>> import tensorweave as tw
  >>> export_dir = os.path.join(tempfile.mkdtemp(), "model")
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     x = tw.placeholder(tw.float32, [None, 2], name="x")
  ...     w = tw.Variable([[1.0], [2.0]], name="w")
  ...     sess.run(tw.global_variables_initializer())
  ...     tw.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": tw.matmul(x, w)})
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     sig = tw.saved_model.load(sess, ["serve"], export_dir)
  ...     print(sess.run(sig["outputs"]["y"], {sig["inputs"]["x"]: [[1.0, 1.0]]}))
  [[3.]]
"""

from tensorweave._src.saved_model import builder
from tensorweave._src.saved_model import constants
from tensorweave._src.saved_model import loader
from tensorweave._src.saved_model import main_op
from tensorweave._src.saved_model import signature_constants
from tensorweave._src.saved_model import signature_def_utils
from tensorweave._src.saved_model import tag_constants
from tensorweave._src.saved_model import utils
from tensorweave._src.saved_model.builder import Builder
from tensorweave._src.saved_model.constants import ASSETS_DIRECTORY
from tensorweave._src.saved_model.constants import ASSETS_KEY
from tensorweave._src.saved_model.constants import DEBUG_DIRECTORY
from tensorweave._src.saved_model.constants import DEBUG_INFO_FILENAME_PB
from tensorweave._src.saved_model.constants import LEGACY_INIT_OP_KEY
from tensorweave._src.saved_model.constants import MAIN_OP_KEY
from tensorweave._src.saved_model.constants import SAVED_MODEL_FILENAME_PB
from tensorweave._src.saved_model.constants import SAVED_MODEL_FILENAME_PBTXT
from tensorweave._src.saved_model.constants import SAVED_MODEL_SCHEMA_VERSION
from tensorweave._src.saved_model.constants import VARIABLES_DIRECTORY
from tensorweave._src.saved_model.constants import VARIABLES_FILENAME
from tensorweave._src.saved_model.loader import contains_saved_model
from tensorweave._src.saved_model.loader import maybe_saved_model_directory
from tensorweave._src.saved_model.main_op import main_op_with_restore
from tensorweave._src.saved_model.signature_constants import CLASSIFY_INPUTS
from tensorweave._src.saved_model.signature_constants import CLASSIFY_METHOD_NAME
from tensorweave._src.saved_model.signature_constants import CLASSIFY_OUTPUT_CLASSES
from tensorweave._src.saved_model.signature_constants import CLASSIFY_OUTPUT_SCORES
from tensorweave._src.saved_model.signature_constants import DEFAULT_SERVING_SIGNATURE_DEF_KEY
from tensorweave._src.saved_model.signature_constants import PREDICT_INPUTS
from tensorweave._src.saved_model.signature_constants import PREDICT_METHOD_NAME
from tensorweave._src.saved_model.signature_constants import PREDICT_OUTPUTS
from tensorweave._src.saved_model.signature_constants import REGRESS_INPUTS
from tensorweave._src.saved_model.signature_constants import REGRESS_METHOD_NAME
from tensorweave._src.saved_model.signature_constants import REGRESS_OUTPUTS
from tensorweave._src.saved_model.signature_def_utils import build_signature_def
from tensorweave._src.saved_model.signature_def_utils import classification_signature_def
from tensorweave._src.saved_model.signature_def_utils import is_valid_signature
from tensorweave._src.saved_model.signature_def_utils import predict_signature_def
from tensorweave._src.saved_model.signature_def_utils import regression_signature_def
from tensorweave._src.saved_model.simple_save import load
from tensorweave._src.saved_model.simple_save import read_graph_def
from tensorweave._src.saved_model.simple_save import read_signature
from tensorweave._src.saved_model.simple_save import simple_save
from tensorweave._src.saved_model.tag_constants import EVAL
from tensorweave._src.saved_model.tag_constants import GPU
from tensorweave._src.saved_model.tag_constants import SERVING
from tensorweave._src.saved_model.tag_constants import TPU
from tensorweave._src.saved_model.tag_constants import TRAINING
from tensorweave._src.saved_model.utils import build_tensor_info
from tensorweave._src.saved_model.utils import get_tensor_from_tensor_info
