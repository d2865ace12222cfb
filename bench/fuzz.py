"""Thousands of bad inputs through every `palace` command, each in its own process.

Run from the project root: ``nice -n 10 python3 -m bench.fuzz`` (``--quick`` for a smoke
run). The inputs come from the suite's strategies (``tests/fuzz_strategies.py``): bad
scene, map, camera, pose and profile files, pictures that lie about their size, and
arguments at their edges. Each run is a child process forked from one that has already
imported the CLI (a fresh interpreter costs 1-2 s; the fork, milliseconds), limited to
``--timeout`` seconds and to ``--memory-gib`` of address space beyond what it starts
with (``resource.setrlimit``). Per command it prints how many inputs were tried, the
exit codes, tracebacks, messages over one line, timeouts, the slowest run and the
peak resident memory, and the slowest run's ratio to a reference: a valid
``palace check`` timed the same way in the same run.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzz_strategies import (  # the strategies live beside the tests
    FUZZED_COMMANDS,
    Case,
    broken_promises,
    cli_case,
    materialise,
)
from hypothesis import HealthCheck, Phase, given, seed, settings

from palace.cli import build_parser, main

Job = tuple[str, list[str], str]
"""The command, its arguments, and the folder holding its files (removed after the run)."""


@dataclass
class Outcome:
    argv: list[str]
    code: int | None
    err: str
    seconds: float
    peak_mib: float
    timed_out: bool


@dataclass
class Tally:
    outcomes: list[Outcome] = field(default_factory=list)

    def line(self, command: str, reference_s: float) -> str:
        codes = Counter("timeout" if o.timed_out else str(o.code) for o in self.outcomes)
        broken = [o for o in self.outcomes if broken_promises(command, o.code, o.err)]
        tracebacks = sum("Traceback" in o.err for o in self.outcomes)
        slowest = max(o.seconds for o in self.outcomes)
        peak = max(o.peak_mib for o in self.outcomes)
        listed = " ".join(f"{k}:{v}" for k, v in sorted(codes.items()))
        return (f"{command:10s} tried {len(self.outcomes):5d}  exits {listed:22s} "
                f"tracebacks {tracebacks}  broken {len(broken)}  timeouts "
                f"{codes.get('timeout', 0)}  slowest {slowest:6.2f} s "
                f"({slowest / reference_s:6.1f}x ref)  peak {peak:6.0f} MiB")


def jobs_for(command: str, count: int, run_seed: int) -> list[Job]:
    """``count`` inputs for ``command`` drawn by hypothesis (generation only, no shrinking),
    each written to its own folder at once: held in memory, 4K pictures would swell this
    process, and every forked child's resident size with it."""
    jobs: list[Job] = []

    @seed(run_seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(cli_case(command, large=True))
    def collect(case: Case) -> None:
        folder = tempfile.mkdtemp(prefix="palace-fuzz-")
        jobs.append((command, materialise(case, folder), folder))

    collect()
    return jobs


def _child(argv: list[str], folder: str, memory_bytes: int) -> None:
    """In the forked child: limits, output to files, the command; never returns."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = memory_bytes + _address_space()
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard if hard != -1 else limit))
    for fd, name in ((1, "stdout"), (2, "stderr")):
        handle = os.open(os.path.join(folder, f".{name}"), os.O_WRONLY | os.O_CREAT, 0o600)
        os.dup2(handle, fd)
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException:
        traceback.print_exc()
        code = 70
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _address_space() -> int:
    """This process's virtual size now: the child's limit is counted on top of it."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def run_all(jobs: list[Job], workers: int, timeout_s: float,
            memory_bytes: int) -> list[tuple[str, Outcome]]:
    """Runs every job in a forked child, ``workers`` at a time; removes their folders."""
    results: list[tuple[str, Outcome]] = []
    running: dict[int, tuple[str, list[str], str, float]] = {}
    pending = list(jobs)
    while pending or running:
        while pending and len(running) < workers:
            command, argv, folder = pending.pop(0)
            pid = os.fork()
            if pid == 0:
                _child(argv, folder, memory_bytes)
            running[pid] = (command, argv, folder, time.perf_counter())
        pid, status, usage = os.wait4(-1, os.WNOHANG)
        now = time.perf_counter()
        if pid == 0:
            for other, (_, _, _, started) in list(running.items()):
                if now - started > timeout_s:
                    os.kill(other, signal.SIGKILL)
            time.sleep(0.005)
            continue
        command, argv, folder, started = running.pop(pid)
        timed_out = os.WIFSIGNALED(status) and now - started > timeout_s
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        err = Path(folder, ".stderr").read_text(errors="replace")
        results.append((command, Outcome(argv, code, err, now - started,
                                         usage.ru_maxrss / 1024, timed_out)))
        if folder != os.getcwd():
            shutil.rmtree(folder, ignore_errors=True)
    return results


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="80 inputs instead of 2000")
    parser.add_argument("--count", type=int, default=2000, help="inputs over all commands")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--memory-gib", type=float, default=2.0)
    parser.add_argument("--commands", default=",".join(FUZZED_COMMANDS),
                        help="comma-separated subset of the commands")
    args = parser.parse_args()
    commands = [c for c in args.commands.split(",") if c]
    count = 80 if args.quick else args.count
    per_command = -(-count // len(commands))
    build_parser()  # import every command once, before forking
    memory = int(args.memory_gib * 2**30)

    started = time.perf_counter()
    jobs = [job for c in commands for job in jobs_for(c, per_command, args.seed)]
    resident = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"drew {len(jobs)} inputs in {time.perf_counter() - started:.1f} s; each run is "
          f"forked from this process ({resident:.0f} MiB resident, counted in its peak)")
    example = str(resources.files("palace") / "examples" / "game1" / "turn_01.json")
    reference = run_all([("check", ["check", example], tempfile.mkdtemp()) for _ in range(5)],
                        1, args.timeout, memory)
    reference_s = min(o.seconds for _, o in reference)
    print(f"reference: a valid `palace check`, {reference_s * 1000:.0f} ms, "
          f"exit {reference[0][1].code}")

    started = time.perf_counter()
    results = run_all(jobs, args.workers, args.timeout, memory)
    wall = time.perf_counter() - started
    tallies: dict[str, Tally] = {c: Tally() for c in commands}
    for command, outcome in results:
        tallies[command].outcomes.append(outcome)
    for command, tally in tallies.items():
        if tally.outcomes:
            print(tally.line(command, reference_s))
    everything = [o for _, o in results]
    broken = [(c, o) for c, o in results if broken_promises(c, o.code, o.err)]
    over = [o for o in everything if o.peak_mib > args.memory_gib * 1024]
    print(f"total: {len(everything)} inputs in {wall:.0f} s; tracebacks "
          f"{sum('Traceback' in o.err for o in everything)}; broken promises {len(broken)}; "
          f"over {args.timeout:g} s {sum(o.timed_out for o in everything)}; over "
          f"{args.memory_gib:g} GiB {len(over)}; exit 2 {sum(o.code == 2 for o in everything)}, "
          f"exit 0/1 (input that was valid after all) "
          f"{sum(o.code in (0, 1) for o in everything)}")
    for command, outcome in broken[:10]:
        first = (outcome.err.strip().splitlines() or [""])[-1][:200]
        print(f"  BROKEN {command}: {' '.join(outcome.argv)[:200]}\n      {first}")
    valid = [(c, o) for c, o in results if o.code in (0, 1)]
    for command, outcome in valid[:5]:
        print(f"  exit {outcome.code} {command}: {' '.join(outcome.argv)[:160]}")


if __name__ == "__main__":
    main_bench()
