# group-backwards.py: read tmq-dump -J of a group log on stdin; print each
# commit by a member (key != 0) below the offset committed for its partition
# at that point of the log (tmq-get(1), Fencing); exit 1 when there is one.
import json, sys
committed = {}
bad = 0
for line in sys.stdin:
    d = json.loads(line)
    if d["type"] != "~~TWAIN~~COMMIT":
        continue
    for p, o in d["payload"]["partition_offsets"]:
        c = committed.get(p)
        if d["key"] != 0 and c is not None and c >= 0 and o < c:
            print("offset %d: partition %d: member %d committed %d, below %d"
                  % (d["offset"], p, d["key"], o, c))
            bad = 1
        committed[p] = o
sys.exit(bad)
