#!/usr/bin/env python3
"""A gpuauto model whose DP splits a stencil from long rows: evchyb pays for each strip's longest row,
cuSPARSE CSR pays more per nonzero (the committed model's other fields kept). For the partition checks
(test/run.sh) and the partition experiment (bench/experiments/partitions).
usage: split_model.py committed-model.json out.json"""
import json
import sys

m = json.load(open(sys.argv[1]))
pad = [0] * (len(m["terms"]) - 4)  # the terms beyond launch, rows, nnz, max_row: 0
m["candidates"] = [dict(m["candidates"][0], name="evchyb", coef=[1e-7, 1e-10, 1e-11, 1e-9] + pad),
                   dict(m["candidates"][0], name="cusparse_csr", coef=[1e-7, 1e-10, 3e-11, 0] + pad)]
json.dump(m, open(sys.argv[2], "w"))
