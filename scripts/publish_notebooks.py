#!/usr/bin/env python3
"""Copy executed notebooks into a folder that is committed, so that they can be read on the code host.

  scripts/publish_notebooks.py SRC DST --commit REV --settings full|quick

SRC holds the executed copies (`go test ./notebooks` writes them to runs/notebooks/executed/); each one
that notebooks/ has a source for is written to DST under its name with, in its metadata, where it comes
from ({"eccco": {"commit": REV, "settings": ..., "source": "notebooks/NAME.ipynb"}}) and, as its first
cell, a Markdown note saying the same to a reader. A notebook already in DST is replaced only when its
metadata carries that "eccco" key (one this script wrote); anything else there is left alone and reported.
Each file is written to a temporary file beside it and renamed, so no reader sees half of one.
"""
import argparse
import json
import os
import sys
import tempfile

NOTE = "eccco-publish-note"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--settings", required=True, choices=["full", "quick"])
    ap.add_argument("--notebooks", default="notebooks", help="the folder of the notebooks' sources")
    a = ap.parse_args()
    names = sorted(n for n in os.listdir(a.src) if n.endswith(".ipynb") and os.path.exists(os.path.join(a.notebooks, n)))
    if not names:
        print(f"publish_notebooks: no executed notebook in {a.src} has a source in {a.notebooks}/", file=sys.stderr)
        return 1
    os.makedirs(a.dst, exist_ok=True)
    refused = 0
    for n in names:
        with open(os.path.join(a.src, n)) as f:
            nb = json.load(f)
        out = os.path.join(a.dst, n)
        if os.path.exists(out):
            try:
                with open(out) as f:
                    ours = "eccco" in json.load(f).get("metadata", {})
            except (OSError, ValueError):
                ours = False
            if not ours:
                print(f"publish_notebooks: {out} exists and was not written by this script; left alone", file=sys.stderr)
                refused += 1
                continue
        nb.setdefault("metadata", {})["eccco"] = {"commit": a.commit, "settings": a.settings, "source": f"notebooks/{n}"}
        cells = [c for c in nb.get("cells", []) if c.get("metadata", {}).get("tags") != [NOTE]]
        note = (f"*Executed headless with the notebooks' **{a.settings}** settings (`ECCCO_QUICK={0 if a.settings == 'full' else 1} go test ./notebooks`, "
                f"the notebooks stage of `./reproduce.sh`) at commit `{a.commit}`; outputs as they came out. "
                f"The notebook itself, without outputs: [`notebooks/{n}`](../../notebooks/{n}).*")
        cells.insert(0, {"cell_type": "markdown", "metadata": {"tags": [NOTE]}, "source": [note]})
        nb["cells"] = cells
        fd, tmp = tempfile.mkstemp(dir=a.dst, prefix="." + n, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(nb, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(tmp, out)
        print(f"wrote {out}")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
