#!/usr/bin/env python3
# The suite's measurements for refit: one line per matrix of a bench_spmv JSON,
#   label spec t_evchyb t_pjds t_pellr t_suraa t_cusparse(alg1) p_evchyb ... p_cusparse_csr
# (seconds, 0 = not measured; p = the JSON's model predicted_us, 0 = none). Usage: extract.py in.json > out.tsv
# With -model file.json [K]: the model file as one line per candidate (name then its first K
# coefficients, 8 unless given, zeros past its own), after a first line "strip_rows l2_bytes gpu"
# (refit reads this, not the library's model reader, so that it does not depend on src/model while
# that changes; refit.cu reads 6, the patched experiments 8).
import json, sys
types = ["evchyb", "pjds", "pellr", "suraa", "aijcusparse:alg1"]
cands = ["evchyb", "pjds", "pellr", "suraa", "cusparse_csr"]
if sys.argv[1] == "-model":
    d = json.load(open(sys.argv[2]))
    print(d["strip_rows"], d["l2_bytes"], d["gpu"].replace(" ", "_"))
    k = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    for c in d["candidates"]:
        print(c["name"], *(c["coef"] + [0] * k)[:k], c["samples"], c["rms_rel_error"], c["max_rel_error"])
    sys.exit(0)
for m in json.load(open(sys.argv[1]))["matrices"]:
    t = {r["type"]: r.get("spmv_median_s") for r in m.get("results", []) if r.get("status") == "ok"}
    p = (m.get("model") or {}).get("predicted_us") or {}
    print(m["label"], m["spec"], *[t.get(k) or 0 for k in types], *[p.get(k) or 0 for k in cands])
