// Linear algebra (TensorFlow's tf.linalg): factorizations, solves and
// determinants of the matrices in the last two dims of a batch, and the
// band / diagonal ops their gradients need.
#include <algorithm>
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// Merges two dims that must agree (-1 is unknown).
Status MergeDim(int64_t a, int64_t b, const char* what, int64_t* out) {
  if (a >= 0 && b >= 0 && a != b) {
    return errors::InvalidArgument("Dimensions must be equal (", what,
                                   "), but are ", a, " and ", b);
  }
  *out = a >= 0 ? a : b;
  return Status::OK();
}

std::vector<int64_t> BatchDims(const PartialShape& s) {
  return std::vector<int64_t>(s.dims().begin(), s.dims().end() - 2);
}

// Input 0 is a batch of square matrices [..., N, N]; *batch gets its batch
// dims and *n its order (unknown rank: *known is false).
Status SquareInput(InferenceContext* c, bool* known,
                   std::vector<int64_t>* batch, int64_t* n) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  const PartialShape& s = c->input(0);
  *known = s.known_rank();
  if (!*known) return Status::OK();
  TW_RETURN_IF_ERROR(MergeDim(s.dim(s.rank() - 2), s.dim(s.rank() - 1),
                              "input must be a square matrix", n));
  *batch = BatchDims(s);
  return Status::OK();
}

Status SquareUnchanged(InferenceContext* c) {
  bool known;
  std::vector<int64_t> batch;
  int64_t n;
  TW_RETURN_IF_ERROR(SquareInput(c, &known, &batch, &n));
  if (!known) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  batch.push_back(n);
  batch.push_back(n);
  c->set_output(0, PartialShape(batch));
  return Status::OK();
}

// Determinants: one scalar per matrix (every output).
Status SquareToBatch(InferenceContext* c) {
  bool known;
  std::vector<int64_t> batch;
  int64_t n;
  TW_RETURN_IF_ERROR(SquareInput(c, &known, &batch, &n));
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, known ? PartialShape(batch) : PartialShape::UnknownRank());
  }
  return Status::OK();
}

// MatrixSolve / MatrixTriangularSolve: matrix [..., M, M], rhs [..., M, K]
// with equal batch dims; the solution has rhs's shape.
Status SolveShape(InferenceContext* c) {
  bool known;
  std::vector<int64_t> batch;
  int64_t n;
  TW_RETURN_IF_ERROR(SquareInput(c, &known, &batch, &n));
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(1, 2));
  const PartialShape& rhs = c->input(1);
  if (!known || !rhs.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (rhs.rank() != c->input(0).rank()) {
    return errors::InvalidArgument(
        "matrix and rhs must have the same rank, got shapes ",
        c->input(0).ToString(), " and ", rhs.ToString());
  }
  std::vector<int64_t> out = BatchDims(rhs);
  for (size_t i = 0; i < batch.size(); ++i) {
    TW_RETURN_IF_ERROR(MergeDim(batch[i], out[i], "batch", &out[i]));
  }
  int64_t m;
  TW_RETURN_IF_ERROR(
      MergeDim(n, rhs.dim(rhs.rank() - 2), "matrix rows and rhs rows", &m));
  out.push_back(m);
  out.push_back(rhs.dim(rhs.rank() - 1));
  c->set_output(0, PartialShape(out));
  return Status::OK();
}

Status SolveLsShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(1, 2));
  PartialShape l2;
  TW_RETURN_IF_ERROR(c->WithRank(2, 0, &l2));
  const PartialShape& a = c->input(0);
  const PartialShape& rhs = c->input(1);
  if (!a.known_rank() || !rhs.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (rhs.rank() != a.rank()) {
    return errors::InvalidArgument(
        "matrix and rhs must have the same rank, got shapes ", a.ToString(),
        " and ", rhs.ToString());
  }
  std::vector<int64_t> out = BatchDims(rhs);
  const std::vector<int64_t> batch = BatchDims(a);
  for (size_t i = 0; i < batch.size(); ++i) {
    TW_RETURN_IF_ERROR(MergeDim(batch[i], out[i], "batch", &out[i]));
  }
  int64_t m;
  TW_RETURN_IF_ERROR(MergeDim(a.dim(a.rank() - 2), rhs.dim(rhs.rank() - 2),
                              "matrix rows and rhs rows", &m));
  out.push_back(a.dim(a.rank() - 1));
  out.push_back(rhs.dim(rhs.rank() - 1));
  c->set_output(0, PartialShape(out));
  return Status::OK();
}

int64_t MinDim(int64_t m, int64_t n) {
  return (m < 0 || n < 0) ? -1 : std::min(m, n);
}

Status QrShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  const PartialShape& s = c->input(0);
  if (!s.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    c->set_output(1, PartialShape::UnknownRank());
    return Status::OK();
  }
  bool full;
  TW_RETURN_IF_ERROR(c->GetAttr("full_matrices", &full));
  const int64_t m = s.dim(s.rank() - 2), n = s.dim(s.rank() - 1);
  const int64_t p = full ? m : MinDim(m, n);
  std::vector<int64_t> q = BatchDims(s), r = BatchDims(s);
  q.push_back(m);
  q.push_back(p);
  r.push_back(p);
  r.push_back(n);
  c->set_output(0, PartialShape(q));
  c->set_output(1, PartialShape(r));
  return Status::OK();
}

Status SvdShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  const PartialShape& s = c->input(0);
  if (!s.known_rank()) {
    for (int i = 0; i < 3; ++i) c->set_output(i, PartialShape::UnknownRank());
    return Status::OK();
  }
  bool full, compute_uv;
  TW_RETURN_IF_ERROR(c->GetAttr("full_matrices", &full));
  TW_RETURN_IF_ERROR(c->GetAttr("compute_uv", &compute_uv));
  const int64_t m = s.dim(s.rank() - 2), n = s.dim(s.rank() - 1);
  const int64_t p = MinDim(m, n);
  std::vector<int64_t> sv = BatchDims(s), u = BatchDims(s), v = BatchDims(s);
  sv.push_back(p);
  c->set_output(0, PartialShape(sv));
  if (!compute_uv) {
    c->set_output(1, PartialShape({0}));
    c->set_output(2, PartialShape({0}));
    return Status::OK();
  }
  u.push_back(m);
  u.push_back(full ? m : p);
  v.push_back(n);
  v.push_back(full ? n : p);
  c->set_output(1, PartialShape(u));
  c->set_output(2, PartialShape(v));
  return Status::OK();
}

Status EigShape(InferenceContext* c) {
  bool known;
  std::vector<int64_t> batch;
  int64_t n;
  TW_RETURN_IF_ERROR(SquareInput(c, &known, &batch, &n));
  if (!known) {
    c->set_output(0, PartialShape::UnknownRank());
    c->set_output(1, PartialShape::UnknownRank());
    return Status::OK();
  }
  bool compute_v;
  TW_RETURN_IF_ERROR(c->GetAttr("compute_v", &compute_v));
  std::vector<int64_t> e = batch;
  e.push_back(n);
  c->set_output(0, PartialShape(e));
  if (!compute_v) {
    c->set_output(1, PartialShape({0}));
    return Status::OK();
  }
  e.push_back(n);
  c->set_output(1, PartialShape(e));
  return Status::OK();
}

Status BandPartShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  PartialShape scalar;
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &scalar));
  TW_RETURN_IF_ERROR(c->WithRank(2, 0, &scalar));
  c->set_output(0, c->input(0));
  return Status::OK();
}

// MatrixDiag: [..., N] -> [..., N, N].
Status MatrixDiagShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1));
  const PartialShape& s = c->input(0);
  if (!s.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  std::vector<int64_t> dims = s.dims();
  dims.push_back(dims.back());
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

// MatrixDiagPart: [..., M, N] -> [..., min(M, N)].
Status MatrixDiagPartShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  const PartialShape& s = c->input(0);
  if (!s.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  std::vector<int64_t> dims = BatchDims(s);
  dims.push_back(MinDim(s.dim(s.rank() - 2), s.dim(s.rank() - 1)));
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status MatrixSetDiagShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(1, 1));
  const PartialShape& s = c->input(0);
  const PartialShape& d = c->input(1);
  if (s.known_rank() && d.known_rank()) {
    if (d.rank() != s.rank() - 1) {
      return errors::InvalidArgument("diagonal must be rank ", s.rank() - 1,
                                     ", got shape ", d.ToString(),
                                     " for input shape ", s.ToString());
    }
    int64_t k;
    TW_RETURN_IF_ERROR(
        MergeDim(MinDim(s.dim(s.rank() - 2), s.dim(s.rank() - 1)),
                 d.dim(d.rank() - 1), "diagonal length", &k));
  }
  c->set_output(0, s);
  return Status::OK();
}

}  // namespace

REGISTER_OP("MatrixInverse")
    .Input("input: T")
    .Output("output: T")
    .Attr("adjoint: bool = false")
    .Attr("T: {float, double}")
    .SetShapeFn(SquareUnchanged)
    .Doc("The inverse (or the inverse of the adjoint) of each square matrix.");

REGISTER_OP("MatrixDeterminant")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .SetShapeFn(SquareToBatch)
    .Doc("The determinant of each square matrix (LU with partial pivoting).");

REGISTER_OP("LogMatrixDeterminant")
    .Input("input: T")
    .Output("sign: T")
    .Output("log_abs_determinant: T")
    .Attr("T: {float, double}")
    .SetShapeFn(SquareToBatch)
    .Doc("The sign and log of the absolute determinant of each matrix.");

REGISTER_OP("Cholesky")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .SetShapeFn(SquareUnchanged)
    .Doc(
        "The lower Cholesky factor L (A = L L^T) of each symmetric positive "
        "definite matrix; only the lower triangle of the input is read.");

REGISTER_OP("MatrixSolve")
    .Input("matrix: T")
    .Input("rhs: T")
    .Output("output: T")
    .Attr("adjoint: bool = false")
    .Attr("T: {float, double}")
    .SetShapeFn(SolveShape)
    .Doc("X with matrix X = rhs (adjoint(matrix) X = rhs), per batch entry.");

REGISTER_OP("MatrixTriangularSolve")
    .Input("matrix: T")
    .Input("rhs: T")
    .Output("output: T")
    .Attr("lower: bool = true")
    .Attr("adjoint: bool = false")
    .Attr("T: {float, double}")
    .SetShapeFn(SolveShape)
    .Doc(
        "X with matrix X = rhs for triangular matrices (only the lower or "
        "upper triangle is read), by substitution.");

REGISTER_OP("MatrixSolveLs")
    .Input("matrix: T")
    .Input("rhs: T")
    .Input("l2_regularizer: double")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("fast: bool = true")
    .SetShapeFn(SolveLsShape)
    .Doc(
        "The least-squares solution X of matrix X = rhs, with an optional L2 "
        "regularizer (normal equations when fast, else a complete orthogonal "
        "decomposition).");

REGISTER_OP("Qr")
    .Input("input: T")
    .Output("q: T")
    .Output("r: T")
    .Attr("full_matrices: bool = false")
    .Attr("T: {float, double}")
    .SetShapeFn(QrShape)
    .Doc("The QR decomposition (Householder) of each matrix.");

REGISTER_OP("Svd")
    .Input("input: T")
    .Output("s: T")
    .Output("u: T")
    .Output("v: T")
    .Attr("compute_uv: bool = true")
    .Attr("full_matrices: bool = false")
    .Attr("T: {float, double}")
    .SetShapeFn(SvdShape)
    .Doc(
        "The singular values (descending) and, when compute_uv, the singular "
        "vectors of each matrix: input = u diag(s) v^T.");

REGISTER_OP("SelfAdjointEigV2")
    .Input("input: T")
    .Output("e: T")
    .Output("v: T")
    .Attr("compute_v: bool = true")
    .Attr("T: {float, double}")
    .SetShapeFn(EigShape)
    .Doc(
        "The eigenvalues (ascending) and, when compute_v, the eigenvectors "
        "of each self-adjoint matrix (its lower triangle is read).");

REGISTER_OP("MatrixBandPart")
    .Input("input: T")
    .Input("num_lower: Tindex")
    .Input("num_upper: Tindex")
    .Output("band: T")
    .Attr("T: type")
    .Attr("Tindex: {int32, int64} = int64")
    .SetShapeFn(BandPartShape)
    .Doc(
        "Keeps the entries within num_lower sub- and num_upper "
        "super-diagonals of each matrix (negative: the whole triangle), "
        "zeroes the rest.");

REGISTER_OP("MatrixDiag")
    .Input("diagonal: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(MatrixDiagShape)
    .Doc("The square matrices with the given diagonals (last dim).");

REGISTER_OP("MatrixDiagPart")
    .Input("input: T")
    .Output("diagonal: T")
    .Attr("T: type")
    .SetShapeFn(MatrixDiagPartShape)
    .Doc("The main diagonal of each matrix.");

REGISTER_OP("MatrixSetDiag")
    .Input("input: T")
    .Input("diagonal: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(MatrixSetDiagShape)
    .Doc("Each matrix with its main diagonal replaced.");

}  // namespace tensorweave

namespace tensorweave {
namespace {

// Cross: both inputs of one shape whose last dim is 3.
Status CrossShape(InferenceContext* c) {
  // Both: a of unknown rank merged with a scalar b had no last dim to read.
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1));
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(1, 1));
  PartialShape merged;
  TW_RETURN_IF_ERROR(c->input(0).Merge(c->input(1), &merged));
  if (merged.known_rank() && merged.dim(merged.rank() - 1) >= 0 &&
      merged.dim(merged.rank() - 1) != 3) {
    return errors::InvalidArgument("Dimension must be 3 but is ",
                                   merged.dim(merged.rank() - 1),
                                   " for the last dim of ", merged.ToString());
  }
  c->set_output(0, merged);
  return Status::OK();
}

}  // namespace

REGISTER_OP("Cross")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("T: {float, double, int32, int64}")
    .SetShapeFn(CrossShape)
    .Doc("The cross product of the 3-vectors in the last dim of a and b.");

}  // namespace tensorweave

namespace tensorweave {
namespace {

// Lu: lu [..., N, N] and the permutation p [..., N].
Status LuShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  const PartialShape& s = c->input(0);
  if (!s.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    c->set_output(1, PartialShape::UnknownRank());
    return Status::OK();
  }
  const int64_t m = s.dim(s.rank() - 2), n = s.dim(s.rank() - 1);
  if (m >= 0 && n >= 0 && m != n) {
    return errors::InvalidArgument("Input must be a square matrix, got shape ",
                                   s.ToString());
  }
  const int64_t k = m >= 0 ? m : n;
  std::vector<int64_t> dims(s.dims().begin(), s.dims().end() - 2);
  std::vector<int64_t> p = dims;
  p.push_back(k);
  dims.push_back(k);
  dims.push_back(k);
  c->set_output(0, PartialShape(dims));
  c->set_output(1, PartialShape(p));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Lu")
    .Input("input: T")
    .Output("lu: T")
    .Output("p: output_idx_type")
    .Attr("T: {float, double}")
    .Attr("output_idx_type: {int32, int64} = int32")
    .SetShapeFn(LuShape)
    .Doc(
        "The LU decomposition with partial pivoting of each square matrix: "
        "lu holds L (unit diagonal, below) and U; input[p] = L U.");

}  // namespace tensorweave
