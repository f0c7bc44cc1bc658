// The _Send and _Recv kernels, for devices other than the CPU and the GPU
// (which register them here): a device's TransferIn / TransferOut moves the
// values between its memory and the rendezvous's host tensors.
#ifndef TENSORWEAVE_CORE_KERNELS_SENDRECV_OPS_H_
#define TENSORWEAVE_CORE_KERNELS_SENDRECV_OPS_H_

#include <string>

namespace tensorweave {

void RegisterSendRecvKernels(const std::string& device_type);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_SENDRECV_OPS_H_
