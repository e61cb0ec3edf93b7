#!/usr/bin/env python3
"""Drive sowfan line by line from Python: a whole game of Kalah(4,3), sowfan against itself
at two depths, each move asked with `go depth`, the result asked with `query result`.

Run: python3 examples/drive.py  (with sowfan on the PATH, or SOWFAN=/path/to/sowfan)
"""
import os
import subprocess
import sys


class Engine:
    def __init__(self, program):
        self.p = subprocess.Popen([program], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, prefix):
        """Lines up to and including the first that starts with prefix."""
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("sowfan ended")
            line = line.rstrip("\n")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def ask(self, query):
        self.send("query " + query)
        return self.until("response ")[-1].split(" ", 1)[1]

    def quit(self):
        self.send("quit")
        self.p.wait(timeout=10)


def main():
    engine = Engine(os.environ.get("SOWFAN", "sowfan"))
    engine.send("uci")
    engine.until("uciok")
    engine.send("newgame kalah pits=4 seeds=3")
    moves = []
    while True:
        engine.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        if engine.ask("gameover") != "false":
            break
        # South (who moves first) searches 2 plies, North 6.
        depth = 2 if engine.ask("p1turn") == "true" else 6
        engine.send(f"go depth {depth}")
        moves.append(engine.until("bestmove")[-1].split()[1])
    print("moves:", " ".join(moves))
    print("result:", engine.ask("result"))
    engine.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
