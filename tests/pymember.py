# pymember.py: one member of a consumer group, run by the Python TwainMQ
# library (0.1.9), for tests/t0400-tmq-group.bats, which runs it after
# require_ref (tests/test_helper.bash) has made the library importable.
#
#   python3 pymember.py ROOT TOPIC GROUP WINDOW_SECONDS MAX_SECONDS STOPFILE
#
# Joins GROUP on TOPIC (creating the group, from start, when missing) and
# reads until STOPFILE exists or MAX_SECONDS have passed, printing each
# message's payload as it reads it (flushed, one a line).  Rebalances it
# starts last WINDOW_SECONDS instead of the library's 60.  At the end it
# commits and prints "py partitions [..]" on stderr.
import contextlib
import datetime
import io
import os
import sys
import time

import twainmq
import twainmq.consumer

root, topic, group = sys.argv[1:4]
window, max_seconds = float(sys.argv[4]), float(sys.argv[5])
stopfile = sys.argv[6]

twainmq.consumer.REBAL_LENGTH = datetime.timedelta(seconds=window)
c = twainmq.Twain(root).consumer(topic, start_from="start", group=group)
print("py joined as", c._consumer_id, file=sys.stderr, flush=True)
end = time.time() + max_seconds
while time.time() < end and not os.path.exists(stopfile):
    m = c.poll()
    if m is None:
        time.sleep(0.05)
        continue
    print(m.message, flush=True)
# commit() prints the pairs it commits: keep stdout for the messages.
with contextlib.redirect_stdout(io.StringIO()):
    c.commit()
print("py partitions", sorted(c._partitions), file=sys.stderr, flush=True)
