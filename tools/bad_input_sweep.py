"""Sweep hostile op arguments through tensorweave and TensorFlow 2.21 compat.v1 and classify each case.

Each case is an expression in `tf` (the module under test) that builds fetches in a fresh graph; they are run
in a worker subprocess per library with a per-case timeout, so a crash or a hang costs one case. Each case is
classified: same (same error class as TF, or both give the same value), diff-class, crash, hang, no-error (TF
errs, tensorweave does not), value-differs, tw-only-error (tensorweave errs, TF does not).

    python tools/bad_input_sweep.py [--timeout S] [--only SUBSTRING] [--json OUT]
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


WORKER = r"""
import sys, json, os, math
import numpy as np
lib = sys.argv[1]
if lib == "tf":
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow.compat.v1 as tf
    tf.disable_eager_execution()
else:
    import tensorweave as tf

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

for line in sys.stdin:
    name, expr = json.loads(line)
    result = {"name": name}
    with tf.Graph().as_default() as g:
        sess = tf.Session(graph=g)
        try:
            fetches = eval(expr, {"tf": tf, "np": np})
            result["value"] = summarize(sess.run(fetches))
        except Exception as e:  # noqa: BLE001
            cls = type(e)
            result["error"] = cls.__name__
            result["message"] = str(e)[:400]
        finally:
            sess.close()
    print(json.dumps(result, default=str), flush=True)
"""


def run_all(lib, cases, timeout):
    """{name: result} for `lib` ("tw" or "tf"); a worker that dies or hangs marks that case and restarts."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), ROOT]))
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
            line = _read_line(proc, timeout + 30 * (not results))  # the first case also waits for the import
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
    if tw_err and tf_err:
        return "same" if tw_err == tf_err else "diff-class"
    if tf_err:
        return "no-error"
    if tw_err:
        return "tw-error-only"
    return "same" if tw_result["value"] == tf_result["value"] else "value-differs"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--only", default="")
    parser.add_argument("--json", default="")
    parser.add_argument("--no-tf", action="store_true")
    args = parser.parse_args()
    cases = [c for c in CASES if args.only in c[0]]
    tw_results = run_all("tw", cases, args.timeout)
    tf_results = {} if args.no_tf else run_all("tf", cases, args.timeout * 3)
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
