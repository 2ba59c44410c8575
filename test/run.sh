#!/usr/bin/env bash
# The test suite (make test). Three levels, one harness:
#   unit   host tests of src/core and every format's host builder + reference (bin/test/test_*)
#   petsc  the plugin inside PETSc: every type vs AIJ on 1, 2, 3 ranks (test_matmult), and PETSc's
#          own tutorials, unmodified, loading the plugin with -dll_append (SNES ex14, KSP ex2 and
#          ex45's solver paths, and the conformance suite of test/conformance/tutorials.txt)
#   gpu    test/gpu: device builders and kernels vs the host references, and the PETSc runs on
#          CUDA vectors; only where a CUDA device is present
# Prints "ok"/"not ok" per check and ends with "N passed, M failed".
# Environment: GPUFORMATS_TEST_RANKS (default "1 2 3"), GPUFORMATS_TEST_TYPES (default: all).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
LIB=$ROOT/lib/libgpuformats.so
OUTDIR=${GPUFORMATS_TEST_OUT:-$ROOT/build/test-output}
mkdir -p "$OUTDIR"
RANKS=${GPUFORMATS_TEST_RANKS:-"1 2 3"}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIEXEC=${MPIEXEC:-mpiexec}

has_gpu=0
if [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; then
  command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && has_gpu=1
fi
if [ $has_gpu = 0 ]; then
  # libpetsc links the CUDA driver: resolve it to the toolkit's link stub (CI only, never on a GPU).
  cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")")
  mkdir -p "$ROOT/build/stubs"
  ln -sf "$cuda/lib64/stubs/libcuda.so" "$ROOT/build/stubs/libcuda.so.1"
  export LD_LIBRARY_PATH=$ROOT/build/stubs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
else
  # The GPU machines' MPI is not GPU-aware.
  export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
fi

passed=0; failed=0; skipped=0 # a check printed "ok <name> # SKIP <why>" counts as skipped, not passed
pass() { echo "ok $1"; passed=$((passed + 1)); }
skip() { echo "ok $1 # SKIP $2"; skipped=$((skipped + 1)); }
fail() { echo "not ok $1${2:+: $2}"; failed=$((failed + 1)); }

# A test program: each of its "ok"/"not ok" lines counts; a crash counts as one failure.
run_checks() {
  local name=$1; shift
  local log=$OUTDIR/$name.log
  "$@" >"$log" 2>&1; local rc=$?
  local p f k
  k=$(grep -c '^ok .* # SKIP' "$log"); p=$(( $(grep -c '^ok ' "$log") - k )); f=$(grep -c '^not ok ' "$log")
  grep '^not ok ' "$log" | head -20
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + k))
  if [ $rc != 0 ] && [ "$f" = 0 ]; then fail "$name" "exit $rc (log $log)"; tail -15 "$log"
  elif [ $((p + f + k)) = 0 ]; then fail "$name" "ran no checks (log $log)"; tail -5 "$log"; fi
  echo "# $name: $p passed, $f failed$([ "$k" != 0 ] && echo ", $k skipped")"
}

# one line, space-separated (list_types prints one a line): the " $TYPES " == *" t "* tests need it
TYPES=$(echo ${GPUFORMATS_TEST_TYPES:-$(bin/test/list_types 2>/dev/null)})

# Sections: GPUFORMATS_TEST_SECTIONS="unit petsc ..." runs only those (default: all of them, in this
# order: unit petsc tutorials conformance python bench gpu gpu-sanitizers gpu-gamg gpu-mpi gpu-halo
# gpu-halo-gpus gpu-solvers gpu-trisolve; the gpu ones where a GPU is). Each ends with its own summary line,
# "# section <name>: N passed, M failed", so a run cut short still reports the sections it finished.
SECTIONS=${GPUFORMATS_TEST_SECTIONS:-all}
sec_name=""; sec_p=0; sec_f=0; sec_k=0
section_end() {
  [ -n "$sec_name" ] && echo "# section $sec_name: $((passed - sec_p)) passed, $((failed - sec_f)) failed$([ $((skipped - sec_k)) != 0 ] && echo ", $((skipped - sec_k)) skipped")"
  sec_name=""
}
section() { # name: true where the section is to run (and starts its count)
  section_end
  [ "$SECTIONS" = all ] || [[ " $SECTIONS " == *" $1 "* ]] || return 1
  sec_name=$1; sec_p=$passed; sec_f=$failed; sec_k=$skipped
  echo "# section $1"
}
gpu_section() { # name: a section of the GPU suite, run only on a GPU
  [ $has_gpu = 1 ] && section "$1"
}

# --- helpers the sections share ---
# "VecCUDACopyTo VecCUDACopyFrom" counts of a -log_view on stdin (nothing when no KSPSolve ran).
log_copies() { awk '$1 == "KSPSolve" {ok = 1} $1 == "VecCUDACopyTo" {to = $2} $1 == "VecCUDACopyFrom" {from = $2} END {if (ok) print to + 0, from + 0}'; }
# Passes when our "to from" copy counts exceed the reference's by at most `slack` each way.
check_copies() { # name ours ref slack
  local name=$1 ours=$2 ref=$3 slack=$4
  [ -n "$ours" ] && [ -n "$ref" ] && [ "${ours% *}" -le "$(( ${ref% *} + slack ))" ] && [ "${ours#* }" -le "$(( ${ref#* } + slack ))" ] &&
    pass "$name # to/from: $ours vs aijcusparse $ref" || fail "$name" "to/from '$ours' vs aijcusparse '$ref'"
}

# Runs a tutorial with one type and with the reference type; the solver histories must agree.
# CMP_DM=1: the DM's matrices too (-dm_mat_type; ours by the name PETSc's DMs take as AIJ, aij<fmt>,
# so that DMDA's interpolation is of our type too).
compare_solver() { # name np ref_type type vec_opts -- tutorial args
  local name=$1 np=$2 ref=$3 type=$4 vecopt=$5; shift 5
  local a=$OUTDIR/$name.ours.log b=$OUTDIR/$name.ref.log
  $MPIEXEC -n "$np" "$@" -dll_append "$LIB" -mat_type "$type" ${CMP_DM:+-dm_mat_type "aij$type"} $vecopt </dev/null >"$a" 2>&1 || { fail "$name" "$type run failed"; tail -15 "$a"; return; }
  $MPIEXEC -n "$np" "$@" -mat_type "$ref" ${CMP_DM:+-dm_mat_type "$ref"} $vecopt </dev/null >"$b" 2>&1 || { fail "$name" "$ref run failed"; tail -15 "$b"; return; }
  local msg; msg=$(python3 test/petsc/compare_runs.py "$a" "$b") && pass "$name # $msg" || fail "$name" "$msg"
}
# The scalar layout's name in -mat_view ::ascii_info: the format's, or for gpuauto the one it chose.
scalar_name() { [ "$1" = gpuauto ] && echo "[a-z_]* (chosen by gpuauto)" || echo "$1"; }
EX14="bin/petsc/snes_ex14 -da_grid_x 10 -da_grid_y 10 -da_grid_z 10 -snes_monitor -ksp_converged_reason"
EX2="bin/petsc/ksp_ex2 -m 40 -n 37 -ksp_monitor -ksp_converged_reason"
EX19="bin/petsc/snes_ex19 -da_grid_x 12 -da_grid_y 10 -snes_monitor -ksp_converged_reason"

factor_package() { # type pc [args]: the "package used to perform factorization" of ex2
  local t=$1 pc=$2; shift 2
  bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append "$LIB" -mat_type "$t" -pc_type "$pc" -ksp_view "$@" 2>&1 | awk '/package used to perform factorization:/ {print $NF; exit}'
}

sub_solver() { # type pc [args]: "<sub-matrix type> <factor package>" of ex2 on 2 ranks
  local t=$1 pc=$2; shift 2
  $MPIEXEC -n 2 bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append "$LIB" -mat_type "$t" -pc_type "$pc" -ksp_view "$@" 2>&1 |
    awk '/package used to perform factorization:/ && !p {p = $NF} /linear system matrix/ {w = 1} w && /type:/ && !m {m = $NF} END {print m, p}'
}

vec_copies() { # type [args]: "VecCUDACopyTo VecCUDACopyFrom" counts of a small ex2 solve
  local t=$1; shift
  ${MPIEXEC_NP:-} bin/petsc/ksp_ex2 -m 40 -n 37 -dll_append "$LIB" -mat_type "$t" -log_view "$@" 2>&1 | log_copies
}


if section unit; then
# --- the plugin exports its API and nothing else: every dynamic symbol is a name that
# include/gpuformats.h declares (PETSC_EXTERN), and every such name is exported ---
exported=$(nm -D --defined-only lib/libgpuformats.so | awk '{print $3}' | sort)
declared=$(grep -oE 'PETSC_EXTERN [^;]*' include/gpuformats.h | sed -E 's/\([^)]*\)//g; s/\[\]//g; s/^PETSC_EXTERN //' | tr ',' '\n' | awk '{print $NF}' | tr -d '*' | grep . | sort -u)
extra=$(comm -23 <(echo "$exported") <(echo "$declared") | tr '\n' ' ')
missing=$(comm -13 <(echo "$exported") <(echo "$declared") | tr '\n' ' ')
if [ -n "$exported" ] && [ -z "$extra" ] && [ -z "$missing" ]; then pass "plugin.exports_only_the_api # $(echo "$exported" | wc -l) symbols"
else fail plugin.exports_only_the_api "exported but not declared: ${extra:-none}; declared but not exported: ${missing:-none}"; fi

# --- unit ---
run_checks unit.core bin/test/test_core
run_checks unit.matgen bin/test/test_matgen
run_checks unit.formats bin/test/test_formats test/matrices
run_checks unit.pjds_window bin/test/test_pjds_window test/matrices
run_checks unit.entry_rows bin/test/test_entry_rows test/matrices
run_checks unit.pjds_build bin/test/test_pjds_build test/matrices
run_checks unit.pellr_build bin/test/test_pellr_build test/matrices
run_checks unit.evchyb_build bin/test/test_evchyb_build test/matrices
run_checks unit.suraa_build bin/test/test_suraa_build test/matrices
run_checks unit.transpose_build bin/test/test_transpose_build test/matrices
run_checks unit.evchyb_kernel bin/test/test_evchyb_kernel test/matrices
run_checks unit.suraa_g3 bin/test/test_suraa_g3 test/matrices
run_checks unit.select bin/test/test_select
run_checks unit.layout bin/test/test_layout
run_checks unit.model bin/test/test_model
run_checks unit.auto bin/test/test_auto test/matrices
run_checks unit.model_features bin/test/test_model_features test/matrices
run_checks unit.trisolve bin/test/test_trisolve test/matrices
run_checks unit.bell bin/test/test_bell test/matrices
run_checks unit.bell_build bin/test/test_bell_build test/matrices
run_checks unit.bell_variants bin/test/test_bell_variants
run_checks unit.dia_build bin/test/test_dia_build test/matrices

fi # section unit

if section petsc; then
# --- petsc: every type against AIJ, on 1..3 ranks ---
for np in $RANKS; do
  quick=""; [ "$np" != 1 ] && quick="-quick"
  run_checks "petsc.matmult.np$np" $MPIEXEC -n "$np" bin/test/test_matmult -dir test/matrices $quick
done

# --- matrix-matrix products of the seq types against AIJ's (host backend here: AIJ's own code,
# symbolic transposes included; the device path in the gpu section) ---
run_checks petsc.products bin/test/test_products -types "$(echo $TYPES | tr ' ' ',')"

# --- bin/test/ksp_matrix (the solve driver: GMRES + ILU(0) on one matrix) on a generated non-symmetric
# convection-diffusion matrix: evchyb through the plugin converges in the iterations of the reference
# (AIJ on the host; aijcusparse with CUDA vectors on a GPU, both factored by cuSPARSE there) ---
km_its() { # type [args]: "<reason> <its>" of ksp_matrix's line, or nothing
  bin/test/ksp_matrix -f convdiff3d:n=12,pe=10 -mat_type "$@" 2>"$OUTDIR/ksp_matrix.$1.err" | tee "$OUTDIR/ksp_matrix.$1.log" |
    awk '$1 == "ksp_matrix:" {for (i = 2; i < NF; ++i) {if ($i == "its") its = $(i + 1); if ($i == "reason") r = $(i + 1)}; print r, its}'
}
if [ $has_gpu = 1 ]; then km_ref=$(km_its aijcusparse -vec_type cuda); km_ours=$(km_its evchyb -dll_append "$LIB" -vec_type cuda)
else km_ref=$(km_its aij); km_ours=$(km_its evchyb -dll_append "$LIB"); fi
[ -n "$km_ours" ] && [ "${km_ours% *}" = CONVERGED_RTOL ] && [ "$km_ours" = "$km_ref" ] && pass "petsc.ksp_matrix.convdiff3d.evchyb_its # $km_ours" ||
  { fail petsc.ksp_matrix.convdiff3d.evchyb_its "evchyb '$km_ours' vs reference '$km_ref'"; tail -n 3 "$OUTDIR"/ksp_matrix.*.err; }
# Dirichlet rows before each of two solves (MatZeroRowsColumns; MatZeroRows keeping the pattern):
# on the layout for evchyb, in the iterations of the reference
for dv in cols rows; do
  da="-dirichlet 5 -repeat 2"; [ $dv = rows ] && da="$da -dirichlet_rows"
  if [ $has_gpu = 1 ]; then km_ref=$(km_its aijcusparse -vec_type cuda $da); km_ours=$(km_its evchyb -dll_append "$LIB" -vec_type cuda $da)
  else km_ref=$(km_its aij $da); km_ours=$(km_its evchyb -dll_append "$LIB" $da); fi
  [ -n "$km_ours" ] && [ "${km_ours% *}" = CONVERGED_RTOL ] && [ "$km_ours" = "$km_ref" ] && pass "petsc.ksp_matrix.convdiff3d.dirichlet_$dv.evchyb_its # $km_ours" ||
    { fail petsc.ksp_matrix.convdiff3d.dirichlet_$dv.evchyb_its "evchyb '$km_ours' vs reference '$km_ref'"; tail -n 3 "$OUTDIR"/ksp_matrix.*.err; }
done

# --- halo exchange (src/halo/): our own pattern over MPI on host memory (independent patterns),
# then every type against AIJ with the products' exchange on that path ---
for np in $RANKS; do
  run_checks "unit.halo.np$np" $MPIEXEC -n "$np" bin/test/test_halo
  [ "$np" != 1 ] && run_checks "petsc.matmult_halo_mpi.np$np" $MPIEXEC -n "$np" bin/test/test_matmult -dir test/matrices -quick -halo mpi
done
if [[ " $RANKS " == *" 2 "* ]]; then
  h2="bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append $LIB -mat_type evchyb"
  # -help lists the option; ascii_info says which exchange runs and why
  $MPIEXEC -n 2 $h2 -help 2>&1 | grep -q -- "-mat_gpuformats_halo: <now auto" && pass petsc.halo_help || fail petsc.halo_help
  out=$($MPIEXEC -n 2 $h2 -mat_gpuformats_halo mpi -ksp_view_mat ::ascii_info 2>&1)
  echo "$out" | grep -q "^ *\[1\] gpuformats halo: mpi (asked for" && echo "$out" | grep -q "gpuformats halo: per product [0-9]* values sent to 1 ranks" && pass petsc.halo_view_mpi || { fail petsc.halo_view_mpi; echo "$out" | grep -i halo | head -5; }
  # the host's part of a product: 2 ranks on the host backend post a receive and a send and wait once
  echo "$out" | grep -q "^ *\[0\] gpuformats halo: the last product's exchange made 3 calls (CUDA, driver, NCCL, MPI) and 1 host waits" && pass petsc.halo_view_calls || { fail petsc.halo_view_calls; echo "$out" | grep -i "host waits" | head -3; }
  # NCCL asked for where it cannot serve (host backend here, or no GPU per rank) is a clear error
  # on every rank, not a hang
  if [ $has_gpu = 0 ]; then
    out=$(timeout 120 $MPIEXEC -n 2 $h2 -mat_gpuformats_halo nccl 2>&1); rc=$?
    [ $rc != 0 ] && [ $rc != 124 ] && echo "$out" | grep -q "mat_gpuformats_halo nccl cannot run: a rank runs on the host backend" && pass petsc.halo_nccl_refused || { fail petsc.halo_nccl_refused "rc=$rc"; echo "$out" | tail -5; }
    out=$(timeout 120 $MPIEXEC -n 2 $h2 -mat_gpuformats_halo ipc 2>&1); rc=$?
    [ $rc != 0 ] && [ $rc != 124 ] && echo "$out" | grep -q "mat_gpuformats_halo ipc cannot run: a rank runs on the host backend" && pass petsc.halo_ipc_refused || { fail petsc.halo_ipc_refused "rc=$rc"; echo "$out" | tail -5; }
  fi
  # the ranks-per-node option: listed, and a negative count refused
  $MPIEXEC -n 2 $h2 -help 2>&1 | grep -q -- "-mat_gpuformats_halo_node_ranks: <now 0" && pass petsc.halo_node_ranks_help || fail petsc.halo_node_ranks_help
  out=$(timeout 120 $MPIEXEC -n 2 $h2 -mat_gpuformats_halo_node_ranks -1 2>&1); rc=$?
  [ $rc != 0 ] && [ $rc != 124 ] && echo "$out" | grep -q "halo_node_ranks -1 is negative" && pass petsc.halo_node_ranks_negative || { fail petsc.halo_node_ranks_negative "rc=$rc"; echo "$out" | tail -3; }
fi

fi # section petsc

if section tutorials; then
# --- petsc: the plugin inside PETSc's own tutorials, unmodified ---
help=$(bin/petsc/snes_ex14 -dll_append "$LIB" -help 2>&1)
# the plugin loaded: its types among those -help lists (never there without it)
[ -n "$TYPES" ] && echo "$help" | grep -qE " seqaij($(echo $TYPES | tr ' ' '|')) " && pass petsc.ex14_help_runs || fail petsc.ex14_help_runs "none of the types '$TYPES' in -help: the plugin did not load"
for t in $TYPES; do
  echo "$help" | grep -q "seqaij$t" && echo "$help" | grep -q "mpiaij$t" && pass "petsc.ex14_help_lists.$t" || fail "petsc.ex14_help_lists.$t"
done

for t in $TYPES; do
  for np in $RANKS; do
    compare_solver "petsc.ex14.$t.np$np" "$np" aij "$t" "" $EX14
    compare_solver "petsc.ex2.$t.np$np" "$np" aij "$t" "" $EX2
    # ex19's DMDA has 4 dof, every block dense: both blocks in the block layout (BELL), AIJ's history
    CMP_DM=1 compare_solver "petsc.block.ex19.$t.np$np" "$np" aij "$t" "" $EX19
  done
  # Block or scalar layout (select/block_layout.hpp), and why, in -mat_view ::ascii_info
  out=$(bin/petsc/snes_ex19 -da_grid_x 8 -da_grid_y 8 -dll_append "$LIB" -dm_mat_type "aij$t" -snes_max_it 1 -mat_view ::ascii_info 2>&1)
  echo "$out" | grep -q "gpuformats: block layout (BELL): block-dense with block size 4" && echo "$out" | grep -q "gpuformats: bell (block layout, bs 4) on" && pass "petsc.block.view.$t" || { fail "petsc.block.view.$t"; echo "$out" | tail -5; }
  out=$(bin/petsc/snes_ex19 -da_grid_x 8 -da_grid_y 8 -dll_append "$LIB" -dm_mat_type "aij$t" -snes_max_it 1 -mat_view ::ascii_info -mat_gpuformats_block scalar 2>&1)
  echo "$out" | grep -q "gpuformats: scalar layout, as -mat_gpuformats_block scalar asks" && echo "$out" | grep -q "gpuformats: $(scalar_name $t) on" && pass "petsc.block.scalar_forced.$t" || { fail "petsc.block.scalar_forced.$t"; echo "$out" | tail -5; }
  if [[ " $RANKS " == *" 2 "* ]]; then # the local and off-process blocks of every rank (on a GPU, products on host vectors run AIJ's: CUDA vectors)
    # (-info to a file per rank: two ranks' lines on one stream can interleave)
    rm -f "$OUTDIR/ex19-blocks-info".*
    $MPIEXEC -n 2 bin/petsc/snes_ex19 -da_grid_x 12 -da_grid_y 10 -dll_append "$LIB" -dm_mat_type "aij$t" $([ $has_gpu = 1 ] && echo -dm_vec_type cuda) -snes_max_it 1 -info "$OUTDIR/ex19-blocks-info" >/dev/null 2>&1
    n=$(cat "$OUTDIR/ex19-blocks-info".* 2>/dev/null | grep -c "gpuformats: bell (block layout, bs 4) build of 240 x")
    [ "$n" -ge 4 ] && pass "petsc.block.mpi_both_blocks.$t # $n builds" || fail "petsc.block.mpi_both_blocks.$t" "$n block builds, 4 expected"
  fi
  # a block size on a pattern that is not block-dense (ex2's 5-point stencil, -mat_block_size 2): scalar, saying where; forced: a clear error
  out=$(bin/petsc/ksp_ex2 -m 20 -n 20 -mat_block_size 2 -dll_append "$LIB" -mat_type "$t" -mat_view ::ascii_info 2>&1)
  echo "$out" | grep -q "gpuformats: scalar layout: block size 2 but not block-dense (row 0 has 3 entries, not a multiple of 2)" && pass "petsc.block.not_dense_scalar.$t" || { fail "petsc.block.not_dense_scalar.$t"; echo "$out" | tail -5; }
  out=$(bin/petsc/ksp_ex2 -m 20 -n 20 -mat_block_size 2 -dll_append "$LIB" -mat_type "$t" -mat_gpuformats_block block 2>&1); rc=$?
  [ $rc != 0 ] && echo "$out" | grep -q "mat_gpuformats_block block: the matrix is not block-dense with block size 2" && pass "petsc.block.forced_not_dense_error.$t" || { fail "petsc.block.forced_not_dense_error.$t" "rc=$rc"; echo "$out" | tail -5; }
  # equal row lengths in every block row, blocks not dense: the block build refuses it, auto builds the scalar layout, block is an error
  RR="bin/test/ksp_matrix -f randrows:n=400,minlen=4,maxlen=4,blocksize=2 -pc_type none -ksp_max_it 5 -dll_append $LIB -mat_type $t"
  out=$($RR -mat_view ::ascii_info 2>&1)
  echo "$out" | grep -q "gpuformats: scalar layout: block size 2 but the block layout refused it (bell: not block-dense" && echo "$out" | grep -q "gpuformats: $(scalar_name $t) on" && pass "petsc.block.refused_scalar.$t" || { fail "petsc.block.refused_scalar.$t"; echo "$out" | tail -5; }
  out=$($RR -mat_gpuformats_block block 2>&1); rc=$?
  [ $rc != 0 ] && echo "$out" | grep -q "gpuformats: -mat_gpuformats_block block: bell: not block-dense with block size 2" && pass "petsc.block.refused_forced_error.$t" || { fail "petsc.block.refused_forced_error.$t" "rc=$rc"; echo "$out" | tail -5; }
  # Layout statistics in -mat_view ::ascii_info
  out=$(bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append "$LIB" -mat_type "$t" -mat_view ::ascii_info 2>&1)
  echo "$out" | grep -q "stored slots" && pass "petsc.view_info.$t" || { fail "petsc.view_info.$t"; echo "$out" | tail -5; }
  # ... from every rank, both blocks
  if [[ " $RANKS " == *" 2 "* ]]; then
    out2=$($MPIEXEC -n 2 bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append "$LIB" -mat_type "$t" -mat_view ::ascii_info 2>&1)
    echo "$out2" | grep -q "^ *\[1\] gpuformats off-process block: .*stored slots" && pass "petsc.view_info_all_ranks.$t" || { fail "petsc.view_info_all_ranks.$t"; echo "$out2" | tail -5; }
  fi
  # Compressed rows: an mpi matrix's off-process block (most of its rows empty) only, never a local
  # block or a seq matrix, though more than half of this graph's rows are empty (PELLR refuses the
  # graph: its padding)
  if [ "$t" != pellr ]; then
    CR="bin/test/ksp_matrix -f rmat:scale=14,ef=4 -pc_type none -ksp_max_it 2 -dll_append $LIB -mat_type $t -mat_view ::ascii_info"
    out3=$($CR 2>&1)
    echo "$out3" | grep -q "stored slots" && ! echo "$out3" | grep -q "compressed rows" && pass "petsc.compressed_rows.not_seq.$t" || { fail "petsc.compressed_rows.not_seq.$t"; echo "$out3" | grep -m3 "compressed rows\|rror"; }
    if [[ " $RANKS " == *" 2 "* ]]; then
      out3=$($MPIEXEC -n 2 $CR 2>&1)
      echo "$out3" | grep -q "^ *\[0\] gpuformats off-process block: .*compressed rows: [0-9]* of 8192 rows have entries" && ! echo "$out3" | grep -q "gpuformats local block: .*compressed rows" && pass "petsc.compressed_rows.offd_only.$t" || { fail "petsc.compressed_rows.offd_only.$t"; echo "$out3" | grep -m3 "compressed rows\|rror"; }
    fi
  fi
  # ... and the upload / device times of the last build and refresh (CUDA events; none on the host backend)
  echo "$out" | grep -q "last build.*\(ms upload\|not measured (host backend)\)" && pass "petsc.view_times.$t" || { fail "petsc.view_times.$t"; echo "$out" | tail -5; }
  # The products really ran in the format (not PETSc's AIJ fallback)
  n=$(bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append "$LIB" -mat_type "$t" $([ $has_gpu = 1 ] && echo -vec_type cuda) -log_view 2>&1 | awk '$1 == "GFSpMV" {print $2}')
  [ "${n:-0}" -gt 0 ] && pass "petsc.products_in_format.$t # $n GFSpMV" || fail "petsc.products_in_format.$t" "no GFSpMV events"
  # -help shows the format's options
  bin/petsc/ksp_ex2 -m 4 -n 4 -dll_append "$LIB" -mat_type "$t" -help 2>&1 | grep -q -- "-mat_${t}_" && pass "petsc.help_options.$t" || fail "petsc.help_options.$t"
  # An out-of-range option is a clear PETSc error, not a crash
  out=$(bin/petsc/ksp_ex2 -m 4 -n 4 -dll_append "$LIB" -mat_type "$t" -mat_gpuformats_backend nonsense 2>&1); rc=$?
  [ $rc != 0 ] && echo "$out" | grep -q 'Unknown option "nonsense" for -mat_gpuformats_backend' && pass "petsc.bad_option_error.$t" || { fail "petsc.bad_option_error.$t" "rc=$rc"; echo "$out" | tail -5; }
done
# gpuauto: the model's choice (model/auto.hpp), read from -mat_view ::ascii_info. Without a GPU the
# committed H100 model is given (-mat_gpuauto_model) so the choice among the formats is exercised on
# the host backend; on a GPU the device's own model is found by name.
if [[ " $TYPES " == *" gpuauto "* ]]; then
  H100=share/gpuformats/models/nvidia-h100-80gb-hbm3.json
  MODEL=$([ $has_gpu = 0 ] && echo "-mat_gpuauto_model $H100")
  # the stencil layout off: ex2's Laplacian would take it before gpuauto's choice
  AUTO="bin/petsc/ksp_ex2 -dll_append $LIB -mat_type gpuauto -ksp_max_it 2 -mat_gpuformats_stencil off"
  out=$($AUTO -m 300 -n 300 $MODEL -mat_view ::ascii_info 2>&1)
  echo "$out" | grep -q "gpuformats: gpuauto: model .* (NVIDIA " && echo "$out" | grep -qE "gpuformats: gpuauto: predicted us per product: evchyb [0-9.]+, pjds [0-9.]+, pellr [0-9.]+, suraa [0-9.]+, cusparse_csr [0-9.]+$" &&
    echo "$out" | grep -q "gpuformats: gpuauto: features (.*): 1 strip(s) of [0-9]* rows; 90000 rows, 448800 nonzeros, longest row 5," && echo "$out" | grep -q "gpuformats: gpuauto: partition: one block" &&
    pass petsc.gpuauto.view || { fail petsc.gpuauto.view; echo "$out" | grep gpuauto | head; }
  chosen=$(echo "$out" | sed -n 's/.*gpuformats: gpuauto: chose \([a-z_]*\) (predicted [0-9.]* us.*the choice took [0-9.]* ms$/\1/p' | head -1)
  # the least prediction is the layout built, and the one the products run in
  least=$(echo "$out" | sed -n 's/.*predicted us per product: //p' | head -1 | tr ',' '\n' | awk 'NF == 2 && (best == "" || $2 < t) {best = $1; t = $2} END {print best}')
  [ -n "$chosen" ] && [ "$chosen" = "$least" ] && echo "$out" | grep -q "gpuformats: $chosen (chosen by gpuauto) on" && pass "petsc.gpuauto.least_prediction_built # $chosen" || fail petsc.gpuauto.least_prediction_built "chose '$chosen', least '$least'"
  # the candidates option: only those predicted and chosen from
  out=$($AUTO -m 300 -n 300 $MODEL -mat_gpuauto_candidates suraa,cusparse_csr -mat_view ::ascii_info 2>&1)
  echo "$out" | grep -qE "predicted us per product: suraa [0-9.]+, cusparse_csr [0-9.]+$" && echo "$out" | grep -qE "gpuformats: (suraa|cusparse_csr) \(chosen by gpuauto\) on" && pass petsc.gpuauto.candidates || { fail petsc.gpuauto.candidates; echo "$out" | grep gpuauto | head; }
  out=$($AUTO -m 30 -n 30 $MODEL -mat_gpuauto_candidates pjds,csr5 2>&1); rc=$?
  [ $rc != 0 ] && echo "$out" | grep -q 'gpuauto: -mat_gpuauto_candidates names "csr5", which the model' && pass petsc.gpuauto.unknown_candidate_error || { fail petsc.gpuauto.unknown_candidate_error "rc=$rc"; echo "$out" | tail -5; }
  # the strip size: more strips (the DP runs over them)
  out=$($AUTO -m 300 -n 300 $MODEL -mat_gpuauto_strip_rows 1000 -mat_view ::ascii_info 2>&1)
  echo "$out" | grep -q "features (.*): 90 strip(s) of 1000 rows" && echo "$out" | grep -q "gpuformats: gpuauto: partition: " && pass petsc.gpuauto.strip_rows || { fail petsc.gpuauto.strip_rows; echo "$out" | grep gpuauto | head; }
  # the DP's partition built (-mat_gpuauto_partition force): a model whose evchyb pays for a strip's
  # longest row and whose cuSPARSE CSR pays more per nonzero splits a stencil from long rows; the
  # solve gives AIJ's history; a bad mode is an error naming the modes
  python3 test/petsc/split_model.py "$H100" "$OUTDIR/split_model.json"
  SPLIT="-f joined:first=stencil3d7,second=longrows,share=0.5,nnz=60000 -mat_gpuauto_model $OUTDIR/split_model.json -mat_gpuauto_strip_rows 256 -ksp_monitor -ksp_max_it 40 -pc_type jacobi"
  out=$(bin/test/ksp_matrix $SPLIT -dll_append $LIB -mat_type gpuauto -mat_gpuauto_partition force -mat_view ::ascii_info 2>&1)
  echo "$out" | grep -q "gpuformats: partition of [0-9]* parts (chosen by gpuauto) on" && echo "$out" | grep -q "gpuauto: partition: the DP predicts .*; built" && echo "$out" | grep -q "part 1: rows" &&
    pass petsc.gpuauto.partition_built || { fail petsc.gpuauto.partition_built; echo "$out" | grep -i "partition\|part " | head; }
  out=$(bin/test/ksp_matrix $SPLIT -dll_append $LIB -mat_type gpuauto -mat_gpuauto_partition off -mat_view ::ascii_info 2>&1)
  echo "$out" | grep -q "not built (-mat_gpuauto_partition off); one format is built" && ! echo "$out" | grep -q "partition of [0-9]* parts" && pass petsc.gpuauto.partition_off || { fail petsc.gpuauto.partition_off; echo "$out" | grep -i partition | head; }
  compare_solver petsc.gpuauto.partition_solve 1 aij gpuauto "-mat_gpuauto_partition force" bin/test/ksp_matrix $SPLIT
  # by default (-mat_gpuauto_partition auto) the committed H100 model splits a convection-diffusion
  # stencil (85%) from a block FEM matrix, the stencil part in the stencil layout; GMRES with the
  # default PC (ILU(0), factored through the partition's slot map) and Dirichlet rows between two
  # solves gives AIJ's history
  STPART="-f joined:first=convdiff3d,second=blockfem,share=0.85,nnz=5M -mat_gpuauto_model $H100 -ksp_monitor -ksp_max_it 30 -repeat 2 -dirichlet 7"
  out=$(bin/test/ksp_matrix $STPART -dll_append $LIB -mat_type gpuauto -mat_view ::ascii_info 2>&1)
  echo "$out" | grep -q "gpuauto: partition: the DP predicts strips [0-9-]* dia, .*; built" && echo "$out" | grep -qE "part 0: rows 0-[0-9]* .*, dia, predicted" &&
    pass petsc.gpuauto.partition_auto_stencil_part || { fail petsc.gpuauto.partition_auto_stencil_part; echo "$out" | grep -i "partition\|part " | head; }
  compare_solver petsc.gpuauto.partition_auto_stencil_solve 1 aij gpuauto "" bin/test/ksp_matrix $STPART
  out=$($AUTO -m 30 -n 30 $MODEL -mat_gpuauto_partition sometimes 2>&1); rc=$?
  [ $rc != 0 ] && echo "$out" | grep -q "mat_gpuauto_partition takes auto, off or force" && pass petsc.gpuauto.partition_bad_mode || { fail petsc.gpuauto.partition_bad_mode "rc=$rc"; echo "$out" | tail -5; }
  # bad model files: an error naming the file and what is wrong, never a silent default
  echo '{"kind": "something else"}' >"$OUTDIR/bad_model.json"
  out=$($AUTO -m 30 -n 30 -mat_gpuauto_model "$OUTDIR/bad_model.json" 2>&1); rc=$?
  [ $rc != 0 ] && echo "$out" | grep -q "bad_model.json" && pass petsc.gpuauto.bad_model_error || { fail petsc.gpuauto.bad_model_error "rc=$rc"; echo "$out" | tail -5; }
  out=$($AUTO -m 30 -n 30 -mat_gpuauto_model "$OUTDIR/no_such_model.json" 2>&1); rc=$?
  [ $rc != 0 ] && echo "$out" | grep -q "no_such_model.json" && pass petsc.gpuauto.missing_model_error || { fail petsc.gpuauto.missing_model_error "rc=$rc"; echo "$out" | tail -5; }
  # no GPU and no model given: the default model (cuSPARSE CSR), and the view says why and how to choose
  if [ $has_gpu = 0 ]; then
    out=$($AUTO -m 30 -n 30 -mat_view ::ascii_info 2>&1)
    echo "$out" | grep -q "gpuauto: no CUDA device to pick a model for" && echo "$out" | grep -q "gpuformats: cusparse_csr (chosen by gpuauto) on host" && pass petsc.gpuauto.default_model || { fail petsc.gpuauto.default_model; echo "$out" | grep gpuauto | head; }
  fi
  # every option is shown by -help
  out=$($AUTO -m 4 -n 4 -help 2>&1)
  missing=$(for o in -mat_gpuauto_model -mat_gpuauto_candidates -mat_gpuauto_strip_rows -mat_gpuauto_partition -mat_gpuauto_partition_gain_pct; do echo "$out" | grep -q -- "$o" || echo "$o"; done)
  [ -z "$missing" ] && pass petsc.gpuauto.help || fail petsc.gpuauto.help "not in -help: $missing"
  # solves with the model's choice on 1..3 ranks (each rank's blocks chosen apart) give AIJ's history
  for np in $RANKS; do
    compare_solver "petsc.gpuauto.ex2_model.np$np" "$np" aij gpuauto "$MODEL" bin/petsc/ksp_ex2 -m 120 -n 110 -ksp_monitor -ksp_converged_reason -pc_type jacobi
    compare_solver "petsc.gpuauto.ex14_model.np$np" "$np" aij gpuauto "$MODEL" $EX14
  done
  if [[ " $RANKS " == *" 2 "* ]]; then
    out=$($MPIEXEC -n 2 $AUTO -m 300 -n 300 $MODEL -mat_view ::ascii_info 2>&1)
    n=$(echo "$out" | grep -c "gpuformats.*: gpuauto: chose ")
    [ "$n" = 4 ] && pass "petsc.gpuauto.mpi_blocks_chosen # $n" || { fail petsc.gpuauto.mpi_blocks_chosen "$n choices, 4 expected"; echo "$out" | grep gpuauto | head; }
  fi
fi
# Factorizations (PETSc's 1-rank default PC is ILU): every factor type gives AIJ's solver history.
# On the host backend PETSc's own factorization serves our types (as the seqaij they are) and the
# cusparse package declines with a clear error; on a GPU the default is cusparse (gpu section).
for t in $TYPES; do
  for pc in ilu icc lu cholesky; do
    compare_solver "petsc.factor.$pc.$t" 1 aij "$t" "" $EX2 -pc_type $pc
  done
  [ $has_gpu = 1 ] && continue
  p=$(factor_package "$t" ilu); [ "$p" = petsc ] && pass "petsc.factor_default_host.$t" || fail "petsc.factor_default_host.$t" "package '$p'"
  p=$(factor_package "$t" lu -pc_factor_mat_solver_type petsc); [ "$p" = petsc ] && pass "petsc.factor_explicit_petsc.$t" || fail "petsc.factor_explicit_petsc.$t" "package '$p'"
  out=$(bin/petsc/ksp_ex2 -m 4 -n 4 -dll_append "$LIB" -mat_type "$t" -pc_type ilu -pc_factor_mat_solver_type cusparse 2>&1); rc=$?
  [ $rc != 0 ] && echo "$out" | grep -q "solver type cusparse" && pass "petsc.factor_cusparse_host_error.$t" || { fail "petsc.factor_cusparse_host_error.$t" "rc=$rc"; echo "$out" | tail -5; }
done
# Several ranks: block Jacobi's and ASM's blocks are of our seq type (the local block of the MPI
# matrix, and ASM's sub-matrices, which take its type), with AIJ's solver history; their factor is
# PETSc's on the host backend and cusparse on a GPU (gpu section).
if [[ " $RANKS " == *" 2 "* ]]; then
  for t in $TYPES; do
    for pc in bjacobi asm; do
      compare_solver "petsc.$pc.$t.np2" 2 aij "$t" "" $EX2 -pc_type $pc
      [ $has_gpu = 1 ] && continue
      s=$(sub_solver "$t" $pc); [ "$s" = "seqaij$t petsc" ] && pass "petsc.$pc.sub_block.$t # $s" || fail "petsc.$pc.sub_block.$t" "sub-solver '$s'"
    done
  done
fi
# The solver-path matrix (bench/suites/solver_paths.txt): every KSP x PC pair on ksp ex45 (3D
# Laplacian on a DMDA, 17^3: MG's three levels) gives AIJ's solver history, on 1 and 2 ranks; the
# types take turns over the pairs. On a GPU the same pairs run against aijcusparse with CUDA vectors.
EX45="bin/petsc/ksp_ex45 -da_grid_x 17 -da_grid_y 17 -da_grid_z 17 -ksp_monitor -ksp_converged_reason -ksp_max_it 300"
type_list=($TYPES)
for np in 1 2; do
  [[ " $RANKS " == *" $np "* ]] || continue
  # GPU time: bench/solver_paths.sh times the 2-rank pairs (and, with GPUFORMATS_TEST_PATHS=0, all)
  [ $has_gpu = 1 ] && { [ $np != 1 ] || [ "${GPUFORMATS_TEST_PATHS:-1}" = 0 ]; } && continue
  i=0
  while read -r ksp pc opts; do
    t=${type_list[$((i % ${#type_list[@]}))]}; i=$((i + 1))
    # PELLR refuses matrices it would pad beyond -mat_pellr_max_fill (a collective PETSc error naming
    # the formats that fit), and MG's DMDA interpolation and GAMG's coarse operators are such matrices
    # (3.1x, 3.2x on 2 ranks): those pairs take the next type.
    case $pc in mg | gamg) [ "$t" = pellr ] && { t=${type_list[$((i % ${#type_list[@]}))]}; i=$((i + 1)); } ;; esac
    if [ $has_gpu = 1 ]; then
      CMP_DM=1 compare_solver "gpu.paths.$ksp.$pc.$t.np$np" "$np" aijcusparse "$t" "-vec_type cuda -dm_vec_type cuda -log_view" $EX45 -ksp_type $ksp -pc_type $pc $opts
      # no more host<->device copies than aijcusparse (+4), except where the PC is host-only for both
      grep -q "^hostpc:.* $pc\b" bench/suites/solver_paths.txt && continue
      check_copies "gpu.paths_copies.$ksp.$pc.$t" "$(log_copies <"$OUTDIR/gpu.paths.$ksp.$pc.$t.np$np.ours.log")" "$(log_copies <"$OUTDIR/gpu.paths.$ksp.$pc.$t.np$np.ref.log")" 4
    else
      CMP_DM=1 compare_solver "petsc.paths.$ksp.$pc.$t.np$np" "$np" aij "$t" "" $EX45 -ksp_type $ksp -pc_type $pc $opts
    fi
  done < <(bench/solver_paths_list.sh $np)
done
# GAMG on 2 ranks at 25^3: the coarse level's bjacobi block (an adopted local block that MPIAIJ
# assembled with inodes) is factored under a nested-dissection ordering, which reads its pattern
# through MatGetRowIJ (17^3 coarsens without that block)
[ $has_gpu = 0 ] && [[ " $RANKS " == *" 2 "* ]] && CMP_DM=1 compare_solver petsc.gamg_coarse_lu.np2 2 aij evchyb "" bin/petsc/ksp_ex45 -da_grid_x 25 -da_grid_y 25 -da_grid_z 25 -ksp_monitor -ksp_converged_reason -pc_type gamg
compare_solver "petsc.factor.ilu_levels2.np1" 1 aij "$(echo $TYPES | cut -d' ' -f1)" "" $EX14 -pc_type ilu -pc_factor_levels 2

if [ $has_gpu = 0 ] && [ -n "$TYPES" ]; then
  t=$(echo $TYPES | cut -d' ' -f1)
  out=$(bin/petsc/ksp_ex2 -m 4 -n 4 -dll_append "$LIB" -mat_type "$t" -mat_gpuformats_backend cuda 2>&1); rc=$?
  [ $rc != 0 ] && echo "$out" | grep -q "needs a CUDA device" && pass petsc.cuda_backend_without_gpu_error || { fail petsc.cuda_backend_without_gpu_error "rc=$rc"; echo "$out" | tail -5; }
fi

# Every viewer format of a parallel matrix prints what AIJ's prints (the type's name and our
# ascii_info lines aside), on every rank count (full ASCII views of mpi types once failed).
if [ -n "$TYPES" ]; then
  t=$(echo $TYPES | cut -d' ' -f1)
  strip() { grep -v "type: \|gpuformats" | sed -E 's/Mat_0x[0-9a-f]+/Mat_N/g'; } # MATLAB names carry the address
  for np in $RANKS; do
    for v in "" ::ascii_matlab ::ascii_dense ::ascii_common ::ascii_index ::ascii_csv ::ascii_matrixmarket ::ascii_info_detail; do
      a=$($MPIEXEC -n "$np" bin/petsc/ksp_ex2 -m 6 -n 5 -dll_append "$LIB" -mat_type "$t" -mat_view $v </dev/null 2>&1); ra=$?
      b=$($MPIEXEC -n "$np" bin/petsc/ksp_ex2 -m 6 -n 5 -mat_type aij -mat_view $v </dev/null 2>&1); rb=$?
      if [ $ra = 0 ] && [ $rb = 0 ] && [ "$(echo "$a" | strip)" = "$(echo "$b" | strip)" ]; then pass "petsc.view.np$np.${v:-default}"
      else fail "petsc.view.np$np.${v:-default}" "exit $ra/$rb or output differs from aij"; diff <(echo "$a" | strip) <(echo "$b" | strip) | head -5; fi
    done
  done
fi

# Mat ex18: a finite element matrix assembled with MatSetValues, then three times with
# MatSetPreallocationCOO / MatSetValuesCOO (host values; its device-array fill is aijcusparse's
# only), MatZeroEntries between, each viewed: every type prints what AIJ prints, and PETSc's output
# (whose fourth view, aijcusparse's device fill, AIJ and ours leave zero)
for t in $TYPES; do
  a=$(bin/petsc/mat_ex18 -dll_append "$LIB" -mat_type "$t" $([ $has_gpu = 1 ] && echo -vec_type cuda) -options_left 0 </dev/null 2>&1); ra=$?
  b=$(bin/petsc/mat_ex18 -mat_type aij -options_left 0 </dev/null 2>&1); rb=$?
  if [ $ra = 0 ] && [ $rb = 0 ] && [ -n "$b" ] && [ "$(echo "$a" | grep -v type)" = "$(echo "$b" | grep -v type)" ]; then pass "petsc.mat_ex18_coo.$t"
  else fail "petsc.mat_ex18_coo.$t" "exit $ra/$rb or output differs from aij"; diff <(echo "$a") <(echo "$b") | head -5; fi
done

fi # section tutorials

if section conformance; then
# The conformance suite (test/conformance/tutorials.txt): a dozen PETSc tutorials, each with every
# type against AIJ (aijcusparse with CUDA vectors on a GPU), in $OUTDIR (some write files). Our
# type must give the reference's solver history, run its products in the format (no fewer GFSpMV
# events than MatMult events: AIJ's fallback has none), and print PETSc's expected output where named.
conformance() { # name np refused out tutorial args...
  local name=$1 np=$2 refused=$3 out=$4 bin=$ROOT/bin/petsc/$5; shift 5
  local vec="" ref=aij src # PETSc's expected outputs: its source, or what the GPU bundle carries
  for src in "${PETSC_DIR:-/nonexistent}/share/petsc/examples/src" "${PETSC_DIR:-/nonexistent}/src" "$ROOT/build/petsc-output"; do [ -d "$src/ksp" ] && break; done
  [ $has_gpu = 1 ] && vec="-vec_type cuda -dm_vec_type cuda" && ref=aijcusparse
  for t in $TYPES; do
    local a=$OUTDIR/conf.$name.$t.log b=$OUTDIR/conf.$name.ref.log
    (cd "$OUTDIR" && $MPIEXEC -n "$np" "$bin" "$@" -dll_append "$LIB" -mat_type "$t" -dm_mat_type "aij$t" $vec -options_left 0 -log_view </dev/null >"$a" 2>&1); local rc=$?
    if [[ ",$refused," == *",$t,"* ]]; then
      [ $rc != 0 ] && grep -q "Formats that fit" "$a" && pass "conformance.$name.$t # refused, naming formats that fit" || fail "conformance.$name.$t" "expected a refusal naming formats that fit (exit $rc)"
      continue
    fi
    [ $rc = 0 ] || { fail "conformance.$name.$t" "exit $rc (log $a)"; tail -5 "$a"; continue; }
    [ -f "$b" ] || (cd "$OUTDIR" && $MPIEXEC -n "$np" "$bin" "$@" -mat_type $ref -dm_mat_type $ref $vec -options_left 0 </dev/null >"$b" 2>&1)
    local msg spmv mult
    if msg=$(python3 test/petsc/compare_runs.py "$a" "$b"); then pass "conformance.$name.$t # $msg"
    elif [ $ref != aij ]; then # aijcusparse may itself differ from AIJ (ksp ex43's Schur solve does): then AIJ decides
      [ -f "$b.aij" ] || (cd "$OUTDIR" && $MPIEXEC -n "$np" "$bin" "$@" -mat_type aij -dm_mat_type aij $vec -options_left 0 </dev/null >"$b.aij" 2>&1)
      local msg2; msg2=$(python3 test/petsc/compare_runs.py "$a" "$b.aij") && pass "conformance.$name.$t # AIJ's history ($msg2); aijcusparse's differs: $msg" || fail "conformance.$name.$t" "$msg; against aij: $msg2"
    else fail "conformance.$name.$t" "$msg"; fi
    spmv=$(awk '$1 == "GFSpMV" {print $2}' "$a"); mult=$(awk '$1 == "MatMult" {print $2}' "$a")
    # GAMG on the GPU: the coarse operators are aijcusparse by default (-mat_gpuformats_product_result), so only the fine level's products are ours
    local need=${mult:-0}; [ $has_gpu = 1 ] && [[ $name == *gamg* ]] && need=1
    [ "${spmv:-0}" -gt 0 ] && [ "${spmv:-0}" -ge "$need" ] && pass "conformance.$name.$t.in_format # GFSpMV $spmv, MatMult $mult" || fail "conformance.$name.$t.in_format" "GFSpMV ${spmv:-0}, MatMult ${mult:-0}"
    if [ "$out" != - ]; then
      (cd "$OUTDIR" && $MPIEXEC -n "$np" "$bin" "$@" -dll_append "$LIB" -mat_type "$t" -dm_mat_type "aij$t" $vec -options_left 0 </dev/null >"$a.out" 2>&1)
      msg=$(python3 test/conformance/compare_out.py "$a.out" "$src/$out") && pass "conformance.$name.$t.petsc_output # $msg" || fail "conformance.$name.$t.petsc_output" "$msg"
    fi
  done
}
if [ -n "$TYPES" ]; then
  while read -r name np refused out args; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    [[ " $RANKS " == *" $np "* ]] || continue
    conformance "$name" "$np" "$refused" "$out" $args
  done <test/conformance/tutorials.txt
fi

# The upload option (all types): shown by -help, and a value out of range is a clear PETSc error
if [ -n "$TYPES" ]; then
  t=$(echo $TYPES | cut -d' ' -f1)
  bin/petsc/ksp_ex2 -m 4 -n 4 -dll_append "$LIB" -mat_type "$t" -help 2>&1 | grep -q -- "-mat_gpuformats_upload_threads" && pass petsc.help_upload_threads || fail petsc.help_upload_threads
  out=$(bin/petsc/ksp_ex2 -m 4 -n 4 -dll_append "$LIB" -mat_type "$t" -mat_gpuformats_upload_threads 0 2>&1); rc=$?
  [ $rc != 0 ] && echo "$out" | grep -q "less than allowed bound 1" && pass petsc.upload_threads_range_error || { fail petsc.upload_threads_range_error "rc=$rc"; echo "$out" | tail -5; }
fi

fi # section conformance

if section python; then
# --- python: petsc4py with the plugin (python/gpuformats; examples/python), the interpreter of the
# environment `make python` builds (GPUFORMATS_PYTHON and GPUFORMATS_PYTHONPATH name another) ---
PY=${GPUFORMATS_PYTHON:-$ROOT/build/python-venv/bin/python}
export PYTHONPATH=$ROOT/python${GPUFORMATS_PYTHONPATH:+:$GPUFORMATS_PYTHONPATH}
if "$PY" -c 'import petsc4py, numpy' >"$OUTDIR/python.import.log" 2>&1; then
  pass "python.petsc4py_imports # $("$PY" --version 2>&1)"
  py_ranks=$(for np in $RANKS; do [ "$np" -le 2 ] && echo "$np"; done | tr '\n' ' ')
  run_checks python.api "$PY" test/python/test_api.py
  run_checks python.examples "$PY" test/python/test_examples.py \
    --ranks "$py_ranks" --types "$TYPES" --out "$OUTDIR" $([ $has_gpu = 1 ] && echo --gpu)
  # make install: the module beside the library finds it (not on the GPU machine: no PETSc to make with)
  if [ $has_gpu = 0 ]; then
    inst=$(mktemp -d)
    found=$(make -s install PREFIX="$inst" >"$OUTDIR/python.install.log" 2>&1 && PYTHONPATH=$inst/lib "$PY" -c 'import gpuformats; print(gpuformats.library_path())' 2>>"$OUTDIR/python.install.log")
    [ "$found" = "$inst/lib/libgpuformats.so" ] && pass python.installed_module_finds_library || fail python.installed_module_finds_library "'$found' (log $OUTDIR/python.install.log)"
    rm -rf "$inst"
  fi
else
  fail python.petsc4py_imports "$PY cannot import petsc4py (make python builds it): $(tail -1 "$OUTDIR/python.import.log")"
fi

fi # section python

if section bench; then
# --- benchmark driver smoke run (host types, small suite) ---
if [ -x bin/bench_spmv ] && [ -f bench/suites/small.txt ]; then
  run_checks bench.smoke bench/smoke.sh
fi
# bench/RESULTS.md is what bench/results_md.py makes of the committed runs (regenerate it with a new run)
if python3 bench/results_md.py >"$OUTDIR/RESULTS.md" 2>"$OUTDIR/results_md.log" && diff -q "$OUTDIR/RESULTS.md" bench/RESULTS.md >/dev/null; then
  pass bench.results_md_current
else fail bench.results_md_current "bench/RESULTS.md differs from python3 bench/results_md.py's output (or the script failed: $OUTDIR/results_md.log)"; fi

# the main job's table: speedups from synthetic runs (2x the product, 1.25x the solve), a failed run
# reported and counted in the exit status; then make demo's script itself on a tiny grid
demo_json() { # file, then "type status matmult_s kspsolve_s" per run
  local f=$1; shift
  { echo '{"n": 8, "where": "test", "runs": ['; local sep=""
    for r in "$@"; do set -- $r
      echo "$sep{\"type\": \"$1\", \"rep\": 1, \"status\": \"$2\", \"matmult_s\": $3, \"matmult_count\": 100, \"kspsolve_s\": $4, \"snessolve_s\": 2.0, \"host_eval_share\": 0.5, \"ksp_its\": 50}"; sep=","
    done; echo ']}'; } >"$f"
}
demo_json "$OUTDIR/demo_a.json" "aijcusparse ok 1.0 1.0" "evchyb ok 0.5 0.8"
out=$(python3 examples/demo_report.py "$OUTDIR/demo_a.json" "$OUTDIR/demo_a.json" 2>&1); rc=$?
[ $rc = 0 ] && echo "$out" | grep -Eq '^evchyb +5\.000 +2\.00x +0\.800 +1\.25x' && pass bench.demo_report_speedups || { fail bench.demo_report_speedups "rc=$rc"; echo "$out" | head -8; }
demo_json "$OUTDIR/demo_b.json" "aijcusparse ok 1.0 1.0" "evchyb FAILED 0.5 0.8"
out=$(python3 examples/demo_report.py "$OUTDIR/demo_b.json" "$OUTDIR/demo_b.json" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q '^failed: evchyb' && pass bench.demo_report_failed_run || { fail bench.demo_report_failed_run "rc=$rc"; echo "$out" | tail -3; }
if [ -x bin/petsc/snes_ex14 ] && [ $has_gpu = 0 ]; then
  out=$(DEMO_REPS=1 DEMO_OUT=$OUTDIR/demo examples/demo.sh 8 aij evchyb 2>&1); rc=$?
  [ $rc = 0 ] && echo "$out" | grep -Eq '^evchyb +[0-9.]+ +[0-9.]+x +[0-9.]+ +[0-9.]+x' && pass bench.demo_runs || { fail bench.demo_runs "rc=$rc"; echo "$out" | tail -8; }
fi

fi # section bench

# --- gpu (where a CUDA device is present) ---
[ $has_gpu = 0 ] && section gpu && skip gpu "no CUDA device on this machine: the GPU suite runs where one is"
if gpu_section gpu; then
  run_checks gpu.formats bin/test/test_formats_cuda test/matrices
  run_checks gpu.upload bin/test/test_upload
  run_checks gpu.oom bin/test/test_oom -types "$(echo $TYPES | tr ' ' ',')"
  # Matrix-matrix products on the device (gf_product.cpp): AIJ's values, reuse with new values, each result type
  run_checks gpu.products bin/test/test_products -types "$(echo $TYPES | tr ' ' ',')"
fi # section gpu

if gpu_section gpu-sanitizers; then
  # compute-sanitizer (memcheck, racecheck, synccheck) over the small cases of every format: the
  # multi-stream and child-kernel paths of SURAA included (its dynamic switch is flipped there).
  san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
  if [ -n "$san" ]; then
    for tool in memcheck racecheck synccheck; do
      for f in $TYPES; do
        log=$OUTDIR/gpu.sanitizer.$tool.$f.log
        # racecheck and synccheck do not support dynamic parallelism: those runs leave it out
        "$san" --tool $tool --error-exitcode 99 bin/test/test_formats_cuda test/matrices "$f" $([ $tool = memcheck ] && echo quick || echo quick-nodp) >"$log" 2>&1; rc=$?
        [ $rc = 0 ] && pass "gpu.sanitizer.$tool.$f # $(grep -c '^ok ' "$log") checks" || { fail "gpu.sanitizer.$tool.$f" "exit $rc (log $log)"; grep -m5 "=========" "$log"; }
      done
    done
  else
    skip gpu.sanitizer "compute-sanitizer not found"
  fi
fi # section gpu-sanitizers

if gpu_section gpu-gamg; then
  # GAMG with the Galerkin products on the device (GPU %F of MatPtAPNumeric), coarse operators of
  # each result type: AIJ's solver history, no more vector copies than aijcusparse (+4). PELLR
  # refuses GAMG's coarse operators of its format and classical's interpolation (as above): it runs
  # smoothed aggregation with aijcusparse coarse operators only.
  for t in $TYPES; do
    for res in aijcusparse format; do
      [ "$t" = pellr ] && [ $res = format ] && continue
      for c in "ex45|bin/petsc/ksp_ex45 -da_grid_x 33 -da_grid_y 33 -da_grid_z 33" "ex50|bin/petsc/ksp_ex50 -da_grid_x 65 -da_grid_y 65" "ex50_classical|bin/petsc/ksp_ex50 -da_grid_x 65 -da_grid_y 65 -pc_gamg_type classical" "ex49|bin/petsc/ksp_ex49 -mx 32 -my 32 -elas_pc_type gamg -elas_ksp_monitor -elas_ksp_converged_reason"; do
        n=gpu.gamg.${c%%|*}.$t.$res
        [ "$t" = pellr ] && [ "${c%%|*}" = ex50_classical ] && continue # refused on the host too (tutorials.txt)
        # The Galerkin products are cuSPARSE's, as aijcusparse's: where its history differs from AIJ's
        # (ex49: the 5th digit of the first norm), ours must match aijcusparse's.
        ref=aij; [ "${c%%|*}" = ex49 ] && ref=aijcusparse
        CMP_DM=1 compare_solver "$n" 1 $ref "$t" "-vec_type cuda -dm_vec_type cuda -mat_gpuformats_product_result $res -log_view" ${c#*|} -pc_type gamg -ksp_monitor -ksp_converged_reason
        p=$(awk '$1 == "MatPtAPNumeric" {print $NF}' "$OUTDIR/$n.ours.log")
        [ "$p" = 100 ] && pass "$n.ptap_on_device" || fail "$n.ptap_on_device" "MatPtAPNumeric GPU %F '${p:-none}'"
        [ -f "$OUTDIR/gpu.gamg.${c%%|*}.cusparse.log" ] || ${c#*|} -pc_type gamg -mat_type aijcusparse -dm_mat_type aijcusparse -vec_type cuda -dm_vec_type cuda -log_view >"$OUTDIR/gpu.gamg.${c%%|*}.cusparse.log" 2>&1
        # coarse operators of our format: 6 more copies from the device than aijcusparse on ex45 and ex50 (cause not found)
        check_copies "$n.vec_copies" "$(log_copies <"$OUTDIR/$n.ours.log")" "$(log_copies <"$OUTDIR/gpu.gamg.${c%%|*}.cusparse.log")" $([ $res = format ] && echo 8 || echo 4)
      done
    done
  done
fi # section gpu-gamg

if gpu_section gpu-mpi; then
  for np in 1 2; do
    run_checks "gpu.matmult.np$np" $MPIEXEC -n "$np" bin/test/test_matmult -dir test/matrices -quick
  done
  # The halo exchange (src/halo/): every product against AIJ on each device path; on one GPU with 2
  # ranks (NCCL refuses them: nccl asked for is an error on every rank, auto takes mpi); with a GPU
  # per rank, nccl too, and the stream path under compute-sanitizer (NCCL's own probes of kernels
  # for other GPUs return errors to it: API errors are not reported)
  export NCCL_NVLS_ENABLE=0
  CUDA_VISIBLE_DEVICES=0 run_checks gpu.matmult_halo_mpi.one_gpu.np2 $MPIEXEC -n 2 bin/test/test_matmult -dir test/matrices -quick -halo mpi
  CUDA_VISIBLE_DEVICES=0 run_checks gpu.matmult_halo_auto.one_gpu.np2 $MPIEXEC -n 2 bin/test/test_matmult -dir test/matrices -quick -halo auto
fi # section gpu-mpi

# The device halo paths in sections that each fit ten minutes (each product check above takes 80 s on
# 2 H200s): ipc and its fallbacks on one GPU; then nccl and ipc with a GPU per rank.
if gpu_section gpu-halo; then
  export NCCL_NVLS_ENABLE=0
  # ipc: two ranks on one GPU map each other's buffers too; with nodes of 2 ranks, rank 1 of 3
  # reads rank 0 by IPC and rank 2 by MPI in the same product
  CUDA_VISIBLE_DEVICES=0 run_checks gpu.matmult_halo_ipc.one_gpu.np2 $MPIEXEC -n 2 bin/test/test_matmult -dir test/matrices -quick -halo ipc
  CUDA_VISIBLE_DEVICES=0 run_checks gpu.matmult_halo_ipc_mixed.one_gpu.np3 $MPIEXEC -n 3 bin/test/test_matmult -dir test/matrices -quick -halo ipc -mat_gpuformats_halo_node_ranks 2
  e2="bin/petsc/ksp_ex2 -m 60 -n 60 -dll_append $LIB -mat_type evchyb -vec_type cuda -ksp_type cg -pc_type jacobi -ksp_rtol 1e-10"
  ref=$(CUDA_VISIBLE_DEVICES=0 timeout 120 $MPIEXEC -n 3 $e2 -mat_gpuformats_halo mpi 2>&1 | grep "^Norm of error")
  out=$(CUDA_VISIBLE_DEVICES=0 timeout 120 $MPIEXEC -n 3 $e2 -mat_gpuformats_halo ipc -mat_gpuformats_halo_node_ranks 2 -ksp_view_mat ::ascii_info 2>&1)
  echo "$out" | grep -q "^ *\[1\] gpuformats halo: 1 peer ranks by IPC, 1 by MPI" && [ -n "$ref" ] && echo "$out" | grep -qF "$ref" && pass gpu.halo_ipc_mixed_solve || { fail gpu.halo_ipc_mixed_solve "ref: $ref"; echo "$out" | grep -i "halo\|Norm\|ERROR" | head -8; }
  # ranks that share a GPU: auto takes mpi and says why (ipc would wait for the other context's turn)
  out=$(CUDA_VISIBLE_DEVICES=0 timeout 120 $MPIEXEC -n 3 $e2 -ksp_view_mat ::ascii_info 2>&1)
  echo "$out" | grep -q "^ *\[0\] gpuformats halo: mpi (auto: ranks 0 and 1 share the GPU" && echo "$out" | grep -qF "$ref" && pass gpu.halo_auto_shared_gpu_mpi || { fail gpu.halo_auto_shared_gpu_mpi; echo "$out" | grep -i "halo\|Norm\|ERROR" | head -5; }
  # an IPC set-up that fails on one rank (GPUFORMATS_HALO_IPC_FAIL): ipc asked for is an error on
  # every rank naming it (auto moving on: gpu-halo-gpus, where auto tries ipc)
  out=$(CUDA_VISIBLE_DEVICES=0 GPUFORMATS_HALO_IPC_FAIL=1 timeout 120 $MPIEXEC -n 2 $e2 -mat_gpuformats_halo ipc 2>&1); rc=$?
  [ $rc != 0 ] && [ $rc != 124 ] && echo "$out" | grep -q "ipc halo could not be set up.*rank 1\|\[rank 1\] the ipc halo could not be set up" && pass gpu.halo_ipc_failed_error || { fail gpu.halo_ipc_failed_error "rc=$rc"; echo "$out" | grep ERROR | head -5; }
  out=$(CUDA_VISIBLE_DEVICES=0 timeout 120 $MPIEXEC -n 2 bin/petsc/ksp_ex2 -m 40 -n 40 -dll_append "$LIB" -mat_type evchyb -vec_type cuda -mat_gpuformats_halo nccl 2>&1); rc=$?
  [ $rc != 0 ] && [ $rc != 124 ] && echo "$out" | grep -q "halo nccl cannot run: ranks 0 and 1 share one GPU" && pass gpu.halo_nccl_refused_one_gpu || { fail gpu.halo_nccl_refused_one_gpu "rc=$rc"; echo "$out" | tail -5; }
fi # section gpu-halo

if gpu_section gpu-halo-gpus; then
  export NCCL_NVLS_ENABLE=0
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  if [ "${ngpu:-0}" -ge 2 ]; then
    run_checks gpu.matmult_halo_nccl.np2 $MPIEXEC -n 2 bin/test/test_matmult -dir test/matrices -quick -halo nccl
    run_checks gpu.matmult_halo_ipc.np2 $MPIEXEC -n 2 bin/test/test_matmult -dir test/matrices -quick -halo ipc
    run_checks gpu.matmult_halo_ipc.np4 $MPIEXEC -n 4 bin/test/test_matmult -dir test/matrices -quick -halo ipc -types evchyb,pjds
    # an IPC set-up that fails on one rank (GPUFORMATS_HALO_IPC_FAIL): auto moves on to mpi with the
    # same answer and says why
    e2="bin/petsc/ksp_ex2 -m 60 -n 60 -dll_append $LIB -mat_type evchyb -vec_type cuda -ksp_type cg -pc_type jacobi -ksp_rtol 1e-10"
    ref=$(timeout 120 $MPIEXEC -n 2 $e2 -mat_gpuformats_halo mpi 2>&1 | grep "^Norm of error")
    out=$(GPUFORMATS_HALO_IPC_FAIL=1 timeout 120 $MPIEXEC -n 2 $e2 -ksp_view_mat ::ascii_info 2>&1)
    echo "$out" | grep -q "^ *\[0\] gpuformats halo: mpi (auto: no ipc (its set-up failed, rank .*rank 1" && [ -n "$ref" ] && echo "$out" | grep -qF "$ref" && pass gpu.halo_ipc_failed_auto_moves_on || { fail gpu.halo_ipc_failed_auto_moves_on; echo "$out" | grep -i "halo\|Norm\|ERROR" | head -5; }
    san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
    if [ -n "$san" ]; then
      log=$OUTDIR/gpu.sanitizer.halo_nccl.log
      timeout 300 $MPIEXEC -n 2 "$san" --tool memcheck --report-api-errors no --error-exitcode 99 bin/test/test_matmult -dir test/matrices -quick -types evchyb -halo nccl >"$log" 2>&1; rc=$?
      [ $rc = 0 ] && pass "gpu.sanitizer.halo_nccl # $(grep -c '^ok ' "$log") checks" || { fail gpu.sanitizer.halo_nccl "exit $rc (log $log)"; grep -m5 "=========" "$log"; }
    fi
  else
    skip gpu.halo_nccl "one GPU: the nccl path's checks need two"
  fi
fi # section gpu-halo-gpus

if gpu_section gpu-solvers; then
  for t in $TYPES; do
    for np in 1 2; do
      compare_solver "gpu.ex14.$t.np$np" "$np" aijcusparse "$t" "-dm_vec_type cuda" $EX14
      compare_solver "gpu.ex2.$t.np$np" "$np" aijcusparse "$t" "-vec_type cuda" $EX2
    done
    # Factorizations on the device: cusparse by default, aijcusparse's solver history, and no more
    # vector copies between host and device than aijcusparse makes (none per PCApply).
    for pc in ilu icc lu cholesky; do
      compare_solver "gpu.factor.$pc.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type $pc
      p=$(factor_package "$t" "$pc" -vec_type cuda); [ "$p" = cusparse ] && pass "gpu.factor_default_cusparse.$pc.$t" || fail "gpu.factor_default_cusparse.$pc.$t" "package '$p'"
      p=$(factor_package "$t" "$pc" -vec_type cuda -pc_factor_mat_solver_type petsc); [ "$p" = petsc ] && pass "gpu.factor_explicit_petsc.$pc.$t" || fail "gpu.factor_explicit_petsc.$pc.$t" "package '$p'"
      check_copies "gpu.factor_vec_copies.$pc.$t" "$(vec_copies "$t" -vec_type cuda -pc_type $pc)" "$(vec_copies aijcusparse -vec_type cuda -pc_type $pc)" 2
    done
    # The natural ordering as identity strides on the cuda backend (GFGetOrdering): LU in it, and
    # PETSc's own host ILU in it, give aijcusparse's histories (ILU's default is natural: above)
    compare_solver "gpu.factor.lu_natural.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type lu -pc_factor_mat_ordering_type natural
    compare_solver "gpu.factor.petsc_ilu_natural.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type ilu -pc_factor_mat_solver_type petsc
    # Two ranks: block Jacobi / ASM blocks factor with cusparse, no more vector copies than aijcusparse
    for pc in bjacobi asm; do
      compare_solver "gpu.$pc.$t.np2" 2 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type $pc
      s=$(sub_solver "$t" $pc -vec_type cuda); [ "$s" = "seqaij$t cusparse" ] && pass "gpu.$pc.sub_block.$t # $s" || fail "gpu.$pc.sub_block.$t" "sub-solver '$s'"
      check_copies "gpu.${pc}_vec_copies.$t" "$(MPIEXEC_NP="$MPIEXEC -n 2" vec_copies "$t" -vec_type cuda -pc_type $pc)" "$(MPIEXEC_NP="$MPIEXEC -n 2" vec_copies aijcusparse -vec_type cuda -pc_type $pc)" 2
    done
    # Refactorizations (Newton steps, same pattern) fill the factor from the format: one upload of
    # the CSR for the factor (its symbolic phase), not one per Newton step.
    n=$(bin/petsc/snes_ex14 -da_grid_x 10 -da_grid_y 10 -da_grid_z 10 -dll_append "$LIB" -mat_type "$t" -dm_vec_type cuda -log_view 2>&1 | awk '$1 == "SNESSolve" {ok = 1} $1 == "MatCUSPARSCopyTo" {n = $2} END {if (ok) print n + 0}')
    [ -n "$n" ] && [ "$n" -le 1 ] && pass "gpu.factor_one_upload.$t # MatCUSPARSCopyTo ${n:-0}" || fail "gpu.factor_one_upload.$t" "MatCUSPARSCopyTo $n"
  done
fi # section gpu-solvers

if gpu_section gpu-trisolve; then
  for t in $TYPES; do
    # Our level-scheduled exact solves (-mat_gpuformats_trisolve levelset, src/trisolve): aijcusparse's
    # histories for ILU(0), ILU(k), ICC(k), ex14's Newton steps, BiCG's transposed solves, every
    # schedule and block Jacobi's sub-blocks; -ksp_view names them; FP32 values converge and say so
    LS="-mat_gpuformats_trisolve levelset"
    out=$(bin/petsc/ksp_ex2 -m 40 -n 37 -dll_append "$LIB" -mat_type "$t" -vec_type cuda -pc_type ilu $LS -ksp_view 2>&1)
    echo "$out" | grep -q "gpuformats ILU(0) apply (-mat_gpuformats_trisolve levelset)" && echo "$out" | grep -q "levelset: level-scheduled exact solves, one launch per triangle, lines of rows pipelined a row per step where a triangle has them and they fill the SMs, tiles where not, factor values in FP64" && echo "$out" | grep -q "L lines: none: lines would solve [0-9]* rows a step, fewer than 8 per SM" && echo "$out" | grep -q "L (unit lower): [0-9]* nonzeros, 76 levels" && echo "$out" | grep -q "ILU(0) factorization: ours, levels over L's 76 levels (-mat_gpuformats_trisolve_factor levels)" && pass "gpu.trisolve.levelset_view.$t" || { fail "gpu.trisolve.levelset_view.$t"; echo "$out" | grep -A8 "gpuformats ILU" | head -10; }
    compare_solver "gpu.trisolve.levelset.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type ilu $LS
    for k in 1 2; do compare_solver "gpu.trisolve.levelset_iluk.k$k.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type ilu -pc_factor_levels $k $LS; done
    compare_solver "gpu.trisolve.levelset_icck.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -ksp_type cg -pc_type icc -pc_factor_levels 1 $LS
    CMP_DM=1 compare_solver "gpu.trisolve.levelset_iluk_ex14.$t" 1 aijcusparse "$t" "-dm_vec_type cuda" $EX14 -pc_type ilu -pc_factor_levels 1 $LS
    compare_solver "gpu.trisolve.levelset_transpose.$t" 1 aijcusparse "$t" "-vec_type cuda" bin/petsc/ksp_ex2 -m 30 -n 23 -ksp_monitor -ksp_converged_reason -ksp_type bicg -pc_type ilu $LS
    for sch in syncfree levels graph tiles lines; do compare_solver "gpu.trisolve.levelset_$sch.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type ilu $LS -mat_gpuformats_trisolve_schedule $sch; done
    # the default schedule on a 3D grid: both triangles in lines of one grid line, aijcusparse's history
    out=$(bin/petsc/ksp_ex45 -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -dll_append "$LIB" -dm_mat_type "aij$t" -dm_vec_type cuda -ksp_view 2>&1)
    [ "$(echo "$out" | grep -c "[LU] lines: lines of 64 rows")" = 2 ] && pass "gpu.trisolve.auto_lines_view.$t" || { fail "gpu.trisolve.auto_lines_view.$t"; echo "$out" | grep -A12 "gpuformats ILU" | head -14; }
    CMP_DM=1 compare_solver "gpu.trisolve.auto_lines_ex45.$t" 1 aijcusparse "$t" "-dm_vec_type cuda" bin/petsc/ksp_ex45 -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -ksp_monitor
    # the ILU(0) factorization's schedules (trisolve::Ilu0), at every Newton step of ex14 too
    for fs in levels graph syncfree cusparse; do compare_solver "gpu.trisolve.factor_$fs.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type ilu -mat_gpuformats_trisolve_factor $fs; done
    for fs in levels syncfree; do CMP_DM=1 compare_solver "gpu.trisolve.factor_${fs}_ex14.$t" 1 aijcusparse "$t" "-dm_vec_type cuda" $EX14 -pc_type ilu -mat_gpuformats_trisolve_factor $fs; done
    compare_solver "gpu.trisolve.levelset_bjacobi_iluk.$t.np2" 2 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type bjacobi -sub_pc_factor_levels 1 $LS
    out=$(bin/petsc/ksp_ex2 -m 40 -n 37 -dll_append "$LIB" -mat_type "$t" -vec_type cuda -pc_type ilu $LS -pc_precision single -ksp_converged_reason -ksp_view 2>&1)
    echo "$out" | grep -q "Linear solve converged" && echo "$out" | grep -q "factor values in FP32" && pass "gpu.trisolve.levelset_single.$t # $(echo "$out" | grep -o 'iterations [0-9]*')" || { fail "gpu.trisolve.levelset_single.$t"; echo "$out" | tail -5; }
    out=$(bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append "$LIB" -mat_type "$t" -vec_type cuda -pc_type ilu $LS -pc_precision bfloat16 2>&1); rc=$?
    [ $rc != 0 ] && echo "$out" | grep -q "pc_precision takes single or double" && pass "gpu.trisolve.precision_error.$t" || { fail "gpu.trisolve.precision_error.$t" "rc=$rc"; echo "$out" | tail -5; }
    # the default is levelset, alone (no cusparse package phase); cusparse keeps cuSPARSE's solves
    out=$(bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append "$LIB" -mat_type "$t" -vec_type cuda -pc_type ilu -ksp_view 2>&1); rc=$?
    [ $rc = 0 ] && echo "$out" | grep -q "gpuformats ILU(0) apply (-mat_gpuformats_trisolve levelset)" && echo "$out" | grep -q "the apply alone: no cusparse package phase" && pass "gpu.trisolve.default_levelset.$t" || { fail "gpu.trisolve.default_levelset.$t" "rc=$rc"; echo "$out" | tail -5; }
    out=$(bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append "$LIB" -mat_type "$t" -vec_type cuda -pc_type ilu -mat_gpuformats_trisolve cusparse -ksp_view 2>&1); rc=$?
    [ $rc = 0 ] && ! echo "$out" | grep -q "gpuformats ILU(0) apply" && pass "gpu.trisolve.cusparse.$t" || { fail "gpu.trisolve.cusparse.$t" "rc=$rc"; echo "$out" | tail -5; }
    # ILU(k > 0) by default: cuSPARSE's solves where lines do not take both triangles (a 2D grid:
    # ours are slower there, gf_factor.cpp's TriSymbolic), and -ksp_view says why; ICC(k) and a
    # given levelset keep ours
    out=$(bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append "$LIB" -mat_type "$t" -vec_type cuda -pc_type ilu -pc_factor_levels 1 -ksp_view 2>&1); rc=$?
    [ $rc = 0 ] && echo "$out" | grep -q "1 level of fill" && ! echo "$out" | grep -q "gpuformats ILU(1) apply" && echo "$out" | grep -q "cuSPARSE's triangular solves: ours declined this factor (ILU(1) takes our solves where the lines schedule takes both triangles; L: " && pass "gpu.trisolve.default_iluk_declined.$t" || { fail "gpu.trisolve.default_iluk_declined.$t" "rc=$rc"; echo "$out" | grep -i "declined\|error" | head -5; }
    # ILU(0) by default: cuSPARSE's solves on thin levels of long rows (a block mesh graph: 1284
    # levels, 40 reads each; trisolve::exact_declines), with aijcusparse's history; ICC(0) and a
    # given levelset keep ours
    TL="bin/test/ksp_matrix -f blockfem:nnz=300k -ksp_max_it 40"
    out=$($TL -dll_append "$LIB" -mat_type "$t" -ksp_view 2>&1); rc=$?
    [ $rc = 0 ] && ! echo "$out" | grep -q "gpuformats ILU(0) apply" && echo "$out" | grep -q "ours declined this factor (ILU(0): ours predicted slower than cuSPARSE's; [LU]: 1284 levels" && pass "gpu.trisolve.thin_levels_declined.$t" || { fail "gpu.trisolve.thin_levels_declined.$t" "rc=$rc"; echo "$out" | grep -i "declined\|error\|apply (" | head -5; }
    for o in "ICC(0), as the ILU(0) of A,:-ksp_type cg -pc_type icc" "ILU(0):$LS"; do
      out=$($TL ${o#*:} -dll_append "$LIB" -mat_type "$t" -ksp_view 2>&1); rc=$?
      [ $rc = 0 ] && echo "$out" | grep -q "gpuformats ${o%%:*} apply (-mat_gpuformats_trisolve levelset)" && pass "gpu.trisolve.thin_levels_ours.${o%%(*}.$t" || { fail "gpu.trisolve.thin_levels_ours.${o%%(*}.$t" "rc=$rc"; echo "$out" | tail -5; }
    done
    compare_solver "gpu.trisolve.thin_levels_history.$t" 1 aijcusparse "$t" "" $TL -ksp_monitor
    # ... and ours where lines take both (a 96^3 grid's; 64^3 gives too few rows a step), with aijcusparse's history
    out=$(bin/petsc/ksp_ex45 -da_grid_x 96 -da_grid_y 96 -da_grid_z 96 -dll_append "$LIB" -dm_mat_type "aij$t" -dm_vec_type cuda -pc_type ilu -pc_factor_levels 1 -ksp_view 2>&1)
    echo "$out" | grep -q "gpuformats ILU(1) apply (-mat_gpuformats_trisolve levelset)" && [ "$(echo "$out" | grep -c "[LU] lines: lines of 96 rows")" = 2 ] && pass "gpu.trisolve.default_iluk_lines.$t" || { fail "gpu.trisolve.default_iluk_lines.$t"; echo "$out" | grep -A12 "gpuformats ILU\|declined" | head -14; }
    CMP_DM=1 compare_solver "gpu.trisolve.default_iluk_ex45.$t" 1 aijcusparse "$t" "-dm_vec_type cuda" bin/petsc/ksp_ex45 -da_grid_x 96 -da_grid_y 96 -da_grid_z 96 -ksp_monitor -pc_type ilu -pc_factor_levels 1
    out=$(bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append "$LIB" -mat_type "$t" -vec_type cuda -ksp_type cg -pc_type icc -pc_factor_levels 1 -ksp_view 2>&1); rc=$?
    [ $rc = 0 ] && echo "$out" | grep -q "gpuformats ICC(1), as the ILU(1) of A, apply (-mat_gpuformats_trisolve levelset)" && pass "gpu.trisolve.default_icck_levelset.$t" || { fail "gpu.trisolve.default_icck_levelset.$t" "rc=$rc"; echo "$out" | tail -5; }
    out=$(bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append "$LIB" -mat_type "$t" -vec_type cuda -pc_type ilu -pc_factor_levels 1 $LS -ksp_view 2>&1); rc=$?
    [ $rc = 0 ] && echo "$out" | grep -q "gpuformats ILU(1) apply (-mat_gpuformats_trisolve levelset)" && pass "gpu.trisolve.given_iluk_levelset.$t" || { fail "gpu.trisolve.given_iluk_levelset.$t" "rc=$rc"; echo "$out" | tail -5; }
    compare_solver "gpu.trisolve.default.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type ilu
    compare_solver "gpu.trisolve.default_iluk.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type ilu -pc_factor_levels 1
    compare_solver "gpu.trisolve.default_icc.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -ksp_type cg -pc_type icc
    # a row without its diagonal: the apply declines, the package factors it as aijcusparse's does
    # (and runs to aijcusparse's outcome: the pass after the decline runs the package's phases alone)
    out=$(bin/test/ksp_matrix -f test/matrices/CA-GrQc.mtx -dll_append "$LIB" -mat_type "$t" -vec_type cuda -pc_type ilu -ksp_converged_reason -info 2>&1); rc=$?
    ref=$(bin/test/ksp_matrix -f test/matrices/CA-GrQc.mtx -mat_type aijcusparse -vec_type cuda -pc_type ilu -ksp_converged_reason 2>&1 | grep -m1 "Linear solve")
    if [ $rc = 0 ] && echo "$out" | grep -q "the cusparse package's factorization and solves instead" && [ -n "$ref" ] && [ "$(echo "$out" | grep -m1 "Linear solve")" = "$ref" ]; then pass "gpu.trisolve.declined.$t # $ref"
    elif [ "$t" = pellr ] && [ $rc != 0 ] && echo "$out" | grep -q "Formats that fit"; then pass "gpu.trisolve.declined.$t # PELLR refuses the matrix, naming formats that fit"
    else fail "gpu.trisolve.declined.$t" "rc=$rc"; echo "$out" | grep -v "^\[" | grep -v "^$" | head -8; fi
    # ILU(0) applied in the format (-mat_gpuformats_trisolve, src/trisolve): sweeps beyond the
    # triangles' depth (ex2 40x37: 76 levels) are the exact solves, so aijcusparse's history, also in
    # block Jacobi's sub-blocks on 2 ranks; isai converges, and -ksp_view names the apply
    TS="-pc_type ilu -mat_gpuformats_trisolve sweeps -mat_gpuformats_trisolve_sweeps 200"
    compare_solver "gpu.trisolve.sweeps_exact.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 $TS
    compare_solver "gpu.trisolve.bjacobi_sweeps_exact.$t.np2" 2 aijcusparse "$t" "-vec_type cuda" $EX2 ${TS/ilu/bjacobi}
    out=$(bin/petsc/ksp_ex2 -m 40 -n 37 -dll_append "$LIB" -mat_type "$t" -vec_type cuda -pc_type ilu -mat_gpuformats_trisolve isai -ksp_converged_reason -ksp_view 2>&1)
    echo "$out" | grep -q "Linear solve converged" && echo "$out" | grep -q "gpuformats ILU(0) apply (-mat_gpuformats_trisolve isai)" && pass "gpu.trisolve.isai.$t # $(echo "$out" | grep -o 'iterations [0-9]*')" || { fail "gpu.trisolve.isai.$t"; echo "$out" | tail -5; }
    out=$(bin/petsc/ksp_ex2 -m 20 -n 20 -dll_append "$LIB" -mat_type "$t" -vec_type cuda -pc_type ilu -mat_gpuformats_trisolve isai -ksp_type bicg 2>&1)
    echo "$out" | grep -q "MatSolveTranspose() is not offered with -mat_gpuformats_trisolve isai" && pass "gpu.trisolve.transpose_refused.$t" || { fail "gpu.trisolve.transpose_refused.$t"; echo "$out" | tail -5; }
    # ICC(0) applied as the ILU(0) of the (symmetric) ex2 matrix: exact sweeps give aijcusparse's
    # IC(0) history under CG, in ASM's sub-blocks on 2 ranks too (they inherit the options)
    compare_solver "gpu.trisolve.icc_sweeps_exact.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -ksp_type cg ${TS/ilu/icc} -ksp_view
    grep -q "gpuformats ICC(0), as the ILU(0) of A, apply (-mat_gpuformats_trisolve sweeps)" "$OUTDIR/gpu.trisolve.icc_sweeps_exact.$t.ours.log" && pass "gpu.trisolve.icc_view.$t" || fail "gpu.trisolve.icc_view.$t"
    compare_solver "gpu.trisolve.asm_icc_sweeps_exact.$t.np2" 2 aijcusparse "$t" "-vec_type cuda" $EX2 -ksp_type cg -pc_type asm -sub_pc_type icc ${TS#-pc_type ilu } -ksp_view
    grep -q "gpuformats ICC(0), as the ILU(0) of A, apply" "$OUTDIR/gpu.trisolve.asm_icc_sweeps_exact.$t.np2.ours.log" && pass "gpu.trisolve.asm_icc_view.$t.np2" || fail "gpu.trisolve.asm_icc_view.$t.np2"
    # ILU(k) / ICC(k): the ILU(0) of A in ILU(k)'s pattern (trisolve::iluk_pattern) factored on the
    # device; exact sweeps give PETSc's ILU(k) / ICC(k) history (aijcusparse factors those on the
    # host), at every Newton step of ex14 (values scattered into the pattern again) and in block
    # Jacobi's sub-blocks; auto at margin 0 falls back to the package's host factor
    TK="-pc_type ilu -mat_gpuformats_trisolve sweeps -mat_gpuformats_trisolve_sweeps 400"
    for k in 1 2; do
      compare_solver "gpu.trisolve.iluk_sweeps_exact.k$k.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 $TK -pc_factor_levels $k -ksp_view
      grep -q "gpuformats ILU($k) apply (-mat_gpuformats_trisolve sweeps)" "$OUTDIR/gpu.trisolve.iluk_sweeps_exact.k$k.$t.ours.log" && grep -q "ILU($k) pattern: [0-9]* entries" "$OUTDIR/gpu.trisolve.iluk_sweeps_exact.k$k.$t.ours.log" && pass "gpu.trisolve.iluk_view.k$k.$t" || fail "gpu.trisolve.iluk_view.k$k.$t"
    done
    compare_solver "gpu.trisolve.icck_sweeps_exact.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -ksp_type cg ${TK/ilu/icc} -pc_factor_levels 1 -ksp_view
    grep -q "gpuformats ICC(1), as the ILU(1) of A, apply" "$OUTDIR/gpu.trisolve.icck_sweeps_exact.$t.ours.log" && pass "gpu.trisolve.icck_view.$t" || fail "gpu.trisolve.icck_view.$t"
    CMP_DM=1 compare_solver "gpu.trisolve.iluk_ex14.$t" 1 aijcusparse "$t" "-dm_vec_type cuda" $EX14 $TK -pc_factor_levels 1
    compare_solver "gpu.trisolve.bjacobi_iluk.$t.np2" 2 aijcusparse "$t" "-vec_type cuda" $EX2 ${TK/ilu/bjacobi} -sub_pc_factor_levels 1
    compare_solver "gpu.trisolve.iluk_auto_fallback.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type ilu -pc_factor_levels 1 -mat_gpuformats_trisolve auto -mat_gpuformats_trisolve_auto_margin 0 -ksp_view
    grep -q "auto: cuSPARSE's triangular solves (predicted" "$OUTDIR/gpu.trisolve.iluk_auto_fallback.$t.ours.log" && pass "gpu.trisolve.iluk_auto_fallback_view.$t" || fail "gpu.trisolve.iluk_auto_fallback_view.$t"
    # auto: a margin of 0 takes cuSPARSE's solves (aijcusparse's history, -ksp_view says so); a
    # huge one the sweeps (the sweeps mode's iterations), their Richardson rate below 1 on this Laplacian
    compare_solver "gpu.trisolve.auto_fallback.$t" 1 aijcusparse "$t" "-vec_type cuda" $EX2 -pc_type ilu -mat_gpuformats_trisolve auto -mat_gpuformats_trisolve_auto_margin 0 -ksp_view
    grep -q "auto: cuSPARSE's triangular solves (predicted" "$OUTDIR/gpu.trisolve.auto_fallback.$t.ours.log" && pass "gpu.trisolve.auto_fallback_view.$t" || fail "gpu.trisolve.auto_fallback_view.$t"
    a1=$(bin/petsc/ksp_ex2 -m 40 -n 37 -dll_append "$LIB" -mat_type "$t" -vec_type cuda -pc_type ilu -mat_gpuformats_trisolve auto -mat_gpuformats_trisolve_auto_margin 1e300 -mat_gpuformats_trisolve_sweeps 1 -ksp_converged_reason -ksp_view 2>&1)
    s1=$(bin/petsc/ksp_ex2 -m 40 -n 37 -dll_append "$LIB" -mat_type "$t" -vec_type cuda -pc_type ilu -mat_gpuformats_trisolve sweeps -mat_gpuformats_trisolve_sweeps 1 -ksp_converged_reason 2>&1)
    ia=$(echo "$a1" | grep -o 'iterations [0-9]*'); is=$(echo "$s1" | grep -o 'iterations [0-9]*')
    echo "$a1" | grep -q "auto: the sweeps below" && [ -n "$ia" ] && [ "$ia" = "$is" ] && pass "gpu.trisolve.auto_sweeps.$t # $ia" || fail "gpu.trisolve.auto_sweeps.$t" "auto '$ia', sweeps '$is'"
  done
fi # section gpu-trisolve
section_end

[ $skipped != 0 ] && echo "# $skipped skipped"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
