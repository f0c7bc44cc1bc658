#include "core/data/dataset.h"

#include <utility>

#include "core/kernels/handle_resource.h"

namespace tensorweave {
namespace data {
namespace {

using Registry = HandleRegistry<const DatasetBase>;

}  // namespace

Tensor MakeDatasetHandle(DatasetPtr dataset) {
  return Registry::Global()->Create("Dataset", std::move(dataset));
}

Status GetDatasetFromHandle(const Tensor& handle, const char* what,
                            DatasetPtr* dataset) {
  Status s = Registry::Global()->Lookup(handle, "Dataset", dataset);
  if (!s.ok()) {
    return Status(s.code(), StrCat(what, ": ", s.message()));
  }
  return Status::OK();
}

Status CheckElement(const std::string& who, const DataTypeVector& dtypes,
                    const std::vector<PartialShape>& shapes,
                    const Element& element) {
  if (element.size() != dtypes.size()) {
    return errors::InvalidArgument(who, " produced an element of ",
                                   element.size(), " components; expected ",
                                   dtypes.size());
  }
  for (size_t i = 0; i < element.size(); ++i) {
    if (element[i].dtype() != dtypes[i]) {
      return errors::InvalidArgument(
          who, ": component ", i, " has dtype ",
          DataTypeName(element[i].dtype()), "; expected ",
          DataTypeName(dtypes[i]));
    }
    if (i < shapes.size() && !shapes[i].IsCompatibleWith(element[i].shape())) {
      return errors::InvalidArgument(
          who, ": component ", i, " has shape ", element[i].shape().ToString(),
          ", incompatible with the expected shape ", shapes[i].ToString());
    }
  }
  return Status::OK();
}

DatasetOpKernel::DatasetOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
  Status s = ctx->GetAttr("output_types", &output_dtypes_);
  if (!s.ok()) s = ctx->GetAttr("Toutput_types", &output_dtypes_);
  ctx->SetStatus(s);
  ctx->SetStatus(ctx->GetAttr("output_shapes", &output_shapes_));
  if (s.ok() && output_shapes_.size() != output_dtypes_.size()) {
    ctx->SetStatus(errors::InvalidArgument(
        "output_shapes has ", output_shapes_.size(),
        " shapes but there are ", output_dtypes_.size(), " output types"));
  }
}

void DatasetOpKernel::Compute(OpKernelContext* ctx) {
  DatasetPtr dataset;
  OP_REQUIRES_OK(ctx, MakeDataset(ctx, &dataset));
  ctx->set_output(0, MakeDatasetHandle(std::move(dataset)));
}

Status UnaryDatasetOpKernel::MakeDataset(OpKernelContext* ctx,
                                         DatasetPtr* out) {
  DatasetPtr input;
  TW_RETURN_IF_ERROR(GetDatasetFromHandle(ctx->input(0), "input_dataset",
                                          &input));
  return MakeDataset(ctx, std::move(input), out);
}

Status ParseScalarInput(OpKernelContext* ctx, int index, const char* name,
                        int64_t* value) {
  const Tensor& t = ctx->input(index);
  if (t.shape().dims().size() != 0) {
    return errors::InvalidArgument(name, " must be a scalar, got shape ",
                                   t.shape().ToString());
  }
  if (t.dtype() == DT_INT64) {
    *value = t.data<int64_t>()[0];
  } else if (t.dtype() == DT_INT32) {
    *value = t.data<int32_t>()[0];
  } else {
    return errors::InvalidArgument(name, " must be an int64 scalar, got ",
                                   DataTypeName(t.dtype()));
  }
  return Status::OK();
}

}  // namespace data
}  // namespace tensorweave
