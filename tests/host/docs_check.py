#!/usr/bin/env python3
"""The documentation's budget and its links (tests/host/docs_check.sh).

  docs_check.py [--top DIR] [--self-test]

Prints one PASS/FAIL line per check (suite 19-host-ctl-admin counts them)
and exits 1 on any failure:

* budget: docs/PERFORMANCE.md under 500 lines (issue 35, item 13: the
  current figures, how to reproduce and read them; the dated log lives in
  docs/perf-history.md) and docs/TESTING.md under 450 (a newcomer's guide;
  docs/testing-details.md holds the rest);
* links: every relative link of README.md and docs/*.md, [text](target) or
  a reference definition, names a file that exists and, for a .md target
  with a #fragment, a heading of it (its GitHub anchor: lower case, every
  character but letters, digits, '_', '-' and spaces dropped, spaces to
  '-', a repeated anchor numbered -1, -2, ...);
* sections: every reference of the form docs/NAME.md, "Title" (or
  docs/NAME.md ("Title"), docs/NAME.md "Title"), in the docs, the man page,
  the sources, the tests and the makefiles, names a file that exists and
  the start of one of its headings (markup dropped, case ignored), so that
  a section moved to another file takes its references with it.
"""
import os
import re
import sys
import tempfile

BUDGET = {"docs/PERFORMANCE.md": 500, "docs/TESTING.md": 450}

FENCE = re.compile(r"^ {0,3}(```|~~~)")
ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
HTML_ID = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
CODE = re.compile(r"(`+)(.+?)\1")
SECREF = re.compile(r"docs/([A-Za-z][\w.-]*\.md)[\s,(\\]{1,4}\"([^\"\s\\][^\"\n]{1,99}?)\\?\"")
BOLD = re.compile(r"^ {0,3}(?:[*-] +)?\*\*([^*]+)\*\*")


def heading_text(raw):
    """What GitHub renders of a heading's markdown (for its anchor)."""
    t = CODE.sub(lambda m: m.group(2), raw)
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", t)
    t = re.sub(r"<[^>]+>", "", t)
    return t


def slug(text):
    s = text.strip().lower()
    s = "".join(c for c in s if c.isalnum() or c in "_- ")
    return s.replace(" ", "-")


def text_lines(path):
    """(line number, line) of a markdown file, outside code fences."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = FENCE.match(line)
            if m:
                if fence is None:
                    fence = m.group(1)
                elif m.group(1) == fence:
                    fence = None
            elif fence is None:
                yield no, line


def headings(path, bold=False):
    """The headings of a markdown file, in order, outside code fences; with
    bold, also the bold words that open a paragraph or an item (the
    sections of a long part, as in DESIGN.md: "**Loading.** Both ...")."""
    out = []
    prev, prev_no = "", -1
    for no, line in text_lines(path):
        m = ATX.match(line)
        b = BOLD.match(line) if bold else None
        if m:
            out.append(heading_text(m.group(2)))
        elif b:
            out.append(heading_text(b.group(1)))
        elif SETEXT.match(line) and prev_no == no - 1 and prev.strip() \
                and not prev.lstrip().startswith("|") and not ATX.match(prev):
            out.append(heading_text(prev.strip()))
        prev, prev_no = line, no
    return out


def anchors(path):
    seen = {}
    res = set()
    for h in headings(path):
        s = slug(h)
        n = seen.get(s, 0)
        seen[s] = n + 1
        res.add(s if n == 0 else "%s-%d" % (s, n))
    with open(path, encoding="utf-8") as f:
        res.update(HTML_ID.findall(f.read()))
    return res


def md_links(path):
    """(line number, target) of the relative links of a markdown file."""
    out = []
    for no, line in text_lines(path):
        if line.startswith("    ") or line.startswith("\t"):
            continue
        line = CODE.sub("", line)
        targets = [m.group(2) for m in LINK.finditer(line)]
        m = REFDEF.match(line)
        if m:
            targets.append(m.group(1))
        for t in targets:
            if not t or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", t) or t.startswith("/"):
                continue
            out.append((no, t))
    return out


def check_links(top, files):
    bad = []
    cache = {}
    for rel in files:
        path = os.path.join(top, rel)
        for no, t in md_links(path):
            p, _, frag = t.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), p)) if p else path
            where = "%s:%d: %s" % (rel, no, t)
            if not os.path.exists(dest):
                bad.append(where + " (no such file)")
                continue
            if frag and dest.endswith(".md"):
                if dest not in cache:
                    cache[dest] = anchors(dest)
                if frag.lower() not in cache[dest]:
                    bad.append(where + " (no heading with that anchor)")
    return bad


def joined(text):
    """A file's text with comment leaders and line breaks folded to spaces."""
    text = re.sub(r"\n[ \t]*(?:#+|\*|//|\.\\\"|;)?[ \t]*", " ", text)
    return re.sub(r"\\\n", " ", text)


def norm(s):
    s = re.sub(r"[`*]", "", s)
    return re.sub(r"\s+", " ", s).strip().lower()


def source_files(top):
    out = []
    for d, exts in (("", (".md",)), ("docs", (".md",)), ("man", (".8",)),
                    ("userspace", (".c", ".h")), ("kmod", (".c", ".h")),
                    ("include", (".h",)), ("tests", (".sh", ".c", ".h", ".py", ".mk")),
                    ("mk", (".mk",)), ("scripts", (".sh",))):
        base = os.path.join(top, d)
        if not os.path.isdir(base):
            continue
        if d == "":
            out += [f for f in sorted(os.listdir(top)) if f.endswith(exts)]
            out += [f for f in ("Makefile",) if os.path.exists(os.path.join(top, f))]
            continue
        for root, dirs, names in os.walk(base):
            dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "build")
            for n in sorted(names):
                if n.endswith(exts) or n == "Makefile":
                    out.append(os.path.relpath(os.path.join(root, n), top))
    return out


def check_sections(top):
    bad = []
    heads = {}
    n = 0
    for rel in source_files(top):
        if rel == os.path.join("tests", "host", "docs_check.py"):
            continue
        try:
            with open(os.path.join(top, rel), encoding="utf-8") as f:
                text = joined(f.read())
        except (UnicodeDecodeError, OSError):
            continue
        for m in SECREF.finditer(text):
            doc, title = m.group(1), m.group(2)
            n += 1
            path = os.path.join(top, "docs", doc)
            where = '%s: docs/%s, "%s"' % (rel, doc, title)
            if not os.path.exists(path):
                bad.append(where + " (no such file)")
                continue
            if path not in heads:
                heads[path] = [norm(h) for h in headings(path, bold=True)]
            t = norm(title)
            if not any(h.startswith(t) for h in heads[path]):
                bad.append(where + " (no heading starts so)")
    return n, bad


def report(name, bad):
    if bad:
        for b in bad[:20]:
            print("  " + b)
        if len(bad) > 20:
            print("  ... and %d more" % (len(bad) - 20))
        print("FAIL: docs/%s (%d)" % (name, len(bad)))
        return 1
    print("PASS: docs/%s" % name)
    return 0


def run(top):
    fails = 0
    for rel, limit in BUDGET.items():
        path = os.path.join(top, rel)
        if not os.path.exists(path):
            fails += report("budget-" + os.path.basename(rel), [rel + " is missing"])
            continue
        with open(path, encoding="utf-8") as f:
            lines = sum(1 for _ in f)
        bad = [] if lines < limit else ["%s has %d lines, the budget is under %d" % (rel, lines, limit)]
        fails += report("budget-%s-under-%d-lines" % (os.path.basename(rel), limit), bad)
    files = ["README.md"] if os.path.exists(os.path.join(top, "README.md")) else []
    files += sorted(os.path.join("docs", f) for f in os.listdir(os.path.join(top, "docs"))
                    if f.endswith(".md"))
    fails += report("relative-links-resolve", check_links(top, files))
    n, bad = check_sections(top)
    if n == 0:
        bad = ['no reference of the form docs/NAME.md, "Title" found: the scan is broken']
    fails += report("section-references-resolve", bad)
    return fails


def self_test():
    """Known anchors, and a small tree with each kind of fault."""
    fails = 0

    def ok(name, cond):
        nonlocal fails
        print("%s: docs/self-test-%s" % ("PASS" if cond else "FAIL", name))
        fails += 0 if cond else 1

    ok("anchor-code-and-parens",
       slug(heading_text("results.json (schema `fcache.bench`, version 2)"))
       == "resultsjson-schema-fcachebench-version-2")
    ok("anchor-underscore-kept",
       slug(heading_text("Counters (the `stats` message)")) == "counters-the-stats-message"
       and slug("write_around_high: a/b") == "write_around_high-ab")
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "docs"))
        os.makedirs(os.path.join(d, "kmod"))

        def put(rel, text):
            with open(os.path.join(d, rel), "w", encoding="utf-8") as f:
                f.write(text)

        put("docs/A.md", "# A\n\n## Same\n\n## Same\n\n```\n## Not a heading\n```\n"
            "[ok](B.md#the-b-section) [dup](#same-1) [self](#a) `[code](NOPE.md)`\n")
        put("docs/B.md", "# B\n\n## The `b` section\n")
        put("docs/PERFORMANCE.md", "# P\n")
        put("docs/TESTING.md", "# T\n")
        put("README.md", "[a](docs/A.md)\n")
        put("kmod/x.c", '/* docs/B.md, "The b\n * section" */\n')
        ok("clean-tree-passes", run_quiet(d) == 0)
        put("docs/A.md", "# A\n[gone](C.md)\n")
        ok("missing-file-fails", run_quiet(d) == 1)
        put("docs/A.md", "# A\n[gone](B.md#no-such-section)\n")
        ok("missing-anchor-fails", run_quiet(d) == 1)
        put("docs/A.md", "# A\n[fenced](#not-a-heading)\n```\n# Not a heading\n```\n")
        ok("heading-in-fence-is-no-anchor", run_quiet(d) == 1)
        put("docs/A.md", "# A\n")
        put("docs/PERFORMANCE.md", "x\n" * 500)
        ok("budget-500-lines-fails", run_quiet(d) == 1)
        put("docs/PERFORMANCE.md", "x\n" * 499)
        ok("budget-499-lines-passes", run_quiet(d) == 0)
        put("kmod/x.c", '/* docs/B.md, "A section that moved" */\n')
        ok("moved-section-reference-fails", run_quiet(d) == 1)
    return fails


def run_quiet(top):
    so = sys.stdout
    sys.stdout = open(os.devnull, "w")
    try:
        return 1 if run(top) else 0
    finally:
        sys.stdout.close()
        sys.stdout = so


def main():
    top = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    args = sys.argv[1:]
    if "--top" in args:
        top = args[args.index("--top") + 1]
    fails = self_test() if "--self-test" in args else 0
    fails += run(top)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
