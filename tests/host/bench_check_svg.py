#!/usr/bin/env python3
"""Check a `fcachectl bench` chart: well-formed SVG with a TPS panel and an
average response time panel, one line per configuration in each, and a
legend naming every configuration.
With --layout also how it reads (issue 35, item 10), in each panel: tick
labels plain numbers or k/M-suffixed (no 3.75e+04), none reaching into
the rotated axis title (widths estimated at 0.6 em a character, the title
from its baseline 0.8 em left and 0.3 em right); on a linear scale the
highest point at least 75% up the panel (the top tick near the data's
maximum); no line lying flat on the bottom (every point within 2% of the
panel's height of it: a log scale is needed).
Usage: bench_check_svg.py [--layout] FILE CONFIG..."""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def layout_errors(root):
    """What --layout finds wrong in the panels of @root (a list of strings)."""
    errs = []
    panels = [g for g in root.iter(NS + "g") if "translate" in (g.get("transform") or "")]
    if not panels:
        return ["no panel (<g transform=translate>)"]
    for k, g in enumerate(panels):
        frame = [r for r in g.iter(NS + "rect") if r.get("stroke") == "#000"]
        if not frame:
            errs.append("panel %d: no frame" % k)
            continue
        top = float(frame[0].get("y"))
        ph = float(frame[0].get("height"))
        bottom = top + ph
        texts = list(g.iter(NS + "text"))
        ticks = [t for t in texts if t.get("text-anchor") == "end"]
        titles = [t for t in texts if "rotate" in (t.get("transform") or "")]
        if not ticks or not titles:
            errs.append("panel %d: no tick labels or no axis title" % k)
            continue
        title = titles[0]
        tfont = float(title.get("font-size", "12"))
        title_right = float(title.get("x")) + 0.3 * tfont
        for t in ticks:
            lab = t.text or ""
            if not re.fullmatch(r"[0-9]+(\.[0-9]+)?[kM]?", lab):
                errs.append("panel %d: tick label '%s' is no plain or k/M number" % (k, lab))
            left = float(t.get("x")) - 0.6 * float(t.get("font-size", "11")) * len(lab)
            if left < title_right + 1:
                errs.append("panel %d: tick label '%s' (from x=%.1f) reaches the axis title (to x=%.1f)"
                            % (k, lab, left, title_right))
        ys = []
        for pl in g.iter(NS + "polyline"):
            pys = [float(p.split(",")[1]) for p in pl.get("points", "").split()]
            if not pys:
                continue
            ys += pys
            if all(bottom - y <= 0.02 * ph for y in pys):
                errs.append("panel %d ('%s'): a line lies flat on the bottom (within %.1f px)"
                            % (k, title.text, 0.02 * ph))
        if ys and "log" not in (title.text or "") and (bottom - min(ys)) < 0.75 * ph:
            errs.append("panel %d ('%s'): the highest point is %.0f%% up the panel: the scale wastes %.0f%%"
                        % (k, title.text, 100 * (bottom - min(ys)) / ph, 100 - 100 * (bottom - min(ys)) / ph))
    return errs


def main():
    args = sys.argv[1:]
    layout = bool(args) and args[0] == "--layout"
    if layout:
        args = args[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    path, configs = args[0], args[1:]
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
    if layout:
        errs += layout_errors(root)
    for e in errs:
        print(e)
    if errs:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
