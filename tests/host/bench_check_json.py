#!/usr/bin/env python3
"""Check a `fcachectl bench` results.json against its schema
(docs/PERFORMANCE.md, "results.json").  Usage:

  bench_check_json.py FILE [--configs a,b,...] [--zero-errors]

Prints one problem per line and exits 1 if there is any, else prints "ok".
"""
import json
import sys

NUM = (int, float)


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def close(a, b):
    """equal up to 6 significant digits (the writer keeps all of them)"""
    return abs(a - b) <= 2e-5 * max(abs(a), abs(b), 1e-9)


def first_by_users(steps):
    """the first step of each user count (a ladder may repeat a count; the
    ratios are to the baseline's first step of that count)"""
    out = {}
    for s in steps:
        out.setdefault(s.get("users"), s)
    return out


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

    if need(d, "schema", str, "top") != "fcache.bench":
        errs.append("top.schema is not fcache.bench")
    if need(d, "schema_version", int, "top") != 2:
        errs.append("top.schema_version is not 2")
    need(d, "command", str, "top")
    w = need(d, "workload", dict, "top") or {}
    prof = need(w, "profile", str, "workload")
    if prof not in ("tpcc-like", "read-write", "read-only"):
        errs.append("workload.profile %r unknown" % prof)
    types = need(w, "transaction_types", list, "workload") or []
    if types and sum(t.get("percent", 0) for t in types) != 100:
        errs.append("workload.transaction_types percents do not add to 100")
    for t in types:
        for k in ("name", "percent", "page_reads", "page_updates",
                  "range_scans", "range_pages", "keying_s", "think_s"):
            need(t, k, None, "transaction_type")
    need(w, "distribution", str, "workload")
    for k in ("seed", "page_size", "datafile_pages"):
        need(w, k, int, "workload")
    for k in ("buffer_pool_mb", "warmup_s", "time_s", "rt_limit_s"):
        need(w, k, NUM, "workload")
    users = need(w, "user_steps", list, "workload") or []
    if not users or not all(isinstance(u, int) and u > 0 for u in users):
        errs.append("workload.user_steps must be a non-empty list of positive integers")
    term = need(w, "terminal_model", bool, "workload")
    if term is not None and term != any(t.get("keying_s", 0) > 0 or t.get("think_s", 0) > 0
                                        for t in types):
        errs.append("workload.terminal_model %r disagrees with the types' times" % term)
    for k in ("think_time_s", "keying_time_s"):
        if k not in w or not (w[k] is None or isinstance(w[k], NUM)):
            errs.append("workload: %s missing or not a number/null" % k)
    search_max = need(w, "rt_search_max_steps", int, "workload")
    if "log_device" not in w or not (w["log_device"] is None or isinstance(w["log_device"], str)):
        errs.append("workload: log_device missing or not a string/null")
    for k in ("origin", "flash", "flash2"):
        if k not in w or not (w[k] is None or isinstance(w[k], str)):
            errs.append("workload: %s missing or not a string/null" % k)
    if w.get("flash2") is not None and (w.get("flash") is None or w["flash2"] == w["flash"]):
        errs.append("workload: flash2 %r without a flash of its own (flash %r)"
                    % (w.get("flash2"), w.get("flash")))
    if (w.get("origin") is None) != (w.get("flash") is None):
        errs.append("workload: origin %r and flash %r (compare gives both, run neither)"
                    % (w.get("origin"), w.get("flash")))
    gc = need(w, "group_commit", bool, "workload")
    gmax = need(w, "group_commit_max_records", int, "workload")
    if gc is False and gmax != 1 or gc and not (isinstance(gmax, int) and gmax > 1):
        errs.append("workload: group_commit_max_records %r with group_commit %r" % (gmax, gc))
    rounds = need(w, "rounds", int, "workload")
    if rounds is not None and rounds < 1:
        errs.append("workload.rounds %r is not positive" % rounds)
    if "chart" not in d:
        errs.append("top: missing chart")
    cfgs = need(d, "configs", list, "top") or []
    names = [c.get("name") for c in cfgs]
    order = need(d, "run_order", list, "top") or []
    if rounds is not None and len(order) != rounds:
        errs.append("run_order has %d rounds, workload.rounds is %s" % (len(order), rounds))
    for k, o in enumerate(order):
        if sorted(o) != sorted(names):
            errs.append("run_order round %d %s is not an order of %s" % (k + 1, o, names))
        elif o != (names if k % 2 == 0 else names[::-1]):
            errs.append("run_order round %d %s does not alternate" % (k + 1, o))
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
        cr = need(c, "rounds", int, where)
        if cr is not None and not (1 <= cr <= (rounds or 1)):
            errs.append("%s: rounds %s not in 1..%s" % (where, cr, rounds))
        steps = need(c, "steps", list, where) or []
        base = first_by_users(cfgs[0].get("steps", [])) if cfgs else {}
        if [s.get("users") for s in steps] != users:
            errs.append("%s: steps users %s differ from workload.user_steps %s"
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
            errs.extend(check_rounds(s, sw, cr, base.get(s.get("users"))))
            errs.extend(check_step_v2(s, sw, base.get(s.get("users")), types))
            cnt = need(s, "counts", dict, sw) or {}
            for k in ("transactions", "page_accesses", "page_updates",
                      "hot_accesses", "buffer_pool_hits", "dev_reads",
                      "dev_writes", "cold_dev_reads", "cold_dev_writes", "log_writes",
                      "log_records", "fsyncs", "verify_errors"):
                need(cnt, k, int, sw + ".counts")
            if cnt.get("cold_dev_reads", 0) > cnt.get("dev_reads", 0):
                errs.append("%s: cold_dev_reads above dev_reads" % sw)
            errs.extend(check_cleaner(cnt, sw))
            errs.extend(check_groups(s, sw, gc, gmax))
            if s.get("tps", 0) <= 0:
                errs.append("%s: no transactions completed" % sw)
        errs.extend(check_search(c, where, w, search_max, users, cr))
        errs.extend(check_price(c, where, d))
        errs.extend(check_backlog(c, where))
        errs.extend(check_origin_io(c, where))
    summ = need(d, "summary", list, "top") or []
    if [x.get("config") for x in summ] != names:
        errs.append("summary configs %s differ from configs %s"
                    % ([x.get("config") for x in summ], names))
    for x in summ:
        need(x, "users", int, "summary")
        for k in ("tps_ratio", "avg_rt_ratio"):
            # null: a step without transactions has no ratio
            if k not in x or not (x[k] is None or isinstance(x[k], NUM)):
                errs.append("summary: %s missing or not a number/null" % k)
        need(x, "rounds", int, "summary")
        errs.extend(check_summary_v2(x, cfgs, names))
    errs.extend(check_sweep(d, names))
    return errs


def check_cleaner(cnt, sw):
    """A batch of the page cleaner lasts at least as long as its slowest
    write (each sum truncates to whole microseconds once a batch)."""
    for k in ("cleaner_us", "cleaner_slowest_write_us", "fsyncs"):
        if not isinstance(cnt.get(k), int):
            return ["%s.counts: %s missing or not an integer" % (sw, k)]
    b, sl, fs = cnt["cleaner_us"], cnt["cleaner_slowest_write_us"], cnt["fsyncs"]
    if sl > b + fs:
        return ["%s: cleaner_slowest_write_us %d above cleaner_us %d" % (sw, sl, b)]
    return []


def check_groups(s, sw, gc, gmax):
    """redo writes and records: one write per record without group commit,
    at most group_commit_max_records with it; log_group_avg their ratio"""
    errs = []
    k = s.get("counts", {})
    wr, rec = k.get("log_writes"), k.get("log_records")
    if not isinstance(wr, int) or not isinstance(rec, int):
        return errs
    if gc is False and wr != rec:
        errs.append("%s: %d log writes for %d records without group commit" % (sw, wr, rec))
    if gc and isinstance(gmax, int) and not wr <= rec <= wr * gmax:
        errs.append("%s: %d log records in %d writes of at most %d" % (sw, rec, wr, gmax))
    avg = s.get("log_group_avg", "missing")
    if wr == 0 and avg is not None:
        errs.append("%s: log_group_avg %r without log writes" % (sw, avg))
    elif wr and not (isinstance(avg, NUM) and close(avg, rec / wr)):
        errs.append("%s: log_group_avg %r is not %d records / %d writes" % (sw, avg, rec, wr))
    return errs


def sweep_advice(sw):
    """the advice recomputed from the points: (kind, config, mb, ratio)"""
    pts = sw["points"]
    tps = [{c["name"]: c["tps"] for c in p["configs"]} for p in pts]
    cached = [c["name"] for c in pts[0]["configs"]][1:]
    if not cached or len(pts) < 2 or not tps[-1].get("baseline"):
        return (None, None, None, None)
    big = tps[-1]["baseline"]
    best = None
    for p, t in zip(pts, tps):
        have = [(t[c], c) for c in cached if t.get(c)]
        if not have:
            continue
        kt, kc = max(have, key=lambda x: x[0])
        if best is None or kt > best[0]:
            best = (kt, kc, p["buffer_pool_mb"])
        if kt >= big:
            return ("fast flash", kc, p["buffer_pool_mb"], kt / big)
    if best is None:
        return (None, None, None, None)
    return ("more memory", best[1], best[2], big / best[0])


def check_sweep(d, names):
    """--buffer-pool-sweep: the points, ratios at each size, the advice"""
    if "sweep" not in d:
        return ["top: missing sweep"]
    sw = d["sweep"]
    if sw is None:
        return []
    errs = []
    pts = sw.get("points")
    if not isinstance(sw.get("users"), int) or not isinstance(pts, list) or not pts:
        return ["sweep: users or points missing"]
    mbs = [p.get("buffer_pool_mb") for p in pts]
    if not all(isinstance(m, NUM) for m in mbs) or mbs != sorted(set(mbs)):
        errs.append("sweep: buffer pool sizes %r not increasing" % mbs)
    if d.get("workload", {}).get("buffer_pool_mb") is None:
        errs.append("sweep: no workload.buffer_pool_mb")
    for p in pts:
        where = "sweep at %s MB" % p.get("buffer_pool_mb")
        if not isinstance(p.get("results"), str) or not isinstance(p.get("buffer_pool_mb_used"), NUM):
            errs.append("%s: results or buffer_pool_mb_used missing" % where)
        cf = p.get("configs")
        if not isinstance(cf, list) or [c.get("name") for c in cf] != names:
            errs.append("%s: configs %r are not %s" % (where, cf, names))
            continue
        bt = cf[0].get("tps")
        for c in cf:
            t, r = c.get("tps"), c.get("tps_ratio", "missing")
            if t is None:
                if r is not None:
                    errs.append("%s %s: tps_ratio %r without tps" % (where, c["name"], r))
            elif not isinstance(t, NUM) or t <= 0:
                errs.append("%s %s: tps %r" % (where, c["name"], t))
            elif not ratio_ok(r, t, bt) or (bt is None and r is not None):
                errs.append("%s %s: tps_ratio %r is not %r / %r" % (where, c["name"], r, t, bt))
    if errs:
        return errs
    a = sw.get("advice") or {}
    kind, cfg, mb, ratio = sweep_advice(sw)
    if (a.get("kind"), a.get("config"), a.get("buffer_pool_mb")) != (kind, cfg, mb) or \
            (ratio is None) != (a.get("ratio") is None) or \
            (ratio is not None and not close(a["ratio"], ratio)):
        errs.append("sweep: advice %r, the points give %r" % (a, (kind, cfg, mb, ratio)))
    text = a.get("text")
    if not isinstance(text, str) or not text.startswith("advice: ") or \
            (kind and not (text.startswith("advice: " + kind + ": ") and cfg in text
                           and "%.2fx" % ratio in text)):
        errs.append("sweep: advice text %r does not say %r" % (text, (kind, cfg, ratio)))
    return errs


def ratio_ok(r, a, b):
    """@r is a / b, or None when b (or a) is not positive"""
    if not isinstance(a, NUM) or not isinstance(b, NUM) or a <= 0 or b <= 0:
        return r is None or (isinstance(r, NUM) and isinstance(a, NUM) and a == 0)
    return isinstance(r, NUM) and (close(r, a / b) or abs(r - a / b) < 1e-4)


def check_step_v2(s, sw, b, types):
    """schema 2: p95 ratio, NOPM (profiles with new_order), p90 by type"""
    errs = []
    for k in ("p95_ratio", "nopm", "nopm_ratio"):
        if k not in s or not (s[k] is None or isinstance(s[k], NUM)):
            errs.append("%s: %s missing or not a number/null" % (sw, k))
    names = [t.get("name") for t in types]
    p90 = s.get("p90_ms_by_type")
    if not isinstance(p90, dict) or sorted(p90) != sorted(names):
        errs.append("%s: p90_ms_by_type %r does not name the types %s" % (sw, p90, names))
    else:
        by = s.get("counts", {}).get("transactions_by_type", {})
        for n, v in p90.items():
            if by.get(n, 0) == 0 and v is not None:
                errs.append("%s: p90_ms_by_type.%s %r without transactions of the type" % (sw, n, v))
            elif by.get(n, 0) > 0 and not (isinstance(v, NUM) and v >= 0):
                errs.append("%s: p90_ms_by_type.%s %r is not a number >= 0" % (sw, n, v))
    has_no = "new_order" in names
    nopm = s.get("nopm")
    if has_no != (nopm is not None):
        errs.append("%s: nopm %r, expected %s" % (sw, nopm, "a number" if has_no else "null"))
    cnt = s.get("counts", {})
    rounds = s.get("rounds", 1)
    if has_no and isinstance(nopm, NUM) and rounds == 1 and s.get("seconds", 0) > 0:
        want = cnt.get("transactions_by_type", {}).get("new_order", 0) * 60 / s["seconds"]
        if not (close(nopm, want) or abs(nopm - want) < 1e-6):
            errs.append("%s: nopm %r, new_order per minute is %r" % (sw, nopm, want))
    if b and s.get("p95_ratio") is not None and \
            not ratio_ok(s["p95_ratio"], s.get("p95_ms"), b.get("p95_ms")):
        errs.append("%s: p95_ratio %r is not p95_ms / the baseline's" % (sw, s["p95_ratio"]))
    if b and s.get("nopm_ratio") is not None and not ratio_ok(s["nopm_ratio"], nopm, b.get("nopm")):
        errs.append("%s: nopm_ratio %r is not nopm / the baseline's" % (sw, s["nopm_ratio"]))
    return errs


def check_search(c, where, w, search_max, users, rounds):
    """schema 2: the search of the users under --rt-limit"""
    errs = []
    per_round = c.get("users_under_rt_limit_rounds")
    if not isinstance(per_round, list) or len(per_round) != (rounds or 1) or \
            not all(isinstance(u, int) and u >= 0 for u in per_round):
        errs.append("%s: users_under_rt_limit_rounds %r is not a count per round" % (where, per_round))
    elif median(per_round) // 1 != c.get("max_users_under_rt_limit"):
        errs.append("%s: max_users_under_rt_limit %r is not the median of %s"
                    % (where, c.get("max_users_under_rt_limit"), per_round))
    steps = c.get("rt_search_steps")
    if not isinstance(steps, list):
        return errs + ["%s: rt_search_steps is not a list" % where]
    if isinstance(search_max, int) and len(steps) > search_max:
        errs.append("%s: %d search steps, at most %d" % (where, len(steps), search_max))
    limit_ms = w.get("rt_limit_s", 0) * 1000
    top = max(users) if users else 0
    for st in steps:
        u = st.get("users")
        if not isinstance(u, int) or not 0 < u <= top or u in users:
            errs.append("%s: search step users %r is not between the ladder's counts" % (where, u))
        under = st.get("transactions", 0) > 0 and st.get("avg_ms", 0) < limit_ms
        if st.get("under_limit") is not under:
            errs.append("%s: search step at %r users: under_limit %r, avg %r ms, limit %r ms"
                        % (where, u, st.get("under_limit"), st.get("avg_ms"), limit_ms))
    if steps and rounds == 1:
        lad = [s for s in c.get("steps", []) if s.get("counts", {}).get("transactions", 0) > 0
               and s.get("avg_ms", 0) < limit_ms]
        best = max([s["users"] for s in lad] + [s["users"] for s in steps if s.get("under_limit")]
                   + [0])
        if c.get("max_users_under_rt_limit") != best:
            errs.append("%s: max_users_under_rt_limit %r, the largest count measured under the "
                        "limit is %r" % (where, c.get("max_users_under_rt_limit"), best))
    return errs


def check_backlog(c, where):
    """the backlog a cache left: null for the baseline, else MiB and seconds"""
    errs = []
    if "backlog" not in c:
        return ["%s: backlog missing" % where]
    b = c["backlog"]
    if b is None:
        return errs
    if c.get("name") in ("baseline", "run"):
        errs.append("%s: a backlog without a cache" % where)
    if not isinstance(b, dict):
        return errs + ["%s: backlog is not an object or null" % where]
    mib = b.get("dirty_mib")
    if not isinstance(mib, NUM) or mib < 0:
        errs.append("%s: backlog.dirty_mib %r is not a number >= 0" % (where, mib))
    if "writeback_s" not in b or not (b["writeback_s"] is None or
                                      (isinstance(b["writeback_s"], NUM) and b["writeback_s"] >= 0)):
        errs.append("%s: backlog.writeback_s missing or not a number >= 0/null" % where)
    return errs


def check_origin_io(c, where):
    """issue 33: the origin's requests a transaction are the counts over the
    transactions; the optimum's bound is at most its schedule, MIN with
    bypass hits at least as often as MIN, the distance is the cache's
    figure over the bound; the configuration's figures are the medians of
    its rounds'"""
    errs = []
    if "origin_io" not in c:
        return ["%s: origin_io missing" % where]
    o = c["origin_io"]
    if o is None:
        return errs
    rounds = o.get("by_round") or []
    if len(rounds) != (c.get("rounds") or 1):
        errs.append("%s: origin_io.by_round has %d rounds, the configuration %r"
                    % (where, len(rounds), c.get("rounds")))
    per, opt = [], {}
    for k, r in enumerate(rounds):
        rw = "%s.origin_io.by_round[%d]" % (where, k)
        t, rd, wr = r.get("transactions"), r.get("reads"), r.get("writes")
        if rd is not None and t:
            want = (rd + wr) / t
            if r.get("ops_per_txn") is None or not close(r["ops_per_txn"], want):
                errs.append("%s: ops_per_txn %r, (reads + writes) / transactions is %r"
                            % (rw, r.get("ops_per_txn"), want))
            per.append(want)
        p = r.get("optimum")
        if p is None:
            continue
        if p.get("transactions") != t:
            errs.append("%s: the trace has %r transactions, the run %r"
                        % (rw, p.get("transactions"), t))
        lb, sch = p.get("ops_per_txn_bound"), p.get("ops_per_txn_schedule")
        if lb is not None and sch is not None and lb > sch * (1 + 1e-9) + 1e-12:
            errs.append("%s: optimum bound %r above its schedule %r" % (rw, lb, sch))
        fill, byp = p.get("read_hit_ratio_fill"), p.get("read_hit_ratio_bypass")
        if fill is not None and byp is not None and not (0 <= fill <= byp + 1e-12 <= 1 + 1e-9):
            errs.append("%s: read hit ratios fill %r, bypass %r out of order" % (rw, fill, byp))
        dist = p.get("distance")
        if dist is not None and not (lb and r.get("ops_per_txn") is not None and
                                     close(dist, r["ops_per_txn"] / lb)):
            errs.append("%s: optimum distance %r is not ops_per_txn / bound" % (rw, dist))
        for key in ("ops_per_txn_bound", "ops_per_txn_schedule", "read_hit_ratio_fill",
                    "read_hit_ratio_bypass", "distance"):
            if p.get(key) is not None:
                opt.setdefault(key, []).append(p[key])
    if per and (o.get("ops_per_txn") is None or not close(o["ops_per_txn"], median(per))):
        errs.append("%s: origin_io.ops_per_txn %r is not the median of the rounds' %r"
                    % (where, o.get("ops_per_txn"), per))
    m = o.get("optimum")
    if opt and m is None:
        errs.append("%s: origin_io.optimum missing beside traced rounds" % where)
    for key, v in opt.items():
        if m is not None and (m.get(key) is None or not close(m[key], median(v))):
            errs.append("%s: origin_io.optimum.%s %r is not the median of the rounds' %r"
                        % (where, key, m.get(key), v))
    return errs


def check_price(c, where, d):
    """--price: price_per_tps is the price over the TPS at the summary's user count"""
    errs = []
    for k in ("price", "price_per_tps"):
        if k not in c or not (c[k] is None or isinstance(c[k], NUM)):
            errs.append("%s: %s missing or not a number/null" % (where, k))
    price, per = c.get("price"), c.get("price_per_tps")
    if price is None:
        if per is not None:
            errs.append("%s: price_per_tps %r without a price" % (where, per))
        return errs
    summ = d.get("summary") or [{}]
    u = summ[0].get("users")
    st = [s for s in c.get("steps", []) if s.get("users") == u]
    tps = st[0].get("tps", 0) if st else 0
    if tps > 0 and not (isinstance(per, NUM) and close(per, price / tps)):
        errs.append("%s: price_per_tps %r is not %r / %r TPS" % (where, per, price, tps))
    return errs


def check_summary_v2(x, cfgs, names):
    """schema 2: users under the limit with its ratio, ratios at every user count"""
    errs = []
    if x.get("config") not in names:
        return errs
    c = cfgs[names.index(x.get("config"))]
    base = cfgs[0]
    if x.get("users_under_rt_limit") != c.get("max_users_under_rt_limit"):
        errs.append("summary %s: users_under_rt_limit %r differs from the config's %r"
                    % (x.get("config"), x.get("users_under_rt_limit"),
                       c.get("max_users_under_rt_limit")))
    if not ratio_ok(x.get("users_under_rt_limit_ratio"), c.get("max_users_under_rt_limit"),
                    base.get("max_users_under_rt_limit")):
        errs.append("summary %s: users_under_rt_limit_ratio %r is not the ratio of %r to %r"
                    % (x.get("config"), x.get("users_under_rt_limit_ratio"),
                       c.get("max_users_under_rt_limit"), base.get("max_users_under_rt_limit")))
    ratios = x.get("ratios")
    steps = first_by_users(c.get("steps", []))
    if not isinstance(ratios, list) or [q.get("users") for q in ratios] != \
            [u for u in first_by_users(base.get("steps", [])) if u in steps]:
        return errs + ["summary %s: ratios %r are not one per user count" % (x.get("config"), ratios)]
    for q in ratios:
        s = steps[q["users"]]
        for k in ("tps_ratio", "avg_rt_ratio", "p95_ratio", "nopm_ratio"):
            if q.get(k, "missing") != s.get(k, "absent"):
                errs.append("summary %s at %s users: %s %r differs from the step's %r"
                            % (x.get("config"), q["users"], k, q.get(k), s.get(k)))
    return errs


def check_rounds(s, sw, cfg_rounds, b):
    """The figures of each round of a step, their median and spread, and
    the ratios to the baseline step @b computed from the medians."""
    errs = []
    n = s.get("rounds")
    if not isinstance(n, int) or n < 1 or (cfg_rounds and n > cfg_rounds):
        return ["%s: rounds %r not in 1..%s" % (sw, n, cfg_rounds)]
    for fig, key in (("tps", "tps"), ("avg_ms", "avg_ms")):
        v = s.get(fig + "_rounds")
        if not isinstance(v, list) or len(v) != n or not all(isinstance(x, NUM) for x in v):
            errs.append("%s: %s_rounds is not a list of %d numbers" % (sw, fig, n))
            continue
        lo, hi, sp = (s.get(fig + k) for k in ("_min", "_max", "_spread_pct"))
        if not all(isinstance(x, NUM) for x in (lo, hi, sp)):
            errs.append("%s: %s_min/_max/_spread_pct missing" % (sw, fig))
            continue
        med = s.get(key)
        if not isinstance(med, NUM) or not close(med, median(v)):
            errs.append("%s: %s %r is not the median of %s" % (sw, key, med, v))
        if not (close(lo, min(v)) and close(hi, max(v))):
            errs.append("%s: %s min..max %r..%r differ from %s" % (sw, fig, lo, hi, v))
        want = (hi - lo) / med * 100 if isinstance(med, NUM) and med > 0 else 0
        if abs(sp - want) > 1e-3 * max(want, 1):
            errs.append("%s: %s_spread_pct %r, expected %r" % (sw, fig, sp, want))
    if b and b.get("tps", 0) > 0 and b.get("avg_ms", 0) > 0:
        for k, fig in (("tps_ratio", "tps"), ("avg_rt_ratio", "avg_ms")):
            r = s.get(k)
            if isinstance(r, NUM) and isinstance(s.get(fig), NUM) and \
                    not close(r, s[fig] / b[fig]) and abs(r - s[fig] / b[fig]) > 1e-4:
                errs.append("%s: %s %r is not the ratio of the medians" % (sw, k, r))
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
