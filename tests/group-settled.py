# group-settled.py: whether a consumer group has settled, for the tests
# (test_helper's settled) and make bench (tests/bench/bench.sh), so both
# judge it by one rule.
#
#   python3 group-settled.py N NPARTS DESCRIBE.json LOG.jsonl [T0]
#
# DESCRIBE.json is `tmq-group describe --json G`, LOG.jsonl is
# `tmq-dump -J -- --group--G`.  Settled: describe says the group is stable
# with N members owning the NPARTS partitions between them, each exactly
# once, and each member's last REBALCONFIRM comes after the ENDREBAL that
# closed the last rebalance and holds what describe says.  That ENDREBAL
# is the first one after the last BEGINREBAL: every member that finds the
# offers complete may write one, so a rebalance can have several, and the
# confirms come after the first (tmq(7), "Consumer groups").
#
# Settled, it prints "ID:P,P ID:P,P" and exits 0; with T0 (seconds since
# the epoch) it prints instead the milliseconds from T0 to the last of
# those confirms, by their timestamps.  Not settled, it prints why and
# exits 1.
import json
import sys


def fail(why):
    print(why)
    sys.exit(1)


n, nparts = int(sys.argv[1]), int(sys.argv[2])
with open(sys.argv[3], encoding="utf-8") as f:
    d = json.load(f)
with open(sys.argv[4], encoding="utf-8") as f:
    log = [json.loads(l) for l in f]
t0 = float(sys.argv[5]) if len(sys.argv) > 5 else None

if d["state"] != "stable":
    fail("state %s" % d["state"])
members = {int(k): sorted(v) for k, v in d["members"].items()}
if len(members) != n:
    fail("members %r, want %d" % (members, n))
owned = sorted(p for v in members.values() for p in v)
if owned != list(range(nparts)):
    fail("partitions owned: %r" % owned)
for p in d["partitions"]:
    if p["owner"] is None or p["partition"] not in members[p["owner"]]:
        fail("partition %r" % p)
begun = max([m["offset"] for m in log if m["type"] == "~~TWAIN~~BEGINREBAL"],
            default=-1)
ended = min([m["offset"] for m in log
             if m["type"] == "~~TWAIN~~ENDREBAL" and m["offset"] > begun],
            default=-1)
confirmed = {}
for m in log:
    if m["type"] == "~~TWAIN~~REBALCONFIRM":
        confirmed[m["key"]] = m
for k, v in members.items():
    c = confirmed.get(k)
    off = c["offset"] if c else -1
    parts = sorted(c["payload"]["partitions"]) if c else None
    if off < ended or parts != v:
        fail("member %d confirmed %r at %d (ENDREBAL at %d), describe: %r"
             % (k, parts, off, ended, v))
if t0 is not None:
    print("%.0f" % ((max(confirmed[k]["timestamp"] for k in members) - t0)
                    * 1000))
else:
    print(" ".join("%d:%s" % (k, ",".join(map(str, v)))
                   for k, v in sorted(members.items())))
