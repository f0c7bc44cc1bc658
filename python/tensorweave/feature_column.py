"""tensorweave.feature_column: TF1's feature columns — raw features to a
model's dense input (`input_layer`) or a linear model's logits (`linear_model`).

Example:
  >>> import tensorweave as tw
  >>> tw.feature_column.numeric_column("age").name
  'age'
"""

from tensorweave._src.feature_column.feature_column import bucketized_column
from tensorweave._src.feature_column.feature_column import categorical_column_with_hash_bucket
from tensorweave._src.feature_column.feature_column import categorical_column_with_identity
from tensorweave._src.feature_column.feature_column import categorical_column_with_vocabulary_file
from tensorweave._src.feature_column.feature_column import categorical_column_with_vocabulary_list
from tensorweave._src.feature_column.feature_column import crossed_column
from tensorweave._src.feature_column.feature_column import embedding_column
from tensorweave._src.feature_column.feature_column import indicator_column
from tensorweave._src.feature_column.feature_column import input_layer
from tensorweave._src.feature_column.feature_column import linear_model
from tensorweave._src.feature_column.feature_column import make_parse_example_spec
from tensorweave._src.feature_column.feature_column import numeric_column
from tensorweave._src.feature_column.feature_column import shared_embedding_columns
from tensorweave._src.feature_column.feature_column import weighted_categorical_column
from tensorweave._src.feature_column.sequence_feature_column import sequence_categorical_column_with_hash_bucket
from tensorweave._src.feature_column.sequence_feature_column import sequence_categorical_column_with_identity
from tensorweave._src.feature_column.sequence_feature_column import sequence_categorical_column_with_vocabulary_file
from tensorweave._src.feature_column.sequence_feature_column import sequence_categorical_column_with_vocabulary_list
from tensorweave._src.feature_column.sequence_feature_column import sequence_numeric_column

__all__ = [
    "bucketized_column",
    "categorical_column_with_hash_bucket",
    "categorical_column_with_identity",
    "categorical_column_with_vocabulary_file",
    "categorical_column_with_vocabulary_list",
    "crossed_column",
    "embedding_column",
    "indicator_column",
    "input_layer",
    "linear_model",
    "make_parse_example_spec",
    "numeric_column",
    "sequence_categorical_column_with_hash_bucket",
    "sequence_categorical_column_with_identity",
    "sequence_categorical_column_with_vocabulary_file",
    "sequence_categorical_column_with_vocabulary_list",
    "sequence_numeric_column",
    "shared_embedding_columns",
    "weighted_categorical_column",
]
