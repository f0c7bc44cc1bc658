"""Sweep hostile op arguments through tensorweave and TensorFlow 2.21 compat.v1 and classify each case.

Each case is an expression in `tf` (the module under test) that builds fetches in a fresh graph; they are run
in a worker subprocess per library with a per-case timeout, so a crash or a hang costs one case. Each case is
classified: same (same error class as TF, or both give the same value), diff-class, crash, hang, no-error (TF
errs, tensorweave does not), value-differs, tw-error-only (tensorweave errs, TF does not). Cases whose expression
starts with "tw:" use tensorweave's own interfaces (the lite C API and CLI, the distributed services, the
estimator) and run on tensorweave alone: tf-unavailable is their value, to be read.

    python tools/bad_input_sweep.py [--timeout S] [--only SUBSTRING] [--set all|s20|s21|files|s22|s23|s24] [--json OUT]
"""

import argparse
import json
import os
import selectors
import subprocess
import sys

import numpy as np  # noqa: F401 - used by the case expressions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PH = "tf.placeholder_with_default"

# (name, expression); `tf` is tensorweave or tensorflow.compat.v1, `np` is numpy.
CASES = [
    # sizes and dims
    ("zeros_neg_dim", "tf.zeros([-1, 2])"),
    ("fill_neg_dim_runtime", f"tf.fill({PH}([-3, 2], [2]), 1.0)"),
    ("reshape_two_minus_one", "tf.reshape(tf.zeros([6]), [-1, -1])"),
    ("reshape_wrong_count", "tf.reshape(tf.zeros([6]), [4])"),
    ("reshape_wrong_count_runtime", f"tf.reshape(tf.zeros([6]), {PH}([4], [1]))"),
    ("reshape_two_minus_one_runtime", f"tf.reshape(tf.zeros([6]), {PH}([-1, -1], [2]))"),
    ("reshape_minus_two_runtime", f"tf.reshape(tf.zeros([6]), {PH}([-2, -3], [2]))"),
    ("random_uniform_neg", f"tf.random_uniform({PH}([-2], [1]))"),
    ("eye_neg", "tf.eye(-2)"),
    ("eye_neg_runtime", f"tf.eye({PH}(-2, []))"),
    ("range_zero_delta", "tf.range(0, 10, 0)"),
    ("range_zero_delta_runtime", f"tf.range(0, 10, {PH}(0, []))"),
    ("range_nan", f"tf.range(0.0, {PH}(float('nan'), []), 1.0)"),
    ("range_inf", f"tf.range(0.0, {PH}(float('inf'), []), 1.0)"),
    ("range_huge", f"tf.range(0, {PH}(2**62, []), 1)"),
    ("range_wrong_sign", "tf.range(0, 10, -1)"),
    ("linspace_num_neg", f"tf.linspace(0.0, 1.0, {PH}(-1, []))"),
    ("linspace_num_zero", f"tf.linspace(0.0, 1.0, {PH}(0, []))"),
    ("linspace_nan", f"tf.linspace(0.0, {PH}(float('nan'), []), 3)"),
    ("one_hot_neg_depth", f"tf.one_hot([0, 1], {PH}(-1, []))"),
    ("one_hot_oob_index", "tf.one_hot([5, -1], 3)"),
    ("one_hot_axis_bad", "tf.one_hot([0, 1], 3, axis=5)"),
    ("tile_neg", f"tf.tile(tf.zeros([2]), {PH}([-1], [1]))"),
    ("tile_wrong_len", f"tf.tile(tf.zeros([2]), {PH}([1, 2], [2]))"),
    ("broadcast_to_incompat", "tf.broadcast_to(tf.zeros([3]), [2, 2])"),
    ("broadcast_to_incompat_runtime", f"tf.broadcast_to(tf.zeros([3]), {PH}([2, 2], [2]))"),
    ("broadcast_to_neg", f"tf.broadcast_to(1.0, {PH}([-1, 2], [2]))"),
    # axes
    ("reduce_sum_axis_oob", "tf.reduce_sum(tf.zeros([2, 3]), axis=5)"),
    ("reduce_sum_axis_oob_runtime", f"tf.reduce_sum(tf.zeros([2, 3]), axis={PH}(5, []))"),
    ("reduce_max_axis_neg_oob_runtime", f"tf.reduce_max(tf.zeros([2, 3]), axis={PH}(-3, []))"),
    ("argmax_axis_oob", "tf.argmax(tf.zeros([2, 3]), axis=2)"),
    ("argmax_axis_oob_runtime", f"tf.argmax(tf.zeros([2, 3]), axis={PH}(2, []))"),
    ("argmax_empty", "tf.argmax(tf.zeros([0]), axis=0)"),
    ("concat_axis_oob", "tf.concat([tf.zeros([2]), tf.zeros([2])], axis=3)"),
    ("concat_axis_oob_runtime", f"tf.concat([tf.zeros([2]), tf.zeros([2])], axis={PH}(3, []))"),
    ("concat_shape_mismatch_runtime", f"tf.concat([{PH}(tf.zeros([2, 3]), [None, None]), tf.zeros([2, 2])], 0)"),
    ("stack_mismatch", "tf.stack([tf.zeros([2]), tf.zeros([3])])"),
    ("unstack_axis_oob", "tf.unstack(tf.zeros([2, 3]), axis=4)"),
    ("split_uneven", "tf.split(tf.zeros([5]), 2)"),
    ("split_sizes_bad", "tf.split(tf.zeros([5]), [2, 2])"),
    ("split_axis_oob", "tf.split(tf.zeros([4]), 2, axis=3)"),
    ("expand_dims_oob", "tf.expand_dims(tf.zeros([2]), 5)"),
    ("expand_dims_oob_runtime", f"tf.expand_dims(tf.zeros([2]), {PH}(5, []))"),
    ("squeeze_non1", "tf.squeeze(tf.zeros([2, 3]), [0])"),
    ("squeeze_oob", "tf.squeeze(tf.zeros([1, 3]), [4])"),
    ("transpose_bad_perm", "tf.transpose(tf.zeros([2, 3]), [0, 0])"),
    ("transpose_bad_perm_runtime", f"tf.transpose(tf.zeros([2, 3]), {PH}([0, 5], [2]))"),
    ("reverse_axis_oob", "tf.reverse(tf.zeros([2, 3]), [3])"),
    ("reverse_axis_dup_runtime", f"tf.reverse(tf.zeros([2, 3]), {PH}([0, 0], [2]))"),
    ("cumsum_axis_oob", f"tf.cumsum(tf.zeros([2, 3]), axis={PH}(4, []))"),
    ("roll_axis_oob", "tf.roll(tf.zeros([2, 3]), 1, 5)"),
    ("softmax_axis_oob", "tf.nn.softmax(tf.zeros([2, 3]), axis=5)"),
    ("l2_normalize_axis_oob", "tf.nn.l2_normalize(tf.zeros([2, 3]), axis=5)"),
    ("top_k_k_too_big", "tf.nn.top_k(tf.zeros([3]), 5)"),
    ("top_k_k_neg_runtime", f"tf.nn.top_k(tf.zeros([3]), {PH}(-1, []))"),
    ("top_k_rank0", "tf.nn.top_k(tf.constant(1.0), 1)"),
    ("in_top_k_oob", "tf.nn.in_top_k(tf.zeros([2, 3]), [5, 0], 1)"),
    # indices
    ("gather_oob", "tf.gather([1, 2, 3], [5])"),
    ("gather_neg", "tf.gather([1, 2, 3], [-1])"),
    ("gather_axis_oob", "tf.gather(tf.zeros([2, 3]), [0], axis=3)"),
    ("gather_batch_dims_bad", "tf.gather(tf.zeros([2, 3]), [[0]], batch_dims=3)"),
    ("gather_empty_params", "tf.gather(tf.zeros([0, 3]), [0])"),
    ("gather_nd_oob", "tf.gather_nd(tf.zeros([2, 3]), [[1, 5]])"),
    ("gather_nd_neg", "tf.gather_nd(tf.zeros([2, 3]), [[-1, 0]])"),
    ("gather_nd_too_deep", "tf.gather_nd(tf.zeros([2, 3]), [[0, 0, 0]])"),
    ("scatter_nd_oob", "tf.scatter_nd([[5]], [1.0], [3])"),
    ("scatter_nd_neg", "tf.scatter_nd([[-1]], [1.0], [3])"),
    ("scatter_nd_neg_shape", f"tf.scatter_nd([[0]], [1.0], {PH}([-3], [1]))"),
    ("scatter_nd_updates_bad", "tf.scatter_nd([[0]], [1.0, 2.0], [3])"),
    ("tensor_scatter_update_oob", "tf.tensor_scatter_nd_update(tf.zeros([3]), [[4]], [1.0])"),
    ("tensor_scatter_add_neg", "tf.tensor_scatter_nd_add(tf.zeros([3]), [[-2]], [1.0])"),
    ("embedding_lookup_oob", "tf.nn.embedding_lookup(tf.zeros([4, 2]), [7])"),
    ("embedding_lookup_neg", "tf.nn.embedding_lookup(tf.zeros([4, 2]), [-1])"),
    ("unsorted_segment_sum_oob", "tf.unsorted_segment_sum([1.0, 2.0], [0, 5], 2)"),
    ("unsorted_segment_sum_neg_num", f"tf.unsorted_segment_sum([1.0, 2.0], [0, 1], {PH}(-1, []))"),
    ("unsorted_segment_sum_neg_id", "tf.unsorted_segment_sum([1.0, 2.0], [0, -1], 2)"),
    ("unsorted_segment_max_huge_num", f"tf.unsorted_segment_max([1.0], [0], {PH}(2**40, tf.int64))"),
    ("segment_sum_unsorted", "tf.segment_sum([1.0, 2.0, 3.0], [1, 0, 1])"),
    ("segment_sum_neg", "tf.segment_sum([1.0, 2.0], [-1, 0])"),
    ("segment_sum_len_mismatch", "tf.segment_sum([1.0, 2.0], [0])"),
    ("segment_mean_huge_id", "tf.segment_mean([1.0], [2**40])"),
    ("sparse_segment_sum_oob", "tf.sparse.segment_sum(tf.zeros([3, 2]), [0, 9], [0, 0])"),
    ("sparse_segment_sum_unsorted", "tf.sparse.segment_sum(tf.zeros([3, 2]), [0, 1], [1, 0])"),
    ("bincount_neg", "tf.math.bincount([1, -1, 2])"),
    ("bincount_weights_mismatch", "tf.math.bincount([1, 2], weights=[1.0])"),
    ("bincount_huge_minlength", f"tf.math.bincount([1], minlength={PH}(2**40, []))"),
    ("histogram_nan_range", "tf.histogram_fixed_width([1.0, 2.0], [0.0, float('nan')], nbins=3)"),
    ("histogram_inverted_range", "tf.histogram_fixed_width([1.0, 2.0], [1.0, 0.0], nbins=3)"),
    ("histogram_zero_bins", f"tf.histogram_fixed_width([1.0, 2.0], [0.0, 1.0], nbins={PH}(0, []))"),
    ("histogram_nan_values", "tf.histogram_fixed_width([float('nan'), 1.0], [0.0, 2.0], nbins=2)"),
    ("dynamic_partition_oob", "tf.dynamic_partition([1.0, 2.0], [0, 3], 2)"),
    ("dynamic_stitch_neg", "tf.dynamic_stitch([[0, -1]], [[1.0, 2.0]])"),
    ("matrix_band_part_bad", "tf.linalg.band_part(tf.zeros([3, 3]), 5, 0)"),
    ("batch_to_space_bad", "tf.batch_to_space_nd(tf.zeros([3, 1, 1, 1]), [2, 2], [[0, 0], [0, 0]])"),
    ("space_to_batch_bad", "tf.space_to_batch_nd(tf.zeros([1, 3, 3, 1]), [2, 2], [[0, 0], [0, 0]])"),
    ("space_to_batch_neg_pad", "tf.space_to_batch_nd(tf.zeros([1, 4, 4, 1]), [2, 2], [[-2, 0], [0, 0]])"),
    ("depth_to_space_bad", "tf.nn.depth_to_space(tf.zeros([1, 2, 2, 3]), 2)"),
    ("space_to_depth_zero", "tf.nn.space_to_depth(tf.zeros([1, 2, 2, 3]), 0)"),
    ("space_to_depth_bad", "tf.nn.space_to_depth(tf.zeros([1, 3, 3, 1]), 2)"),
    # integer division / casts
    ("int_div_zero", f"tf.math.floordiv({PH}(7, []), 0)"),
    ("int_truncdiv_zero", f"tf.truncatediv({PH}(7, []), 0)"),
    ("int_mod_zero", f"tf.math.floormod({PH}(7, []), 0)"),
    ("int_truncmod_zero", f"tf.truncatemod({PH}(7, []), 0)"),
    ("int64_div_zero", f"tf.math.floordiv({PH}(tf.constant(7, tf.int64), []), tf.constant(0, tf.int64))"),
    ("int_div_min_neg1", f"tf.math.floordiv({PH}(tf.constant(-2**31, tf.int32), []), -1)"),
    ("int_realdiv_int32", f"tf.div({PH}(7, []), 0)"),
    ("cast_nan_to_int", f"tf.cast({PH}(float('nan'), []), tf.int32)"),
    ("cast_inf_to_uint8", f"tf.cast({PH}(float('inf'), []), tf.uint8)"),
    ("cast_huge_to_int32", f"tf.cast({PH}(1e20, []), tf.int32)"),
    ("pow_int_neg_exp", f"tf.pow({PH}(2, []), -1)"),
    # pad / slice / strided slice
    ("pad_neg", "tf.pad(tf.zeros([2]), [[-3, 0]])"),
    ("pad_neg_runtime", f"tf.pad(tf.zeros([2]), {PH}([[-3, 0]], [1, 2]))"),
    ("pad_wrong_shape", "tf.pad(tf.zeros([2, 2]), [[1, 1]])"),
    ("pad_reflect_too_big", "tf.pad(tf.zeros([2]), [[3, 0]], mode='REFLECT')"),
    ("pad_symmetric_too_big", f"tf.pad(tf.zeros([2]), {PH}([[3, 0]], [1, 2]), mode='SYMMETRIC')"),
    ("pad_huge", f"tf.pad(tf.zeros([2]), {PH}([[2**40, 0]], [1, 2]))"),
    ("slice_oob", "tf.slice(tf.zeros([3]), [2], [5])"),
    ("slice_neg_begin", "tf.slice(tf.zeros([3]), [-1], [1])"),
    ("slice_oob_runtime", f"tf.slice(tf.zeros([3]), {PH}([2], [1]), [5])"),
    ("slice_size_minus2", f"tf.slice(tf.zeros([3]), [0], {PH}([-2], [1]))"),
    ("strided_slice_stride0", "tf.strided_slice(tf.zeros([5]), [0], [5], [0])"),
    ("strided_slice_stride0_runtime", f"tf.strided_slice(tf.zeros([5]), [0], [5], {PH}([0], [1]))"),
    ("strided_slice_index_oob", "tf.zeros([5])[7]"),
    ("strided_slice_index_oob_runtime", f"{PH}(tf.zeros([5]), [None])[7]"),
    ("strided_slice_huge", "tf.zeros([5])[2**62:2**63 - 1]"),
    ("strided_slice_neg_huge", "tf.zeros([5])[-2**62:]"),
    ("strided_slice_rank0", "tf.constant(1.0)[0]"),
    ("strided_slice_too_many", "tf.zeros([2])[0, 0]"),
    # conv / pool
    ("conv2d_stride0", "tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 0, 0, 1], 'SAME')"),
    ("conv2d_stride_neg", "tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, -1, -1, 1], 'SAME')"),
    ("conv2d_kernel_bigger", "tf.nn.conv2d(tf.zeros([1, 2, 2, 1]), tf.zeros([5, 5, 1, 1]), [1, 1, 1, 1], 'VALID')"),
    ("conv2d_channel_mismatch", "tf.nn.conv2d(tf.zeros([1, 4, 4, 3]), tf.zeros([2, 2, 2, 1]), [1, 1, 1, 1], 'SAME')"),
    (
        "conv2d_dilation0",
        "tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], 'SAME', dilations=[1, 0, 0, 1])",
    ),
    ("conv2d_rank3", "tf.nn.conv2d(tf.zeros([4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], 'SAME')"),
    ("conv2d_bad_padding", "tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], 'WHAT')"),
    (
        "conv2d_zero_filter_runtime",
        f"tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), {PH}(tf.zeros([0, 0, 1, 1]), [None, None, 1, 1]), [1, 1, 1, 1], 'SAME')",
    ),
    (
        "conv2d_kernel_bigger_runtime",
        f"tf.nn.conv2d({PH}(tf.zeros([1, 2, 2, 1]), [1, None, None, 1]), tf.zeros([5, 5, 1, 1]), [1, 1, 1, 1], 'VALID')",
    ),
    (
        "depthwise_stride0",
        "tf.nn.depthwise_conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 0, 0, 1], 'SAME')",
    ),
    ("conv1d_stride0", "tf.nn.conv1d(tf.zeros([1, 4, 1]), tf.zeros([2, 1, 1]), 0, 'SAME')"),
    ("conv3d_stride0", "tf.nn.conv3d(tf.zeros([1, 4, 4, 4, 1]), tf.zeros([2, 2, 2, 1, 1]), [1, 0, 1, 1, 1], 'SAME')"),
    (
        "conv2d_transpose_bad_out",
        "tf.nn.conv2d_transpose(tf.zeros([1, 2, 2, 1]), tf.zeros([2, 2, 1, 1]), [1, 9, 9, 1], [1, 2, 2, 1])",
    ),
    (
        "conv2d_transpose_neg_out",
        f"tf.nn.conv2d_transpose(tf.zeros([1, 2, 2, 1]), tf.zeros([2, 2, 1, 1]), {PH}([1, -4, 4, 1], [4]), [1, 2, 2, 1])",
    ),
    ("max_pool_ksize0", "tf.nn.max_pool(tf.zeros([1, 4, 4, 1]), [1, 0, 0, 1], [1, 1, 1, 1], 'VALID')"),
    ("max_pool_stride0", "tf.nn.max_pool(tf.zeros([1, 4, 4, 1]), [1, 2, 2, 1], [1, 0, 0, 1], 'VALID')"),
    ("max_pool_ksize_big", "tf.nn.max_pool(tf.zeros([1, 2, 2, 1]), [1, 5, 5, 1], [1, 1, 1, 1], 'VALID')"),
    ("max_pool_ksize_neg", "tf.nn.max_pool(tf.zeros([1, 4, 4, 1]), [1, -2, -2, 1], [1, 1, 1, 1], 'VALID')"),
    ("avg_pool_ksize0", "tf.nn.avg_pool(tf.zeros([1, 4, 4, 1]), [1, 0, 0, 1], [1, 1, 1, 1], 'VALID')"),
    ("avg_pool_ksize_big", "tf.nn.avg_pool(tf.zeros([1, 2, 2, 1]), [1, 5, 5, 1], [1, 1, 1, 1], 'VALID')"),
    (
        "avg_pool_ksize_big_runtime",
        f"tf.nn.avg_pool({PH}(tf.zeros([1, 2, 2, 1]), [1, None, None, 1]), [1, 5, 5, 1], [1, 1, 1, 1], 'VALID')",
    ),
    ("max_pool_ksize_huge", "tf.nn.max_pool(tf.zeros([1, 4, 4, 1]), [1, 2**31 - 1, 2, 1], [1, 1, 1, 1], 'SAME')"),
    (
        "max_pool_with_argmax_stride0",
        "tf.nn.max_pool_with_argmax(tf.zeros([1, 4, 4, 1]), [1, 2, 2, 1], [1, 0, 0, 1], 'VALID')[0]",
    ),
    ("max_pool3d_ksize0", "tf.nn.max_pool3d(tf.zeros([1, 4, 4, 4, 1]), [1, 0, 1, 1, 1], [1, 1, 1, 1, 1], 'VALID')"),
    ("avg_pool1d_ksize0", "tf.nn.avg_pool1d(tf.zeros([1, 4, 1]), 0, 1, 'VALID')"),
    ("bias_add_mismatch", "tf.nn.bias_add(tf.zeros([2, 3]), tf.zeros([4]))"),
    ("lrn_bad_radius", "tf.nn.lrn(tf.zeros([1, 2, 2, 3]), depth_radius=-1)"),
    ("batch_norm_mismatch", "tf.nn.fused_batch_norm(tf.zeros([1, 2, 2, 3]), tf.ones([4]), tf.zeros([4]))[0]"),
    # resize / image
    ("resize_zero", "tf.image.resize_bilinear(tf.zeros([1, 2, 2, 1]), [0, 0])"),
    ("resize_zero_runtime", f"tf.image.resize_bilinear(tf.zeros([1, 2, 2, 1]), {PH}([0, 0], [2]))"),
    ("resize_neg_runtime", f"tf.image.resize_nearest_neighbor(tf.zeros([1, 2, 2, 1]), {PH}([-1, 4], [2]))"),
    ("resize_huge_runtime", f"tf.image.resize_bilinear(tf.zeros([1, 2, 2, 1]), {PH}([2**31 - 1, 2**31 - 1], [2]))"),
    ("resize_bicubic_zero_input", "tf.image.resize_bicubic(tf.zeros([1, 0, 0, 1]), [4, 4])"),
    (
        "crop_and_resize_bad_box_ind",
        "tf.image.crop_and_resize(tf.zeros([1, 4, 4, 1]), [[0.0, 0.0, 1.0, 1.0]], [3], [2, 2])",
    ),
    (
        "crop_and_resize_zero_crop",
        "tf.image.crop_and_resize(tf.zeros([1, 4, 4, 1]), [[0.0, 0.0, 1.0, 1.0]], [0], [0, 2])",
    ),
    (
        "extract_patches_zero",
        "tf.image.extract_patches(tf.zeros([1, 4, 4, 1]), [1, 0, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], 'VALID')",
    ),
    ("crop_to_bbox_oob", f"tf.image.crop_to_bounding_box({PH}(tf.zeros([4, 4, 1]), [None, None, 1]), 3, 3, 4, 4)"),
    ("pad_to_bbox_neg", f"tf.image.pad_to_bounding_box({PH}(tf.zeros([4, 4, 1]), [None, None, 1]), -1, 0, 8, 8)"),
    ("nms_neg_max", "tf.image.non_max_suppression(tf.zeros([2, 4]), tf.zeros([2]), -1)"),
    ("nms_mismatch", "tf.image.non_max_suppression(tf.zeros([2, 4]), tf.zeros([3]), 1)"),
    ("rgb_to_hsv_bad_channels", "tf.image.rgb_to_hsv(tf.zeros([2, 2, 2]))"),
    ("adjust_contrast_rank1", "tf.image.adjust_contrast(tf.zeros([3]), 2.0)"),
    # matmul / linalg
    ("matmul_mismatch", "tf.matmul(tf.zeros([2, 3]), tf.zeros([4, 2]))"),
    ("matmul_mismatch_runtime", f"tf.matmul({PH}(tf.zeros([2, 3]), [None, None]), tf.zeros([4, 2]))"),
    ("matmul_rank1", "tf.matmul(tf.zeros([3]), tf.zeros([3]))"),
    ("batch_matmul_bcast_bad", "tf.matmul(tf.zeros([2, 2, 3]), tf.zeros([3, 3, 2]))"),
    ("matrix_inverse_nonsquare", "tf.matrix_inverse(tf.zeros([2, 3]))"),
    ("matrix_inverse_singular", "tf.matrix_inverse(tf.zeros([2, 2]))"),
    ("cholesky_not_pd", "tf.cholesky(-tf.eye(2))"),
    ("matrix_diag_part_rank1", "tf.matrix_diag_part(tf.zeros([3]))"),
    ("einsum_bad", "tf.einsum('ij,jk->ik', tf.zeros([2, 3]), tf.zeros([4, 2]))"),
    ("tensordot_bad_axes", "tf.tensordot(tf.zeros([2, 3]), tf.zeros([3, 2]), [[5], [0]])"),
    ("add_shape_mismatch", "tf.add(tf.zeros([2]), tf.zeros([3]))"),
    ("add_shape_mismatch_runtime", f"tf.add({PH}(tf.zeros([2]), [None]), tf.zeros([3]))"),
    ("add_dtype_mismatch", "tf.add(tf.zeros([2]), tf.zeros([2], tf.int32))"),
    ("select_mismatch", "tf.where(tf.zeros([2], tf.bool), tf.zeros([3]), tf.zeros([3]))"),
    ("select_mismatch_runtime", f"tf.where({PH}(tf.zeros([2], tf.bool), [None]), tf.zeros([3]), tf.zeros([3]))"),
    ("boolean_mask_mismatch", "tf.boolean_mask(tf.zeros([3]), [True, False])"),
    ("sequence_mask_neg", f"tf.sequence_mask([1, 2], {PH}(-1, []))"),
    ("clip_by_value_mismatch", "tf.clip_by_value(tf.zeros([2]), tf.zeros([3]), 1.0)"),
    ("diag_rank0", "tf.diag(tf.constant(1.0))"),
    ("matrix_set_diag_bad", "tf.matrix_set_diag(tf.zeros([2, 2]), tf.zeros([3]))"),
    ("sparse_softmax_xent_oob", "tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[5], logits=tf.zeros([1, 3]))"),
    ("sparse_softmax_xent_neg", "tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[-1], logits=tf.zeros([1, 3]))"),
    (
        "softmax_xent_mismatch",
        "tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.zeros([1, 4]), logits=tf.zeros([1, 3]))",
    ),
    ("confusion_matrix_neg", "tf.math.confusion_matrix([0, -1], [0, 1])"),
    ("ctc_bad", "tf.nn.ctc_loss(tf.SparseTensor([[0, 0]], [5], [1, 1]), tf.zeros([2, 1, 3]), [2])"),
    # sparse
    ("sparse_to_dense_oob", "tf.sparse_to_dense([[5]], [3], [1.0])"),
    ("sparse_to_dense_unsorted", "tf.sparse_to_dense([[2], [0]], [3], [1.0, 2.0])"),
    ("sparse_to_dense_dup", "tf.sparse_to_dense([[1], [1]], [3], [1.0, 2.0])"),
    ("sparse_tensor_to_dense_oob", "tf.sparse.to_dense(tf.SparseTensor([[5, 0]], [1.0], [2, 2]))"),
    ("sparse_tensor_to_dense_neg", "tf.sparse.to_dense(tf.SparseTensor([[-1, 0]], [1.0], [2, 2]))"),
    ("sparse_tensor_to_dense_unsorted", "tf.sparse.to_dense(tf.SparseTensor([[1, 0], [0, 0]], [1.0, 2.0], [2, 2]))"),
    ("sparse_tensor_to_dense_dup", "tf.sparse.to_dense(tf.SparseTensor([[1, 0], [1, 0]], [1.0, 2.0], [2, 2]))"),
    ("sparse_reorder_oob_value_len", "tf.sparse.reorder(tf.SparseTensor([[1, 0], [0, 0]], [1.0], [2, 2])).values"),
    (
        "sparse_add_shape_mismatch",
        "tf.sparse.add(tf.SparseTensor([[0, 0]], [1.0], [2, 2]), tf.SparseTensor([[0, 0]], [1.0], [3, 3])).values",
    ),
    (
        "sparse_dense_matmul_oob",
        "tf.sparse.sparse_dense_matmul(tf.SparseTensor([[0, 7]], [1.0], [2, 2]), tf.zeros([2, 2]))",
    ),
    ("sparse_reduce_sum_oob", "tf.sparse.reduce_sum(tf.SparseTensor([[0, 7]], [1.0], [2, 2]))"),
    ("sparse_slice_neg", "tf.sparse.slice(tf.SparseTensor([[0, 0]], [1.0], [2, 2]), [-1, 0], [1, 1]).values"),
    ("sparse_reshape_bad", "tf.sparse.reshape(tf.SparseTensor([[0, 0]], [1.0], [2, 2]), [3]).values"),
    (
        "sparse_split_bad",
        "tf.sparse.split(sp_input=tf.SparseTensor([[0, 0]], [1.0], [2, 2]), num_split=0, axis=0)[0].values",
    ),
    (
        "sparse_concat_mismatch",
        "tf.sparse.concat(0, [tf.SparseTensor([[0, 0]], [1.0], [2, 2]), tf.SparseTensor([[0, 0]], [1.0], [2, 3])]).values",
    ),
    (
        "sparse_fill_empty_rows_oob",
        "tf.sparse.fill_empty_rows(tf.SparseTensor([[5, 0]], [1.0], [2, 2]), 0.0)[0].values",
    ),
    ("sparse_segment_mean_oob_num", "tf.sparse.segment_mean(tf.zeros([3, 2]), [0, 1], [0, 5], num_segments=2)"),
    # strings
    ("substr_pos_oob", "tf.strings.substr('hello', 10, 2)"),
    ("substr_neg_len", "tf.strings.substr('hello', 1, -2)"),
    ("substr_pos_neg_oob", "tf.strings.substr('hello', -10, 2)"),
    ("substr_utf8_oob", "tf.strings.substr('hé', 5, 1, unit='UTF8_CHAR')"),
    ("substr_mismatch", "tf.strings.substr(['ab', 'cd'], [0, 0, 0], [1, 1, 1])"),
    ("string_to_number_bad", "tf.strings.to_number('abc')"),
    ("string_to_number_overflow", "tf.strings.to_number('99999999999', tf.int32)"),
    ("string_to_hash_bucket_zero", "tf.strings.to_hash_bucket_fast('a', 0)"),
    ("string_split_empty_sep", "tf.strings.split(['a b'], sep='').values"),
    ("reduce_join_axis_oob", "tf.strings.reduce_join(['a', 'b'], axis=3)"),
    ("string_join_mismatch", "tf.strings.join([['a', 'b'], ['a', 'b', 'c']])"),
    ("as_string_bad_precision", "tf.as_string(1.0, precision=-5)"),
    ("as_string_huge_width", "tf.as_string(1.0, width=2**30)"),
    ("regex_replace_bad", "tf.strings.regex_replace('abc', '(', 'x')"),
    ("regex_full_match_bad", "tf.strings.regex_full_match('abc', '[')"),
    ("unicode_decode_bad", "tf.strings.unicode_decode(b'\\xff\\xfe', 'UTF-8', errors='strict')"),
    ("decode_base64_bad", "tf.io.decode_base64('!!!!')"),
    ("string_format_bad", "tf.strings.format('{} {}', [tf.constant(1)])"),
    ("strings_repeat_neg", "tf.strings.join(['a'] * 2, separator='x')"),
    # decoding garbage
    ("decode_raw_bad_len", "tf.io.decode_raw(['abc'], tf.int32)"),
    ("decode_raw_mismatch_len", "tf.io.decode_raw(['abcd', 'abcdefgh'], tf.int32)"),
    ("decode_csv_bad", "tf.io.decode_csv(['1,2', '3'], [[0], [0]])"),
    ("decode_csv_bad_number", "tf.io.decode_csv(['x,2'], [[0], [0]])"),
    ("decode_csv_quote", "tf.io.decode_csv(['\"abc,2'], [[''], [0]])"),
    ("decode_png_garbage", "tf.image.decode_png(b'\\x89PNG\\r\\n\\x1a\\n' + b'\\x00' * 40)"),
    ("decode_jpeg_garbage", "tf.image.decode_jpeg(b'\\xff\\xd8\\xff' + b'\\x01' * 40)"),
    ("decode_image_garbage", "tf.image.decode_image(b'garbage')"),
    ("decode_gif_garbage", "tf.image.decode_gif(b'GIF89a' + b'\\x00' * 10)"),
    ("decode_bmp_garbage", "tf.image.decode_bmp(b'BM' + b'\\xff' * 60)"),
    ("decode_png_empty", "tf.image.decode_png(b'')"),
    ("decode_jpeg_empty", "tf.image.decode_jpeg(b'')"),
    ("decode_wav_garbage", "tf.audio.decode_wav(b'RIFF' + b'\\xff' * 40)[0]"),
    ("decode_compressed_garbage", "tf.io.decode_compressed(b'garbage', compression_type='ZLIB')"),
    ("decode_json_example_bad", "tf.io.decode_json_example(['{bad'])"),
    (
        "parse_example_garbage",
        "tf.io.parse_example([b'\\xff\\x01garbage'], {'a': tf.io.FixedLenFeature([1], tf.float32)})['a']",
    ),
    (
        "parse_single_example_garbage",
        "tf.io.parse_single_example(b'\\x0a\\xff\\xff\\xff\\xff\\x0f', {'a': tf.io.FixedLenFeature([1], tf.float32)})['a']",
    ),
    ("parse_example_missing", "tf.io.parse_example([b''], {'a': tf.io.FixedLenFeature([1], tf.float32)})['a']"),
    ("parse_tensor_garbage", "tf.io.parse_tensor(b'\\xff\\xff\\xff', tf.float32)"),
    ("parse_tensor_wrong_type", "tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([1, 2])), tf.float32)"),
    ("read_file_dir", "tf.io.read_file('/tmp')"),
    ("read_file_missing", "tf.io.read_file('/nonexistent/file/xyz')"),
    ("write_file_dir", "tf.io.write_file('/nonexistent_dir_xyz/a', 'x')"),
    ("matching_files_bad", "tf.io.matching_files('/nonexistent_dir_xyz/*')"),
    # misc
    ("check_numerics_nan", f"tf.debugging.check_numerics({PH}(float('nan'), []), 'msg')"),
    ("assert_equal_fail", "tf.debugging.assert_equal(tf.constant(1), tf.constant(2))"),
    ("random_shuffle_rank0", "tf.random_shuffle(tf.constant(1.0))"),
    ("multinomial_neg_samples", f"tf.multinomial(tf.zeros([1, 3]), {PH}(-1, []))"),
    ("multinomial_zero_classes", "tf.multinomial(tf.zeros([1, 0]), 2)"),
    ("random_gamma_neg_shape", f"tf.random_gamma({PH}([-1], [1]), 1.0)"),
    ("truncated_normal_neg", f"tf.truncated_normal({PH}([-1], [1]))"),
    ("random_crop_too_big", "tf.random_crop(tf.zeros([2, 2]), [3, 3])"),
    ("quantize_bad_range", "tf.quantization.quantize(tf.zeros([2]), 1.0, 0.0, tf.quint8)[0]"),
    ("fake_quant_bad_bits", "tf.quantization.fake_quant_with_min_max_args(tf.zeros([2]), num_bits=1)"),
    ("bitcast_bad", "tf.bitcast(tf.zeros([3], tf.int8), tf.int32)"),
    ("unravel_index_oob", "tf.unravel_index([10], [2, 2])"),
    ("unravel_index_neg_dims", "tf.unravel_index([1], [-2, 2])"),
    ("invert_permutation_bad", "tf.invert_permutation([0, 0, 5])"),
    ("invert_permutation_neg", "tf.invert_permutation([-1, 0])"),
    ("setdiff_rank2", "tf.setdiff1d(tf.zeros([2, 2]), tf.zeros([2]))"),
    ("unique_rank2", "tf.unique(tf.zeros([2, 2]))[0]"),
    ("fft_rank0", "tf.signal.fft(tf.constant(1 + 0j, tf.complex64))"),
    ("frame_neg_len", "tf.signal.frame(tf.zeros([10]), -2, 1)"),
    ("frame_zero_step", "tf.signal.frame(tf.zeros([10]), 2, 0)"),
    ("stft_frame_len0", "tf.signal.stft(tf.zeros([10]), 0, 1)"),
    ("mfcc_bad", "tf.signal.mfccs_from_log_mel_spectrograms(tf.zeros([0]))"),
    (
        "while_loop_neg_iterations",
        "tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)], maximum_iterations=-1)",
    ),
    ("tensor_array_read_oob", "tf.TensorArray(tf.float32, 2).write(0, 1.0).read(5)"),
    ("tensor_array_neg_size", f"tf.TensorArray(tf.float32, {PH}(-1, [])).size()"),
    ("tensor_array_stack_empty_unknown", "tf.TensorArray(tf.float32, 2).stack()"),
    ("matrix_solve_mismatch", "tf.matrix_solve(tf.eye(2), tf.zeros([3, 1]))"),
    ("norm_bad_ord", "tf.norm(tf.zeros([3]), ord=-7)"),
    ("lbeta_rank0", "tf.math.lbeta(tf.constant(1.0))"),
    ("segment_ids_float", "tf.segment_sum([1.0], [0.5])"),
    ("gather_float_indices", "tf.gather([1, 2], [0.5])"),
    ("one_hot_float_indices", "tf.one_hot([0.5], 3)"),
    ("zeros_float_shape", "tf.zeros([2.5])"),
    ("reshape_float_shape", "tf.reshape(tf.zeros([4]), [2.0, 2.0])"),
    ("tile_rank_mismatch", "tf.tile(tf.zeros([2, 2]), [2])"),
    ("argsort_axis_oob", "tf.argsort(tf.zeros([3]), axis=2)"),
    ("sort_rank0", "tf.sort(tf.constant(1.0))"),
    ("nth_element_neg", f"tf.nn.top_k(tf.zeros([3]), {PH}(4, []))"),
    ("dropout_rate_1", "tf.nn.dropout(tf.zeros([3]), rate=1.0)"),
    ("dropout_rate_neg", "tf.nn.dropout(tf.zeros([3]), rate=-0.5)"),
    ("moments_axes_oob", "tf.nn.moments(tf.zeros([2, 3]), [5])[0]"),
    # raw ops with hostile attrs
    ("raw_split_num0", "tf.raw_ops.Split(axis=0, value=tf.zeros([4]), num_split=0)"),
    ("raw_unpack_num_wrong", "tf.raw_ops.Unpack(value=tf.zeros([3, 2]), num=5)"),
    ("raw_one_hot_axis_neg2", "tf.raw_ops.OneHot(indices=[0, 1], depth=3, on_value=1.0, off_value=0.0, axis=-2)"),
    ("raw_concat_n_mismatch", "tf.raw_ops.ConcatV2(values=[tf.zeros([2]), tf.zeros([2, 2])], axis=0)"),
    ("raw_range_huge", f"tf.raw_ops.Range(start=0, limit={PH}(2**31 - 1, []), delta=1)"),
    ("raw_fill_neg", f"tf.raw_ops.Fill(dims={PH}([-1], [1]), value=1.0)"),
    (
        "raw_matrix_diag_v3_bad_k",
        "tf.raw_ops.MatrixDiagV3(diagonal=tf.zeros([3]), k=[5, 1], num_rows=-1, num_cols=-1, padding_value=0.0)",
    ),
    (
        "raw_reverse_sequence_oob",
        "tf.raw_ops.ReverseSequence(input=tf.zeros([2, 3]), seq_lengths=tf.constant([9, 1], tf.int64), seq_dim=1, batch_dim=0)",
    ),
    (
        "raw_reverse_sequence_neg",
        "tf.raw_ops.ReverseSequence(input=tf.zeros([2, 3]), seq_lengths=tf.constant([-1, 1], tf.int64), seq_dim=1, batch_dim=0)",
    ),
    ("raw_lrn_radius_huge", "tf.raw_ops.LRN(input=tf.zeros([1, 2, 2, 3]), depth_radius=2**30)"),
    (
        "raw_avg_pool_grad_bad",
        "tf.raw_ops.AvgPoolGrad(orig_input_shape=[1, 4, 4, 1], grad=tf.zeros([1, 9, 9, 1]), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='VALID')",
    ),
    (
        "raw_max_pool_grad_bad",
        "tf.raw_ops.MaxPoolGrad(orig_input=tf.zeros([1, 4, 4, 1]), orig_output=tf.zeros([1, 2, 2, 1]), grad=tf.zeros([1, 3, 3, 1]), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='VALID')",
    ),
    (
        "raw_conv2d_backprop_input_bad",
        "tf.raw_ops.Conv2DBackpropInput(input_sizes=[1, 4, 4, 1], filter=tf.zeros([2, 2, 1, 1]), out_backprop=tf.zeros([1, 9, 9, 1]), strides=[1, 1, 1, 1], padding='VALID')",
    ),
    ("raw_bias_add_grad_rank1", "tf.raw_ops.BiasAddGrad(out_backprop=tf.zeros([3]))"),
    (
        "raw_resize_bilinear_grad_bad",
        "tf.raw_ops.ResizeBilinearGrad(grads=tf.zeros([1, 4, 4, 1]), original_image=tf.zeros([1, 0, 0, 1]))",
    ),
    (
        "raw_unsorted_segment_shape_mismatch",
        "tf.raw_ops.UnsortedSegmentSum(data=tf.zeros([3, 2]), segment_ids=[0, 1], num_segments=2)",
    ),
    (
        "raw_gather_v2_batch_dims_neg",
        "tf.raw_ops.GatherV2(params=tf.zeros([2, 3]), indices=[[0]], axis=1, batch_dims=-5)",
    ),
    (
        "raw_tensor_scatter_bad_depth",
        "tf.raw_ops.TensorScatterUpdate(tensor=tf.zeros([3]), indices=[[0, 0]], updates=[1.0])",
    ),
    ("raw_scatter_nd_zero_shape", "tf.raw_ops.ScatterNd(indices=[[0]], updates=[1.0], shape=[0])"),
    (
        "raw_sparse_to_dense_rank_mismatch",
        "tf.raw_ops.SparseToDense(sparse_indices=[[0, 0]], output_shape=[3], sparse_values=[1.0], default_value=0.0)",
    ),
    ("raw_bincount_size_neg", "tf.raw_ops.Bincount(arr=[1, 2], size=-1, weights=tf.zeros([0]))"),
    ("raw_dense_bincount_oob", "tf.raw_ops.DenseBincount(input=[1, 9], size=3, weights=tf.zeros([0]))"),
    ("raw_mirror_pad_bad_mode", "tf.raw_ops.MirrorPad(input=tf.zeros([2]), paddings=[[1, 1]], mode='WHAT')"),
    ("raw_quantize_v2_bad", "tf.raw_ops.QuantizeV2(input=tf.zeros([2]), min_range=1.0, max_range=0.0, T=tf.quint8)[0]"),
    (
        "raw_dequantize_axis_oob",
        "tf.raw_ops.Dequantize(input=tf.zeros([2], tf.quint8), min_range=[0.0], max_range=[1.0], axis=5)",
    ),
    ("raw_string_split_v2_maxsplit_neg", "tf.raw_ops.StringSplitV2(input=['a b c'], sep=' ', maxsplit=-5)[1]"),
    ("raw_substr_mismatch_shapes", "tf.raw_ops.Substr(input=['ab'], pos=[0, 1], len=[1])"),
    ("raw_encode_base64_empty", "tf.raw_ops.EncodeBase64(input='')"),
    (
        "raw_unicode_transcode_bad",
        "tf.raw_ops.UnicodeTranscode(input=['a'], input_encoding='NOPE', output_encoding='UTF-8')",
    ),
    ("raw_random_uniform_int_bad", "tf.raw_ops.RandomUniformInt(shape=[2], minval=5, maxval=5)"),
    ("raw_multinomial_neg", f"tf.raw_ops.Multinomial(logits=tf.zeros([1, 3]), num_samples={PH}(-2, []))"),
    (
        "raw_extract_image_patches_rates0",
        "tf.raw_ops.ExtractImagePatches(images=tf.zeros([1, 4, 4, 1]), ksizes=[1, 2, 2, 1], strides=[1, 1, 1, 1], rates=[1, 0, 0, 1], padding='VALID')",
    ),
    (
        "raw_depth_to_space_bad_format",
        "tf.raw_ops.DepthToSpace(input=tf.zeros([1, 2, 2, 4]), block_size=2, data_format='WHAT')",
    ),
    ("raw_matrix_band_part_neg_big", "tf.raw_ops.MatrixBandPart(input=tf.zeros([3, 3]), num_lower=-5, num_upper=0)"),
    ("xw_plus_b_mismatch", "tf.nn.xw_plus_b(tf.zeros([2, 3]), tf.zeros([3, 4]), tf.zeros([5]))"),
]


# Round 2 (helper bx2): linalg, fft/signal, image, nn, control flow, variables, tf.data, strings, quantization,
# numerics and session-level misuse. A case starting with "exec:" is a statement block run with `tf`, `np` and
# `sess` in scope; it sets `fetches` (and optionally `feed`) to run, or `out` (a value already computed).
NAN = "float('nan')"
M22 = "tf.constant([[1.0, 2.0], [3.0, 4.0]])"
NANM = f"{PH}(np.full([2, 2], np.nan, np.float32), [2, 2])"
IMG = "tf.zeros([1, 4, 4, 1])"
BOX = "[[0.0, 0.0, 1.0, 1.0]]"
ITER = "tf.data.make_one_shot_iterator({}).get_next()"
QUEUE = "exec:q = tf.FIFOQueue(2, tf.float32, shapes=[[]])\n"
CASES_S21 = [
    # linalg
    ("cholesky_nonsquare", "tf.cholesky(tf.zeros([2, 3]))"),
    ("cholesky_rank1", "tf.cholesky(tf.zeros([3]))"),
    ("cholesky_empty", "tf.cholesky(tf.zeros([0, 0]))"),
    ("cholesky_nan", f"tf.cholesky({NANM})"),
    ("cholesky_nonsquare_runtime", f"tf.cholesky({PH}(tf.zeros([2, 3]), [None, None]))"),
    ("qr_rank1", "tf.qr(tf.zeros([3]))[0]"),
    ("qr_empty", "tf.qr(tf.zeros([0, 3]))"),
    ("qr_nan", f"tf.qr({NANM})[1]"),
    ("svd_rank1", "tf.svd(tf.zeros([3]))"),
    ("svd_empty", "tf.svd(tf.zeros([0, 2]))"),
    ("svd_nan", f"tf.svd({NANM}, compute_uv=False)"),
    ("eigh_nonsquare", "tf.self_adjoint_eig(tf.zeros([2, 3]))[0]"),
    ("eigh_empty", "tf.self_adjoint_eigvals(tf.zeros([0, 0]))"),
    ("eigh_nan", f"tf.self_adjoint_eigvals({NANM})"),
    ("matrix_inverse_rank1", "tf.matrix_inverse(tf.zeros([3]))"),
    ("matrix_inverse_empty", "tf.matrix_inverse(tf.zeros([0, 0]))"),
    ("matrix_inverse_nan", f"tf.matrix_inverse({NANM})"),
    ("matrix_inverse_nonsquare_runtime", f"tf.matrix_inverse({PH}(tf.zeros([2, 3]), [None, None]))"),
    ("matrix_solve_singular", "tf.matrix_solve(tf.zeros([2, 2]), tf.ones([2, 1]))"),
    ("matrix_solve_nonsquare", "tf.matrix_solve(tf.zeros([2, 3]), tf.ones([2, 1]))"),
    ("matrix_solve_batch_mismatch", "tf.matrix_solve(tf.tile(tf.eye(2)[None], [3, 1, 1]), tf.ones([2, 2, 1]))"),
    ("matrix_solve_mismatch_runtime", f"tf.matrix_solve(tf.eye(2), {PH}(tf.zeros([3, 1]), [None, None]))"),
    ("triangular_solve_mismatch", "tf.matrix_triangular_solve(tf.eye(2), tf.ones([3, 1]))"),
    ("triangular_solve_nonsquare", "tf.matrix_triangular_solve(tf.zeros([2, 3]), tf.ones([2, 1]))"),
    ("triangular_solve_singular", "tf.matrix_triangular_solve(tf.zeros([2, 2]), tf.ones([2, 1]))"),
    ("lstsq_mismatch", "tf.linalg.lstsq(tf.zeros([3, 2]), tf.zeros([4, 1]))"),
    ("lstsq_rank1", "tf.linalg.lstsq(tf.zeros([3]), tf.zeros([3]))"),
    ("lstsq_empty", "tf.linalg.lstsq(tf.zeros([0, 2]), tf.zeros([0, 1]))"),
    ("det_nonsquare", "tf.matrix_determinant(tf.zeros([2, 3]))"),
    ("det_empty", "tf.matrix_determinant(tf.zeros([0, 0]))"),
    ("det_nan", f"tf.matrix_determinant({NANM})"),
    ("logdet_not_pd", f"tf.linalg.logdet(-{M22})"),
    ("slogdet_singular", "tf.linalg.slogdet(tf.zeros([2, 2]))"),
    ("slogdet_nonsquare", "tf.linalg.slogdet(tf.zeros([2, 3]))[0]"),
    ("expm_nonsquare", "tf.linalg.expm(tf.zeros([2, 3]))"),
    ("lu_nonsquare", "tf.linalg.lu(tf.zeros([2, 3]))[0]"),
    ("lu_singular", "tf.linalg.lu(tf.zeros([2, 2]))[0]"),
    ("cross_not_3", "tf.linalg.cross(tf.zeros([2]), tf.zeros([2]))"),
    ("trace_rank1", "tf.linalg.trace(tf.zeros([3]))"),
    ("matrix_transpose_rank1", "tf.linalg.matrix_transpose(tf.zeros([3]))"),
    ("band_part_neg_runtime", f"tf.linalg.band_part(tf.zeros([3, 3]), {PH}(tf.constant(-5, tf.int64), []), 0)"),
    ("norm_axis_oob", "tf.norm(tf.zeros([2, 3]), axis=[0, 4])"),
    # fft / signal
    ("fft_empty", "tf.signal.fft(tf.zeros([0], tf.complex64))"),
    ("fft_float_input", "tf.signal.fft(tf.zeros([4]))"),
    ("fft2d_rank1", "tf.signal.fft2d(tf.zeros([4], tf.complex64))"),
    ("ifft_empty_batch", "tf.signal.ifft(tf.zeros([2, 0], tf.complex64))"),
    ("rfft_len_neg", f"tf.signal.rfft(tf.zeros([8]), {PH}([-1], [1]))"),
    ("rfft_len_zero", "tf.signal.rfft(tf.zeros([8]), [0])"),
    ("rfft_len_count", "tf.signal.rfft(tf.zeros([8]), [4, 4])"),
    ("irfft_empty", "tf.signal.irfft(tf.zeros([0], tf.complex64))"),
    ("stft_frame_len_neg", "tf.signal.stft(tf.zeros([10]), -1, 1)"),
    ("stft_frame_step0", "tf.signal.stft(tf.zeros([10]), 4, 0)"),
    ("stft_fft_len_small", "tf.signal.stft(tf.zeros([10]), 4, 1, fft_length=2)"),
    ("stft_empty_signal", "tf.signal.stft(tf.zeros([0]), 4, 1)"),
    ("stft_rank0", "tf.signal.stft(tf.constant(1.0), 4, 1)"),
    ("frame_axis_oob", "tf.signal.frame(tf.zeros([10]), 2, 1, axis=3)"),
    ("frame_len_runtime_neg", f"tf.signal.frame(tf.zeros([10]), {PH}(-2, []), 1)"),
    ("inverse_stft_step0", "tf.signal.inverse_stft(tf.zeros([3, 5], tf.complex64), 8, 0)"),
    ("hann_window_neg", "tf.signal.hann_window(-1)"),
    ("hann_window_neg_runtime", f"tf.signal.hann_window({PH}(-3, []))"),
    ("mel_zero_bins", "tf.signal.linear_to_mel_weight_matrix(0, 129, 8000)"),
    ("mel_bad_edges", "tf.signal.linear_to_mel_weight_matrix(10, 129, 8000, 4000.0, 100.0)"),
    ("dct_bad_type", "tf.signal.dct(tf.zeros([4]), type=5)"),
    # image
    ("crop_to_bbox_neg_offset", "tf.image.crop_to_bounding_box(tf.zeros([4, 4, 1]), -1, 0, 2, 2)"),
    ("crop_to_bbox_zero_target", "tf.image.crop_to_bounding_box(tf.zeros([4, 4, 1]), 0, 0, 0, 2)"),
    ("crop_to_bbox_static_oob", "tf.image.crop_to_bounding_box(tf.zeros([4, 4, 1]), 3, 3, 4, 4)"),
    ("pad_to_bbox_too_small", "tf.image.pad_to_bounding_box(tf.zeros([4, 4, 1]), 0, 0, 2, 2)"),
    (
        "pad_to_bbox_too_small_runtime",
        f"tf.image.pad_to_bounding_box({PH}(tf.zeros([4, 4, 1]), [None, None, 1]), 0, 0, 2, 2)",
    ),
    ("resize_crop_pad_zero", "tf.image.resize_image_with_crop_or_pad(tf.zeros([4, 4, 1]), 0, 2)"),
    ("central_crop_zero", "tf.image.central_crop(tf.zeros([4, 4, 1]), 0.0)"),
    ("central_crop_over_one", "tf.image.central_crop(tf.zeros([4, 4, 1]), 1.5)"),
    (
        "extract_image_patches_stride0",
        f"tf.extract_image_patches({IMG}, [1, 2, 2, 1], [1, 0, 0, 1], [1, 1, 1, 1], 'VALID')",
    ),
    (
        "extract_image_patches_big",
        f"tf.extract_image_patches({IMG}, [1, 9, 9, 1], [1, 1, 1, 1], [1, 1, 1, 1], 'VALID')",
    ),
    (
        "extract_image_patches_rate_neg",
        f"tf.extract_image_patches({IMG}, [1, 2, 2, 1], [1, 1, 1, 1], [1, -1, 1, 1], 'SAME')",
    ),
    ("crop_and_resize_nan_box", f"tf.image.crop_and_resize({IMG}, [[0.0, {NAN}, 1.0, 1.0]], [0], [2, 2])"),
    ("crop_and_resize_neg_size", f"tf.image.crop_and_resize({IMG}, {BOX}, [0], {PH}([-2, 2], [2]))"),
    ("crop_and_resize_box_shape", f"tf.image.crop_and_resize({IMG}, [[0.0, 0.0, 1.0]], [0], [2, 2])"),
    ("crop_and_resize_count_mismatch", f"tf.image.crop_and_resize({IMG}, {BOX}, [0, 0], [2, 2])"),
    ("crop_and_resize_bad_method", f"tf.image.crop_and_resize({IMG}, {BOX}, [0], [2, 2], method='cubic')"),
    ("crop_and_resize_neg_box_ind", f"tf.image.crop_and_resize({IMG}, {BOX}, [-1], [2, 2])"),
    ("draw_boxes_bad_last_dim", f"tf.image.draw_bounding_boxes({IMG}, [[[0.0, 0.0, 1.0]]])"),
    ("draw_boxes_rank3", "tf.image.draw_bounding_boxes(tf.zeros([4, 4, 1]), [[[0.0, 0.0, 1.0, 1.0]]])"),
    ("draw_boxes_nan", f"tf.image.draw_bounding_boxes({IMG}, [[[{NAN}, 0.0, 1.0, 1.0]]])"),
    ("draw_boxes_huge", f"tf.image.draw_bounding_boxes({IMG}, [[[-1e30, -1e30, 1e30, 1e30]]])"),
    ("draw_boxes_batch_mismatch", f"tf.image.draw_bounding_boxes({IMG}, tf.zeros([3, 1, 4]))"),
    ("nms_iou_gt_one", "tf.image.non_max_suppression(tf.zeros([2, 4]), tf.zeros([2]), 1, iou_threshold=1.5)"),
    ("nms_boxes_rank1", "tf.image.non_max_suppression(tf.zeros([4]), tf.zeros([1]), 1)"),
    ("nms_boxes_last_dim", "tf.image.non_max_suppression(tf.zeros([2, 3]), tf.zeros([2]), 1)"),
    ("nms_nan_scores", f"tf.image.non_max_suppression([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.5, 0.5]], [{NAN}, 1.0], 2)"),
    ("nms_nan_boxes", f"tf.image.non_max_suppression([[{NAN}, 0.0, 1.0, 1.0], [0.0, 0.0, 0.5, 0.5]], [0.5, 1.0], 2)"),
    ("nms_huge_max", f"tf.image.non_max_suppression(tf.zeros([2, 4]), tf.zeros([2]), {PH}(2**31 - 1, []))"),
    ("nms_scores_mismatch_runtime", f"tf.image.non_max_suppression(tf.zeros([2, 4]), {PH}(tf.zeros([3]), [None]), 1)"),
    ("nms_overlaps_mismatch", "tf.image.non_max_suppression_overlaps(tf.zeros([2, 3]), tf.zeros([2]), 1)"),
    ("adjust_brightness_nan", f"tf.image.adjust_brightness(tf.zeros([2, 2, 3]), {NAN})"),
    ("adjust_contrast_nan", f"tf.image.adjust_contrast(tf.ones([2, 2, 3]), {NAN})"),
    ("adjust_saturation_nan", f"tf.image.adjust_saturation(tf.ones([2, 2, 3]), {NAN})"),
    ("adjust_saturation_2ch", "tf.image.adjust_saturation(tf.ones([2, 2, 2]), 0.5)"),
    ("adjust_hue_big_delta", "tf.image.adjust_hue(tf.ones([1, 1, 3]) * 0.5, 5.0)"),
    ("adjust_hue_rank1", "tf.image.adjust_hue(tf.ones([3]), 0.1)"),
    ("adjust_gamma_neg", "tf.image.adjust_gamma(tf.ones([2, 2, 3]), -1.0)"),
    ("adjust_gamma_nan_image", f"tf.image.adjust_gamma({PH}(np.full([1, 1, 3], np.nan, np.float32), [1, 1, 3]), 2.0)"),
    (
        "resize_bilinear_align_half",
        f"tf.image.resize_bilinear({IMG}, [2, 2], align_corners=True, half_pixel_centers=True)",
    ),
    (
        "resize_nearest_align_half",
        f"tf.image.resize_nearest_neighbor({IMG}, [2, 2], align_corners=True, half_pixel_centers=True)",
    ),
    (
        "resize_bicubic_align_half",
        f"tf.image.resize_bicubic({IMG}, [2, 2], align_corners=True, half_pixel_centers=True)",
    ),
    ("resize_images_bad_method", f"tf.image.resize_images({IMG}, [2, 2], method=99)"),
    ("resize_size_rank2", f"tf.image.resize_bilinear({IMG}, [[2, 2]])"),
    ("per_image_std_rank1", "tf.image.per_image_standardization(tf.zeros([3]))"),
    ("flip_lr_rank1", "tf.image.flip_left_right(tf.zeros([3]))"),
    ("total_variation_rank1", "tf.image.total_variation(tf.zeros([3]))"),
    ("sobel_rank3", "tf.image.sobel_edges(tf.zeros([4, 4, 1]))"),
    ("psnr_mismatch", "tf.image.psnr(tf.zeros([4, 4, 1]), tf.zeros([3, 3, 1]), 1.0)"),
    ("grayscale_to_rgb_3ch", "tf.image.grayscale_to_rgb(tf.zeros([2, 2, 3]))"),
    ("hsv_to_rgb_bad_channels", "tf.image.hsv_to_rgb(tf.zeros([2, 2, 2]))"),
    ("random_crop_neg_size", f"tf.random_crop(tf.zeros([4, 4]), {PH}([-1, 2], [2]))"),
    # nn
    ("conv3d_channel_mismatch", "tf.nn.conv3d(tf.zeros([1, 4, 4, 4, 2]), tf.zeros([2, 2, 2, 3, 1]), [1] * 5, 'SAME')"),
    ("conv3d_rank4", "tf.nn.conv3d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 2, 1, 1]), [1] * 5, 'SAME')"),
    (
        "conv3d_transpose_bad_out",
        "tf.nn.conv3d_transpose(tf.zeros([1, 2, 2, 2, 1]), tf.zeros([2, 2, 2, 1, 1]), [1, 9, 9, 9, 1], [1, 2, 2, 2, 1])",
    ),
    (
        "conv2d_transpose_bad_channels",
        "tf.nn.conv2d_transpose(tf.zeros([1, 2, 2, 1]), tf.zeros([2, 2, 1, 1]), [1, 4, 4, 3], [1, 2, 2, 1])",
    ),
    (
        "conv2d_transpose_out_rank3",
        "tf.nn.conv2d_transpose(tf.zeros([1, 2, 2, 1]), tf.zeros([2, 2, 1, 1]), [4, 4, 1], [1, 2, 2, 1])",
    ),
    (
        "conv2d_transpose_bad_out_runtime",
        f"tf.nn.conv2d_transpose(tf.zeros([1, 2, 2, 1]), tf.zeros([2, 2, 1, 1]), {PH}([1, 9, 9, 1], [4]), [1, 2, 2, 1])",
    ),
    (
        "conv2d_transpose_in_channels",
        "tf.nn.conv2d_transpose(tf.zeros([1, 2, 2, 3]), tf.zeros([2, 2, 1, 1]), [1, 4, 4, 1], [1, 2, 2, 1])",
    ),
    ("depthwise_multiplier0", f"tf.nn.depthwise_conv2d({IMG}, tf.zeros([2, 2, 1, 0]), [1, 1, 1, 1], 'SAME')"),
    ("depthwise_channel_mismatch", f"tf.nn.depthwise_conv2d({IMG}, tf.zeros([2, 2, 3, 1]), [1, 1, 1, 1], 'SAME')"),
    (
        "separable_bad_pointwise",
        f"tf.nn.separable_conv2d({IMG}, tf.zeros([2, 2, 1, 2]), tf.zeros([1, 1, 3, 4]), [1, 1, 1, 1], 'SAME')",
    ),
    ("atrous_rate0", f"tf.nn.atrous_conv2d({IMG}, tf.zeros([2, 2, 1, 1]), 0, 'SAME')"),
    ("fractional_max_ratio_lt1", f"tf.nn.fractional_max_pool({IMG}, [1.0, 0.5, 0.5, 1.0])[0]"),
    ("fractional_avg_batch_ratio", f"tf.nn.fractional_avg_pool({IMG}, [2.0, 1.5, 1.5, 1.0])[0]"),
    ("fractional_max_ratio_big", f"tf.nn.fractional_max_pool({IMG}, [1.0, 10.0, 10.0, 1.0])[0]"),
    ("fractional_max_len3", f"tf.nn.fractional_max_pool({IMG}, [1.0, 1.5, 1.5])[0]"),
    (
        "ctc_labels_longer_than_seq",
        "tf.nn.ctc_loss(tf.SparseTensor([[0, 0], [0, 1], [0, 2]], [1, 1, 1], [1, 3]), tf.zeros([2, 1, 3]), [2])",
    ),
    ("ctc_seq_len_gt_time", "tf.nn.ctc_loss(tf.SparseTensor([[0, 0]], [1], [1, 1]), tf.zeros([2, 1, 3]), [5])"),
    ("ctc_neg_label", "tf.nn.ctc_loss(tf.SparseTensor([[0, 0]], [-1], [1, 1]), tf.zeros([2, 1, 3]), [2])"),
    ("ctc_batch_mismatch", "tf.nn.ctc_loss(tf.SparseTensor([[0, 0]], [1], [1, 1]), tf.zeros([2, 1, 3]), [2, 2])"),
    ("ctc_labels_batch_oob", "tf.nn.ctc_loss(tf.SparseTensor([[3, 0]], [1], [4, 1]), tf.zeros([2, 1, 3]), [2])"),
    ("ctc_greedy_seq_mismatch", "tf.nn.ctc_greedy_decoder(tf.zeros([2, 1, 3]), [2, 2])[1]"),
    ("ctc_greedy_seq_gt_time", "tf.nn.ctc_greedy_decoder(tf.zeros([2, 1, 3]), [5])[1]"),
    ("ctc_beam_width0", "tf.nn.ctc_beam_search_decoder(tf.zeros([2, 1, 3]), [2], beam_width=0)[1]"),
    (
        "ctc_beam_top_paths_gt_width",
        "tf.nn.ctc_beam_search_decoder(tf.zeros([2, 1, 3]), [2], beam_width=2, top_paths=3)[1]",
    ),
    ("in_top_k_neg_target", "tf.nn.in_top_k(tf.zeros([2, 3]), [-1, 0], 1)"),
    ("in_top_k_k_neg", "tf.nn.in_top_k(tf.zeros([2, 3]), [0, 0], -1)"),
    ("in_top_k_k_big", "tf.nn.in_top_k([[0.1, 0.9, 0.5]], [0], 7)"),
    ("in_top_k_rank1", "tf.nn.in_top_k(tf.zeros([3]), [0], 1)"),
    ("in_top_k_nan", f"tf.nn.in_top_k([[{NAN}, 1.0]], [1], 1)"),
    ("l2_normalize_axis_oob_runtime", f"tf.nn.l2_normalize(tf.ones([2, 3]), axis={PH}(5, []))"),
    ("moments_dup_axes", "tf.nn.moments(tf.ones([2, 3]), [0, 0])[1]"),
    ("moments_axes_oob_runtime", f"tf.nn.moments(tf.ones([2, 3]), {PH}([4], [1]))[0]"),
    (
        "batch_normalization_mismatch",
        "tf.nn.batch_normalization(tf.zeros([2, 3]), tf.zeros([4]), tf.ones([4]), None, None, 1e-3)",
    ),
    (
        "batch_normalization_neg_var",
        "tf.nn.batch_normalization(tf.ones([2]), tf.zeros([2]), -tf.ones([2]), None, None, 1e-3)",
    ),
    (
        "fused_bn_inference_no_mean",
        "tf.nn.fused_batch_norm(tf.zeros([1, 2, 2, 3]), tf.ones([3]), tf.zeros([3]), is_training=False)[0]",
    ),
    ("fused_bn_rank3", "tf.nn.fused_batch_norm(tf.zeros([2, 2, 3]), tf.ones([3]), tf.zeros([3]))[0]"),
    ("lrn_radius_huge", "tf.nn.lrn(tf.ones([1, 2, 2, 3]), depth_radius=2**30)"),
    ("lrn_rank3", "tf.nn.lrn(tf.ones([2, 2, 3]))"),
    ("softmax_rank0", "tf.nn.softmax(tf.constant(1.0))"),
    ("log_softmax_rank0", "tf.nn.log_softmax(tf.constant(1.0))"),
    ("softmax_empty", "tf.nn.softmax(tf.zeros([2, 0]))"),
    ("sigmoid_xent_mismatch", "tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([2]), logits=tf.zeros([3]))"),
    (
        "softmax_xent_rank0",
        "tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.constant(1.0), logits=tf.constant(1.0))",
    ),
    ("dropout_noise_shape_bad", "tf.nn.dropout(tf.ones([2, 3]), rate=0.5, noise_shape=[4, 3])"),
    ("relu_string", "tf.nn.relu(tf.constant(['a']))"),
    ("avg_pool3d_stride0", "tf.nn.avg_pool3d(tf.zeros([1, 4, 4, 4, 1]), [1, 2, 2, 2, 1], [1, 0, 1, 1, 1], 'VALID')"),
    ("dilation2d_mismatch", f"tf.nn.dilation2d({IMG}, tf.zeros([2, 2, 3]), [1, 1, 1, 1], [1, 1, 1, 1], 'SAME')"),
    ("max_pool_bad_format", f"tf.nn.max_pool({IMG}, [1, 2, 2, 1], [1, 1, 1, 1], 'VALID', data_format='NWHC')"),
    ("sufficient_statistics_oob", "tf.nn.sufficient_statistics(tf.ones([2, 3]), [7])[1]"),
    # control flow
    ("while_wrong_structure", "tf.while_loop(lambda i: i < 3, lambda i: (i + 1, i), [tf.constant(0)])"),
    ("while_changes_dtype", "tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32) + 1, [tf.constant(0)])"),
    ("while_changes_shape", "tf.while_loop(lambda x: tf.size(x) < 8, lambda x: tf.concat([x, x], 0), [tf.ones([1])])"),
    ("while_cond_not_bool", "tf.while_loop(lambda i: i, lambda i: i - 1, [tf.constant(3)])"),
    (
        "while_cond_non_scalar_runtime",
        f"tf.while_loop(lambda i: {PH}([True, False], [None]), lambda i: i + 1, [tf.constant(0)])",
    ),
    ("while_body_none", "tf.while_loop(lambda i: i < 3, lambda i: None, [tf.constant(0)])"),
    ("cond_int_pred", "tf.cond(tf.constant(1), lambda: tf.constant(1), lambda: tf.constant(2))"),
    (
        "cond_pred_vector_runtime",
        f"tf.cond({PH}([True, False], [None]), lambda: tf.constant(1), lambda: tf.constant(2))",
    ),
    (
        "cond_structure_mismatch",
        "tf.cond(tf.constant(True), lambda: (tf.constant(1), tf.constant(2)), lambda: tf.constant(3))",
    ),
    ("cond_dtype_mismatch", "tf.cond(tf.constant(True), lambda: tf.constant(1), lambda: tf.constant(2.0))"),
    ("cond_not_callable", "tf.cond(tf.constant(True), 1, lambda: tf.constant(2))"),
    (
        "case_all_false_no_default",
        f"tf.case([({PH}(False, []), lambda: tf.constant(1)), ({PH}(False, []), lambda: tf.constant(2))])",
    ),
    (
        "case_exclusive_two_true",
        f"tf.case([({PH}(True, []), lambda: tf.constant(1)), ({PH}(True, []), lambda: tf.constant(2))], default=lambda: tf.constant(3), exclusive=True)",
    ),
    ("case_not_callable", "tf.case([(tf.constant(True), 1)], default=lambda: tf.constant(3))"),
    ("case_pred_not_bool", "tf.case([(tf.constant(1), lambda: tf.constant(1))], default=lambda: tf.constant(3))"),
    ("map_fn_empty", "tf.map_fn(lambda x: x * 2, tf.zeros([0]))"),
    ("map_fn_mismatched_elems", "tf.map_fn(lambda x: x[0] + x[1], (tf.zeros([2]), tf.zeros([3])), dtype=tf.float32)"),
    (
        "map_fn_mismatched_elems_runtime",
        f"tf.map_fn(lambda x: x[0] + x[1], ({PH}(tf.zeros([2]), [None]), tf.zeros([3])), dtype=tf.float32)",
    ),
    ("map_fn_dtype_unsaid", "tf.map_fn(lambda x: tf.cast(x, tf.int32), tf.zeros([2]))"),
    ("map_fn_rank0", "tf.map_fn(lambda x: x, tf.constant(1.0))"),
    ("scan_empty_no_init", "tf.scan(lambda a, x: a + x, tf.zeros([0]))"),
    ("scan_structure_mismatch", "tf.scan(lambda a, x: (a, x), tf.zeros([3]), initializer=tf.constant(0.0))"),
    ("foldl_empty", "tf.foldl(lambda a, x: a + x, tf.zeros([0]))"),
    ("ta_write_twice", "tf.TensorArray(tf.float32, 2).write(0, 1.0).write(0, 2.0).stack()"),
    ("ta_write_oob", "tf.TensorArray(tf.float32, 2).write(5, 1.0).stack()"),
    ("ta_write_neg", "tf.TensorArray(tf.float32, 2, dynamic_size=True).write(-1, 1.0).stack()"),
    ("ta_stack_empty_size0", "tf.TensorArray(tf.float32, 0).stack()"),
    ("ta_write_wrong_dtype", "tf.TensorArray(tf.float32, 2).write(0, tf.constant(1)).stack()"),
    (
        "ta_inconsistent_shapes",
        f"tf.TensorArray(tf.float32, 2, infer_shape=False).write(0, tf.zeros([2])).write(1, {PH}(tf.zeros([3]), [None])).stack()",
    ),
    ("ta_unstack_size_mismatch", "tf.TensorArray(tf.float32, 2).unstack(tf.zeros([3])).stack()"),
    ("ta_gather_oob", "tf.TensorArray(tf.float32, 2).unstack(tf.zeros([2])).gather([0, 4])"),
    ("ta_scatter_oob", "tf.TensorArray(tf.float32, 2).scatter([0, 4], tf.zeros([2])).stack()"),
    ("ta_concat_scalars", "tf.TensorArray(tf.float32, 2).unstack(tf.zeros([2])).concat()"),
    ("ta_read_unwritten", "tf.TensorArray(tf.float32, 2).write(0, 1.0).read(1)"),
    ("ta_split_bad_lengths", "tf.TensorArray(tf.float32, 2).split(tf.zeros([3]), [1, 1]).stack()"),
    (
        "stack_push_wrong_dtype",
        (
            "exec:s = tf.raw_ops.StackV2(max_size=-1, elem_type=tf.float32)\n"
            "fetches = tf.raw_ops.StackPushV2(handle=s, elem=tf.constant(1))"
        ),
    ),
    (
        "stack_pop_empty",
        (
            "exec:s = tf.raw_ops.StackV2(max_size=-1, elem_type=tf.float32)\n"
            "fetches = tf.raw_ops.StackPopV2(handle=s, elem_type=tf.float32)"
        ),
    ),
    ("queue_enqueue_wrong_dtype", QUEUE + "fetches = q.enqueue(tf.constant(1))"),
    ("queue_enqueue_wrong_shape", QUEUE + "fetches = q.enqueue(tf.zeros([2]))"),
    (
        "queue_enqueue_wrong_shape_runtime",
        QUEUE + f"fetches = q.enqueue({PH}(tf.zeros([2]), [None]))",
    ),
    (
        "queue_dequeue_many_over_capacity",
        QUEUE + "opts = tf.RunOptions(timeout_in_ms=300)\n"
        "sess.run(q.enqueue(1.0))\nout = sess.run(q.dequeue_many(5), options=opts)",
    ),
    ("queue_dequeue_closed_empty", QUEUE + "sess.run(q.close())\nout = sess.run(q.dequeue())"),
    ("queue_enqueue_closed", QUEUE + "sess.run(q.close())\nout = sess.run(q.enqueue(1.0))"),
    ("queue_dequeue_many_neg", QUEUE + f"fetches = q.dequeue_many({PH}(-1, []))"),
    (
        "queue_capacity_zero_timeout",
        "exec:q = tf.FIFOQueue(0, tf.float32, shapes=[[]])\nout = sess.run(q.enqueue(1.0), options=tf.RunOptions(timeout_in_ms=300))",
    ),
    ("padding_queue_no_shapes", "tf.PaddingFIFOQueue(2, tf.float32).size()"),
    ("random_shuffle_queue_min_gt_cap", "tf.RandomShuffleQueue(2, 5, tf.float32, shapes=[[]]).size()"),
    # variables
    ("assign_shape_mismatch", "tf.assign(tf.Variable(tf.zeros([2])), tf.zeros([3]))"),
    (
        "assign_shape_mismatch_runtime",
        f"exec:v = tf.Variable(tf.zeros([2]))\nsess.run(v.initializer)\nfetches = tf.assign(v, {PH}(tf.zeros([3]), None))",
    ),
    (
        "assign_no_validate",
        (
            "exec:v = tf.Variable(tf.zeros([2]), validate_shape=False)\nsess.run(v.initializer)\n"
            "fetches = tf.assign(v, tf.ones([3]), validate_shape=False)"
        ),
    ),
    ("assign_add_mismatch", "tf.assign_add(tf.Variable(tf.zeros([2])), tf.zeros([3]))"),
    ("assign_dtype_mismatch", "tf.assign(tf.Variable(tf.zeros([2])), tf.zeros([2], tf.int32))"),
    (
        "scatter_update_oob",
        "exec:v = tf.Variable(tf.zeros([3]))\nsess.run(v.initializer)\nfetches = tf.scatter_update(v, [5], [1.0])",
    ),
    (
        "scatter_update_neg",
        "exec:v = tf.Variable(tf.zeros([3]))\nsess.run(v.initializer)\nfetches = tf.scatter_update(v, [-1], [1.0])",
    ),
    (
        "scatter_add_shape_mismatch",
        "exec:v = tf.Variable(tf.zeros([3, 2]))\nsess.run(v.initializer)\nfetches = tf.scatter_add(v, [0], tf.ones([1, 3]))",
    ),
    (
        "scatter_nd_update_var_oob",
        "exec:v = tf.Variable(tf.zeros([3]))\nsess.run(v.initializer)\nfetches = tf.scatter_nd_update(v, [[7]], [1.0])",
    ),
    (
        "resource_scatter_update_oob",
        (
            "exec:v = tf.Variable(tf.zeros([3]), use_resource=True)\nsess.run(v.initializer)\n"
            "fetches = tf.scatter_update(v, [5], [1.0])"
        ),
    ),
    ("partitioner_zero", "tf.get_variable('v', [4], partitioner=tf.fixed_size_partitioner(0))"),
    (
        "get_variable_reuse_missing",
        "exec:with tf.variable_scope('s', reuse=True):\n    fetches = tf.get_variable('v', [2])",
    ),
    ("get_variable_twice", "exec:tf.get_variable('v', [2])\nfetches = tf.get_variable('v', [2])"),
    (
        "get_variable_reuse_shape",
        (
            "exec:tf.get_variable('v', [2])\nwith tf.variable_scope(tf.get_variable_scope(), reuse=True):\n"
            "    fetches = tf.get_variable('v', [3])"
        ),
    ),
    ("get_variable_no_shape", "tf.get_variable('v')"),
    ("variable_uninitialized", "tf.Variable(tf.zeros([2])) + 1.0"),
    ("variable_none_initial", "tf.Variable(None)"),
    # tf.data
    ("data_batch0", ITER.format("tf.data.Dataset.range(3).batch(0)")),
    ("data_batch_neg", ITER.format(f"tf.data.Dataset.range(3).batch({PH}(tf.constant(-2, tf.int64), []))")),
    ("data_shuffle0", ITER.format("tf.data.Dataset.range(3).shuffle(0)")),
    ("data_take_neg", ITER.format("tf.data.Dataset.range(3).take(-2).batch(10)")),
    ("data_skip_neg", ITER.format("tf.data.Dataset.range(3).skip(-1).batch(10)")),
    (
        "data_padded_batch_small",
        ITER.format("tf.data.Dataset.range(3).map(lambda x: tf.fill([x + 1], x)).padded_batch(3, padded_shapes=[1])"),
    ),
    (
        "data_padded_batch_rank",
        ITER.format(
            "tf.data.Dataset.range(3).map(lambda x: tf.fill([x + 1], x)).padded_batch(3, padded_shapes=[1, 1])"
        ),
    ),
    (
        "data_padded_batch0",
        ITER.format("tf.data.Dataset.range(3).map(lambda x: tf.fill([x + 1], x)).padded_batch(0, [3])"),
    ),
    (
        "data_generator_wrong_dtype",
        ITER.format("tf.data.Dataset.from_generator(lambda: iter(['x']), tf.int64)"),
    ),
    (
        "data_generator_wrong_shape",
        ITER.format("tf.data.Dataset.from_generator(lambda: iter([[1, 2, 3]]), tf.int64, tf.TensorShape([2]))"),
    ),
    ("data_generator_raises", ITER.format("tf.data.Dataset.from_generator(lambda: iter([1 / 0]), tf.float32)")),
    (
        "data_interleave_cycle0",
        ITER.format("tf.data.Dataset.range(3).interleave(lambda x: tf.data.Dataset.range(x), cycle_length=0)"),
    ),
    (
        "data_interleave_block0",
        ITER.format(
            "tf.data.Dataset.range(3).interleave(lambda x: tf.data.Dataset.range(x), cycle_length=1, block_length=0)"
        ),
    ),
    ("data_prefetch_neg", ITER.format("tf.data.Dataset.range(3).prefetch(-5)")),
    ("data_window0", "tf.data.Dataset.range(3).window(0)"),
    ("data_shard0", ITER.format("tf.data.Dataset.range(3).shard(0, 0)")),
    ("data_shard_index_big", ITER.format("tf.data.Dataset.range(3).shard(2, 5)")),
    ("data_range_step0", ITER.format("tf.data.Dataset.range(0, 10, 0)")),
    ("data_slices_mismatch", ITER.format("tf.data.Dataset.from_tensor_slices((tf.zeros([2]), tf.zeros([3])))")),
    ("data_slices_scalar", ITER.format("tf.data.Dataset.from_tensor_slices(tf.constant(1.0))")),
    ("data_unbatch_scalars", ITER.format("tf.data.Dataset.range(3).unbatch()")),
    ("data_past_end", "exec:n = " + ITER.format("tf.data.Dataset.range(1)") + "\nsess.run(n)\nout = sess.run(n)"),
    ("data_text_line_missing", ITER.format("tf.data.TextLineDataset('/nonexistent_xyz/a.txt')")),
    ("data_tfrecord_missing", ITER.format("tf.data.TFRecordDataset('/nonexistent_xyz/a.tfrecord')")),
    (
        "data_csv_wrong_defaults",
        "exec:open('/tmp/bx2_sweep.csv', 'w').write('a,b\\n1,2\\n')\n"
        "fetches = "
        + ITER.format("tf.data.experimental.CsvDataset('/tmp/bx2_sweep.csv', [[0], [0], [0]], header=True)"),
    ),
    (
        "data_make_csv_bad_column",
        "exec:open('/tmp/bx2_sweep.csv', 'w').write('a,b\\n1,2\\n')\n"
        "fetches = "
        + ITER.format("tf.data.experimental.make_csv_dataset('/tmp/bx2_sweep.csv', 1, select_columns=['zz'])"),
    ),
    (
        "data_make_csv_bad_label",
        "exec:open('/tmp/bx2_sweep.csv', 'w').write('a,b\\n1,2\\n')\n"
        "fetches = " + ITER.format("tf.data.experimental.make_csv_dataset('/tmp/bx2_sweep.csv', 1, label_name='zz')"),
    ),
    (
        "data_tfrecord_corrupt",
        "exec:open('/tmp/bx2_sweep.tfrecord', 'wb').write(b'\\x05\\x00\\x00\\x00\\x00\\x00\\x00\\x00garbagegarbage')\n"
        "fetches = " + ITER.format("tf.data.TFRecordDataset('/tmp/bx2_sweep.tfrecord')"),
    ),
    # strings
    ("unicode_decode_replace", "tf.strings.unicode_decode(b'a\\xffb', 'UTF-8', errors='replace')"),
    ("unicode_encode_bad_codepoint", "tf.strings.unicode_encode([0x110000], 'UTF-8', errors='strict')"),
    ("unicode_encode_neg_codepoint", "tf.strings.unicode_encode([-5], 'UTF-8', errors='strict')"),
    ("unicode_decode_bad_encoding", "tf.strings.unicode_decode(b'a', 'UTF-9')"),
    ("unicode_transcode_strict", "tf.strings.unicode_transcode(b'a\\xff', 'UTF-8', 'UTF-16-BE', errors='strict')"),
    ("string_to_hash_bucket0", "tf.strings.to_hash_bucket('a', 0)"),
    ("string_to_hash_bucket_strong_key", "tf.strings.to_hash_bucket_strong('a', 4, [1])"),
    ("string_to_hash_bucket_neg", "tf.string_to_hash_bucket('a', -3)"),
    ("decode_base64_one_char", "tf.io.decode_base64('a')"),
    ("decode_base64_bad_pad", "tf.io.decode_base64('ab=c')"),
    ("decode_base64_std_alphabet", "tf.io.decode_base64('ab+/')"),
    ("string_format_too_many", "tf.strings.format('{}', [tf.constant(1), tf.constant(2)])"),
    ("string_format_bad_placeholder", "tf.strings.format('{x}', [tf.constant(1)])"),
    ("strings_length_bad_unit", "tf.strings.length('a', unit='WORD')"),
    ("strings_ngrams_width0", "tf.strings.ngrams(['a', 'b'], 0)"),
    ("reduce_join_axis_oob_runtime", f"tf.strings.reduce_join(['a', 'b'], axis={PH}(3, []))"),
    # quantization / numerics
    ("fake_quant_min_gt_max", "tf.quantization.fake_quant_with_min_max_args(tf.zeros([2]), min=1.0, max=-1.0)"),
    ("fake_quant_bits0", "tf.quantization.fake_quant_with_min_max_args(tf.zeros([2]), num_bits=0)"),
    ("fake_quant_bits17", "tf.quantization.fake_quant_with_min_max_args(tf.zeros([2]), num_bits=17)"),
    ("fake_quant_vars_min_gt_max", "tf.quantization.fake_quant_with_min_max_vars(tf.ones([2]), 1.0, -1.0)"),
    ("fake_quant_vars_bits17", "tf.quantization.fake_quant_with_min_max_vars(tf.ones([2]), -1.0, 1.0, num_bits=17)"),
    (
        "fake_quant_per_channel_mismatch",
        "tf.quantization.fake_quant_with_min_max_vars_per_channel(tf.ones([2, 3]), [-1.0, -1.0], [1.0, 1.0])",
    ),
    ("fake_quant_nan_range", f"tf.quantization.fake_quant_with_min_max_vars(tf.ones([2]), {NAN}, 1.0)"),
    ("quantize_bad_mode", "tf.quantization.quantize(tf.zeros([2]), 0.0, 1.0, tf.quint8, mode='WHAT')[0]"),
    ("dequantize_min_gt_max", "tf.quantization.dequantize(tf.zeros([2], tf.quint8), 1.0, 0.0)"),
    ("check_numerics_inf", f"tf.debugging.check_numerics({PH}(float('inf'), []), 'msg')"),
    ("check_numerics_int", "tf.debugging.check_numerics(tf.constant(1), 'msg')"),
    ("clip_by_value_min_gt_max", "tf.clip_by_value([0.0, 5.0, 10.0], 8.0, 2.0)"),
    ("clip_by_norm_neg", "tf.clip_by_norm([3.0, 4.0], -1.0)"),
    ("clip_by_norm_axes_oob", "tf.clip_by_norm(tf.ones([2, 3]), 1.0, axes=[5])"),
    ("clip_by_global_norm_nan", f"tf.clip_by_global_norm([tf.constant([{NAN}, 1.0])], 1.0)[0]"),
    ("clip_by_global_norm_not_list", "tf.clip_by_global_norm(tf.constant([1.0]), 1.0)[0]"),
    ("verify_finite_nan", f"tf.verify_tensor_all_finite({PH}([{NAN}], [1]), 'msg')"),
    # session
    ("session_fetch_int", "exec:tf.constant(0)\nout = sess.run(5)"),
    ("session_fetch_none", "exec:tf.constant(0)\nout = sess.run(None)"),
    ("session_fetch_missing_name", "exec:tf.constant(0)\nout = sess.run('nope:0')"),
    (
        "session_fetch_other_graph",
        "exec:tf.constant(0)\nt = tf.Graph()\nwith t.as_default():\n    x = tf.constant(1)\nout = sess.run(x)",
    ),
    (
        "session_feed_wrong_shape",
        "exec:p = tf.placeholder(tf.float32, [None, 3])\nout = sess.run(p * 2, {p: np.zeros([2, 4])})",
    ),
    ("session_feed_string_to_float", "exec:p = tf.placeholder(tf.float32, [])\nout = sess.run(p * 2, {p: 'abc'})"),
    (
        "session_feed_ragged",
        "exec:p = tf.placeholder(tf.float32, [None])\nout = sess.run(p * 2, {p: [[1.0], [1.0, 2.0]]})",
    ),
    (
        "session_feed_other_graph",
        "exec:t = tf.Graph()\nwith t.as_default():\n    x = tf.placeholder(tf.float32)\nout = sess.run(tf.constant(1), {x: 1.0})",
    ),
    ("session_unfed_placeholder", "exec:p = tf.placeholder(tf.float32, [])\nout = sess.run(p * 2)"),
    ("session_run_after_close", "exec:x = tf.constant(1)\nsess.close()\nout = sess.run(x)"),
    (
        "session_fetch_op_and_feed_int_to_bool",
        "exec:p = tf.placeholder(tf.bool, [])\nout = sess.run(tf.logical_not(p), {p: 3.5})",
    ),
    (
        "partial_run_unsetup_fetch",
        (
            "exec:a = tf.placeholder(tf.float32, [])\nb = a * 2\nc = a * 3\nh = sess.partial_run_setup([b], [a])\n"
            "out = sess.partial_run(h, c, {a: 1.0})"
        ),
    ),
    (
        "partial_run_unsetup_feed",
        (
            "exec:a = tf.placeholder(tf.float32, [])\nz = tf.placeholder(tf.float32, [])\nb = a * 2\n"
            "h = sess.partial_run_setup([b], [a])\nout = sess.partial_run(h, b, {z: 1.0, a: 1.0})"
        ),
    ),
    (
        "partial_run_twice_fetch",
        (
            "exec:a = tf.placeholder(tf.float32, [])\nb = a * 2\nh = sess.partial_run_setup([b], [a])\n"
            "sess.partial_run(h, b, {a: 1.0})\nout = sess.partial_run(h, b)"
        ),
    ),
    (
        "partial_run_bad_handle",
        "exec:a = tf.placeholder(tf.float32, [])\nout = sess.partial_run('nope', a * 2, {a: 1.0})",
    ),
]

CASES_S21 += [
    # nn (more)
    ("conv1d_transpose_bad_out", "tf.nn.conv1d_transpose(tf.zeros([1, 4, 1]), tf.zeros([2, 1, 1]), [1, 99, 1], 2)"),
    ("pool_bad_type", "tf.nn.pool(tf.zeros([1, 4, 4, 1]), [2, 2], 'MEDIAN', 'VALID')"),
    ("pool_window_rank_mismatch", "tf.nn.pool(tf.zeros([1, 4, 4, 1]), [2], 'MAX', 'VALID')"),
    (
        "embedding_lookup_sparse_oob",
        "tf.nn.embedding_lookup_sparse(tf.zeros([3, 2]), tf.SparseTensor([[0, 0]], tf.constant([7], tf.int64), [1, 1]), None)",
    ),
    (
        "nce_loss_bad_classes",
        "tf.nn.nce_loss(tf.zeros([4, 3]), tf.zeros([4]), tf.zeros([2, 2]), tf.zeros([1, 1], tf.int64), 1, 4)",
    ),
    (
        "sampled_softmax_num_sampled_big",
        "tf.nn.sampled_softmax_loss(tf.zeros([4, 3]), tf.zeros([4]), tf.zeros([2, 3]), tf.zeros([2, 1], tf.int64), 10, 4)",
    ),
    ("weighted_moments_mismatch", "tf.nn.weighted_moments(tf.ones([2, 3]), [0], tf.ones([4]))[0]"),
    ("normalize_moments_neg_counts", "tf.nn.normalize_moments(-1.0, tf.ones([2]), tf.ones([2]), None)[1]"),
    ("log_poisson_mismatch", "tf.nn.log_poisson_loss(tf.zeros([2]), tf.zeros([3]))"),
    ("ctc_unique_labels_rank1", "tf.nn.ctc_unique_labels(tf.zeros([3], tf.int32))[0]"),
    # math (more)
    ("betainc_mismatch", "tf.math.betainc(tf.ones([2]), tf.ones([3]), tf.ones([2]))"),
    ("igamma_negative", "tf.math.igamma(-1.0, 1.0)"),
    ("polyval_not_list", "tf.math.polyval(tf.ones([3]), 2.0)"),
    ("reduce_euclidean_norm_oob", "tf.math.reduce_euclidean_norm(tf.ones([2]), axis=4)"),
    ("segment_max_nan", f"tf.math.segment_max([{NAN}, 1.0], [0, 0])"),
    ("unsorted_segment_prod_neg_num", f"tf.math.unsorted_segment_prod([1.0], [0], {PH}(-3, []))"),
    ("cumprod_axis_oob", "tf.math.cumprod(tf.ones([2]), axis=3)"),
    ("bessel_int", "tf.math.bessel_i0e(tf.constant([1]))"),
    ("zeta_mismatch", "tf.math.zeta(tf.ones([2]), tf.ones([3]))"),
    ("count_nonzero_axis_oob", "tf.count_nonzero(tf.ones([2]), axis=3)"),
    ("accumulate_n_mismatch", "tf.math.accumulate_n([tf.ones([2]), tf.ones([3])])"),
    ("add_n_empty", "tf.add_n([])"),
    ("matmul_int_float", "tf.matmul(tf.ones([2, 2]), tf.ones([2, 2], tf.int32))"),
    ("reduce_mean_int_empty", "tf.reduce_mean(tf.zeros([0], tf.int32))"),
    ("reduce_prod_axis_dup_runtime", f"tf.reduce_prod(tf.ones([2, 3]), {PH}([1, 1], [2]))"),
    ("truediv_int_zero", f"tf.truediv({PH}(7, []), 0)"),
    # array (more)
    ("searchsorted_rank_mismatch", "tf.searchsorted(tf.zeros([2, 3]), tf.zeros([3, 2]))"),
    ("searchsorted_scalar", "tf.searchsorted(tf.constant(1.0), tf.constant(1.0))"),
    ("sequence_mask_huge", f"tf.sequence_mask([1], {PH}(2**40, tf.int64))"),
    ("boolean_mask_axis_oob", "tf.boolean_mask(tf.zeros([2, 3]), [True, False], axis=5)"),
    ("boolean_mask_scalar_mask", "tf.boolean_mask(tf.zeros([2]), True)"),
    ("roll_huge_shift", "tf.roll(tf.range(5), 2**62, 0)"),
    ("roll_shift_axis_mismatch", "tf.roll(tf.zeros([2, 3]), [1, 2], [0])"),
    ("gather_nd_batch_dims_big", "tf.gather_nd(tf.zeros([2, 3]), [[0]], batch_dims=3)"),
    ("unique_with_counts_rank2", "tf.unique_with_counts(tf.zeros([2, 2]))[0]"),
    ("matrix_diag_k_bad", "tf.linalg.diag(tf.zeros([3]), k=(2, 1))"),
    (
        "extract_volume_patches_stride0",
        "tf.extract_volume_patches(tf.zeros([1, 4, 4, 4, 1]), [1, 2, 2, 2, 1], [1, 0, 1, 1, 1], 'VALID')",
    ),
    ("batch_gather_mismatch", "tf.batch_gather(tf.zeros([2, 3]), tf.zeros([3, 1], tf.int32))"),
    (
        "edit_distance_rank_mismatch",
        "tf.edit_distance(tf.SparseTensor([[0, 0]], ['a'], [1, 1]), tf.SparseTensor([[0, 0, 0]], ['a'], [1, 1, 1]))",
    ),
    (
        "sets_intersection_rank_mismatch",
        "tf.sets.intersection(tf.zeros([2, 2], tf.int32), tf.zeros([2, 2, 2], tf.int32)).values",
    ),
    ("meshgrid_bad_indexing", "tf.meshgrid([1, 2], [3], indexing='zz')"),
    ("shape_n_empty", "tf.shape_n([])"),
    ("reverse_sequence_batch_mismatch", "tf.reverse_sequence(tf.zeros([2, 3]), [1, 1, 1], 1, 0)"),
    ("quantized_concat_missing", "tf.concat([], 0)"),
    ("fill_string_huge", f"tf.fill({PH}([2**31, 2**31], [2]), 'a')"),
    ("where_one_arg_empty", "tf.where(tf.zeros([0, 3], tf.bool))"),
    # random (more)
    ("categorical_nan_logits", f"tf.random.categorical([[{NAN}, 1.0]], 3)"),
    ("categorical_neg_samples", f"tf.random.categorical([[0.0, 1.0]], {PH}(-2, []))"),
    ("poisson_neg_lam", "tf.random.poisson(-1.0, [3], seed=1)"),
    ("stateless_uniform_bad_seed", "tf.random.stateless_uniform([2], seed=[1, 2, 3])"),
    ("gamma_neg_alpha", "tf.random.gamma([2], -1.0, seed=1)"),
    ("random_normal_neg_std", "tf.reduce_all(tf.is_finite(tf.random_normal([3], stddev=-1.0, seed=1)))"),
    ("random_uniform_int_no_max", "tf.random_uniform([2], 0, dtype=tf.int32)"),
    ("random_uniform_min_gt_max_int", "tf.random_uniform([2], 5, 1, dtype=tf.int32)"),
    # image (more)
    (
        "sample_distorted_bbox_bad_boxes",
        "tf.image.sample_distorted_bounding_box([4, 4, 1], tf.zeros([1, 1, 3]), seed=1)[0]",
    ),
    (
        "sample_distorted_bbox_bad_area",
        "tf.image.sample_distorted_bounding_box([4, 4, 1], tf.zeros([1, 0, 4]), area_range=[2.0, 0.5], use_image_if_no_bounding_boxes=True, seed=1)[0]",
    ),
    ("random_flip_rank1", "tf.image.random_flip_left_right(tf.zeros([3]), seed=1)"),
    ("resize_with_pad_neg", "tf.image.resize_image_with_pad(tf.zeros([4, 4, 1]), -2, 4)"),
    ("rgb_to_yuv_bad_channels", "tf.image.rgb_to_yuv(tf.zeros([2, 2, 2]))"),
    ("image_gradients_rank3", "tf.image.image_gradients(tf.zeros([4, 4, 1]))[0]"),
    ("crop_and_resize_huge_crop", f"tf.image.crop_and_resize({IMG}, {BOX}, [0], {PH}([2**20, 2**20], [2]))"),
    ("encode_png_bad_channels", "tf.image.encode_png(tf.zeros([2, 2, 5], tf.uint8))"),
    ("encode_jpeg_bad_quality", "tf.image.encode_jpeg(tf.zeros([2, 2, 3], tf.uint8), quality=500)"),
    ("convert_image_dtype_string", "tf.image.convert_image_dtype(tf.zeros([2]), tf.string)"),
    # lookup tables
    (
        "hash_table_dtype_mismatch",
        (
            "exec:t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(['a'], [1]), -1)\n"
            "sess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant([1]))"
        ),
    ),
    (
        "hash_table_mismatched_lengths",
        (
            "exec:t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(['a', 'b'], [1]), -1)\n"
            "sess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['a']))"
        ),
    ),
    (
        "index_table_duplicates",
        (
            "exec:t = tf.contrib.lookup.index_table_from_tensor(['a', 'a']) if hasattr(tf, 'contrib') else tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(['a', 'a'], [0, 1]), -1)\n"
            "sess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['a']))"
        ),
    ),
    (
        "hash_table_uninitialized",
        "exec:t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(['a'], [1]), -1)\nfetches = t.lookup(tf.constant(['a']))",
    ),
    # strings (more)
    ("strings_split_empty_input", "tf.strings.split(tf.constant([], tf.string)).values"),
    ("substr_bad_unit", "tf.strings.substr('abc', 0, 1, unit='WORD')"),
    ("unsorted_segment_join_neg_num", f"tf.strings.unsorted_segment_join(['a'], [0], {PH}(-1, []))"),
    ("to_number_empty", "tf.strings.to_number('')"),
    ("string_join_rank_mismatch_runtime", f"tf.strings.join([{PH}(['a', 'b'], [None]), ['a', 'b', 'c']])"),
    ("as_string_complex_fill", "tf.as_string(1.0, fill='ab')"),
    # sparse (more)
    ("sparse_softmax_rank1", "tf.sparse.softmax(tf.SparseTensor([[0]], [1.0], [2])).values"),
    ("sparse_transpose_bad_perm", "tf.sparse.transpose(tf.SparseTensor([[0, 0]], [1.0], [2, 2]), [0, 0]).values"),
    (
        "sparse_maximum_mismatch",
        "tf.sparse.maximum(tf.SparseTensor([[0, 0]], [1.0], [2, 2]), tf.SparseTensor([[0, 0]], [1.0], [3, 3])).values",
    ),
    ("sparse_retain_mismatch", "tf.sparse.retain(tf.SparseTensor([[0, 0]], [1.0], [2, 2]), [True, False]).values"),
    (
        "sparse_reset_shape_smaller",
        "tf.sparse.reset_shape(tf.SparseTensor([[1, 1]], [1.0], [2, 2]), [1, 1]).dense_shape",
    ),
    ("sparse_expand_dims_oob", "tf.sparse.expand_dims(tf.SparseTensor([[0, 0]], [1.0], [2, 2]), 5).values"),
    (
        "sparse_matmul_adjoint_mismatch",
        "tf.sparse.sparse_dense_matmul(tf.SparseTensor([[0, 0]], [1.0], [2, 3]), tf.zeros([2, 2]), adjoint_a=False)",
    ),
    ("sparse_segment_sqrt_n_oob", "tf.sparse.segment_sqrt_n(tf.zeros([3, 2]), [0, 9], [0, 0])"),
    ("sparse_tensor_neg_shape", "tf.sparse.to_dense(tf.SparseTensor([[0, 0]], [1.0], [-2, 2]))"),
    (
        "sparse_cross_bad",
        "tf.sparse.cross([tf.SparseTensor([[0, 0]], ['a'], [1, 1]), tf.SparseTensor([[5, 0]], ['b'], [1, 1])]).values",
    ),
    # gradients / optimizers
    ("gradients_int", "tf.gradients(tf.constant(1) * 2, tf.constant(1))"),
    (
        "gradients_grad_ys_shape",
        "exec:x = tf.constant([1.0, 2.0])\nfetches = tf.gradients(x * 2, x, grad_ys=tf.ones([3]))",
    ),
    ("minimize_no_variables", "tf.train.GradientDescentOptimizer(0.1).minimize(tf.constant(1.0))"),
    (
        "apply_gradients_none",
        "exec:v = tf.Variable(1.0)\nfetches = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(None, v)])",
    ),
    ("minimize_int_loss", "exec:v = tf.Variable(1)\nfetches = tf.train.GradientDescentOptimizer(0.1).minimize(v * 2)"),
    ("adam_bad_epsilon_type", "exec:v = tf.Variable(1.0)\nfetches = tf.train.AdamOptimizer('x').minimize(v * v)"),
    ("saver_no_variables", "tf.train.Saver()"),
    (
        "saver_dup_names",
        "exec:v = tf.Variable(1.0)\nfetches = tf.train.Saver({'a': v, 'b': v}).saver_def.filename_tensor_name",
    ),
    (
        "saver_save_missing_dir",
        "exec:v = tf.Variable(1.0)\nsess.run(v.initializer)\nout = tf.train.Saver().save(sess, tmp('no_such_dir/dir/model'))",
    ),
    (
        "saver_restore_missing",
        "exec:v = tf.Variable(1.0)\nout = tf.train.Saver().restore(sess, '/nonexistent_xyz/model')",
    ),
    # summaries
    ("summary_scalar_non_scalar", f"tf.summary.scalar('s', {PH}(tf.zeros([2]), None))"),
    ("summary_image_rank3", "tf.summary.image('i', tf.zeros([4, 4, 3]))"),
    ("summary_histogram_nan", f"tf.summary.histogram('h', {PH}([{NAN}], [1]))"),
    ("summary_audio_bad_rate", f"tf.summary.audio('a', tf.zeros([1, 10]), {PH}(-5.0, []))"),
    ("summary_merge_bad", "tf.summary.merge([tf.constant('garbage')])"),
    # metrics / losses / layers
    ("metrics_accuracy_mismatch", "tf.metrics.accuracy(tf.zeros([2]), tf.zeros([3]))[1]"),
    (
        "metrics_auc_out_of_range",
        "exec:v, u = tf.metrics.auc([1, 0], [1.5, -0.5])\nsess.run(tf.local_variables_initializer())\nfetches = u",
    ),
    ("metrics_auc_thresholds1", "tf.metrics.auc([1, 0], [0.5, 0.5], num_thresholds=1)[1]"),
    ("losses_mse_mismatch", "tf.losses.mean_squared_error(tf.zeros([2]), tf.zeros([3]))"),
    ("losses_bad_weights", "tf.losses.mean_squared_error(tf.zeros([2, 3]), tf.zeros([2, 3]), weights=tf.ones([4]))"),
    ("losses_sparse_xent_oob", "tf.losses.sparse_softmax_cross_entropy([5], tf.zeros([1, 3]))"),
    ("layers_dense_rank1", "tf.layers.dense(tf.zeros([3]), 2)"),
    ("layers_dense_units0", "tf.layers.dense(tf.zeros([2, 3]), 0)"),
    ("layers_dense_units_neg", "tf.layers.dense(tf.zeros([2, 3]), -2)"),
    ("layers_conv2d_filters0", "tf.layers.conv2d(tf.zeros([1, 4, 4, 1]), 0, 2)"),
    ("layers_dropout_rate_big", "tf.layers.dropout(tf.zeros([3]), rate=1.5, training=True)"),
    ("layers_bn_axis_oob", "tf.layers.batch_normalization(tf.zeros([2, 3]), axis=5)"),
    ("layers_dense_unknown_last_dim", f"tf.layers.dense({PH}(tf.zeros([2, 3]), [None, None]), 2)"),
]

# Keras (tw.keras against tf_keras 2.21, the Keras of TF1 programs): `keras` is in scope in exec cases.
_K = "exec:L = keras.layers\n"
_SEQ = "exec:L = keras.layers\nm = keras.Sequential([L.Dense(2, input_shape=(3,))])\nm.compile('sgd', 'mse')\n"
CASES_S21 += [
    ("keras_dense_units0", _K + "out = L.Dense(0)(keras.Input((3,))).shape.as_list()"),
    ("keras_dense_units_neg", _K + "out = L.Dense(-2)(keras.Input((3,))).shape.as_list()"),
    ("keras_dense_units_float", _K + "out = L.Dense(2.5)(keras.Input((3,))).shape.as_list()"),
    ("keras_conv2d_kernel0", _K + "out = L.Conv2D(2, 0)(keras.Input((4, 4, 1))).shape.as_list()"),
    ("keras_conv2d_too_big_kernel", _K + "out = L.Conv2D(2, 9)(keras.Input((4, 4, 1))).shape.as_list()"),
    ("keras_conv2d_rank3_input", _K + "out = L.Conv2D(2, 2)(keras.Input((4, 4))).shape.as_list()"),
    ("keras_conv2d_bad_padding", _K + "out = L.Conv2D(2, 2, padding='what')(keras.Input((4, 4, 1))).shape.as_list()"),
    ("keras_reshape_bad", _K + "out = L.Reshape((5,))(keras.Input((4,))).shape.as_list()"),
    ("keras_reshape_two_unknown", _K + "out = L.Reshape((-1, -1))(keras.Input((4,))).shape.as_list()"),
    ("keras_concat_mismatch", _K + "out = L.Concatenate()([keras.Input((3, 2)), keras.Input((4, 2))]).shape.as_list()"),
    ("keras_add_mismatch", _K + "out = L.Add()([keras.Input((3,)), keras.Input((4,))]).shape.as_list()"),
    ("keras_dropout_rate_big", _K + "out = L.Dropout(1.5)(keras.Input((3,))).shape.as_list()"),
    ("keras_lstm_rank2", _K + "out = L.LSTM(2)(keras.Input((3,))).shape.as_list()"),
    ("keras_lstm_units0", _K + "out = L.LSTM(0)(keras.Input((3, 2))).shape.as_list()"),
    ("keras_embedding_dim0", _K + "out = L.Embedding(0, 2)(keras.Input((3,))).shape.as_list()"),
    ("keras_maxpool_too_big", _K + "out = L.MaxPooling2D(9)(keras.Input((4, 4, 1))).shape.as_list()"),
    ("keras_bn_axis_oob", _K + "out = L.BatchNormalization(axis=5)(keras.Input((3,))).shape.as_list()"),
    ("keras_input_neg_shape", "exec:out = keras.Input((-2,)).shape.as_list()"),
    ("keras_activation_unknown", _K + "out = L.Dense(2, activation='nope')(keras.Input((3,))).shape.as_list()"),
    (
        "keras_compile_bad_loss",
        _K + "m = keras.Sequential([L.Dense(2, input_shape=(3,))])\nm.compile('sgd', 'nope_loss')\nout = 1",
    ),
    (
        "keras_compile_bad_optimizer",
        _K + "m = keras.Sequential([L.Dense(2, input_shape=(3,))])\nm.compile('nope_opt', 'mse')\nout = 1",
    ),
    (
        "keras_fit_length_mismatch",
        _SEQ + "out = m.fit(np.zeros([4, 3]), np.zeros([5, 2]), verbose=0).history['loss'][0] * 0",
    ),
    (
        "keras_fit_wrong_feature_dim",
        _SEQ + "out = m.fit(np.zeros([4, 5]), np.zeros([4, 2]), verbose=0).history['loss'][0] * 0",
    ),
    (
        "keras_fit_wrong_target_dim",
        _SEQ + "out = m.fit(np.zeros([4, 3]), np.zeros([4, 7]), verbose=0).history['loss'][0] * 0",
    ),
    (
        "keras_fit_batch_size0",
        _SEQ + "out = m.fit(np.zeros([4, 3]), np.zeros([4, 2]), batch_size=0, verbose=0).history['loss'][0] * 0",
    ),
    ("keras_fit_empty", _SEQ + "out = m.fit(np.zeros([0, 3]), np.zeros([0, 2]), verbose=0).history"),
    ("keras_predict_wrong_shape", _SEQ + "out = m.predict(np.zeros([2, 4]))"),
    ("keras_predict_string", _SEQ + "out = m.predict(np.array([['a', 'b', 'c']]))"),
    (
        "keras_fit_validation_split_big",
        _SEQ + "out = m.fit(np.zeros([4, 3]), np.zeros([4, 2]), validation_split=1.5, verbose=0).history",
    ),
    (
        "keras_load_model_garbage",
        "exec:p = tmp('m.h5')\nopen(p, 'wb').write(b'\\x89HDF\\r\\n\\x1a\\n' + b'\\xff' * 64)\nout = keras.models.load_model(p)",
    ),
    ("keras_load_model_missing", "exec:out = keras.models.load_model(tmp('no_such_model.h5'))"),
    (
        "keras_load_weights_mismatch",
        _SEQ
        + "p = tmp('w.h5')\nm.save_weights(p)\nm2 = keras.Sequential([L.Dense(3, input_shape=(3,))])\nm2.load_weights(p)\nout = 1",
    ),
    ("keras_set_weights_wrong", _SEQ + "m.set_weights([np.zeros([3, 5]), np.zeros([2])])\nout = 1"),
    ("keras_model_from_json_garbage", "exec:out = keras.models.model_from_json('{not json')"),
]


# Malformed files (round 2): TFRecord files, event files, SavedModels and GraphDefs. These exec cases use the
# worker's helpers: record(data) is one TFRecord record, tmp(name) a scratch path, graph_def(text) imports a
# GraphDef in text format into the default graph.
_TFR = "exec:p = tmp('r.tfrecord')\nopen(p, 'wb').write({})\n"
_TWO = "record(b'hello') + record(b'world')"
_ITER = "out = list(tf.python_io.tf_record_iterator(p))"
_DS = "fetches = tf.data.make_one_shot_iterator(tf.data.TFRecordDataset(p).batch(10)).get_next()"
_HUGE = "struct.pack('<Q', {0}) + struct.pack('<I', masked_crc(struct.pack('<Q', {0}))) + b'abc'"
_SM = (
    "exec:d = tmp('sm')\nshutil.rmtree(d, ignore_errors=True)\n"
    "with tf.Graph().as_default() as g2, tf.Session(graph=g2) as s2:\n"
    "    v = tf.Variable([1.0, 2.0], name='v')\n    s2.run(v.initializer)\n"
    "    b = tf.saved_model.builder.SavedModelBuilder(d)\n    b.add_meta_graph_and_variables(s2, ['serve'])\n"
    "    b.save()\n"
)
_LOAD = "tf.saved_model.loader.load(sess, ['serve'], d)\nout = sess.run(tf.global_variables())"
_EVENTS = (
    "exec:d = tmp('ev')\nshutil.rmtree(d, ignore_errors=True)\nw = tf.summary.FileWriter(d)\n"
    "w.add_summary(tf.Summary(value=[tf.Summary.Value(tag='a', simple_value=1.0)]), 1)\nw.close()\n"
    "p = glob.glob(d + '/events.out*')[0]\n"
)
_SUMMARY = "out = [e.step for e in tf.train.summary_iterator(p)]"
_C = "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }"
_F = "attr { key: 'T' value { type: DT_FLOAT } }"


def _gd(text, fetch):
    return f"exec:graph_def({text!r})\nfetches = tf.get_default_graph().get_tensor_by_name({fetch!r})"


CASES_FILES = [
    ("tfrecord_iter_ok", _TFR.format(_TWO) + _ITER),
    ("tfrecord_iter_truncated", _TFR.format(f"({_TWO})[:-3]") + _ITER),
    ("tfrecord_iter_truncated_header", _TFR.format("record(b'hello') + b'\\x05\\x00\\x00'") + _ITER),
    ("tfrecord_iter_bad_data_crc", _TFR.format("record(b'hello')[:-6] + b'X' + record(b'hello')[-5:]") + _ITER),
    (
        "tfrecord_iter_bad_length_crc",
        _TFR.format("b'\\x05' + b'\\x00' * 7 + b'\\x00\\x00\\x00\\x00' + b'hello' * 2") + _ITER,
    ),
    ("tfrecord_iter_huge_length", _TFR.format(_HUGE.format(2**62)) + _ITER),
    ("tfrecord_iter_length_2_31", _TFR.format(_HUGE.format(2**31 + 5)) + _ITER),
    ("tfrecord_iter_empty_file", _TFR.format("b''") + _ITER),
    ("tfrecord_iter_missing", "exec:out = list(tf.python_io.tf_record_iterator(tmp('no_such_dir_w/r.tfrecord')))"),
    (
        "tfrecord_iter_gzip_of_plain",
        _TFR.format(_TWO)
        + "opt = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)\n"
        + "out = list(tf.python_io.tf_record_iterator(p, opt))",
    ),
    ("tfrecord_ds_ok", _TFR.format(_TWO) + _DS),
    ("tfrecord_ds_truncated", _TFR.format(f"({_TWO})[:-3]") + _DS),
    ("tfrecord_ds_bad_data_crc", _TFR.format("record(b'hello')[:-6] + b'X' + record(b'hello')[-5:]") + _DS),
    (
        "tfrecord_ds_bad_length_crc",
        _TFR.format("b'\\x05' + b'\\x00' * 7 + b'\\x00\\x00\\x00\\x00' + b'hello' * 2") + _DS,
    ),
    ("tfrecord_ds_huge_length", _TFR.format(_HUGE.format(2**62)) + _DS),
    ("tfrecord_ds_length_2_31", _TFR.format(_HUGE.format(2**31 + 5)) + _DS),
    ("tfrecord_ds_partial_header", _TFR.format("b'\\x05\\x00\\x00'") + _DS),
    (
        "tfrecord_ds_gzip_of_plain",
        _TFR.format(_TWO) + "fetches = tf.data.make_one_shot_iterator(tf.data.TFRecordDataset(p, 'GZIP')).get_next()",
    ),
    (
        "tfrecord_ds_zlib_garbage",
        _TFR.format("b'\\x78\\x9c' + b'\\xff' * 30")
        + "fetches = tf.data.make_one_shot_iterator(tf.data.TFRecordDataset(p, 'ZLIB')).get_next()",
    ),
    (
        "tfrecord_ds_bad_compression",
        _TFR.format(_TWO) + "fetches = tf.data.make_one_shot_iterator(tf.data.TFRecordDataset(p, 'LZMA')).get_next()",
    ),
    ("events_ok", _EVENTS + _SUMMARY),
    ("events_truncated", _EVENTS + "data = open(p, 'rb').read()\nopen(p, 'wb').write(data[:-7])\n" + _SUMMARY),
    ("events_garbage", "exec:p = tmp('events.out.garbage')\nopen(p, 'wb').write(b'\\xff' * 64)\n" + _SUMMARY),
    (
        "events_bad_proto",
        "exec:p = tmp('events.out.badproto')\nopen(p, 'wb').write(record(b'\\xff\\xff\\xff'))\n" + _SUMMARY,
    ),
    ("events_missing", "exec:out = [e.step for e in tf.train.summary_iterator('/nonexistent_xyz/events')]"),
    ("saved_model_ok", _SM + _LOAD),
    (
        "saved_model_truncated_pb",
        _SM
        + "pb = d + '/saved_model.pb'\ndata = open(pb, 'rb').read()\nopen(pb, 'wb').write(data[: len(data) // 2])\n"
        + _LOAD,
    ),
    ("saved_model_empty_pb", _SM + "open(d + '/saved_model.pb', 'wb').write(b'')\n" + _LOAD),
    ("saved_model_garbage_pb", _SM + "open(d + '/saved_model.pb', 'wb').write(b'\\xff' * 100)\n" + _LOAD),
    ("saved_model_no_variables", _SM + "shutil.rmtree(d + '/variables')\n" + _LOAD),
    (
        "saved_model_garbage_variables",
        _SM + "for f in glob.glob(d + '/variables/*'):\n    open(f, 'wb').write(b'\\xff' * 100)\n" + _LOAD,
    ),
    (
        "saved_model_truncated_variables",
        _SM + "for f in glob.glob(d + '/variables/*'):\n    data = open(f, 'rb').read()\n"
        "    open(f, 'wb').write(data[: len(data) // 2])\n" + _LOAD,
    ),
    (
        "saved_model_empty_variables",
        _SM + "for f in glob.glob(d + '/variables/*'):\n    open(f, 'wb').write(b'')\n" + _LOAD,
    ),
    ("saved_model_wrong_tags", _SM + "tf.saved_model.loader.load(sess, ['nope'], d)\nout = 1"),
    ("saved_model_missing_dir", "exec:tf.saved_model.loader.load(sess, ['serve'], '/nonexistent_xyz/sm')\nout = 1"),
    ("graph_def_ok", _gd(_C + " node { name: 'a' op: 'Neg' input: 'c' " + _F + " }", "a:0")),
    (
        "graph_def_cycle",
        _gd(
            _C + " node { name: 'a' op: 'Add' input: 'b' input: 'c' " + _F + " }"
            " node { name: 'b' op: 'Add' input: 'a' input: 'c' " + _F + " }",
            "a:0",
        ),
    ),
    ("graph_def_self_loop", _gd("node { name: 'a' op: 'Neg' input: 'a' " + _F + " }", "a:0")),
    ("graph_def_unknown_op", _gd("node { name: 'a' op: 'NoSuchOpXyz' }", "a:0")),
    ("graph_def_duplicate_names", _gd(_C + " " + _C, "c:0")),
    ("graph_def_missing_input", _gd("node { name: 'a' op: 'Neg' input: 'nope' " + _F + " }", "a:0")),
    ("graph_def_input_port_oob", _gd(_C + " node { name: 'a' op: 'Neg' input: 'c:5' " + _F + " }", "a:0")),
    ("graph_def_bad_input_syntax", _gd(_C + " node { name: 'a' op: 'Neg' input: 'c:x' " + _F + " }", "a:0")),
    ("graph_def_missing_attr", _gd(_C + " node { name: 'a' op: 'Neg' input: 'c' }", "a:0")),
    (
        "graph_def_wrong_type_attr",
        _gd(_C + " node { name: 'a' op: 'Neg' input: 'c' attr { key: 'T' value { type: DT_INT32 } } }", "a:0"),
    ),
    (
        "graph_def_bad_dtype_enum",
        _gd("node { name: 'p' op: 'Placeholder' attr { key: 'dtype' value { type: 999 } } }", "p:0"),
    ),
    (
        "graph_def_const_huge_shape",
        _gd(
            "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value "
            "{ tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1099511627776 } } } } } }",
            "c:0",
        ),
    ),
    (
        "graph_def_const_neg_shape",
        _gd(
            "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value "
            "{ tensor { dtype: DT_FLOAT tensor_shape { dim { size: -3 } } float_val: 1 } } } }",
            "c:0",
        ),
    ),
    (
        "graph_def_const_content_short",
        _gd(
            "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value "
            "{ tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } tensor_content: 'abc' } } } }",
            "c:0",
        ),
    ),
    (
        "graph_def_const_dtype_mismatch",
        _gd(
            "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: 'value' value "
            "{ tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }",
            "c:0",
        ),
    ),
    (
        "graph_def_addn_huge_n",
        _gd(
            _C
            + " node { name: 'a' op: 'AddN' input: 'c' input: 'c' "
            + _F
            + " attr { key: 'N' value { i: 2147483647 } } }",
            "a:0",
        ),
    ),
    (
        "graph_def_split_huge_num",
        _gd(
            _C + " node { name: 'ax' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: 'value'"
            " value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }"
            " node { name: 'a' op: 'Split' input: 'ax' input: 'c' "
            + _F
            + " attr { key: 'num_split' value { i: 1099511627776 } } }",
            "a:0",
        ),
    ),
    (
        "graph_def_placeholder_neg_shape",
        _gd(
            "node { name: 'p' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'shape' "
            "value { shape { dim { size: -7 } } } } }",
            "p:0",
        ),
    ),
    (
        "graph_def_control_before_data",
        _gd(_C + " node { name: 'a' op: 'Neg' input: '^c' input: 'c' " + _F + " }", "a:0"),
    ),
]


# A TensorFlow-format checkpoint of v = [1.0, 2.0] (written by TF in a subprocess) at d/model.
_TFCKPT = "exec:d = tf_format_ckpt()\npath = d + '/model'\n"
_CKPT = (
    "exec:d = tmp('ck')\nshutil.rmtree(d, ignore_errors=True)\nos.makedirs(d)\n"
    "with tf.Graph().as_default() as g2, tf.Session(graph=g2) as s2:\n"
    "    v = tf.Variable([1.0, 2.0], name='v')\n    s2.run(v.initializer)\n"
    "    path = tf.train.Saver().save(s2, d + '/model')\n"
)
CASES_FILES += [
    ("checkpoint_ok", _CKPT + "out = sorted(tf.train.list_variables(path))"),
    (
        "checkpoint_state_garbage",
        _CKPT + "open(d + '/checkpoint', 'w').write('\\xff garbage {{{')\nout = tf.train.latest_checkpoint(d)",
    ),
    (
        "checkpoint_state_missing_file",
        _CKPT
        + "open(d + '/checkpoint', 'w').write('model_checkpoint_path: \"nope\"')\nout = tf.train.latest_checkpoint(d)",
    ),
    (
        "checkpoint_reader_garbage",
        "exec:p = tmp('garbage.ckpt')\nopen(p + '.index', 'wb').write(b'\\xff' * 64)\nout = tf.train.NewCheckpointReader(p).get_variable_to_shape_map()",
    ),
    ("checkpoint_list_missing", "exec:out = tf.train.list_variables('/nonexistent_xyz/model')"),
    ("checkpoint_load_missing_name", _CKPT + "out = tf.train.load_variable(path, 'nope')"),
    (
        "checkpoint_init_shape_mismatch",
        _CKPT + "w = tf.get_variable('v', [3])\ntf.train.init_from_checkpoint(path, {'v': w})\nfetches = w.initializer",
    ),
    (
        "checkpoint_restore_shape_mismatch",
        _CKPT + "w = tf.Variable([1.0, 2.0, 3.0], name='v')\nout = tf.train.Saver().restore(sess, path)",
    ),
    (
        "meta_graph_truncated",
        _CKPT + "data = open(path + '.meta', 'rb').read()\nopen(path + '.meta', 'wb').write(data[: len(data) // 2])\n"
        "out = str(tf.train.import_meta_graph(path + '.meta'))",
    ),
    (
        "file_writer_on_a_file",
        "exec:p = tmp('plainfile')\nopen(p, 'w').write('x')\nw = tf.summary.FileWriter(p)\nw.add_summary(tf.Summary(), 1)\nw.close()\nout = 1",
    ),
    ("gfile_read_missing", "exec:out = tf.gfile.GFile('/nonexistent_xyz/f').read()"),
    ("gfile_listdir_missing", "exec:out = tf.gfile.ListDirectory(tmp('no_such_dir_l'))"),
    ("gfile_copy_missing", "exec:out = tf.gfile.Copy('/nonexistent_xyz/a', tmp('b'))"),
    (
        "gfile_makedirs_under_file",
        "exec:p = tmp('plainfile2')\nopen(p, 'w').write('x')\nout = tf.gfile.MakeDirs(p + '/sub')",
    ),
    ("gfile_remove_missing", "exec:out = tf.gfile.Remove('/nonexistent_xyz/a')"),
    ("tfrecord_iter_dir", "exec:out = list(tf.python_io.tf_record_iterator(tmp('')))"),
    ("tfrecord_writer_missing_dir", "exec:w = tf.python_io.TFRecordWriter(tmp('no_such_dir_w/r.tfrecord'))\nout = 1"),
    (
        "events_huge_length",
        "exec:p = tmp('events.out.huge')\nopen(p, 'wb').write(" + _HUGE.format(2**62) + ")\n" + _SUMMARY,
    ),
    (
        "parse_sequence_example_garbage",
        "tf.io.parse_single_sequence_example(b'\\xff\\xff\\x01', sequence_features={'a': tf.io.FixedLenSequenceFeature([], tf.int64)})[1]['a']",
    ),
    ("read_file_huge_dir_glob", "tf.io.matching_files('/proc/self/fd/*/*/*/nope')"),
]


# Round 3 (--set s22). Huge sizes: an error (ResourceExhausted or InvalidArgument), never an OOM kill or an int
# overflow; every allocation asked for is far beyond any machine, so none of them can succeed half-way.
I64 = "tf.placeholder_with_default(tf.constant({}, tf.int64), {})"
CASES_S22 = [
    ("huge_zeros_2p40", "tf.zeros([2**40])"),
    ("huge_zeros_overflow", "tf.zeros([2**32, 2**32])"),
    ("huge_zeros_overflow3", "tf.zeros([2**31, 2**31, 4])"),
    ("huge_zeros_int64max", "tf.zeros([2**63 - 1, 2])"),
    ("huge_zeros_empty_big_dims", "tf.zeros([2**62, 0])"),
    ("huge_zeros_empty_overflow", "tf.zeros([2**62, 2**62, 0])"),
    ("huge_ones_2p40", "tf.ones([2**20, 2**20])"),
    ("huge_fill_runtime", "tf.fill(" + I64.format([2**40], [1]) + ", 1.0)"),
    ("huge_fill_overflow_runtime", "tf.fill(" + I64.format([2**62, 4], [2]) + ", 1.0)"),
    ("huge_fill_overflow_neg_runtime", "tf.fill(" + I64.format([2**63 - 1, 2**63 - 1], [2]) + ", 1.0)"),
    ("huge_fill_empty_overflow_runtime", "tf.fill(" + I64.format([2**62, 2**62, 0], [3]) + ", 1.0)"),
    ("huge_zeros_runtime", "tf.zeros(" + I64.format([2**40], [1]) + ")"),
    ("huge_tile", "tf.tile(tf.zeros([2]), " + I64.format([2**40], [1]) + ")"),
    ("huge_tile_overflow", "tf.tile(tf.zeros([4, 4]), " + I64.format([2**62, 2**62], [2]) + ")"),
    ("huge_tile_string", "tf.tile(tf.constant(['a']), " + I64.format([2**40], [1]) + ")"),
    ("huge_tile_static", "tf.tile(tf.zeros([2**20]), [2**20])"),
    ("huge_range", f"tf.range(0, {PH}(tf.constant(2**40, tf.int64), []))"),
    ("huge_range_float", f"tf.range(0.0, {PH}(1e15, []), 1.0)"),
    ("huge_range_overflow_delta", "tf.range(tf.constant(-2**62, tf.int64), 2**62, 2**62)"),
    ("huge_range_extreme", "tf.range(tf.constant(-2**63, tf.int64), 2**63 - 1, 1)"),
    ("huge_one_hot", "tf.one_hot(tf.zeros([1024], tf.int32), 2**31 - 1)"),
    ("huge_one_hot_runtime", f"tf.one_hot(tf.zeros([1024], tf.int32), {PH}(2**31 - 1, []))"),
    ("huge_random_uniform", "tf.random_uniform([2**40])"),
    ("huge_random_uniform_runtime", "tf.random_uniform(" + I64.format([2**40], [1]) + ")"),
    ("huge_random_normal_overflow", "tf.random_normal(" + I64.format([2**32, 2**32], [2]) + ")"),
    ("huge_truncated_normal", "tf.truncated_normal([2**20, 2**20])"),
    ("huge_random_int", "tf.random_uniform([2**40], 0, 10, tf.int32)"),
    ("huge_resize_bilinear", "tf.image.resize_bilinear(tf.zeros([1, 2, 2, 1]), [2**30, 2**30])"),
    ("huge_resize_nearest", f"tf.image.resize_nearest_neighbor(tf.zeros([1, 2, 2, 1]), {PH}([2**30, 2**30], [2]))"),
    ("huge_resize_bicubic", f"tf.image.resize_bicubic(tf.zeros([1, 2, 2, 1]), {PH}([2**30, 2**30], [2]))"),
    ("huge_resize_images", "tf.image.resize_images(tf.zeros([2, 2, 1]), [2**30, 2**30])"),
    ("huge_resize_area", f"tf.image.resize_area(tf.zeros([1, 2, 2, 1]), {PH}([2**30, 2**30], [2]))"),
    ("huge_resize_neg", f"tf.image.resize_bilinear(tf.zeros([1, 2, 2, 1]), {PH}([-4, 4], [2]))"),
    ("huge_pad_to_bounding_box", "tf.image.pad_to_bounding_box(tf.zeros([2, 2, 1]), 0, 0, 2**30, 2**30)"),
    ("huge_variable", "exec:v = tf.Variable(tf.zeros([2**40]))\nfetches = v.initializer"),
    ("huge_variable_overflow", "exec:v = tf.Variable(tf.zeros([2**32, 2**32]))\nfetches = v.initializer"),
    ("huge_get_variable", "exec:v = tf.get_variable('v', [2**20, 2**20])\nfetches = v.initializer"),
    ("huge_get_variable_overflow", "exec:v = tf.get_variable('v', [2**40, 2**40])\nfetches = v.initializer"),
    ("huge_get_variable_neg", "exec:v = tf.get_variable('v', [-2, 3])\nfetches = v.initializer"),
    ("huge_broadcast_to", "tf.broadcast_to(1.0, " + I64.format([2**40], [1]) + ")"),
    ("huge_broadcast_to_overflow", "tf.broadcast_to(1.0, " + I64.format([2**32, 2**32], [2]) + ")"),
    ("huge_eye", f"tf.eye({PH}(2**20, []))"),
    ("huge_eye_static", "tf.eye(2**20)"),
    ("huge_linspace", f"tf.linspace(0.0, 1.0, {PH}(tf.constant(2**40, tf.int64), []))"),
    ("huge_sequence_mask", f"tf.sequence_mask([1], {PH}(2**40, []))"),
    ("huge_scatter_nd", "tf.scatter_nd(tf.constant([[0]], tf.int64), [1.0], " + I64.format([2**40], [1]) + ")"),
    (
        "huge_scatter_nd_overflow",
        "tf.scatter_nd(tf.constant([[0, 0]], tf.int64), [1.0], " + I64.format([2**32, 2**32], [2]) + ")",
    ),
    (
        "huge_sparse_to_dense",
        "tf.sparse_to_dense(tf.constant([[0]], tf.int64), " + I64.format([2**40], [1]) + ", [1.0])",
    ),
    (
        "huge_sparse_tensor_to_dense_overflow",
        "tf.sparse.to_dense(tf.SparseTensor([[0, 0]], [1.0], " + I64.format([2**32, 2**32], [2]) + "))",
    ),
    ("huge_reshape_empty_overflow", f"tf.reshape(tf.zeros([0]), {PH}(tf.constant([2**62, 2**62, 0], tf.int64), [3]))"),
    (
        "huge_conv2d_transpose_out",
        f"tf.nn.conv2d_transpose(tf.zeros([1, 2, 2, 1]), tf.zeros([2, 2, 1, 1]), {PH}([1, 2**30, 2**30, 1], [4]), [1, 2**29, 2**29, 1])",
    ),
    ("huge_matrix_diag", f"tf.matrix_diag({PH}(tf.zeros([2**20]), [None]))"),
    ("huge_zeros_like_broadcast", "tf.zeros_like(tf.broadcast_to(1.0, [2**20, 2**20]))"),
    ("huge_unsorted_segment_overflow", f"tf.unsorted_segment_sum(tf.zeros([1, 2**20]), [0], {PH}(2**31 - 1, []))"),
    ("huge_string_join", f"tf.strings.join([tf.fill({PH}([2**40], [1]), 'x')])"),
    ("huge_image_resize_crop_pad", "tf.image.resize_image_with_crop_or_pad(tf.zeros([2, 2, 1]), 2**30, 2**30)"),
    ("huge_random_shuffle_queue", "exec:q = tf.RandomShuffleQueue(2**62, 0, tf.float32)\nfetches = q.size()"),
    ("huge_fifo_queue_capacity", "exec:q = tf.FIFOQueue(2**40, tf.float32)\nfetches = q.size()"),
    ("huge_batch_matmul_broadcast", f"tf.matmul(tf.zeros([2**20, 1, 2, 2]), {PH}(tf.zeros([1, 2**20, 2, 2]), None))"),
]

# Checkpoints: a Saver restore from a damaged checkpoint.
_RESTORE = "w = tf.Variable([0.0, 0.0], name='v')\ntf.train.Saver().restore(sess, path)\nout = sess.run(w)"
# A library's own checkpoint files (tensorweave: P.manifest.json and P.safetensors, TF: P.index and P.data-*).
_INDEX = "ckpt_index(path)"
_DATA = "ckpt_data(path)"
CASES_S22 += [
    ("ckpt_ok_restore", _CKPT + _RESTORE),
    (
        "ckpt_index_truncated",
        _CKPT
        + "b = open(ckpt_index(path), 'rb').read()\nopen(ckpt_index(path), 'wb').write(b[: len(b) // 2])\n"
        + _RESTORE,
    ),
    (
        "ckpt_index_truncated_footer",
        _CKPT + "b = open(ckpt_index(path), 'rb').read()\nopen(ckpt_index(path), 'wb').write(b[:-8])\n" + _RESTORE,
    ),
    (
        "ckpt_index_garbled",
        _CKPT + "b = bytearray(open(ckpt_index(path), 'rb').read())\nfor i in range(0, len(b) - 48, 3): b[i] ^= 0x5a\n"
        "open(ckpt_index(path), 'wb').write(bytes(b))\n" + _RESTORE,
    ),
    ("ckpt_index_empty", _CKPT + "open(ckpt_index(path), 'wb').close()\n" + _RESTORE),
    ("ckpt_index_missing", _CKPT + "os.remove(ckpt_index(path))\n" + _RESTORE),
    ("ckpt_data_missing", _CKPT + f"os.remove({_DATA})\n" + _RESTORE),
    ("ckpt_data_truncated", _CKPT + f"p = {_DATA}\nb = open(p, 'rb').read()\nopen(p, 'wb').write(b[:4])\n" + _RESTORE),
    ("ckpt_data_empty", _CKPT + f"open({_DATA}, 'wb').close()\n" + _RESTORE),
    (
        "ckpt_data_garbled",
        _CKPT + f"p = {_DATA}\nb = open(p, 'rb').read()\nopen(p, 'wb').write(bytes(x ^ 0xff for x in b))\n" + _RESTORE,
    ),
    (
        "ckpt_data_longer",
        _CKPT + f"p = {_DATA}\nopen(p, 'ab').write(b'\\x00' * 64)\n" + _RESTORE,
    ),
    (
        "ckpt_dtype_mismatch",
        _CKPT + "w = tf.Variable([0, 0], name='v')\ntf.train.Saver().restore(sess, path)\nout = sess.run(w)",
    ),
    (
        "ckpt_rank_mismatch",
        _CKPT + "w = tf.Variable([[0.0], [0.0]], name='v')\ntf.train.Saver().restore(sess, path)\nout = sess.run(w)",
    ),
    (
        "ckpt_scalar_vs_vector",
        _CKPT + "w = tf.Variable(0.0, name='v')\ntf.train.Saver().restore(sess, path)\nout = sess.run(w)",
    ),
    (
        "ckpt_resource_var_shape_mismatch",
        _CKPT
        + "w = tf.get_variable('v', [3], use_resource=True)\ntf.train.Saver().restore(sess, path)\nout = sess.run(w)",
    ),
    (
        "ckpt_missing_variable",
        _CKPT + "w = tf.Variable([0.0, 0.0], name='w')\ntf.train.Saver().restore(sess, path)\nout = sess.run(w)",
    ),
    (
        "ckpt_restore_none",
        _CKPT + "os.remove(d + '/checkpoint')\nw = tf.Variable([0.0, 0.0], name='v')\n"
        "tf.train.Saver().restore(sess, tf.train.latest_checkpoint(d))\nout = 1",
    ),
    (
        "ckpt_state_points_nowhere_restore",
        _CKPT + "open(d + '/checkpoint', 'w').write('model_checkpoint_path: \"' + d + '/gone\"')\n"
        "w = tf.Variable([0.0, 0.0], name='v')\ntf.train.Saver().restore(sess, d + '/gone')\nout = 1",
    ),
    (
        "ckpt_state_points_to_dir",
        _CKPT + "open(d + '/checkpoint', 'w').write('model_checkpoint_path: \"' + d + '\"')\n"
        "out = tf.train.latest_checkpoint(d)",
    ),
    ("ckpt_restore_dir", _CKPT + "w = tf.Variable([0.0, 0.0], name='v')\ntf.train.Saver().restore(sess, d)\nout = 1"),
    ("ckpt_reader_dir", _CKPT + "out = sorted(tf.train.NewCheckpointReader(d).get_variable_to_shape_map())"),
    (
        "ckpt_reader_text_file",
        (
            "exec:p = tmp('notckpt.txt')\nopen(p, 'w').write('hello world\\n' * 10)\n"
            "out = sorted(tf.train.NewCheckpointReader(p).get_variable_to_shape_map())"
        ),
    ),
    (
        "ckpt_reader_index_as_path",
        _CKPT + "out = sorted(tf.train.NewCheckpointReader(path + '.index').get_variable_to_shape_map())",
    ),
    ("ckpt_reader_get_missing", _CKPT + "out = tf.train.NewCheckpointReader(path).get_tensor('nope')"),
    ("ckpt_reader_has_missing", _CKPT + "out = tf.train.NewCheckpointReader(path).has_tensor('nope')"),
    (
        "ckpt_reader_data_garbled",
        _CKPT + f"p = {_DATA}\nb = open(p, 'rb').read()\nopen(p, 'wb').write(bytes(x ^ 0xff for x in b))\n"
        "out = tf.train.NewCheckpointReader(path).get_tensor('v')",
    ),
    (
        "ckpt_reader_data_truncated",
        _CKPT + f"p = {_DATA}\nopen(p, 'wb').write(b'')\nout = tf.train.NewCheckpointReader(path).get_tensor('v')",
    ),
    (
        "ckpt_list_index_truncated",
        _CKPT + "b = open(ckpt_index(path), 'rb').read()\nopen(ckpt_index(path), 'wb').write(b[:20])\n"
        "out = tf.train.list_variables(path)",
    ),
    (
        "ckpt_load_variable_data_missing",
        _CKPT + f"os.remove({_DATA})\nout = tf.train.load_variable(path, 'v')",
    ),
    (
        "ckpt_init_from_dtype_mismatch",
        _CKPT + "w = tf.get_variable('v', [2], tf.int32)\ntf.train.init_from_checkpoint(path, {'v': w})\n"
        "fetches = w.initializer",
    ),
    (
        "ckpt_init_from_missing_name",
        _CKPT
        + "w = tf.get_variable('v', [2])\ntf.train.init_from_checkpoint(path, {'nope': w})\nfetches = w.initializer",
    ),
    (
        "ckpt_save_under_file",
        (
            "exec:p = tmp('plainfile3')\nopen(p, 'w').write('x')\nv = tf.Variable(1.0)\nsess.run(v.initializer)\n"
            "out = tf.train.Saver().save(sess, p + '/model')"
        ),
    ),
    (
        "ckpt_save_uninitialized",
        "exec:v = tf.Variable(1.0, name='v')\nout = tf.train.Saver().save(sess, tmp('uninit/model'))",
    ),
    (
        "ckpt_swapped_data_shard",
        _CKPT + "with tf.Graph().as_default() as g3, tf.Session(graph=g3) as s3:\n"
        "    v3 = tf.Variable(np.arange(100.0, dtype=np.float32), name='v')\n    s3.run(v3.initializer)\n"
        "    p3 = tf.train.Saver().save(s3, d + '/other')\n"
        f"shutil.copy(ckpt_data(p3), {_DATA})\n" + _RESTORE,
    ),
    ("tfckpt_ok_restore", _TFCKPT + _RESTORE),
    (
        "tfckpt_index_truncated",
        _TFCKPT
        + "b = open(path + '.index', 'rb').read()\nopen(path + '.index', 'wb').write(b[: len(b) // 2])\n"
        + _RESTORE,
    ),
    (
        "tfckpt_index_footer_cut",
        _TFCKPT + "b = open(path + '.index', 'rb').read()\nopen(path + '.index', 'wb').write(b[:-8])\n" + _RESTORE,
    ),
    ("tfckpt_index_empty", _TFCKPT + "open(path + '.index', 'wb').close()\n" + _RESTORE),
    (
        "tfckpt_index_garbled",
        _TFCKPT + "b = bytearray(open(path + '.index', 'rb').read())\nfor i in range(0, len(b) - 48, 3): b[i] ^= 0x5a\n"
        "open(path + '.index', 'wb').write(bytes(b))\n" + _RESTORE,
    ),
    (
        "tfckpt_index_each_byte",
        _TFCKPT + "b = open(path + '.index', 'rb').read()\nres = set()\nfor i in range(len(b)):\n"
        "    open(path + '.index', 'wb').write(b[:i] + bytes([b[i] ^ 0xff]) + b[i + 1:])\n"
        "    try:\n        res.add(str(tf.train.NewCheckpointReader(path).get_tensor('v').tolist()))\n"
        "    except Exception as e:\n        res.add(type(e).__name__)\nout = sorted(res)",
    ),
    ("tfckpt_data_missing", _TFCKPT + "os.remove(ckpt_data(path))\n" + _RESTORE),
    (
        "tfckpt_data_truncated",
        _TFCKPT + "p = ckpt_data(path)\nb = open(p, 'rb').read()\nopen(p, 'wb').write(b[:4])\n" + _RESTORE,
    ),
    ("tfckpt_data_empty", _TFCKPT + "open(ckpt_data(path), 'wb').close()\n" + _RESTORE),
    (
        "tfckpt_data_garbled",
        _TFCKPT
        + "p = ckpt_data(path)\nb = open(p, 'rb').read()\nopen(p, 'wb').write(bytes(x ^ 0xff for x in b))\n"
        + _RESTORE,
    ),
    (
        "tfckpt_data_garbled_reader",
        _TFCKPT
        + "p = ckpt_data(path)\nb = open(p, 'rb').read()\nopen(p, 'wb').write(bytes(x ^ 0xff for x in b))\nout = tf.train.load_variable(path, 'v')",
    ),
    (
        "tfckpt_dtype_mismatch",
        _TFCKPT + "w = tf.Variable([0, 0], name='v')\ntf.train.Saver().restore(sess, path)\nout = sess.run(w)",
    ),
    (
        "tfckpt_shape_mismatch",
        _TFCKPT + "w = tf.Variable([0.0, 0.0, 0.0], name='v')\ntf.train.Saver().restore(sess, path)\nout = sess.run(w)",
    ),
    (
        "tfckpt_rank_mismatch",
        _TFCKPT + "w = tf.Variable([[0.0, 0.0]], name='v')\ntf.train.Saver().restore(sess, path)\nout = sess.run(w)",
    ),
    (
        "tfckpt_missing_variable",
        _TFCKPT + "w = tf.Variable([0.0, 0.0], name='w')\ntf.train.Saver().restore(sess, path)\nout = sess.run(w)",
    ),
    ("tfckpt_list_variables", _TFCKPT + "out = sorted(tf.train.list_variables(path))"),
    ("tfckpt_reader_dir", _TFCKPT + "out = sorted(tf.train.NewCheckpointReader(d).get_variable_to_shape_map())"),
    ("tfckpt_latest", _TFCKPT + "out = os.path.basename(tf.train.latest_checkpoint(d))"),
    (
        "tfckpt_state_points_nowhere",
        _TFCKPT
        + "open(d + '/checkpoint', 'w').write('model_checkpoint_path: \"gone\"')\nout = tf.train.latest_checkpoint(d)",
    ),
    ("ckpt_saver_no_vars", "exec:out = tf.train.Saver()"),
    ("ckpt_saver_bad_var_list", "exec:out = tf.train.Saver(var_list=[1, 2])"),
    (
        "ckpt_saver_dup_names",
        "exec:a = tf.Variable(1.0, name='a')\nout = str(tf.train.Saver(var_list={'x': a, 'y': a}))[:0]",
    ),
]

# Keras (tw.keras against tf_keras), tw.layers, feature columns, lookup tables.
CASES_S22 += [
    ("keras_input_shape_neg_dense", _K + "out = keras.Sequential([L.Dense(2, input_shape=(-3,))]).output_shape"),
    ("keras_input_shape_zero_dense", _K + "out = keras.Sequential([L.Dense(2, input_shape=(0,))]).output_shape"),
    ("keras_input_shape_str", _K + "out = keras.Sequential([L.Dense(2, input_shape='ab')]).output_shape"),
    ("keras_input_shape_float", _K + "out = keras.Sequential([L.Dense(2, input_shape=(2.5,))]).output_shape"),
    ("keras_input_shape_nested", _K + "out = keras.Sequential([L.Dense(2, input_shape=((3,),))]).output_shape"),
    ("keras_dense_units_none", _K + "out = L.Dense(None)(keras.Input((3,))).shape.as_list()"),
    ("keras_dense_units_str", _K + "out = L.Dense('4')(keras.Input((3,))).shape.as_list()"),
    ("keras_dense_scalar_input", _K + "out = L.Dense(2)(keras.Input(())).shape.as_list()"),
    ("keras_dense_unknown_last", _K + "out = L.Dense(2)(keras.Input((None,))).shape.as_list()"),
    ("keras_conv2d_filters0", _K + "out = L.Conv2D(0, 2)(keras.Input((4, 4, 1))).shape.as_list()"),
    ("keras_conv2d_strides0", _K + "out = L.Conv2D(2, 2, strides=0)(keras.Input((4, 4, 1))).shape.as_list()"),
    (
        "keras_conv2d_dilation_and_stride",
        _K + "out = L.Conv2D(2, 2, strides=2, dilation_rate=2)(keras.Input((8, 8, 1))).shape.as_list()",
    ),
    ("keras_conv1d_kernel_neg", _K + "out = L.Conv1D(2, -1)(keras.Input((4, 1))).shape.as_list()"),
    ("keras_embedding_input_dim_neg", _K + "out = L.Embedding(-1, 2)(keras.Input((3,))).shape.as_list()"),
    ("keras_dropout_neg", _K + "out = L.Dropout(-0.5)(keras.Input((3,))).shape.as_list()"),
    ("keras_gru_units_neg", _K + "out = L.GRU(-1)(keras.Input((3, 2))).shape.as_list()"),
    ("keras_simple_rnn_rank4", _K + "out = L.SimpleRNN(2)(keras.Input((3, 2, 2))).shape.as_list()"),
    ("keras_flatten_unknown", _K + "out = L.Flatten()(keras.Input((None, 3))).shape.as_list()"),
    ("keras_permute_bad", _K + "out = L.Permute((1, 1))(keras.Input((3, 2))).shape.as_list()"),
    ("keras_permute_zero", _K + "out = L.Permute((0, 1))(keras.Input((3, 2))).shape.as_list()"),
    ("keras_repeat_vector_neg", _K + "out = L.RepeatVector(-2)(keras.Input((3,))).shape.as_list()"),
    ("keras_zero_padding_neg", _K + "out = L.ZeroPadding2D(-1)(keras.Input((4, 4, 1))).shape.as_list()"),
    ("keras_cropping_too_much", _K + "out = L.Cropping2D(3)(keras.Input((4, 4, 1))).shape.as_list()"),
    ("keras_upsampling_zero", _K + "out = L.UpSampling2D(0)(keras.Input((4, 4, 1))).shape.as_list()"),
    (
        "keras_compile_loss_dict_bad_key",
        _SEQ
        + "m.compile('sgd', loss={'nope': 'mse'})\nout = m.fit(np.zeros([4, 3]), np.zeros([4, 2]), verbose=0).history['loss'][0] * 0",
    ),
    (
        "keras_compile_bad_metric",
        _SEQ
        + "m.compile('sgd', 'mse', metrics=['nope_metric'])\nout = m.fit(np.zeros([4, 3]), np.zeros([4, 2]), verbose=0).history['loss'][0] * 0",
    ),
    (
        "keras_fit_cce_wrong_target",
        _SEQ
        + "m.compile('sgd', 'categorical_crossentropy')\nout = m.fit(np.zeros([4, 3]), np.zeros([4, 3]), verbose=0).history['loss'][0] * 0",
    ),
    (
        "keras_fit_sparse_cce_oob",
        _SEQ
        + "m.compile('sgd', 'sparse_categorical_crossentropy')\nout = m.fit(np.zeros([4, 3]), np.array([0, 1, 5, -1]), verbose=0).history['loss'][0]",
    ),
    ("keras_fit_y_none", _SEQ + "out = m.fit(np.zeros([4, 3]), verbose=0).history['loss'][0] * 0"),
    ("keras_fit_epochs_neg", _SEQ + "out = m.fit(np.zeros([4, 3]), np.zeros([4, 2]), epochs=-1, verbose=0).history"),
    (
        "keras_fit_x_list_for_one_input",
        _SEQ + "out = m.fit([np.zeros([4, 3]), np.zeros([4, 3])], np.zeros([4, 2]), verbose=0).history['loss'][0] * 0",
    ),
    ("keras_fit_string_y", _SEQ + "out = m.fit(np.zeros([4, 3]), np.array([['a', 'b']] * 4), verbose=0).history"),
    (
        "keras_fit_sample_weight_len",
        _SEQ + "out = m.fit(np.zeros([4, 3]), np.zeros([4, 2]), sample_weight=np.ones([3]), verbose=0).history",
    ),
    (
        "keras_fit_class_weight_bad",
        _SEQ + "out = m.fit(np.zeros([4, 3]), np.zeros([4, 2]), class_weight={'a': 1}, verbose=0).history",
    ),
    (
        "keras_fit_not_compiled",
        _K
        + "m = keras.Sequential([L.Dense(2, input_shape=(3,))])\nout = m.fit(np.zeros([4, 3]), np.zeros([4, 2]), verbose=0)",
    ),
    ("keras_predict_rank1", _SEQ + "out = m.predict(np.zeros([3]))"),
    ("keras_predict_rank3", _SEQ + "out = m.predict(np.zeros([2, 3, 3]))"),
    ("keras_predict_batch_size0", _SEQ + "out = m.predict(np.zeros([2, 3]), batch_size=0)"),
    ("keras_predict_nan", _SEQ + "out = np.isnan(m.predict(np.full([2, 3], np.nan))).all()"),
    ("keras_evaluate_mismatch", _SEQ + "out = m.evaluate(np.zeros([4, 3]), np.zeros([3, 2]), verbose=0)"),
    ("keras_train_on_batch_wrong", _SEQ + "out = m.train_on_batch(np.zeros([4, 5]), np.zeros([4, 2]))"),
    ("keras_get_layer_missing", _SEQ + "out = m.get_layer('nope')"),
    ("keras_get_layer_index_oob", _SEQ + "out = m.get_layer(index=99)"),
    ("keras_sequential_pop_empty", _K + "m = keras.Sequential()\nm.pop()\nout = 1"),
    ("keras_to_categorical_oob", "exec:out = keras.utils.to_categorical([0, 5], 3)"),
    ("keras_to_categorical_neg", "exec:out = keras.utils.to_categorical([0, -1], 3)"),
    ("keras_load_weights_missing", _SEQ + "m.load_weights(tmp('no_such_weights.h5'))\nout = 1"),
    ("keras_model_bad_inputs", _K + "out = keras.Model(inputs=[1], outputs=[2])"),
    (
        "keras_model_disconnected",
        _K + "a = keras.Input((3,))\nb = keras.Input((3,))\nout = keras.Model(a, L.Dense(2)(b)).output_shape",
    ),
    ("layers_conv2d_kernel0", "tf.layers.conv2d(tf.zeros([1, 4, 4, 1]), 2, 0)"),
    ("layers_conv2d_strides0", "tf.layers.conv2d(tf.zeros([1, 4, 4, 1]), 2, 2, strides=0)"),
    ("layers_max_pool_size0", "tf.layers.max_pooling2d(tf.zeros([1, 4, 4, 1]), 0, 1)"),
    ("layers_dropout_rate2", "tf.layers.dropout(tf.zeros([2, 3]), 2.0, training=True)"),
    ("layers_flatten_scalar", "tf.layers.flatten(tf.constant(1.0))"),
    ("layers_conv2d_rank2", "tf.layers.conv2d(tf.zeros([4, 4]), 2, 2)"),
    ("layers_dense_int_input", "tf.layers.dense(tf.zeros([2, 3], tf.int32), 2)"),
]

_FC = "exec:fc = tf.feature_column\n"
_IL = "\nfetches = tf.feature_column.input_layer({}, [{}])\nsess.run(tf.global_variables_initializer())\nsess.run(tf.tables_initializer())"
CASES_S22 += [
    ("fc_vocab_list_dup", _FC + "out = str(fc.categorical_column_with_vocabulary_list('a', ['x', 'x']))"),
    ("fc_vocab_list_empty", _FC + "out = str(fc.categorical_column_with_vocabulary_list('a', []))"),
    (
        "fc_vocab_list_oov_neg",
        _FC + "out = str(fc.categorical_column_with_vocabulary_list('a', ['x'], num_oov_buckets=-1))",
    ),
    (
        "fc_vocab_list_default_and_oov",
        _FC + "out = str(fc.categorical_column_with_vocabulary_list('a', ['x'], default_value=0, num_oov_buckets=2))",
    ),
    (
        "fc_vocab_file_missing",
        _FC
        + "c = fc.categorical_column_with_vocabulary_file('a', tmp('no_vocab.txt'), vocabulary_size=3)\nfetches = fc.input_layer({'a': tf.constant([['x']])}, [fc.indicator_column(c)])\nsess.run(tf.tables_initializer())",
    ),
    (
        "fc_vocab_file_size_too_big",
        _FC
        + "p = tmp('vocab.txt')\nopen(p, 'w').write('x\\ny\\n')\nc = fc.categorical_column_with_vocabulary_file('a', p, vocabulary_size=5)\nsess.run(tf.tables_initializer()) if False else None\nt = fc.input_layer({'a': tf.constant([['y']])}, [fc.indicator_column(c)])\nsess.run(tf.tables_initializer())\nout = sess.run(t)",
    ),
    ("fc_hash_bucket_zero", _FC + "out = str(fc.categorical_column_with_hash_bucket('a', 0))"),
    ("fc_hash_bucket_float_dtype", _FC + "out = str(fc.categorical_column_with_hash_bucket('a', 3, dtype=tf.float32))"),
    ("fc_identity_zero_buckets", _FC + "out = str(fc.categorical_column_with_identity('a', 0))"),
    (
        "fc_identity_oob_value",
        _FC
        + "c = fc.categorical_column_with_identity('a', 3)"
        + _IL.format("{'a': tf.constant([[5]])}", "fc.indicator_column(c)"),
    ),
    ("fc_identity_default_oob", _FC + "out = str(fc.categorical_column_with_identity('a', 3, default_value=7))"),
    (
        "fc_identity_default_ok",
        _FC
        + "c = fc.categorical_column_with_identity('a', 3, default_value=0)"
        + _IL.format("{'a': tf.constant([[5]])}", "fc.indicator_column(c)"),
    ),
    ("fc_bucketized_unsorted", _FC + "out = str(fc.bucketized_column(fc.numeric_column('a'), [3.0, 1.0]))"),
    ("fc_bucketized_empty", _FC + "out = str(fc.bucketized_column(fc.numeric_column('a'), []))"),
    (
        "fc_bucketized_of_categorical",
        _FC + "out = str(fc.bucketized_column(fc.categorical_column_with_identity('a', 3), [1.0]))",
    ),
    (
        "fc_bucketized_2d_numeric",
        _FC
        + "c = fc.bucketized_column(fc.numeric_column('a', shape=[2]), [0.0, 1.0])"
        + _IL.format("{'a': tf.constant([[0.5, 2.0]])}", "c"),
    ),
    ("fc_numeric_shape_neg", _FC + "out = str(fc.numeric_column('a', shape=[-1]))"),
    ("fc_numeric_string_dtype", _FC + "out = str(fc.numeric_column('a', dtype=tf.string))"),
    (
        "fc_numeric_default_wrong_len",
        _FC + "out = str(fc.numeric_column('a', shape=[2], default_value=[1.0, 2.0, 3.0]))",
    ),
    (
        "fc_numeric_wrong_feature_shape",
        _FC + "c = fc.numeric_column('a', shape=[2])" + _IL.format("{'a': tf.constant([[1.0, 2.0, 3.0]])}", "c"),
    ),
    ("fc_numeric_missing_feature", _FC + "c = fc.numeric_column('a')" + _IL.format("{'b': tf.constant([[1.0]])}", "c")),
    ("fc_numeric_string_feature", _FC + "c = fc.numeric_column('a')" + _IL.format("{'a': tf.constant([['x']])}", "c")),
    ("fc_embedding_dim0", _FC + "out = str(fc.embedding_column(fc.categorical_column_with_identity('a', 3), 0))"),
    (
        "fc_embedding_combiner_bad",
        _FC + "out = str(fc.embedding_column(fc.categorical_column_with_identity('a', 3), 2, combiner='max'))",
    ),
    ("fc_embedding_of_numeric", _FC + "out = str(fc.embedding_column(fc.numeric_column('a'), 2))"),
    ("fc_crossed_hash0", _FC + "out = str(fc.crossed_column(['a', 'b'], 0))"),
    ("fc_crossed_one_key", _FC + "out = str(fc.crossed_column(['a'], 10))"),
    ("fc_crossed_numeric", _FC + "out = str(fc.crossed_column([fc.numeric_column('a'), 'b'], 10))"),
    ("fc_indicator_of_numeric", _FC + "out = str(fc.indicator_column(fc.numeric_column('a')))"),
    (
        "fc_input_layer_categorical",
        _FC + "c = fc.categorical_column_with_identity('a', 3)" + _IL.format("{'a': tf.constant([[1]])}", "c"),
    ),
    (
        "fc_weighted_bad_dtype",
        _FC
        + "out = str(fc.weighted_categorical_column(fc.categorical_column_with_identity('a', 3), 'w', dtype=tf.string))",
    ),
    (
        "fc_shared_embeddings_diff_buckets",
        _FC
        + "out = str(fc.shared_embedding_columns([fc.categorical_column_with_identity('a', 3), fc.categorical_column_with_identity('b', 4)], 2))",
    ),
]

_KV = "tf.lookup.KeyValueTensorInitializer({}, {})"
CASES_S22 += [
    (
        "lookup_len_mismatch",
        "exec:t = tf.lookup.StaticHashTable("
        + _KV.format("['a', 'b', 'c']", "[1, 2]")
        + ", -1)\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['a']))",
    ),
    (
        "lookup_len_mismatch_runtime",
        "exec:k = tf.placeholder_with_default(['a', 'b', 'c'], [None])\nt = tf.lookup.StaticHashTable("
        + _KV.format("k", "tf.constant([1, 2], tf.int64)")
        + ", -1)\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['a']))",
    ),
    (
        "lookup_key_dtype_mismatch",
        "exec:t = tf.lookup.StaticHashTable("
        + _KV.format("['a', 'b']", "[1, 2]")
        + ", -1)\nfetches = t.lookup(tf.constant([1, 2]))",
    ),
    (
        "lookup_default_dtype_mismatch",
        "exec:t = tf.lookup.StaticHashTable("
        + _KV.format("['a', 'b']", "[1, 2]")
        + ", 'x')\nfetches = t.lookup(tf.constant(['a']))",
    ),
    (
        "lookup_default_shape_bad",
        "exec:t = tf.lookup.StaticHashTable("
        + _KV.format("['a', 'b']", "[1, 2]")
        + ", [-1, -1])\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['a']))",
    ),
    (
        "lookup_uninitialized",
        "exec:t = tf.lookup.StaticHashTable("
        + _KV.format("['a', 'b']", "[1, 2]")
        + ", -1)\nfetches = t.lookup(tf.constant(['a']))",
    ),
    (
        "lookup_dup_keys",
        "exec:t = tf.lookup.StaticHashTable("
        + _KV.format("['a', 'a']", "[1, 2]")
        + ", -1)\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['a']))",
    ),
    (
        "lookup_init_twice",
        "exec:t = tf.lookup.StaticHashTable("
        + _KV.format("['a', 'b']", "[1, 2]")
        + ", -1)\nsess.run(tf.tables_initializer())\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['a']))",
    ),
    (
        "lookup_2d_keys",
        "exec:t = tf.lookup.StaticHashTable("
        + _KV.format("[['a', 'b']]", "[[1, 2]]")
        + ", -1)\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['a']))",
    ),
    (
        "lookup_index_table_dup",
        "exec:t = tf.lookup.index_table_from_tensor(['a', 'a'])\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['a']))",
    ),
    (
        "lookup_index_table_oov_neg",
        "exec:t = tf.lookup.index_table_from_tensor(['a'], num_oov_buckets=-1)\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['b']))",
    ),
    (
        "lookup_vocab_table_oov0",
        "exec:t = tf.lookup.StaticVocabularyTable("
        + _KV.format("['a']", "tf.constant([0], tf.int64)")
        + ", 0)\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['b']))",
    ),
    (
        "lookup_vocab_table_int32_values",
        "exec:t = tf.lookup.StaticVocabularyTable("
        + _KV.format("['a']", "[0]")
        + ", 2)\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['b']))",
    ),
    (
        "lookup_text_file_missing",
        "exec:t = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(tmp('nope_vocab.txt'), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER), -1)\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['a']))",
    ),
    (
        "lookup_text_file_bad_column",
        "exec:p = tmp('v2.txt')\nopen(p, 'w').write('a\\tb\\nc\\n')\nt = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(p, tf.string, 0, tf.int64, 5, delimiter='\\t'), -1)\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['a']))",
    ),
    (
        "lookup_text_file_not_int",
        "exec:p = tmp('v3.txt')\nopen(p, 'w').write('a\\tx\\n')\nt = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(p, tf.string, 0, tf.int64, 1, delimiter='\\t'), -1)\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant(['a']))",
    ),
    (
        "lookup_index_to_string_oob",
        "exec:t = tf.lookup.index_to_string_table_from_tensor(['a', 'b'])\nsess.run(tf.tables_initializer())\nfetches = t.lookup(tf.constant([5, -1], tf.int64))",
    ),
    (
        "lookup_mutable_wrong_dtype_insert",
        "exec:t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)\nfetches = t.insert(tf.constant(['a']), tf.constant([1.5]))",
    ),
    (
        "lookup_mutable_len_mismatch",
        "exec:t = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)\nfetches = t.insert(tf.constant(['a', 'b']), tf.constant([1], tf.int64))",
    ),
    (
        "lookup_dense_hash_empty_eq_deleted",
        "exec:t = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, empty_key=0, deleted_key=0)\nfetches = t.lookup(tf.constant([1], tf.int64))",
    ),
]

# Concurrency misuse.
_TH = "exec:import threading, time\n"
CASES_S22 += [
    (
        "thread_close_while_running",
        _TH + "q = tf.FIFOQueue(2, tf.float32, shapes=[[]])\nd = q.dequeue()\nerrs = []\n"
        "def f():\n    try:\n        sess.run(d)\n    except Exception as e:\n        errs.append(type(e).__name__)\n"
        "t = threading.Thread(target=f, daemon=True)\nt.start()\ntime.sleep(1.0)\nsess.close()\nt.join(10)\n"
        "out = [t.is_alive(), errs]",
    ),
    (
        "thread_run_on_closed_session",
        _TH + "c = tf.constant(1.0)\nsess.close()\nerrs = []\n"
        "def f():\n    try:\n        sess.run(c)\n    except Exception as e:\n        errs.append(type(e).__name__)\n"
        "ts = [threading.Thread(target=f) for _ in range(8)]\n[t.start() for t in ts]\n[t.join(10) for t in ts]\n"
        "out = sorted(errs)",
    ),
    (
        "thread_many_runs_then_close",
        _TH + "x = tf.reduce_sum(tf.random_uniform([1000]))\nerrs, n = [], [0]\n"
        "def f():\n    for _ in range(200):\n        try:\n            sess.run(x)\n            n[0] += 1\n"
        "        except Exception as e:\n            errs.append(type(e).__name__)\n            return\n"
        "ts = [threading.Thread(target=f, daemon=True) for _ in range(4)]\n[t.start() for t in ts]\ntime.sleep(0.05)\n"
        "sess.close()\n[t.join(10) for t in ts]\nout = [any(t.is_alive() for t in ts), sorted(set(errs)) <= ['RuntimeError', 'CancelledError']]",
    ),
    (
        "queue_runner_enqueue_fails",
        _TH + "q = tf.FIFOQueue(10, tf.float32, shapes=[[]])\n"
        "enq = q.enqueue(tf.debugging.check_numerics(tf.constant(float('nan')), 'bad value'))\n"
        "qr = tf.train.QueueRunner(q, [enq])\ncoord = tf.train.Coordinator()\n"
        "ts = qr.create_threads(sess, coord=coord, start=True)\ncoord.join(ts, stop_grace_period_secs=5)\nout = 'no error'",
    ),
    (
        "queue_runner_enqueue_fails_dequeue",
        _TH + "q = tf.FIFOQueue(10, tf.float32, shapes=[[]])\n"
        "enq = q.enqueue(tf.debugging.check_numerics(tf.constant(float('nan')), 'bad value'))\n"
        "qr = tf.train.QueueRunner(q, [enq])\ncoord = tf.train.Coordinator()\n"
        "ts = qr.create_threads(sess, coord=coord, start=True)\n"
        "try:\n    sess.run(q.dequeue(), options=tf.RunOptions(timeout_in_ms=3000))\nfinally:\n"
        "    coord.request_stop()\n    coord.join(ts, stop_grace_period_secs=5, ignore_live_threads=True)\nout = 1",
    ),
    (
        "coordinator_join_raised",
        _TH + "coord = tf.train.Coordinator()\n"
        "def f():\n    with coord.stop_on_exception():\n        raise ValueError('boom in thread')\n"
        "t = threading.Thread(target=f)\nt.start()\ncoord.join([t])\nout = 'no error'",
    ),
    (
        "coordinator_join_stuck_thread",
        _TH + "coord = tf.train.Coordinator()\nev = threading.Event()\n"
        "t = threading.Thread(target=ev.wait, args=(30,), daemon=True)\nt.start()\ncoord.request_stop()\n"
        "try:\n    coord.join([t], stop_grace_period_secs=1)\nfinally:\n    ev.set()\nout = 'no error'",
    ),
    (
        "coordinator_request_stop_non_exception",
        _TH + "coord = tf.train.Coordinator()\ncoord.request_stop(ex='not an exception')\nout = coord.should_stop()",
    ),
    (
        "coordinator_raise_requested_twice",
        _TH
        + "coord = tf.train.Coordinator()\ncoord.request_stop(ValueError('first'))\ncoord.request_stop(TypeError('second'))\ncoord.join([])\nout = 1",
    ),
    (
        "start_queue_runners_closed_session",
        _TH
        + "q = tf.FIFOQueue(10, tf.float32, shapes=[[]])\ntf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(1.0)]))\n"
        "sess.close()\ncoord = tf.train.Coordinator()\nts = tf.train.start_queue_runners(sess, coord=coord)\n"
        "coord.join(ts, stop_grace_period_secs=5)\nout = 'no error'",
    ),
    (
        "thread_close_twice_concurrent",
        _TH
        + "ts = [threading.Thread(target=sess.close) for _ in range(8)]\n[t.start() for t in ts]\n[t.join(10) for t in ts]\nout = 1",
    ),
]

# tensorweave only ("tw:" cases; TF has no such API): the lite C API (`lite()`: the library through ctypes,
# `add_twl()`: a converted model z = x + y of [2, 3] floats, `interp(L)`: an interpreter of it), the
# tensorweave-lite CLI (`cli(*args)`: [exit status, a traceback printed, the last line of stderr]), the
# distributed services (`raw(service, method, request)`: [status code name, details]) and the estimator.
_L = "tw:exec:L = lite()\n"
_LI = _L + "m, it = interp(L)\n"
_LA = _LI + "assert L.twl_interpreter_allocate_tensors(it) == 0\n"
_BIG_AS = (
    "import resource\nresource.setrlimit(resource.RLIMIT_AS, (16 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))\n"
)
CASES_S22 += [
    ("lite_ok", _LA + "out = run_add(L, it)"),
    (
        "lite_null_handles",
        _L + "out = [L.twl_interpreter_allocate_tensors(None), L.twl_interpreter_invoke(None),"
        " L.twl_interpreter_resize_input_tensor(None, 0, None, 0), L.twl_interpreter_get_input_count(None),"
        " L.twl_interpreter_get_output_count(None), L.twl_interpreter_get_input_tensor(None, 0),"
        " L.twl_interpreter_get_output_tensor(None, 0), L.twl_interpreter_get_input_tensor_by_name(None, b'x'),"
        " L.twl_interpreter_get_signature_input_tensor(None, b's', b'x'), L.twl_tensor_type(None),"
        " L.twl_tensor_num_dims(None), L.twl_tensor_dim(None, 0), L.twl_tensor_byte_size(None),"
        " L.twl_tensor_data(None), L.twl_tensor_name(None), L.twl_tensor_copy_from_buffer(None, None, 0),"
        " L.twl_tensor_copy_to_buffer(None, None, 0), L.twl_interpreter_create(None, None),"
        " L.twl_model_has_checksum(None), L.twl_interpreter_error_message(None),"
        " L.twl_model_create_from_file(None), L.twl_model_create_from_buffer(None, 0),"
        " L.twl_model_create_from_buffer_copy(None, 16)]\n"
        "L.twl_model_delete(None)\nL.twl_interpreter_delete(None)\nL.twl_interpreter_options_delete(None)\n"
        "L.twl_interpreter_options_set_num_threads(None, 2)\nL.twl_interpreter_set_op_profiler(None, None, None)",
    ),
    (
        "lite_tensor_index_oob",
        _LI + "out = [L.twl_interpreter_get_input_tensor(it, i) for i in (2, -1, 2**31 - 1, -2**31)]"
        " + [L.twl_interpreter_get_output_tensor(it, i) for i in (1, -1, 2**31 - 1)]",
    ),
    (
        "lite_tensor_dim_oob",
        _LI
        + "t = L.twl_interpreter_get_input_tensor(it, 0)\nout = [L.twl_tensor_dim(t, i) for i in (0, 1, 2, -1, 2**31 - 1)]",
    ),
    (
        "lite_names_missing",
        _LI
        + "out = [L.twl_interpreter_get_input_tensor_by_name(it, b'nope'), L.twl_interpreter_get_output_tensor_by_name(it, None), L.twl_interpreter_get_signature_input_tensor(it, b'nope', b'x'), L.twl_interpreter_get_signature_output_tensor(it, b'serving_default', b'nope')]",
    ),
    (
        "lite_invoke_before_allocate",
        _LI + "out = [L.twl_interpreter_invoke(it), L.twl_interpreter_error_message(it)[:80]]",
    ),
    (
        "lite_copy_before_allocate",
        _LI + "t = L.twl_interpreter_get_input_tensor(it, 0)\nb = np.zeros(6, np.float32)\n"
        "out = [L.twl_tensor_data(t), L.twl_tensor_copy_from_buffer(t, b.ctypes.data, 24), L.twl_tensor_copy_to_buffer(t, b.ctypes.data, 24)]",
    ),
    (
        "lite_copy_wrong_sizes",
        _LA + "t = L.twl_interpreter_get_input_tensor(it, 0)\nb = np.zeros(64, np.float32)\n"
        "out = [L.twl_tensor_copy_from_buffer(t, b.ctypes.data, n) for n in (0, 23, 25, 2**62, 2**64 - 1)]"
        " + [L.twl_tensor_copy_to_buffer(L.twl_interpreter_get_output_tensor(it, 0), b.ctypes.data, n) for n in (0, 23, 25, 2**64 - 1)]",
    ),
    (
        "lite_copy_null_data",
        _LA
        + "t = L.twl_interpreter_get_input_tensor(it, 0)\nout = [L.twl_tensor_copy_from_buffer(t, None, 24), L.twl_tensor_copy_to_buffer(t, None, 24)]",
    ),
    (
        "lite_resize_rank0",
        _LI
        + "out = [L.twl_interpreter_resize_input_tensor(it, 0, None, 0), L.twl_interpreter_allocate_tensors(it), L.twl_interpreter_error_message(it)[:120]]",
    ),
    (
        "lite_resize_negative",
        _LI
        + "d = dims(-1, 3)\nout = [L.twl_interpreter_resize_input_tensor(it, 0, d, 2), L.twl_interpreter_error_message(it)[:120]]",
    ),
    (
        "lite_resize_zero",
        _LI
        + "d = dims(0, 3)\nout = [L.twl_interpreter_resize_input_tensor(it, 0, d, 2), L.twl_interpreter_resize_input_tensor(it, 1, d, 2), L.twl_interpreter_allocate_tensors(it), L.twl_interpreter_invoke(it)]",
    ),
    (
        "lite_resize_huge_overflow",
        _LI + _BIG_AS + "d = dims(2**31 - 1, 2**31 - 1)\n"
        "out = [L.twl_interpreter_resize_input_tensor(it, 0, d, 2), L.twl_interpreter_resize_input_tensor(it, 1, d, 2), L.twl_interpreter_allocate_tensors(it), L.twl_interpreter_error_message(it)[:120]]",
    ),
    (
        "lite_resize_huge",
        _LI + _BIG_AS + "d = dims(2**31 - 1, 3)\n"
        "out = [L.twl_interpreter_resize_input_tensor(it, 0, d, 2), L.twl_interpreter_resize_input_tensor(it, 1, d, 2), L.twl_interpreter_allocate_tensors(it), L.twl_interpreter_error_message(it)[:120]]",
    ),
    (
        "lite_resize_huge_rank8",
        _LI + _BIG_AS + "d = dims(*[2**31 - 1] * 8)\n"
        "out = [L.twl_interpreter_resize_input_tensor(it, 0, d, 8), L.twl_interpreter_resize_input_tensor(it, 1, d, 8), L.twl_interpreter_allocate_tensors(it), L.twl_interpreter_error_message(it)[:120]]",
    ),
    (
        "lite_resize_num_dims_neg",
        _LI
        + "d = dims(2, 3)\nout = [L.twl_interpreter_resize_input_tensor(it, 0, d, -1), L.twl_interpreter_error_message(it)[:120]]",
    ),
    (
        "lite_resize_rank100",
        _LI
        + "d = dims(*[1] * 100)\nout = [L.twl_interpreter_resize_input_tensor(it, 0, d, 100), L.twl_interpreter_allocate_tensors(it), L.twl_interpreter_error_message(it)[:120]]",
    ),
    (
        "lite_resize_index_oob",
        _LI + "d = dims(2, 3)\nout = [L.twl_interpreter_resize_input_tensor(it, i, d, 2) for i in (2, -1, 2**31 - 1)]",
    ),
    ("lite_resize_output", _LI + "d = dims(4, 3)\nout = [L.twl_interpreter_resize_input_tensor(it, 2, d, 2)]"),
    (
        "lite_resize_mismatch_allocate",
        _LI
        + "d = dims(4, 3)\nout = [L.twl_interpreter_resize_input_tensor(it, 0, d, 2), L.twl_interpreter_allocate_tensors(it), L.twl_interpreter_error_message(it)[:120]]",
    ),
    (
        "lite_resize_after_allocate_invoke",
        _LA
        + "d = dims(4, 3)\nout = [L.twl_interpreter_resize_input_tensor(it, 0, d, 2), L.twl_interpreter_resize_input_tensor(it, 1, d, 2), L.twl_interpreter_invoke(it), L.twl_interpreter_error_message(it)[:120]]",
    ),
    (
        "lite_threads",
        _L + "out = []\nfor n in (0, -1, 10000, 2**31 - 1, -2**31):\n    o = L.twl_interpreter_options_create()\n"
        "    L.twl_interpreter_options_set_num_threads(o, n)\n    it = L.twl_interpreter_create(model(L), o)\n"
        "    L.twl_interpreter_options_delete(o)\n    out.append(bool(it) and run_add(L, it) if it else L.twl_last_error_message()[:80])\n"
        "    L.twl_interpreter_delete(it)",
    ),
    ("lite_model_dir", _L + "out = [L.twl_model_create_from_file(tmp('').encode()), L.twl_last_error_message()[:100]]"),
    (
        "lite_model_missing",
        _L + "out = [L.twl_model_create_from_file(tmp('nope.twl').encode()), L.twl_last_error_message()[:100]]",
    ),
    (
        "lite_model_empty",
        _L
        + "p = tmp('empty.twl')\nopen(p, 'wb').close()\nout = [L.twl_model_create_from_file(p.encode()), L.twl_last_error_message()[:100]]",
    ),
    (
        "lite_model_dev_null",
        _L + "out = [L.twl_model_create_from_file(b'/dev/null'), L.twl_last_error_message()[:100]]",
    ),
    (
        "lite_model_proc_file",
        _L + "out = [L.twl_model_create_from_file(b'/proc/self/status'), L.twl_last_error_message()[:100]]",
    ),
    (
        "lite_model_flags_unknown",
        _L
        + "b = add_twl()\nout = [L.twl_model_create_from_buffer_with_flags(b, len(b), 1 << 7), L.twl_model_create_from_file_with_flags(b'/x', 1 << 9), L.twl_last_error_message()[:100]]",
    ),
    (
        "lite_model_unaligned",
        _L
        + "buf = np.zeros(len(add_twl()) + 64, np.uint8)\noff = (-buf.ctypes.data) % 64 + 1\nbuf[off:off + len(add_twl())] = np.frombuffer(add_twl(), np.uint8)\nout = [L.twl_model_create_from_buffer(buf.ctypes.data + off, len(add_twl())), L.twl_last_error_message()[:100]]",
    ),
    (
        "lite_model_null_nonzero",
        _L
        + "out = [L.twl_model_create_from_buffer(None, 100), L.twl_model_create_from_buffer_copy(None, 100), L.twl_last_error_message()[:100]]",
    ),
    (
        "lite_model_delete_before_interpreter",
        _L
        + "b = add_twl()\nm = L.twl_model_create_from_buffer_copy(b, len(b))\nit = L.twl_interpreter_create(m, None)\nL.twl_model_delete(m)\nL.twl_interpreter_allocate_tensors(it)\nout = run_add(L, it)",
    ),
    (
        "lite_model_truncated_every_prefix",
        _L
        + "b = add_twl()\nout = sorted(set(bool(L.twl_model_create_from_buffer_copy(b[:n], n)) for n in range(len(b))))",
    ),
    (
        "lite_model_truncated_every_prefix_no_checksum",
        _L + "b = add_twl()\nout = sorted(set(load_and_run(L, b[:n]) for n in range(len(b))))",
    ),
    (
        "lite_model_corrupt_each_byte",
        _L
        + "b = add_twl()\nout = sorted(set(load_and_run(L, b[:i] + bytes([v]) + b[i + 1:]) for i in range(len(b)) for v in (0, 0xff, 0x7f, 0x80)))",
    ),
    (
        "lite_model_corrupt_each_byte_xor",
        _L
        + "b = add_twl()\nout = sorted(set(load_and_run(L, b[:i] + bytes([b[i] ^ 1]) + b[i + 1:]) for i in range(len(b))))",
    ),
    (
        "lite_model_corrupt_words",
        _L
        + "import struct as st\nb = add_twl()\nout = sorted(set(load_and_run(L, b[:i] + st.pack('<i', v) + b[i + 4:]) for i in range(0, len(b) - 4, 2) for v in (-1, 2**31 - 1, -2**31, 2**20, 7)))",
    ),
    ("lite_rich_model_ok", _L + "out = load_and_run(L, rich_twl())"),
    (
        "lite_rich_model_corrupt_sampled",
        _L + "b = rich_twl()\nout = sorted(set(load_and_run(L, b[:i] + bytes([v]) + b[i + 1:]) "
        "for i in range(0, len(b), 7) for v in (0, 0xff, b[i] ^ 1)))",
    ),
    (
        "lite_rich_model_corrupt_words_sampled",
        _L
        + "import struct as st\nb = rich_twl()\nout = sorted(set(load_and_run(L, b[:i] + st.pack('<i', v) + b[i + 4:]) "
        "for i in range(0, len(b) - 4, 11) for v in (-1, 2**31 - 1, 2**20)))",
    ),
    ("lite_op_profiler_null", _LA + "L.twl_interpreter_set_op_profiler(it, None, None)\nout = run_add(L, it)"),
    ("cli_no_args", "tw:exec:out = cli()"),
    ("cli_unknown_command", "tw:exec:out = cli('frobnicate', 'x.twl')"),
    ("cli_inspect_dir", "tw:exec:out = cli('inspect', tmp(''))"),
    ("cli_inspect_missing", "tw:exec:out = cli('inspect', tmp('nope.twl'))"),
    ("cli_inspect_empty", "tw:exec:p = tmp('e.twl')\nopen(p, 'wb').close()\nout = cli('inspect', p)"),
    (
        "cli_inspect_truncated",
        "tw:exec:p = tmp('t.twl')\nopen(p, 'wb').write(add_twl()[:300])\nout = cli('inspect', p)",
    ),
    (
        "cli_inspect_garbage",
        "tw:exec:p = tmp('g.twl')\nopen(p, 'wb').write(b'TWL0' + b'\\xff' * 200)\nout = cli('inspect', p)",
    ),
    (
        "cli_inspect_batch0",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nout = cli('inspect', p, '--batch', '0')",
    ),
    (
        "cli_inspect_batch_neg",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nout = cli('inspect', p, '--batch', '-3')",
    ),
    (
        "cli_inspect_batch_huge",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nout = cli('inspect', p, '--batch', str(2**31))",
    ),
    (
        "cli_inspect_batch_big",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nout = cli('inspect', p, '--batch', str(2**31 - 1))",
    ),
    (
        "cli_benchmark_threads0",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nout = cli('benchmark', p, '--num_threads', '0', '--runs', '2')",
    ),
    (
        "cli_benchmark_threads_neg",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nout = cli('benchmark', p, '--num_threads', '-1', '--runs', '2')",
    ),
    (
        "cli_benchmark_threads_huge",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nout = cli('benchmark', p, '--num_threads', '10000', '--runs', '2')",
    ),
    (
        "cli_benchmark_runs0",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nout = cli('benchmark', p, '--runs', '0')",
    ),
    (
        "cli_benchmark_runs_neg",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nout = cli('benchmark', p, '--runs', '-5')",
    ),
    (
        "cli_run_no_inputs",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nout = cli('run', p, '--output', tmp('o.npz'))",
    ),
    (
        "cli_run_wrong_shape",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nnp.save(tmp('x.npy'), np.zeros([5, 7], np.float32))\nout = cli('run', p, '--input', 'x=' + tmp('x.npy'), '--input', 'y=' + tmp('x.npy'), '--output', tmp('o.npz'))",
    ),
    (
        "cli_run_wrong_dtype",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nnp.save(tmp('x.npy'), np.zeros([2, 3], np.int64))\nout = cli('run', p, '--input', 'x=' + tmp('x.npy'), '--input', 'y=' + tmp('x.npy'), '--output', tmp('o.npz'))",
    ),
    (
        "cli_run_unknown_input",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nnp.save(tmp('x.npy'), np.zeros([2, 3], np.float32))\nout = cli('run', p, '--input', 'q=' + tmp('x.npy'), '--output', tmp('o.npz'))",
    ),
    (
        "cli_run_input_not_npy",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nopen(tmp('x.txt'), 'w').write('hello')\nout = cli('run', p, '--input', 'x=' + tmp('x.txt'), '--input', 'y=' + tmp('x.txt'), '--output', tmp('o.npz'))",
    ),
    (
        "cli_run_input_no_equals",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nout = cli('run', p, '--input', 'x', '--output', tmp('o.npz'))",
    ),
    (
        "cli_run_input_object_npy",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nnp.save(tmp('o.npy'), np.array([{'a': 1}], dtype=object), allow_pickle=True)\nout = cli('run', p, '--input', 'x=' + tmp('o.npy'), '--input', 'y=' + tmp('o.npy'), '--output', tmp('o.npz'))",
    ),
    (
        "cli_run_output_to_dir",
        "tw:exec:p = tmp('a.twl')\nopen(p, 'wb').write(add_twl())\nnp.save(tmp('x.npy'), np.zeros([2, 3], np.float32))\nout = cli('run', p, '--input', 'x=' + tmp('x.npy'), '--input', 'y=' + tmp('x.npy'), '--output', tmp(''))",
    ),
]

_W = "tensorweave.WorkerService"
_M = "tensorweave.MasterService"
_ENC = "wire.encode({})"
CASES_S22 += [
    ("rpc_get_status_ok", f"tw:exec:out = raw({_W!r}, 'GetStatus', {_ENC.format('{}')})[0]"),
    ("rpc_empty_message", f"tw:exec:out = raw({_W!r}, 'RunGraph', b'')"),
    ("rpc_short_header", f"tw:exec:out = raw({_W!r}, 'RunGraph', b'\\xff\\xff\\xff\\x7f{{}}')"),
    ("rpc_header_not_json", f"tw:exec:out = raw({_W!r}, 'RunGraph', struct.pack('<I', 3) + b'{{{{x')"),
    ("rpc_header_list", f"tw:exec:out = raw({_W!r}, 'RunGraph', {_ENC.format('[1, 2]')})"),
    (
        "rpc_run_graph_unknown_handle",
        f"tw:exec:out = raw({_W!r}, 'RunGraph', {_ENC.format({'handle': 12345, 'step_id': 1})})",
    ),
    (
        "rpc_run_graph_huge_handle",
        f"tw:exec:out = raw({_W!r}, 'RunGraph', {_ENC.format({'handle': 2**80, 'step_id': 1})})",
    ),
    ("rpc_run_graph_neg_handle", f"tw:exec:out = raw({_W!r}, 'RunGraph', {_ENC.format({'handle': -1, 'step_id': 1})})"),
    (
        "rpc_run_graph_huge_step",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode(dict(handle=h, step_id=2**70, fetches=['y:0'])))",
    ),
    (
        "rpc_run_graph_neg_step",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode_tensors(dict(handle=h, step_id=-5, feeds=['x:0'], fetches=['y:0']), [np.ones(2, np.float32)]))",
    ),
    (
        "rpc_run_graph_str_handle",
        f"tw:exec:out = raw({_W!r}, 'RunGraph', {_ENC.format({'handle': '1', 'step_id': 1})})",
    ),
    (
        "rpc_run_graph_ok",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode_tensors(dict(handle=h, step_id=7, feeds=['x:0'], fetches=['y:0']), [np.ones(2, np.float32)]))[0]",
    ),
    (
        "rpc_run_graph_feed_wrong_dtype",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode_tensors(dict(handle=h, step_id=8, feeds=['x:0'], fetches=['y:0']), [np.ones(2, np.int32)]))",
    ),
    (
        "rpc_run_graph_feed_wrong_shape",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode_tensors(dict(handle=h, step_id=9, feeds=['x:0'], fetches=['y:0']), [np.ones([3, 3], np.float32)]))",
    ),
    (
        "rpc_run_graph_feed_unknown",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode_tensors(dict(handle=h, step_id=10, feeds=['nope:0'], fetches=['y:0']), [np.ones(2, np.float32)]))",
    ),
    (
        "rpc_run_graph_fetch_unknown",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode_tensors(dict(handle=h, step_id=11, feeds=['x:0'], fetches=['nope:0']), [np.ones(2, np.float32)]))",
    ),
    (
        "rpc_run_graph_feed_missing",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode(dict(handle=h, step_id=12, fetches=['y:0'], timeout_ms=3000)))",
    ),
    (
        "rpc_meta_bytes_short",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode(dict(handle=h, step_id=13, feeds=['x:0'], fetches=['y:0'], tensors=[dict(dtype=1, shape=[1000], nbytes=4000)]), [b'\\x00' * 4]))",
    ),
    (
        "rpc_meta_nbytes_wrong",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode(dict(handle=h, step_id=14, feeds=['x:0'], fetches=['y:0'], tensors=[dict(dtype=1, shape=[2], nbytes=16)]), [b'\\x00' * 16]))",
    ),
    (
        "rpc_meta_shape_neg",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode(dict(handle=h, step_id=15, feeds=['x:0'], fetches=['y:0'], tensors=[dict(dtype=1, shape=[-2, -4], nbytes=32)]), [b'\\x00' * 32]))",
    ),
    (
        "rpc_meta_shape_huge",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode(dict(handle=h, step_id=16, feeds=['x:0'], fetches=['y:0'], tensors=[dict(dtype=1, shape=[2**40], nbytes=2**42)]), [b'\\x00' * 8]))",
    ),
    (
        "rpc_meta_shape_overflow",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode(dict(handle=h, step_id=17, feeds=['x:0'], fetches=['y:0'], tensors=[dict(dtype=1, shape=[2**32, 2**32, 0], nbytes=0)]), []))",
    ),
    (
        "rpc_meta_dtype_unknown",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode(dict(handle=h, step_id=18, feeds=['x:0'], fetches=['y:0'], tensors=[dict(dtype=999, shape=[2], nbytes=8)]), [b'\\x00' * 8]))",
    ),
    (
        "rpc_meta_string_lengths_bad",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode(dict(handle=h, step_id=19, feeds=['x:0'], fetches=['y:0'], tensors=[dict(dtype=7, shape=[2], nbytes=4, lengths=[3, 5])]), [b'abcd']))",
    ),
    (
        "rpc_meta_string_lengths_neg",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode(dict(handle=h, step_id=20, feeds=['x:0'], fetches=['y:0'], tensors=[dict(dtype=7, shape=[2], nbytes=4, lengths=[-4, 8])]), [b'abcd']))",
    ),
    (
        "rpc_meta_not_dict",
        f"tw:exec:h = register(graph_x2())\nout = raw({_W!r}, 'RunGraph', wire.encode(dict(handle=h, step_id=21, feeds=['x:0'], fetches=['y:0'], tensors=[5]), []))",
    ),
    ("rpc_register_garbage", f"tw:exec:out = raw({_W!r}, 'RegisterGraph', wire.encode({{}}, [b'\\xff\\x01garbage']))"),
    ("rpc_register_empty", f"tw:exec:out = raw({_W!r}, 'RegisterGraph', wire.encode({{}}))[0]"),
    (
        "rpc_register_bad_op",
        f"tw:exec:gd = tf.GraphDef()\nn = gd.node.add()\nn.name = 'a'\nn.op = 'NoSuchOpXyz'\nout = raw({_W!r}, 'RegisterGraph', wire.encode({{}}, [gd.SerializeToString()]))",
    ),
    (
        "rpc_register_cycle",
        f"tw:exec:from google.protobuf import text_format\ngd = text_format.Parse(\"node {{ name: 'a' op: 'Identity' input: 'b' attr {{ key: 'T' value {{ type: DT_FLOAT }} }} }} node {{ name: 'b' op: 'Identity' input: 'a' attr {{ key: 'T' value {{ type: DT_FLOAT }} }} }}\", tf.GraphDef())\nh = register(gd)\nout = raw({_W!r}, 'RunGraph', wire.encode(dict(handle=h, step_id=22, fetches=['a:0'], timeout_ms=3000)))",
    ),
    ("rpc_deregister_unknown", f"tw:exec:out = raw({_W!r}, 'DeregisterGraph', {_ENC.format({'handle': 999999})})"),
    (
        "rpc_deregister_twice",
        f"tw:exec:h = register(graph_x2())\nr1 = raw({_W!r}, 'DeregisterGraph', wire.encode(dict(handle=h)))\nout = [r1[0], raw({_W!r}, 'DeregisterGraph', wire.encode(dict(handle=h)))]",
    ),
    ("rpc_cleanup_huge_step", f"tw:exec:out = raw({_W!r}, 'CleanupStep', {_ENC.format({'step_id': 2**70})})"),
    ("rpc_abort_unknown_step", f"tw:exec:out = raw({_W!r}, 'AbortStep', {_ENC.format({'step_id': 424242})})"),
    (
        "rpc_abort_bad_status",
        f"tw:exec:out = raw({_W!r}, 'AbortStep', {_ENC.format({'step_id': 424243, 'code': 'x', 'message': 5})})",
    ),
    ("rpc_reset_bad_containers", f"tw:exec:out = raw({_W!r}, 'Reset', {_ENC.format({'containers': 'abc'})})"),
    (
        "rpc_push_unknown_step",
        f"tw:exec:out = raw({_W!r}, 'PushTensor', wire.encode_tensors(dict(step_id=987654, key='a;b;c;d;e'), [np.ones(2, np.float32)]))",
    ),
    (
        "rpc_push_bad_key",
        f"tw:exec:out = raw({_W!r}, 'PushTensor', wire.encode_tensors(dict(step_id=987655, key=''), [np.ones(2, np.float32)]))",
    ),
    (
        "rpc_push_no_tensor",
        f"tw:exec:out = raw({_W!r}, 'PushTensor', wire.encode(dict(step_id=987656, key='k', tensors=[])))",
    ),
    (
        "rpc_push_short_payload",
        f"tw:exec:out = raw({_W!r}, 'PushTensor', wire.encode(dict(step_id=987657, key='k', tensors=[dict(dtype=1, shape=[100], nbytes=400)]), [b'\\x00' * 8]))",
    ),
    (
        "rpc_pushes_bad_entries",
        f"tw:exec:out = raw({_W!r}, 'PushTensors', wire.encode_tensors(dict(pushes=[[1, 'k', 0], 'x']), [np.ones(2, np.float32)]))",
    ),
    (
        "rpc_pushes_index_oob",
        f"tw:exec:out = raw({_W!r}, 'PushTensors', wire.encode_tensors(dict(pushes=[[1, 'k', 5, False]]), [np.ones(2, np.float32)]))",
    ),
    (
        "rpc_stream_truncated",
        "tw:exec:out = raw_stream([wire.encode(dict(step_id=5, key='k', tensors=[dict(dtype=1, shape=[100], nbytes=400)]), [b'\\x00' * 40])])",
    ),
    (
        "rpc_stream_oversized",
        "tw:exec:out = raw_stream([wire.encode(dict(step_id=5, key='k', tensors=[dict(dtype=1, shape=[2**40], nbytes=2**42)]), [b'\\x00' * 40])])",
    ),
    (
        "rpc_stream_too_long",
        "tw:exec:out = raw_stream([wire.encode(dict(step_id=5, key='k', tensors=[dict(dtype=1, shape=[4], nbytes=16)]), [b'\\x00' * 8]), b'\\x00' * 16])",
    ),
    ("rpc_stream_empty", "tw:exec:out = raw_stream([])"),
    ("rpc_stream_garbage_first", "tw:exec:out = raw_stream([b'\\x01'])"),
    (
        "rpc_stream_string",
        "tw:exec:out = raw_stream([wire.encode(dict(step_id=5, key='k', tensors=[dict(dtype=7, shape=[1], nbytes=3, lengths=[3])]), [b'abc'])])",
    ),
    (
        "rpc_calls_unknown_method",
        f"tw:exec:out = raw({_W!r}, 'Calls', [wire.encode(dict(method='Nope'))], kind='stream_stream')",
    ),
    (
        "rpc_calls_method_not_str",
        f"tw:exec:out = raw({_W!r}, 'Calls', [wire.encode(dict(method=[1]))], kind='stream_stream')",
    ),
    ("rpc_unknown_rpc", f"tw:exec:out = raw({_W!r}, 'NoSuchMethod', b'')"),
    (
        "rpc_master_run_unknown_session",
        f"tw:exec:out = raw({_M!r}, 'RunStep', {_ENC.format({'session_handle': 'nope', 'fetches': ['a:0']})})",
    ),
    ("rpc_master_run_handle_int", f"tw:exec:out = raw({_M!r}, 'RunStep', {_ENC.format({'session_handle': 5})})"),
    (
        "rpc_master_create_garbage",
        f"tw:exec:out = raw({_M!r}, 'CreateSession', wire.encode({{}}, [b'\\xff\\x02garbage']))",
    ),
    (
        "rpc_master_extend_unknown",
        f"tw:exec:out = raw({_M!r}, 'ExtendSession', {_ENC.format({'session_handle': 'nope'})})",
    ),
    (
        "rpc_master_close_unknown",
        f"tw:exec:out = raw({_M!r}, 'CloseSession', {_ENC.format({'session_handle': 'nope'})})",
    ),
    ("rpc_master_reset_bad", f"tw:exec:out = raw({_M!r}, 'Reset', {_ENC.format({'containers': [1, 2]})})"),
    (
        "dist_session_unreachable",
        (
            "tw:exec:import time\nt0 = time.time()\nc = tf.constant(1.0)\n"
            "try:\n    with tf.Session('grpc://127.0.0.1:1', config=tf.ConfigProto(operation_timeout_in_ms=3000)) as s:\n        s.run(c)\n    out = 'no error'\n"
            "except Exception as e:\n    out = [type(e).__name__, time.time() - t0 < 30]"
        ),
    ),
    (
        "dist_session_unreachable_default",
        (
            "tw:exec:import time\nt0 = time.time()\nc = tf.constant(1.0)\n"
            "try:\n    with tf.Session('grpc://127.0.0.1:1') as s:\n        s.run(c)\n    out = 'no error'\n"
            "except Exception as e:\n    out = [type(e).__name__, time.time() - t0 < 30]"
        ),
    ),
    ("dist_session_bad_target", "tw:exec:c = tf.constant(1.0)\nwith tf.Session('grpc://') as s:\n    out = s.run(c)"),
    (
        "dist_session_bad_scheme",
        "tw:exec:c = tf.constant(1.0)\nwith tf.Session('http://x:1') as s:\n    out = s.run(c)",
    ),
    (
        "dist_server_job_not_in_cluster",
        "exec:out = tf.train.Server(tf.train.ClusterSpec({'w': ['localhost:0']}), job_name='nope', task_index=0, start=False).target",
    ),
    (
        "dist_server_task_oob",
        "exec:out = tf.train.Server(tf.train.ClusterSpec({'w': ['localhost:0']}), job_name='w', task_index=3, start=False).target",
    ),
    (
        "dist_server_bad_protocol",
        "exec:out = tf.train.Server(tf.train.ClusterSpec({'w': ['localhost:0']}), job_name='w', task_index=0, protocol='nope', start=False).target",
    ),
    ("dist_cluster_spec_bad_type", "exec:out = tf.train.ClusterSpec({'w': 5}).as_dict()"),
    ("dist_cluster_spec_neg_task", "exec:out = tf.train.ClusterSpec({'w': {-1: 'a:1'}}).as_dict()"),
    ("dist_cluster_spec_not_dict", "exec:out = tf.train.ClusterSpec(['a:1']).as_dict()"),
    ("dist_cluster_task_address_oob", "exec:out = tf.train.ClusterSpec({'w': ['a:1']}).task_address('w', 5)"),
    ("dist_replica_device_setter_bad", "exec:out = tf.train.replica_device_setter(ps_tasks=-1)"),
]

_EST = (
    "tw:exec:def model_fn(features, labels, mode):\n"
    "    w = tf.get_variable('w', [], initializer=tf.zeros_initializer())\n"
    "    loss = tf.reduce_mean(tf.square(features['x'] * w - labels))\n"
    "    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step()), predictions={'y': features['x'] * w})\n"
    "e = tf.estimator.Estimator(model_fn, model_dir=tmp('est_' + str(np.random.randint(1 << 30))))\n"
)
CASES_S22 += [
    ("estimator_ok", _EST + "e.train(lambda: ({'x': tf.ones([4])}, tf.ones([4])), steps=1)\nout = 1"),
    ("estimator_input_fn_none", _EST + "e.train(lambda: None, steps=1)\nout = 1"),
    ("estimator_input_fn_int", _EST + "e.train(lambda: 5, steps=1)\nout = 1"),
    ("estimator_input_fn_triple", _EST + "e.train(lambda: ({'x': tf.ones([4])}, tf.ones([4]), 3), steps=1)\nout = 1"),
    (
        "estimator_input_fn_numpy",
        _EST + "e.train(lambda: ({'x': np.ones([4], np.float32)}, np.ones([4], np.float32)), steps=1)\nout = 1",
    ),
    ("estimator_input_fn_not_callable", _EST + "e.train(5, steps=1)\nout = 1"),
    ("estimator_input_fn_args", _EST + "e.train(lambda a, b, c: None, steps=1)\nout = 1"),
    ("estimator_steps_neg", _EST + "e.train(lambda: ({'x': tf.ones([4])}, tf.ones([4])), steps=-1)\nout = 1"),
    (
        "estimator_steps_and_max",
        _EST + "e.train(lambda: ({'x': tf.ones([4])}, tf.ones([4])), steps=1, max_steps=1)\nout = 1",
    ),
    ("estimator_predict_no_ckpt", _EST + "out = list(e.predict(lambda: {'x': tf.ones([2])}))"),
    ("estimator_evaluate_no_ckpt", _EST + "out = e.evaluate(lambda: ({'x': tf.ones([4])}, tf.ones([4])), steps=1)"),
    (
        "estimator_model_fn_junk",
        "tw:exec:e = tf.estimator.Estimator(lambda features, labels, mode: 5, model_dir=tmp('estj'))\ne.train(lambda: ({'x': tf.ones([4])}, tf.ones([4])), steps=1)\nout = 1",
    ),
    (
        "estimator_model_fn_bad_sig",
        "tw:exec:out = tf.estimator.Estimator(lambda a, b, c, d, e: None, model_dir=tmp('estk'))",
    ),
    ("estimator_labels_mismatch", _EST + "e.train(lambda: ({'x': tf.ones([4])}, tf.ones([3])), steps=1)\nout = 1"),
    (
        "estimator_dataset_junk",
        _EST + "e.train(lambda: tf.data.Dataset.from_tensor_slices([1.0, 2.0]), steps=1)\nout = 1",
    ),
]

# Round 3, more ops (--set s22): tf.data sizes, sampling, sequence and sparse ops with hostile values.
_DSI = "tf.data.make_one_shot_iterator({}).get_next()"
CASES_S22 += [
    ("data_shuffle_huge_buffer", _DSI.format("tf.data.Dataset.range(3).shuffle(2**62, seed=1)")),
    ("data_shuffle_zero_buffer", _DSI.format("tf.data.Dataset.range(3).shuffle(0)")),
    ("data_shuffle_neg_buffer", _DSI.format("tf.data.Dataset.range(3).shuffle(-5)")),
    ("data_batch_huge", _DSI.format("tf.data.Dataset.range(3).batch(2**62)")),
    ("data_batch_zero", _DSI.format("tf.data.Dataset.range(3).batch(0)")),
    ("data_prefetch_huge", _DSI.format("tf.data.Dataset.range(3).prefetch(2**62)")),
    ("data_repeat_neg2", _DSI.format("tf.data.Dataset.range(3).repeat(-2)")),
    ("data_take_huge", _DSI.format("tf.data.Dataset.range(3).take(2**63 - 1)")),
    ("data_range_huge", _DSI.format("tf.data.Dataset.range(0, 2**63 - 1, 2**62)")),
    ("data_range_zero_step", _DSI.format("tf.data.Dataset.range(0, 5, 0)")),
    ("data_map_parallel0", _DSI.format("tf.data.Dataset.range(3).map(lambda x: x, num_parallel_calls=0)")),
    ("data_map_parallel_neg", _DSI.format("tf.data.Dataset.range(3).map(lambda x: x, num_parallel_calls=-5)")),
    (
        "data_padded_batch_neg",
        _DSI.format("tf.data.Dataset.from_tensor_slices([[1, 2, 3]]).padded_batch(1, padded_shapes=[-5])"),
    ),
    ("data_window_zero", "exec:ds = tf.data.Dataset.range(3).window(0)\nout = 1"),
    ("data_shard_bad", _DSI.format("tf.data.Dataset.range(3).shard(2, 5)")),
    ("data_shard_zero", _DSI.format("tf.data.Dataset.range(3).shard(0, 0)")),
    ("data_from_tensor_slices_mismatch", _DSI.format("tf.data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))")),
    (
        "data_from_generator_wrong_type",
        "exec:ds = tf.data.Dataset.from_generator(lambda: iter([1.5, 'x']), tf.int64)\nfetches = " + _DSI.format("ds"),
    ),
    (
        "data_from_generator_wrong_shape",
        "exec:ds = tf.data.Dataset.from_generator(lambda: iter([[1, 2]]), tf.int64, tf.TensorShape([3]))\nfetches = "
        + _DSI.format("ds"),
    ),
    ("data_zip_mismatch_struct", _DSI.format("tf.data.Dataset.zip((tf.data.Dataset.range(3), 5))")),
    (
        "data_concat_mismatch",
        _DSI.format("tf.data.Dataset.range(3).concatenate(tf.data.Dataset.from_tensor_slices(['a']))"),
    ),
    ("data_unbatch_scalar", _DSI.format("tf.data.Dataset.range(3).unbatch()")),
    (
        "data_cache_dir_is_file",
        "exec:p = tmp('cachefile')\nopen(p, 'w').write('x')\nds = tf.data.Dataset.range(3).cache(p + '/sub/c')\nfetches = "
        + _DSI.format("ds"),
    ),
    ("data_text_line_dir", _DSI.format("tf.data.TextLineDataset(tmp(''))")),
    (
        "data_fixed_length_zero",
        "exec:p = tmp('f.bin')\nopen(p, 'wb').write(b'abcd')\nfetches = "
        + _DSI.format("tf.data.FixedLengthRecordDataset(p, 0)"),
    ),
    (
        "data_fixed_length_neg",
        "exec:p = tmp('f.bin')\nopen(p, 'wb').write(b'abcd')\nfetches = "
        + _DSI.format("tf.data.FixedLengthRecordDataset(p, -4)"),
    ),
    (
        "data_fixed_length_huge_header",
        "exec:p = tmp('f.bin')\nopen(p, 'wb').write(b'abcd')\nfetches = "
        + _DSI.format("tf.data.FixedLengthRecordDataset(p, 2, header_bytes=2**62)"),
    ),
    ("sampler_unique_too_few", "tf.nn.log_uniform_candidate_sampler([[0]], 1, 10, True, 5)[0]"),
    (
        "sampler_uniform_unique_too_few",
        "tf.nn.uniform_candidate_sampler(tf.constant([[0]], tf.int64), 1, 10, True, 5)[0]",
    ),
    ("sampler_range_zero", "tf.nn.uniform_candidate_sampler(tf.constant([[0]], tf.int64), 1, 2, False, 0)[0]"),
    (
        "sampler_num_true_mismatch",
        "tf.nn.uniform_candidate_sampler(tf.constant([[0, 1]], tf.int64), 1, 2, False, 5)[0]",
    ),
    (
        "sampled_softmax_too_many",
        "tf.nn.sampled_softmax_loss(tf.zeros([3, 2]), tf.zeros([3]), tf.constant([[0]], tf.int64), tf.zeros([1, 2]), 10, 3)",
    ),
    ("random_categorical_huge", f"tf.random.categorical(tf.zeros([2**12, 2]), {PH}(2**31 - 1, []))"),
    ("random_categorical_neg", f"tf.random.categorical(tf.zeros([1, 2]), {PH}(-1, []))"),
    ("random_categorical_zero_classes", "tf.random.categorical(tf.zeros([1, 0]), 2)"),
    ("random_gamma_neg_alpha", "tf.random.gamma([3], -1.0, seed=1)"),
    ("random_poisson_neg_lam", "tf.random.poisson(-1.0, [3], seed=1)"),
    ("random_shuffle_scalar", "tf.random.shuffle(tf.constant(1.0))"),
    ("roll_min_shift", f"tf.roll(tf.range(5), {PH}(tf.constant(-2**63, tf.int64), []), 0)"),
    ("reverse_sequence_too_long", "tf.reverse_sequence(tf.zeros([2, 3]), [5, 1], seq_axis=1, batch_axis=0)"),
    ("reverse_sequence_neg", "tf.reverse_sequence(tf.zeros([2, 3]), [-1, 1], seq_axis=1, batch_axis=0)"),
    ("reverse_sequence_same_axes", "tf.reverse_sequence(tf.zeros([2, 3]), [1, 1], seq_axis=0, batch_axis=0)"),
    ("unravel_index_overflow", "tf.unravel_index(tf.constant([1], tf.int64), tf.constant([2**40, 2**40], tf.int64))"),
    ("searchsorted_batch_mismatch", "tf.searchsorted(tf.zeros([2, 3]), tf.zeros([3, 1]))"),
    ("searchsorted_rank0", "tf.searchsorted(tf.constant(1.0), tf.constant(1.0))"),
    ("ctc_greedy_seq_too_long", "tf.nn.ctc_greedy_decoder(tf.zeros([2, 1, 3]), [5])[1]"),
    ("ctc_greedy_seq_neg", "tf.nn.ctc_greedy_decoder(tf.zeros([2, 1, 3]), [-1])[1]"),
    ("ctc_beam_top_paths_big", "tf.nn.ctc_beam_search_decoder(tf.zeros([2, 1, 3]), [2], beam_width=2, top_paths=5)[1]"),
    ("ctc_loss_label_oob", "tf.nn.ctc_loss(tf.SparseTensor([[0, 0]], [7], [1, 1]), tf.zeros([2, 1, 3]), [2])"),
    ("ctc_loss_seq_too_long", "tf.nn.ctc_loss(tf.SparseTensor([[0, 0]], [1], [1, 1]), tf.zeros([2, 1, 3]), [9])"),
    (
        "conv2d_backprop_input_huge",
        "tf.nn.conv2d_backprop_input([1, 2**30, 2**30, 1], tf.zeros([2, 2, 1, 1]), tf.zeros([1, 2, 2, 1]), [1, 1, 1, 1], 'SAME')",
    ),
    (
        "conv2d_backprop_input_mismatch",
        "tf.nn.conv2d_backprop_input([1, 9, 9, 1], tf.zeros([2, 2, 1, 1]), tf.zeros([1, 2, 2, 1]), [1, 1, 1, 1], 'VALID')",
    ),
    (
        "conv2d_backprop_filter_mismatch",
        "tf.nn.conv2d_backprop_filter(tf.zeros([1, 4, 4, 1]), [2, 2, 1, 1], tf.zeros([1, 9, 9, 1]), [1, 1, 1, 1], 'VALID')",
    ),
    (
        "max_pool_argmax_bad",
        "tf.nn.max_pool_with_argmax(tf.zeros([1, 2, 2, 1]), [1, 5, 5, 1], [1, 1, 1, 1], 'VALID')[1]",
    ),
    (
        "dilation2d_bad",
        "tf.nn.dilation2d(tf.zeros([1, 2, 2, 1]), tf.zeros([5, 5, 1]), [1, 1, 1, 1], [1, 1, 1, 1], 'VALID')",
    ),
    ("fractional_max_pool_ratio_small", "tf.nn.fractional_max_pool(tf.zeros([1, 4, 4, 1]), [1.0, 0.5, 0.5, 1.0])[0]"),
    (
        "fractional_avg_pool_ratio_huge",
        "tf.nn.fractional_avg_pool(tf.zeros([1, 4, 4, 1]), [1.0, 100.0, 100.0, 1.0])[0]",
    ),
    ("lrn_depth_huge", "tf.nn.lrn(tf.zeros([1, 2, 2, 3]), 2**30)"),
    ("lrn_depth_neg", "tf.nn.lrn(tf.zeros([1, 2, 2, 3]), -1)"),
    (
        "batch_norm_shape_mismatch",
        "tf.nn.batch_normalization(tf.zeros([2, 3]), tf.zeros([4]), tf.ones([4]), None, None, 1e-3)",
    ),
    ("fused_batch_norm_bad_scale", "tf.nn.fused_batch_norm(tf.zeros([1, 2, 2, 3]), tf.ones([4]), tf.zeros([3]))[0]"),
    ("quantize_min_gt_max", "tf.quantization.quantize(tf.zeros([2]), 1.0, -1.0, tf.quint8)[0]"),
    ("matrix_diag_part_k_oob", "tf.linalg.diag_part(tf.zeros([2, 3]), k=5)"),
    ("matrix_set_diag_mismatch", "tf.linalg.set_diag(tf.zeros([2, 3]), tf.zeros([5]))"),
    (
        "sparse_reshape_huge",
        "tf.sparse.reshape(tf.SparseTensor([[0]], [1.0], [4]), tf.constant([2**40, 2**40], tf.int64))",
    ),
    (
        "sparse_reorder_oob",
        "tf.sparse.to_dense(tf.sparse.reorder(tf.SparseTensor(tf.constant([[9]], tf.int64), [1.0], [4])))",
    ),
    (
        "sparse_split_too_many",
        "tf.sparse.to_dense(tf.sparse.split(sp_input=tf.SparseTensor(tf.constant([[0]], tf.int64), [1.0], [2]), num_split=5, axis=0)[0])",
    ),
    (
        "sparse_segment_mean_huge_num",
        f"tf.sparse.segment_mean(tf.zeros([2, 2]), [0], [0], num_segments={PH}(2**40, []))",
    ),
    ("string_substr_huge", "tf.strings.substr('abc', 2**40, 1)"),
    ("string_substr_neg_len", "tf.strings.substr('abc', 0, -1)"),
    ("string_to_number_int_overflow", "tf.strings.to_number('99999999999999999999', tf.int32)"),
    ("string_format_placeholders", "tf.strings.format('{} {}', [1])"),
    ("reduce_join_sep_huge", "tf.strings.reduce_join(tf.fill([2**10], 'ab'), separator='x' * 2**12)"),
    ("as_string_bad_width", "tf.as_string(1.5, width=-5)"),
    ("decode_raw_odd_bytes", "tf.io.decode_raw(['abc'], tf.int32)"),
    ("encode_base64_then_bad_decode", "tf.io.decode_base64(['!!!'])"),
    ("bitcast_bad_shape", "tf.bitcast(tf.zeros([3], tf.int8), tf.int32)"),
    ("one_hot_neg_depth_static", "tf.one_hot([0], -5)"),
    ("sequence_mask_neg_maxlen", "tf.sequence_mask([1, 2], -3)"),
    ("matrix_band_part_huge", f"tf.linalg.band_part(tf.zeros([3, 3]), {PH}(tf.constant(2**40, tf.int64), []), 0)"),
    ("tensor_array_huge_size", "exec:ta = tf.TensorArray(tf.float32, size=2**40)\nfetches = ta.size()"),
    ("tensor_array_write_neg", "exec:ta = tf.TensorArray(tf.float32, size=2).write(-1, 1.0)\nfetches = ta.stack()"),
    (
        "tensor_array_split_bad_lengths",
        "exec:ta = tf.TensorArray(tf.float32, size=2).split([1.0, 2.0, 3.0], [2, 2])\nfetches = ta.concat()",
    ),
    (
        "tensor_array_scatter_oob",
        "exec:ta = tf.TensorArray(tf.float32, size=2).scatter([0, 7], [1.0, 2.0])\nfetches = ta.stack()",
    ),
    ("while_loop_max_iter_neg", "tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0], maximum_iterations=-1)"),
    ("py_func_raises", "tf.py_func(lambda x: 1 / 0, [1.0], tf.float32)"),
    ("py_func_wrong_dtype", "tf.py_func(lambda x: np.array('abc'), [1.0], tf.float32)"),
    ("py_func_wrong_count", "tf.py_func(lambda x: (x, x), [1.0], [tf.float32])"),
]

# Round 3: the queue-based input pipeline (tf.train.batch and friends) with hostile arguments.
_RUNQ = (
    "\ncoord = tf.train.Coordinator()\nts = tf.train.start_queue_runners(sess, coord=coord)\n"
    "try:\n    out = sess.run(fetches, options=tf.RunOptions(timeout_in_ms=5000))\nfinally:\n"
    "    coord.request_stop()\n    coord.join(ts, stop_grace_period_secs=5, ignore_live_threads=True)"
)
_INIT = "sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])"
CASES_S22 += [
    ("train_batch_size0", "exec:fetches = tf.train.batch([tf.constant(1.0)], batch_size=0)" + _RUNQ),
    ("train_batch_size_neg", "exec:fetches = tf.train.batch([tf.constant(1.0)], batch_size=-2)" + _RUNQ),
    ("train_batch_capacity0", "exec:fetches = tf.train.batch([tf.constant(1.0)], batch_size=2, capacity=0)" + _RUNQ),
    ("train_batch_threads0", "exec:fetches = tf.train.batch([tf.constant(1.0)], batch_size=2, num_threads=0)" + _RUNQ),
    (
        "train_batch_unknown_shape",
        "exec:x = tf.placeholder_with_default([1.0], None)\nfetches = tf.train.batch([x], batch_size=2)" + _RUNQ,
    ),
    (
        "train_batch_dynamic_pad_scalar",
        "exec:fetches = tf.train.batch([tf.constant(1.0)], batch_size=2, dynamic_pad=True)" + _RUNQ,
    ),
    ("train_batch_empty_list", "exec:fetches = tf.train.batch([], batch_size=2)" + _RUNQ),
    (
        "train_shuffle_batch_min_gt_cap",
        "exec:fetches = tf.train.shuffle_batch([tf.constant(1.0)], batch_size=2, capacity=4, min_after_dequeue=10)"
        + _RUNQ,
    ),
    (
        "train_shuffle_batch_min_neg",
        "exec:fetches = tf.train.shuffle_batch([tf.constant(1.0)], batch_size=2, capacity=4, min_after_dequeue=-1)"
        + _RUNQ,
    ),
    (
        "train_batch_join_mismatch",
        "exec:fetches = tf.train.batch_join([[tf.constant(1.0)], [tf.constant(1)]], batch_size=2)" + _RUNQ,
    ),
    ("train_string_input_producer_empty", "exec:fetches = tf.train.string_input_producer([]).dequeue()" + _RUNQ),
    (
        "train_string_input_producer_num_epochs0",
        "exec:q = tf.train.string_input_producer(['a'], num_epochs=0)\n" + _INIT + "\nfetches = q.dequeue()" + _RUNQ,
    ),
    (
        "train_string_input_producer_num_epochs_neg",
        "exec:q = tf.train.string_input_producer(['a'], num_epochs=-1)\n" + _INIT + "\nfetches = q.dequeue()" + _RUNQ,
    ),
    (
        "train_slice_input_producer_mismatch",
        "exec:fetches = tf.train.slice_input_producer([[1, 2, 3], [1, 2]])" + _RUNQ,
    ),
    ("train_slice_input_producer_scalar", "exec:fetches = tf.train.slice_input_producer([tf.constant(1)])" + _RUNQ),
    ("train_range_input_producer_neg", "exec:fetches = tf.train.range_input_producer(-3).dequeue()" + _RUNQ),
    ("train_input_producer_scalar", "exec:fetches = tf.train.input_producer(tf.constant(1.0)).dequeue()" + _RUNQ),
    (
        "train_limit_epochs_neg",
        "exec:x = tf.train.limit_epochs(tf.constant(1.0), num_epochs=-2)\n" + _INIT + "\nfetches = x" + _RUNQ,
    ),
    (
        "train_maybe_batch_keep_input_rank2",
        "exec:fetches = tf.train.maybe_batch([tf.constant(1.0)], tf.constant([[True]]), batch_size=2)" + _RUNQ,
    ),
    (
        "train_batch_enqueue_many_scalar",
        "exec:fetches = tf.train.batch([tf.constant(1.0)], batch_size=2, enqueue_many=True)" + _RUNQ,
    ),
    ("train_exponential_decay_zero_steps", "exec:fetches = tf.train.exponential_decay(0.1, tf.constant(5), 0, 0.5)"),
    ("train_piecewise_mismatch", "exec:fetches = tf.train.piecewise_constant(tf.constant(5), [1, 2], [0.1, 0.2])"),
    ("train_piecewise_unsorted", "exec:fetches = tf.train.piecewise_constant(tf.constant(5), [3, 1], [0.1, 0.2, 0.3])"),
    ("train_polynomial_decay_zero_steps", "exec:fetches = tf.train.polynomial_decay(0.1, tf.constant(5), 0)"),
    ("train_cosine_decay_zero_steps", "exec:fetches = tf.train.cosine_decay(0.1, tf.constant(5), 0)"),
    (
        "train_gd_negative_lr",
        "exec:v = tf.Variable(1.0)\nop = tf.train.GradientDescentOptimizer(-1.0).minimize(v * v)\nsess.run(v.initializer)\nsess.run(op)\nout = sess.run(v)",
    ),
    (
        "train_adam_nan_lr",
        "exec:v = tf.Variable(1.0)\nop = tf.train.AdamOptimizer(float('nan')).minimize(v * v)\n"
        + _INIT
        + "\nsess.run(op)\nout = sess.run(v)",
    ),
    ("train_minimize_no_vars", "exec:op = tf.train.GradientDescentOptimizer(0.1).minimize(tf.constant(1.0))"),
    ("train_minimize_int_loss", "exec:v = tf.Variable(1)\nop = tf.train.GradientDescentOptimizer(0.1).minimize(v * v)"),
    ("train_apply_gradients_empty", "exec:op = tf.train.GradientDescentOptimizer(0.1).apply_gradients([])"),
    (
        "train_apply_gradients_none",
        "exec:v = tf.Variable(1.0)\nop = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(None, v)])",
    ),
    (
        "train_apply_gradients_shape_mismatch",
        "exec:v = tf.Variable([1.0, 2.0])\nop = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(tf.constant([1.0, 2.0, 3.0]), v)])",
    ),
    (
        "train_clip_by_global_norm_nan",
        "exec:fetches = tf.clip_by_global_norm([tf.constant([float('nan'), 1.0])], 1.0)[0][0]",
    ),
    (
        "train_clip_by_global_norm_inf",
        "exec:fetches = tf.clip_by_global_norm([tf.constant([float('inf'), 1.0])], 1.0)[0][0]",
    ),
    ("train_momentum_none", "exec:out = tf.train.MomentumOptimizer(0.1, None)"),
    (
        "train_ema_decay_big",
        "exec:v = tf.Variable(1.0)\nema = tf.train.ExponentialMovingAverage(1.5)\nop = ema.apply([v])\n"
        + _INIT
        + "\nsess.run(op)\nout = sess.run(ema.average(v))",
    ),
    ("train_global_step_twice", "exec:tf.train.create_global_step()\nout = str(tf.train.create_global_step())"),
    (
        "train_global_step_float",
        "exec:g = tf.Variable(1.0, name='global_step', collections=[tf.GraphKeys.GLOBAL_VARIABLES, tf.GraphKeys.GLOBAL_STEP])\nout = str(tf.train.get_global_step())",
    ),
]

# Round 3: image boxes, metrics, bucketize, einsum and tensordot with hostile values.
CASES_S22 += [
    ("glimpse_huge_size", "tf.image.extract_glimpse(tf.zeros([1, 4, 4, 1]), [2**20, 2**20], [[0.0, 0.0]])"),
    ("glimpse_neg_size", "tf.image.extract_glimpse(tf.zeros([1, 4, 4, 1]), [-2, 2], [[0.0, 0.0]])"),
    ("glimpse_offsets_mismatch", "tf.image.extract_glimpse(tf.zeros([2, 4, 4, 1]), [2, 2], [[0.0, 0.0]])"),
    ("glimpse_nan_offsets", "tf.image.extract_glimpse(tf.zeros([1, 4, 4, 1]), [2, 2], [[float('nan'), 0.0]])"),
    ("draw_boxes_bad_rank", "tf.image.draw_bounding_boxes(tf.zeros([1, 4, 4, 3]), [[0.0, 0.0, 1.0, 1.0]])"),
    ("draw_boxes_channels5", "tf.image.draw_bounding_boxes(tf.zeros([1, 4, 4, 5]), [[[0.0, 0.0, 1.0, 1.0]]])"),
    (
        "sample_distorted_bbox_bad_ratio",
        "tf.image.sample_distorted_bounding_box([4, 4, 1], [[[0.0, 0.0, 1.0, 1.0]]], seed=1, aspect_ratio_range=[2.0, 1.0])[0]",
    ),
    (
        "sample_distorted_bbox_neg_area",
        "tf.image.sample_distorted_bounding_box([4, 4, 1], [[[0.0, 0.0, 1.0, 1.0]]], seed=1, area_range=[-1.0, 0.5])[0]",
    ),
    (
        "sample_distorted_bbox_zero_image",
        "tf.image.sample_distorted_bounding_box([0, 4, 1], [[[0.0, 0.0, 1.0, 1.0]]], seed=1)[0]",
    ),
    (
        "sample_distorted_bbox_attempts0",
        "tf.image.sample_distorted_bounding_box([4, 4, 1], [[[0.0, 0.0, 1.0, 1.0]]], seed=1, max_attempts=0)[0]",
    ),
    ("crop_to_bbox_too_big", f"tf.image.crop_to_bounding_box({PH}(tf.zeros([4, 4, 1]), None), 3, 3, 4, 4)"),
    ("central_crop_big", "tf.image.central_crop(tf.zeros([4, 4, 1]), 1.5)"),
    ("adjust_hue_big", "tf.image.adjust_hue(tf.ones([2, 2, 3]), 5.0)"),
    ("rgb_to_grayscale_2ch", "tf.image.rgb_to_grayscale(tf.ones([2, 2, 2]))"),
    ("per_image_standardization_empty", "tf.image.per_image_standardization(tf.zeros([0, 4, 1]))"),
    ("total_variation_rank2", "tf.image.total_variation(tf.zeros([4, 4]))"),
    ("psnr_shape_mismatch", "tf.image.psnr(tf.zeros([4, 4, 1]), tf.zeros([4, 5, 1]), 1.0)"),
    ("ssim_too_small", "tf.image.ssim(tf.zeros([1, 4, 4, 1]), tf.zeros([1, 4, 4, 1]), 1.0)"),
    ("nms_max_output_huge", f"tf.image.non_max_suppression([[0.0, 0.0, 1.0, 1.0]], [1.0], {PH}(2**31 - 1, []))"),
    (
        "nms_iou_nan",
        "tf.image.non_max_suppression([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]], [1.0, 0.5], 2, iou_threshold=float('nan'))",
    ),
    (
        "nms_score_nan",
        "tf.image.non_max_suppression([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.5, 0.5]], [float('nan'), 0.5], 2)",
    ),
    (
        "nms_padded_huge",
        f"tf.image.non_max_suppression_padded([[0.0, 0.0, 1.0, 1.0]], [1.0], {PH}(2**20, []), pad_to_max_output_size=True)[0]",
    ),
    (
        "combined_nms_bad_rank",
        "tf.image.combined_non_max_suppression(tf.zeros([1, 2, 4]), tf.zeros([1, 2, 3]), 2, 2)[0]",
    ),
    (
        "combined_nms_q_mismatch",
        "tf.image.combined_non_max_suppression(tf.zeros([1, 2, 2, 4]), tf.zeros([1, 2, 3]), 2, 2)[0]",
    ),
    ("bucketize_unsorted", "tf.raw_ops.Bucketize(input=[1.0, 5.0], boundaries=[3.0, 1.0])"),
    ("bucketize_nan", "tf.raw_ops.Bucketize(input=[float('nan'), 5.0], boundaries=[1.0, 3.0])"),
    (
        "metrics_accuracy_shape_mismatch",
        "exec:acc, op = tf.metrics.accuracy([1, 2], [1, 2, 3])\nsess.run(tf.local_variables_initializer())\nout = sess.run(op)",
    ),
    (
        "metrics_auc_bad_labels",
        "exec:auc, op = tf.metrics.auc([2.0, -1.0], [0.5, 0.5])\nsess.run(tf.local_variables_initializer())\nout = sess.run(op)",
    ),
    (
        "metrics_auc_pred_oob",
        "exec:auc, op = tf.metrics.auc([1, 0], [1.5, -0.5])\nsess.run(tf.local_variables_initializer())\nout = sess.run(op)",
    ),
    (
        "metrics_mean_iou_oob",
        "exec:m, op = tf.metrics.mean_iou([0, 5], [0, 1], 2)\nsess.run(tf.local_variables_initializer())\nout = sess.run(op)",
    ),
    (
        "metrics_recall_at_k_oob",
        "exec:m, op = tf.metrics.recall_at_k(tf.constant([[7]], tf.int64), tf.zeros([1, 3]), 1)\nsess.run(tf.local_variables_initializer())\nout = sess.run(op)",
    ),
    (
        "metrics_precision_weights_mismatch",
        "exec:m, op = tf.metrics.precision([1, 0], [1, 1], weights=[1.0, 2.0, 3.0])\nsess.run(tf.local_variables_initializer())\nout = sess.run(op)",
    ),
    ("confusion_matrix_num_classes_small", "tf.math.confusion_matrix([0, 5], [0, 1], num_classes=2)"),
    ("confusion_matrix_huge", f"tf.math.confusion_matrix([0], [0], num_classes={PH}(2**31 - 1, []))"),
    ("einsum_bad_equation", "tf.einsum('ij,jk->', tf.zeros([2, 3]), tf.zeros([4, 5]))"),
    ("einsum_garbage", "tf.einsum('ij,,->x!', tf.zeros([2, 3]))"),
    ("einsum_repeated_out", "tf.einsum('ij->ii', tf.zeros([2, 3]))"),
    ("tensordot_axes_mismatch", "tf.tensordot(tf.zeros([2, 3]), tf.zeros([4, 5]), 1)"),
    ("tensordot_axes_huge", "tf.tensordot(tf.zeros([2, 3]), tf.zeros([3, 5]), 5)"),
    ("tensordot_axes_neg", "tf.tensordot(tf.zeros([2, 3]), tf.zeros([3, 5]), -1)"),
    ("string_to_hash_zero_buckets", "tf.strings.to_hash_bucket_fast(['a'], 0)"),
    ("string_to_hash_strong_bad_key", "tf.strings.to_hash_bucket_strong(['a'], 10, [1])"),
    ("scan_empty", "tf.scan(lambda a, x: a + x, tf.zeros([0]))"),
    ("map_fn_empty_dtype_mismatch", "tf.map_fn(lambda x: tf.cast(x, tf.int32), tf.zeros([3]))"),
    ("case_no_default_none_true", "tf.case([(tf.constant(False), lambda: tf.constant(1))], exclusive=True)"),
    (
        "case_exclusive_two_true_no_default",
        "tf.case([(tf.constant(True), lambda: tf.constant(1)), (tf.constant(True), lambda: tf.constant(2))], exclusive=True)",
    ),
    ("cond_branch_dtype_mismatch", "tf.cond(tf.constant(True), lambda: tf.constant(1), lambda: tf.constant(1.0))"),
    ("cond_pred_not_scalar", f"tf.cond({PH}([True, False], [None]), lambda: tf.constant(1), lambda: tf.constant(2))"),
    (
        "while_loop_shape_invariant_violated",
        "tf.while_loop(lambda x: tf.size(x) < 4, lambda x: tf.concat([x, x], 0), [tf.zeros([1])])",
    ),
]


# Round 4 (--set s23): gradients through ops with hostile run-time values and misused grad_ys; while_loop, cond,
# TensorArray and the functional ops misused; queues; tf.io / gfile; the converter CLI; hostile ONNX graphs.
X3 = "tf.constant([1.0, 2.0, 3.0])"
M23 = "tf.reshape(tf.range(6.0), [2, 3])"
_G = "tf.convert_to_tensor(tf.gradients({}, {})[0])"
_GX = "exec:x = tf.constant([1.0, 2.0, 3.0])\n"
_GM = "exec:x = tf.reshape(tf.range(6.0), [2, 3])\n"
_GI = "exec:x = tf.ones([1, 4, 4, 1])\n"
_Q2 = "exec:q = tf.FIFOQueue(2, tf.float32, shapes=[[]])\n"
_PQ = "exec:q = tf.PriorityQueue(4, [tf.float32], shapes=[[]])\n"
_TA = "exec:ta = tf.TensorArray(tf.float32, size=3)\n"
_CONV = "tw:exec:sm = x2_saved_model()\n"
_CAL = _CONV + "out = convert_cli('--input', sm, '--output', tmp('q.twl'), '--quantize', 'int8', '--calibration', {})"
_ONNX = "tw:exec:from onnx import helper, numpy_helper, TensorProto\nfrom tests.onnx_lite_util import make_model\n"
_OCONV = "\nout = onnx_convert({})"
_F23 = "(np.float32, [2, 3])"
_VALID, _SAME, _REFLECT, _SYMMETRIC = "'VALID'", "'SAME'", "'REFLECT'", "'SYMMETRIC'"
_EXT = (
    _ONNX
    + "d = tmp('ext')\nos.makedirs(d, exist_ok=True)\n"
    + "w = TensorProto(name='w', data_type=TensorProto.FLOAT, dims=[2, 3], data_location=TensorProto.EXTERNAL)\n"
    + "for k, v in {}.items():\n    e = w.external_data.add()\n    e.key, e.value = k, str(v)\n"
    + "m = make_model([helper.make_node('Add', ['x', 'w'], ['z'])], [('x', *{f})], [('z', *{f})])\n"
    + "m.graph.initializer.append(w)\np = os.path.join(d, 'm.onnx')\nopen(p, 'wb').write(m.SerializeToString())\n"
)
_LOOP_BODY = (
    "body = helper.make_graph([helper.make_node('Add', ['v', 'one'], ['v2']), helper.make_node('Identity', ['c'], ['c2'])],"
    " 'b', [helper.make_tensor_value_info('i', TensorProto.INT64, []), helper.make_tensor_value_info('c', TensorProto.BOOL, []),"
    " helper.make_tensor_value_info('v', TensorProto.FLOAT, [2, 3])], [helper.make_tensor_value_info('c2', TensorProto.BOOL, []),"
    " helper.make_tensor_value_info('v2', TensorProto.FLOAT, [2, 3])], [numpy_helper.from_array(np.ones([2, 3], np.float32), 'one')])\n"
)
CASES_S23 = [
    # gradients with hostile run-time values
    ("grad_gather_oob", _GX + f"fetches = {_G.format(f'tf.gather(x, {PH}([5], [None]))', 'x')}"),
    ("grad_gather_neg", _GX + f"fetches = {_G.format(f'tf.gather(x, {PH}([-1], [None]))', 'x')}"),
    ("grad_gather_axis1_oob", _GM + f"fetches = {_G.format(f'tf.gather(x, {PH}([3], [None]), axis=1)', 'x')}"),
    ("grad_gather_nd_oob", _GM + f"fetches = {_G.format(f'tf.gather_nd(x, {PH}([[1, 7]], [None, 2]))', 'x')}"),
    ("grad_gather_nd_neg", _GM + f"fetches = {_G.format(f'tf.gather_nd(x, {PH}([[-1, 0]], [None, 2]))', 'x')}"),
    (
        "grad_embedding_lookup_oob",
        _GM + f"fetches = {_G.format(f'tf.nn.embedding_lookup(x, {PH}([4], [None]))', 'x')}",
    ),
    (
        "grad_gather_batch_dims_oob",
        _GM + f"fetches = {_G.format(f'tf.gather(x, {PH}([[5], [0]], [2, None]), batch_dims=1)', 'x')}",
    ),
    ("grad_segment_sum_oob_ids", _GX + f"fetches = {_G.format(f'tf.segment_sum(x, {PH}([0, 0, 7], [None]))', 'x')}"),
    ("grad_segment_mean_unsorted", _GX + f"fetches = {_G.format(f'tf.segment_mean(x, {PH}([1, 0, 1], [None]))', 'x')}"),
    (
        "grad_unsorted_segment_sum_oob",
        _GX + f"fetches = {_G.format(f'tf.unsorted_segment_sum(x, {PH}([0, 5, 1], [None]), 2)', 'x')}",
    ),
    (
        "grad_unsorted_segment_sum_neg",
        _GX + f"fetches = {_G.format(f'tf.unsorted_segment_sum(x, {PH}([0, -1, 1], [None]), 2)', 'x')}",
    ),
    (
        "grad_unsorted_segment_max_oob",
        _GX + f"fetches = {_G.format(f'tf.unsorted_segment_max(x, {PH}([0, 9, 1], [None]), 2)', 'x')}",
    ),
    (
        "grad_unsorted_segment_prod_neg_num",
        _GX + f"fetches = {_G.format(f'tf.unsorted_segment_prod(x, [0, 1, 1], {PH}(-2, []))', 'x')}",
    ),
    (
        "grad_sparse_segment_sum_oob",
        _GM + f"fetches = {_G.format(f'tf.sparse.segment_sum(x, {PH}([0, 9], [None]), [0, 0])', 'x')}",
    ),
    (
        "grad_sparse_segment_mean_bad_seg",
        _GM + f"fetches = {_G.format(f'tf.sparse.segment_mean(x, [0, 1], {PH}([1, 0], [None]))', 'x')}",
    ),
    (
        "grad_sparse_segment_sqrt_n_oob",
        _GM + f"fetches = {_G.format(f'tf.sparse.segment_sqrt_n(x, {PH}([0, 2], [None]), [0, 0])', 'x')}",
    ),
    (
        "grad_scatter_nd_oob",
        "exec:u = tf.constant([1.0, 2.0])\n"
        + f"fetches = {_G.format(f'tf.scatter_nd({PH}([[1], [8]], [None, 1]), u, [3])', 'u')}",
    ),
    (
        "grad_tensor_scatter_update_oob",
        _GX + f"fetches = {_G.format(f'tf.tensor_scatter_nd_update(x, {PH}([[4]], [None, 1]), [1.0])', 'x')}",
    ),
    (
        "grad_tensor_scatter_add_oob_updates",
        "exec:u = tf.constant([1.0])\n"
        + f"fetches = {_G.format(f'tf.tensor_scatter_nd_add(tf.zeros([3]), {PH}([[-4]], [None, 1]), u)', 'u')}",
    ),
    ("grad_pad_neg", _GX + f"fetches = {_G.format(f'tf.pad(x, {PH}([[-5, 0]], [1, 2]))', 'x')}"),
    (
        "grad_pad_reflect_big",
        _GX + f"fetches = {_G.format(f'tf.pad(x, {PH}([[3, 0]], [1, 2]), mode={_REFLECT})', 'x')}",
    ),
    (
        "grad_pad_symmetric_big",
        _GX + f"fetches = {_G.format(f'tf.pad(x, {PH}([[4, 0]], [1, 2]), mode={_SYMMETRIC})', 'x')}",
    ),
    ("grad_slice_oob", _GX + f"fetches = {_G.format(f'tf.slice(x, {PH}([2], [1]), [5])', 'x')}"),
    ("grad_slice_neg_size", _GX + f"fetches = {_G.format(f'tf.slice(x, [1], {PH}([-3], [1]))', 'x')}"),
    (
        "grad_strided_slice_stride0",
        _GX + f"fetches = {_G.format(f'tf.strided_slice(x, [0], [3], {PH}([0], [1]))', 'x')}",
    ),
    ("grad_strided_slice_index_oob", _GX + f"fetches = {_G.format(f'{PH}(x, [None])[7]', 'x')}"),
    (
        "grad_reshape_wrong_count",
        _GM + f"fetches = {_G.format(f'tf.reshape(x, {PH}([4], [1]))', 'x')}",
    ),
    ("grad_tile_neg", _GX + f"fetches = {_G.format(f'tf.tile(x, {PH}([-1], [1]))', 'x')}"),
    ("grad_tile_wrong_len", _GX + f"fetches = {_G.format(f'tf.tile(x, {PH}([1, 2], [None]))', 'x')}"),
    ("grad_transpose_bad_perm", _GM + f"fetches = {_G.format(f'tf.transpose(x, {PH}([0, 0], [2]))', 'x')}"),
    ("grad_reverse_dup_axes", _GM + f"fetches = {_G.format(f'tf.reverse(x, {PH}([1, 1], [2]))', 'x')}"),
    ("grad_reduce_sum_axis_oob", _GM + f"fetches = {_G.format(f'tf.reduce_sum(x, {PH}(5, []))', 'x')}"),
    ("grad_reduce_max_axis_oob", _GM + f"fetches = {_G.format(f'tf.reduce_max(x, {PH}(-3, []))', 'x')}"),
    ("grad_reduce_prod_axis_oob", _GM + f"fetches = {_G.format(f'tf.reduce_prod(x, {PH}(2, []))', 'x')}"),
    ("grad_cumsum_axis_oob", _GM + f"fetches = {_G.format(f'tf.cumsum(x, {PH}(4, []))', 'x')}"),
    ("grad_cumprod_axis_oob", _GM + f"fetches = {_G.format(f'tf.math.cumprod(x, {PH}(-3, []))', 'x')}"),
    (
        "grad_concat_mismatch",
        _GM + f"fetches = {_G.format(f'tf.concat([x, {PH}(tf.zeros([2, 2]), [None, None])], 0)', 'x')}",
    ),
    ("grad_concat_axis_oob", _GM + f"fetches = {_G.format(f'tf.concat([x, x], {PH}(3, []))', 'x')}"),
    ("grad_split_sizes_bad", _GX + f"fetches = {_G.format(f'tf.split(x, {PH}([2, 2], [2]))[0]', 'x')}"),
    (
        "grad_dynamic_partition_oob",
        _GX + f"fetches = {_G.format(f'tf.dynamic_partition(x, {PH}([0, 3, 1], [None]), 2)[0]', 'x')}",
    ),
    (
        "grad_dynamic_stitch_neg",
        _GX + f"fetches = {_G.format(f'tf.dynamic_stitch([{PH}([0, -1, 1], [None])], [x])', 'x')}",
    ),
    ("grad_matmul_mismatch", _GM + f"fetches = {_G.format(f'tf.matmul(x, {PH}(tf.ones([2, 2]), [None, None]))', 'x')}"),
    (
        "grad_batch_matmul_bcast_bad",
        "exec:x = tf.ones([2, 2, 3])\n"
        + f"fetches = {_G.format(f'tf.matmul(x, {PH}(tf.ones([3, 3, 2]), [None, None, None]))', 'x')}",
    ),
    (
        "grad_conv2d_channel_mismatch",
        _GI
        + f"fetches = {_G.format(f'tf.nn.conv2d(x, {PH}(tf.ones([2, 2, 3, 1]), [None] * 4), [1, 1, 1, 1], {_SAME})', 'x')}",
    ),
    (
        "grad_conv2d_kernel_bigger",
        _GI
        + f"fetches = {_G.format(f'tf.nn.conv2d(x, {PH}(tf.ones([5, 5, 1, 1]), [None] * 4), [1, 1, 1, 1], {_VALID})', 'x')}",
    ),
    (
        "grad_conv2d_filter_kernel_bigger",
        "exec:w = tf.ones([5, 5, 1, 1])\n"
        + f"fetches = {_G.format(f'tf.nn.conv2d({PH}(tf.ones([1, 4, 4, 1]), [None] * 4), w, [1, 1, 1, 1], {_VALID})', 'w')}",
    ),
    (
        "grad_depthwise_channel_mismatch",
        _GI
        + f"fetches = {_G.format(f'tf.nn.depthwise_conv2d(x, {PH}(tf.ones([2, 2, 2, 1]), [None] * 4), [1, 1, 1, 1], {_SAME})', 'x')}",
    ),
    (
        "grad_conv2d_transpose_bad_out",
        _GI
        + f"fetches = {_G.format(f'tf.nn.conv2d_transpose(x, tf.ones([2, 2, 1, 1]), {PH}([1, 9, 9, 1], [4]), [1, 2, 2, 1])', 'x')}",
    ),
    (
        "grad_max_pool_ksize_big",
        f"exec:x = {PH}(tf.ones([1, 2, 2, 1]), [None] * 4)\n"
        + f"fetches = {_G.format(f'tf.nn.max_pool(x, [1, 3, 3, 1], [1, 1, 1, 1], {_VALID})', 'x')}",
    ),
    (
        "grad_avg_pool_ksize_big",
        f"exec:x = {PH}(tf.ones([1, 2, 2, 1]), [None] * 4)\n"
        + f"fetches = {_G.format(f'tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 1, 1, 1], {_VALID})', 'x')}",
    ),
    (
        "grad_resize_bilinear_zero",
        _GI + f"fetches = {_G.format(f'tf.image.resize_bilinear(x, {PH}([0, 2], [2]))', 'x')}",
    ),
    (
        "grad_sparse_xent_label_oob",
        _GM
        + f"fetches = {_G.format(f'tf.nn.sparse_softmax_cross_entropy_with_logits(labels={PH}([0, 5], [None]), logits=x)', 'x')}",
    ),
    (
        "grad_sparse_xent_label_neg",
        _GM
        + f"fetches = {_G.format(f'tf.nn.sparse_softmax_cross_entropy_with_logits(labels={PH}([-1, 0], [None]), logits=x)', 'x')}",
    ),
    (
        "grad_xent_shape_mismatch",
        _GM
        + f"fetches = {_G.format(f'tf.nn.softmax_cross_entropy_with_logits_v2(labels={PH}(tf.ones([2, 4]), [None, None]), logits=x)', 'x')}",
    ),
    (
        "grad_reverse_sequence_len_big",
        _GM
        + f"fetches = {_G.format(f'tf.reverse_sequence(x, {PH}(tf.constant([5, 1], tf.int64), [None]), seq_axis=1, batch_axis=0)', 'x')}",
    ),
    (
        "grad_bias_add_mismatch",
        "exec:b = tf.ones([3])\n"
        + f"fetches = {_G.format(f'tf.nn.bias_add({PH}(tf.ones([2, 4]), [None, None]), b)', 'b')}",
    ),
    (
        "grad_broadcast_to_incompat",
        _GX + f"fetches = {_G.format(f'tf.broadcast_to(x, {PH}([2, 2], [2]))', 'x')}",
    ),
    ("grad_one_hot_of_float_input_none", _GX + "out = tf.gradients(tf.one_hot(tf.cast(x, tf.int32), 3), x)"),
    (
        "grad_while_loop_gather_oob",
        _GX
        + f"i = {PH}(7, [])\nr = tf.while_loop(lambda k, a: k < 2, lambda k, a: (k + 1, a + tf.gather(x, i)), [0, 0.0])[1]\n"
        + f"fetches = {_G.format('r', 'x')}",
    ),
    (
        "grad_cond_gather_oob",
        _GX
        + f"r = tf.cond({PH}(True, []), lambda: tf.gather(x, {PH}([4], [None])), lambda: x)\nfetches = {_G.format('r', 'x')}",
    ),
    # grad_ys, xs, and the gradient options
    ("grad_ys_wrong_shape", _GX + "fetches = tf.gradients(x * 2.0, x, grad_ys=tf.ones([4]))[0]"),
    ("grad_ys_wrong_shape_runtime", _GX + f"fetches = tf.gradients(x * 2.0, x, grad_ys={PH}(tf.ones([4]), [None]))[0]"),
    ("grad_ys_wrong_shape_reduce", _GX + "fetches = tf.gradients(tf.reduce_sum(x), x, grad_ys=tf.ones([2]))[0]"),
    ("grad_ys_wrong_dtype", _GX + "fetches = tf.gradients(x * 2.0, x, grad_ys=tf.ones([3], tf.float64))[0]"),
    ("grad_ys_int", _GX + "fetches = tf.gradients(x * 2.0, x, grad_ys=tf.ones([3], tf.int32))[0]"),
    ("grad_ys_too_many", _GX + "fetches = tf.gradients(x * 2.0, x, grad_ys=[tf.ones([3]), tf.ones([3])])[0]"),
    ("grad_ys_python_list", _GX + "fetches = tf.gradients(x * 2.0, x, grad_ys=[[1.0, 1.0, 1.0]])[0]"),
    ("grad_ys_string", _GX + "fetches = tf.gradients(x * 2.0, x, grad_ys=tf.constant(['a', 'b', 'c']))[0]"),
    (
        "grad_xs_other_graph",
        "exec:g2 = tf.Graph()\nwith g2.as_default():\n    x2 = tf.constant(1.0)\nfetches = tf.gradients(tf.constant(2.0) * 3.0, x2)",
    ),
    ("grad_xs_none", _GX + "out = tf.gradients(x * 2.0, None)"),
    ("grad_ys_none", _GX + "out = tf.gradients(None, x)"),
    ("grad_xs_python_float", _GX + "out = tf.gradients(x * 2.0, 1.0)"),
    ("grad_unconnected_bogus", _GX + "out = tf.gradients(x * 2.0, tf.constant(1.0), unconnected_gradients='bogus')"),
    (
        "grad_unconnected_zero",
        _GX + "fetches = tf.gradients(x * 2.0, tf.ones([2, 2]), unconnected_gradients='zero')[0]",
    ),
    ("grad_aggregation_bad", _GX + "fetches = tf.gradients(x * x, x, aggregation_method=99)[0]"),
    ("grad_stop_gradients_self", _GX + "out = tf.gradients(x * 2.0, x, stop_gradients=[x])"),
    ("grad_of_int_output", "exec:x = tf.constant([1, 2])\nout = tf.gradients(x * 2, x)"),
    ("grad_of_string", "exec:x = tf.constant(['a'])\nout = tf.gradients(tf.strings.join([x, x]), x)"),
    ("grad_int_to_float_cast", "exec:x = tf.constant([1, 2])\nout = tf.gradients(tf.cast(x, tf.float32) * 2.0, x)"),
    ("grad_hessians_int", "exec:x = tf.constant([1, 2])\nout = tf.hessians(x * x, x)"),
    ("grad_hessians_matrix", _GM + "fetches = tf.hessians(tf.reduce_sum(x * x), x)[0]"),
    (
        "grad_gradients_of_gather_int_params",
        "exec:x = tf.constant([1, 2, 3])\nout = tf.gradients(tf.gather(x, [0]), x)",
    ),
    # while_loop, cond, case misuse
    ("while_max_iter_float", "tf.while_loop(lambda i: i < 5, lambda i: i + 1, [0], maximum_iterations=2.5)"),
    ("while_max_iter_vector", "tf.while_loop(lambda i: i < 5, lambda i: i + 1, [0], maximum_iterations=[2, 3])"),
    (
        "while_max_iter_neg_runtime",
        f"tf.while_loop(lambda i: i < 5, lambda i: i + 1, [0], maximum_iterations={PH}(-3, []))",
    ),
    ("while_max_iter_string", "tf.while_loop(lambda i: i < 5, lambda i: i + 1, [0], maximum_iterations='3')"),
    ("while_loop_vars_empty", "tf.while_loop(lambda: True, lambda: (), [])"),
    ("while_cond_not_callable", "tf.while_loop(True, lambda i: i + 1, [0])"),
    ("while_body_not_callable", "tf.while_loop(lambda i: i < 5, 3, [0])"),
    ("while_cond_vector_runtime", f"tf.while_loop(lambda i: {PH}([True, False], [None]), lambda i: i + 1, [0])"),
    ("while_cond_float", "tf.while_loop(lambda i: tf.cast(i, tf.float32), lambda i: i + 1, [0])"),
    ("while_body_more_vars", "tf.while_loop(lambda i: i < 5, lambda i: (i + 1, i), [0])"),
    ("while_body_fewer_vars", "tf.while_loop(lambda i, j: i < 5, lambda i, j: i + 1, [0, 1])"),
    ("while_body_dict_vs_list", "tf.while_loop(lambda d: d['a'] < 5, lambda d: [d['a'] + 1], [{'a': 0}])"),
    ("while_parallel_iterations0", "tf.while_loop(lambda i: i < 5, lambda i: i + 1, [0], parallel_iterations=0)"),
    (
        "while_shape_invariant_incompat",
        "tf.while_loop(lambda x: x[0] < 5, lambda x: x + 1, [tf.zeros([2])], shape_invariants=[tf.TensorShape([3])])",
    ),
    (
        "while_shape_invariant_rank",
        "tf.while_loop(lambda x: x[0] < 5, lambda x: x + 1, [tf.zeros([2])], shape_invariants=[tf.TensorShape([None, None])])",
    ),
    (
        "while_shape_invariant_count",
        "tf.while_loop(lambda x: x[0] < 5, lambda x: x + 1, [tf.zeros([2])], shape_invariants=[tf.TensorShape([2]), tf.TensorShape([2])])",
    ),
    (
        "while_shape_invariant_ok_grows",
        "tf.while_loop(lambda x: tf.size(x) < 8, lambda x: tf.concat([x, x], 0), [tf.ones([1])], shape_invariants=[tf.TensorShape([None])])",
    ),
    ("while_body_dtype_int_to_float", "tf.while_loop(lambda i: i < 5, lambda i: tf.cast(i, tf.float32) + 1, [0])"),
    ("while_body_returns_python", "tf.while_loop(lambda i: i < 5, lambda i: 7, [0])"),
    ("while_body_returns_none_in_list", "tf.while_loop(lambda i, j: i < 5, lambda i, j: (i + 1, None), [0, 1])"),
    ("cond_true_fn_not_callable", "tf.cond(tf.constant(True), 1, lambda: 2)"),
    ("cond_pred_float", "tf.cond(tf.constant(1.0), lambda: tf.constant(1), lambda: tf.constant(2))"),
    ("cond_pred_int_runtime", f"tf.cond({PH}(1, []), lambda: tf.constant(1), lambda: tf.constant(2))"),
    ("cond_pred_vector_const", "tf.cond(tf.constant([True]), lambda: tf.constant(1), lambda: tf.constant(2))"),
    ("cond_branch_shape_differs", f"tf.cond({PH}(False, []), lambda: tf.zeros([2]), lambda: tf.ones([3]))"),
    ("cond_branch_returns_none", "tf.cond(tf.constant(True), lambda: None, lambda: None)"),
    ("case_default_not_callable", "tf.case([(tf.constant(True), lambda: tf.constant(1))], default=3)"),
    ("case_fn_not_callable", "tf.case([(tf.constant(True), 1)], default=lambda: tf.constant(0))"),
    ("switch_case_oob_runtime", f"tf.switch_case({PH}(5, []), [lambda: tf.constant(10), lambda: tf.constant(20)])"),
    ("switch_case_neg_runtime", f"tf.switch_case({PH}(-1, []), [lambda: tf.constant(10), lambda: tf.constant(20)])"),
    ("switch_case_empty", "tf.switch_case(tf.constant(0), [])"),
    ("switch_case_float_index", "tf.switch_case(tf.constant(0.0), [lambda: tf.constant(1)])"),
    # TensorArray misuse
    (
        "ta_element_shape_wrong",
        _TA[:-1].replace("size=3", "size=3, element_shape=[2]") + "\nfetches = ta.write(0, tf.zeros([3])).stack()",
    ),
    ("ta_stack_partially_written", _TA + "fetches = ta.write(0, tf.zeros([2])).write(1, tf.zeros([2])).stack()"),
    (
        "ta_concat_mismatch",
        _TA[:-1].replace("size=3", "size=2")
        + "\nfetches = ta.write(0, tf.zeros([2, 3])).write(1, tf.zeros([2, 4])).concat()",
    ),
    (
        "ta_concat_mismatch_runtime",
        _TA[:-1].replace("size=3", "size=2, infer_shape=False")
        + f"\nfetches = ta.write(0, tf.zeros([2, 3])).write(1, {PH}(tf.zeros([2, 4]), None)).concat()",
    ),
    (
        "ta_stack_mismatch_runtime",
        _TA[:-1].replace("size=3", "size=2, infer_shape=False")
        + f"\nfetches = ta.write(0, tf.zeros([3])).write(1, {PH}(tf.zeros([4]), None)).stack()",
    ),
    (
        "ta_split_sum_mismatch",
        _TA[:-1].replace("size=3", "size=2") + "\nfetches = ta.split(tf.zeros([5]), [2, 2]).read(0)",
    ),
    (
        "ta_split_neg_length",
        _TA[:-1].replace("size=3", "size=2") + f"\nfetches = ta.split(tf.zeros([5]), {PH}([6, -1], [2])).read(0)",
    ),
    (
        "ta_split_too_many",
        _TA[:-1].replace("size=3", "size=2") + "\nfetches = ta.split(tf.zeros([5]), [1, 1, 3]).read(0)",
    ),
    ("ta_read_neg_runtime", _TA + f"fetches = ta.write(0, 1.0).read({PH}(-1, []))"),
    ("ta_read_twice_cleared", _TA + "w = ta.write(0, 1.0)\nfetches = [w.read(0), w.read(0)]"),
    ("ta_scatter_dup_indices", _TA + "fetches = ta.scatter([0, 0], tf.constant([1.0, 2.0])).read(0)"),
    ("ta_scatter_len_mismatch", _TA + "fetches = ta.scatter([0, 1], tf.constant([1.0, 2.0, 3.0])).read(0)"),
    ("ta_gather_neg", _TA + "fetches = ta.unstack(tf.zeros([3])).gather([-1])"),
    ("ta_unstack_scalar", _TA + "fetches = ta.unstack(tf.constant(1.0)).read(0)"),
    ("ta_unstack_too_big", _TA + f"fetches = ta.unstack({PH}(tf.zeros([5]), [None])).read(0)"),
    ("ta_size_float", "tf.TensorArray(tf.float32, size=2.5).size()"),
    ("ta_size_neg_runtime", f"tf.TensorArray(tf.float32, size={PH}(-4, [])).size()"),
    (
        "ta_dynamic_read_beyond",
        f"tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(2, 1.0).read({PH}(9, []))",
    ),
    (
        "ta_write_wrong_shape_runtime",
        _TA[:-1].replace("size=3", "size=2, element_shape=[2]")
        + f"\nfetches = ta.write(0, {PH}(tf.zeros([3]), None)).stack()",
    ),
    (
        "ta_while_write_twice",
        _TA + "fetches = tf.while_loop(lambda i, t: i < 2, lambda i, t: (i + 1, t.write(0, 1.0)), [0, ta])[1].stack()",
    ),
    ("map_fn_fn_returns_tuple_dtype_single", "tf.map_fn(lambda x: (x, x), tf.zeros([3]), dtype=tf.float32)"),
    ("map_fn_elems_none", "tf.map_fn(lambda x: x, None)"),
    ("map_fn_not_callable", "tf.map_fn(3, tf.zeros([3]))"),
    (
        "map_fn_unequal_runtime",
        f"tf.map_fn(lambda t: t[0] + t[1], ({PH}(tf.zeros([3]), [None]), {PH}(tf.zeros([2]), [None])), dtype=tf.float32)",
    ),
    ("map_fn_parallel0", "tf.map_fn(lambda x: x, tf.zeros([3]), parallel_iterations=0)"),
    ("scan_init_dtype_mismatch", "tf.scan(lambda a, x: a + x, tf.zeros([3]), initializer=tf.constant(0))"),
    ("scan_fn_structure_mismatch", "tf.scan(lambda a, x: (a, a), tf.zeros([3]), initializer=tf.constant(0.0))"),
    (
        "scan_unequal_runtime",
        f"tf.scan(lambda a, x: a + x[0] + x[1], ({PH}(tf.zeros([3]), [None]), {PH}(tf.zeros([2]), [None])), initializer=0.0)",
    ),
    ("foldl_structure_mismatch", "tf.foldl(lambda a, x: (a, x), tf.zeros([3]), initializer=tf.constant(0.0))"),
    ("foldr_empty_no_init", f"tf.foldr(lambda a, x: a + x, {PH}(tf.zeros([0]), [None]))"),
    ("foldl_empty_runtime_no_init", f"tf.foldl(lambda a, x: a + x, {PH}(tf.zeros([0]), [None]))"),
    # queues
    (
        "queue_dequeue_many_gt_capacity",
        _Q2 + "sess.run(q.enqueue_many([[1.0, 2.0]]))\nsess.run(q.close())\nout = sess.run(q.dequeue_many(3))",
    ),
    (
        "queue_dequeue_up_to_gt_size",
        _Q2 + "sess.run(q.enqueue(1.0))\nsess.run(q.close())\nout = sess.run(q.dequeue_up_to(2))",
    ),
    (
        "queue_dequeue_up_to_neg",
        _Q2 + f"sess.run(q.enqueue(1.0))\nsess.run(q.close())\nout = sess.run(q.dequeue_up_to({PH}(-2, [])))",
    ),
    ("queue_dequeue_many_zero", _Q2 + "out = sess.run(q.dequeue_many(0))"),
    ("queue_enqueue_many_scalar", _Q2 + "out = sess.run(q.enqueue_many(1.0))"),
    ("queue_enqueue_many_wrong_shape_runtime", _Q2 + f"out = sess.run(q.enqueue_many({PH}(tf.zeros([2, 2]), None)))"),
    (
        "queue_enqueue_many_more_than_cap",
        _Q2 + "sess.run(q.close())\nout = sess.run(q.enqueue_many([[1.0, 2.0, 3.0]]))",
    ),
    ("queue_dtypes_empty", "exec:q = tf.FIFOQueue(2, [])\nout = sess.run(q.size())"),
    (
        "queue_shapes_len_mismatch",
        "exec:q = tf.FIFOQueue(2, [tf.float32, tf.int32], shapes=[[]])\nout = sess.run(q.size())",
    ),
    ("queue_names_len_mismatch", "exec:q = tf.FIFOQueue(2, [tf.float32], names=['a', 'b'])\nout = sess.run(q.size())"),
    ("queue_enqueue_dict_no_names", _Q2 + "out = sess.run(q.enqueue({'a': 1.0}))"),
    (
        "queue_enqueue_names_missing_key",
        "exec:q = tf.FIFOQueue(2, [tf.float32, tf.int32], names=['a', 'b'])\nout = sess.run(q.enqueue({'a': 1.0}))",
    ),
    ("queue_enqueue_too_many_components", _Q2 + "out = sess.run(q.enqueue((1.0, 2.0)))"),
    (
        "queue_from_list_dtype_mismatch",
        "exec:q1 = tf.FIFOQueue(2, tf.float32)\nq2 = tf.FIFOQueue(2, tf.int32)\nout = sess.run(tf.QueueBase.from_list(0, [q1, q2]).size())",
    ),
    (
        "queue_from_list_index_oob",
        "exec:q1 = tf.FIFOQueue(2, tf.float32)\nq2 = tf.FIFOQueue(2, tf.float32)\n"
        + f"out = sess.run(tf.QueueBase.from_list({PH}(5, []), [q1, q2]).size())",
    ),
    (
        "random_shuffle_min_after_neg",
        "exec:q = tf.RandomShuffleQueue(4, -1, tf.float32, shapes=[[]])\nsess.run(q.enqueue(1.0))\nsess.run(q.close())\nout = sess.run(q.dequeue())",
    ),
    (
        "random_shuffle_closed_below_min",
        "exec:q = tf.RandomShuffleQueue(4, 2, tf.float32, shapes=[[]])\nsess.run(q.enqueue(1.0))\nsess.run(q.close())\nout = sess.run(q.dequeue())",
    ),
    (
        "random_shuffle_dequeue_many_closed",
        "exec:q = tf.RandomShuffleQueue(4, 2, tf.float32, shapes=[[]])\nsess.run(q.enqueue_many([[1.0, 2.0]]))\nsess.run(q.close())\nout = sorted(sess.run(q.dequeue_many(2)).tolist())",
    ),
    ("padding_queue_shapes_none", "exec:q = tf.PaddingFIFOQueue(2, tf.float32)\nout = sess.run(q.size())"),
    (
        "padding_queue_rank_mismatch",
        "exec:q = tf.PaddingFIFOQueue(2, tf.float32, shapes=[[None]])\nout = sess.run(q.enqueue(tf.zeros([2, 2])))",
    ),
    (
        "padding_queue_rank_mismatch_runtime",
        "exec:q = tf.PaddingFIFOQueue(2, tf.float32, shapes=[[None]])\n"
        + f"out = sess.run(q.enqueue({PH}(tf.zeros([2, 2]), None)))",
    ),
    (
        "padding_queue_pads",
        "exec:q = tf.PaddingFIFOQueue(3, [tf.float32, tf.string], shapes=[[None], [None]])\nsess.run(q.enqueue((tf.ones([1]), ['a'])))\nsess.run(q.enqueue((tf.ones([3]), ['b', 'c'])))\nout = sess.run(q.dequeue_many(2))",
    ),
    (
        "padding_queue_dequeue_many_closed",
        "exec:q = tf.PaddingFIFOQueue(3, tf.float32, shapes=[[None]])\nsess.run(q.enqueue(tf.ones([2])))\nsess.run(q.close())\nout = sess.run(q.dequeue_many(2))",
    ),
    (
        "padding_queue_dequeue_up_to",
        "exec:q = tf.PaddingFIFOQueue(3, tf.float32, shapes=[[None]])\nsess.run(q.enqueue(tf.ones([2])))\nsess.run(q.enqueue(tf.ones([1])))\nsess.run(q.close())\nout = sess.run(q.dequeue_up_to(5))",
    ),
    ("priority_queue_float_priority", _PQ + "out = sess.run(q.enqueue((1.5, 2.0)))"),
    ("priority_queue_int32_priority", _PQ + "out = sess.run(q.enqueue((tf.constant(1, tf.int32), 2.0)))"),
    ("priority_queue_no_priority", _PQ + "out = sess.run(q.enqueue((2.0,)))"),
    (
        "priority_queue_order",
        _PQ + "sess.run(q.enqueue_many(([3, 1, 2], [30.0, 10.0, 20.0])))\nout = sess.run(q.dequeue_many(3))",
    ),
    ("priority_queue_priority_vector", _PQ + "out = sess.run(q.enqueue(([1, 2], 2.0)))"),
    (
        "priority_queue_shapes_none",
        "exec:q = tf.PriorityQueue(4, [tf.float32])\nout = sess.run(q.enqueue((tf.constant(1, tf.int64), 2.0)))",
    ),
    (
        "train_batch_smaller_final",
        (
            "exec:x = tf.train.limit_epochs(tf.constant([1.0, 2.0, 3.0]), num_epochs=1)\n"
            "b = tf.train.batch([x], 2, enqueue_many=True, allow_smaller_final_batch=True)\n"
            "sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])\n"
            "coord = tf.train.Coordinator()\nth = tf.train.start_queue_runners(sess, coord)\nout = []\n"
            "try:\n    while True:\n        out.append(sess.run(b).tolist())\nexcept tf.errors.OutOfRangeError:\n    pass\n"
            "coord.request_stop()\ncoord.join(th)"
        ),
    ),
    (
        "train_batch_no_smaller_final",
        (
            "exec:x = tf.train.limit_epochs(tf.constant([1.0, 2.0, 3.0]), num_epochs=1)\n"
            "b = tf.train.batch([x], 2, enqueue_many=True)\n"
            "sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])\n"
            "coord = tf.train.Coordinator()\nth = tf.train.start_queue_runners(sess, coord)\nout = []\n"
            "try:\n    while True:\n        out.append(sess.run(b).tolist())\nexcept tf.errors.OutOfRangeError:\n    pass\n"
            "coord.request_stop()\ncoord.join(th)"
        ),
    ),
    (
        "train_batch_dynamic_pad_no_shape",
        "exec:x = " + PH + "(tf.zeros([2]), None)\nout = tf.train.batch([x], 2, dynamic_pad=True)",
    ),
    ("train_input_producer_empty", "exec:out = tf.train.string_input_producer([])"),
    # tf.io, tf.gfile
    ("gfile_read_dir", "exec:out = tf.gfile.GFile(tmp('')).read()"),
    ("gfile_write_missing_dir", "exec:f = tf.gfile.GFile(tmp('nodir/x.txt'), 'w')\nf.write('a')\nf.close()\nout = 1"),
    ("gfile_open_bad_mode", "exec:out = tf.gfile.GFile(tmp('m.txt'), 'q').read()"),
    ("gfile_rename_missing", "exec:tf.gfile.Rename(tmp('nope1'), tmp('nope2'))\nout = 1"),
    (
        "gfile_rename_no_overwrite",
        "exec:open(tmp('r1'), 'w').write('a')\nopen(tmp('r2'), 'w').write('b')\ntf.gfile.Rename(tmp('r1'), tmp('r2'))\nout = 1",
    ),
    (
        "gfile_copy_no_overwrite",
        "exec:open(tmp('c1'), 'w').write('a')\nopen(tmp('c2'), 'w').write('b')\ntf.gfile.Copy(tmp('c1'), tmp('c2'))\nout = 1",
    ),
    ("gfile_makedirs_on_file", "exec:open(tmp('f1'), 'w').write('a')\ntf.gfile.MakeDirs(tmp('f1/sub'))\nout = 1"),
    ("gfile_mkdir_exists", "exec:tf.gfile.MkDir(tmp(''))\nout = 1"),
    ("gfile_stat_missing", "exec:out = tf.gfile.Stat(tmp('nostat')).length"),
    ("gfile_delete_recursively_missing", "exec:tf.gfile.DeleteRecursively(tmp('nodel'))\nout = 1"),
    ("gfile_isdir_missing", "exec:out = tf.gfile.IsDirectory(tmp('nodir2'))"),
    ("gfile_walk_missing", "exec:out = list(tf.gfile.Walk(tmp('nowalk')))"),
    ("gfile_glob_bad_pattern", "exec:out = tf.gfile.Glob(tmp('[a'))"),
    (
        "gfile_read_closed",
        "exec:open(tmp('rc'), 'w').write('a')\nf = tf.gfile.GFile(tmp('rc'))\nf.close()\nout = f.read()",
    ),
    (
        "gfile_write_read_mode",
        "exec:open(tmp('wr'), 'w').write('a')\nf = tf.gfile.GFile(tmp('wr'), 'r')\nf.write('b')\nout = 1",
    ),
    (
        "gfile_seek_neg",
        "exec:open(tmp('sk'), 'w').write('abc')\nf = tf.gfile.GFile(tmp('sk'))\nf.seek(-5)\nout = f.read()",
    ),
    ("gfile_read_neg_n", "exec:open(tmp('rn'), 'w').write('abc')\nout = tf.gfile.GFile(tmp('rn')).read(-7)"),
    ("write_file_missing_dir", "tf.io.write_file(tmp('nodir3/x'), 'abc')"),
    ("write_file_onto_dir", "tf.io.write_file(tmp(''), 'abc')"),
    ("write_file_vector_name", "tf.io.write_file([tmp('a'), tmp('b')], 'abc')"),
    ("read_file_vector_name", f"tf.io.read_file({PH}([tmp('a')], [None]))"),
    ("matching_files_missing_dir", "tf.io.matching_files(tmp('nodir4/*'))"),
    ("decode_raw_string_type", "tf.io.decode_raw(tf.constant(['abcd']), tf.string)"),
    ("decode_raw_bool_type", "tf.io.decode_raw(tf.constant(['ab']), tf.bool)"),
    ("decode_raw_big_endian", "tf.io.decode_raw(tf.constant(['\\x00\\x01']), tf.int16, little_endian=False)"),
    ("decode_raw_ragged_lengths", "tf.io.decode_raw(tf.constant(['abcd', 'abcdefgh']), tf.int32)"),
    ("decode_raw_fixed_length_odd", "tf.io.decode_raw(tf.constant(['abcde']), tf.int16, fixed_length=5)"),
    ("decode_raw_fixed_length_neg", "tf.io.decode_raw(tf.constant(['abcd']), tf.uint8, fixed_length=-2)"),
    ("decode_csv_defaults_count", "tf.io.decode_csv(['1,2,3'], [[0], [0]])"),
    ("decode_csv_empty_required", "tf.io.decode_csv(['1,,3'], [[0], tf.constant([], tf.int32), [0]])"),
    ("decode_csv_delim_multi", "tf.io.decode_csv(['1;;2'], [[0], [0]], field_delim=';;')"),
    ("decode_csv_select_unsorted", "tf.io.decode_csv(['1,2,3'], [[0], [0]], select_cols=[2, 0])"),
    ("decode_csv_select_oob", "tf.io.decode_csv(['1,2,3'], [[0], [0]], select_cols=[0, 7])"),
    ("decode_csv_select_count", "tf.io.decode_csv(['1,2,3'], [[0], [0]], select_cols=[0])"),
    ("decode_csv_int_overflow", "tf.io.decode_csv(['99999999999'], [[0]])"),
    ("decode_csv_na_value", "tf.io.decode_csv(['NA,2'], [[7], [0]], na_value='NA')"),
    ("decode_csv_default_matrix", "tf.io.decode_csv(['1'], [[[0, 1]]])"),
    ("decode_csv_default_string_dtype_mismatch", "tf.io.decode_csv(['abc'], [[0.0]])"),
    ("decode_csv_unclosed_quote", "tf.io.decode_csv(['\"abc,1'], [[''], [0]])"),
    ("decode_csv_bool_default", "tf.io.decode_csv(['1'], [[True]])"),
    (
        "serialize_parse_roundtrip_wrong_type",
        "tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([1.0, 2.0])), tf.int64)",
    ),
    (
        "parse_tensor_truncated",
        "tf.io.parse_tensor(tf.strings.substr(tf.io.serialize_tensor(tf.zeros([4])), 0, 9), tf.float32)",
    ),
    ("parse_tensor_vector_input", "tf.io.parse_tensor(['a', 'b'], tf.float32)"),
    ("parse_tensor_huge_shape", "tf.io.parse_tensor(huge_tensor_proto(), tf.float32)"),
    ("parse_tensor_content_short", "tf.io.parse_tensor(short_tensor_proto(), tf.float32)"),
    ("serialize_sparse_bad", "tf.io.deserialize_many_sparse(tf.constant([['a', 'b', 'c']]), tf.float32)"),
    ("string_to_number_exp_overflow_f32", "tf.strings.to_number(['1e40'], tf.float32)"),
    ("string_to_number_empty", "tf.strings.to_number([''])"),
    ("string_to_number_spaces", "tf.strings.to_number([' 12 '])"),
    ("string_to_number_hex", "tf.strings.to_number(['0x10'], tf.int32)"),
    ("string_to_number_int64_overflow", "tf.strings.to_number(['9223372036854775808'], tf.int64)"),
    ("string_to_number_out_string", "tf.strings.to_number(['1'], tf.string)"),
    ("string_to_number_nan_to_int", "tf.strings.to_number(['nan'], tf.int32)"),
    ("string_to_number_float_to_int", "tf.strings.to_number(['1.5'], tf.int32)"),
    ("as_string_fill_two_chars", "tf.as_string(tf.constant([1.0]), width=5, fill='ab')"),
    ("as_string_precision_on_int", "tf.as_string(tf.constant([1]), precision=2)"),
    ("as_string_precision_on_bool", "tf.as_string(tf.constant([True]), precision=2)"),
    ("as_string_sci_and_shortest", "tf.as_string(tf.constant([1.0]), scientific=True, shortest=True)"),
    ("as_string_string_input", "tf.as_string(tf.constant(['a']))"),
    ("as_string_fill_bad_char", "tf.as_string(tf.constant([1]), width=4, fill='x')"),
    ("as_string_width_neg", "tf.as_string(tf.constant([1.5]), width=-3)"),
    ("as_string_precision_huge", "tf.as_string(tf.constant([1.5]), precision=2**31 - 1)"),
    # the converter CLI (`convert_cli(*args)`: [exit status, a traceback printed, the last line of stderr])
    ("convert_cli_no_args", "tw:exec:out = convert_cli()"),
    ("convert_cli_missing_input", "tw:exec:out = convert_cli('--input', tmp('nope.pb'), '--output', tmp('o.twl'))"),
    (
        "convert_cli_input_dir_empty",
        "tw:exec:os.makedirs(tmp('emptydir'), exist_ok=True)\nout = convert_cli('--input', tmp('emptydir'), '--output', tmp('o.twl'))",
    ),
    (
        "convert_cli_unknown_format",
        "tw:exec:open(tmp('m.xyz'), 'w').write('x')\nout = convert_cli('--input', tmp('m.xyz'), '--output', tmp('o.twl'))",
    ),
    ("convert_cli_output_unknown_ext", _CONV + "out = convert_cli('--input', sm, '--output', tmp('o.pdf'))"),
    ("convert_cli_output_no_dir", _CONV + "out = convert_cli('--input', sm, '--output', tmp('nodir5/o.twl'))"),
    (
        "convert_cli_output_is_dir",
        _CONV
        + "os.makedirs(tmp('odir.twl'), exist_ok=True)\nout = convert_cli('--input', sm, '--output', tmp('odir.twl'))",
    ),
    (
        "convert_cli_savedmodel_bad_signature",
        _CONV + "out = convert_cli('--input', sm, '--output', tmp('o.twl'), '--signature', 'nope')",
    ),
    (
        "convert_cli_savedmodel_no_serve_tag",
        "tw:exec:sm = x2_saved_model(tags=['train'])\nout = convert_cli('--input', sm, '--output', tmp('o.twl'))",
    ),
    (
        "convert_cli_savedmodel_no_pb",
        "tw:exec:os.makedirs(tmp('sm_nopb/variables'), exist_ok=True)\nout = convert_cli('--input', tmp('sm_nopb'), '--output', tmp('o.twl'))",
    ),
    (
        "convert_cli_savedmodel_garbage_pb",
        "tw:exec:os.makedirs(tmp('sm_bad'), exist_ok=True)\nopen(tmp('sm_bad/saved_model.pb'), 'wb').write(b'\\xff' * 50)\nout = convert_cli('--input', tmp('sm_bad'), '--output', tmp('o.twl'))",
    ),
    (
        "convert_cli_inputs_unknown",
        _CONV + "out = convert_cli('--input', sm, '--output', tmp('o.twl'), '--inputs', 'nope:0', '--outputs', 'y:0')",
    ),
    (
        "convert_cli_outputs_unknown",
        _CONV + "out = convert_cli('--input', sm, '--output', tmp('o.twl'), '--inputs', 'x:0', '--outputs', 'nope:0')",
    ),
    (
        "convert_cli_outputs_empty",
        _CONV + "out = convert_cli('--input', sm, '--output', tmp('o.twl'), '--outputs', '')",
    ),
    (
        "convert_cli_quantize_no_calibration",
        _CONV + "out = convert_cli('--input', sm, '--output', tmp('o.twl'), '--quantize', 'int8')",
    ),
    (
        "convert_cli_quantize_bad_choice",
        _CONV + "out = convert_cli('--input', sm, '--output', tmp('o.twl'), '--quantize', 'int4')",
    ),
    ("convert_cli_calibration_missing", _CAL.format("tmp('nocal.npz')")),
    (
        "convert_cli_calibration_wrong_shape",
        "tw:exec:np.savez(tmp('cal_shape.npz'), x=np.ones([4, 5, 7], np.float32))\n"
        + _CAL[len("tw:exec:") :].format("tmp('cal_shape.npz')"),
    ),
    (
        "convert_cli_calibration_wrong_dtype",
        "tw:exec:np.savez(tmp('cal_str.npz'), x=np.array([['a', 'b']]))\n"
        + _CAL[len("tw:exec:") :].format("tmp('cal_str.npz')"),
    ),
    (
        "convert_cli_calibration_empty",
        "tw:exec:np.savez(tmp('cal_empty.npz'), x=np.ones([0, 2], np.float32))\n"
        + _CAL[len("tw:exec:") :].format("tmp('cal_empty.npz')"),
    ),
    (
        "convert_cli_calibration_wrong_name",
        "tw:exec:np.savez(tmp('cal_name.npz'), q=np.ones([4, 2], np.float32))\n"
        + _CAL[len("tw:exec:") :].format("tmp('cal_name.npz')"),
    ),
    (
        "convert_cli_calibration_nan",
        "tw:exec:np.savez(tmp('cal_nan.npz'), x=np.full([4, 2], np.nan, np.float32))\n"
        + _CAL[len("tw:exec:") :].format("tmp('cal_nan.npz')"),
    ),
    (
        "convert_cli_calibration_garbage",
        "tw:exec:open(tmp('cal_g.npz'), 'wb').write(b'PK\\x03\\x04garbage')\n"
        + _CAL[len("tw:exec:") :].format("tmp('cal_g.npz')"),
    ),
    (
        "convert_cli_calibration_pickle",
        "tw:exec:np.savez(tmp('cal_obj.npz'), x=np.array([{'a': 1}], dtype=object))\n"
        + _CAL[len("tw:exec:") :].format("tmp('cal_obj.npz')"),
    ),
    (
        "convert_cli_calibration_empty_dir",
        "tw:exec:os.makedirs(tmp('cal_dir'), exist_ok=True)\n" + _CAL[len("tw:exec:") :].format("tmp('cal_dir')"),
    ),
    (
        "convert_cli_quantize_onnx_output",
        _CONV
        + "np.savez(tmp('cal_ok.npz'), x=np.ones([4, 2], np.float32))\nout = convert_cli('--input', sm, '--output', tmp('o.onnx'), '--quantize', 'int8', '--calibration', tmp('cal_ok.npz'))",
    ),
    (
        "convert_cli_calibration_without_quantize",
        _CONV + "out = convert_cli('--input', sm, '--output', tmp('o.twl'), '--calibration', tmp('nocal.npz'))",
    ),
    (
        "convert_cli_garbage_pb",
        "tw:exec:open(tmp('g.pb'), 'wb').write(b'\\x0a\\xff\\xff\\xff\\xff\\x0f')\nout = convert_cli('--input', tmp('g.pb'), '--output', tmp('o.twl'))",
    ),
    (
        "convert_cli_pb_no_outputs",
        "tw:exec:open(tmp('x2.pb'), 'wb').write(graph_x2().SerializeToString())\nout = convert_cli('--input', tmp('x2.pb'), '--output', tmp('o.twl'))",
    ),
    (
        "convert_cli_garbage_onnx",
        "tw:exec:open(tmp('g.onnx'), 'wb').write(b'\\x08\\x07garbage')\nout = convert_cli('--input', tmp('g.onnx'), '--output', tmp('o.twl'))",
    ),
    (
        "convert_cli_empty_h5",
        "tw:exec:open(tmp('e.h5'), 'wb').close()\nout = convert_cli('--input', tmp('e.h5'), '--output', tmp('o.twl'))",
    ),
    (
        "convert_cli_garbage_keras",
        "tw:exec:open(tmp('g.keras'), 'wb').write(b'not a zip')\nout = convert_cli('--input', tmp('g.keras'), '--output', tmp('o.twl'))",
    ),
    (
        "convert_cli_onnx_to_onnx",
        "tw:exec:p = tmp('a.onnx')\nopen(p, 'wb').write(add_onnx())\nout = convert_cli('--input', p, '--output', tmp('o2.onnx'))",
    ),
    (
        "convert_cli_onnx_quantize_dynamic",
        "tw:exec:p = tmp('a.onnx')\nopen(p, 'wb').write(add_onnx())\nout = convert_cli('--input', p, '--output', tmp('o3.twl'), '--quantize', 'dynamic')",
    ),
    # hostile ONNX graphs (`onnx_convert(model)`: the importer's .twl, run on the lite runtime when it converts)
    (
        "onnx_cycle",
        _ONNX
        + "m = make_model([helper.make_node('Relu', ['b'], ['a']), helper.make_node('Relu', ['a'], ['b'])], [('x', np.float32, [2])], [('a', np.float32, [2])])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_self_loop",
        _ONNX
        + "m = make_model([helper.make_node('Add', ['x', 'z'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_duplicate_output",
        _ONNX
        + "m = make_model([helper.make_node('Relu', ['x'], ['z']), helper.make_node('Neg', ['x'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_undefined_input",
        _ONNX
        + "m = make_model([helper.make_node('Add', ['x', 'ghost'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_output_undefined",
        _ONNX
        + "m = make_model([helper.make_node('Relu', ['x'], ['r'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_empty_graph",
        _ONNX + "m = make_model([], [('x', *" + _F23 + ")], [('x', *" + _F23 + ")])" + _OCONV.format("m"),
    ),
    (
        "onnx_no_outputs",
        _ONNX
        + "m = make_model([helper.make_node('Relu', ['x'], ['r'])], [('x', *"
        + _F23
        + ")], [])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_raw_data_short",
        _ONNX
        + "w = numpy_helper.from_array(np.ones([2, 3], np.float32), 'w')\nw.raw_data = w.raw_data[:10]\nm = make_model([helper.make_node('Add', ['x', 'w'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")])\nm.graph.initializer.append(w)"
        + _OCONV.format("m"),
    ),
    (
        "onnx_raw_data_long",
        _ONNX
        + "w = numpy_helper.from_array(np.ones([2, 3], np.float32), 'w')\nw.raw_data = w.raw_data + b'\\x00' * 8\nm = make_model([helper.make_node('Add', ['x', 'w'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")])\nm.graph.initializer.append(w)"
        + _OCONV.format("m"),
    ),
    (
        "onnx_float_data_count_wrong",
        _ONNX
        + "w = TensorProto(name='w', data_type=TensorProto.FLOAT, dims=[2, 3], float_data=[1.0, 2.0])\nm = make_model([helper.make_node('Add', ['x', 'w'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")])\nm.graph.initializer.append(w)"
        + _OCONV.format("m"),
    ),
    (
        "onnx_index_init_short",
        _ONNX
        + "s = numpy_helper.from_array(np.array([3, 2], np.int64), 's')\ns.raw_data = s.raw_data[:12]\nm = make_model([helper.make_node('Reshape', ['x', 's'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', np.float32, [3, 2])])\nm.graph.initializer.append(s)"
        + _OCONV.format("m"),
    ),
    ("onnx_external_outside_dir", _EXT.format("{'location': '../../../etc/passwd'}", f=_F23) + _OCONV.format("p")),
    ("onnx_external_absolute", _EXT.format("{'location': '/etc/hostname'}", f=_F23) + _OCONV.format("p")),
    ("onnx_external_missing", _EXT.format("{'location': 'nope.bin'}", f=_F23) + _OCONV.format("p")),
    (
        "onnx_external_short",
        _EXT.format("{'location': 'w.bin'}", f=_F23)
        + "open(os.path.join(d, 'w.bin'), 'wb').write(b'\\x00' * 8)"
        + _OCONV.format("p"),
    ),
    (
        "onnx_external_offset_past_end",
        _EXT.format("{'location': 'w2.bin', 'offset': 4096, 'length': 24}", f=_F23)
        + "open(os.path.join(d, 'w2.bin'), 'wb').write(b'\\x00' * 64)"
        + _OCONV.format("p"),
    ),
    (
        "onnx_external_length_neg",
        _EXT.format("{'location': 'w3.bin', 'length': -5}", f=_F23)
        + "open(os.path.join(d, 'w3.bin'), 'wb').write(b'\\x00' * 64)"
        + _OCONV.format("p"),
    ),
    (
        "onnx_external_symlink_outside",
        _EXT.format("{'location': 'link.bin'}", f=_F23)
        + "l = os.path.join(d, 'link.bin')\nos.path.lexists(l) or os.symlink('/etc/hostname', l)"
        + _OCONV.format("p"),
    ),
    (
        "onnx_external_from_bytes",
        _EXT.format("{'location': 'w4.bin'}", f=_F23)
        + "open(os.path.join(d, 'w4.bin'), 'wb').write(np.ones(6, np.float32).tobytes())"
        + _OCONV.format("m.SerializeToString()"),
    ),
    (
        "onnx_huge_input_dim",
        _ONNX
        + "m = make_model([helper.make_node('Relu', ['x'], ['z'])], [('x', np.float32, [2**40, 2])], [('z', np.float32, [2**40, 2])])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_huge_init_dims",
        _ONNX
        + "w = TensorProto(name='w', data_type=TensorProto.FLOAT, dims=[2**31, 2**31])\nm = make_model([helper.make_node('Add', ['x', 'w'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")])\nm.graph.initializer.append(w)"
        + _OCONV.format("m"),
    ),
    (
        "onnx_neg_input_dim",
        _ONNX
        + "m = make_model([helper.make_node('Relu', ['x'], ['z'])], [('x', np.float32, [-3, 2])], [('z', np.float32, [-3, 2])])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_opset0",
        _ONNX
        + "m = make_model([helper.make_node('Relu', ['x'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")], opset=0)"
        + _OCONV.format("m"),
    ),
    (
        "onnx_opset99",
        _ONNX
        + "m = make_model([helper.make_node('Relu', ['x'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")], opset=99)"
        + _OCONV.format("m"),
    ),
    (
        "onnx_no_opset",
        _ONNX
        + "m = make_model([helper.make_node('Relu', ['x'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")])\ndel m.opset_import[:]"
        + _OCONV.format("m"),
    ),
    (
        "onnx_unknown_domain",
        _ONNX
        + "m = make_model([helper.make_node('Relu', ['x'], ['z'], domain='evil.corp')], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")])\nm.opset_import.add(domain='evil.corp', version=1)"
        + _OCONV.format("m"),
    ),
    (
        "onnx_unknown_op",
        _ONNX
        + "m = make_model([helper.make_node('Frobnicate', ['x'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_string_input",
        _ONNX
        + "m = make_model([helper.make_node('Identity', ['x'], ['z'])], [('x', np.str_, [2])], [('z', np.str_, [2])])"
        + _OCONV.format("m"),
    ),
    ("onnx_truncated_bytes", _ONNX + "b = add_onnx()" + _OCONV.format("b[: len(b) // 2]")),
    (
        "onnx_reshape_huge_const",
        _ONNX
        + "m = make_model([helper.make_node('Reshape', ['x', 's'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', np.float32, None)], [('s', np.array([2**40, 2**40], np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_constant_of_shape_huge",
        _ONNX
        + "m = make_model([helper.make_node('ConstantOfShape', ['s'], ['c']), helper.make_node('Add', ['x', 'c'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', np.float32, None)], [('s', np.array([2**20, 2**20], np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_expand_huge",
        _ONNX
        + "m = make_model([helper.make_node('Expand', ['x', 's'], ['z'])], [('x', np.float32, [1, 1])], [('z', np.float32, None)], [('s', np.array([2**31, 2**31], np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_tile_huge",
        _ONNX
        + "m = make_model([helper.make_node('Tile', ['x', 'r'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', np.float32, None)], [('r', np.array([2**30, 2**30], np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_range_huge",
        _ONNX
        + "m = make_model([helper.make_node('Range', ['a', 'b', 'c'], ['r']), helper.make_node('Cast', ['r'], ['rf'], to=1), helper.make_node('ReduceSum', ['rf'], ['s'], keepdims=0), helper.make_node('Add', ['x', 's'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")], [('a', np.array(0, np.int64)), ('b', np.array(2**40, np.int64)), ('c', np.array(1, np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_gather_const_oob",
        _ONNX
        + "m = make_model([helper.make_node('Gather', ['x', 'i'], ['z'], axis=1)], [('x', *"
        + _F23
        + ")], [('z', np.float32, None)], [('i', np.array([7], np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_gather_init_oob_folded",
        _ONNX
        + "m = make_model([helper.make_node('Gather', ['w', 'i'], ['g']), helper.make_node('Add', ['x', 'g'], ['z'])], [('x', np.float32, [3])], [('z', np.float32, [3])], [('w', np.ones([2, 3], np.float32)), ('i', np.array(9, np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_slice_step0",
        _ONNX
        + "m = make_model([helper.make_node('Slice', ['x', 'st', 'en', 'ax', 'sp'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', np.float32, None)], [('st', np.array([0], np.int64)), ('en', np.array([3], np.int64)), ('ax', np.array([1], np.int64)), ('sp', np.array([0], np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_conv_group0",
        _ONNX
        + "m = make_model([helper.make_node('Conv', ['x', 'w'], ['z'], group=0)], [('x', np.float32, [1, 2, 4, 4])], [('z', np.float32, None)], [('w', np.ones([2, 2, 3, 3], np.float32))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_conv_stride0",
        _ONNX
        + "m = make_model([helper.make_node('Conv', ['x', 'w'], ['z'], strides=[0, 0])], [('x', np.float32, [1, 2, 4, 4])], [('z', np.float32, None)], [('w', np.ones([2, 2, 3, 3], np.float32))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_maxpool_kernel0",
        _ONNX
        + "m = make_model([helper.make_node('MaxPool', ['x'], ['z'], kernel_shape=[0, 0])], [('x', np.float32, [1, 2, 4, 4])], [('z', np.float32, None)])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_loop_huge_trip",
        _ONNX
        + _LOOP_BODY
        + "m = make_model([helper.make_node('Loop', ['n', '', 'x'], ['z'], body=body)], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")], [('n', np.array(2**40, np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_loop_neg_trip",
        _ONNX
        + _LOOP_BODY
        + "m = make_model([helper.make_node('Loop', ['n', '', 'x'], ['z'], body=body)], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")], [('n', np.array(-5, np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_loop_no_body",
        _ONNX
        + "m = make_model([helper.make_node('Loop', ['n', '', 'x'], ['z'])], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")], [('n', np.array(2, np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_loop_body_wrong_arity",
        _ONNX
        + _LOOP_BODY
        + "del body.input[2]\nm = make_model([helper.make_node('Loop', ['n', '', 'x'], ['z'], body=body)], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")], [('n', np.array(2, np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_loop_body_missing_cond_out",
        _ONNX
        + _LOOP_BODY
        + "del body.output[0]\nm = make_model([helper.make_node('Loop', ['n', '', 'x'], ['z'], body=body)], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")], [('n', np.array(2, np.int64))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_loop_no_bound",
        _ONNX
        + _LOOP_BODY
        + "m = make_model([helper.make_node('Loop', ['', 'c', 'x'], ['z'], body=body)], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")], [('c', np.array(True))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_if_missing_branch",
        _ONNX
        + "m = make_model([helper.make_node('If', ['c'], ['z'])], [('c', np.bool_, [])], [('z', *"
        + _F23
        + ")])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_if_branch_count_mismatch",
        _ONNX
        + "t = helper.make_graph([helper.make_node('Constant', [], ['a'], value=numpy_helper.from_array(np.ones([2, 3], np.float32)))], 't', [], [helper.make_tensor_value_info('a', TensorProto.FLOAT, [2, 3])])\ne = helper.make_graph([], 'e', [], [])\nm = make_model([helper.make_node('If', ['c'], ['z'], then_branch=t, else_branch=e)], [('c', np.bool_, [])], [('z', *"
        + _F23
        + ")])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_if_self_reference",
        _ONNX
        + "t = helper.make_graph([helper.make_node('Relu', ['z'], ['a'])], 't', [], [helper.make_tensor_value_info('a', TensorProto.FLOAT, [2, 3])])\nm = make_model([helper.make_node('If', ['c'], ['z'], then_branch=t, else_branch=t)], [('c', np.bool_, [])], [('z', *"
        + _F23
        + ")])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_scan_bad_num_inputs",
        _ONNX
        + "b = helper.make_graph([helper.make_node('Add', ['s', 'e'], ['s2']), helper.make_node('Identity', ['s2'], ['o'])], 'b', [helper.make_tensor_value_info('s', TensorProto.FLOAT, [3]), helper.make_tensor_value_info('e', TensorProto.FLOAT, [3])], [helper.make_tensor_value_info('s2', TensorProto.FLOAT, [3]), helper.make_tensor_value_info('o', TensorProto.FLOAT, [3])])\nm = make_model([helper.make_node('Scan', ['s0', 'x'], ['sf', 'z'], body=b, num_scan_inputs=5)], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")], [('s0', np.zeros([3], np.float32))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_scan_num_inputs_neg",
        _ONNX
        + "b = helper.make_graph([helper.make_node('Add', ['s', 'e'], ['s2']), helper.make_node('Identity', ['s2'], ['o'])], 'b', [helper.make_tensor_value_info('s', TensorProto.FLOAT, [3]), helper.make_tensor_value_info('e', TensorProto.FLOAT, [3])], [helper.make_tensor_value_info('s2', TensorProto.FLOAT, [3]), helper.make_tensor_value_info('o', TensorProto.FLOAT, [3])])\nm = make_model([helper.make_node('Scan', ['s0', 'x'], ['sf', 'z'], body=b, num_scan_inputs=-1)], [('x', *"
        + _F23
        + ")], [('z', *"
        + _F23
        + ")], [('s0', np.zeros([3], np.float32))])"
        + _OCONV.format("m"),
    ),
    (
        "onnx_deep_nesting",
        _ONNX
        + "leaf = g = helper.make_graph([helper.make_node('Constant', [], ['a'], value=numpy_helper.from_array(np.ones([2, 3], np.float32)))], 'g', [], [helper.make_tensor_value_info('a', TensorProto.FLOAT, [2, 3])])\nfor k in range(25):\n    g = helper.make_graph([helper.make_node('If', ['c'], ['a'], then_branch=g, else_branch=leaf)], f'g{k}', [], [helper.make_tensor_value_info('a', TensorProto.FLOAT, [2, 3])])\nm = make_model(list(g.node), [('c', np.bool_, [])], [('a', *"
        + _F23
        + ")])"
        + _OCONV.format("m"),
    ),
]

_WL = "exec:x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\n"
_LOOP = "r = tf.while_loop(lambda k, a: k < 3, lambda k, a: (k + 1, a + {}), [0, {}])[1]\nfetches = tf.convert_to_tensor(tf.gradients(r, {})[0])"
CASES_S23 += [
    # gradients through while_loop / cond / map_fn of ops with sparse (IndexedSlices) or integer-index gradients
    ("loopgrad_gather_rows", _WL + _LOOP.format("tf.reduce_sum(tf.gather(x, [k, 0]))", "0.0", "x")),
    ("loopgrad_gather_axis1", _WL + _LOOP.format("tf.reduce_sum(tf.gather(x, [1], axis=1))", "0.0", "x")),
    ("loopgrad_gather_nd", _WL + _LOOP.format("tf.gather_nd(x, [[k, 1]])[0]", "0.0", "x")),
    ("loopgrad_embedding_lookup", _WL + _LOOP.format("tf.reduce_sum(tf.nn.embedding_lookup(x, [k]))", "0.0", "x")),
    ("loopgrad_gather_oob_index", _WL + _LOOP.format("tf.reduce_sum(tf.gather(x, [k + 5]))", "0.0", "x")),
    ("loopgrad_segment_sum", _WL + _LOOP.format("tf.reduce_sum(tf.unsorted_segment_sum(x, [0, 1, k], 3))", "0.0", "x")),
    (
        "loopgrad_segment_oob",
        _WL + _LOOP.format(f"tf.reduce_sum(tf.unsorted_segment_sum(x, [0, 1, {PH}(9, [])], 3))", "0.0", "x"),
    ),
    (
        "loopgrad_sparse_segment",
        _WL + _LOOP.format("tf.reduce_sum(tf.sparse.segment_sum(x, [k, 0], [0, 0]))", "0.0", "x"),
    ),
    ("loopgrad_scatter_nd", _WL + _LOOP.format("tf.reduce_sum(tf.scatter_nd([[k]], x[:1], [3, 2]) * x)", "0.0", "x")),
    (
        "loopgrad_tensor_scatter",
        _WL + _LOOP.format("tf.reduce_sum(tf.tensor_scatter_nd_update(x, [[k]], [[0.0, 0.0]]))", "0.0", "x"),
    ),
    ("loopgrad_slice_dynamic", _WL + _LOOP.format("tf.reduce_sum(tf.slice(x, [k, 0], [1, 2]))", "0.0", "x")),
    ("loopgrad_strided_slice", _WL + _LOOP.format("tf.reduce_sum(x[k])", "0.0", "x")),
    ("loopgrad_pad", _WL + _LOOP.format("tf.reduce_sum(tf.pad(x, [[k, 0], [0, 1]]))", "0.0", "x")),
    (
        "loopgrad_concat_axis_k",
        _WL + _LOOP.format("tf.reduce_sum(tf.concat([x, x], k % 2) * tf.cast(k + 1, tf.float32))", "0.0", "x"),
    ),
    ("loopgrad_reduce_axis_k", _WL + _LOOP.format("tf.reduce_sum(tf.reduce_max(x, k % 2))", "0.0", "x")),
    ("loopgrad_matmul", _WL + _LOOP.format("tf.reduce_sum(tf.matmul(x, x, transpose_b=True))", "0.0", "x")),
    (
        "loopgrad_dynamic_partition",
        _WL + _LOOP.format("tf.reduce_sum(tf.dynamic_partition(x, [0, 1, k % 2], 2)[0])", "0.0", "x"),
    ),
    ("loopgrad_cumsum", _WL + _LOOP.format("tf.reduce_sum(tf.cumsum(x, axis=k % 2))", "0.0", "x")),
    ("loopgrad_tile", _WL + _LOOP.format("tf.reduce_sum(tf.tile(x, [k + 1, 1]))", "0.0", "x")),
    (
        "loopgrad_reshape_dynamic",
        _WL + _LOOP.format("tf.reduce_sum(tf.reshape(x, [-1, 3 - k % 2 * 0]) ** 2)", "0.0", "x"),
    ),
    (
        "loopgrad_nested_while",
        _WL
        + _LOOP.format(
            "tf.while_loop(lambda j, b: j < k, lambda j, b: (j + 1, b + tf.reduce_sum(tf.gather(x, [j]))), [0, 0.0])[1]",
            "0.0",
            "x",
        ),
    ),
    (
        "loopgrad_cond_inside",
        _WL + _LOOP.format("tf.cond(k > 0, lambda: tf.reduce_sum(tf.gather(x, [k])), lambda: 0.0)", "0.0", "x"),
    ),
    (
        "loopgrad_tensor_array",
        "exec:x = tf.constant([1.0, 2.0, 3.0])\nta = tf.TensorArray(tf.float32, size=3)\n_, ta = tf.while_loop(lambda k, t: k < 3, lambda k, t: (k + 1, t.write(k, tf.gather(x, k) * 2.0)), [0, ta])\nfetches = tf.gradients(tf.reduce_sum(ta.stack()), x)[0]",
    ),
    (
        "loopgrad_variable_gather",
        "exec:v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])\nr = tf.while_loop(lambda k, a: k < 2, lambda k, a: (k + 1, a + tf.reduce_sum(tf.gather(v, [k]))), [0, 0.0])[1]\ng = tf.gradients(r, v)[0]\nsess.run(tf.global_variables_initializer())\nout = sess.run([g.values, g.indices]) if hasattr(g, 'indices') else sess.run(g)",
    ),
    (
        "loopgrad_max_iter",
        _WL
        + "r = tf.while_loop(lambda k, a: k < 10, lambda k, a: (k + 1, a + tf.reduce_sum(tf.gather(x, [k % 3]))), [0, 0.0], maximum_iterations=4)[1]\nfetches = tf.convert_to_tensor(tf.gradients(r, x)[0])",
    ),
    (
        "condgrad_gather",
        _WL
        + f"r = tf.cond({PH}(True, []), lambda: tf.reduce_sum(tf.gather(x, [2, 2])), lambda: tf.reduce_sum(x))\nfetches = tf.convert_to_tensor(tf.gradients(r, x)[0])",
    ),
    (
        "condgrad_gather_false",
        _WL
        + f"r = tf.cond({PH}(False, []), lambda: tf.reduce_sum(tf.gather(x, [2, 2])), lambda: tf.reduce_sum(x))\nfetches = tf.convert_to_tensor(tf.gradients(r, x)[0])",
    ),
    (
        "mapfngrad_gather",
        _WL
        + "r = tf.map_fn(lambda i: tf.reduce_sum(tf.gather(x, i)), tf.constant([0, 2, 2]), dtype=tf.float32)\nfetches = tf.convert_to_tensor(tf.gradients(tf.reduce_sum(r), x)[0])",
    ),
    (
        "scangrad_gather",
        _WL
        + "r = tf.scan(lambda a, i: a + tf.reduce_sum(tf.gather(x, i)), tf.constant([0, 2, 1]), initializer=0.0)\nfetches = tf.convert_to_tensor(tf.gradients(tf.reduce_sum(r), x)[0])",
    ),
    (
        "mapfngrad_oob",
        _WL
        + f"r = tf.map_fn(lambda i: tf.reduce_sum(tf.gather(x, i)), {PH}([0, 7], [None]), dtype=tf.float32)\nfetches = tf.convert_to_tensor(tf.gradients(tf.reduce_sum(r), x)[0])",
    ),
    (
        "loopgrad_hessian",
        "exec:x = tf.constant([1.0, 2.0])\nr = tf.while_loop(lambda k, a: k < 2, lambda k, a: (k + 1, a * x), [0, tf.ones([2])])[1]\nfetches = tf.hessians(tf.reduce_sum(r), x)[0]",
    ),
    (
        "loopgrad_int_loop_var",
        "exec:x = tf.constant(2.0)\nr = tf.while_loop(lambda k, a: k < 3, lambda k, a: (k + 1, a * x), [0, 1.0])\nout = [g is None for g in tf.gradients(r[0], x)]",
    ),
    (
        "loopgrad_grad_ys_wrong_shape",
        _WL
        + _LOOP.format("tf.gather(x, [k])", "tf.zeros([1, 2])", "x").replace(
            "tf.gradients(r, x)", "tf.gradients(r, x, grad_ys=tf.ones([3, 3]))"
        ),
    ),
]

_RO = "tf.RunOptions(timeout_in_ms=300)"
CASES_S23 += [
    # a step that would block for ever, bounded by a run timeout (DeadlineExceeded), or cancelled by close
    ("timeout_dequeue_empty", _Q2 + f"out = sess.run(q.dequeue(), options={_RO})"),
    (
        "timeout_enqueue_full",
        _Q2 + f"sess.run(q.enqueue_many([[1.0, 2.0]]))\nout = sess.run(q.enqueue(3.0), options={_RO})",
    ),
    ("timeout_dequeue_many_short", _Q2 + f"sess.run(q.enqueue(1.0))\nout = sess.run(q.dequeue_many(2), options={_RO})"),
    (
        "timeout_then_queue_usable",
        _Q2
        + f"try:\n    sess.run(q.dequeue(), options={_RO})\nexcept tf.errors.DeadlineExceededError:\n    pass\nsess.run(q.enqueue(5.0))\nout = sess.run(q.dequeue())",
    ),
    (
        "timeout_config_operation",
        "exec:q = tf.FIFOQueue(2, tf.float32, shapes=[[]])\ns2 = tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=300))\nout = s2.run(q.dequeue())",
    ),
    (
        "timeout_zero_means_none",
        _Q2 + "sess.run(q.enqueue(1.0))\nout = sess.run(q.dequeue(), options=tf.RunOptions(timeout_in_ms=0))",
    ),
    (
        "timeout_negative",
        _Q2 + "sess.run(q.enqueue(1.0))\nout = sess.run(q.dequeue(), options=tf.RunOptions(timeout_in_ms=-5))",
    ),
    (
        "timeout_random_shuffle_below_min",
        "exec:q = tf.RandomShuffleQueue(4, 2, tf.float32, shapes=[[]])\nsess.run(q.enqueue(1.0))\n"
        + f"out = sess.run(q.dequeue(), options={_RO})",
    ),
    (
        "timeout_padding_queue",
        "exec:q = tf.PaddingFIFOQueue(3, tf.float32, shapes=[[None]])\n"
        + f"out = sess.run(q.dequeue_many(2), options={_RO})",
    ),
    (
        "timeout_priority_queue",
        "exec:q = tf.PriorityQueue(4, [tf.float32], shapes=[[]])\n" + f"out = sess.run(q.dequeue(), options={_RO})",
    ),
    (
        "timeout_close_cancel_pending",
        _Q2
        + "import threading\nd = q.dequeue()\nres = []\ndef f():\n    try:\n        res.append(sess.run(d))\n    except Exception as e:\n        res.append(type(e).__name__)\nt = threading.Thread(target=f)\nt.start()\nimport time\ntime.sleep(0.5)\nsess.run(q.close(cancel_pending_enqueues=True))\nt.join(5)\nout = res",
    ),
    (
        "timeout_conditional_accumulator",
        "exec:a = tf.ConditionalAccumulator(tf.float32, shape=[])\n" + f"out = sess.run(a.take_grad(1), options={_RO})",
    ),
]

_R = "tf.raw_ops."
_P4 = f"{PH}(tf.ones([1, 4, 4, 1]), [None] * 4)"
_P = PH + "({}, None)"
CASES_S23 += [
    # the gradient kernels called directly (tf.raw_ops) with inconsistent run-time shapes
    (
        "rawgrad_max_pool_grad_shape_mismatch",
        _R
        + f"MaxPoolGrad(orig_input={_P4}, orig_output={_P.format('tf.ones([1, 2, 2, 1])')}, grad={_P.format('tf.ones([1, 3, 3, 1])')}, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='VALID')",
    ),
    (
        "rawgrad_max_pool_grad_output_small",
        _R
        + f"MaxPoolGrad(orig_input={_P4}, orig_output={_P.format('tf.ones([1, 1, 1, 1])')}, grad={_P.format('tf.ones([1, 1, 1, 1])')}, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='VALID')",
    ),
    (
        "rawgrad_avg_pool_grad_bad_shape",
        _R
        + f"AvgPoolGrad(orig_input_shape={_P.format('[1, -4, 4, 1]')}, grad={_P.format('tf.ones([1, 2, 2, 1])')}, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='VALID')",
    ),
    (
        "rawgrad_avg_pool_grad_grad_mismatch",
        _R
        + f"AvgPoolGrad(orig_input_shape={_P.format('[1, 4, 4, 1]')}, grad={_P.format('tf.ones([1, 5, 5, 1])')}, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='VALID')",
    ),
    (
        "rawgrad_avg_pool_grad_huge_shape",
        _R
        + f"AvgPoolGrad(orig_input_shape={_P.format('[1, 2**30, 2**30, 1]')}, grad={_P.format('tf.ones([1, 2, 2, 1])')}, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='VALID')",
    ),
    (
        "rawgrad_conv_input_sizes_mismatch",
        _R
        + f"Conv2DBackpropInput(input_sizes={_P.format('[1, 9, 9, 1]')}, filter={_P.format('tf.ones([2, 2, 1, 1])')}, out_backprop={_P4}, strides=[1, 1, 1, 1], padding='VALID')",
    ),
    (
        "rawgrad_conv_input_sizes_neg",
        _R
        + f"Conv2DBackpropInput(input_sizes={_P.format('[1, -5, 5, 1]')}, filter={_P.format('tf.ones([2, 2, 1, 1])')}, out_backprop={_P4}, strides=[1, 1, 1, 1], padding='VALID')",
    ),
    (
        "rawgrad_conv_input_sizes_short",
        _R
        + f"Conv2DBackpropInput(input_sizes={_P.format('[5, 5]')}, filter={_P.format('tf.ones([2, 2, 1, 1])')}, out_backprop={_P4}, strides=[1, 1, 1, 1], padding='VALID')",
    ),
    (
        "rawgrad_conv_filter_sizes_mismatch",
        _R
        + f"Conv2DBackpropFilter(input={_P.format('tf.ones([1, 5, 5, 1])')}, filter_sizes={_P.format('[3, 3, 2, 1]')}, out_backprop={_P4}, strides=[1, 1, 1, 1], padding='VALID')",
    ),
    (
        "rawgrad_conv_filter_sizes_zero",
        _R
        + f"Conv2DBackpropFilter(input={_P.format('tf.ones([1, 5, 5, 1])')}, filter_sizes={_P.format('[0, 0, 1, 1]')}, out_backprop={_P4}, strides=[1, 1, 1, 1], padding='VALID')",
    ),
    (
        "rawgrad_depthwise_input_mismatch",
        _R
        + f"DepthwiseConv2dNativeBackpropInput(input_sizes={_P.format('[1, 9, 9, 3]')}, filter={_P.format('tf.ones([2, 2, 1, 1])')}, out_backprop={_P4}, strides=[1, 1, 1, 1], padding='VALID')",
    ),
    (
        "rawgrad_depthwise_filter_mismatch",
        _R
        + f"DepthwiseConv2dNativeBackpropFilter(input={_P.format('tf.ones([1, 5, 5, 2])')}, filter_sizes={_P.format('[2, 2, 1, 1]')}, out_backprop={_P4}, strides=[1, 1, 1, 1], padding='VALID')",
    ),
    (
        "rawgrad_conv3d_input_mismatch",
        _R
        + f"Conv3DBackpropInputV2(input_sizes={_P.format('[1, 9, 9, 9, 1]')}, filter={_P.format('tf.ones([2, 2, 2, 1, 1])')}, out_backprop={_P.format('tf.ones([1, 3, 3, 3, 1])')}, strides=[1, 1, 1, 1, 1], padding='VALID')",
    ),
    (
        "rawgrad_relu_grad_mismatch",
        _R + f"ReluGrad(gradients={_P.format('tf.ones([3])')}, features={_P.format('tf.ones([5])')})",
    ),
    (
        "rawgrad_relu6_grad_mismatch",
        _R + f"Relu6Grad(gradients={_P.format('tf.ones([5])')}, features={_P.format('tf.ones([3])')})",
    ),
    (
        "rawgrad_elu_grad_mismatch",
        _R + f"EluGrad(gradients={_P.format('tf.ones([2, 3])')}, outputs={_P.format('tf.ones([3, 2])')})",
    ),
    (
        "rawgrad_sigmoid_grad_mismatch",
        _R + f"SigmoidGrad(y={_P.format('tf.ones([4])')}, dy={_P.format('tf.ones([2])')})",
    ),
    ("rawgrad_tanh_grad_mismatch", _R + f"TanhGrad(y={_P.format('tf.ones([2])')}, dy={_P.format('tf.ones([4])')})"),
    ("rawgrad_sqrt_grad_mismatch", _R + f"SqrtGrad(y={_P.format('tf.ones([2])')}, dy={_P.format('tf.ones([7])')})"),
    (
        "rawgrad_leaky_relu_grad_mismatch",
        _R + f"LeakyReluGrad(gradients={_P.format('tf.ones([2])')}, features={_P.format('tf.ones([6])')})",
    ),
    (
        "rawgrad_softplus_grad_mismatch",
        _R + f"SoftplusGrad(gradients={_P.format('tf.ones([8])')}, features={_P.format('tf.ones([2])')})",
    ),
    ("rawgrad_bias_add_grad_scalar", _R + f"BiasAddGrad(out_backprop={_P.format('tf.constant(1.0)')})"),
    (
        "rawgrad_resize_bilinear_grad_bad",
        _R
        + f"ResizeBilinearGrad(grads={_P.format('tf.ones([1, 4, 4, 1])')}, original_image={_P.format('tf.ones([2, 0, 3, 1])')})",
    ),
    (
        "rawgrad_resize_nn_grad_bad_size",
        _R + f"ResizeNearestNeighborGrad(grads={_P.format('tf.ones([1, 4, 4, 1])')}, size={_P.format('[-2, 2]')})",
    ),
    (
        "rawgrad_resize_nn_grad_huge",
        _R
        + f"ResizeNearestNeighborGrad(grads={_P.format('tf.ones([1, 4, 4, 1])')}, size={_P.format('[2**30, 2**30]')})",
    ),
    (
        "rawgrad_fused_bn_grad_mismatch",
        _R
        + f"FusedBatchNormGrad(y_backprop={_P.format('tf.ones([1, 2, 2, 3])')}, x={_P.format('tf.ones([1, 2, 2, 3])')}, scale={_P.format('tf.ones([2])')}, reserve_space_1={_P.format('tf.ones([3])')}, reserve_space_2={_P.format('tf.ones([3])')})[0]",
    ),
    (
        "rawgrad_fused_bn_grad_x_mismatch",
        _R
        + f"FusedBatchNormGrad(y_backprop={_P.format('tf.ones([1, 2, 2, 3])')}, x={_P.format('tf.ones([1, 3, 3, 3])')}, scale={_P.format('tf.ones([3])')}, reserve_space_1={_P.format('tf.ones([3])')}, reserve_space_2={_P.format('tf.ones([3])')})[0]",
    ),
    (
        "rawgrad_lrn_grad_mismatch",
        _R
        + f"LRNGrad(input_grads={_P.format('tf.ones([1, 2, 2, 3])')}, input_image={_P.format('tf.ones([1, 2, 2, 4])')}, output_image={_P.format('tf.ones([1, 2, 2, 3])')})",
    ),
    (
        "rawgrad_max_pool_grad_argmax_oob",
        _R
        + f"MaxPoolGradWithArgmax(input={_P4}, grad={_P.format('tf.ones([1, 2, 2, 1])')}, argmax={_P.format('tf.constant([[[[0], [99]], [[-5], [3]]]], tf.int64)')}, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='VALID')",
    ),
    (
        "rawgrad_max_pool3d_grad_mismatch",
        _R
        + f"MaxPool3DGrad(orig_input={_P.format('tf.ones([1, 4, 4, 4, 1])')}, orig_output={_P.format('tf.ones([1, 1, 1, 1, 1])')}, grad={_P.format('tf.ones([1, 2, 2, 2, 1])')}, ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 2, 1], padding='VALID')",
    ),
    (
        "rawgrad_avg_pool3d_grad_mismatch",
        _R
        + f"AvgPool3DGrad(orig_input_shape={_P.format('[1, 4, 4, 4, 1]')}, grad={_P.format('tf.ones([1, 3, 3, 3, 1])')}, ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 2, 1], padding='VALID')",
    ),
    (
        "rawgrad_strided_slice_grad_bad",
        _R
        + f"StridedSliceGrad(shape={_P.format('[3]')}, begin={_P.format('[0]')}, end={_P.format('[3]')}, strides={_P.format('[1]')}, dy={_P.format('tf.ones([7])')})",
    ),
    (
        "rawgrad_strided_slice_grad_neg_shape",
        _R
        + f"StridedSliceGrad(shape={_P.format('[-3]')}, begin={_P.format('[0]')}, end={_P.format('[3]')}, strides={_P.format('[1]')}, dy={_P.format('tf.ones([3])')})",
    ),
    (
        "rawgrad_mirror_pad_grad_bad",
        _R + f"MirrorPadGrad(input={_P.format('tf.ones([3])')}, paddings={_P.format('[[5, 5]]')}, mode='REFLECT')",
    ),
    (
        "rawgrad_broadcast_gradient_args_bad",
        _R + f"BroadcastGradientArgs(s0={_P.format('[2, 3]')}, s1={_P.format('[4, 3]')})[0]",
    ),
    ("rawgrad_invert_permutation_bad", _R + f"InvertPermutation(x={_P.format('[0, 5, 1]')})"),
    ("rawgrad_invert_permutation_dup", _R + f"InvertPermutation(x={_P.format('[0, 0, 1]')})"),
    (
        "rawgrad_softmax_xent_mismatch",
        _R
        + f"SoftmaxCrossEntropyWithLogits(features={_P.format('tf.ones([2, 3])')}, labels={_P.format('tf.ones([3, 3])')})[0]",
    ),
    (
        "rawgrad_sparse_softmax_xent_mismatch",
        _R
        + f"SparseSoftmaxCrossEntropyWithLogits(features={_P.format('tf.ones([2, 3])')}, labels={_P.format('[0, 1, 2]')})[0]",
    ),
]


# Round 5 (s24). tw.lite's Python Interpreter and TFLiteConverter against TF's tf.lite (each library converts
# its own model y = 2 * x of x: [1, 2] floats, or [None, 2] with dyn=True).
_TL = "exec:it = lite_interp()\ni, o = it.get_input_details()[0]['index'], it.get_output_details()[0]['index']\n"
_TLN = "exec:it = lite_interp(allocate=False)\ni, o = it.get_input_details()[0]['index'], it.get_output_details()[0]['index']\n"
_TLD = (
    "exec:it = lite_interp(dyn=True)\ni, o = it.get_input_details()[0]['index'], it.get_output_details()[0]['index']\n"
)
_ONES12 = "np.ones([1, 2], np.float32)"
_RUN = "it.invoke()\nout = it.get_tensor(o)"
_XY = "x = tf.placeholder(tf.float32, [1, 2], name='x')\ny = tf.identity(x * 2.0, name='y')\n"
_CONV = "exec:" + _XY
CASES_S24 = [
    ("lite_py_ok", _TL + f"it.set_tensor(i, {_ONES12})\n" + _RUN),
    ("lite_py_content_garbage", "exec:out = tf.lite.Interpreter(model_content=b'garbage!' * 16).get_input_details()"),
    ("lite_py_content_empty", "exec:out = tf.lite.Interpreter(model_content=b'').get_input_details()"),
    ("lite_py_content_zeros", "exec:out = tf.lite.Interpreter(model_content=bytes(4096)).get_input_details()"),
    (
        "lite_py_content_truncated_half",
        (
            "exec:m = lite_model()\nit = tf.lite.Interpreter(model_content=m[: len(m) // 2])\nit.allocate_tensors()\n"
            "out = len(it.get_input_details())"
        ),
    ),
    (
        "lite_py_content_truncated_8",
        "exec:out = tf.lite.Interpreter(model_content=lite_model()[:8]).get_input_details()",
    ),
    (
        "lite_py_content_truncated_4",
        "exec:out = tf.lite.Interpreter(model_content=lite_model()[:4]).get_input_details()",
    ),
    (
        "lite_py_content_tail_cut",
        (
            "exec:m = lite_model()\nit = tf.lite.Interpreter(model_content=m[:-16])\nit.allocate_tensors()\n"
            "out = len(it.get_input_details())"
        ),
    ),
    (
        "lite_py_content_header_flipped",
        (
            "exec:m = bytearray(lite_model())\nm[0] ^= 0xff\nm[1] ^= 0xff\nit = tf.lite.Interpreter(model_content=bytes(m))\n"
            "it.allocate_tensors()\nout = len(it.get_input_details())"
        ),
    ),
    ("lite_py_content_str", "exec:out = tf.lite.Interpreter(model_content='not a model').get_input_details()"),
    ("lite_py_content_int", "exec:out = tf.lite.Interpreter(model_content=5).get_input_details()"),
    ("lite_py_content_list", "exec:out = tf.lite.Interpreter(model_content=[1, 2, 3]).get_input_details()"),
    ("lite_py_path_missing", "exec:out = tf.lite.Interpreter(model_path=tmp('missing.model')).get_input_details()"),
    ("lite_py_path_dir", "exec:out = tf.lite.Interpreter(model_path=TMP).get_input_details()"),
    (
        "lite_py_path_empty_file",
        "exec:open(tmp('empty.model'), 'wb').close()\nout = tf.lite.Interpreter(model_path=tmp('empty.model')).get_input_details()",
    ),
    (
        "lite_py_path_garbage_file",
        (
            "exec:open(tmp('garbage.model'), 'wb').write(b'garbage!' * 100)\n"
            "out = tf.lite.Interpreter(model_path=tmp('garbage.model')).get_input_details()"
        ),
    ),
    (
        "lite_py_path_truncated_file",
        (
            "exec:open(tmp('cut.model'), 'wb').write(lite_model()[:40])\n"
            "out = tf.lite.Interpreter(model_path=tmp('cut.model')).get_input_details()"
        ),
    ),
    ("lite_py_path_int", "exec:out = tf.lite.Interpreter(model_path=7).get_input_details()"),
    (
        "lite_py_both_given",
        (
            "exec:open(tmp('ok.model'), 'wb').write(lite_model())\n"
            "out = tf.lite.Interpreter(model_path=tmp('ok.model'), model_content=lite_model()).get_input_details()"
        ),
    ),
    ("lite_py_neither_given", "exec:out = tf.lite.Interpreter().get_input_details()"),
    (
        "lite_py_num_threads_neg",
        "exec:out = len(tf.lite.Interpreter(model_content=lite_model(), num_threads=-5).get_input_details())",
    ),
    (
        "lite_py_num_threads_str",
        "exec:out = len(tf.lite.Interpreter(model_content=lite_model(), num_threads='2').get_input_details())",
    ),
    (
        "lite_py_num_threads_float",
        "exec:out = len(tf.lite.Interpreter(model_content=lite_model(), num_threads=2.5).get_input_details())",
    ),
    ("lite_py_invoke_before_allocate", _TLN + "it.invoke()\nout = 1"),
    ("lite_py_set_before_allocate", _TLN + f"it.set_tensor(i, {_ONES12})\nout = 1"),
    ("lite_py_set_int32", _TL + "it.set_tensor(i, np.ones([1, 2], np.int32))\n" + _RUN),
    ("lite_py_set_float64", _TL + "it.set_tensor(i, np.ones([1, 2], np.float64))\n" + _RUN),
    ("lite_py_set_float16", _TL + "it.set_tensor(i, np.ones([1, 2], np.float16))\n" + _RUN),
    ("lite_py_set_bool", _TL + "it.set_tensor(i, np.ones([1, 2], np.bool_))\n" + _RUN),
    ("lite_py_set_wrong_shape", _TL + "it.set_tensor(i, np.ones([2, 2], np.float32))\n" + _RUN),
    ("lite_py_set_wrong_rank", _TL + "it.set_tensor(i, np.ones([2], np.float32))\n" + _RUN),
    ("lite_py_set_scalar", _TL + "it.set_tensor(i, np.float32(1))\n" + _RUN),
    ("lite_py_set_empty", _TL + "it.set_tensor(i, np.ones([0, 2], np.float32))\n" + _RUN),
    ("lite_py_set_index_big", _TL + f"it.set_tensor(999, {_ONES12})\nout = 1"),
    ("lite_py_set_index_neg", _TL + f"it.set_tensor(-1, {_ONES12})\nout = 1"),
    ("lite_py_set_index_str", _TL + f"it.set_tensor('x', {_ONES12})\nout = 1"),
    ("lite_py_set_index_float", _TL + f"it.set_tensor(0.0, {_ONES12})\nout = 1"),
    ("lite_py_set_strings", _TL + "it.set_tensor(i, np.array([['a', 'b']]))\n" + _RUN),
    ("lite_py_set_none", _TL + "it.set_tensor(i, None)\n" + _RUN),
    ("lite_py_set_object", _TL + "it.set_tensor(i, np.array([[object(), object()]]))\n" + _RUN),
    (
        "lite_py_set_noncontiguous",
        _TL + "it.set_tensor(i, np.arange(4, dtype=np.float32).reshape(2, 2)[:, :1].T)\n" + _RUN,
    ),
    (
        "lite_py_set_fortran",
        _TL + "it.set_tensor(i, np.asfortranarray(np.arange(2, dtype=np.float32).reshape(1, 2)))\n" + _RUN,
    ),
    (
        "lite_py_set_readonly",
        _TL + "v = np.full([1, 2], 3.0, np.float32)\nv.flags.writeable = False\nit.set_tensor(i, v)\n" + _RUN,
    ),
    ("lite_py_set_nan", _TL + "it.set_tensor(i, np.array([[np.nan, np.inf]], np.float32))\n" + _RUN),
    ("lite_py_set_output", _TL + f"it.set_tensor(o, {_ONES12})\nit.set_tensor(i, {_ONES12})\n" + _RUN),
    ("lite_py_get_index_big", _TL + "out = it.get_tensor(999)"),
    ("lite_py_get_index_neg", _TL + "out = it.get_tensor(-1)"),
    ("lite_py_get_index_str", _TL + "out = it.get_tensor('y')"),
    ("lite_py_get_index_none", _TL + "out = it.get_tensor(None)"),
    ("lite_py_tensor_index_big", _TL + "out = it.tensor(999)()"),
    ("lite_py_tensor_index_neg", _TL + "out = it.tensor(-5)()"),
    ("lite_py_resize_neg", _TL + "it.resize_tensor_input(i, [-1, 2])\nit.allocate_tensors()\nout = 1"),
    ("lite_py_resize_neg_big", _TL + "it.resize_tensor_input(i, [-7, 2])\nit.allocate_tensors()\nout = 1"),
    ("lite_py_resize_non_input", _TL + "it.resize_tensor_input(o, [3, 2])\nit.allocate_tensors()\nout = 1"),
    ("lite_py_resize_index_big", _TL + "it.resize_tensor_input(999, [3, 2])\nout = 1"),
    ("lite_py_resize_index_neg", _TL + "it.resize_tensor_input(-1, [3, 2])\nout = 1"),
    ("lite_py_resize_huge", _TL + "it.resize_tensor_input(i, [2**31, 2])\nit.allocate_tensors()\nout = 1"),
    ("lite_py_resize_huge_product", _TL + "it.resize_tensor_input(i, [2**30, 2**30])\nit.allocate_tensors()\nout = 1"),
    ("lite_py_resize_float_dims", _TL + "it.resize_tensor_input(i, [1.5, 2])\nit.allocate_tensors()\nout = 1"),
    ("lite_py_resize_str_dims", _TL + "it.resize_tensor_input(i, ['a', 2])\nout = 1"),
    ("lite_py_resize_none", _TL + "it.resize_tensor_input(i, None)\nout = 1"),
    (
        "lite_py_resize_zero_run",
        _TLD
        + "it.resize_tensor_input(i, [0, 2])\nit.allocate_tensors()\nit.set_tensor(i, np.ones([0, 2], np.float32))\n"
        + _RUN,
    ),
    (
        "lite_py_resize_rank_change_run",
        _TLD
        + "it.resize_tensor_input(i, [2])\nit.allocate_tensors()\nit.set_tensor(i, np.ones([2], np.float32))\n"
        + _RUN,
    ),
    (
        "lite_py_resize_no_allocate_set",
        _TLD + "it.resize_tensor_input(i, [3, 2])\nit.set_tensor(i, np.ones([3, 2], np.float32))\n" + _RUN,
    ),
    ("lite_py_resize_no_allocate_invoke", _TLD + "it.resize_tensor_input(i, [3, 2])\n" + _RUN),
    (
        "lite_py_resize_dyn_run",
        _TLD + "it.resize_tensor_input(i, [3, 2])\nit.allocate_tensors()\n"
        "it.set_tensor(i, np.arange(6, dtype=np.float32).reshape(3, 2))\n" + _RUN,
    ),
    (
        "lite_py_resize_strict_static",
        _TL + "it.resize_tensor_input(i, [3, 2], strict=True)\nit.allocate_tensors()\nout = 1",
    ),
    (
        "lite_py_resize_strict_dyn_ok",
        _TLD + "it.resize_tensor_input(i, [4, 2], strict=True)\nit.allocate_tensors()\n"
        "it.set_tensor(i, np.ones([4, 2], np.float32))\n" + _RUN,
    ),
    (
        "lite_py_resize_strict_dyn_bad",
        _TLD + "it.resize_tensor_input(i, [4, 3], strict=True)\nit.allocate_tensors()\nout = 1",
    ),
    (
        "lite_py_resize_wrong_set",
        _TLD
        + "it.resize_tensor_input(i, [3, 2])\nit.allocate_tensors()\nit.set_tensor(i, np.ones([1, 2], np.float32))\n"
        + _RUN,
    ),
    (
        "lite_py_invoke_twice",
        _TL + f"it.set_tensor(i, {_ONES12})\nit.invoke()\nit.set_tensor(i, 2 * {_ONES12})\n" + _RUN,
    ),
    ("lite_py_allocate_twice", _TL + f"it.allocate_tensors()\nit.set_tensor(i, {_ONES12})\n" + _RUN),
    ("lite_py_signature_bad_key", _TL + "out = it.get_signature_runner('no_such_signature')"),
    ("lite_py_input_details_shape", _TLD + "out = [list(d['shape_signature']) for d in it.get_input_details()]"),
    # TFLiteConverter with bad arguments
    ("lite_conv_ok", _CONV + "m = tf.lite.TFLiteConverter.from_session(sess, [x], [y]).convert()\nout = len(m) > 0"),
    ("lite_conv_session_names", _CONV + "out = len(tf.lite.TFLiteConverter.from_session(sess, ['x'], [y]).convert())"),
    (
        "lite_conv_session_none_output",
        _CONV + "out = len(tf.lite.TFLiteConverter.from_session(sess, [x], [None]).convert())",
    ),
    (
        "lite_conv_other_graph",
        _CONV + "with tf.Graph().as_default():\n    z = tf.placeholder(tf.float32, [1], name='z')\n"
        "out = len(tf.lite.TFLiteConverter.from_session(sess, [z], [y]).convert())",
    ),
    ("lite_conv_frozen_missing", "exec:out = tf.lite.TFLiteConverter.from_frozen_graph(tmp('no.pb'), ['x'], ['y'])"),
    ("lite_conv_frozen_dir", "exec:out = tf.lite.TFLiteConverter.from_frozen_graph(TMP, ['x'], ['y'])"),
    (
        "lite_conv_frozen_garbage",
        (
            "exec:open(tmp('g.pb'), 'wb').write(bytes(range(256)) * 4)\n"
            "out = tf.lite.TFLiteConverter.from_frozen_graph(tmp('g.pb'), ['x'], ['y'])"
        ),
    ),
    (
        "lite_conv_frozen_bad_names",
        _CONV + "open(tmp('f.pb'), 'wb').write(sess.graph.as_graph_def().SerializeToString())\n"
        "out = tf.lite.TFLiteConverter.from_frozen_graph(tmp('f.pb'), ['nope'], ['y'])",
    ),
    (
        "lite_conv_frozen_bad_output",
        _CONV + "open(tmp('f.pb'), 'wb').write(sess.graph.as_graph_def().SerializeToString())\n"
        "out = tf.lite.TFLiteConverter.from_frozen_graph(tmp('f.pb'), ['x'], ['missing_out'])",
    ),
    (
        "lite_conv_frozen_shapes_bad",
        _CONV + "open(tmp('f.pb'), 'wb').write(sess.graph.as_graph_def().SerializeToString())\n"
        "out = len(tf.lite.TFLiteConverter.from_frozen_graph(tmp('f.pb'), ['x'], ['y'], {'x': [2, 5]}).convert())",
    ),
    ("lite_conv_saved_model_missing", "exec:out = tf.lite.TFLiteConverter.from_saved_model(tmp('no_sm'))"),
    (
        "lite_conv_saved_model_empty_dir",
        "exec:os.makedirs(tmp('empty_sm'), exist_ok=True)\nout = tf.lite.TFLiteConverter.from_saved_model(tmp('empty_sm'))",
    ),
    ("lite_conv_keras_file_missing", "exec:out = tf.lite.TFLiteConverter.from_keras_model_file(tmp('no.h5'))"),
    (
        "lite_conv_uninitialized_var",
        (
            "exec:x = tf.placeholder(tf.float32, [1, 2], name='x')\nv = tf.Variable([1.0, 2.0], name='v')\n"
            "out = len(tf.lite.TFLiteConverter.from_session(sess, [x], [x * v]).convert())"
        ),
    ),
    (
        "lite_conv_repr_not_callable",
        _CONV
        + "c = tf.lite.TFLiteConverter.from_session(sess, [x], [y])\nc.optimizations = [tf.lite.Optimize.DEFAULT]\n"
        "c.representative_dataset = 5\nout = len(c.convert())",
    ),
    (
        "lite_conv_repr_too_many_inputs",
        _CONV
        + "c = tf.lite.TFLiteConverter.from_session(sess, [x], [y])\nc.optimizations = [tf.lite.Optimize.DEFAULT]\n"
        "c.representative_dataset = lambda: iter([[np.ones([1, 2], np.float32)] * 3])\nout = len(c.convert())",
    ),
    (
        "lite_conv_repr_empty",
        _CONV
        + "c = tf.lite.TFLiteConverter.from_session(sess, [x], [y])\nc.optimizations = [tf.lite.Optimize.DEFAULT]\n"
        "c.representative_dataset = lambda: iter([])\nout = len(c.convert())",
    ),
    (
        "lite_conv_int8_no_repr",
        _CONV + "c = tf.lite.TFLiteConverter.from_session(sess, [x], [y])\n"
        "c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]\nout = len(c.convert())",
    ),
    (
        "lite_conv_repr_raises",
        _CONV
        + "c = tf.lite.TFLiteConverter.from_session(sess, [x], [y])\nc.optimizations = [tf.lite.Optimize.DEFAULT]\n"
        "def gen():\n    raise KeyError('boom')\n    yield\nc.representative_dataset = gen\nout = len(c.convert())",
    ),
    ("lite_conv_toco_garbage", _CONV + "out = tf.lite.toco_convert(b'garbage', [x], [y])"),
]

# Ops with hostile run-time values (shapes hidden from shape inference by _P), raw ops and TF1 wrappers.
_IMG = "tf.ones([1, 4, 4, 3])"
_B = "tf.constant([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.9, 0.9]])"
_S = "tf.constant([0.9, 0.8])"
CASES_S24 += [
    # image
    ("s24_resize_bilinear_neg", _R + f"ResizeBilinear(images={_IMG}, size={_P.format('[-2, 3]')})"),
    ("s24_resize_bilinear_zero", _R + f"ResizeBilinear(images={_IMG}, size={_P.format('[0, 3]')})"),
    ("s24_resize_bilinear_size3", _R + f"ResizeBilinear(images={_IMG}, size={_P.format('[2, 3, 4]')})"),
    ("s24_resize_nearest_neg", _R + f"ResizeNearestNeighbor(images={_IMG}, size={_P.format('[2, -3]')})"),
    ("s24_resize_bicubic_huge", _R + f"ResizeBicubic(images={_IMG}, size={_P.format('[2**30, 2**30]')})"),
    ("s24_resize_area_zero", _R + f"ResizeArea(images={_IMG}, size={_P.format('[3, 0]')})"),
    ("s24_resize_bilinear_rank3", _R + f"ResizeBilinear(images={_P.format('tf.ones([4, 4, 3])')}, size=[2, 2])"),
    (
        "s24_resize_bilinear_empty_image",
        _R + f"ResizeBilinear(images={_P.format('tf.ones([1, 0, 4, 3])')}, size=[2, 2])",
    ),
    ("s24_resize_nearest_grad_bad", _R + f"ResizeNearestNeighborGrad(grads={_IMG}, size={_P.format('[-1, 2]')})"),
    (
        "s24_resize_bilinear_grad_bad",
        _R + f"ResizeBilinearGrad(grads={_IMG}, original_image={_P.format('tf.ones([1, 2, 2])')})",
    ),
    (
        "s24_resize_bicubic_grad_bad",
        _R + f"ResizeBicubicGrad(grads={_P.format('tf.ones([2, 4, 4, 3])')}, original_image=tf.ones([1, 2, 2, 3]))",
    ),
    ("s24_crop_and_resize_box_ind_oob", f"tf.image.crop_and_resize({_IMG}, {_B}, {_P.format('[0, 5]')}, [2, 2])"),
    ("s24_crop_and_resize_box_ind_neg_rt", f"tf.image.crop_and_resize({_IMG}, {_B}, {_P.format('[0, -1]')}, [2, 2])"),
    ("s24_crop_and_resize_crop_zero", f"tf.image.crop_and_resize({_IMG}, {_B}, [0, 0], {_P.format('[0, 2]')})"),
    (
        "s24_crop_and_resize_boxes_rt_shape",
        f"tf.image.crop_and_resize({_IMG}, {_P.format('tf.ones([2, 3])')}, [0, 0], [2, 2])",
    ),
    (
        "s24_crop_and_resize_extrapolate",
        f"tf.image.crop_and_resize({_IMG}, [[-1.0, -1.0, 2.0, 2.0]], [0], [2, 2], extrapolation_value=-3.0)",
    ),
    (
        "s24_crop_and_resize_grad_boxes_bad",
        _R
        + f"CropAndResizeGradBoxes(grads=tf.ones([2, 2, 2, 3]), image={_IMG}, boxes={_B}, box_ind={_P.format('[0, 9]')})",
    ),
    (
        "s24_crop_and_resize_grad_image_bad",
        _R
        + f"CropAndResizeGradImage(grads=tf.ones([2, 2, 2, 3]), boxes={_B}, box_ind={_P.format('[0, 3]')}, image_size=[1, 4, 4, 3], T=tf.float32)",
    ),
    (
        "s24_crop_and_resize_grad_image_neg_size",
        _R
        + f"CropAndResizeGradImage(grads=tf.ones([2, 2, 2, 3]), boxes={_B}, box_ind=[0, 0], image_size={_P.format('[1, -4, 4, 3]')}, T=tf.float32)",
    ),
    ("s24_nms_v3_neg_max_rt", f"tf.image.non_max_suppression({_B}, {_S}, {_P.format('-1')}, 0.5)"),
    ("s24_nms_v3_iou_neg", f"tf.image.non_max_suppression({_B}, {_S}, 2, {_P.format('-0.5')})"),
    ("s24_nms_v3_iou_gt1_rt", f"tf.image.non_max_suppression({_B}, {_S}, 2, {_P.format('1.5')})"),
    ("s24_nms_v3_boxes_rt_last_dim", f"tf.image.non_max_suppression({_P.format('tf.ones([2, 3])')}, {_S}, 2)"),
    ("s24_nms_v3_scores_rt_mismatch", f"tf.image.non_max_suppression({_B}, {_P.format('[0.9, 0.8, 0.7]')}, 2)"),
    (
        "s24_nms_v4_pad",
        _R
        + f"NonMaxSuppressionV4(boxes={_B}, scores={_S}, max_output_size={_P.format('-3')}, iou_threshold=0.5, score_threshold=0.0, pad_to_max_output_size=True)[0]",
    ),
    (
        "s24_nms_v5_soft_sigma_neg",
        _R
        + f"NonMaxSuppressionV5(boxes={_B}, scores={_S}, max_output_size=2, iou_threshold=0.5, score_threshold=0.0, soft_nms_sigma={_P.format('-1.0')})[0]",
    ),
    (
        "s24_nms_overlaps_not_square",
        _R
        + f"NonMaxSuppressionWithOverlaps(overlaps={_P.format('tf.ones([2, 3])')}, scores={_S}, max_output_size=2, overlap_threshold=0.5, score_threshold=0.0)",
    ),
    (
        "s24_nms_combined_bad_q",
        _R
        + f"CombinedNonMaxSuppression(boxes={_P.format('tf.ones([1, 2, 3, 4])')}, scores=tf.ones([1, 2, 2]), max_output_size_per_class=2, max_total_size=2, iou_threshold=0.5, score_threshold=0.0)[0]",
    ),
    (
        "s24_nms_combined_neg_total",
        _R
        + f"CombinedNonMaxSuppression(boxes=tf.ones([1, 2, 1, 4]), scores=tf.ones([1, 2, 2]), max_output_size_per_class=2, max_total_size={_P.format('-2')}, iou_threshold=0.5, score_threshold=0.0)[0]",
    ),
    (
        "s24_extract_patches_rate0",
        f"tf.extract_image_patches({_IMG}, [1, 2, 2, 1], [1, 1, 1, 1], [1, 0, 1, 1], 'VALID')",
    ),
    (
        "s24_extract_patches_ksize0",
        f"tf.extract_image_patches({_IMG}, [1, 0, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], 'VALID')",
    ),
    (
        "s24_extract_patches_stride0",
        f"tf.extract_image_patches({_IMG}, [1, 2, 2, 1], [1, 0, 1, 1], [1, 1, 1, 1], 'VALID')",
    ),
    (
        "s24_extract_patches_batch_ksize",
        f"tf.extract_image_patches({_IMG}, [2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], 'VALID')",
    ),
    (
        "s24_extract_patches_big_rate",
        f"tf.extract_image_patches({_IMG}, [1, 2, 2, 1], [1, 1, 1, 1], [1, 9, 9, 1], 'VALID')",
    ),
    (
        "s24_extract_patches_rt_rank3",
        f"tf.extract_image_patches({_P.format('tf.ones([4, 4, 3])')}, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], 'VALID')",
    ),
    (
        "s24_extract_volume_patches_bad",
        _R
        + "ExtractVolumePatches(input=tf.ones([1, 4, 4, 4, 1]), ksizes=[1, 0, 2, 2, 1], strides=[1, 1, 1, 1, 1], padding='VALID')",
    ),
    (
        "s24_extract_glimpse_bad_size",
        _R + f"ExtractGlimpseV2(input={_IMG}, size={_P.format('[-2, 2]')}, offsets=[[0.0, 0.0]])",
    ),
    (
        "s24_extract_glimpse_offsets_mismatch",
        _R + f"ExtractGlimpseV2(input={_IMG}, size=[2, 2], offsets={_P.format('[[0.0, 0.0], [1.0, 1.0]]')})",
    ),
    (
        "s24_dilation2d_rate0",
        _R
        + "Dilation2D(input=tf.ones([1, 4, 4, 1]), filter=tf.ones([2, 2, 1]), strides=[1, 1, 1, 1], rates=[1, 0, 1, 1], padding='VALID')",
    ),
    (
        "s24_dilation2d_depth_mismatch",
        _R
        + f"Dilation2D(input={_P.format('tf.ones([1, 4, 4, 2])')}, filter=tf.ones([2, 2, 1]), strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding='VALID')",
    ),
    (
        "s24_dilation2d_filter_too_big",
        _R
        + "Dilation2D(input=tf.ones([1, 2, 2, 1]), filter=tf.ones([5, 5, 1]), strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding='VALID')",
    ),
    ("s24_space_to_depth_block1", "tf.space_to_depth(tf.ones([1, 4, 4, 1]), 1)"),
    ("s24_space_to_depth_indivisible_rt", f"tf.space_to_depth({_P.format('tf.ones([1, 3, 3, 1])')}, 2)"),
    ("s24_depth_to_space_indivisible_rt", f"tf.depth_to_space({_P.format('tf.ones([1, 2, 2, 3])')}, 2)"),
    ("s24_depth_to_space_rank3_rt", f"tf.depth_to_space({_P.format('tf.ones([2, 2, 4])')}, 2)"),
    ("s24_adjust_hue_2ch_rt", f"tf.image.adjust_hue({_P.format('tf.ones([2, 2, 2])')}, 0.1)"),
    ("s24_adjust_hue_delta_big", "tf.image.adjust_hue(tf.ones([2, 2, 3]) * 0.5, 3.0)"),
    ("s24_adjust_saturation_2ch_rt", f"tf.image.adjust_saturation({_P.format('tf.ones([2, 2, 4])')}, 2.0)"),
    ("s24_rgb_to_hsv_2ch_rt", f"tf.image.rgb_to_hsv({_P.format('tf.ones([2, 2])')})"),
    ("s24_hsv_to_rgb_rank0_rt", f"tf.image.hsv_to_rgb({_P.format('1.0')})"),
    ("s24_adjust_contrast_rank2_rt", f"tf.image.adjust_contrast({_P.format('tf.ones([2, 3])')}, 2.0)"),
    ("s24_rgb_to_grayscale_2ch", "tf.image.rgb_to_grayscale(tf.ones([2, 2, 2]))"),
    ("s24_grayscale_to_rgb_3ch", "tf.image.grayscale_to_rgb(tf.ones([2, 2, 3]))"),
    ("s24_crop_to_bbox_oob_rt", f"tf.image.crop_to_bounding_box(tf.ones([4, 4, 1]), {_P.format('3')}, 0, 2, 2)"),
    ("s24_crop_to_bbox_neg_rt", f"tf.image.crop_to_bounding_box(tf.ones([4, 4, 1]), {_P.format('-1')}, 0, 2, 2)"),
    ("s24_pad_to_bbox_neg_rt", f"tf.image.pad_to_bounding_box(tf.ones([4, 4, 1]), {_P.format('-1')}, 0, 6, 6)"),
    ("s24_pad_to_bbox_small_target_rt", f"tf.image.pad_to_bounding_box(tf.ones([4, 4, 1]), 0, 0, {_P.format('2')}, 6)"),
    ("s24_central_crop_zero", "tf.image.central_crop(tf.ones([4, 4, 1]), 0.0)"),
    ("s24_central_crop_gt1", "tf.image.central_crop(tf.ones([4, 4, 1]), 1.5)"),
    ("s24_draw_boxes_3_coords", "tf.image.draw_bounding_boxes(tf.ones([1, 4, 4, 3]), tf.ones([1, 1, 3]))"),
    (
        "s24_draw_boxes_rt_batch",
        f"tf.image.draw_bounding_boxes(tf.ones([1, 4, 4, 3]), {_P.format('tf.ones([2, 1, 4])')})",
    ),
    ("s24_draw_boxes_2ch", "tf.image.draw_bounding_boxes(tf.ones([1, 4, 4, 2]), tf.zeros([1, 1, 4]))"),
    (
        "s24_sample_bbox_bad_shape",
        f"tf.image.sample_distorted_bounding_box({_P.format('[4, 4]')}, [[[0.0, 0.0, 1.0, 1.0]]], seed=1, seed2=2)[0]",
    ),
    (
        "s24_sample_bbox_bad_range",
        "tf.image.sample_distorted_bounding_box([4, 4, 3], [[[0.0, 0.0, 1.0, 1.0]]], seed=1, seed2=2, area_range=[0.9, 0.1])[0]",
    ),
    (
        "s24_sample_bbox_bad_box",
        f"tf.image.sample_distorted_bounding_box([4, 4, 3], {_P.format('[[[0.0, 0.0, 1.0]]]')}, seed=1, seed2=2)[0]",
    ),
    ("s24_per_image_standardization_rank1", "tf.image.per_image_standardization(tf.ones([4]))"),
    ("s24_total_variation_rank2", "tf.image.total_variation(tf.ones([4, 4]))"),
    ("s24_image_flip_rank1", "tf.image.flip_left_right(tf.ones([4]))"),
    ("s24_image_rot90_rt_rank2", f"tf.image.rot90({_P.format('tf.ones([4, 4])')}, 1)"),
    ("s24_image_transpose_rank5", "tf.image.transpose_image(tf.ones([1, 1, 2, 2, 1]))"),
    ("s24_image_psnr_mismatch", "tf.image.psnr(tf.ones([4, 4, 1]), tf.ones([3, 3, 1]), 1.0)"),
    ("s24_image_ssim_too_small", "tf.image.ssim(tf.ones([1, 4, 4, 1]), tf.ones([1, 4, 4, 1]), 1.0)"),
    ("s24_image_convert_dtype_string", "tf.image.convert_image_dtype(tf.constant(['a']), tf.float32)"),
    ("s24_decode_png_garbage", "tf.image.decode_png(tf.constant(b'\\x89PNG garbage'))"),
    ("s24_decode_jpeg_garbage", "tf.image.decode_jpeg(tf.constant(b'\\xff\\xd8\\xff garbage'))"),
    ("s24_decode_gif_garbage", "tf.image.decode_gif(tf.constant(b'GIF89a garbage'))"),
    ("s24_decode_bmp_garbage", "tf.image.decode_bmp(tf.constant(b'BM garbage'))"),
    ("s24_decode_image_empty", "tf.image.decode_image(tf.constant(b''))"),
    ("s24_decode_png_channels_bad", "tf.image.decode_png(tf.constant(b'x'), channels=7)"),
    ("s24_encode_png_2ch_rank2", "tf.image.encode_png(tf.ones([2, 2], tf.uint8))"),
    ("s24_encode_png_5ch", "tf.image.encode_png(tf.ones([2, 2, 5], tf.uint8))"),
    ("s24_encode_jpeg_2ch", "tf.image.encode_jpeg(tf.ones([2, 2, 2], tf.uint8))"),
    ("s24_encode_jpeg_quality_bad", "tf.image.encode_jpeg(tf.ones([2, 2, 3], tf.uint8), quality=200)"),
    ("s24_extract_jpeg_shape_garbage", "tf.image.extract_jpeg_shape(tf.constant(b'not jpeg'))"),
    ("s24_decode_wav_garbage", "tf.audio.decode_wav(tf.constant(b'RIFF garbage'))[0]"),
    (
        "s24_decode_wav_truncated",
        "tf.audio.decode_wav(tf.strings.substr(tf.audio.encode_wav(tf.ones([4, 1]), 8000), 0, 30))[0]",
    ),
    ("s24_encode_wav_rank1", "tf.audio.encode_wav(tf.ones([4]), 8000)"),
    ("s24_encode_wav_neg_rate", f"tf.audio.encode_wav(tf.ones([4, 1]), {_P.format('-1')})"),
    ("s24_audio_spectrogram_stride0", _R + "AudioSpectrogram(input=tf.ones([100, 1]), window_size=16, stride=0)"),
    ("s24_audio_spectrogram_window_big", _R + "AudioSpectrogram(input=tf.ones([10, 1]), window_size=64, stride=8)"),
    ("s24_mfcc_bad_channels", _R + f"Mfcc(spectrogram=tf.ones([1, 4, 9]), sample_rate={_P.format('-8000')})"),
]

_SP = "tf.SparseTensor({}, [1.0, 2.0], [3, 3])"
_SPI = "tf.SparseTensor({}, [1, 2], [3, 3])"
_TA = "exec:ta = tf.TensorArray(tf.float32, size=3)\n"
_FQ = "exec:q = tf.FIFOQueue(4, [tf.float32], shapes=[[2]])\n"
_PQ = "exec:q = tf.PaddingFIFOQueue(4, [tf.float32], shapes=[[None]])\n"
_TMO = ", options=tf.RunOptions(timeout_in_ms=300))"
CASES_S24 += [
    # quantization
    ("s24_fake_quant_args_min_gt_max", _R + "FakeQuantWithMinMaxArgs(inputs=tf.ones([3]), min=2.0, max=-1.0)"),
    ("s24_fake_quant_args_bits1", _R + "FakeQuantWithMinMaxArgs(inputs=tf.ones([3]), num_bits=1)"),
    (
        "s24_fake_quant_args_grad_bits20",
        _R + "FakeQuantWithMinMaxArgsGradient(gradients=tf.ones([3]), inputs=tf.ones([3]), num_bits=20)",
    ),
    (
        "s24_fake_quant_vars_rt_min_gt_max",
        _R + f"FakeQuantWithMinMaxVars(inputs=tf.ones([3]), min={_P.format('3.0')}, max={_P.format('1.0')})",
    ),
    (
        "s24_fake_quant_vars_nonscalar_min",
        _R + f"FakeQuantWithMinMaxVars(inputs=tf.ones([3]), min={_P.format('[0.0, 1.0]')}, max=2.0)",
    ),
    (
        "s24_fake_quant_vars_nan",
        _R + "FakeQuantWithMinMaxVars(inputs=tf.ones([3]), min=" + _P.format("float('nan')") + ", max=2.0)",
    ),
    (
        "s24_fake_quant_vars_grad_bits0",
        _R
        + "FakeQuantWithMinMaxVarsGradient(gradients=tf.ones([3]), inputs=tf.ones([3]), min=0.0, max=1.0, num_bits=0)",
    ),
    (
        "s24_fake_quant_pc_len_mismatch",
        _R
        + f"FakeQuantWithMinMaxVarsPerChannel(inputs=tf.ones([2, 3]), min={_P.format('[0.0, 0.0]')}, max={_P.format('[1.0, 1.0, 1.0]')})",
    ),
    (
        "s24_fake_quant_pc_rank0_input",
        _R + f"FakeQuantWithMinMaxVarsPerChannel(inputs={_P.format('1.0')}, min=[0.0], max=[1.0])",
    ),
    (
        "s24_fake_quant_pc_min_gt_max",
        _R + "FakeQuantWithMinMaxVarsPerChannel(inputs=tf.ones([2, 3]), min=[0.0, 5.0, 0.0], max=[1.0, 1.0, 1.0])",
    ),
    (
        "s24_fake_quant_pc_grad_mismatch",
        _R
        + f"FakeQuantWithMinMaxVarsPerChannelGradient(gradients=tf.ones([2, 3]), inputs={_P.format('tf.ones([2, 4])')}, min=[0.0, 0.0, 0.0], max=[1.0, 1.0, 1.0])[0]",
    ),
    (
        "s24_qdq_v2_axis_oob",
        _R + "QuantizeAndDequantizeV2(input=tf.ones([2, 3]), input_min=[0.0], input_max=[1.0], axis=5)",
    ),
    (
        "s24_qdq_v2_min_gt_max",
        _R
        + f"QuantizeAndDequantizeV2(input=tf.ones([3]), input_min={_P.format('2.0')}, input_max={_P.format('1.0')}, range_given=True)",
    ),
    (
        "s24_qdq_v2_bits0",
        _R + "QuantizeAndDequantizeV2(input=tf.ones([3]), input_min=0.0, input_max=1.0, num_bits=0, range_given=True)",
    ),
    (
        "s24_qdq_v2_bits99",
        _R + "QuantizeAndDequantizeV2(input=tf.ones([3]), input_min=0.0, input_max=1.0, num_bits=99, range_given=True)",
    ),
    (
        "s24_qdq_v3_bits_neg",
        _R
        + f"QuantizeAndDequantizeV3(input=tf.ones([3]), input_min=0.0, input_max=1.0, num_bits={_P.format('-1')}, range_given=True)",
    ),
    (
        "s24_qdq_v2_per_axis_len",
        _R
        + f"QuantizeAndDequantizeV2(input=tf.ones([2, 3]), input_min={_P.format('[0.0, 0.0]')}, input_max={_P.format('[1.0, 1.0]')}, axis=1, range_given=True)",
    ),
    (
        "s24_qdq_v4_bad_round",
        _R + "QuantizeAndDequantizeV4(input=tf.ones([3]), input_min=0.0, input_max=1.0, round_mode='NOPE')",
    ),
    (
        "s24_quantize_v2_bad_round_mode",
        "tf.quantization.quantize(tf.ones([3]), 0.0, 1.0, tf.quint8, round_mode='UP')[0]",
    ),
    (
        "s24_quantize_v2_axis_oob",
        "tf.quantization.quantize(tf.ones([2, 3]), [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], tf.quint8, axis=4)[0]",
    ),
    (
        "s24_quantize_v2_per_axis_len_rt",
        f"tf.quantization.quantize(tf.ones([2, 3]), {_P.format('[0.0, 0.0]')}, {_P.format('[1.0, 1.0]')}, tf.qint8, axis=1)[0]",
    ),
    ("s24_quantize_v2_float_T", "tf.quantization.quantize(tf.ones([3]), 0.0, 1.0, tf.float32)[0]"),
    (
        "s24_quantize_v2_nan_range",
        "tf.quantization.quantize(tf.ones([3]), " + _P.format("float('nan')") + ", 1.0, tf.quint8)[0]",
    ),
    (
        "s24_dequantize_axis_oob",
        "tf.quantization.dequantize(tf.quantization.quantize(tf.ones([2, 3]), 0.0, 1.0, tf.quint8)[0], [0.0, 0.0], [1.0, 1.0], axis=7)",
    ),
    (
        "s24_dequantize_bad_mode",
        "tf.quantization.dequantize(tf.quantization.quantize(tf.ones([3]), 0.0, 1.0, tf.quint8)[0], 0.0, 1.0, mode='WEIRD')",
    ),
    # strings
    ("s24_regex_replace_bad_pattern", "tf.strings.regex_replace(['abc'], '(', 'x')"),
    ("s24_regex_replace_bad_pattern_rt", "tf.strings.regex_replace(['abc'], " + _P.format("'[a-'") + ", 'x')"),
    ("s24_regex_full_match_bad_pattern", "tf.strings.regex_full_match(['abc'], '*a')"),
    ("s24_regex_full_match_bad_rt", "tf.strings.regex_full_match(['abc'], " + _P.format("'(?<'") + ")"),
    ("s24_regex_replace_bad_rewrite", "tf.strings.regex_replace(['abc'], 'a', '\\\\9')"),
    ("s24_string_format_too_few", "tf.strings.format('{} {}', [tf.constant(1)])"),
    ("s24_string_format_too_many", "tf.strings.format('{}', [tf.constant(1), tf.constant(2)])"),
    ("s24_string_format_bad_placeholder", "tf.strings.format('{x}', [tf.constant(1)], placeholder='')"),
    ("s24_as_string_width_neg_string", "tf.as_string(tf.constant(['a']))"),
    ("s24_as_string_precision_int", "tf.as_string(tf.constant([1]), precision=3)"),
    ("s24_as_string_fill_two", "tf.as_string(tf.constant([1]), width=4, fill='ab')"),
    ("s24_as_string_sci_int", "tf.as_string(tf.constant([1]), scientific=True)"),
    ("s24_reduce_join_axis_oob_rt", f"tf.reduce_join([['a', 'b']], axis={_P.format('5')})"),
    ("s24_reduce_join_axis_neg_oob", "tf.reduce_join([['a', 'b']], axis=-3)"),
    ("s24_reduce_join_dup_axes_rt", f"tf.reduce_join([['a', 'b']], axis={_P.format('[1, 1]')})"),
    (
        "s24_string_join_mismatch_rt",
        "tf.strings.join([" + _P.format("['a', 'b']") + ", " + _P.format("['a', 'b', 'c']") + "])",
    ),
    ("s24_string_split_delim_rt_vector", "tf.string_split(['a b'], delimiter=" + _P.format("[' ', 'x']") + ").values"),
    ("s24_strings_split_maxsplit_neg", "tf.strings.split(['a b c'], maxsplit=-1).values"),
    ("s24_string_length_bad_unit", "tf.strings.length(['abc'], unit='BYTES_X')"),
    (
        "s24_string_ngrams_width0",
        _R
        + "StringNGrams(data=['a', 'b'], data_splits=[0, 2], separator=' ', ngram_widths=[0], left_pad='', right_pad='', pad_width=0, preserve_short_sequences=False)[0]",
    ),
    (
        "s24_string_ngrams_bad_splits",
        _R
        + f"StringNGrams(data=['a', 'b'], data_splits={_P.format('[0, 5]')}, separator=' ', ngram_widths=[2], left_pad='', right_pad='', pad_width=0, preserve_short_sequences=False)[0]",
    ),
    (
        "s24_string_ngrams_splits_decreasing",
        _R
        + f"StringNGrams(data=['a', 'b', 'c'], data_splits={_P.format('[0, 2, 1, 3]')}, separator=' ', ngram_widths=[1], left_pad='', right_pad='', pad_width=0, preserve_short_sequences=False)[0]",
    ),
    (
        "s24_string_ngrams_splits_neg_start",
        _R
        + f"StringNGrams(data=['a', 'b'], data_splits={_P.format('[-1, 2]')}, separator=' ', ngram_widths=[1], left_pad='', right_pad='', pad_width=0, preserve_short_sequences=False)[0]",
    ),
    (
        "s24_string_ngrams_pad_huge",
        _R
        + "StringNGrams(data=['a', 'b'], data_splits=[0, 2], separator=' ', ngram_widths=[2], left_pad='<', right_pad='>', pad_width=2**30, preserve_short_sequences=False)[0]",
    ),
    ("s24_unicode_decode_bad_encoding", "tf.strings.unicode_decode(['abc'], 'NOT-AN-ENCODING')"),
    (
        "s24_unicode_decode_strict_invalid",
        _R + "UnicodeDecode(input=[b'\\xff\\xfe'], input_encoding='UTF-8', errors='strict')[1]",
    ),
    ("s24_unicode_decode_bad_errors", _R + "UnicodeDecode(input=['a'], input_encoding='UTF-8', errors='explode')[1]"),
    (
        "s24_unicode_encode_invalid_cp_strict",
        _R + "UnicodeEncode(input_values=[0x110000], input_splits=[0, 1], output_encoding='UTF-8', errors='strict')",
    ),
    (
        "s24_unicode_encode_bad_splits",
        _R + f"UnicodeEncode(input_values=[65, 66], input_splits={_P.format('[0, 7]')}, output_encoding='UTF-8')",
    ),
    (
        "s24_unicode_encode_neg_cp_replace",
        _R + "UnicodeEncode(input_values=[-5], input_splits=[0, 1], output_encoding='UTF-8', errors='replace')",
    ),
    ("s24_unicode_script_neg", "tf.strings.unicode_script([-1, 99999999])"),
    ("s24_unicode_transcode_bad", "tf.strings.unicode_transcode(['abc'], 'UTF-8', 'KLINGON')"),
    ("s24_decode_raw_odd_length", "tf.decode_raw(tf.constant(['abc']), tf.int32)"),
    ("s24_decode_raw_mixed_lengths", "tf.decode_raw(tf.constant(['abcd', 'abcdefgh']), tf.int32)"),
    ("s24_decode_raw_string_type", "tf.decode_raw(tf.constant(['abcd']), tf.string)"),
    ("s24_decode_compressed_garbage", "tf.io.decode_compressed(tf.constant(['garbage']), compression_type='ZLIB')"),
    ("s24_decode_compressed_bad_type", "tf.io.decode_compressed(tf.constant(['x']), compression_type='LZMA')"),
    ("s24_decode_json_example_garbage", "tf.io.decode_json_example(tf.constant(['{not json']))"),
    ("s24_parse_tensor_garbage", "tf.io.parse_tensor(tf.constant(b'\\x08\\x01garbage'), tf.float32)"),
    ("s24_parse_tensor_wrong_dtype", "tf.io.parse_tensor(tf.io.serialize_tensor(tf.ones([2])), tf.int32)"),
    ("s24_parse_tensor_vector_input", "tf.io.parse_tensor(tf.constant([b'a', b'b']), tf.float32)"),
    (
        "s24_parse_example_garbage",
        "tf.io.parse_example(tf.constant([b'garbage!']), {'a': tf.io.FixedLenFeature([1], tf.float32)})['a']",
    ),
    (
        "s24_parse_example_missing_required",
        "tf.io.parse_example(tf.constant([b'']), {'a': tf.io.FixedLenFeature([1], tf.float32)})['a']",
    ),
    (
        "s24_parse_single_example_wrong_len",
        "tf.io.parse_single_example(tf.train.Example(features=tf.train.Features(feature={'a': tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0]))})).SerializeToString(), {'a': tf.io.FixedLenFeature([3], tf.float32)})['a']",
    ),
    (
        "s24_parse_example_wrong_type",
        "tf.io.parse_single_example(tf.train.Example(features=tf.train.Features(feature={'a': tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))})).SerializeToString(), {'a': tf.io.FixedLenFeature([1], tf.float32)})['a']",
    ),
    ("s24_string_to_hash_bucket_fast_zero", _R + "StringToHashBucketFast(input=['a'], num_buckets=0)"),
    ("s24_fingerprint_bad_method", "tf.fingerprint(['a'], method='md5')"),
    ("s24_fingerprint_rank0", "tf.fingerprint(tf.constant('a'))"),
    ("s24_string_upper_bad_encoding", "tf.strings.upper(['a'], encoding='latin9')"),
    (
        "s24_encode_proto_bad_type",
        _R + "EncodeProto(sizes=[[1]], values=[tf.constant([1.0])], field_names=['x'], message_type='no.such.Message')",
    ),
    (
        "s24_decode_proto_bad_type",
        _R
        + "DecodeProtoV2(bytes=['x'], message_type='no.such.Message', field_names=['x'], output_types=[tf.float32])[0]",
    ),
    ("s24_read_file_missing", "tf.io.read_file(os.path.join(TMP, 'no_such_file'))"),
    ("s24_read_file_dir", "tf.io.read_file(TMP)"),
    ("s24_write_file_to_dir", "exec:fetches = tf.io.write_file(TMP, 'x')"),
    ("s24_write_file_missing_parent", "exec:fetches = tf.io.write_file(os.path.join(TMP, 'a', 'b', 'c'), 'x')"),
    ("s24_matching_files_bad_glob", "tf.io.matching_files(os.path.join(TMP, '[unclosed'))"),
    ("s24_sharded_filename_neg", _R + "ShardedFilename(basename='x', shard=-1, num_shards=2)"),
    ("s24_sharded_filename_oob", _R + f"ShardedFilename(basename='x', shard={_P.format('5')}, num_shards=2)"),
    ("s24_sharded_filespec_zero", _R + "ShardedFilespec(basename='x', num_shards=0)"),
    # sparse
    (
        "s24_sparse_dense_matmul_oob",
        f"tf.sparse_tensor_dense_matmul({_SP.format('[[0, 0], [1, 7]]')}, tf.ones([3, 2]))",
    ),
    (
        "s24_sparse_dense_matmul_neg",
        f"tf.sparse_tensor_dense_matmul({_SP.format('[[0, 0], [-1, 1]]')}, tf.ones([3, 2]))",
    ),
    (
        "s24_sparse_dense_matmul_row_oob",
        f"tf.sparse_tensor_dense_matmul({_SP.format('[[0, 0], [5, 1]]')}, tf.ones([3, 2]))",
    ),
    (
        "s24_sparse_dense_matmul_unsorted",
        f"tf.sparse_tensor_dense_matmul({_SP.format('[[2, 0], [0, 1]]')}, tf.ones([3, 2]))",
    ),
    (
        "s24_sparse_dense_matmul_dim_mismatch",
        f"tf.sparse_tensor_dense_matmul({_SP.format('[[0, 0], [1, 1]]')}, {_P.format('tf.ones([4, 2])')})",
    ),
    (
        "s24_sparse_dense_matmul_adjoint_oob",
        f"tf.sparse_tensor_dense_matmul({_SP.format('[[0, 0], [1, 7]]')}, tf.ones([3, 2]), adjoint_a=True)",
    ),
    ("s24_sparse_reorder_oob", f"tf.sparse.to_dense(tf.sparse_reorder({_SP.format('[[2, 0], [0, 9]]')}))"),
    ("s24_sparse_reorder_neg", f"tf.sparse_reorder({_SP.format('[[2, 0], [-1, 1]]')}).indices"),
    (
        "s24_sparse_reorder_rank_mismatch",
        f"tf.sparse_reorder(tf.SparseTensor({_P.format('[[2, 0, 1], [0, 1, 1]]')}, [1.0, 2.0], [3, 3])).indices",
    ),
    ("s24_sparse_to_dense_validate_dup", "tf.sparse_to_dense([[0], [0]], [3], [1.0, 2.0])"),
    ("s24_sparse_to_dense_no_validate_oob", "tf.sparse_to_dense([[0], [7]], [3], [1.0, 2.0], validate_indices=False)"),
    ("s24_sparse_to_dense_no_validate_neg", "tf.sparse_to_dense([[0], [-2]], [3], [1.0, 2.0], validate_indices=False)"),
    ("s24_sparse_to_dense_default_vector", "tf.sparse_to_dense([[0]], [3], [1.0], default_value=[0.0, 1.0])"),
    ("s24_sparse_to_dense_values_len_rt", f"tf.sparse_to_dense([[0], [1]], [3], {_P.format('[1.0, 2.0, 3.0]')})"),
    ("s24_sparse_to_dense_neg_shape_rt", f"tf.sparse_to_dense([[0]], {_P.format('[-3]')}, [1.0])"),
    (
        "s24_sparse_add_shape_mismatch",
        f"tf.sparse.to_dense(tf.sparse_add({_SP.format('[[0, 0], [1, 1]]')}, tf.SparseTensor([[0, 0]], [1.0], [4, 4])))",
    ),
    (
        "s24_sparse_add_oob",
        f"tf.sparse.to_dense(tf.sparse_add({_SP.format('[[0, 0], [9, 1]]')}, {_SP.format('[[0, 0], [1, 1]]')}))",
    ),
    ("s24_sparse_add_dense_mismatch", f"tf.sparse_add({_SP.format('[[0, 0], [1, 1]]')}, tf.ones([2, 2]))"),
    (
        "s24_sparse_concat_rank_mismatch",
        f"tf.sparse_concat(0, [{_SP.format('[[0, 0], [1, 1]]')}, tf.SparseTensor([[0]], [1.0], [3])]).indices",
    ),
    (
        "s24_sparse_concat_axis_oob",
        f"tf.sparse_concat(4, [{_SP.format('[[0, 0], [1, 1]]')}, {_SP.format('[[0, 0], [1, 1]]')}]).indices",
    ),
    (
        "s24_sparse_concat_dim_mismatch",
        f"tf.sparse_concat(0, [{_SP.format('[[0, 0], [1, 1]]')}, tf.SparseTensor([[0, 0]], [1.0], [3, 4])]).indices",
    ),
    ("s24_sparse_fill_empty_rows_oob", f"tf.sparse.fill_empty_rows({_SP.format('[[0, 0], [9, 1]]')}, 0.0)[0].indices"),
    ("s24_sparse_fill_empty_rows_neg", f"tf.sparse.fill_empty_rows({_SP.format('[[0, 0], [-1, 1]]')}, 0.0)[0].indices"),
    (
        "s24_sparse_fill_empty_rows_default_vec",
        f"tf.sparse.fill_empty_rows({_SP.format('[[0, 0], [1, 1]]')}, [0.0, 1.0])[0].indices",
    ),
    ("s24_sparse_split_zero", f"tf.sparse.split(sp_input={_SP.format('[[0, 0], [1, 1]]')}, num_split=0, axis=0)"),
    (
        "s24_sparse_split_axis_oob_rt",
        f"tf.sparse.split(sp_input={_SP.format('[[0, 0], [1, 1]]')}, num_split=2, axis={_P.format('5')})[0].indices",
    ),
    (
        "s24_sparse_split_too_many",
        f"tf.sparse.split(sp_input={_SP.format('[[0, 0], [1, 1]]')}, num_split=5, axis=0)[4].indices",
    ),
    ("s24_sparse_to_indicator_oob", f"tf.sparse.to_indicator({_SPI.format('[[0, 0], [1, 1]]')}, 2)"),
    ("s24_sparse_to_indicator_neg", "tf.sparse.to_indicator(tf.SparseTensor([[0, 0], [1, 1]], [1, -2], [3, 3]), 4)"),
    (
        "s24_sparse_maximum_shape_mismatch",
        f"tf.sparse.maximum({_SP.format('[[0, 0], [1, 1]]')}, tf.SparseTensor([[0, 0]], [1.0], [4, 4])).indices",
    ),
    ("s24_sparse_dense_cwise_mul_bad", f"({_SP.format('[[0, 0], [1, 1]]')} * tf.ones([4])).values"),
    ("s24_sparse_dense_cwise_mul_oob", f"({_SP.format('[[0, 0], [7, 1]]')} * tf.ones([3, 3])).values"),
    (
        "s24_sparse_reduce_max_axis_oob",
        f"tf.sparse.reduce_max({_SP.format('[[0, 0], [1, 1]]')}, axis={_P.format('3')})",
    ),
    (
        "s24_sparse_reduce_sum_sparse_oob",
        f"tf.sparse.reduce_sum_sparse({_SP.format('[[0, 0], [1, 1]]')}, axis=5).values",
    ),
    (
        "s24_sparse_slice_size_neg",
        f"tf.sparse.slice({_SP.format('[[0, 0], [1, 1]]')}, [0, 0], {_P.format('np.array([-1, 2], np.int64)')}).indices",
    ),
    ("s24_sparse_softmax_oob", f"tf.sparse.softmax({_SP.format('[[0, 0], [9, 1]]')}).values"),
    ("s24_sparse_reset_shape_smaller", f"tf.sparse.reset_shape({_SP.format('[[0, 0], [2, 2]]')}, [2, 2]).dense_shape"),
    (
        "s24_sparse_cross_bad_hash",
        "tf.sparse.cross_hashed([tf.SparseTensor([[0, 0]], ['a'], [1, 1]), tf.SparseTensor([[0, 0]], ['b'], [2, 1])], num_buckets=5).values",
    ),
    (
        "s24_sparse_cross_batch_mismatch",
        "tf.sparse.cross([tf.SparseTensor([[0, 0]], ['a'], [1, 1]), tf.SparseTensor([[1, 0]], ['b'], [2, 1])]).values",
    ),
    (
        "s24_sparse_placeholder_feed_oob",
        "exec:p = tf.sparse_placeholder(tf.float32, [3])\nfetches = tf.sparse.to_dense(p)\nfeed = {p: tf.SparseTensorValue([[7]], [1.0], [3])}",
    ),
    (
        "s24_sparse_placeholder_feed_shape",
        "exec:p = tf.sparse_placeholder(tf.float32, [3])\nfetches = tf.sparse.to_dense(p)\nfeed = {p: tf.SparseTensorValue([[0, 0]], [1.0], [3, 3])}",
    ),
    (
        "s24_deserialize_many_sparse_garbage",
        _R + "DeserializeManySparse(serialized_sparse=[['a', 'b', 'c']], dtype=tf.float32)[0]",
    ),
    (
        "s24_deserialize_many_sparse_bad_cols",
        _R + "DeserializeManySparse(serialized_sparse=[['a', 'b']], dtype=tf.float32)[0]",
    ),
    (
        "s24_sparse_set_op_unsorted",
        _R
        + "SparseToSparseSetOperation(set1_indices=[[0, 1], [0, 0]], set1_values=[1, 2], set1_shape=[1, 2], set2_indices=[[0, 0]], set2_values=[1], set2_shape=[1, 2], set_operation='intersection')[0]",
    ),
    (
        "s24_dense_to_sparse_set_bad_op",
        _R
        + "DenseToSparseSetOperation(set1=[[1, 2]], set2_indices=[[0, 0]], set2_values=[1], set2_shape=[1, 2], set_operation='xor')[0]",
    ),
    ("s24_sets_size_rank1", "tf.sets.size(tf.SparseTensor([[0]], [1], [3]))"),
    (
        "s24_edit_distance_oob",
        "tf.edit_distance(tf.SparseTensor([[0, 0], [0, 9]], ['a', 'b'], [1, 2]), tf.SparseTensor([[0, 0]], ['a'], [1, 1]))",
    ),
    (
        "s24_edit_distance_rank_mismatch",
        "tf.edit_distance(tf.SparseTensor([[0, 0]], ['a'], [1, 1]), tf.SparseTensor([[0, 0, 0]], ['a'], [1, 1, 1]))",
    ),
    # TensorArray
    (
        "s24_ta_concat_mismatch",
        _TA + "ta = ta.write(0, [1.0]).write(1, [[2.0]]).write(2, [3.0])\nfetches = ta.concat()",
    ),
    (
        "s24_ta_concat_inner_mismatch",
        "exec:ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)\nta = ta.write(0, tf.ones([1, 2])).write(1, tf.ones([1, 3]))\nfetches = ta.concat()",
    ),
    ("s24_ta_split_sum_mismatch", _TA + "ta = ta.split(tf.ones([5]), [1, 1, 1])\nfetches = ta.read(0)"),
    ("s24_ta_split_neg_length", _TA + f"ta = ta.split(tf.ones([3]), {_P.format('[4, -1, 0]')})\nfetches = ta.read(0)"),
    ("s24_ta_split_too_many_lengths", _TA + "ta = ta.split(tf.ones([4]), [1, 1, 1, 1])\nfetches = ta.read(0)"),
    ("s24_ta_split_rank0", _TA + f"ta = ta.split({_P.format('1.0')}, [1, 0, 0])\nfetches = ta.read(0)"),
    (
        "s24_ta_write_shape_conflict_rt",
        _TA
        + f"ta = ta.write(0, {_P.format('tf.ones([2])')}).write(1, {_P.format('tf.ones([3])')})\nfetches = ta.stack()",
    ),
    (
        "s24_ta_element_shape_conflict",
        "exec:ta = tf.TensorArray(tf.float32, size=2, element_shape=[2])\nta = ta.write(0, tf.ones([3]))\nfetches = ta.stack()",
    ),
    (
        "s24_ta_element_shape_conflict_rt",
        "exec:ta = tf.TensorArray(tf.float32, size=2, element_shape=[2])\n"
        + f"ta = ta.write(0, {_P.format('tf.ones([3])')})\nfetches = ta.read(0)",
    ),
    (
        "s24_ta_stack_empty_size0_no_shape",
        "exec:ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)\nfetches = ta.stack()",
    ),
    (
        "s24_ta_concat_empty_no_shape",
        "exec:ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)\nfetches = ta.concat()",
    ),
    ("s24_ta_gather_unwritten", _TA + "ta = ta.write(0, 1.0)\nfetches = ta.gather([0, 2])"),
    ("s24_ta_scatter_neg", _TA + f"ta = ta.scatter({_P.format('[0, -1]')}, [1.0, 2.0])\nfetches = ta.read(0)"),
    (
        "s24_ta_dynamic_write_far",
        "exec:ta = tf.TensorArray(tf.float32, size=1, dynamic_size=True)\n"
        + f"ta = ta.write({_P.format('5')}, 1.0)\nfetches = ta.stack()",
    ),
    (
        "s24_ta_dynamic_write_huge",
        "exec:ta = tf.TensorArray(tf.float32, size=1, dynamic_size=True)\n"
        + f"ta = ta.write({_P.format('2**30')}, 1.0)\nfetches = ta.size()",
    ),
    (
        "s24_ta_read_after_close",
        _TA + "ta = ta.write(0, 1.0)\nwith tf.control_dependencies([ta.close()]):\n    fetches = ta.read(0)",
    ),
    (
        "s24_ta_wrong_dtype_read",
        _TA
        + "ta = ta.write(0, 1.0)\nfetches = tf.raw_ops.TensorArrayReadV3(handle=ta.handle, index=0, flow_in=ta.flow, dtype=tf.int32)",
    ),
    ("s24_ta_unstack_rank0_rt", _TA + f"ta = ta.unstack({_P.format('1.0')})\nfetches = ta.read(0)"),
    ("s24_ta_grad_source_missing", _TA + "g = ta.grad('')\nfetches = g.size()"),
    # queues
    (
        "s24_queue_dequeue_many_over_capacity",
        _FQ + "sess.run(q.enqueue_many([tf.ones([4, 2])]))\nout = sess.run(q.dequeue_many(5)" + _TMO,
    ),
    (
        "s24_queue_dequeue_up_to_over",
        _FQ + "sess.run(q.enqueue_many([tf.ones([2, 2])]))\nsess.run(q.close())\nout = sess.run(q.dequeue_up_to(5))",
    ),
    ("s24_queue_dequeue_many_neg_rt", _FQ + f"out = sess.run(q.dequeue_many({_P.format('-2')})" + _TMO),
    (
        "s24_queue_enqueue_many_mismatched_rows",
        "exec:q = tf.FIFOQueue(8, [tf.float32, tf.int32], shapes=[[], []])\n"
        + f"out = sess.run(q.enqueue_many([{_P.format('[1.0, 2.0]')}, {_P.format('[1, 2, 3]')}]))",
    ),
    (
        "s24_queue_enqueue_wrong_dtype_rt",
        "exec:q = tf.FIFOQueue(4, [tf.float32])\nout = sess.run(q.enqueue([tf.constant([1])]))",
    ),
    ("s24_queue_enqueue_rank_rt", _FQ + f"out = sess.run(q.enqueue([{_P.format('tf.ones([2, 1])')}]))"),
    (
        "s24_queue_enqueue_after_close_many",
        _FQ + "sess.run(q.close())\nout = sess.run(q.enqueue_many([tf.ones([2, 2])]))",
    ),
    ("s24_queue_close_twice", _FQ + "sess.run(q.close())\nsess.run(q.close())\nout = sess.run(q.size())"),
    (
        "s24_queue_cancel_then_enqueue",
        _FQ + "sess.run(q.close(cancel_pending_enqueues=True))\nout = sess.run(q.enqueue([tf.ones([2])]))",
    ),
    (
        "s24_queue_capacity_zero_enqueue",
        "exec:q = tf.FIFOQueue(0, [tf.float32])\nout = sess.run(q.enqueue([1.0])" + _TMO,
    ),
    ("s24_padding_queue_rank_mismatch", _PQ + "out = sess.run(q.enqueue([tf.ones([2, 2])]))"),
    ("s24_padding_queue_rank_mismatch_rt", _PQ + f"out = sess.run(q.enqueue([{_P.format('tf.ones([2, 2])')}]))"),
    (
        "s24_padding_queue_dequeue_many_pad",
        _PQ + "sess.run(q.enqueue([[1.0]]))\nsess.run(q.enqueue([[1.0, 2.0, 3.0]]))\nout = sess.run(q.dequeue_many(2))",
    ),
    (
        "s24_padding_queue_dequeue_up_to_closed",
        _PQ + "sess.run(q.enqueue([[1.0]]))\nsess.run(q.close())\nout = sess.run(q.dequeue_up_to(3))",
    ),
    (
        "s24_padding_queue_strings_pad",
        "exec:q = tf.PaddingFIFOQueue(4, [tf.string], shapes=[[None]])\nsess.run(q.enqueue([['a']]))\nsess.run(q.enqueue([['b', 'c']]))\nout = sess.run(q.dequeue_many(2))",
    ),
    (
        "s24_padding_queue_static_dim_wrong",
        "exec:q = tf.PaddingFIFOQueue(4, [tf.float32], shapes=[[None, 2]])\n"
        + f"out = sess.run(q.enqueue([{_P.format('tf.ones([3, 3])')}]))",
    ),
    (
        "s24_random_shuffle_dequeue_many_closed",
        "exec:q = tf.RandomShuffleQueue(8, 2, [tf.float32], shapes=[[]], seed=1)\nsess.run(q.enqueue_many([[1.0, 2.0]]))\nsess.run(q.close())\nout = sess.run(q.dequeue_many(3))",
    ),
    (
        "s24_priority_queue_wrong_priority_dtype",
        "exec:q = tf.PriorityQueue(4, [tf.float32], shapes=[[], []])\nout = sess.run(q.enqueue([1.0, 2.0]))",
    ),
    ("s24_queue_enqueue_many_scalar_rt", _FQ + f"out = sess.run(q.enqueue_many([{_P.format('1.0')}]))"),
    ("s24_queue_size_closed_dequeue", _FQ + "sess.run(q.close())\nout = sess.run(q.dequeue())"),
    (
        "s24_queue_enqueue_too_few_components",
        "exec:q = tf.FIFOQueue(2, [tf.float32, tf.float32])\nout = sess.run(q.enqueue([1.0]))",
    ),
    (
        "s24_conditional_accumulator_wrong_shape",
        "exec:a = tf.ConditionalAccumulator(tf.float32, shape=[2])\nout = sess.run(a.apply_grad(tf.ones([3]), local_step=0))",
    ),
    (
        "s24_conditional_accumulator_take_neg",
        "exec:a = tf.ConditionalAccumulator(tf.float32, shape=[2])\nout = sess.run(a.take_grad(-1)" + _TMO,
    ),
    (
        "s24_conditional_accumulator_set_step_neg",
        "exec:a = tf.ConditionalAccumulator(tf.float32, shape=[2])\nout = sess.run(a.set_global_step(-5))",
    ),
    (
        "s24_sparse_accumulator_wrong_shape",
        "exec:a = tf.SparseConditionalAccumulator(tf.float32, shape=[3, 2])\nout = sess.run(a.apply_indexed_slices_grad(tf.IndexedSlices(tf.ones([1, 3]), [0], [3, 3]), local_step=0))",
    ),
]

# dynamic_rnn with hostile sequence lengths and shapes (weights initialised to constants so values compare).
_RNN = (
    "exec:tf.get_variable_scope().set_initializer(tf.constant_initializer(0.1))\n"
    "xs = tf.placeholder_with_default(np.ones([2, 3, 4], np.float32), [None, None, 4])\n"
)
# Values rounded to 1e-4: the two libraries' float32 sums differ in their last bits.
_DRNN = (
    "outs, st = tf.nn.dynamic_rnn({}, xs, sequence_length={}, dtype=tf.float32)\n"
    "sess.run(tf.global_variables_initializer())\nfetches = tf.round({} * 1e4)"
)
_LSTM = "tf.nn.rnn_cell.LSTMCell(5)"
_GRU = "tf.nn.rnn_cell.GRUCell(5)"
_BASIC = "tf.nn.rnn_cell.BasicRNNCell(5)"
CASES_S24 += [
    ("s24_rnn_ok", _RNN + _DRNN.format(_LSTM, "[3, 1]", "outs")),
    ("s24_rnn_seq_len_neg_rt", _RNN + _DRNN.format(_LSTM, f"{_P.format('[-1, 2]')}", "outs")),
    ("s24_rnn_seq_len_too_long_rt", _RNN + _DRNN.format(_LSTM, f"{_P.format('[7, 2]')}", "outs")),
    ("s24_rnn_seq_len_batch_mismatch_rt", _RNN + _DRNN.format(_LSTM, f"{_P.format('[1, 2, 3]')}", "outs")),
    ("s24_rnn_seq_len_rank2", _RNN + _DRNN.format(_LSTM, "[[1, 2]]", "outs")),
    ("s24_rnn_seq_len_float", _RNN + _DRNN.format(_LSTM, "[1.5, 2.0]", "outs")),
    ("s24_rnn_seq_len_huge_rt", _RNN + _DRNN.format(_GRU, f"{_P.format('[2**31 - 1, 1]')}", "outs")),
    ("s24_rnn_seq_len_zero_state", _RNN + _DRNN.format(_GRU, "[0, 0]", "st")),
    ("s24_rnn_gru_seq_len_neg_state", _RNN + _DRNN.format(_GRU, f"{_P.format('[-3, 1]')}", "st")),
    ("s24_rnn_basic_seq_len_too_long_state", _RNN + _DRNN.format(_BASIC, f"{_P.format('[9, 1]')}", "st")),
    ("s24_rnn_lstm_state_c", _RNN + _DRNN.format(_LSTM, f"{_P.format('[2, 5]')}", "st.c")),
    ("s24_rnn_input_rank2", "exec:xs = tf.ones([2, 4])\n" + _DRNN.format(_LSTM, "None", "outs")),
    (
        "s24_rnn_input_depth_rt",
        "exec:xs = tf.placeholder_with_default(np.ones([2, 3, 4], np.float32), [None, None, None])\n"
        + _DRNN.format(_LSTM, "None", "outs"),
    ),
    (
        "s24_rnn_initial_state_batch_mismatch",
        _RNN
        + "cell = tf.nn.rnn_cell.GRUCell(5)\n"
        + "outs, st = tf.nn.dynamic_rnn(cell, xs, initial_state="
        + _P.format("np.zeros([3, 5], np.float32)")
        + ")\nsess.run(tf.global_variables_initializer())\nfetches = tf.round(outs * 1e4)",
    ),
    (
        "s24_rnn_initial_state_depth_mismatch",
        _RNN
        + "cell = tf.nn.rnn_cell.GRUCell(5)\nouts, st = tf.nn.dynamic_rnn(cell, xs, initial_state=tf.zeros([2, 4]))\nsess.run(tf.global_variables_initializer())\nfetches = tf.round(outs * 1e4)",
    ),
    (
        "s24_rnn_no_dtype_no_state",
        _RNN + "outs, st = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(5), xs)\nfetches = tf.round(outs * 1e4)",
    ),
    (
        "s24_rnn_time_major_seq_len_rt",
        _RNN
        + "outs, st = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(5), xs, sequence_length="
        + _P.format("[1, 2, 3]")
        + ", time_major=True, dtype=tf.float32)\nsess.run(tf.global_variables_initializer())\nfetches = tf.round(outs * 1e4)",
    ),
    (
        "s24_rnn_zero_time_steps",
        "exec:xs = tf.placeholder_with_default(np.ones([2, 0, 4], np.float32), [None, None, 4])\n"
        + _DRNN.format(_GRU, "None", "outs"),
    ),
    ("s24_rnn_units_zero", _RNN + _DRNN.format("tf.nn.rnn_cell.BasicRNNCell(0)", "None", "outs")),
    ("s24_rnn_units_neg", _RNN + _DRNN.format("tf.nn.rnn_cell.GRUCell(-2)", "None", "outs")),
    ("s24_rnn_lstm_num_proj_neg", _RNN + _DRNN.format("tf.nn.rnn_cell.LSTMCell(5, num_proj=-1)", "None", "outs")),
    ("s24_rnn_multicell_empty", _RNN + _DRNN.format("tf.nn.rnn_cell.MultiRNNCell([])", "None", "outs")),
    (
        "s24_rnn_dropout_keep_zero",
        _RNN
        + _DRNN.format(
            "tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(5), output_keep_prob=0.0)", "None", "outs"
        ),
    ),
    (
        "s24_rnn_dropout_keep_gt1",
        _RNN
        + _DRNN.format(
            "tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(5), output_keep_prob=1.5)", "None", "outs"
        ),
    ),
    (
        "s24_rnn_bidirectional_seq_len_neg_rt",
        _RNN
        + "(fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.GRUCell(3), xs, sequence_length="
        + _P.format("[-2, 3]")
        + ", dtype=tf.float32)\nsess.run(tf.global_variables_initializer())\nfetches = tf.round(bw * 1e4)",
    ),
    (
        "s24_rnn_bidirectional_seq_len_long_rt",
        _RNN
        + "(fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.GRUCell(3), xs, sequence_length="
        + _P.format("[5, 3]")
        + ", dtype=tf.float32)\nsess.run(tf.global_variables_initializer())\nfetches = tf.round(bw * 1e4)",
    ),
    (
        "s24_rnn_static_empty_inputs",
        "exec:outs, st = tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(3), [], dtype=tf.float32)\nfetches = st",
    ),
    (
        "s24_rnn_static_seq_len_neg",
        "exec:tf.get_variable_scope().set_initializer(tf.constant_initializer(0.1))\nouts, st = tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(3), [tf.ones([2, 4])] * 2, sequence_length="
        + _P.format("[-1, 5]")
        + ", dtype=tf.float32)\nsess.run(tf.global_variables_initializer())\nfetches = tf.round(st * 1e4)",
    ),
    (
        "s24_rnn_reverse_sequence_seq_oob",
        f"tf.reverse_sequence(tf.ones([2, 3]), {_P.format('[4, 1]')}, seq_axis=1, batch_axis=0)",
    ),
    (
        "s24_rnn_reverse_sequence_seq_neg",
        f"tf.reverse_sequence(tf.ones([2, 3]), {_P.format('[-1, 1]')}, seq_axis=1, batch_axis=0)",
    ),
    (
        "s24_rnn_reverse_sequence_batch_mismatch",
        f"tf.reverse_sequence(tf.ones([2, 3]), {_P.format('[1, 1, 1]')}, seq_axis=1, batch_axis=0)",
    ),
    ("s24_rnn_reverse_sequence_same_axes", "tf.reverse_sequence(tf.ones([2, 3]), [1, 1], seq_axis=0, batch_axis=0)"),
    ("s24_sequence_mask_neg_maxlen", f"tf.sequence_mask([1, 2], {_P.format('-1')})"),
    ("s24_sequence_mask_neg_lengths", "tf.sequence_mask([-1, 2], 3)"),
    # convolutions
    (
        "s24_conv3d_transpose_out_mismatch_rt",
        f"tf.nn.conv3d_transpose(tf.ones([1, 2, 2, 2, 1]), tf.ones([2, 2, 2, 3, 1]), {_P.format('[1, 5, 5, 5, 3]')}, [1, 2, 2, 2, 1])",
    ),
    (
        "s24_conv3d_transpose_channel_mismatch",
        "tf.nn.conv3d_transpose(tf.ones([1, 2, 2, 2, 2]), tf.ones([2, 2, 2, 3, 1]), [1, 4, 4, 4, 3], [1, 2, 2, 2, 1])",
    ),
    (
        "s24_conv3d_transpose_out_channels_wrong",
        "tf.nn.conv3d_transpose(tf.ones([1, 2, 2, 2, 1]), tf.ones([2, 2, 2, 3, 1]), [1, 4, 4, 4, 2], [1, 2, 2, 2, 1])",
    ),
    (
        "s24_conv3d_transpose_neg_out_rt",
        f"tf.nn.conv3d_transpose(tf.ones([1, 2, 2, 2, 1]), tf.ones([2, 2, 2, 3, 1]), {_P.format('[1, -4, 4, 4, 3]')}, [1, 2, 2, 2, 1])",
    ),
    (
        "s24_conv3d_transpose_stride0",
        "tf.nn.conv3d_transpose(tf.ones([1, 2, 2, 2, 1]), tf.ones([2, 2, 2, 3, 1]), [1, 4, 4, 4, 3], [1, 0, 2, 2, 1])",
    ),
    (
        "s24_conv3d_transpose_out_len4",
        f"tf.nn.conv3d_transpose(tf.ones([1, 2, 2, 2, 1]), tf.ones([2, 2, 2, 3, 1]), {_P.format('[1, 4, 4, 3]')}, [1, 2, 2, 2, 1])",
    ),
    (
        "s24_conv3d_backprop_filter_bad_sizes",
        _R
        + f"Conv3DBackpropFilterV2(input=tf.ones([1, 4, 4, 4, 1]), filter_sizes={_P.format('[2, 2, -2, 1, 1]')}, out_backprop=tf.ones([1, 3, 3, 3, 1]), strides=[1, 1, 1, 1, 1], padding='VALID')",
    ),
    (
        "s24_conv3d_backprop_input_bad_sizes",
        _R
        + f"Conv3DBackpropInputV2(input_sizes={_P.format('[1, 4, 4, 1]')}, filter=tf.ones([2, 2, 2, 1, 1]), out_backprop=tf.ones([1, 3, 3, 3, 1]), strides=[1, 1, 1, 1, 1], padding='VALID')",
    ),
    (
        "s24_conv3d_dilation0",
        "tf.nn.conv3d(tf.ones([1, 4, 4, 4, 1]), tf.ones([2, 2, 2, 1, 1]), [1, 1, 1, 1, 1], 'VALID', dilations=[1, 0, 1, 1, 1])",
    ),
    (
        "s24_conv3d_filter_too_big_rt",
        f"tf.nn.conv3d({_P.format('tf.ones([1, 2, 2, 2, 1])')}, tf.ones([3, 3, 3, 1, 1]), [1, 1, 1, 1, 1], 'VALID')",
    ),
    (
        "s24_conv2d_grouped_indivisible",
        "tf.nn.conv2d(tf.ones([1, 4, 4, 4]), tf.ones([2, 2, 3, 2]), [1, 1, 1, 1], 'VALID')",
    ),
    (
        "s24_conv2d_grouped_out_indivisible",
        "tf.nn.conv2d(tf.ones([1, 4, 4, 4]), tf.ones([2, 2, 2, 3]), [1, 1, 1, 1], 'VALID')",
    ),
    (
        "s24_conv2d_grouped_rt",
        f"tf.nn.conv2d({_P.format('tf.ones([1, 4, 4, 6])')}, tf.ones([2, 2, 4, 2]), [1, 1, 1, 1], 'VALID')",
    ),
    (
        "s24_conv2d_explicit_pad_neg",
        "tf.nn.conv2d(tf.ones([1, 4, 4, 1]), tf.ones([2, 2, 1, 1]), [1, 1, 1, 1], [[0, 0], [-1, 0], [0, 0], [0, 0]])",
    ),
    (
        "s24_conv2d_explicit_pad_batch",
        "tf.nn.conv2d(tf.ones([1, 4, 4, 1]), tf.ones([2, 2, 1, 1]), [1, 1, 1, 1], [[1, 0], [0, 0], [0, 0], [0, 0]])",
    ),
    (
        "s24_conv2d_transpose_bad_out_rt",
        f"tf.nn.conv2d_transpose(tf.ones([1, 2, 2, 1]), tf.ones([2, 2, 3, 1]), {_P.format('[1, 9, 9, 3]')}, [1, 2, 2, 1])",
    ),
    (
        "s24_depthwise_mult_mismatch_rt",
        f"tf.nn.depthwise_conv2d({_P.format('tf.ones([1, 4, 4, 3])')}, tf.ones([2, 2, 2, 1]), [1, 1, 1, 1], 'VALID')",
    ),
    (
        "s24_depthwise_backprop_input_bad",
        _R
        + f"DepthwiseConv2dNativeBackpropInput(input_sizes={_P.format('[1, 4, -4, 1]')}, filter=tf.ones([2, 2, 1, 1]), out_backprop=tf.ones([1, 3, 3, 1]), strides=[1, 1, 1, 1], padding='VALID')",
    ),
    (
        "s24_depthwise_backprop_filter_bad",
        _R
        + f"DepthwiseConv2dNativeBackpropFilter(input=tf.ones([1, 4, 4, 1]), filter_sizes={_P.format('[2, 2, 1]')}, out_backprop=tf.ones([1, 3, 3, 1]), strides=[1, 1, 1, 1], padding='VALID')",
    ),
    (
        "s24_separable_conv_bad_pointwise",
        "tf.nn.separable_conv2d(tf.ones([1, 4, 4, 2]), tf.ones([2, 2, 2, 1]), tf.ones([1, 1, 3, 4]), [1, 1, 1, 1], 'VALID')",
    ),
    ("s24_atrous_conv_rate0", "tf.nn.atrous_conv2d(tf.ones([1, 4, 4, 1]), tf.ones([2, 2, 1, 1]), 0, 'VALID')"),
    ("s24_conv1d_stride0", "tf.nn.conv1d(tf.ones([1, 4, 1]), tf.ones([2, 1, 1]), 0, 'VALID')"),
    ("s24_max_pool3d_ksize0", "tf.nn.max_pool3d(tf.ones([1, 4, 4, 4, 1]), [1, 0, 2, 2, 1], [1, 1, 1, 1, 1], 'VALID')"),
    (
        "s24_avg_pool3d_big_window",
        "tf.nn.avg_pool3d(tf.ones([1, 2, 2, 2, 1]), [1, 3, 3, 3, 1], [1, 1, 1, 1, 1], 'VALID')",
    ),
    (
        "s24_max_pool_argmax_bad_stride",
        "tf.nn.max_pool_with_argmax(tf.ones([1, 4, 4, 1]), [1, 2, 2, 1], [1, 0, 1, 1], 'VALID')[0]",
    ),
    (
        "s24_fractional_max_pool_ratio_lt1",
        "tf.nn.fractional_max_pool(tf.ones([1, 4, 4, 1]), [1.0, 0.5, 1.4, 1.0], seed=1, seed2=2)[0]",
    ),
    (
        "s24_fractional_avg_pool_ratio_big",
        "tf.nn.fractional_avg_pool(tf.ones([1, 4, 4, 1]), [1.0, 8.0, 1.4, 1.0], seed=1, seed2=2)[0]",
    ),
    (
        "s24_fused_batch_norm_scale_len_rt",
        f"tf.nn.fused_batch_norm(tf.ones([1, 2, 2, 3]), {_P.format('[1.0, 1.0]')}, tf.zeros([3]))[0]",
    ),
    (
        "s24_fused_batch_norm_inference_no_mean",
        "tf.nn.fused_batch_norm(tf.ones([1, 2, 2, 3]), tf.ones([3]), tf.zeros([3]), is_training=False)[0]",
    ),
    ("s24_fused_batch_norm_rank3", "tf.nn.fused_batch_norm(tf.ones([2, 2, 3]), tf.ones([3]), tf.zeros([3]))[0]"),
    ("s24_batch_norm_neg_variance", "tf.nn.batch_normalization(tf.ones([2]), 0.0, -4.0, 0.0, 1.0, 0.0)"),
    ("s24_lrn_radius_neg", "tf.nn.local_response_normalization(tf.ones([1, 2, 2, 3]), depth_radius=-1)"),
    ("s24_lrn_rank3", "tf.nn.lrn(tf.ones([2, 2, 3]))"),
    ("s24_bias_add_rt_mismatch", f"tf.nn.bias_add(tf.ones([2, 3]), {_P.format('[1.0, 2.0]')})"),
    ("s24_bias_add_nchw_rank2", "tf.nn.bias_add(tf.ones([2, 3]), [1.0, 2.0], data_format='NCHW')"),
    ("s24_ctc_loss_label_oob", "tf.nn.ctc_loss(tf.SparseTensor([[0, 0]], [9], [1, 1]), tf.zeros([3, 1, 4]), [3])"),
    (
        "s24_ctc_loss_seq_len_too_long",
        f"tf.nn.ctc_loss(tf.SparseTensor([[0, 0]], [1], [1, 1]), tf.zeros([3, 1, 4]), {_P.format('[9]')})",
    ),
    (
        "s24_ctc_loss_seq_len_neg",
        f"tf.nn.ctc_loss(tf.SparseTensor([[0, 0]], [1], [1, 1]), tf.zeros([3, 1, 4]), {_P.format('[-1]')})",
    ),
    (
        "s24_ctc_loss_labels_too_long",
        "tf.nn.ctc_loss(tf.SparseTensor([[0, 0], [0, 1], [0, 2], [0, 3]], [1, 2, 1, 2], [1, 4]), tf.zeros([3, 1, 4]), [3])",
    ),
    (
        "s24_ctc_loss_batch_mismatch",
        "tf.nn.ctc_loss(tf.SparseTensor([[0, 0]], [1], [1, 1]), tf.zeros([3, 2, 4]), [3, 3])",
    ),
    ("s24_ctc_greedy_seq_len_oob", f"tf.nn.ctc_greedy_decoder(tf.zeros([3, 1, 4]), {_P.format('[5]')})[0][0].values"),
    ("s24_ctc_beam_width0", "tf.nn.ctc_beam_search_decoder(tf.zeros([3, 1, 4]), [3], beam_width=0)[0][0].values"),
    (
        "s24_ctc_beam_top_paths_gt_width",
        "tf.nn.ctc_beam_search_decoder(tf.zeros([3, 1, 4]), [3], beam_width=2, top_paths=5)[0][0].values",
    ),
    (
        "s24_nce_loss_num_true_mismatch",
        "tf.nn.nce_loss(tf.ones([4, 2]), tf.zeros([4]), tf.constant([[0, 1]], tf.int64), tf.ones([1, 2]), 2, 4, num_true=1)",
    ),
    (
        "s24_sampled_softmax_range_small",
        "tf.nn.sampled_softmax_loss(tf.ones([4, 2]), tf.zeros([4]), tf.constant([[3]], tf.int64), tf.ones([1, 2]), 5, 4)",
    ),
    (
        "s24_uniform_sampler_range0",
        "tf.random.uniform_candidate_sampler(tf.constant([[0]], tf.int64), 1, 2, True, 0, seed=1)[0]",
    ),
    (
        "s24_uniform_sampler_unique_too_many",
        "tf.random.uniform_candidate_sampler(tf.constant([[0]], tf.int64), 1, 5, True, 3, seed=1)[0]",
    ),
    (
        "s24_log_uniform_sampler_true_oob",
        "tf.random.log_uniform_candidate_sampler(tf.constant([[0, 1]], tf.int64), 1, 2, False, 4, seed=1)[0]",
    ),
    (
        "s24_fixed_unigram_probs_mismatch",
        "tf.random.fixed_unigram_candidate_sampler(tf.constant([[0]], tf.int64), 1, 2, False, 4, unigrams=[1.0, 2.0], seed=1)[0]",
    ),
    (
        "s24_compute_accidental_hits_bad",
        "tf.nn.compute_accidental_hits(tf.constant([[0]], tf.int64), tf.constant([0, 1], tf.int64), num_true=2)[0]",
    ),
]


def _onnx_case(name, op, attrs="", inputs="['x']", inits="", x=_F23):
    # An ONNX model of one `op` node on x ([2, 3] floats) with hostile attributes or initializers, converted.
    model = (
        f"m = make_model([helper.make_node('{op}', {inputs}, ['z']{attrs})], [('x', *{x})], "
        f"[('z', np.float32, None)], [{inits}])"
    )
    return (name, _ONNX + model + _OCONV.format("m"))


_I64 = "np.array({}, np.int64)"
_NCHW = "(np.float32, [1, 2, 4, 4])"
CASES_S24 += [
    _onnx_case("s24_onnx_softmax_axis_oob", "Softmax", ", axis=5"),
    _onnx_case("s24_onnx_softmax_axis_neg_oob", "Softmax", ", axis=-5"),
    _onnx_case("s24_onnx_softmax_axis_float", "Softmax", ", axis=1.5"),
    _onnx_case("s24_onnx_logsoftmax_axis_oob", "LogSoftmax", ", axis=2"),
    _onnx_case("s24_onnx_concat_axis_oob", "Concat", ", axis=4", "['x', 'x']"),
    _onnx_case("s24_onnx_concat_axis_neg_oob", "Concat", ", axis=-3", "['x', 'x']"),
    _onnx_case("s24_onnx_concat_axis_list", "Concat", ", axis=[1]", "['x', 'x']"),
    _onnx_case("s24_onnx_concat_rank_mismatch", "Concat", ", axis=0", "['x', 'c']", "('c', np.ones([3], np.float32))"),
    _onnx_case("s24_onnx_gather_axis_oob", "Gather", ", axis=3", "['x', 'i']", f"('i', {_I64.format('[0]')})"),
    _onnx_case("s24_onnx_gather_neg_oob_index", "Gather", ", axis=1", "['x', 'i']", f"('i', {_I64.format('[-4]')})"),
    _onnx_case("s24_onnx_transpose_perm_dup", "Transpose", ", perm=[0, 0]"),
    _onnx_case("s24_onnx_transpose_perm_len", "Transpose", ", perm=[0, 1, 2]"),
    _onnx_case("s24_onnx_transpose_perm_oob", "Transpose", ", perm=[0, 5]"),
    _onnx_case("s24_onnx_transpose_perm_string", "Transpose", ", perm='ab'"),
    _onnx_case("s24_onnx_flatten_axis_oob", "Flatten", ", axis=7"),
    _onnx_case("s24_onnx_reduce_max_axes_oob", "ReduceMax", "", "['x', 'a']", f"('a', {_I64.format('[5]')})"),
    _onnx_case("s24_onnx_reduce_sum_axes_dup", "ReduceSum", "", "['x', 'a']", f"('a', {_I64.format('[1, 1]')})"),
    _onnx_case("s24_onnx_argmax_axis_oob", "ArgMax", ", axis=-3"),
    _onnx_case("s24_onnx_squeeze_axes_oob", "Squeeze", "", "['x', 'a']", f"('a', {_I64.format('[5]')})"),
    _onnx_case("s24_onnx_squeeze_non1", "Squeeze", "", "['x', 'a']", f"('a', {_I64.format('[0]')})"),
    _onnx_case("s24_onnx_unsqueeze_axes_dup", "Unsqueeze", "", "['x', 'a']", f"('a', {_I64.format('[0, 0]')})"),
    _onnx_case("s24_onnx_unsqueeze_axes_oob", "Unsqueeze", "", "['x', 'a']", f"('a', {_I64.format('[9]')})"),
    _onnx_case("s24_onnx_split_axis_oob", "Split", ", axis=2, num_outputs=1"),
    _onnx_case("s24_onnx_split_sizes_sum", "Split", ", axis=1", "['x', 's']", f"('s', {_I64.format('[1, 1]')})"),
    _onnx_case("s24_onnx_split_sizes_neg", "Split", ", axis=1", "['x', 's']", f"('s', {_I64.format('[4, -1]')})"),
    _onnx_case("s24_onnx_cumsum_axis_oob", "CumSum", "", "['x', 'a']", f"('a', {_I64.format('4')})"),
    _onnx_case(
        "s24_onnx_conv_kernel_mismatch",
        "Conv",
        ", kernel_shape=[5, 5]",
        "['x', 'w']",
        "('w', np.ones([2, 2, 3, 3], np.float32))",
        _NCHW,
    ),
    _onnx_case(
        "s24_onnx_conv_strides_len",
        "Conv",
        ", strides=[1]",
        "['x', 'w']",
        "('w', np.ones([2, 2, 3, 3], np.float32))",
        _NCHW,
    ),
    _onnx_case(
        "s24_onnx_conv_dilation0",
        "Conv",
        ", dilations=[0, 0]",
        "['x', 'w']",
        "('w', np.ones([2, 2, 3, 3], np.float32))",
        _NCHW,
    ),
    _onnx_case(
        "s24_onnx_conv_pads_neg",
        "Conv",
        ", pads=[-5, -5, -5, -5]",
        "['x', 'w']",
        "('w', np.ones([2, 2, 3, 3], np.float32))",
        _NCHW,
    ),
    _onnx_case(
        "s24_onnx_conv_channels_mismatch", "Conv", "", "['x', 'w']", "('w', np.ones([2, 3, 3, 3], np.float32))", _NCHW
    ),
    _onnx_case(
        "s24_onnx_conv_bias_len",
        "Conv",
        "",
        "['x', 'w', 'b']",
        "('w', np.ones([2, 2, 3, 3], np.float32)), ('b', np.ones([5], np.float32))",
        _NCHW,
    ),
    _onnx_case(
        "s24_onnx_conv_group_indivisible",
        "Conv",
        ", group=3",
        "['x', 'w']",
        "('w', np.ones([3, 1, 3, 3], np.float32))",
        _NCHW,
    ),
    _onnx_case(
        "s24_onnx_conv_transpose_pads_neg",
        "ConvTranspose",
        ", pads=[-9, -9, -9, -9]",
        "['x', 'w']",
        "('w', np.ones([2, 2, 3, 3], np.float32))",
        _NCHW,
    ),
    _onnx_case(
        "s24_onnx_conv_transpose_output_shape_small",
        "ConvTranspose",
        ", output_shape=[1, 1]",
        "['x', 'w']",
        "('w', np.ones([2, 2, 3, 3], np.float32))",
        _NCHW,
    ),
    _onnx_case("s24_onnx_maxpool_pads_len", "MaxPool", ", kernel_shape=[2, 2], pads=[1, 1]", x=_NCHW),
    _onnx_case("s24_onnx_maxpool_kernel_too_big", "MaxPool", ", kernel_shape=[9, 9]", x=_NCHW),
    _onnx_case("s24_onnx_avgpool_stride0", "AveragePool", ", kernel_shape=[2, 2], strides=[0, 0]", x=_NCHW),
    _onnx_case("s24_onnx_gemm_mismatch", "Gemm", "", "['x', 'b']", "('b', np.ones([4, 2], np.float32))"),
    _onnx_case(
        "s24_onnx_gemm_bias_bad",
        "Gemm",
        "",
        "['x', 'b', 'c']",
        "('b', np.ones([3, 2], np.float32)), ('c', np.ones([5], np.float32))",
    ),
    _onnx_case("s24_onnx_matmul_mismatch", "MatMul", "", "['x', 'b']", "('b', np.ones([4, 2], np.float32))"),
    _onnx_case("s24_onnx_add_broadcast_bad", "Add", "", "['x', 'b']", "('b', np.ones([4], np.float32))"),
    _onnx_case("s24_onnx_reshape_two_minus_one", "Reshape", "", "['x', 's']", f"('s', {_I64.format('[-1, -1]')})"),
    _onnx_case("s24_onnx_reshape_count", "Reshape", "", "['x', 's']", f"('s', {_I64.format('[4, 7]')})"),
    _onnx_case("s24_onnx_reshape_neg2", "Reshape", "", "['x', 's']", f"('s', {_I64.format('[-2, 3]')})"),
    _onnx_case("s24_onnx_expand_incompatible", "Expand", "", "['x', 's']", f"('s', {_I64.format('[4, 3]')})"),
    _onnx_case("s24_onnx_tile_neg", "Tile", "", "['x', 'r']", f"('r', {_I64.format('[-1, 1]')})"),
    _onnx_case("s24_onnx_tile_len", "Tile", "", "['x', 'r']", f"('r', {_I64.format('[2]')})"),
    _onnx_case("s24_onnx_pad_neg_big", "Pad", "", "['x', 'p']", f"('p', {_I64.format('[-9, 0, 0, 0]')})"),
    _onnx_case("s24_onnx_pad_len", "Pad", "", "['x', 'p']", f"('p', {_I64.format('[1, 1]')})"),
    _onnx_case(
        "s24_onnx_pad_bad_mode", "Pad", ", mode='wrap_around'", "['x', 'p']", f"('p', {_I64.format('[1, 1, 1, 1]')})"
    ),
    _onnx_case("s24_onnx_topk_k_big", "TopK", "", "['x', 'k']", f"('k', {_I64.format('[10]')})"),
    _onnx_case("s24_onnx_topk_k_neg", "TopK", "", "['x', 'k']", f"('k', {_I64.format('[-1]')})"),
    _onnx_case("s24_onnx_cast_to_bad", "Cast", ", to=999"),
    _onnx_case("s24_onnx_cast_to_string", "Cast", ", to=TensorProto.STRING"),
    _onnx_case(
        "s24_onnx_resize_scales_zero",
        "Resize",
        "",
        "['x', '', 's']",
        "('s', np.array([1.0, 1.0, 0.0, 0.0], np.float32))",
        _NCHW,
    ),
    _onnx_case(
        "s24_onnx_resize_scales_len", "Resize", "", "['x', '', 's']", "('s', np.array([2.0, 2.0], np.float32))", _NCHW
    ),
    _onnx_case(
        "s24_onnx_resize_sizes_neg", "Resize", "", "['x', '', '', 's']", f"('s', {_I64.format('[1, 2, -4, 4]')})", _NCHW
    ),
    _onnx_case("s24_onnx_depth_to_space_block0", "DepthToSpace", ", blocksize=0", x=_NCHW),
    _onnx_case("s24_onnx_space_to_depth_indivisible", "SpaceToDepth", ", blocksize=3", x=_NCHW),
    _onnx_case("s24_onnx_lrn_size0", "LRN", ", size=0", x=_NCHW),
    _onnx_case(
        "s24_onnx_batchnorm_scale_len",
        "BatchNormalization",
        "",
        "['x', 's', 'b', 'm', 'v']",
        "('s', np.ones([5], np.float32)), ('b', np.ones([2], np.float32)), ('m', np.ones([2], np.float32)), ('v', np.ones([2], np.float32))",
        _NCHW,
    ),
    _onnx_case(
        "s24_onnx_instancenorm_scale_len",
        "InstanceNormalization",
        "",
        "['x', 's', 'b']",
        "('s', np.ones([3], np.float32)), ('b', np.ones([2], np.float32))",
        _NCHW,
    ),
    _onnx_case(
        "s24_onnx_layernorm_axis_oob", "LayerNormalization", ", axis=4", "['x', 's']", "('s', np.ones([3], np.float32))"
    ),
    _onnx_case(
        "s24_onnx_onehot_depth_neg",
        "OneHot",
        "",
        "['i', 'd', 'v']",
        f"('i', {_I64.format('[0, 1]')}), ('d', {_I64.format('-3')}), ('v', np.array([0.0, 1.0], np.float32))",
    ),
    _onnx_case("s24_onnx_einsum_bad_equation", "Einsum", ", equation='ij,->>k'"),
    _onnx_case("s24_onnx_constant_of_shape_neg", "ConstantOfShape", "", "['s']", f"('s', {_I64.format('[-2, 3]')})"),
    _onnx_case("s24_onnx_trilu_k_huge", "Trilu", "", "['x', 'k']", f"('k', {_I64.format('2**62')})"),
    _onnx_case(
        "s24_onnx_gather_elements_shape",
        "GatherElements",
        ", axis=0",
        "['x', 'i']",
        f"('i', {_I64.format('[[5, 0, 0]]')})",
    ),
    _onnx_case(
        "s24_onnx_scatter_elements_oob",
        "ScatterElements",
        ", axis=1",
        "['x', 'i', 'u']",
        f"('i', {_I64.format('[[7]]')}), ('u', np.ones([1, 1], np.float32))",
    ),
    _onnx_case("s24_onnx_gather_nd_oob", "GatherND", "", "['x', 'i']", f"('i', {_I64.format('[[1, 9]]')})"),
    _onnx_case(
        "s24_onnx_slice_axes_oob",
        "Slice",
        "",
        "['x', 's', 'e', 'a']",
        f"('s', {_I64.format('[0]')}), ('e', {_I64.format('[1]')}), ('a', {_I64.format('[4]')})",
    ),
    _onnx_case(
        "s24_onnx_slice_len_mismatch",
        "Slice",
        "",
        "['x', 's', 'e']",
        f"('s', {_I64.format('[0, 0]')}), ('e', {_I64.format('[1]')})",
    ),
    _onnx_case(
        "s24_onnx_clip_min_gt_max",
        "Clip",
        "",
        "['x', 'lo', 'hi']",
        "('lo', np.array(3.0, np.float32)), ('hi', np.array(1.0, np.float32))",
    ),
    _onnx_case(
        "s24_onnx_where_mismatch",
        "Where",
        "",
        "['c', 'x', 'y']",
        "('c', np.ones([4], np.bool_)), ('y', np.ones([2, 3], np.float32))",
    ),
    _onnx_case(
        "s24_onnx_lstm_wrong_weights",
        "LSTM",
        ", hidden_size=4",
        "['x', 'W', 'R']",
        "('W', np.ones([1, 12, 3], np.float32)), ('R', np.ones([1, 16, 4], np.float32))",
        "(np.float32, [2, 1, 3])",
    ),
    _onnx_case(
        "s24_onnx_gru_hidden0",
        "GRU",
        ", hidden_size=0",
        "['x', 'W', 'R']",
        "('W', np.ones([1, 0, 3], np.float32)), ('R', np.ones([1, 0, 0], np.float32))",
        "(np.float32, [2, 1, 3])",
    ),
    _onnx_case(
        "s24_onnx_lstm_seq_lens_oob",
        "LSTM",
        ", hidden_size=2",
        "['x', 'W', 'R', '', 'sl']",
        "('W', np.ones([1, 8, 3], np.float32)), ('R', np.ones([1, 8, 2], np.float32)), ('sl', np.array([9], np.int32))",
        "(np.float32, [2, 1, 3])",
    ),
    _onnx_case(
        "s24_onnx_lstm_seq_lens_neg",
        "LSTM",
        ", hidden_size=2",
        "['x', 'W', 'R', '', 'sl']",
        "('W', np.ones([1, 8, 3], np.float32)), ('R', np.ones([1, 8, 2], np.float32)), ('sl', np.array([-1], np.int32))",
        "(np.float32, [2, 1, 3])",
    ),
]

WORKER = r"""
import sys, json, os, math
import numpy as np
lib = sys.argv[1]
# Results go out on a copy of stdout; what the libraries print (TF's converter does) goes to /dev/null.
RESULTS = os.fdopen(os.dup(1), "w")
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
sys.stdout = open(os.devnull, "w")
if lib == "tf":
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    # TF1's tf.nn.rnn_cell and tf.layers are tf_keras's (Keras 3 refuses them).
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    import tensorflow.compat.v1 as tf
    tf.disable_eager_execution()
    import tf_keras as keras
else:
    import tensorweave as tf
    keras = tf.keras

def summarize(value):
    if isinstance(value, (list, tuple)):
        return [summarize(v) for v in value]
    if isinstance(value, dict):
        return {k: summarize(v) for k, v in sorted(value.items())}
    if value is None:
        return None
    a = np.asarray(value)
    if a.dtype.kind in "SUO":
        return {"shape": list(a.shape), "str": [repr(x)[:80] + f"...({len(x)})" * (len(x) > 80) for x in a.ravel()[:16].tolist()]}
    if a.size > 4096:
        return {"shape": list(a.shape), "dtype": str(a.dtype)}
    if a.dtype.kind == "c":
        a = np.stack([a.real, a.imag], -1)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "v": [None if not math.isfinite(x) else x for x in a.astype(np.float64).ravel().tolist()]}

import glob, shutil, struct, tempfile, zlib
TMP = tempfile.mkdtemp(prefix="bad_input_sweep_")

def tmp(name):
    return os.path.join(TMP, name)

def _crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF

def masked_crc(data):
    crc = _crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF

def record(data):
    # One TFRecord record of `data`.
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc(header)) + data + struct.pack("<I", masked_crc(data))

def graph_def(text):
    from google.protobuf import text_format
    gd = tf.GraphDef()
    text_format.Merge(text, gd)
    tf.import_graph_def(gd, name="")

def ckpt_index(path):
    return path + ".index" if os.path.exists(path + ".index") else path + ".manifest.json"


def ckpt_data(path):
    return (glob.glob(path + ".data-*") or [path + ".safetensors"])[0]


def tf_format_ckpt():
    # A fresh copy of a TF checkpoint of v = [1.0, 2.0] (made once, by TensorFlow, in a subprocess).
    import subprocess
    pristine, d = tmp("tfck_pristine"), tmp("tfck")
    if not os.path.exists(pristine):
        code = ("import os, sys\nos.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'\nimport tensorflow.compat.v1 as tf\n"
                "with tf.Graph().as_default(), tf.Session() as s:\n    v = tf.Variable([1.0, 2.0], name='v')\n"
                "    s.run(v.initializer)\n    tf.train.Saver().save(s, sys.argv[1] + '/model')\n")
        subprocess.run([sys.executable, "-c", code, pristine], check=True, capture_output=True, timeout=120)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(pristine, d)
    with open(d + "/checkpoint", "w") as f:
        f.write('model_checkpoint_path: "model"\n')
    return d


def convert_cli(*args):
    # The tensorweave-convert command: [exit status, whether it printed a traceback, its last line of stderr].
    import subprocess
    r = subprocess.run([sys.executable, "-m", "converters.cli", *args], capture_output=True, text=True, timeout=120)
    lines = r.stderr.strip().splitlines()
    return [r.returncode, "Traceback" in r.stderr, lines[-1][:160] if lines else ""]


_SM = {}


def x2_saved_model(tags=("serve",)):
    # A SavedModel of y = 2 * x (x: [None, 2] floats) with a serving_default signature, written by tensorweave.
    key = tuple(tags)
    if key not in _SM:
        d = tmp("sm_" + "_".join(key))
        shutil.rmtree(d, ignore_errors=True)
        with tf.Graph().as_default(), tf.Session() as s:
            x = tf.placeholder(tf.float32, [None, 2], name="x")
            y = tf.multiply(x, 2.0, name="y")
            b = tf.saved_model.builder.SavedModelBuilder(d)
            sig = tf.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": y})
            b.add_meta_graph_and_variables(s, list(tags), signature_def_map={"serving_default": sig})
            b.save()
        _SM[key] = d
    return _SM[key]


def add_onnx():
    # The serialized ONNX model z = x + y of [2, 3] floats.
    from onnx import helper
    from tests.onnx_lite_util import make_model
    f = (np.float32, [2, 3])
    return make_model([helper.make_node("Add", ["x", "y"], ["z"])], [("x", *f), ("y", *f)], [("z", *f)]).SerializeToString()


def onnx_convert(model):
    # The ONNX importer on `model` (a ModelProto, bytes or a path): ["converted", what the lite runtime then does].
    from converters import onnx_import
    data = onnx_import.convert(model)
    return ["converted", load_and_run(lite(), data) if os.path.exists(os.environ.get("TWL_LITE_LIBRARY", "")) else ""]


def _varint(n):
    out = b""
    while True:
        out += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
        n >>= 7
        if not n:
            return out


def _tensor_proto(dims, content):
    # A serialized float TensorProto of shape `dims` with `content` as its tensor_content.
    shape = b"".join(b"\x12" + _varint(len(d)) + d for d in (b"\x08" + _varint(n) for n in dims))
    return b"\x08\x01\x12" + _varint(len(shape)) + shape + b"\x22" + _varint(len(content)) + content


def huge_tensor_proto():
    return _tensor_proto([2**20, 2**20], b"\x00" * 16)


def short_tensor_proto():
    return _tensor_proto([4], b"\x00" * 12)


_LITE = []
_TWL = []
_SERVER = []


def lite():
    # The lite C library through ctypes, every function declared.
    if not _LITE:
        import ctypes
        lib = ctypes.CDLL(os.environ["TWL_LITE_LIBRARY"])
        p, i, c, z = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t
        sigs = {
            "twl_last_error_message": ([], c), "twl_model_create_from_file": ([c], p),
            "twl_model_create_from_buffer": ([p, z], p), "twl_model_create_from_buffer_copy": ([p, z], p),
            "twl_model_create_from_file_with_flags": ([c, ctypes.c_uint32], p),
            "twl_model_create_from_buffer_with_flags": ([p, z, ctypes.c_uint32], p),
            "twl_model_has_checksum": ([p], i), "twl_model_delete": ([p], None),
            "twl_interpreter_options_create": ([], p), "twl_interpreter_options_set_num_threads": ([p, i], None),
            "twl_interpreter_options_delete": ([p], None), "twl_interpreter_create": ([p, p], p),
            "twl_interpreter_delete": ([p], None), "twl_interpreter_allocate_tensors": ([p], i),
            "twl_interpreter_resize_input_tensor": ([p, i, ctypes.POINTER(i), i], i),
            "twl_interpreter_invoke": ([p], i), "twl_interpreter_set_op_profiler": ([p, p, p], None),
            "twl_interpreter_error_message": ([p], c), "twl_interpreter_get_input_count": ([p], i),
            "twl_interpreter_get_output_count": ([p], i), "twl_interpreter_get_input_tensor": ([p, i], p),
            "twl_interpreter_get_output_tensor": ([p, i], p), "twl_interpreter_get_input_tensor_by_name": ([p, c], p),
            "twl_interpreter_get_output_tensor_by_name": ([p, c], p),
            "twl_interpreter_get_signature_input_tensor": ([p, c, c], p),
            "twl_interpreter_get_signature_output_tensor": ([p, c, c], p), "twl_tensor_type": ([p], i),
            "twl_tensor_num_dims": ([p], i), "twl_tensor_dim": ([p, i], i), "twl_tensor_byte_size": ([p], z),
            "twl_tensor_data": ([p], p), "twl_tensor_name": ([p], c), "twl_tensor_copy_from_buffer": ([p, p, z], i),
            "twl_tensor_copy_to_buffer": ([p, p, z], i),
        }
        for name, (args, res) in sigs.items():
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, res
        _LITE.append(lib)
    return _LITE[0]


def add_twl():
    # A converted model z = x + y of [2, 3] floats (with its checksum trailer).
    if not _TWL:
        from onnx import helper
        from converters import onnx_import
        from tests.onnx_lite_util import make_model
        f = (np.float32, [2, 3])
        node = helper.make_node("Add", ["x", "y"], ["z"])
        _TWL.append(onnx_import.convert(make_model([node], [("x", *f), ("y", *f)], [("z", *f)])))
    return _TWL[0]


def rich_twl():
    # A converted model with weights and index constants: conv, pool, reshape, dense, gather, softmax, slice, concat.
    if len(_TWL) < 2:
        add_twl()
        from onnx import helper
        from converters import onnx_import
        from tests.onnx_lite_util import make_model
        f32, i64 = np.float32, np.int64
        rng = np.random.default_rng(0)
        nodes = [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["r"]),
            helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
            helper.make_node("Reshape", ["p", "shape"], ["f"]),
            helper.make_node("Gemm", ["f", "fw", "fb"], ["g"]),
            helper.make_node("Gather", ["g", "idx"], ["ga"], axis=1),
            helper.make_node("Softmax", ["ga"], ["y"], axis=-1),
            helper.make_node("Slice", ["g", "st", "en", "ax"], ["sl"]),
            helper.make_node("Concat", ["y", "sl"], ["out"], axis=1),
        ]
        inits = [
            ("w", rng.normal(size=[4, 1, 3, 3]).astype(f32)), ("b", rng.normal(size=[4]).astype(f32)),
            ("shape", np.array([1, 64], i64)), ("fw", rng.normal(size=[64, 10]).astype(f32)),
            ("fb", np.zeros([10], f32)), ("idx", np.array([0, 3, 9], i64)), ("st", np.array([2], i64)),
            ("en", np.array([5], i64)), ("ax", np.array([1], i64)),
        ]
        _TWL.append(onnx_import.convert(make_model(nodes, [("x", f32, [1, 1, 8, 8])], [("out", f32, [1, 6])], inits)))
    return _TWL[1]


def model(L):
    b = add_twl()
    return L.twl_model_create_from_buffer_copy(b, len(b))


def interp(L):
    m = model(L)
    return m, L.twl_interpreter_create(m, None)


def dims(*d):
    import ctypes
    return (ctypes.c_int * len(d))(*d)


def run_add(L, it):
    # Feeds ones to the interpreter's inputs and returns [status, z] or the error.
    x = np.ones(6, np.float32)
    for k in range(2):
        t = L.twl_interpreter_get_input_tensor(it, k)
        if L.twl_tensor_copy_from_buffer(t, x.ctypes.data, L.twl_tensor_byte_size(t)):
            return L.twl_interpreter_error_message(it)[:80]
    if L.twl_interpreter_invoke(it):
        return L.twl_interpreter_error_message(it)[:80]
    z = np.zeros(6, np.float32)
    L.twl_tensor_copy_to_buffer(L.twl_interpreter_get_output_tensor(it, 0), z.ctypes.data, 24)
    return z.tolist()


def load_and_run(L, data):
    # "rejected", or what an interpreter of the (corrupt) bytes does: loads without the checksum.
    m = L.twl_model_create_from_buffer_with_flags(data, len(data), 3)
    if not m:
        return "rejected"
    it = L.twl_interpreter_create(m, None)
    L.twl_model_delete(m)
    if not it:
        return "no interpreter"
    try:
        if L.twl_interpreter_allocate_tensors(it):
            return "allocate failed"
        n = L.twl_interpreter_get_input_count(it)
        for k in range(n):
            t = L.twl_interpreter_get_input_tensor(it, k)
            size = L.twl_tensor_byte_size(t)
            if size > 1 << 20:
                return "big input"
            buf = np.ones(max(size, 1), np.uint8)
            L.twl_tensor_copy_from_buffer(t, buf.ctypes.data, size)
        return "invoked" if L.twl_interpreter_invoke(it) == 0 else "invoke failed"
    finally:
        L.twl_interpreter_delete(it)


def cli(*args):
    # The tensorweave-lite command: [exit status, whether it printed a traceback, its last line of stderr].
    import subprocess
    r = subprocess.run([sys.executable, "-m", "tensorweave_lite._src.cli", *args], capture_output=True, text=True,
                       timeout=60)
    lines = r.stderr.strip().splitlines()
    return [r.returncode, "Traceback" in r.stderr, lines[-1][:120] if lines else ""]


def server():
    if not _SERVER:
        _SERVER.append(tf.train.Server.create_local_server())
    return _SERVER[0]


def raw(service, method, request, kind="unary_unary", timeout=10):
    # One raw call to the local server: ["OK", reply length] or [status code name, details].
    import grpc
    ch = grpc.insecure_channel(server().target[len("grpc://"):])
    fn = getattr(ch, kind)(f"/{service}/{method}")
    try:
        reply = fn(iter(request) if kind.startswith("stream") else request, timeout=timeout)
        if kind.endswith("stream"):
            reply = b"".join(reply)
        return ["OK", len(reply)]
    except grpc.RpcError as e:
        return [e.code().name, (e.details() or "")[:160]]
    finally:
        ch.close()


def raw_stream(messages):
    return raw("tensorweave.WorkerService", "PushTensorStream", messages, kind="stream_unary")


def graph_x2():
    with tf.Graph().as_default() as g, g.device("/job:localhost/replica:0/task:0/device:CPU:0"):
        x = tf.placeholder(tf.float32, [2], name="x")
        tf.multiply(x, 2.0, name="y")
    return g.as_graph_def()


def register(gd):
    from tensorweave.distributed import wire
    import grpc
    ch = grpc.insecure_channel(server().target[len("grpc://"):])
    reply = ch.unary_unary("/tensorweave.WorkerService/RegisterGraph")(wire.encode({}, [gd.SerializeToString()]),
                                                                       timeout=10)
    ch.close()
    return wire.decode(reply)[0]["handle"]


_LM = {}


def lite_model(dyn=False):
    # The library's own lite model of y = 2 * x (x: [1, 2] floats; [None, 2] with dyn), converted once.
    if dyn not in _LM:
        with tf.Graph().as_default() as g2, tf.Session(graph=g2) as s2:
            x = tf.placeholder(tf.float32, [None if dyn else 1, 2], name="x")
            y = tf.identity(x * 2.0, name="y")
            _LM[dyn] = tf.lite.TFLiteConverter.from_session(s2, [x], [y]).convert()
    return _LM[dyn]


def lite_interp(dyn=False, allocate=True):
    it = tf.lite.Interpreter(model_content=lite_model(dyn))
    if allocate:
        it.allocate_tensors()
    return it

if lib == "tw":
    from tensorweave.distributed import wire

for line in sys.stdin:
    name, expr = json.loads(line)
    result = {"name": name}
    with tf.Graph().as_default() as g:
        sess = tf.Session(graph=g)
        try:
            scope = dict(globals(), tf=tf, np=np, sess=sess, keras=keras)
            if expr.startswith("tw:"):
                expr = expr[len("tw:"):]
            if expr.startswith("exec:"):
                exec(expr[len("exec:"):], scope)
                value = scope["out"] if "out" in scope else sess.run(scope["fetches"], scope.get("feed"))
            else:
                value = sess.run(eval(expr, scope))
            result["value"] = summarize(value)
        except Exception as e:  # noqa: BLE001
            cls = type(e)
            result["error"] = cls.__name__
            result["classes"] = [c.__name__ for c in cls.__mro__]
            result["message"] = str(e)[:400]
        finally:
            sess.close()
    print(json.dumps(result, default=str), file=RESULTS, flush=True)
"""


def run_all(lib, cases, timeout):
    """{name: result} for `lib` ("tw" or "tf"); a worker that dies or hangs marks that case and restarts."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), ROOT]))
    env.setdefault("TWL_LITE_LIBRARY", os.path.join(ROOT, "bazel-bin", "lite", "c", "libtensorweave_lite.so"))
    results, pending = {}, list(cases)
    while pending:
        proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, lib],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        # One case at a time (one line in, one line out), so a hang is attributed to the right case.
        while pending:
            name, expr = pending[0]
            try:
                proc.stdin.write(json.dumps([name, expr]) + "\n")
                proc.stdin.flush()
            except BrokenPipeError:
                break
            # The first case also waits for the import; a converter CLI case for its process's (TensorFlow's).
            line = _read_line(proc, timeout * (1 + 2 * ("convert_cli(" in expr)) + 30 * (not results))
            if line in ("hang", None):
                hung = line == "hang"
                proc.kill()
                proc.wait()
                results[name] = {
                    "name": name,
                    "hang" if hung else "crash": proc.returncode,
                    "stderr": proc.stderr.read()[-400:],
                }
                pending.pop(0)
                break
            results[name] = json.loads(line)
            pending.pop(0)
        else:
            proc.stdin.close()
            proc.wait()
            break
    return results


def _read_line(proc, timeout):
    """The worker's next line; "hang" after `timeout` seconds of silence, None when it died."""
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    if not selector.select(timeout):
        return "hang"
    return proc.stdout.readline() or None


def classify(tw_result, tf_result):
    if "crash" in tw_result:
        return "crash"
    if "hang" in tw_result:
        return "hang"
    tw_err, tf_err = tw_result.get("error"), tf_result.get("error") if tf_result else None
    if tf_result is None or "crash" in tf_result or "hang" in tf_result:
        return "tf-unavailable" if tw_err is None else "tw-error-only"
    if tw_err and tf_err:  # same: tensorweave's error is (a subclass of) TF's class
        return "same" if tf_err in tw_result.get("classes", [tw_err]) else "diff-class"
    if tf_err:
        return "no-error"
    if tw_err:
        return "tw-error-only"
    return "same" if tw_result["value"] == tf_result["value"] else "value-differs"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--only", default="")
    parser.add_argument(
        "--set",
        choices=["all", "s20", "s21", "files", "s22", "s23", "s24"],
        default="all",
        help="round of cases to run",
    )
    parser.add_argument("--json", default="")
    parser.add_argument("--no-tf", action="store_true")
    args = parser.parse_args()
    chosen = {
        "all": CASES + CASES_S21 + CASES_FILES + CASES_S22 + CASES_S23 + CASES_S24,
        "s20": CASES,
        "s21": CASES_S21,
        "files": CASES_FILES,
        "s22": CASES_S22,
        "s23": CASES_S23,
        "s24": CASES_S24,
    }[args.set]
    cases = [c for c in chosen if args.only in c[0]]
    tw_results = run_all("tw", cases, args.timeout)
    # "tw:" cases use tensorweave's own APIs (the lite runtime, the distributed services): TF does not run them.
    tf_cases = [c for c in cases if not c[1].startswith("tw:")]
    tf_results = {} if args.no_tf else run_all("tf", tf_cases, args.timeout * 3)
    counts, rows = {}, []
    for name, _ in cases:
        kind = classify(tw_results[name], tf_results.get(name))
        counts[kind] = counts.get(kind, 0) + 1
        rows.append({"name": name, "kind": kind, "tw": tw_results[name], "tf": tf_results.get(name)})
        if kind != "same":
            tw, tf = tw_results[name], tf_results.get(name) or {}
            print(
                f"{kind:14s} {name}: tw={tw.get('error') or tw.get('value') or tw}"
                f" | tf={tf.get('error') or tf.get('value')}"
            )
            if tw.get("message"):
                print(f"{'':15s}tw: {tw['message'][:200]!r}")
    print(f"{len(cases)} cases: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1, default=str)
    return 1 if counts.get("crash") or counts.get("hang") else 0


if __name__ == "__main__":
    sys.exit(main())
