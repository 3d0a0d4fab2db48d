"""Walk one application's whole AT-SPI tree with Debian's pyatspi, reading
role, name, states and extents (screen coordinates) of every node: the
baseline that bench/desktop holds canopy's reads against.

    /usr/bin/python3 bench/desktop/pyatspi_walk.py --pid PID [-n 5]
    /usr/bin/python3 bench/desktop/pyatspi_walk.py --pid PID --serve

The application is the desktop root's child whose process id is PID. The
first walk is reported apart ("cold": it opens pyatspi's peer-to-peer
connection to the app); then -n walks are timed one by one, and one JSON
object is printed. With --serve, the script prints the cold walk as a JSON
line and then walks once for every line read on stdin, answering with a
JSON line each, so that the caller can interleave its own reads with these
walks. Times are taken inside the process: interpreter start-up and
imports are not counted.

Children are read with childCount once and getChildAtIndex(i) per child, the
cheapest way pyatspi offers (`for c in acc` would ask for the child count
again for every child).
"""

import argparse
import json
import sys
import time

import pyatspi


def find_app(pid):
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        if app is None:
            continue
        try:
            if app.get_process_id() == pid:
                return app
        except Exception:
            continue
    return None


def walk(root):
    """Depth-first over the whole tree; returns (nodes, errors)."""
    nodes = errors = 0
    stack = [root]
    while stack:
        acc = stack.pop()
        try:
            acc.getRole()
            acc.name
            acc.getState()
            try:
                acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
            except NotImplementedError:
                pass
            count = acc.childCount
        except Exception:
            errors += 1
            continue
        nodes += 1
        for i in range(count - 1, -1, -1):
            try:
                child = acc.getChildAtIndex(i)
            except Exception:
                errors += 1
                continue
            if child is not None:
                stack.append(child)
    return nodes, errors


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("-n", type=int, default=5)
    p.add_argument("--serve", action="store_true")
    args = p.parse_args()

    t0 = time.perf_counter()
    app = find_app(args.pid)
    if app is None:
        print(json.dumps({"error": "no application with pid %d on the desktop" % args.pid}))
        return 1
    nodes, errors = walk(app)
    cold = time.perf_counter() - t0

    if args.serve:
        print(json.dumps({"name": app.name, "cold_ms": cold * 1000, "nodes": nodes, "errors": errors}), flush=True)
        for _ in sys.stdin:
            t = time.perf_counter()
            n, e = walk(app)
            ms = (time.perf_counter() - t) * 1000
            print(json.dumps({"ms": ms, "nodes": n, "errors": e}), flush=True)
        return 0

    ms, counts = [], []
    for _ in range(args.n):
        t = time.perf_counter()
        n, e = walk(app)
        ms.append((time.perf_counter() - t) * 1000)
        counts.append(n)
        errors += e
    print(json.dumps({"name": app.name, "cold_ms": cold * 1000, "ms": ms,
                      "nodes": counts, "errors": errors}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
