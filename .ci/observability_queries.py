#!/usr/bin/env python3
# Evaluates every query of the Grafana dashboard and every rule expression through the HTTP
# API of a running Prometheus, and fails unless each returns data (issue 25; run by
# .ci/observability-check, which explains what "returns data" means for an alert).
# Standard library only.
import json
import math
import re
import sys
import urllib.parse
import urllib.request

# What Grafana would put in for the dashboard's variables: every job, instance and server;
# windows fit for a Prometheus that has scraped for a minute or two every second
SUBSTITUTIONS = [
    (re.compile(r"\$\{?__rate_interval\}?"), "1m"),
    (re.compile(r"\$\{?__interval\}?"), "15s"),
    (re.compile(r"\$\{?__range\}?"), "5m"),
    (re.compile(r"\$\{?(job|instance|server)(:[a-z]+)?\}?"), ".*"),
]

COMPARISONS = ("==", "!=", ">=", "<=", ">", "<")


def substitute(expr):
    for pattern, value in SUBSTITUTIONS:
        expr = pattern.sub(value, expr)
    if "$" in expr:
        raise ValueError("a variable is left in: " + expr)
    return expr


def api(base, path, params):
    url = base + path + "?" + urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(url, timeout=30) as response:
        body = json.load(response)
    if body.get("status") != "success":
        raise RuntimeError(path + " answered " + json.dumps(body))
    return body["data"]


def query(base, expr):
    """The samples of an instant query, as (labels, value) pairs."""
    data = api(base, "/api/v1/query", {"query": expr})
    if data["resultType"] == "scalar":
        return [({}, float(data["result"][1]))]
    return [(sample["metric"], float(sample["value"][1])) for sample in data["result"]]


def top_level_comparison(expr):
    """The position and text of the last comparison outside brackets and strings, if any."""
    depth = 0
    quote = None
    found = None
    i = 0
    while i < len(expr):
        c = expr[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            for op in COMPARISONS:
                if expr.startswith(op, i) and not expr.startswith("=~", i) and not expr.startswith("!~", i):
                    found = (i, op)
                    i += len(op) - 1
                    break
        i += 1
    return found


def as_bool(expr):
    """The alert condition with its deciding comparison made a 0/1 value: a sample for every
    series the condition is computed for, whether it holds or not."""
    found = top_level_comparison(expr)
    if found is None:
        return None
    at, op = found
    rest = expr[at + len(op):]
    if rest.lstrip().startswith("bool"):
        return expr
    return expr[:at + len(op)] + " bool" + rest


def panels(dashboard):
    for panel in dashboard.get("panels", []):
        yield panel
        for inner in panel.get("panels", []):
            yield inner


def has_data(samples):
    return any(not math.isnan(value) for _, value in samples)


def main(base, dashboard_file, expected_rules):
    with open(dashboard_file) as f:
        dashboard = json.load(f)
    rows = []
    failures = []

    def check(kind, name, expr, samples_or_error):
        if isinstance(samples_or_error, Exception):
            rows.append((kind, name, "error", str(samples_or_error)))
            failures.append(f"{kind} '{name}': {expr}: {samples_or_error}")
            return
        samples = samples_or_error
        ok = has_data(samples)
        rows.append((kind, name, str(len(samples)), "data" if ok else "NO DATA"))
        if not ok:
            failures.append(f"{kind} '{name}' returned no data (series: {len(samples)}, all NaN or none): {expr}")

    def run(expr):
        try:
            return query(base, expr)
        except Exception as ex:  # the query is the finding: say it and go on
            return ex

    # every query of every panel
    for panel in panels(dashboard):
        for target in panel.get("targets", []):
            expr = substitute(target["expr"])
            check("panel", f"{panel['title']} [{target.get('refId', '?')}]", expr, run(expr))

    # every template variable that queries Prometheus: label_values(selector, label)
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        definition = variable["definition"]
        match = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\)\s*", definition)
        if not match:
            failures.append(f"variable '{variable['name']}': not label_values(selector, label): {definition}")
            continue
        selector, label = substitute(match.group(1)), match.group(2)
        try:
            values = api(base, f"/api/v1/label/{label}/values", {"match[]": selector})
            rows.append(("variable", variable["name"], str(len(values)), "data" if values else "NO DATA"))
            if not values:
                failures.append(f"variable '{variable['name']}' has no values: {definition}")
        except Exception as ex:
            check("variable", variable["name"], definition, ex)

    # every rule Prometheus loaded from the rules file
    groups = api(base, "/api/v1/rules", {})["groups"]
    rules = [rule for group in groups for rule in group["rules"]]
    if len(rules) != expected_rules:
        failures.append(f"Prometheus loaded {len(rules)} rules, promtool found {expected_rules} in the file")
    for rule in rules:
        name = rule.get("name")
        if rule.get("health") != "ok" or rule.get("lastError"):
            failures.append(f"rule '{name}' is not healthy: {rule.get('health')} {rule.get('lastError', '')}")
        expr = rule["query"]
        result = run(expr)
        if rule["type"] == "recording":
            check("rule", name, expr, result)
            continue
        # the condition as written must evaluate; whether it holds now is the alert's business
        if isinstance(result, Exception):
            check("alert", name, expr, result)
            continue
        rows.append(("alert", name, str(len(result)), "condition holds now" if result else "condition does not hold now"))
        inner = as_bool(expr)
        if inner is None:
            check("alert data", name, expr, result)
        else:
            check("alert data", name, inner, run(inner))

    width = max(len(r[1]) for r in rows)
    for kind, name, count, result in rows:
        print(f"  {kind:<10} {name:<{width}}  {count:>4} series  {result}")
    counted = {kind: sum(1 for r in rows if r[0] == kind) for kind in ("panel", "variable", "alert data", "rule")}
    if failures:
        print("observability check FAILED:")
        for failure in failures:
            print("  - " + failure)
        return 1
    print(f"observability check: {counted['panel']} dashboard queries, {counted['variable']} variables and "
          f"{counted['alert data'] + counted['rule']} rule expressions returned data")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        assert as_bool('max by (a) (m{state="FAILED"}) == 1') == 'max by (a) (m{state="FAILED"}) == bool 1'
        assert as_bool('a{x!="",y!="c"} / b > 0.05') == 'a{x!="",y!="c"} / b > bool 0.05'
        assert as_bool('rate(m[5m]) >= bool 3') == 'rate(m[5m]) >= bool 3'
        assert as_bool('sum(m{a=~"x>y"})') is None
        assert substitute('rate(m{server=~"$server"}[$__rate_interval])') == 'rate(m{server=~".*"}[1m])'
        print("self-test passed")
        sys.exit(0)
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
