#!/usr/bin/env python3
"""Check a `fcachectl bench` chart: well-formed SVG with a TPS panel and an
average response time panel, one line per configuration in each, and a
legend naming every configuration.  Usage: bench_check_svg.py FILE CONFIG..."""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    path, configs = sys.argv[1], sys.argv[2:]
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print("not well-formed: %s" % e)
        return 1
    errs = []
    if root.tag != NS + "svg":
        errs.append("root element is %s, not svg" % root.tag)
    lines = root.findall(".//" + NS + "polyline")
    if len(lines) != 2 * len(configs):
        errs.append("%d lines, expected %d (TPS and response time per config)"
                    % (len(lines), 2 * len(configs)))
    for pl in lines:
        pts = pl.get("points", "").split()
        if not pts:
            errs.append("empty line")
        for p in pts:
            x, y = (float(v) for v in p.split(","))
            if not (0 <= x <= float(root.get("width")) and 0 <= y <= float(root.get("height"))):
                errs.append("point %s outside the picture" % p)
    texts = [t.text or "" for t in root.iter(NS + "text")]
    for c in configs:
        if c not in texts:
            errs.append("legend lacks %s" % c)
    alltext = " ".join(texts)
    for want in ("TPS", "response time", "users"):
        if want not in alltext:
            errs.append("no '%s' label" % want)
    for e in errs:
        print(e)
    if errs:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
