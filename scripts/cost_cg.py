#!/usr/bin/env python3
"""The arithmetic of scripts/cost.sh.

  cost_cg.py sum [--bin PROGRAM] CALLGRIND_OUT FUNCTION...
      One callgrind file summed per FUNCTION (matched up to a dot or an @,
      so that GCC clones such as f.constprop.0 match), as one JSON object:
      {FUNCTION: {calls, ir, layers, sys, clock, alloc}, "_collected": N}.
      The run must use --separate-callers deep enough that every function's
      name carries its callers up to a FUNCTION ("f'caller'caller's
      caller'..."): each function's own cost then goes to the nearest
      FUNCTION on its call chain, exactly, and so do call counts and system
      calls, which callgrind keeps whether collection is on or not.
        ir      instructions collected (only inside --toggle-collect ones)
        layers  ir by layer, by the source file of each line executed
                (a function's own lines: the file PROGRAM's symbol table
                names for it; callgrind's file markers say only where
                inlined code comes from):
                driver (drivers/, core/port/), net (core/net/), sock
                (core/sock/, core/zcrx/), ring (core/uring/ and its
                liburing face include/compat/), app (apps/, tests/); code of
                no layer (libc, base/, core/mem, core/debug, public
                headers' inline functions) counts for the function it is
                inlined in, else for the nearest caller that has a layer,
                else for the app
        sys     calls into libc's system call entry points (the functions
                of its sysdeps/unix/ sources: getpid, process_vm_readv,
                syscall, write, nanosleep, ...; one inside another counts
                once), clock_gettime apart:
        clock   clock_gettime calls (natively a vDSO call, no kernel entry)
        alloc   calls into malloc, calloc, realloc, free and the like
      Call counts, not callgrind's sysCount: valgrind lets one thread run at
      a time, and a blocking system call of another thread (the device
      model's) that returns is charged to wherever the measured thread was.
        where   {call chain: count} of those system and allocator calls
      Fails if collected instructions fall outside every FUNCTION (a call
      chain deeper than --separate-callers).

  cost_cg.py table ROWS_JSONL OUT_JSON
      Prints the cost table from the rows cost.sh wrote and saves it as JSON.
"""
import json
import re
import sys

SYSCALL_SRC = re.compile(r"sysdeps/unix/")
ALLOC = {"malloc", "calloc", "realloc", "free", "reallocarray", "posix_memalign",
         "aligned_alloc", "memalign", "valloc", "pvalloc", "cfree"}
LAYERS = [("driver", re.compile(r"(^|/)(drivers|core/port)/")),
          ("net", re.compile(r"(^|/)core/net/")),
          ("sock", re.compile(r"(^|/)core/(sock|zcrx)/")),
          ("ring", re.compile(r"(^|/)(core/uring|include/compat)/")),
          ("app", re.compile(r"(^|/)(apps|tests)/"))]
LAYER_NAMES = [n for n, _ in LAYERS]
FIELDS = ["ir", "sys", "clock", "alloc"]


def base(name):
    return re.split(r"[.@]", name.split("'", 1)[0], maxsplit=1)[0]


def layer(path):
    for name, rx in LAYERS:
        if rx.search(path):
            return name
    return None


def zero():
    return {"calls": 0, "ir": 0, "sys": 0, "clock": 0, "alloc": 0,
            "layers": {n: 0 for n in LAYER_NAMES}, "where": {}}


def chain(ctx, root):
    """"f'g'root'main..." -> "root > g > f", where a call came from."""
    parts = []
    for part in ctx.split("'"):
        parts.append(re.split(r"[.@]", part, maxsplit=1)[0])
        if parts[-1] == root:
            break
    return " > ".join(reversed(parts))


def defined_in(program):
    """{function: source file} from the program's symbol table (nm -l)."""
    import subprocess
    out = subprocess.run(["nm", "-l", "--defined-only", program], capture_output=True,
                         text=True, check=True).stdout
    where = {}
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) == 2 and len(parts[0].split()) == 3:
            where.setdefault(base(parts[0].split()[2]), parts[1].rsplit(":", 1)[0])
    return where


def cmd_sum(path, wanted, program):
    names = {}          # callgrind's name compression: (kind, id) -> name
    events = []
    acc = {w: zero() for w in wanted}
    collected = 0
    own = defined_in(program) if program else {}
    last = fn = cfn = ""  # last: the file callgrind named last
    cur = None          # the file of the cost lines that follow (None: fn's own)
    fn_root = None
    last_at_fn = ""
    home = {}           # function -> its layer (None: has none of its own)
    raw = {}            # (root, function context, layer or None) -> ir
    in_call = None      # (callee, calls): the next cost line is that call's
    files = {}          # function -> its source file
    arcs = []           # (root, caller context, callee, calls) inside a FUNCTION

    def resolve(kind, value):
        m = re.match(r"\((\d+)\)(?: (.*))?$", value)
        if not m:
            return value
        key = (kind, m.group(1))
        if m.group(2) is not None:
            names[key] = m.group(2)
        return names.get(key, "")

    def root_of(ctx):
        for part in ctx.split("'"):
            if base(part) in wanted:
                return base(part)
        return None

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("events:"):
                events = line.split(":", 1)[1].split()
                continue
            if line[0].isdigit() or line[0] in "+-*":
                cost = dict(zip(events, [int(v) for v in line.split()[1:]]))
                ir = cost.get("Ir", 0)
                if in_call:
                    callee, calls = in_call
                    in_call = None
                    b = base(callee)
                    if b in acc and root_of(fn) != b:
                        acc[b]["calls"] += calls
                    if fn_root and calls:
                        arcs.append((fn_root, fn, b, calls))
                    continue
                collected += ir
                if not fn_root:
                    continue
                acc[fn_root]["ir"] += ir
                lay = layer(cur or own.get(base(fn), last_at_fn))
                if lay and not home.get(base(fn)):
                    home[base(fn)] = lay
                k = (fn_root, fn, lay)
                raw[k] = raw.get(k, 0) + ir
                continue
            key, _, value = line.partition("=")
            if key == "fl":
                last = resolve("fl", value)
            elif key in ("fi", "fe"):
                last = cur = resolve("fl", value)
            elif key in ("cfl", "cfi"):
                resolve("fl", value)
            elif key in ("ob", "cob"):
                resolve("ob", value)
            elif key == "fn":
                fn = resolve("fn", value)
                fn_root = root_of(fn)
                last_at_fn, cur = last, None
                files[base(fn)] = own.get(base(fn), last)
                if layer(files[base(fn)]):
                    home[base(fn)] = layer(files[base(fn)])
            elif key == "cfn":
                cfn = resolve("fn", value)
            elif key == "calls":
                in_call = (cfn, int(value.split()[0]))

    def is_sys(f):
        return SYSCALL_SRC.search(files.get(f, "")) is not None

    def owner(ctx):
        for part in ctx.split("'"):
            if home.get(base(part)):
                return home[base(part)]
        return "app"

    for (root, ctx, lay), ir in raw.items():
        acc[root]["layers"][lay or owner(ctx)] += ir
    for root, caller, callee, calls in arcs:
        cb = base(caller)
        if callee in ALLOC and cb not in ALLOC:
            kind = "alloc"
        elif is_sys(callee) and not is_sys(cb):
            kind = "clock" if callee == "clock_gettime" else "sys"
        else:
            continue
        acc[root][kind] += calls
        if kind != "clock":
            k = chain(callee + "'" + caller, root)
            acc[root]["where"][k] = acc[root]["where"].get(k, 0) + calls
    if collected != sum(a["ir"] for a in acc.values()):
        sys.exit("cost_cg.py: %s: %d instructions collected, %d inside %s: raise "
                 "--separate-callers" % (path, collected, sum(a["ir"] for a in acc.values()),
                                         " ".join(sorted(wanted))))
    acc["_collected"] = collected
    return acc


def combine(parts):
    """parts: [(sign, sum-record)]: the signed total of them."""
    t = zero()
    for sign, a in parts:
        for k in FIELDS:
            t[k] += sign * a[k]
        for n in LAYER_NAMES:
            t["layers"][n] += sign * a["layers"][n]
        for k, v in a["where"].items():
            t["where"][k] = t["where"].get(k, 0) + sign * v
    t["where"] = {k: v for k, v in t["where"].items() if v}
    return t


def cmd_table(rows_path, out_path):
    rows = []
    with open(rows_path) as f:
        for line in f:
            r = json.loads(line)
            # runs: [{"sum": <cost_cg.py sum>, "roots": [FUNCTION...], "sign": 1 or -1}]
            t = combine([(run["sign"], run["sum"][root]) for run in r["runs"]
                         for root in run["roots"]])
            ops = r["ops"]
            row = {"id": r["id"], "operation": r["name"], "per": r["per"], "ops": ops,
                   "target": r["target"], "note": r.get("note", "")}
            row["instructions"] = round(t["ir"] / ops, 1)
            row["layers"] = {n: round(t["layers"][n] / ops, 1) for n in LAYER_NAMES}
            for k in ("sys", "clock", "alloc"):
                row[k] = t[k]
                row[k + "_per_op"] = round(t[k] / ops, 3)
            row["where"] = t["where"]
            row["met"] = None if r["target"] is None else row["instructions"] <= r["target"]
            rows.append(row)
    print("instructions per operation (callgrind, exact; waiting excluded), by layer:")
    print("  driver = drivers/ + core/port/, net = core/net/, sock = core/sock/ + core/zcrx/,")
    print("  ring = core/uring/ + include/compat/ (liburing's inline helpers), app = the")
    print("  application's own code; libc, base/, core/mem, core/debug count for their caller's layer")
    print("  sys: system calls per op (calls into libc's system call entry points; clock_gettime")
    print("  apart, a vDSO call natively); alloc: malloc/calloc/realloc/free calls per op; both")
    print("  counted exactly inside the measured functions")
    hdr = "%-46s %8s %7s %7s %7s %7s %7s %-11s %5s %5s  %s"
    print(hdr % ("operation", "instr", "driver", "net", "sock", "ring", "app", "target",
                 "sys", "alloc", "clock/op"))
    for row in rows:
        L = row["layers"]
        target = "-" if row["met"] is None else \
            "<=%d %s" % (row["target"], "met" if row["met"] else "NOT")
        print("%-46s %8.1f %7.1f %7.1f %7.1f %7.1f %7.1f %-11s %5g %5g  %g" % (
            row["operation"], row["instructions"], L["driver"], L["net"], L["sock"],
            L["ring"], L["app"], target, row["sys_per_op"], row["alloc_per_op"],
            row["clock_per_op"]))
        if row["note"]:
            print("    " + row["note"])
        for k, v in sorted(row["where"].items()):
            print("    %d calls: %s" % (v, k))
    with open(out_path, "w") as f:
        json.dump({"unit": "instructions per operation (callgrind)", "rows": rows}, f, indent=1)
        f.write("\n")


def main():
    if len(sys.argv) >= 6 and sys.argv[1:3] == ["sum", "--bin"]:
        print(json.dumps(cmd_sum(sys.argv[4], set(sys.argv[5:]), sys.argv[3])))
    elif len(sys.argv) >= 4 and sys.argv[1] == "sum":
        print(json.dumps(cmd_sum(sys.argv[2], set(sys.argv[3:]), None)))
    elif len(sys.argv) == 4 and sys.argv[1] == "table":
        cmd_table(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


main()
