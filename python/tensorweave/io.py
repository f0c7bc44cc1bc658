"""tw.io: files (TensorFlow v1's `tf.io`): `read_file`, `write_file`, `matching_files`, `write_graph`, TFRecord
files (`TFRecordWriter`, `tf_record_iterator`, `TFRecordOptions`), `decode_csv`, `decode_compressed`,
`decode_base64`/`encode_base64`, `serialize_tensor`/`parse_tensor`, `decode_proto`/`encode_proto`, and `gfile` with TF2's lower-case names
(`tw.io.gfile.exists`, `GFile`, `makedirs`, ...), and the queue classes TF1's tf.io names (`PaddingFIFOQueue`,
`PriorityQueue`, `QueueBase`, `RandomShuffleQueue`).

Example:
  >>> import os, tempfile
  >>> import tensorweave as tw
  >>> d = tempfile.mkdtemp()
  >>> with tw.Graph().as_default() as g:
  ...     _ = tw.constant(1.0, name="c")
  ...     path = tw.io.write_graph(g, d, "g.pb", as_text=False)
  >>> tw.io.gfile.exists(path)
  True
"""

import types as _types

from tensorweave._src.ops.image_codec_ops import decode_and_crop_jpeg
from tensorweave._src.ops.image_codec_ops import decode_bmp
from tensorweave._src.ops.image_codec_ops import decode_gif
from tensorweave._src.ops.image_codec_ops import decode_image
from tensorweave._src.ops.image_codec_ops import decode_jpeg
from tensorweave._src.ops.image_codec_ops import decode_png
from tensorweave._src.ops.image_codec_ops import encode_jpeg
from tensorweave._src.ops.image_codec_ops import encode_png
from tensorweave._src.ops.image_codec_ops import extract_jpeg_shape
from tensorweave._src.ops.image_codec_ops import is_jpeg
from tensorweave._src.ops.encode_ops import decode_base64
from tensorweave._src.ops.encode_ops import encode_base64
from tensorweave._src.ops.io_extra_ops import decode_compressed
from tensorweave._src.ops.io_extra_ops import decode_csv
from tensorweave._src.ops.io_extra_ops import parse_tensor
from tensorweave._src.ops.io_extra_ops import serialize_tensor
from tensorweave._src.ops.file_ops import match_filenames_once
from tensorweave._src.ops.file_ops import matching_files
from tensorweave._src.ops.file_ops import read_file
from tensorweave._src.ops.file_ops import write_file
from tensorweave._src.ops.proto_ops import decode_proto
from tensorweave._src.ops.proto_ops import encode_proto
from tensorweave._src.ops.parsing_ops import FixedLenFeature
from tensorweave._src.ops.parsing_ops import VarLenFeature
from tensorweave._src.ops.parsing_ops import FixedLenSequenceFeature
from tensorweave._src.ops.parsing_ops import SparseFeature
from tensorweave._src.ops.parsing_ops import RaggedFeature
from tensorweave._src.ops.parsing_ops import decode_json_example
from tensorweave._src.ops.parsing_ops import deserialize_many_sparse
from tensorweave._src.ops.parsing_ops import parse_sequence_example
from tensorweave._src.ops.parsing_ops import parse_single_sequence_example
from tensorweave._src.ops.parsing_ops import serialize_many_sparse
from tensorweave._src.ops.parsing_ops import serialize_sparse
from tensorweave._src.ops.parsing_ops import decode_raw
from tensorweave._src.ops.parsing_ops import parse_example
from tensorweave._src.ops.parsing_ops import parse_single_example
from tensorweave._src.ops.queue_ops import PaddingFIFOQueue
from tensorweave._src.ops.queue_ops import PriorityQueue
from tensorweave._src.ops.queue_ops import QueueBase
from tensorweave._src.ops.queue_ops import RandomShuffleQueue
from tensorweave._src.platform import gfile as _gfile
from tensorweave._src.platform.tf_record import TFRecordCompressionType
from tensorweave._src.platform.tf_record import TFRecordOptions
from tensorweave._src.platform.tf_record import TFRecordWriter
from tensorweave._src.platform.tf_record import tf_record_iterator
from tensorweave._src.training.graph_io import write_graph

gfile = _types.SimpleNamespace(
    GFile=_gfile.GFile,
    copy=_gfile.copy,
    exists=_gfile.exists,
    glob=_gfile.glob,
    isdir=_gfile.isdir,
    listdir=_gfile.listdir,
    makedirs=_gfile.makedirs,
    mkdir=_gfile.mkdir,
    remove=_gfile.remove,
    rename=_gfile.rename,
    rmtree=_gfile.rmtree,
    stat=_gfile.stat,
    walk=_gfile.walk,
)
