#!/usr/bin/env python3
"""Play a few games, analyse them to JSON Lines and pick out the worst move of each player:
`sowfan analyse --format jsonl` read line by line, as `jq` would.

Run: python3 examples/blunders.py  (with sowfan on the PATH, or SOWFAN=/path/to/sowfan)
"""
import json
import os
import subprocess
import sys

sowfan = os.environ.get("SOWFAN", "sowfan")
subprocess.run([sowfan, "match", "--engine", f"cmd={sowfan}", "name=fast", "depth=1",
                "--engine", f"cmd={sowfan}", "name=deep", "depth=5",
                "--game", "kalah pits=4", "--games", "2", "--openings", "plies=2",
                "--records", "blunders.jsonl", "--quiet"], check=True, stdout=subprocess.DEVNULL)
analysis = subprocess.run([sowfan, "analyse", "blunders.jsonl", "--depth", "8", "--format", "jsonl"],
                          check=True, capture_output=True, text=True).stdout
worst = {}
for line in analysis.splitlines():
    row = json.loads(line)
    if row["type"] != "move" or row["opening"]:
        continue
    key = (row["game"], row["by"])
    if key not in worst or row["loss"] > worst[key]["loss"]:
        worst[key] = row
for (game, by), row in sorted(worst.items()):
    print(f"game {game} {by}: worst move {row['move']} at ply {row['ply']}, "
          f"loss {row['loss']} (best {row['best']})")
sys.exit(0 if worst else 1)
