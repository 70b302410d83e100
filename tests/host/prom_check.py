#!/usr/bin/env python3
"""Strict parser of the Prometheus text exposition format (version 0.0.4),
for `fcachectl status --prometheus` (no promtool needed).  Usage:

  prom_check.py [--json] [--fcache] FILE|-

Refuses what Prometheus would refuse and what the format leaves to the
writer to get right:
  - every line ends in "\\n" (also the last); no "\\r"
  - "# HELP name text" (escapes \\\\ and \\n only) and "# TYPE name type"
    at most once per family, before its samples; types counter, gauge,
    histogram, summary, untyped
  - metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*
    and not starting with "__"; no label twice in a sample
  - label values in double quotes, UTF-8, with the escapes \\\\, \\" and \\n
    only; no raw line feed
  - values: decimal floats, NaN, +Inf, -Inf; optional integer timestamp
  - the samples of a family together (no family reappears later); no
    series twice
  - counters not negative
With --fcache, also fcachectl's conventions: every family has HELP and TYPE,
counter names end in _total and only they, names start with fcache_, no
timestamps.

Prints "ok: N families, M samples", or one problem per line and exits 1.
--json prints the parsed samples instead: [name, {label: value}, "value"]
(label values unescaped, the value as written).
"""
import json
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")
SUFFIXES = {"histogram": ("_bucket", "_sum", "_count"), "summary": ("", "_sum", "_count")}


class Bad(Exception):
    pass


def family_of(name, types):
    """The family a sample name belongs to (histogram/summary suffixes)."""
    for fam, t in types.items():
        for suf in SUFFIXES.get(t, ()):
            if suf and name == fam + suf:
                return fam
    return name


def parse_value(s):
    if s in ("NaN", "+Inf", "-Inf", "Inf", "+inf", "-inf", "inf", "nan"):
        return float(s.replace("Inf", "inf").replace("NaN", "nan"))
    if not FLOAT.fullmatch(s):
        raise Bad("bad value %r" % s)
    return float(s)


def parse_labels(line, i):
    """line[i] is '{'; returns (labels dict, index after '}')."""
    labels = {}
    i += 1
    while True:
        if i < len(line) and line[i] == "}":
            return labels, i + 1
        m = LABEL.match(line, i)
        if not m:
            raise Bad("bad label name at column %d" % (i + 1))
        lname = m.group(0)
        if lname.startswith("__"):
            raise Bad("reserved label name %r" % lname)
        if lname in labels:
            raise Bad("label %r twice" % lname)
        i = m.end()
        if line[i:i + 2] != '="':
            raise Bad("expected =\" after label %r" % lname)
        i += 2
        val = []
        while True:
            if i >= len(line):
                raise Bad("unterminated value of label %r" % lname)
            c = line[i]
            if c == "\\":
                e = line[i + 1:i + 2]
                if e == "\\":
                    val.append("\\")
                elif e == '"':
                    val.append('"')
                elif e == "n":
                    val.append("\n")
                else:
                    raise Bad("bad escape \\%s in label %r" % (e, lname))
                i += 2
            elif c == '"':
                i += 1
                break
            else:
                val.append(c)
                i += 1
        labels[lname] = "".join(val)
        if i < len(line) and line[i] == ",":
            i += 1
            continue
        if i < len(line) and line[i] == "}":
            return labels, i + 1
        raise Bad("expected , or } after label %r" % lname)


def parse(data, fcache=False):
    """Returns (samples, errors)."""
    errs = []
    samples = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return [], ["not UTF-8: %s" % e], 0
    if "\r" in text:
        errs.append("carriage return in the input")
    if text and not text.endswith("\n"):
        errs.append("the last line does not end in a line feed")
    helps, types, seen_series = {}, {}, set()
    done = set()          # families whose block is over
    cur = None            # family of the current block
    sampled = set()

    def enter(fam, lineno):
        nonlocal cur
        if fam != cur:
            if fam in done:
                raise Bad("family %s appears again (its lines must be together)" % fam)
            if cur is not None:
                done.add(cur)
            cur = fam

    for lineno, line in enumerate(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"), 1):
        try:
            if line == "":
                continue
            if line.startswith("#"):
                parts = line.split(" ", 3)
                if len(parts) >= 3 and parts[0] == "#" and parts[1] in ("HELP", "TYPE"):
                    name = parts[2]
                    if not NAME.fullmatch(name):
                        raise Bad("bad metric name %r in %s" % (name, parts[1]))
                    enter(name, lineno)
                    if parts[1] == "HELP":
                        if name in helps:
                            raise Bad("second HELP for %s" % name)
                        doc = parts[3] if len(parts) > 3 else ""
                        if not re.fullmatch(r"(?:[^\\]|\\[\\n])*", doc):
                            raise Bad("bad escape in HELP of %s" % name)
                        helps[name] = doc
                    else:
                        if name in types:
                            raise Bad("second TYPE for %s" % name)
                        if name in sampled:
                            raise Bad("TYPE of %s after its samples" % name)
                        if len(parts) != 4 or parts[3] not in TYPES:
                            raise Bad("bad TYPE line for %s" % name)
                        types[name] = parts[3]
                continue
            m = NAME.match(line)
            if not m:
                raise Bad("bad metric name")
            name = m.group(0)
            i = m.end()
            labels = {}
            if i < len(line) and line[i] == "{":
                labels, i = parse_labels(line, i)
            if line[i:i + 1] != " ":
                raise Bad("expected a space before the value")
            rest = line[i + 1:].split(" ")
            if len(rest) not in (1, 2) or "" in rest:
                raise Bad("expected VALUE [TIMESTAMP] after the labels, got %r" % line[i + 1:])
            val = parse_value(rest[0])
            if len(rest) == 2:
                if fcache:
                    raise Bad("timestamp (fcachectl writes none)")
                if not re.fullmatch(r"-?[0-9]+", rest[1]):
                    raise Bad("bad timestamp %r" % rest[1])
            fam = family_of(name, types)
            enter(fam, lineno)
            sampled.add(fam)
            t = types.get(fam, "untyped")
            if t in ("counter", "gauge", "untyped") and name != fam:
                raise Bad("sample %s in family %s" % (name, fam))
            if t == "counter" and val < 0:
                raise Bad("negative counter %s" % name)
            key = (name, tuple(sorted(labels.items())))
            if key in seen_series:
                raise Bad("series %s%s twice" % (name, labels))
            seen_series.add(key)
            samples.append([name, labels, rest[0]])
        except Bad as e:
            errs.append("line %d: %s: %s" % (lineno, e, line[:120]))
    if fcache:
        for fam in set(helps) | set(types) | sampled:
            if fam not in helps or fam not in types:
                errs.append("family %s lacks HELP or TYPE" % fam)
            if not fam.startswith("fcache_"):
                errs.append("family %s does not start with fcache_" % fam)
            if (types.get(fam) == "counter") != fam.endswith("_total"):
                errs.append("family %s: counters and only counters end in _total" % fam)
    return samples, errs, len(set(helps) | set(types) | sampled)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    opts = [a for a in argv[1:] if a.startswith("--")]
    if len(args) != 1 or any(o not in ("--json", "--fcache") for o in opts):
        print(__doc__, file=sys.stderr)
        return 2
    data = sys.stdin.buffer.read() if args[0] == "-" else open(args[0], "rb").read()
    samples, errs, nfam = parse(data, "--fcache" in opts)
    if errs:
        for e in errs:
            print(e)
        return 1
    if "--json" in opts:
        json.dump(samples, sys.stdout)
        print()
    else:
        print("ok: %d families, %d samples" % (nfam, len(samples)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
