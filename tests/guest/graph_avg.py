#!/usr/bin/env python3
# graph_avg.py: per function, the calls and the mean time per call in a
# function_graph trace read from stdin (ftrace, options funcgraph-tail
# and funcgraph-duration): the profile of tests/guest/fio_hitpath.sh
# (profile=1), which perf cannot take under TCG (its cpu-clock samples
# land in the idle loop).  A function's time includes its children's and
# the tracer's own cost for each traced child: compare like with like
# (the same depth, the same configuration of the tracer).
#   graph_avg.py [PER]   PER: divide each function's total by PER (the
#   I/Os of the run) as well: its time per I/O
import re
import sys

DUR = re.compile(r'^\s*\d+\)\s+[-+!#*@$ ]*([0-9.]+) (us|ms|s)\s+\|(\s*)(\S.*)$')
SCALE = {'us': 1.0, 'ms': 1000.0, 's': 1e6}


def name_of(body):
    """The function a leaf line (f();) or a closing line (} /* f */) names."""
    if body.endswith('();'):
        n = body[:-3]
    elif body.startswith('} /* ') and body.endswith(' */'):
        n = body[5:-3]
    else:
        return None
    return n.split(' [')[0].strip()


def main():
    per = float(sys.argv[1]) if len(sys.argv) > 1 else 0
    stats = {}
    indents = set()
    for line in sys.stdin:
        m = DUR.match(line)
        if not m:
            continue
        n = name_of(m.group(4).strip())
        if n is None:
            continue
        ind = len(m.group(3))
        indents.add(ind)
        k = (ind, n)
        c, t = stats.get(k, (0, 0.0))
        stats[k] = (c + 1, t + float(m.group(1)) * SCALE[m.group(2)])
    if not stats:
        print('   (no traced calls)')
        return
    base = min(indents)
    rows = sorted(stats.items(), key=lambda kv: (kv[0][0], -kv[1][1]))
    print('   %-5s %-34s %9s %10s%s' % ('depth', 'function', 'calls', 'us/call',
                                         '  us/I/O' if per else ''))
    for (ind, n), (c, t) in rows:
        extra = '  %7.2f' % (t / per) if per else ''
        print('   %-5d %-34s %9d %10.2f%s' % ((ind - base) // 2 + 1, n, c, t / c, extra))


main()
