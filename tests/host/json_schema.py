#!/usr/bin/env python3
"""The schemas of fcachectl's JSON output (docs/JSON.md), checked.  Usage:

  json_schema.py [--schema NAME] FILE...   each FILE (or - for stdin): one
                                           document, or one a line (status
                                           --watch); checked against its
                                           "schema", which must be NAME if given
  json_schema.py --self-check [DOC.md]     the specs below give every key one
                                           type in all schemas; with DOC.md,
                                           its key tables list exactly the
                                           keys and types of the specs

A document must have "schema" and "schema_version" 1, every key the type
given here, no key that is not here (docs/JSON.md would miss it).  An error
document ({"schema", "schema_version", "error"}) passes for any schema.
Integers must be JSON integers (no fraction, no exponent).
Prints "ok" or one problem per line and exits 1.
"""
import json
import re
import sys

VERSION = 1
# schemas with a version of their own (docs/JSON.md)
VERSIONS = {"fcache.bench": 2}

# Types: "str", "int" (a JSON integer), "num" (any JSON number), "bool";
# "T|null" when the value may be null; {key: type} an object, "?key" an
# optional key; [type] an array; ("map", type) an object with any keys;
# ("null", {key: type}) an object or null.
PROBLEM = {"severity": "str", "kind": "str", "message": "str"}
SUPERBLOCK = {
    "slot": "int", "seq": "int", "md_seq": "int", "md_seq_feature": "bool", "warm_feature": "bool", "ordered_feature": "bool", "ordered_log_feature": "bool",
    "commit_pages": "int",
    "uuid": "str", "block_sectors": "int", "subblock_sectors": "int",
    "nr_blocks": "int", "data_start": "int", "md_pages": "int",
    "flash_sectors": "int", "clean": "bool", "needs_check": "bool",
    "format_time": "int",
    "?mirror": {
        "leg": "int", "member_uuid": "str", "partner_uuid": "str", "events": "int",
        "failed_legs": "int", "leg_blocks": ["int"], "leg_sectors": ["int"],
    },
}
CHECK = {
    "schema": "str", "schema_version": "int", "device": "str", "clean": "bool",
    "errors": "int", "warnings": "int", "outcome": "str", "problems": [PROBLEM],
    "?superblock": SUPERBLOCK, "?needs_check": "bool", "?leftovers": "int",
    "?leftover_slots": [{"page": "int", "slot": "int", "seq": "int", "needs_check": "bool"}],
    "?used_blocks": "int", "?dirty_blocks": "int", "?lost_pages": "int",
    "?mirrored_dirty_blocks": "int", "?lone_dirty_blocks": "int",
    "?volumes": [{
        "slot": "int", "id": "int", "label": "str", "origin_sectors": "int",
        "dirty_blocks_hint": "int", "detached": "bool", "cached_blocks": "int",
        "dirty_blocks": "int", "dirty_bytes": "int",
    }],
    "?clear_needs_check": {
        "done": "bool", "?refused": "str", "?error": "str", "needs_check_was_set": "bool",
        "zeroed_leftovers": "int", "zeroed_unusable_copies": "int",
        "?superblock_seq": "int", "?superblock_slot": "int",
    },
}
DUMP = {k: v for k, v in CHECK.items() if k != "?clear_needs_check"}
DUMP["?entries"] = [{"block": "int", "volume_slot": "int", "oblock": "int", "valid": "int",
                     "dirty": "int", "flags": "int", "?twin": "int"}]
CHECK_LEG = {k: v for k, v in CHECK.items()
             if k not in ("schema", "schema_version", "?clear_needs_check")}
CHECK_PAIR = {
    "schema": "str", "schema_version": "int", "outcome": "str", "clean": "bool",
    "message": "str", "verdict": "str|null", "older_device": "str|null",
    "metadata_agrees": "bool|null", "legs": [CHECK_LEG],
}
STATUS_VOLUME = {
    "name": "str", "origin": "str", "in_place": "bool", "id": "int", "label": "str",
    "mode": "str", "sectors": "int", "cached_blocks": "int", "dirty_blocks": "int",
    "reads": "int", "read_hits": "int", "writes": "int", "write_hits": "int",
    "read_hit_ratio": "num", "write_hit_ratio": "num", "read_iops": "num|null",
    "write_iops": "num|null", "bypassed": "int", "writeback_inflight": "int",
    "errors": "int", "promotions": "int", "writebacks": "int",
}
STATUS = {
    "schema": "str", "schema_version": "int", "interval": "num",
    "pools": [{
        "name": "str", "flash": "str", "sectors": "int", "block_sectors": "int",
        "status_ok": "bool", "total_blocks": "int", "used_blocks": "int",
        "dirty_blocks": "int", "free_blocks": "int", "metadata_mode": "str",
        "needs_check": "bool", "flash_read_errors": "int", "flash_write_errors": "int",
        "metadata_errors": "int", "writeback_state": "str", "writeback_inflight": "int",
        "commit_seq": "int", "active_volumes": "int", "registered_volumes": "int",
        "redundancy": "str", "lone_dirty_blocks": "int",
        "unwritable_blocks": "int", "flushes": "str", "acks": "str",
        "origin_behind": "int|null", "origin_lag_seconds": "int|null",
        "devices": [{"path": "str|null", "leg": "int", "state": "str"}],
        "volumes": [STATUS_VOLUME],
        "unattached_volumes": [{"id": "int", "label": "str", "dirty_blocks": "int",
                                "detached": "bool"}],
        "writeback_bytes_per_second": "num|null",
    }],
}
POOL_LIST = {
    "schema": "str", "schema_version": "int",
    "pools": [{
        "name": "str", "flash": "str", "block_sectors": "int", "sectors": "int",
        "status_ok": "bool", "total_blocks": "int", "used_blocks": "int",
        "dirty_blocks": "int", "redundancy": "str",
        "devices": [{"path": "str|null", "leg": "int", "state": "str"}],
        "volumes": [{"name": "str", "id": "int", "mode": "str"}],
    }],
}
COUNTS = {
    "transactions": "int", "?transactions_by_type": ("map", "int"), "page_accesses": "int",
    "page_updates": "int", "hot_accesses": "int", "buffer_pool_hits": "int",
    "dev_reads": "int", "dev_writes": "int", "cold_dev_reads": "int",
    "cold_dev_writes": "int", "log_writes": "int", "log_records": "int",
    "fsyncs": "int", "cleaner_batches": "int", "free_frame_waits": "int",
    "verify_errors": "int", "read_us": "int", "write_us": "int", "log_write_us": "int",
    "fsync_us": "int", "cleaner_us": "int", "cleaner_slowest_write_us": "int",
}
OPTIMUM = {
    "flash_bytes": "int", "read_hit_ratio_fill": "num|null", "read_hit_ratio_bypass": "num|null",
    "cache_read_hit_ratio": "num|null", "ops_per_txn_bound": "num|null",
    "ops_per_txn_schedule": "num|null", "distance": "num|null",
}
ORIGIN = {
    "ops_per_txn": "num|null", "backlog_ops_per_txn": "num|null",
    "member_ops_per_txn": "num|null", "optimum": ("null", OPTIMUM),
    "by_round": [{
        "transactions": "int", "reads": "int|null", "writes": "int|null",
        "backlog_reads": "int|null", "backlog_writes": "int|null", "members": "int",
        "member_reads": "int|null", "member_writes": "int|null", "ops_per_txn": "num|null",
        "trace": "str|null",
        "optimum": ("null", dict(OPTIMUM, **{
            "trace_records": "int", "trace_bytes": "int", "seconds": "num",
            "max_io_bytes": "int", "merge_window_requests": "int", "transactions": "int",
            "read_pages": "int", "read_hit_ratio_schedule": "num|null",
            "schedule_read_ops": "int", "schedule_write_ops": "int",
            "schedule_dirty_pages_end": "int"})),
    }],
}
BENCH = {
    "schema": "str", "schema_version": "int", "command": "str|null",
    "workload": {
        "profile": "str", "profile_description": "str|null",
        "?transaction_types": [{"name": "str", "percent": "int", "page_reads": "int",
                                "page_updates": "int", "range_scans": "int",
                                "range_pages": "int", "keying_s": "num", "think_s": "num"}],
        "distribution": "str", "seed": "int", "page_size": "int", "datafile_pages": "int",
        "buffer_pool_mb": "num", "warmup_s": "num", "time_s": "num", "rt_limit_s": "num",
        "user_steps": ["int"], "rounds": "int", "terminal_model": "bool",
        "think_time_s": "num|null", "keying_time_s": "num|null", "rt_search_max_steps": "int",
        "log_device": "str|null", "group_commit": "bool", "group_commit_max_records": "int",
        "origin": "str|null", "flash": "str|null", "flash2": "str|null",
    },
    "chart": "str|null",
    "run_order": [["str"]],
    "configs": [{
        "name": "str", "device": "str|null", "buffer_pool_frames": "int",
        "integrity": {"pages_verified": "int", "errors": "int", "error": "str|null"},
        "max_users_under_rt_limit": "int", "rounds": "int", "warmup_s": "num",
        "users_under_rt_limit_rounds": ["int"], "price": "num|null", "price_per_tps": "num|null",
        "rt_search_steps": [{"users": "int", "seconds": "num", "transactions": "int",
                             "tps": "num", "avg_ms": "num", "p95_ms": "num",
                             "under_limit": "bool"}],
        "counters": ("map", "int"), "interrupted": "str|null",
        "backlog": ("null", {"dirty_mib": "num", "writeback_s": "num|null"}),
        "origin_io": ("null", ORIGIN),
        "warmup": COUNTS,
        "steps": [{
            "users": "int", "seconds": "num", "tps": "num", "avg_ms": "num", "p95_ms": "num",
            "p99_ms": "num", "max_ms": "num", "tps_ratio": "num|null",
            "avg_rt_ratio": "num|null", "rounds": "int", "tps_min": "num", "tps_max": "num",
            "tps_spread_pct": "num", "avg_ms_min": "num", "avg_ms_max": "num",
            "avg_ms_spread_pct": "num", "tps_rounds": ["num"], "avg_ms_rounds": ["num"],
            "counts": COUNTS, "p95_ratio": "num|null", "nopm": "num|null",
            "nopm_ratio": "num|null", "p90_ms_by_type": ("map", "num|null"),
            "log_group_avg": "num|null",
        }],
    }],
    "summary": [{"config": "str", "users": "int", "tps_ratio": "num|null",
                 "avg_rt_ratio": "num|null",
                 "rounds": "int", "users_under_rt_limit": "int",
                 "users_under_rt_limit_ratio": "num|null",
                 "ratios": [{"users": "int", "tps_ratio": "num|null",
                             "avg_rt_ratio": "num|null", "p95_ratio": "num|null",
                             "nopm_ratio": "num|null"}]}],
    "sweep": ("null", {
        "users": "int",
        "points": [{"buffer_pool_mb": "num", "buffer_pool_mb_used": "num", "results": "str",
                    "configs": [{"name": "str", "tps": "num|null", "tps_ratio": "num|null"}]}],
        "advice": {"kind": "str|null", "config": "str|null", "buffer_pool_mb": "num|null",
                   "ratio": "num|null", "text": "str"},
    }),
}
SHOW = {
    "schema": "str", "schema_version": "int", "kind": "str", "name": "str", "table": "str",
    "?flash": "str", "?mirror_device": "str|null", "?block_sectors": "int",
    "?pool": "str", "?origin": "str", "?id": "int", "?label": "str", "?in_place": "bool",
    "settings": {
        "?writeback_high": "int", "?writeback_low": "int", "?max_dirty_age": "int",
        "?writeback_jobs": "int", "?commit_interval": "int", "?fence_hold": "int", "?warm_restart": "int", "?ordered": "int", "?ordered_lag": "int",
        "?mode": "str", "?sequential_cutoff": "int",
    },
    "defaults": ["str"],
}
ORDERED_LOG = {
    "schema": "str", "schema_version": "int", "device": "str", "uuid": "str", "log_pages": "int",
    "origin_pages": "int", "pool_uuid": "str", "vol_id": "int", "head": "int", "head_seq": "int",
    "records": "int", "records_to_apply": "int", "pages_to_apply": "int", "walk_stop": "str",
    "epoch": "int", "time_ns": "int", "age_s": "num|null", "replayed": "bool", "dry_run": "bool",
}
SCHEMAS = {
    "fcache.status": STATUS, "fcache.pool-list": POOL_LIST, "fcache.check": CHECK,
    "fcache.dump": DUMP, "fcache.bench": BENCH, "fcache.show": SHOW,
    "fcache.check-pair": CHECK_PAIR, "fcache.ordered-log": ORDERED_LOG,
}
ERROR = {"schema": "str", "schema_version": "int", "error": "str"}
OUTCOMES = ("clean", "leftovers", "damaged", "not_a_pool")
VERDICTS = ("in_sync", "lagging", "stale", "split_brain", "foreign", "same_leg", "disagree",
            "not_mirrored", "mismatch")
PAIR_OUTCOMES = VERDICTS + ("damaged", "not_a_pool")


def scalar_ok(t, v):
    if v is None:
        return t.endswith("|null")
    t = t.split("|")[0]
    if t == "str":
        return isinstance(v, str)
    if t == "bool":
        return isinstance(v, bool)
    if t == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "num":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    raise ValueError(t)


def check(spec, v, where, errs):
    if isinstance(spec, tuple) and spec[0] == "null":
        if v is None:
            return
        spec = spec[1]
    if isinstance(spec, str):
        if not scalar_ok(spec, v):
            errs.append("%s: %r is not %s" % (where, v, spec))
    elif isinstance(spec, list):
        if not isinstance(v, list):
            errs.append("%s: %r is not an array" % (where, v))
            return
        for i, x in enumerate(v):
            check(spec[0], x, "%s[%d]" % (where, i), errs)
    elif isinstance(spec, tuple):
        if not isinstance(v, dict):
            errs.append("%s: %r is not an object" % (where, v))
            return
        for k, x in v.items():
            check(spec[1], x, "%s.%s" % (where, k), errs)
    else:
        if not isinstance(v, dict):
            errs.append("%s: %r is not an object" % (where, v))
            return
        keys = {k.lstrip("?"): k for k in spec}
        for k, x in v.items():
            if k not in keys:
                errs.append("%s: key %r is not in the schema" % (where, k))
            else:
                check(spec[keys[k]], x, "%s.%s" % (where, k), errs)
        for k in spec:
            if not k.startswith("?") and k not in v:
                errs.append("%s: missing key %r" % (where, k))


def check_doc(d, want, where):
    errs = []
    if not isinstance(d, dict):
        return ["%s: not an object" % where]
    name = d.get("schema")
    if want and name != want:
        errs.append("%s: schema %r, expected %r" % (where, name, want))
    want_v = VERSIONS.get(name, VERSION)
    if d.get("schema_version") != want_v or isinstance(d.get("schema_version"), bool):
        errs.append("%s: schema_version %r, expected %d" % (where, d.get("schema_version"), want_v))
    if name not in SCHEMAS:
        return errs + ["%s: unknown schema %r" % (where, name)]
    if "error" in d and set(d) == {"schema", "schema_version", "error"}:
        check(ERROR, d, where, errs)
        return errs
    check(SCHEMAS[name], d, where, errs)
    if name in ("fcache.check", "fcache.dump") and d.get("outcome") not in OUTCOMES:
        errs.append("%s: outcome %r" % (where, d.get("outcome")))
    if name in ("fcache.status", "fcache.pool-list"):
        for i, p in enumerate(d.get("pools") or []):
            if not isinstance(p, dict):
                continue
            if p.get("redundancy") not in ("single", "mirrored", "degraded"):
                errs.append("%s: pools[%d].redundancy %r" % (where, i, p.get("redundancy")))
            devs = p.get("devices") or []
            if [x.get("leg") for x in devs if isinstance(x, dict)] != list(range(len(devs))):
                errs.append("%s: pools[%d].devices not in leg order" % (where, i))
    if name == "fcache.check-pair":
        if d.get("outcome") not in PAIR_OUTCOMES:
            errs.append("%s: outcome %r" % (where, d.get("outcome")))
        if d.get("verdict") is not None and d.get("verdict") not in VERDICTS:
            errs.append("%s: verdict %r" % (where, d.get("verdict")))
        for i, leg in enumerate(d.get("legs") or []):
            if isinstance(leg, dict) and leg.get("outcome") not in OUTCOMES:
                errs.append("%s: legs[%d].outcome %r" % (where, i, leg.get("outcome")))
        if isinstance(d.get("legs"), list) and len(d["legs"]) != 2:
            errs.append("%s: %d legs, expected 2" % (where, len(d["legs"])))
    if name == "fcache.show":
        errs += show_shape(d, where)
    return errs


SHOW_KEYS = {
    "pool": ({"flash", "mirror_device", "block_sectors"},
             {"writeback_high", "writeback_low", "max_dirty_age", "writeback_jobs",
              "commit_interval", "fence_hold", "warm_restart", "ordered", "ordered_lag"}),
    "volume": ({"pool", "origin", "id", "label", "in_place"}, {"mode", "sequential_cutoff"}),
}


def show_shape(d, where):
    """fcache.show: a pool's keys or a volume's, every setting, defaults among them."""
    kind = d.get("kind")
    if kind not in SHOW_KEYS:
        return ["%s: kind %r" % (where, kind)]
    errs = []
    fixed, settings = SHOW_KEYS[kind]
    other = set().union(*[a | b for k, (a, b) in SHOW_KEYS.items() if k != kind])
    for k in fixed:
        if k not in d:
            errs.append("%s: a %s without %r" % (where, kind, k))
    for k in other:
        if k in d:
            errs.append("%s: a %s with %r" % (where, kind, k))
    got = set(d.get("settings") or {})
    if got != settings:
        errs.append("%s: settings %s, expected %s" % (where, sorted(got), sorted(settings)))
    for k in d.get("defaults") or []:
        if k not in settings:
            errs.append("%s: default %r is not a setting" % (where, k))
    return errs


def no_float_for_int(text, where):
    """An "int" must not be written 1.0 or 1e3: parse numbers as text."""
    errs = []

    def walk(spec, v, path):
        if isinstance(spec, tuple) and spec[0] == "null":
            spec = spec[1]
        if isinstance(spec, str) and spec.split("|")[0] == "int" and isinstance(v, str):
            if not re.fullmatch(r"-?(0|[1-9][0-9]*)", v):
                errs.append("%s: integer written as %s" % (path, v))
        elif isinstance(spec, list) and isinstance(v, list):
            for i, x in enumerate(v):
                walk(spec[0], x, "%s[%d]" % (path, i))
        elif isinstance(spec, tuple) and isinstance(v, dict):
            for k, x in v.items():
                walk(spec[1], x, path + "." + k)
        elif isinstance(spec, dict) and isinstance(v, dict):
            keys = {k.lstrip("?"): k for k in spec}
            for k, x in v.items():
                if k in keys:
                    walk(spec[keys[k]], x, path + "." + k)

    raw = json.loads(text, parse_int=str, parse_float=str)
    if isinstance(raw, dict) and raw.get("schema") in SCHEMAS:
        walk(SCHEMAS[raw["schema"]], raw, where)
    return errs


def flatten(spec, path, out):
    """(path, type) of every key: pools[].volumes[].reads -> int."""
    if isinstance(spec, dict):
        for k, v in spec.items():
            p = (path + "." if path else "") + k.lstrip("?")
            if isinstance(v, str):
                out.append((p, v))
            elif isinstance(v, list):
                out.append((p, "array"))
                inner = v[0]
                if isinstance(inner, str):
                    out.append((p + "[]", inner))
                elif isinstance(inner, list):
                    out.append((p + "[][]", inner[0]))
                else:
                    flatten(inner, p + "[]", out)
            elif isinstance(v, tuple) and v[0] == "null":
                out.append((p, "object|null"))
                flatten(v[1], p, out)
            elif isinstance(v, tuple):
                out.append((p, "object"))
                out.append((p + ".*", v[1]))
            else:
                out.append((p, "object"))
                flatten(v, p, out)
    return out


DOC_TYPES = {"string": "str", "integer": "int", "number": "num", "boolean": "bool",
             "object": "object", "array": "array"}


def self_check(doc):
    errs = []
    seen = {}
    for name, spec in SCHEMAS.items():
        for path, t in flatten(spec, "", []):
            key = re.sub(r"(\[\])+$", "", path.split(".")[-1])
            if key == "*":
                continue
            base = t.replace("|null", "")
            if path.endswith("[]"):
                continue
            if key in seen and seen[key][0] != base:
                errs.append("key %r: %s in %s, %s in %s" % (key, seen[key][0], seen[key][1], base, name))
            seen.setdefault(key, (base, name))
    if doc:
        text = open(doc).read()
        for name, spec in SCHEMAS.items():
            m = re.search(r"^### `%s`\n(.*?)(?=^##)" % re.escape(name), text + "\n##", re.S | re.M)
            if not m:
                errs.append("%s: no section ### `%s`" % (doc, name))
                continue
            rows = {}
            for r in re.finditer(r"^\| `([^`]+)` \| ([a-z ]+?) \|", m.group(1), re.M):
                words = r.group(2).split(" or ")
                t = DOC_TYPES.get(words[0], "?" + words[0])
                if len(words) == 2 and words[1] == "null":
                    t += "|null"
                rows[r.group(1)] = t
            want = dict(flatten(spec, "", []))
            for p, t in want.items():
                if p not in rows:
                    errs.append("%s, %s: key %s (%s) is not documented" % (doc, name, p, t))
                elif rows[p] != t:
                    errs.append("%s, %s: key %s documented as %s, is %s" % (doc, name, p, rows[p], t))
            for p in rows:
                if p not in want:
                    errs.append("%s, %s: documents %s, which the output does not have" % (doc, name, p))
    return errs


def main(argv):
    args = argv[1:]
    if args[:1] == ["--self-check"]:
        errs = self_check(args[1] if len(args) > 1 else None)
    else:
        want = None
        if args[:1] == ["--schema"] and len(args) > 1:
            want, args = args[1], args[2:]
        if not args:
            print(__doc__, file=sys.stderr)
            return 2
        errs = []
        for f in args:
            text = sys.stdin.read() if f == "-" else open(f).read()
            lines = [x for x in text.split("\n") if x.strip()]
            if not lines:
                errs.append("%s: no document" % f)
            for i, line in enumerate(lines):
                where = f if len(lines) == 1 else "%s:%d" % (f, i + 1)
                try:
                    d = json.loads(line)
                except ValueError as e:
                    errs.append("%s: not JSON: %s" % (where, e))
                    continue
                errs += check_doc(d, want, where)
                errs += no_float_for_int(line, where)
    for e in errs:
        print(e)
    if not errs:
        print("ok")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
