"""File handling and image codecs as TF1 data-preparation scripts used them: tf.gfile.MakeDirs / Exists /
IsDirectory / ListDirectory / Glob / Copy(overwrite) / Rename / Stat / Walk / Remove / DeleteRecursively,
GFile text and binary modes; images written with tf.image.encode_jpeg (quality) and encode_png, read back with
decode_jpeg(channels=), decode_png, decode_image (shape unknown rank until run) and tf.image.decode_and_crop_jpeg,
compared by shape, dtype and closeness (JPEG is lossy: a mean error bound)."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    root = os.path.join(workdir, "data")
    tf.gfile.MakeDirs(os.path.join(root, "train", "cats"))
    tf.gfile.MakeDirs(os.path.join(root, "train", "dogs"))
    for i in range(3):
        with tf.gfile.GFile(os.path.join(root, "train", "cats", f"c{i}.txt"), "w") as f:
            f.write(f"cat {i}\n")
    with tf.gfile.GFile(os.path.join(root, "train", "dogs", "d0.bin"), "wb") as f:
        f.write(bytes(range(10)))
    out["exists"] = [tf.gfile.Exists(root), tf.gfile.Exists(os.path.join(root, "nope"))]
    out["isdir"] = [
        tf.gfile.IsDirectory(os.path.join(root, "train")),
        tf.gfile.IsDirectory(os.path.join(root, "train", "dogs", "d0.bin")),
    ]
    out["listdir"] = sorted(tf.gfile.ListDirectory(os.path.join(root, "train")))
    out["glob"] = sorted(os.path.relpath(p, root) for p in tf.gfile.Glob(os.path.join(root, "train", "*", "*.txt")))
    tf.gfile.Copy(os.path.join(root, "train", "cats", "c0.txt"), os.path.join(root, "copy.txt"))
    try:
        tf.gfile.Copy(os.path.join(root, "train", "cats", "c1.txt"), os.path.join(root, "copy.txt"))
    except tf.errors.AlreadyExistsError:
        out["copy_exists"] = "AlreadyExistsError"
    tf.gfile.Copy(os.path.join(root, "train", "cats", "c1.txt"), os.path.join(root, "copy.txt"), overwrite=True)
    tf.gfile.Rename(os.path.join(root, "copy.txt"), os.path.join(root, "renamed.txt"))
    with tf.gfile.GFile(os.path.join(root, "renamed.txt")) as f:
        out["renamed"] = f.read()
    out["stat_length"] = tf.gfile.Stat(os.path.join(root, "train", "dogs", "d0.bin")).length
    with tf.gfile.GFile(os.path.join(root, "train", "dogs", "d0.bin"), "rb") as f:
        out["binary"] = f.read()
    walked = []
    for dirpath, dirnames, filenames in tf.gfile.Walk(root):
        walked.append([os.path.relpath(dirpath, root), sorted(dirnames), sorted(filenames)])
    out["walk"] = sorted(walked)
    tf.gfile.Remove(os.path.join(root, "renamed.txt"))
    tf.gfile.DeleteRecursively(os.path.join(root, "train", "dogs"))
    out["after_delete"] = sorted(tf.gfile.ListDirectory(root)) + sorted(
        tf.gfile.ListDirectory(os.path.join(root, "train"))
    )
    try:
        tf.gfile.Stat(os.path.join(root, "missing"))
    except tf.errors.NotFoundError:
        out["stat_missing"] = "NotFoundError"

    yy, xx = np.mgrid[0:24, 0:32]
    img_np = np.stack([xx * 8, yy * 10, (xx + yy) * 4], -1).astype(np.uint8)
    img = tf.constant(img_np)
    jpeg = tf.image.encode_jpeg(img, quality=95)
    png = tf.image.encode_png(img)
    dec_jpeg = tf.image.decode_jpeg(jpeg, channels=3)
    dec_gray = tf.image.decode_jpeg(jpeg, channels=1)
    dec_png = tf.image.decode_png(png)
    dec_any = tf.image.decode_image(png)
    crop = tf.image.decode_and_crop_jpeg(jpeg, [4, 6, 10, 12], channels=3)
    out["static"] = [
        t.shape.as_list() if t.shape.ndims is not None else None for t in (dec_jpeg, dec_gray, dec_png, dec_any, crop)
    ]
    with tf.Session() as sess:
        j, g, p, a, c, jb = sess.run([dec_jpeg, dec_gray, dec_png, dec_any, crop, jpeg])
    out["png_exact"] = bool((p == img_np).all() and (a == img_np).all())
    out["jpeg"] = [j.shape, j.dtype.name, bool(np.abs(j.astype(int) - img_np).mean() < 3.0)]
    out["gray"] = [g.shape, bool(abs(g.mean() - img_np.mean(axis=-1).mean()) < 3.0)]
    out["crop"] = [c.shape, bool(np.abs(c.astype(int) - j[4:14, 6:18].astype(int)).mean() < 3.0)]
    out["jpeg_magic"] = jb[:2]
    return out
