# gpuformats: GPU sparse-matrix formats for PETSc, as a plugin library.
#
#   make            build lib/libgpuformats.so, the examples and the tests (bootstraps PETSc once)
#   make test       build, then run the test suite (host backend; the GPU suite where a GPU is present)
#   make demo       the main job: SNES ex14 (Bratu 3D) through each format and aijcusparse
#   make bundle     pack PETSc + plugin + executables for the GPU machine (bundle/gpuformats-bundle.tar.xz)
#   make python     petsc4py 3.26.1 built against this PETSc, once (make test needs it); make -s pythonpath
#                   prints the PYTHONPATH that finds it and python/gpuformats
#   make install PREFIX=/path
#   make experiments  compile the measurements behind tuning choices (bench/experiments/)
#   make nccl-header  fetch NCCL's header (optional: the mpi types' NCCL halo; the bootstrap does it)
#   make clean, make help (never build or install anything)
#
# PETSc: set PETSC_DIR (and PETSC_ARCH) to use your own CUDA-enabled PETSc 3.26; otherwise
# config/bootstrap-petsc.sh builds one into $(GPUFORMATS_CACHE) the first time (~20 min on 2 cores).
# The build reads PETSc's own variables (lib/petsc/conf/variables), as SLEPc does.

GPUFORMATS_CACHE ?= $(HOME)/.cache/gpuformats
# The architectures the bootstrap builds PETSc for (config/bootstrap-petsc.sh), which name its prefix.
GPUFORMATS_CUDA_ARCH ?= 80,90,100
comma            := ,
PETSC_DIR        ?= $(GPUFORMATS_CACHE)/petsc-3.26.1-cuda-sm$(subst $(comma),-,$(GPUFORMATS_CUDA_ARCH))
PETSC_ARCH       ?=
export PETSC_DIR PETSC_ARCH GPUFORMATS_CUDA_ARCH

PETSC_VARIABLES := $(PETSC_DIR)/lib/petsc/conf/variables
PETSC_GOALS     := all lib test demo bundle install experiments python pythonpath

.PHONY: all lib test demo bundle install clean help check-petsc petsc-bootstrap experiments nccl-header python pythonpath
.DEFAULT_GOAL := all # not the first rule PETSc's variables or the per-object flags below bring in
ifeq ($(wildcard $(PETSC_VARIABLES)),)
# No PETSc yet. Building it is a target of the goals that need it (never of clean, help or make -n):
# bootstrap, then run make again for the goal, which then reads PETSc's variables.
# (make -n runs this $(MAKE) line too, and only prints what it would do.)
DRY_RUN := $(findstring n,$(firstword -$(MAKEFLAGS)))
$(PETSC_GOALS): petsc-bootstrap
	@if test -f $(PETSC_VARIABLES); then $(MAKE) --no-print-directory $@; \
	else echo "gpuformats: '$@' needs the PETSc that the bootstrap builds (none at PETSC_DIR=$(PETSC_DIR))" >&2; $(if $(DRY_RUN),true,exit 1); fi
petsc-bootstrap:
	GPUFORMATS_CACHE=$(GPUFORMATS_CACHE) PETSC_DIR= config/bootstrap-petsc.sh
else
include $(PETSC_VARIABLES)

# ---------------------------------------------------------------------------------------------
# CUDA architectures: CUDA_ARCH="80 90" overrides; else the ones the PETSc in use was built for (its
# -gencode flags); else a fat binary for sm_80, sm_90 and sm_100, with PTX for newer GPUs.
PETSC_GENCODE := $(filter arch=%,$(CUDAC_FLAGS))
ifdef CUDA_ARCH
GENCODE     := $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(a),code=sm_$(a))
else ifneq ($(PETSC_GENCODE),)
GENCODE     := $(addprefix -gencode ,$(PETSC_GENCODE))
else
GENCODE     := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_100,code=[sm_100,compute_100]
endif
CUDA_HOME   := $(patsubst %/bin/nvcc,%,$(CUDAC))
# NCCL (optional: the halo exchange of the mpi types): its header where found (NCCL_INCLUDE, the
# bootstrap's copy, the system's); the library is loaded at run time, so a build without the header
# still runs everywhere, with -mat_gpuformats_halo nccl a clear error. `make nccl-header` fetches it.
NCCL_INCLUDE ?= $(firstword $(patsubst %/nccl.h,%,$(wildcard $(GPUFORMATS_CACHE)/nccl/include/nccl.h $(CUDA_HOME)/include/nccl.h /usr/include/nccl.h)))
NCCL_FLAGS  := $(if $(NCCL_INCLUDE),-DGPUFORMATS_HAVE_NCCL -I$(NCCL_INCLUDE))
build/src/halo/nccl_comm.o: GF_CXXFLAGS += $(NCCL_FLAGS)
# PETSc's SeqAIJ data structure (src/mat/impls/aij/seq/aij.h, which PETSc does not install): the seq
# types hook its value accessors, so that host readers get the layout's values (src/petsc/gf_values.cpp).
# From a PETSc source tree: PETSC_SRC, else PETSC_DIR when it is one, else the bootstrap's source.
PETSC_SRC   ?= $(firstword $(patsubst %/src/mat/impls/aij/seq/aij.h,%,$(wildcard $(PETSC_DIR)/src/mat/impls/aij/seq/aij.h $(GPUFORMATS_CACHE)/src/petsc-3.26*/src/mat/impls/aij/seq/aij.h)))
build/src/petsc/gf_values.o build/src/petsc/gf_coo.o: GF_CXXFLAGS += -I$(PETSC_SRC)/include
build/src/petsc/gf_values.o build/src/petsc/gf_coo.o: | check-petsc-src
.PHONY: check-petsc-src
check-petsc-src:
	@test -f "$(PETSC_SRC)/src/mat/impls/aij/seq/aij.h" || { echo "gpuformats: PETSc's source tree is needed for src/mat/impls/aij/seq/aij.h (not installed by PETSc): set PETSC_SRC to the PETSc 3.26 source directory" >&2; exit 1; }
INCLUDES    := -Iinclude -Isrc $(PETSC_CC_INCLUDES)
GF_CXXFLAGS := -std=gnu++20 -O2 -fPIC -Wall -Wno-unknown-pragmas $(INCLUDES)
GF_CUFLAGS  := -ccbin $(CXX) -std=c++20 -O3 $(GENCODE) -Xcompiler -fPIC --expt-relaxed-constexpr $(INCLUDES)
# The library's objects hide every symbol but the PETSC_EXTERN API of include/gpuformats.h (and
# PETSc's entry point PetscDLLibraryRegister_gpuformats): the plugin exports nothing else.
GF_HIDDEN   := -fvisibility=hidden -fvisibility-inlines-hidden
GF_LDLIBS   := $(PETSC_LIB) -L$(CUDA_HOME)/lib64 -lcudadevrt -lcudart
# Executables find the plugin next to them, wherever the tree is (bin/, bin/test/ -> lib/).
RPATH_BIN   := -Wl,-rpath,'$$ORIGIN/../lib'
RPATH_TEST  := -Wl,-rpath,'$$ORIGIN/../../lib'

SRC_CXX   := $(shell find src -name '*.cpp' | sort)
SRC_CU    := $(shell find src -name '*.cu' ! -name '*_rdc.cu' | sort)
SRC_RDC   := $(shell find src -name '*_rdc.cu' | sort)
OBJ       := $(SRC_CXX:%.cpp=build/%.o) $(SRC_CU:%.cu=build/%.o) $(SRC_RDC:%.cu=build/%.o)
RDC_OBJ   := $(SRC_RDC:%.cu=build/%.o)
DLINK_OBJ := $(if $(SRC_RDC),build/device_link.o)
LIB       := lib/libgpuformats.so
# The plugin: everything but the matrix generators. The internal archive, for the tests and the
# benchmark (which call the layers below PETSc): everything but the PETSc glue.
LIB_OBJ      := $(filter-out build/src/matgen/%,$(OBJ))
INTERNAL_OBJ := $(filter-out build/src/petsc/%,$(OBJ))
INTERNAL     := lib/libgpuformats_internal.a

EXAMPLES  := $(patsubst examples/%.cpp,bin/%,$(wildcard examples/*.cpp))
UNIT      := $(patsubst test/unit/%.cpp,bin/test/%,$(wildcard test/unit/*.cpp)) $(patsubst test/unit/%.cu,bin/test/%,$(wildcard test/unit/*.cu))
GPUTESTS  := $(patsubst test/gpu/%.cpp,bin/test/%,$(wildcard test/gpu/*.cpp))
PETSCTESTS:= $(patsubst test/petsc/%.cpp,bin/test/%,$(wildcard test/petsc/*.cpp))
# PETSc tutorials the tests and the demo run (test/conformance/tutorials.txt names most of them).
TUTORIALS := $(addprefix bin/petsc/,snes_ex14 snes_ex3 snes_ex5 snes_ex19 ksp_ex2 ksp_ex7 ksp_ex29 ksp_ex43 ksp_ex45 ksp_ex49 ksp_ex50 ksp_ex56 ts_ex2 ts_ex4 mat_ex18)

all: check-petsc $(LIB) $(INTERNAL) $(EXAMPLES) $(UNIT) $(GPUTESTS) $(PETSCTESTS) $(TUTORIALS)
lib: check-petsc $(LIB)

check-petsc: build/petsc-ok
build/petsc-ok: config/check-petsc.sh
	@mkdir -p build && config/check-petsc.sh && touch $@

build/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(GF_CXXFLAGS) $(GF_HIDDEN) -MMD -MP -c $< -o $@
build/%.o: %.cu
	@mkdir -p $(dir $@)
	$(CUDAC) $(GF_CUFLAGS) -Xcompiler "$(GF_HIDDEN)" $(if $(filter %_rdc.cu,$<),-rdc=true) -MMD -MP -c $< -o $@
# Dynamic parallelism (SURAA) needs relocatable device code, linked here into the library.
build/device_link.o: $(RDC_OBJ)
	$(CUDAC) $(GENCODE) -Xcompiler -fPIC -dlink $^ -o $@ -lcudadevrt

# The flags live here: a changed makefile rebuilds the library's objects.
$(OBJ): makefile

$(LIB): $(LIB_OBJ) $(DLINK_OBJ) config/exports.map
	@mkdir -p lib
	$(CXX) -shared -o $@ $(LIB_OBJ) $(DLINK_OBJ) -Wl,--version-script=config/exports.map $(GF_LDLIBS)
$(INTERNAL): $(INTERNAL_OBJ) $(DLINK_OBJ)
	@mkdir -p lib
	rm -f $@ && ar rcs $@ $^

# Tests and the benchmark: the layers below PETSc from the archive, the PETSc types from the plugin.
# (Secondary expansion from here on: $$* in a prerequisite is the stem, so an example's own
# kernels file, examples/<name>_kernels.cu, is a prerequisite of bin/<name>.)
.SECONDEXPANSION:
bin/%: examples/%.cpp $(LIB) $(INTERNAL) $$(wildcard examples/$$*_kernels.cu)
	@mkdir -p bin
	$(if $(wildcard examples/$*_kernels.cu),$(CUDAC) $(GF_CUFLAGS) -c examples/$*_kernels.cu -o build/$*_kernels.o)
	$(CXX) $(GF_CXXFLAGS) $< $(if $(wildcard examples/$*_kernels.cu),build/$*_kernels.o) -o $@ $(INTERNAL) -Llib -lgpuformats $(GF_LDLIBS) $(RPATH_BIN)

bin/test/%: test/unit/%.cpp $(INTERNAL) $(wildcard test/common/*.hpp)
	@mkdir -p bin/test
	$(CXX) $(GF_CXXFLAGS) -Itest $< -o $@ $(INTERNAL) $(GF_LDLIBS)
# Unit tests in CUDA C++ run device-builder code on thrust::host: compiled by nvcc, no GPU needed.
bin/test/%: test/unit/%.cu $(INTERNAL) $(wildcard test/common/*.hpp)
	@mkdir -p bin/test build/test
	$(CUDAC) $(GF_CUFLAGS) -Itest -c $< -o build/test/$*.o
	$(CXX) build/test/$*.o -o $@ $(INTERNAL) $(GF_LDLIBS)
bin/test/%: test/gpu/%.cpp $(LIB) $(INTERNAL) $(wildcard test/common/*.hpp)
	@mkdir -p bin/test
	$(CXX) $(GF_CXXFLAGS) -Itest $< -o $@ $(INTERNAL) -Llib -lgpuformats $(GF_LDLIBS) $(RPATH_TEST)
bin/test/%: test/petsc/%.cpp $(LIB) $(INTERNAL) $(wildcard test/common/*.hpp)
	@mkdir -p bin/test
	$(CXX) $(GF_CXXFLAGS) -Itest $< -o $@ $(INTERNAL) -Llib -lgpuformats $(GF_LDLIBS) $(RPATH_TEST)

# PETSc's own tutorials, compiled unmodified from PETSc's source (they never link our library:
# it comes in at run time through -dll_append).
TUTORIAL_SRC = $(firstword $(wildcard $(PETSC_DIR)/share/petsc/examples/src/$(1) $(PETSC_DIR)/src/$(1)))
bin/petsc/ksp_%: $$(call TUTORIAL_SRC,ksp/ksp/tutorials/$$*.c)
	@mkdir -p bin/petsc
	$(PCC_LINKER) $(PETSC_CC_INCLUDES) -O2 $< -o $@ $(PETSC_LIB)
bin/petsc/snes_%: $$(call TUTORIAL_SRC,snes/tutorials/$$*.c)
	@mkdir -p bin/petsc
	$(PCC_LINKER) $(PETSC_CC_INCLUDES) -O2 $< -o $@ $(PETSC_LIB)
bin/petsc/ts_%: $$(call TUTORIAL_SRC,ts/tutorials/$$*.c)
	@mkdir -p bin/petsc
	$(PCC_LINKER) $(PETSC_CC_INCLUDES) -O2 $< -o $@ $(PETSC_LIB)
# Mat ex18 (COO assembly of a finite element matrix): its CUDA part is for aijcusparse only, built
# beside it as PETSc builds it; its Kokkos part needs Kokkos, which this PETSc lacks.
bin/petsc/mat_ex18: $(call TUTORIAL_SRC,mat/tutorials/ex18.c) $(call TUTORIAL_SRC,mat/tutorials/ex18cu.cu)
	@mkdir -p bin/petsc build/petsc
	$(CUDAC) $(GF_CUFLAGS) -c $(word 2,$^) -o build/petsc/ex18cu.o
	$(PCC_LINKER) $(PETSC_CC_INCLUDES) -O2 $< build/petsc/ex18cu.o -o $@ $(PETSC_LIB)

# Experiments behind tuning choices (bench/experiments/<name>/, each with a README): built, not run.
# A variant of another experiment is kept as a patch to it, built from the patched source. The patch's
# first line names the base: "--- <base>.cu" (../<base>/<base>.cu) or "--- <dir>/<file>.cu" (../<dir>/<file>.cu).
EXP_CU    := $(wildcard bench/experiments/*/*.cu)
EXP_PATCH := $(wildcard bench/experiments/*/*.patch)
exp_base   = $(if $(findstring /,$(1)),bench/experiments/$(1),bench/experiments/$(basename $(1))/$(1))
experiments: $(INTERNAL)
	@mkdir -p bin/experiments build/experiments
	$(foreach p,$(EXP_PATCH),patch -s -o build/experiments/$(basename $(notdir $(p))).cu \
	  $(call exp_base,$(word 2,$(shell head -1 $(p)))) $(p) &&) true
	$(foreach c,$(EXP_CU) $(foreach p,$(EXP_PATCH),build/experiments/$(basename $(notdir $(p))).cu),\
	  $(CUDAC) $(GF_CUFLAGS) -c $(c) -o build/experiments/$(basename $(notdir $(c))).o && \
	  $(CXX) build/experiments/$(basename $(notdir $(c))).o -o bin/experiments/$(basename $(notdir $(c))) $(INTERNAL) $(GF_LDLIBS) &&) true

# petsc4py for this PETSc (config/bootstrap-python.sh; PYTHON=python3.12 for another interpreter),
# in the cache; build/python-venv points at it.
PYTHON ?= python3
python:
	@venv=$$(GPUFORMATS_CACHE=$(GPUFORMATS_CACHE) config/bootstrap-python.sh $(PYTHON)) && mkdir -p build && ln -sfn "$$venv" build/python-venv && \
	  echo "petsc4py ready in $$venv (PYTHONPATH: make -s pythonpath)" >&2
pythonpath: python
	@echo "$(CURDIR)/python:$$(build/python-venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"

test: all python
	@test/run.sh

demo: all
	examples/demo.sh

BUNDLE_PYTHON ?=
bundle: all
	BUNDLE_PYTHON=$(BUNDLE_PYTHON) config/make-bundle.sh

PREFIX ?= /usr/local
install: $(LIB)
	install -d $(PREFIX)/lib $(PREFIX)/include $(PREFIX)/lib/pkgconfig
	install -m 755 $(LIB) $(PREFIX)/lib/
	install -m 644 include/gpuformats.h $(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@PETSC_DIR@|$(PETSC_DIR)|g' config/gpuformats.pc.in > $(PREFIX)/lib/pkgconfig/gpuformats.pc
	install -d $(PREFIX)/share/gpuformats/models
	install -m 644 share/gpuformats/models/*.json $(PREFIX)/share/gpuformats/models/
	install -d $(PREFIX)/lib/gpuformats
	install -m 644 python/gpuformats/*.py $(PREFIX)/lib/gpuformats/

-include $(OBJ:.o=.d)
endif

# NCCL's header (optional), then rebuild to use it: the bootstrap fetches it with PETSc.
nccl-header:
	GPUFORMATS_CACHE=$(GPUFORMATS_CACHE) config/fetch-nccl-header.sh

clean:
	rm -rf build lib bin bundle

help:
	@sed -n '3,16p' makefile | sed 's/^# \{0,1\}//'
