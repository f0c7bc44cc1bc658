"""tf.keras.utils."""

from tensorweave._src.keras import utils_more as _utils_more
from tensorweave._src.keras.image import array_to_img, img_to_array, load_img, save_img
from tensorweave._src.keras.preprocessing import pad_sequences
from tensorweave._src.keras.utils import *
from tensorweave._src.keras.utils import __all__ as _base_all
from tensorweave._src.keras.utils_more import *

__all__ = list(_base_all) + ["array_to_img", "img_to_array", "load_img", "save_img", "pad_sequences"]
__all__ += list(_utils_more.__all__)
