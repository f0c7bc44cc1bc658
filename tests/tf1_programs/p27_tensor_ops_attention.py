"""Dot-product attention with masking and the tensor manipulations programs did around it: einsum, tf.where,
boolean_mask, top_k, in_top_k, unique, scatter_nd, gather_nd, split / unstack / tile / pad / expand_dims,
confusion_matrix, static shapes of each."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(27)
    B, T, D = 2, 4, 3
    q_np = rng.randn(B, T, D).astype(np.float32)
    k_np = rng.randn(B, T, D).astype(np.float32)
    lens_np = np.array([4, 2], np.int32)
    q = tf.placeholder(tf.float32, [None, T, D])
    k = tf.placeholder(tf.float32, [None, T, D])
    lens = tf.placeholder(tf.int32, [None])
    scores = tf.matmul(q, k, transpose_b=True) / tf.sqrt(tf.cast(D, tf.float32))
    scores2 = tf.einsum("btd,bsd->bts", q, k) / np.sqrt(D).astype(np.float32)
    mask = tf.sequence_mask(lens, T)
    mask = tf.tile(tf.expand_dims(mask, 1), [1, T, 1])
    masked = tf.where(mask, scores, tf.ones_like(scores) * -1e9)
    attn = tf.nn.softmax(masked, axis=-1)
    context = tf.matmul(attn, k)
    flat_scores = tf.reshape(scores, [-1])
    positive = tf.boolean_mask(flat_scores, flat_scores > 0)
    vals, idx = tf.nn.top_k(flat_scores, k=3)
    in_top = tf.nn.in_top_k(tf.reshape(scores, [-1, T]), tf.zeros([B * T], tf.int32), 2)
    uniq, uidx = tf.unique(tf.constant([4, 1, 4, 2, 1]))
    scattered = tf.scatter_nd(tf.constant([[0], [2]]), tf.constant([5.0, 7.0]), tf.constant([4]))
    gathered = tf.gather_nd(context, [[0, 1], [1, 3]])
    a, b_ = tf.split(context, [1, 2], axis=2)
    parts = tf.split(context, 3, axis=-1)
    rows = tf.unstack(context, axis=1)
    padded = tf.pad(context, [[0, 0], [1, 0], [0, 2]], mode="CONSTANT", constant_values=0.5)
    reflect = tf.pad(tf.constant([[1, 2, 3], [4, 5, 6]]), [[1, 1], [2, 2]], "REFLECT")
    cm = tf.confusion_matrix([0, 1, 2, 1], [0, 2, 2, 1], num_classes=3)
    where_idx = tf.where(flat_scores > 0.5)
    cast = tf.to_float(tf.argmax(scores, axis=-1))
    stacked = tf.stack(rows, axis=0)
    rev = tf.reverse_sequence(context, lens, seq_axis=1, batch_axis=0)
    clipped = tf.clip_by_value(scores, -0.5, 0.5)
    cum = tf.cumsum(flat_scores, exclusive=True, reverse=True)
    seg = tf.segment_sum(tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant([0, 0, 1, 1]))
    unsorted = tf.unsorted_segment_max(tf.constant([1.0, 5.0, 3.0]), tf.constant([1, 0, 1]), num_segments=3)
    tensors = dict(
        scores=scores,
        scores2=scores2,
        attn=attn,
        context=context,
        positive=positive,
        vals=vals,
        idx=idx,
        in_top=in_top,
        uniq=uniq,
        uidx=uidx,
        scattered=scattered,
        gathered=gathered,
        a=a,
        b=b_,
        parts=parts,
        rows=rows,
        padded=padded,
        reflect=reflect,
        cm=cm,
        where_idx=where_idx,
        cast=cast,
        stacked=stacked,
        rev=rev,
        clipped=clipped,
        cum=cum,
        seg=seg,
        unsorted=unsorted,
    )
    with tf.Session() as sess:
        out = sess.run(tensors, {q: q_np, k: k_np, lens: lens_np})

    def static(t):
        if isinstance(t, list):
            return [static(x) for x in t]
        return [t.shape.as_list() if t.shape.ndims is not None else None, t.dtype.name]

    return {"values": out, "static": {name: static(t) for name, t in tensors.items()}}
