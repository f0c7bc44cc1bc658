"""tensorweave.layers: TensorFlow v1's functional layers (`tf.layers`).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     h = tw.layers.dense(tw.placeholder(tw.float32, [None, 8]), 4, activation=tw.nn.relu)
  ...     print(h.shape)
  (?, 4)
"""

from tensorweave._src.layers.core import average_pooling2d
from tensorweave._src.layers.core import batch_normalization
from tensorweave._src.layers.core import conv2d
from tensorweave._src.layers.core import dense
from tensorweave._src.layers.core import dropout
from tensorweave._src.layers.core import flatten
from tensorweave._src.layers.core import max_pooling2d
from tensorweave._src.layers.base import AveragePooling1D
from tensorweave._src.layers.base import AveragePooling2D
from tensorweave._src.layers.base import AveragePooling3D
from tensorweave._src.layers.base import BatchNormalization
from tensorweave._src.layers.base import Conv1D
from tensorweave._src.layers.base import Conv2D
from tensorweave._src.layers.base import Conv2DTranspose
from tensorweave._src.layers.base import Conv3D
from tensorweave._src.layers.base import Conv3DTranspose
from tensorweave._src.layers.base import Dense
from tensorweave._src.layers.base import Dropout
from tensorweave._src.layers.base import Flatten
from tensorweave._src.layers.base import InputSpec
from tensorweave._src.layers.base import Layer
from tensorweave._src.layers.base import MaxPooling1D
from tensorweave._src.layers.base import MaxPooling2D
from tensorweave._src.layers.base import MaxPooling3D
from tensorweave._src.layers.base import SeparableConv1D
from tensorweave._src.layers.base import SeparableConv2D
from tensorweave._src.layers.convolutional import average_pooling1d
from tensorweave._src.layers.convolutional import average_pooling3d
from tensorweave._src.layers.convolutional import conv1d
from tensorweave._src.layers.convolutional import conv2d_transpose
from tensorweave._src.layers.convolutional import conv3d
from tensorweave._src.layers.convolutional import conv3d_transpose
from tensorweave._src.layers.convolutional import max_pooling1d
from tensorweave._src.layers.convolutional import max_pooling3d
from tensorweave._src.layers.convolutional import separable_conv1d
from tensorweave._src.layers.convolutional import separable_conv2d
