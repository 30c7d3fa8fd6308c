#!/usr/bin/env python3
"""Checks of dist/grafana/bloomxdp.json without Grafana (tests/e2e/test_dashboard.sh).

  dashboard_check.py lint DASHBOARD METRICS
      The dashboard against Grafana's schema as far as it can be checked here, and its
      expressions against METRICS, a scrape of the daemon's GET /metrics: every bloomxdp_*
      name they use is a family the daemon exports. One line per check: PASS<TAB>name, or
      FAIL<TAB>name<TAB>why.

  dashboard_check.py query DASHBOARD PROM_URL IFNAME METRICS SECONDS [PREFIX=WHY...]
      Every panel's targets, Grafana's variables substituted ($__rate_interval: 1m,
      $__range: 5m, $instance: .*, $ifname: IFNAME), evaluated by Prometheus' HTTP API
      (/api/v1/query): each must return data, retried for at most SECONDS (a rate needs two
      scrapes). A target whose metrics all start with one PREFIX, none of which has a
      sample in METRICS (its subsystem is not running), is checked for validity only
      (status success), WHY naming the subsystem. The template variables' label_values()
      queries must find values, IFNAME among the interfaces. One line per panel and
      variable, as lint's.
"""
import json
import re
import sys
import time
import urllib.parse
import urllib.request

DS = {"type": "prometheus", "uid": "${datasource}"}
METRIC = re.compile(r"\bbloomxdp_[a-z0-9_]+\b")
RANGE = re.compile(r"\[([^\]]*)\]")


def result(ok, name, why=""):
    print("PASS\t%s" % name if ok else "FAIL\t%s\t%s" % (name, why))
    return ok


def families(metrics_text):
    """Metric families of a scrape, and the names that have a sample."""
    fam, sampled = set(), set()
    for line in metrics_text.splitlines():
        if line.startswith("# TYPE "):
            fam.add(line.split()[2])
        elif line and not line.startswith("#"):
            sampled.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return fam, sampled


def targets(dash):
    for p in dash["panels"]:
        for t in p.get("targets", []):
            yield p, t


def overlaps(a, b):
    return (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"] and
            a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"])


def lint_schema(dash):
    errs = []
    for key in ("title", "uid", "schemaVersion", "panels", "templating"):
        if key not in dash:
            errs.append("no %s" % key)
    if not isinstance(dash.get("schemaVersion"), int) or dash["schemaVersion"] < 36:
        errs.append("schemaVersion %r, not a recent one" % dash.get("schemaVersion"))
    ids = [p.get("id") for p in dash.get("panels", [])]
    if len(ids) != len(set(ids)):
        errs.append("panel ids not unique: %s" % ids)
    for p in dash.get("panels", []):
        what = "panel %r" % p.get("title")
        for key in ("id", "type", "title", "gridPos"):
            if key not in p:
                errs.append("%s: no %s" % (what, key))
        g = p.get("gridPos", {})
        if any(not isinstance(g.get(k), int) for k in "hwxy"):
            errs.append("%s: gridPos %r is not {h,w,x,y}" % (what, g))
        elif g["w"] < 1 or g["h"] < 1 or g["x"] < 0 or g["x"] + g["w"] > 24:
            errs.append("%s: gridPos %r off Grafana's 24 columns" % (what, g))
        if p.get("type") == "row":
            if p.get("targets"):
                errs.append("%s: a row with targets" % what)
            continue
        if p.get("datasource") != DS:
            errs.append("%s: datasource %r, not ${datasource}" % (what, p.get("datasource")))
        ts = p.get("targets") or []
        if not ts:
            errs.append("%s: no targets" % what)
        refs = [t.get("refId") for t in ts]
        if None in refs or len(refs) != len(set(refs)):
            errs.append("%s: refIds %r missing or not unique" % (what, refs))
        for t in ts:
            if not t.get("expr"):
                errs.append("%s: target %s without expr" % (what, t.get("refId")))
            if t.get("datasource", DS) != DS:
                errs.append("%s: target %s's datasource is not ${datasource}" %
                            (what, t.get("refId")))
    placed = [p for p in dash.get("panels", []) if "gridPos" in p]
    for i, a in enumerate(placed):
        for b in placed[i + 1:]:
            if overlaps(a["gridPos"], b["gridPos"]):
                errs.append("panels %r and %r overlap" % (a["title"], b["title"]))
    return errs


def lint_templating(dash):
    errs = []
    vs = {v.get("name"): v for v in dash.get("templating", {}).get("list", [])}
    ds = vs.get("datasource")
    if not ds or ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        errs.append("no variable datasource of type datasource, query prometheus")
    used = set()
    for _, t in targets(dash):
        used |= set(re.findall(r"\$\{?([a-z]\w*)", t["expr"]))
    for name in sorted(used):
        if name not in vs:
            errs.append("expressions use $%s, no such variable" % name)
    for name, v in vs.items():
        if v.get("type") == "query" and v.get("datasource") != DS:
            errs.append("variable %s's datasource is not ${datasource}" % name)
    return errs


def lint_exprs(dash, fam):
    errs = []
    for p, t in targets(dash):
        e, what = t["expr"], "%r %s" % (p["title"], t["refId"])
        for name in sorted(set(METRIC.findall(e)) - fam):
            errs.append("%s: %s is not a family of the daemon's /metrics" % (what, name))
        for r in RANGE.findall(e):
            if r not in ("$__rate_interval", "$__range"):
                errs.append("%s: range [%s], not $__rate_interval or $__range" % (what, r))
        for name in set(METRIC.findall(e)):
            if name.endswith("_total") and not re.search(
                    r"\b(rate|irate|increase)\(\s*%s\b" % name, e):
                errs.append("%s: counter %s outside rate()/increase()" % (what, name))
    return errs


def lint(dash_path, metrics_path):
    dash = json.load(open(dash_path))
    fam, _ = families(open(metrics_path).read())
    ok = True
    for name, errs in (("Grafana's dashboard schema: title, uid, schemaVersion; panels with "
                        "unique ids, type, title, gridPos in 24 columns, no overlap; targets "
                        "with unique refId, expr, datasource ${datasource}", lint_schema(dash)),
                       ("the datasource variable, of type datasource (prometheus); every "
                        "variable used is defined", lint_templating(dash)),
                       ("every metric is a family of the daemon's /metrics, counters in "
                        "rate()/increase() over $__rate_interval or $__range",
                        lint_exprs(dash, fam))):
        ok &= result(not errs, name, "; ".join(errs))
    return ok


def substitute(expr, ifname):
    for var, value in (("__rate_interval", "1m"), ("__range", "5m"), ("instance", ".*"),
                       ("ifname", ifname)):
        expr = expr.replace("${%s}" % var, value).replace("$" + var, value)
    return expr


def api(prom, path, **params):
    url = "%s/api/v1/%s?%s" % (prom, path, urllib.parse.urlencode(params, doseq=True))
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        return json.load(e)
    except (OSError, ValueError) as e:
        return {"status": "error", "error": str(e)}


def verdict(prom, expr, why_not):
    """None when the target passes, else why not."""
    r = api(prom, "query", query=expr)
    if r.get("status") != "success":
        return "%s: %s" % (expr, r.get("error"))
    if not why_not and not r["data"]["result"]:
        return "%s: no data" % expr
    return None


def query(dash_path, prom, ifname, metrics_path, seconds, exempt):
    dash = json.load(open(dash_path))
    _, sampled = families(open(metrics_path).read())
    todo = []
    for p in dash["panels"]:
        for t in p.get("targets", []):
            names = set(METRIC.findall(t["expr"]))
            whys = {why for prefix, why in exempt
                    if names and all(n.startswith(prefix) for n in names) and
                    not any(s.startswith(prefix) for s in sampled)}
            todo.append((p, t, substitute(t["expr"], ifname), ", ".join(sorted(whys))))
    deadline = time.monotonic() + seconds
    while True:
        failed = {id(t): verdict(prom, e, why) for _, t, e, why in todo}
        if not any(failed.values()) or time.monotonic() > deadline:
            break
        time.sleep(1)
    ok = True
    for p in dash["panels"]:
        mine = [(t, why) for q, t, _, why in todo if q is p]
        if not mine:
            continue
        errs = [failed[id(t)] for t, _ in mine if failed[id(t)]]
        whys = sorted({why for _, why in mine if why})
        name = "panel %d %r: its %d expressions return data" % (p["id"], p["title"], len(mine))
        if whys:
            name = "panel %d %r: its %d expressions are valid (validity only: %s not running " \
                   "in this test)" % (p["id"], p["title"], len(mine), "; ".join(whys))
        ok &= result(not errs, name, "; ".join(errs))
    for v in dash["templating"]["list"]:
        m = re.fullmatch(r"label_values\((.*), *(\w+)\)", v.get("definition", ""))
        if v.get("type") != "query" or not m:
            continue
        r = api(prom, "series", **{"match[]": substitute(m.group(1), ifname)})
        values = {s.get(m.group(2)) for s in r.get("data", [])} - {None}
        good = bool(values) and (v["name"] != "ifname" or ifname in values)
        ok &= result(good, "variable %s: %s finds %s" % (v["name"], v["definition"],
                                                          sorted(values)), str(r)[:300])
    return ok


def main(argv):
    if len(argv) == 4 and argv[1] == "lint":
        return 0 if lint(argv[2], argv[3]) else 1
    if len(argv) >= 7 and argv[1] == "query":
        exempt = [a.split("=", 1) for a in argv[7:]]
        return 0 if query(argv[2], argv[3], argv[4], argv[5], float(argv[6]), exempt) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
