#!/bin/bash
# Time to solution with a partition, as a user runs it: GMRES on a convection-diffusion stencil
# (85% of the nonzeros) beside a block FEM matrix, with Jacobi and with PETSc's default PC
# (ILU(0)), 5 solves each (-repeat 5) after one setup, -log_view. Three matrix types: gpuauto with
# its defaults (the committed model of this GPU builds the DIA + EVC-HYB partition), gpuauto with
# -mat_gpuauto_partition off (its one layout), and aijcusparse. Logs to $OUT; a table on stdout
# (bench/experiments/partitions/logview_table.py).
set -u
F="-f joined:first=convdiff3d,second=blockfem,share=0.85,nnz=${NNZ:-40M} -ksp_type gmres -ksp_max_it ${ITS:-200} -ksp_rtol 1e-12 -repeat 5 -log_view"
G="-dll_append lib/libgpuformats.so -mat_type gpuauto"
for pc in jacobi ilu; do
  bin/test/ksp_matrix $F -pc_type $pc $G -mat_view ::ascii_info >$OUT/lv-$pc-partition.log 2>&1; echo "$pc partition rc=$?"
  bin/test/ksp_matrix $F -pc_type $pc $G -mat_gpuauto_partition off >$OUT/lv-$pc-one-layout.log 2>&1; echo "$pc one layout rc=$?"
  bin/test/ksp_matrix $F -pc_type $pc -mat_type aijcusparse >$OUT/lv-$pc-aijcusparse.log 2>&1; echo "$pc aijcusparse rc=$?"
done
python3 bench/experiments/partitions/logview_table.py $OUT/lv-*.log
(cd $OUT && tar -cJf logview-logs.tar.xz lv-*.log && rm -f lv-*.log)
