#!/usr/bin/env bash
# model-v3: gpuauto/suite.sh, the GPU check of gpuauto through PETSc (ex14/ex45 beside aijcusparse and evchyb, then the
# GPU suite test/run.sh for gpuauto on 1 and 2 ranks) with model version 3.
#   run(command="bash bench/experiments/model-v3/suite.sh", carry=["bundle"], kind="nvidia-h200")
exec bash "$(dirname "$0")/../gpuauto/suite.sh" "$@"
