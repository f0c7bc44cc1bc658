"""The canned estimators over feature columns (TensorFlow 1's `tf.estimator`): DNN, linear, DNN + linear
("wide and deep") and baseline classifiers and regressors, with TF1's variable names ("dnn/hiddenlayer_0/kernel",
"linear/linear_model/<column>/weights"), default optimizers and learning rates, and heads."""

import math

from tensorweave._src.estimator import head as head_lib
from tensorweave._src.estimator.estimator import Estimator
from tensorweave._src.estimator.model_fn import ModeKeys

_DNN_LEARNING_RATE = 0.05
_LINEAR_LEARNING_RATE = 0.2
_COMBINED_DNN_LEARNING_RATE = 0.001
_COMBINED_LINEAR_LEARNING_RATE = 0.005
_BASELINE_LEARNING_RATE = 0.3


def _tw():
    import tensorweave

    return tensorweave


_OPTIMIZERS = {
    "Adagrad": lambda tw, lr: tw.train.AdagradOptimizer(lr),
    "Adam": lambda tw, lr: tw.train.AdamOptimizer(lr),
    "Ftrl": lambda tw, lr: tw.train.FtrlOptimizer(lr),
    "RMSProp": lambda tw, lr: tw.train.RMSPropOptimizer(lr),
    "SGD": lambda tw, lr: tw.train.GradientDescentOptimizer(lr),
}


def _optimizer(opt, learning_rate):
    """An optimizer from a name ("Adagrad", "Adam", "Ftrl", "RMSProp", "SGD", at `learning_rate`), an
    instance, or a function returning one."""
    tw = _tw()
    if isinstance(opt, str):
        if opt not in _OPTIMIZERS:
            raise ValueError(f"Unsupported optimizer name: {opt}. Supported names are: {sorted(_OPTIMIZERS)}")
        return _OPTIMIZERS[opt](tw, learning_rate)
    if callable(opt) and not isinstance(opt, tw.train.Optimizer):
        opt = opt()
    if not isinstance(opt, tw.train.Optimizer):
        raise ValueError(f"The given object is not an Optimizer instance. Given: {opt}")
    return opt


def _check_columns(feature_columns, what):
    columns = list(feature_columns or [])
    if not columns:
        raise ValueError(f"{what} should not be empty.")
    return columns


def _add_layer_summary(value, tag):
    tw = _tw()
    tw.summary.scalar(f"{tag}/fraction_of_zero_values", tw.nn.zero_fraction(value))
    tw.summary.histogram(f"{tag}/activation", value)


def _dnn_logits(features, columns, hidden_units, units, activation_fn, dropout, batch_norm, mode):
    tw = _tw()
    with tw.variable_scope("input_from_feature_columns"):
        net = tw.feature_column.input_layer(features, columns)
    training = mode == ModeKeys.TRAIN
    for i, n in enumerate(hidden_units):
        name = f"hiddenlayer_{i}"
        net = tw.layers.dense(
            net, n, activation=activation_fn, kernel_initializer=tw.glorot_uniform_initializer(), name=name
        )
        if dropout is not None and training:
            net = tw.layers.dropout(net, rate=dropout, training=True)
        if batch_norm:
            with tw.variable_scope(name):
                net = tw.layers.batch_normalization(net, momentum=0.999, training=training, name=f"batchnorm_{i}")
        _add_layer_summary(net, name)
    logits = tw.layers.dense(net, units, kernel_initializer=tw.glorot_uniform_initializer(), name="logits")
    _add_layer_summary(logits, "logits")
    return logits


def _linear_logits(features, columns, units, sparse_combiner):
    tw = _tw()
    return tw.feature_column.linear_model(features, columns, units=units, sparse_combiner=sparse_combiner)


def _minimize(optimizer, loss, var_list=None, increment=True):
    tw = _tw()
    step = tw.train.get_global_step() if increment else None
    update_ops = tw.get_collection(tw.GraphKeys.UPDATE_OPS)
    with tw.control_dependencies(update_ops):
        return optimizer.minimize(loss, global_step=step, var_list=var_list)


class _Canned(Estimator):
    """An Estimator whose model_fn is `_logits` through a head."""

    def __init__(self, head, model_dir, config, warm_start_from):
        self._head = head
        super().__init__(self._model_fn_impl, model_dir=model_dir, config=config, warm_start_from=warm_start_from)

    def _model_fn_impl(self, features, labels, mode, config):
        tw = _tw()
        if not isinstance(features, dict):
            raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: {type(features)}")
        logits, train_op_fn = self._logits(features, mode)
        regularization = tw.losses.get_regularization_losses()
        return self._head.create_estimator_spec(features, mode, logits, labels, train_op_fn, regularization)


class DNNClassifier(_Canned):
    """A feed-forward classifier: the feature columns' input layer, `hidden_units` dense layers with
    `activation_fn` (and `dropout` while training), and a logits layer, trained with `optimizer` (Adagrad at
    0.05 by default) on the summed softmax (or, for 2 classes, sigmoid) cross-entropy."""

    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Adagrad",
        activation_fn=None,
        dropout=None,
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction="weighted_sum",
        batch_norm=False,
    ):
        head = head_lib.classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        self._setup_dnn(hidden_units, feature_columns, optimizer, activation_fn, dropout, batch_norm)
        super().__init__(head, model_dir, config, warm_start_from)

    def _setup_dnn(self, hidden_units, feature_columns, optimizer, activation_fn, dropout, batch_norm):
        self._hidden_units = list(hidden_units)
        self._dnn_columns = _check_columns(feature_columns, "feature_columns")
        self._dnn_optimizer = optimizer
        self._activation_fn = activation_fn if activation_fn is not None else _tw().nn.relu
        if dropout is not None and not 0 <= dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), given: {dropout}")
        self._dropout, self._batch_norm = dropout, batch_norm

    def _logits(self, features, mode):
        tw = _tw()
        with tw.variable_scope("dnn"):
            logits = _dnn_logits(
                features,
                self._dnn_columns,
                self._hidden_units,
                self._head.logits_dimension,
                self._activation_fn,
                self._dropout,
                self._batch_norm,
                mode,
            )
        return logits, lambda loss: _minimize(_optimizer(self._dnn_optimizer, _DNN_LEARNING_RATE), loss)


class DNNRegressor(DNNClassifier):
    """The DNN of `DNNClassifier` regressing `label_dimension` values on the summed squared error."""

    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Adagrad",
        activation_fn=None,
        dropout=None,
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction="weighted_sum",
        batch_norm=False,
    ):
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        self._setup_dnn(hidden_units, feature_columns, optimizer, activation_fn, dropout, batch_norm)
        _Canned.__init__(self, head, model_dir, config, warm_start_from)


def _default_linear_learning_rate(columns, cap):
    return min(cap, 1.0 / math.sqrt(len(columns)))


class LinearClassifier(_Canned):
    """A linear classifier over feature columns (`tw.feature_column.linear_model`), trained with `optimizer`
    (FTRL at min(0.2, 1/sqrt(#columns)) by default)."""

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        partitioner=None,
        warm_start_from=None,
        loss_reduction="weighted_sum",
        sparse_combiner="sum",
    ):
        head = head_lib.classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        self._setup_linear(feature_columns, optimizer, sparse_combiner)
        super().__init__(head, model_dir, config, warm_start_from)

    def _setup_linear(self, feature_columns, optimizer, sparse_combiner):
        self._linear_columns = _check_columns(feature_columns, "feature_columns")
        if sparse_combiner not in ("sum", "mean", "sqrtn"):
            raise ValueError(f"sparse_combiner must be one of 'sum', 'mean', 'sqrtn', given: {sparse_combiner}")
        self._linear_optimizer, self._sparse_combiner = optimizer, sparse_combiner

    def _linear_train_op_fn(self, loss, var_list=None, increment=True, cap=_LINEAR_LEARNING_RATE, rate=None):
        opt = self._linear_optimizer
        if opt == "Ftrl" or opt is None:
            opt = _tw().train.FtrlOptimizer(_default_linear_learning_rate(self._linear_columns, cap))
        return _minimize(_optimizer(opt, rate or _LINEAR_LEARNING_RATE), loss, var_list, increment)

    def _logits(self, features, mode):
        tw = _tw()
        with tw.variable_scope("linear"):
            logits = _linear_logits(features, self._linear_columns, self._head.logits_dimension, self._sparse_combiner)
        return logits, self._linear_train_op_fn


class LinearRegressor(LinearClassifier):
    """The linear model of `LinearClassifier` regressing `label_dimension` values on the summed squared error."""

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        partitioner=None,
        warm_start_from=None,
        loss_reduction="weighted_sum",
        sparse_combiner="sum",
    ):
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        self._setup_linear(feature_columns, optimizer, sparse_combiner)
        _Canned.__init__(self, head, model_dir, config, warm_start_from)


class DNNLinearCombinedClassifier(DNNClassifier, LinearClassifier):
    """A "wide and deep" classifier: the sum of a linear model's logits (FTRL) and a DNN's (Adagrad), each
    part trained by its own optimizer."""

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=None,
        dnn_dropout=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction="weighted_sum",
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        head = head_lib.classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        self._setup_combined(
            linear_feature_columns,
            linear_optimizer,
            linear_sparse_combiner,
            dnn_feature_columns,
            dnn_optimizer,
            dnn_hidden_units,
            dnn_activation_fn,
            dnn_dropout,
            batch_norm,
        )
        _Canned.__init__(self, head, model_dir, config, warm_start_from)

    def _setup_combined(
        self,
        linear_columns,
        linear_optimizer,
        sparse_combiner,
        dnn_columns,
        dnn_optimizer,
        hidden_units,
        activation_fn,
        dropout,
        batch_norm,
    ):
        if not linear_columns and not dnn_columns:
            raise ValueError(
                "Either linear_feature_columns or dnn_feature_columns must be defined. Given: "
                f"linear_feature_columns: {linear_columns}, dnn_feature_columns: {dnn_columns}"
            )
        if dnn_columns and not hidden_units:
            raise ValueError(
                f"dnn_hidden_units must be defined when dnn_feature_columns is specified. Given: {hidden_units}"
            )
        self._use_linear, self._use_dnn = bool(linear_columns), bool(dnn_columns)
        if self._use_linear:
            self._setup_linear(linear_columns, linear_optimizer, sparse_combiner)
        if self._use_dnn:
            self._setup_dnn(hidden_units, dnn_columns, dnn_optimizer, activation_fn, dropout, batch_norm)

    def _logits(self, features, mode):
        tw = _tw()
        parts = []
        if self._use_dnn:
            with tw.variable_scope("dnn") as scope:
                parts.append(
                    _dnn_logits(
                        features,
                        self._dnn_columns,
                        self._hidden_units,
                        self._head.logits_dimension,
                        self._activation_fn,
                        self._dropout,
                        self._batch_norm,
                        mode,
                    )
                )
            dnn_scope = scope.name
        if self._use_linear:
            with tw.variable_scope("linear") as scope:
                parts.append(
                    _linear_logits(features, self._linear_columns, self._head.logits_dimension, self._sparse_combiner)
                )
            linear_scope = scope.name
        logits = parts[0] if len(parts) == 1 else tw.add_n(parts)

        def train_op_fn(loss):
            ops = []
            if self._use_dnn:
                variables = tw.get_collection(tw.GraphKeys.TRAINABLE_VARIABLES, scope=dnn_scope)
                opt = _optimizer(self._dnn_optimizer, _COMBINED_DNN_LEARNING_RATE)
                ops.append(_minimize(opt, loss, variables, increment=False))
            if self._use_linear:
                variables = tw.get_collection(tw.GraphKeys.TRAINABLE_VARIABLES, scope=linear_scope)
                ops.append(
                    self._linear_train_op_fn(
                        loss,
                        variables,
                        increment=False,
                        cap=_COMBINED_LINEAR_LEARNING_RATE,
                        rate=_COMBINED_LINEAR_LEARNING_RATE,
                    )
                )
            with tw.control_dependencies([tw.group(*ops)]):
                return tw.assign_add(tw.train.get_global_step(), 1).op

        return logits, train_op_fn


class DNNLinearCombinedRegressor(DNNLinearCombinedClassifier):
    """The "wide and deep" model of `DNNLinearCombinedClassifier` regressing `label_dimension` values."""

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=None,
        dnn_dropout=None,
        label_dimension=1,
        weight_column=None,
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction="weighted_sum",
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        self._setup_combined(
            linear_feature_columns,
            linear_optimizer,
            linear_sparse_combiner,
            dnn_feature_columns,
            dnn_optimizer,
            dnn_hidden_units,
            dnn_activation_fn,
            dnn_dropout,
            batch_norm,
        )
        _Canned.__init__(self, head, model_dir, config, warm_start_from)


class BaselineClassifier(_Canned):
    """Predicts the class distribution of the labels, ignoring the features: one bias per class
    ("baseline/bias"), trained with `optimizer` (FTRL at 0.3 by default)."""

    def __init__(
        self,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction="weighted_sum",
    ):
        head = head_lib.classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        self._baseline_optimizer = optimizer
        super().__init__(head, model_dir, config, None)

    def _logits(self, features, mode):
        tw = _tw()
        units = self._head.logits_dimension
        first = next(iter(features.values()))
        first = first.values if hasattr(first, "dense_shape") else first
        batch = tw.shape(first, out_type=tw.int32)[:1]
        with tw.variable_scope("baseline"):
            bias = tw.get_variable("bias", [units], initializer=tw.zeros_initializer())
        logits = tw.tile(tw.expand_dims(bias, 0), tw.concat([batch, [1]], 0))
        return logits, lambda loss: _minimize(_optimizer(self._baseline_optimizer, _BASELINE_LEARNING_RATE), loss)


class BaselineRegressor(BaselineClassifier):
    """Predicts the mean of the labels, ignoring the features."""

    def __init__(
        self,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction="weighted_sum",
    ):
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        self._baseline_optimizer = optimizer
        _Canned.__init__(self, head, model_dir, config, None)
