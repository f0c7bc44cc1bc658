#!/bin/bash
# A tensorweave cluster under Slurm (not run by the tests; the local launcher is what they use):
# one parameter server and the rest workers, one task per Slurm task, each started with TW_CONFIG naming
# the whole cluster (from the allocation's host list) and its own role (from SLURM_PROCID).
#
#   sbatch examples/distributed/slurm.sh
#
#SBATCH --job-name=tensorweave
#SBATCH --nodes=3
#SBATCH --ntasks-per-node=1
#SBATCH --time=01:00:00
set -euo pipefail
PORT=${TW_PORT:-2222}
NUM_PS=${TW_NUM_PS:-1}
# A secret shared by the tasks of this job only (every RPC must carry it).
export TW_SECRET=${TW_SECRET:-$(openssl rand -hex 32)}
HOSTS=($(scontrol show hostnames "$SLURM_JOB_NODELIST"))

# {"ps": ["h0:2222"], "worker": ["h1:2222", "h2:2222"]}
CLUSTER=$(python3 - "$NUM_PS" "$PORT" "${HOSTS[@]}" <<'PY'
import json, sys
num_ps, port, hosts = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
print(json.dumps({"ps": [f"{h}:{port}" for h in hosts[:num_ps]], "worker": [f"{h}:{port}" for h in hosts[num_ps:]]}))
PY
)
export CLUSTER NUM_PS

# Each Slurm task derives its role from its rank: ranks 0..NUM_PS-1 are parameter servers.
srun --kill-on-bad-exit=1 bash -c '
  if [ "$SLURM_PROCID" -lt "$NUM_PS" ]; then TYPE=ps; INDEX=$SLURM_PROCID;
  else TYPE=worker; INDEX=$((SLURM_PROCID - NUM_PS)); fi
  export TW_CONFIG="{\"cluster\": $CLUSTER, \"task\": {\"type\": \"$TYPE\", \"index\": $INDEX}}"
  exec python3 examples/distributed/train_digits_async.py --steps 2000 > "tw-$TYPE-$INDEX.log" 2>&1
'
