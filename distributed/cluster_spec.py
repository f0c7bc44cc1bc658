"""`ClusterSpec`: the jobs of a cluster and the network address of each of their tasks (TF1's
`tf.train.ClusterSpec`), and `TW_CONFIG`, the environment variable (shaped as TensorFlow's `TF_CONFIG`)
from which a task learns its cluster and its own role. Pure Python: importing it imports neither grpc nor
protobuf."""

import json
import os

__all__ = ["ClusterSpec", "TaskConfig", "cluster_resolver", "parse_address"]


class ClusterSpec:
    """A cluster as a set of jobs, each a set of tasks at network addresses (`host:port`).

    Built from a dictionary mapping each job name to a list of addresses (task i at the i-th address) or to a
    dictionary {task index: address} (sparse indices), or from another `ClusterSpec`.

    Example:
      >>> import tensorweave as tw
      >>> cluster = tw.train.ClusterSpec({"ps": ["127.0.0.1:2222"], "worker": {0: "w0:2222", 3: "w3:2222"}})
      >>> cluster.jobs, cluster.num_tasks("worker"), cluster.task_indices("worker")
      (['ps', 'worker'], 2, [0, 3])
      >>> cluster.task_address("worker", 3), cluster.job_tasks("worker")
      ('w3:2222', ['w0:2222', None, None, 'w3:2222'])
    """

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            self._spec = {job: dict(tasks) for job, tasks in cluster._spec.items()}
            return
        if _is_cluster_def(cluster):
            # TF's ClusterDef protocol buffer (tw.train.ClusterDef, or TensorFlow's own).
            self._spec = {job.name: dict(sorted(job.tasks.items())) for job in cluster.job}
            return
        if not isinstance(cluster, dict):
            raise TypeError(
                "`cluster` must be a dictionary mapping one or more job names to lists of network addresses, "
                "or a `ClusterDef` protocol buffer"
            )
        self._spec = {}
        for job, tasks in cluster.items():
            if isinstance(job, bytes):
                job = job.decode()
            if not isinstance(job, str):
                raise TypeError(f"Job name {job!r} must be bytes or unicode")
            if isinstance(tasks, (list, tuple)):
                items = list(enumerate(tasks))
            elif isinstance(tasks, dict):
                items = [(int(i), a) for i, a in tasks.items()]
            else:
                raise TypeError(f"The tasks for job {job!r} must be a list or a dictionary from integers to strings.")
            job_tasks = {}
            for index, address in items:
                if isinstance(address, bytes):
                    address = address.decode()
                if not isinstance(address, str):
                    raise TypeError(f"Task address {address!r} must be bytes or unicode")
                job_tasks[index] = address
            self._spec[job] = dict(sorted(job_tasks.items()))

    def __bool__(self):
        return bool(self._spec)

    def __eq__(self, other):
        if isinstance(other, ClusterSpec):
            return self._spec == other._spec
        if isinstance(other, dict):
            try:
                return self._spec == ClusterSpec(other)._spec
            except (TypeError, ValueError):
                return False
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(tuple((job, tuple(tasks.items())) for job, tasks in sorted(self._spec.items())))

    def __str__(self):
        return f"ClusterSpec({dict(sorted(self.as_dict().items()))!r})"

    __repr__ = __str__

    def as_dict(self):
        """{job: [addresses]} where a job's task indices are 0..n-1, else {job: {index: address}}."""
        out = {}
        for job, tasks in self._spec.items():
            if list(tasks) == list(range(len(tasks))):
                out[job] = list(tasks.values())
            else:
                out[job] = dict(tasks)
        return out

    @property
    def jobs(self):
        """The job names, in the order the spec gave them."""
        return list(self._spec)

    def _job(self, job_name):
        try:
            return self._spec[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name):
        """The number of tasks of `job_name` (ValueError for a job not in the cluster)."""
        return len(self._job(job_name))

    def task_indices(self, job_name):
        """The sorted task indices of `job_name`."""
        return list(self._job(job_name))

    def task_address(self, job_name, task_index):
        """The `host:port` of task `task_index` of `job_name` (ValueError when there is none)."""
        tasks = self._job(job_name)
        try:
            return tasks[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def job_tasks(self, job_name):
        """The addresses of `job_name`'s tasks by index, None where an index has no task."""
        tasks = self._job(job_name)
        if not tasks:
            return []
        out = [None] * (max(tasks) + 1)
        for i, address in tasks.items():
            out[i] = address
        return out

    def tasks(self):
        """Every (job, task index, address) of the cluster."""
        return [(job, i, a) for job, tasks in self._spec.items() for i, a in tasks.items()]

    def as_cluster_def(self):
        """The cluster as a `tw.train.ClusterDef` protocol buffer (TF's, byte for byte): its jobs sorted by
        name, each job's tasks by index."""
        from tensorweave._src.framework import cluster_pb2  # protobuf loads on first use

        cluster_def = cluster_pb2.ClusterDef()
        for job, tasks in sorted(self._spec.items()):
            job_def = cluster_def.job.add()
            job_def.name = job
            for index, address in sorted(tasks.items()):
                job_def.tasks[index] = address
        return cluster_def


def _is_cluster_def(value):
    """Whether `value` is a ClusterDef message (tensorweave's or TensorFlow's; no protobuf import here)."""
    descriptor = getattr(value, "DESCRIPTOR", None)
    return descriptor is not None and getattr(descriptor, "name", None) == "ClusterDef"


def parse_address(address):
    """(host, port) of a `host:port` (IPv6 hosts in brackets); ValueError naming the address when it is not."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(f"Task address {address!r} is not host:port")
    return host, int(port)


class TaskConfig:
    """What `TW_CONFIG` says about the task that reads it: `cluster` (a ClusterSpec), `task_type`, `task_id`,
    and `security` (a dict, possibly empty: `secret`, `secret_file`, `tls_cert`, `tls_key`, `tls_ca`,
    `tls_client_auth`)."""

    def __init__(self, cluster, task_type, task_id, security=None, raw=None):
        self.cluster = cluster
        self.task_type = task_type
        self.task_id = task_id
        self.security = dict(security or {})
        self.raw = raw or {}

    @property
    def address(self):
        return self.cluster.task_address(self.task_type, self.task_id)

    @property
    def master(self):
        """The session target of this task's own server."""
        return f"grpc://{self.address}"

    @property
    def is_chief(self):
        """TF's convention: the `chief` task, else worker 0 when there is no chief job."""
        if "chief" in self.cluster.jobs:
            return self.task_type == "chief"
        return self.task_type == "worker" and self.task_id == 0

    def __repr__(self):
        return f"TaskConfig({self.task_type}:{self.task_id}, {self.cluster})"


def cluster_resolver(environ=None):
    """The cluster and role of this task from the `TW_CONFIG` environment variable, a JSON object shaped as
    TensorFlow's `TF_CONFIG`: {"cluster": {job: [host:port, ...]}, "task": {"type": "worker", "index": 0}},
    with an optional "security" object. None when TW_CONFIG is unset or empty; ValueError naming what is
    wrong when it is malformed.

    Example:
      >>> import json, os
      >>> from tensorweave.distributed import cluster_resolver
      >>> env = {"TW_CONFIG": json.dumps({"cluster": {"ps": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223"]},
      ...                                 "task": {"type": "worker", "index": 0}})}
      >>> c = cluster_resolver(env)
      >>> c.task_type, c.task_id, c.address, c.is_chief
      ('worker', 0, '127.0.0.1:2223', True)
    """
    environ = os.environ if environ is None else environ
    text = environ.get("TW_CONFIG", "")
    if not text.strip():
        return None
    try:
        config = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"TW_CONFIG is not valid JSON: {e}") from None
    if not isinstance(config, dict):
        raise ValueError(f"TW_CONFIG must be a JSON object, got {type(config).__name__}")  # noqa: TRY004
    if "cluster" not in config:
        raise ValueError("TW_CONFIG has no 'cluster'")
    try:
        cluster = ClusterSpec(config["cluster"])
    except (TypeError, ValueError) as e:
        raise ValueError(f"TW_CONFIG's cluster is malformed: {e}") from None
    task = config.get("task") or {}
    if not isinstance(task, dict):
        raise ValueError("TW_CONFIG's 'task' must be an object with 'type' and 'index'")  # noqa: TRY004
    task_type = task.get("type")
    try:
        task_id = int(task.get("index", 0))
    except (TypeError, ValueError):
        raise ValueError(f"TW_CONFIG's task index {task.get('index')!r} is not an integer") from None
    if task_type is not None:
        if task_type not in cluster.jobs:
            raise ValueError(f"TW_CONFIG's task type {task_type!r} is not a job of its cluster {cluster.jobs}")
        if task_id not in cluster.task_indices(task_type):
            raise ValueError(f"TW_CONFIG's task {task_type}:{task_id} is not in its cluster {cluster}")
    security = config.get("security") or {}
    if not isinstance(security, dict):
        raise ValueError("TW_CONFIG's 'security' must be an object")  # noqa: TRY004
    return TaskConfig(cluster, task_type, task_id, security, config)
