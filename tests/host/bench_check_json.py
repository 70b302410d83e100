#!/usr/bin/env python3
"""Check a `fcachectl bench` results.json against its schema
(docs/PERFORMANCE.md, "results.json").  Usage:

  bench_check_json.py FILE [--configs a,b,...] [--zero-errors]

Prints one problem per line and exits 1 if there is any, else prints "ok".
"""
import json
import sys

NUM = (int, float)


def check(d, want_configs, zero_errors):
    errs = []

    def need(obj, key, types, where):
        if not isinstance(obj, dict) or key not in obj:
            errs.append("%s: missing %s" % (where, key))
            return None
        v = obj[key]
        if types is not None and not isinstance(v, types):
            errs.append("%s.%s: %r is not %s" % (where, key, v, types))
            return None
        return v

    if need(d, "schema", str, "top") != "fcache-bench/1":
        errs.append("top.schema is not fcache-bench/1")
    need(d, "command", str, "top")
    w = need(d, "workload", dict, "top") or {}
    prof = need(w, "profile", str, "workload")
    if prof not in ("tpcc", "read-write", "read-only"):
        errs.append("workload.profile %r unknown" % prof)
    types = need(w, "transaction_types", list, "workload") or []
    if types and sum(t.get("percent", 0) for t in types) != 100:
        errs.append("workload.transaction_types percents do not add to 100")
    for t in types:
        for k in ("name", "percent", "page_reads", "page_updates",
                  "range_scans", "range_pages"):
            need(t, k, None, "transaction_type")
    need(w, "distribution", str, "workload")
    for k in ("seed", "page_size", "datafile_pages"):
        need(w, k, int, "workload")
    for k in ("buffer_pool_mb", "warmup_s", "time_s", "rt_limit_s"):
        need(w, k, NUM, "workload")
    users = need(w, "users", list, "workload") or []
    if not users or not all(isinstance(u, int) and u > 0 for u in users):
        errs.append("workload.users must be a non-empty list of positive integers")
    if "chart" not in d:
        errs.append("top: missing chart")
    cfgs = need(d, "configs", list, "top") or []
    names = [c.get("name") for c in cfgs]
    if not cfgs or names[0] not in ("baseline", "run") and len(cfgs) > 1:
        errs.append("configs: the first configuration must be the baseline")
    if want_configs and names != want_configs:
        errs.append("configs are %s, expected %s" % (names, want_configs))
    for c in cfgs:
        where = "config %s" % c.get("name")
        need(c, "name", str, where)
        need(c, "device", str, where)
        need(c, "buffer_pool_frames", int, where)
        need(c, "max_users_under_rt_limit", int, where)
        integ = need(c, "integrity", dict, where) or {}
        pv = need(integ, "pages_verified", int, where + ".integrity")
        ne = need(integ, "errors", int, where + ".integrity")
        if zero_errors:
            if ne != 0:
                errs.append("%s: %s integrity errors" % (where, ne))
            if not pv:
                errs.append("%s: no page reads were verified" % where)
            if integ.get("error"):
                errs.append("%s: error %s" % (where, integ.get("error")))
        need(c, "warmup", dict, where)
        steps = need(c, "steps", list, where) or []
        if [s.get("users") for s in steps] != users:
            errs.append("%s: steps users %s differ from workload.users %s"
                        % (where, [s.get("users") for s in steps], users))
        for s in steps:
            sw = "%s users %s" % (where, s.get("users"))
            for k in ("seconds", "tps", "avg_ms", "p95_ms", "p99_ms", "max_ms"):
                v = need(s, k, NUM, sw)
                if v is not None and v < 0:
                    errs.append("%s: %s negative" % (sw, k))
            if s.get("p95_ms", 0) > s.get("p99_ms", 0) + 1e-9:
                errs.append("%s: p95 above p99" % sw)
            for k in ("tps_ratio", "avg_rt_ratio"):
                if k not in s or not (s[k] is None or isinstance(s[k], NUM)):
                    errs.append("%s: %s missing or not a number/null" % (sw, k))
            cnt = need(s, "counts", dict, sw) or {}
            for k in ("transactions", "page_accesses", "page_updates",
                      "hot_accesses", "buffer_pool_hits", "dev_reads",
                      "dev_writes", "log_writes", "fsyncs", "verify_errors"):
                need(cnt, k, int, sw + ".counts")
            if s.get("tps", 0) <= 0:
                errs.append("%s: no transactions completed" % sw)
    summ = need(d, "summary", list, "top") or []
    if [x.get("config") for x in summ] != names:
        errs.append("summary configs %s differ from configs %s"
                    % ([x.get("config") for x in summ], names))
    for x in summ:
        need(x, "users", int, "summary")
        need(x, "tps_ratio", NUM, "summary")
        need(x, "avg_rt_ratio", NUM, "summary")
    return errs


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    want, zero = None, False
    if "--configs" in args:
        i = args.index("--configs")
        want = args[i + 1].split(",")
        del args[i:i + 2]
    if "--zero-errors" in args:
        zero = True
        args.remove("--zero-errors")
    try:
        with open(args[0]) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        print("cannot load %s: %s" % (args[0], e))
        return 1
    errs = check(d, want, zero)
    for e in errs:
        print(e)
    if errs:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
