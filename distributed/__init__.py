"""tensorweave's distributed runtime (`tensorweave.distributed`): the cluster spec, `TW_CONFIG`, the gRPC
server with its master and worker services, remote sessions (`Session("grpc://host:port")`) and the local
cluster launcher (`python -m tensorweave.distributed.launch`).

Importing this package imports neither grpc nor protobuf; the server and the remote session import grpc when
they are made.
"""

from tensorweave.distributed.cluster_spec import ClusterSpec
from tensorweave.distributed.cluster_spec import TaskConfig
from tensorweave.distributed.cluster_spec import cluster_resolver

__all__ = ["ClusterSpec", "Server", "TaskConfig", "cluster_resolver"]


def __getattr__(name):
    if name == "Server":  # imports grpc
        from tensorweave.distributed.server import Server

        return Server
    raise AttributeError(f"module 'tensorweave.distributed' has no attribute {name!r}")
