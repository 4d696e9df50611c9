#!/usr/bin/env python3
"""run-outcome.py: a run's outcome read from the summary eccco reproduce writes (OUT/summary.json).

  scripts/run-outcome.py OUT/summary.json [--every ok|done]

prints one line (the run's status and each stage's status and note) and exits 0 when the run finished
with no stage failed (--every done, the default: stages skipped, e.g. the notebooks without JupyterLab,
are fine) or with every stage ok (--every ok: nothing skipped; notes such as "data sets mnist skipped:
not available" are fine), else 1. The statuses are eccco reproduce's fixed set: ok, skipped, failed.
"""
import json
import sys


def main(argv):
    args = [a for a in argv if not a.startswith("--every")]
    every = "done"
    if "--every" in argv:
        every = argv[argv.index("--every") + 1]
        args.remove(every)
    if len(args) != 1 or every not in ("ok", "done"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f:
        s = json.load(f)
    stages = s.get("stages", [])
    for st in stages:
        if st["status"] not in ("ok", "skipped", "failed"):
            print(f"stage {st['name']}: status {st['status']!r} is not ok, skipped or failed")
            return 1
    parts = [f"{st['name']} {st['status']}" + (f" ({st['note']})" if st.get("note") else "") for st in stages]
    good = s.get("finished") and s.get("status") == "ok"
    if every == "ok":
        good = good and all(st["status"] == "ok" for st in stages)
    print(f"run {s.get('status')}{'' if s.get('finished') else ', unfinished'}: " + "; ".join(parts))
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
