// The ops the partitioner puts at a device boundary: _Send on the producer's
// device, _Recv on the consumer's, meeting in the step's rendezvous under a
// key made of the attrs below. Users never create them.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("_Send")
    .Input("tensor: T")
    .Attr("T: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("send_device_incarnation: int")
    .Attr("recv_device: string")
    .Attr("client_terminated: bool = false")
    // On a device with memory of its own: `tensor` is in host memory (no
    // copy to the host is needed).
    .Attr("host_memory: bool = false")
    .SetIsStateful()
    .SetShapeFn(shape_fns::NoOutputs)
    .Doc(
        "Sends `tensor` from send_device to recv_device (partitioning "
        "inserts it; not for direct use).");

REGISTER_OP("_Recv")
    .Output("tensor: tensor_type")
    .Attr("tensor_type: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("send_device_incarnation: int")
    .Attr("recv_device: string")
    .Attr("client_terminated: bool = false")
    // On a device with memory of its own: deliver `tensor` in host memory
    // (its consumers read it there), not copied to the device.
    .Attr("host_memory: bool = false")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnknownShape)
    .Doc(
        "Receives the tensor that the matching _Send sent (partitioning "
        "inserts it; not for direct use).");

}  // namespace tensorweave
