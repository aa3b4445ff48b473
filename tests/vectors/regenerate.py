#!/usr/bin/env python3
# regenerate.py: write the reference vectors (tests/vectors/) with the
# TwainMQ Python library 0.1.9, from a checkout of its repository.  The
# tests never run it: they read the files it wrote.  See README.md beside it.
#
#   TWAINMQ_REF=CHECKOUT python3 tests/vectors/regenerate.py [--seed N] OUT
#       A new set in OUT (which must not exist): the same topics, days,
#       kinds of message and group story as the committed set, with
#       messages, keys and table rows drawn from a random generator seeded
#       with N.  Two runs with one seed write the same bytes.
#   TWAINMQ_REF=CHECKOUT python3 tests/vectors/regenerate.py --replay DIR OUT
#       The set in DIR written again in OUT: each message of DIR's root is
#       put again through the library's producer at the time it carries,
#       the group story runs again (with DIR's join tags), the library reads
#       it all back, and the tables' answers are the library's for DIR's
#       inputs.  Then OUT is compared with DIR, file by file; the exit
#       status is 1 when anything differs.
#
# The library writes with the clock given here (its datetime.now, in UTC),
# draws its join tags from the seeded generator (replaying, from DIR's
# log), and imports on Linux through tests/refshim, which this script puts
# on PYTHONPATH.
import argparse
import base64
import contextlib
import dataclasses
import datetime
import io
import json
import os
import random
import re
import sys
import time

LIBRARY_VERSION = "0.1.9"
HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(os.path.dirname(HERE), "refshim")

# Three days of writing: one in the morning, one that crosses a UTC
# midnight (the first topic's producer starts ten seconds before it), one
# just after midnight; then the group's story at noon of the last day.
PHASES = ["2026-11-25T09:00:00", "2026-11-26T23:59:50", "2026-11-28T00:00:01"]
GROUP_START = "2026-11-28T12:00:00"
# name, key type, partitions, message types; in the order they are written.
TOPICS = [
    ("u8t", "u8", 3, None),
    ("u16t", "u16", 4, None),
    ("u32t", "u32", 5, None),
    ("u64t", "u64", 8, None),
    ("char8t", "char8", 4, None),
    ("char3t", "char3", 2, None),
    ("one", "u16", 1, None),
    ("typed", "u32", 3, ["Order", "Refund"]),
]
GROUP, GROUP_TOPIC = "workers", "u32t"
TEXTS = ["hello", "emoji \U0001f389", "tab\there", "new\nline",
         "na\u00efve caf\u00e9", "\u65e5\u672c\u8a9e\u30c6\u30ad\u30b9\u30c8",
         "\0nul", 'quote " backslash \\', '{"json": [1,2,3]}', "", "x" * 300]
BYTE_LENGTHS = [0, 1, 2, 16, 255, 256, 1000]
CHAR_KEYS = ["a", "ab", "abc", "key", "k1", "Q", "zz", "\u00e9", "\u65e5"]
KEY_WIDTHS = {"u8": 1, "u16": 2, "u32": 4, "u64": 8}


def key_width(key_type):
    if key_type in KEY_WIDTHS:
        return KEY_WIDTHS[key_type]
    return -int(key_type[4:])


def utc_us(iso):
    """Microseconds since the epoch of an ISO time, taken as UTC."""
    t = datetime.datetime.fromisoformat(iso).replace(
        tzinfo=datetime.timezone.utc)
    return round(t.timestamp()) * 10**6


class Clock(datetime.datetime):
    """datetime with now() read from `us`, microseconds since the epoch;
    the library's modules get it in place of datetime."""

    us = 0

    @classmethod
    def now(cls, tz=None):
        t = (datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
             + datetime.timedelta(microseconds=cls.us))
        # TZ is UTC: the library's naive local times are UTC times.
        return t.astimezone(tz) if tz is not None else t.replace(tzinfo=None)


class NoSleep:
    """The library's time module: nothing here may wait."""

    @staticmethod
    def sleep(seconds):
        raise RuntimeError("the library waited (%s s): the story went wrong"
                           % seconds)


class Tags:
    """The library's random module when replaying: the join tags given."""

    def __init__(self, tags):
        self._tags = list(tags)

    def getrandbits(self, bits):
        if not self._tags:
            raise RuntimeError("more joins than the replayed log has")
        return self._tags.pop(0)

    def random(self):
        raise RuntimeError("a join collided: the story went wrong")


@dataclasses.dataclass
class Order:
    id: int
    item: str
    qty: int


@dataclasses.dataclass
class Refund:
    order: int
    reason: str


def load_library(checkout):
    """Import twainmq from the checkout, with tests/refshim in place."""
    src = os.path.join(checkout, "src")
    if os.environ.get("TMQ_REGENERATE_CHILD") != "1":
        # The shim's sitecustomize runs only at start-up: start again
        # with it (and the library) on PYTHONPATH, in UTC.
        env = dict(os.environ, TMQ_REGENERATE_CHILD="1", TZ="UTC",
                   PYTHONDONTWRITEBYTECODE="1")
        env["PYTHONPATH"] = os.pathsep.join(
            [src, SHIM] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    os.environ["TZ"] = "UTC"
    time.tzset()
    try:
        with open(os.path.join(checkout, "pyproject.toml"),
                  encoding="utf-8") as f:
            m = re.search(r'^version\s*=\s*"([^"]*)"', f.read(), re.M)
    except OSError as e:
        sys.exit("regenerate.py: %s is not a checkout of the TwainMQ "
                 "library: %s" % (checkout, e))
    if not m or m.group(1) != LIBRARY_VERSION:
        sys.exit("regenerate.py: %s is TwainMQ %s, not %s"
                 % (checkout, m.group(1) if m else "of no version",
                    LIBRARY_VERSION))
    import twainmq
    import twainmq.agent_base
    import twainmq.consumer
    import twainmq.encoding
    import twainmq.producer
    if not os.path.abspath(twainmq.__file__).startswith(os.path.abspath(src)):
        sys.exit("regenerate.py: imported %s, not the checkout's"
                 % twainmq.__file__)
    for module in (twainmq.agent_base, twainmq.consumer, twainmq.producer):
        module.datetime = Clock
    twainmq.consumer.time = NoSleep
    # Rebalances last two seconds, not the library's sixty.
    twainmq.consumer.REBAL_LENGTH = datetime.timedelta(seconds=2)
    return twainmq


# --- what to write ---------------------------------------------------------

def random_key(rng, key_type):
    w = key_width(key_type)
    if w > 0:
        top = 2 ** (8 * w) - 1
        return rng.choice([0, 1, top, rng.randrange(256) & top,
                           rng.randint(0, top)])
    n = -w
    fits = [k for k in CHAR_KEYS if len(k.encode()) <= n]
    k = rng.choice(fits + ["x" * n])
    suffix = str(rng.randrange(100))
    if rng.random() < 0.3 and len((k + suffix).encode()) <= n:
        k += suffix
    return k


def random_message(rng, first):
    if first:
        return bytes(range(256))    # every byte value, once a topic
    if rng.random() < 0.25:
        return rng.randbytes(rng.choice(BYTE_LENGTHS))
    text = rng.choice(TEXTS)
    if rng.random() < 0.6:
        text += " %d" % rng.randrange(1000000)
    return text


def plan_from_seed(seed):
    """(microseconds, topic, key, message) in the order they are written."""
    rng = random.Random(seed)
    plan = []
    for phase in PHASES:
        us = utc_us(phase)
        for name, key_type, _, types_ in TOPICS:
            for i in range(rng.randint(20, 40) if types_ is None
                           else rng.randint(10, 20)):
                if types_ is None:
                    msg = random_message(rng, phase == PHASES[0] and i == 0)
                    key = random_key(rng, key_type)
                elif rng.random() < 0.5:
                    msg = Order(rng.randrange(20),
                                rng.choice(["apple", "pear", "\u00fc-bahn"]),
                                rng.randint(1, 6))
                    key = rng.getrandbits(32)
                else:
                    msg = Refund(rng.randrange(20), "late")
                    key = rng.getrandbits(32)
                plan.append((us, name, key, msg))
                us += (500000 if types_ else
                       rng.choice([1000, 250000, 1500000]))
    return rng, plan


def random_tables(rng):
    partitions = []
    for _ in range(3000):
        kt = rng.choice(["u8", "u16", "u32", "u64", "char1", "char4",
                         "char8", "char16", "char40"])
        partitions.append((kt, table_key(rng, kt),
                           rng.choice([1, 3, 4, 5, 7, 8, 64, 100, 1000, 65536])))
    keys = [(kt, table_key(rng, kt)) for kt in
            (rng.choice(["u8", "u16", "u32", "u64", "char1", "char2",
                         "char3", "char5", "char8", "char16"])
             for _ in range(600))]
    stamps = [rng.choice([0.0, 1.5, 1764400000.123456,
                          rng.uniform(1.7e9, 1.8e9), rng.uniform(0, 4e9)])
              for _ in range(300)]
    return partitions, keys, [repr(t) for t in stamps]


def table_key(rng, key_type):
    w = key_width(key_type)
    if w > 0 or rng.random() < 0.5:
        return random_key(rng, key_type)
    alphabet = "abcXYZ019._-\u00e9\u65e5"
    k = ""
    while True:
        c = rng.choice(alphabet)
        if len((k + c).encode()) > -w or (k and rng.random() < 0.2):
            return k
        k += c


# --- the library at work ---------------------------------------------------

def write_topics(tmq, root, plan):
    twain = tmq.Twain(root)
    for m in (Order, Refund):
        twain.register_msg_cls(m)
    for name, key_type, parts, types_ in TOPICS:
        twain.create_topic(name, key_type, parts, types_)
    producers = {}
    for us, topic, key, msg in plan:
        Clock.us = us
        if topic not in producers:
            producers[topic] = twain.producer(topic)
        producers[topic].write_message(key, msg)
    return twain


def group_story(tmq, twain):
    """Two members of GROUP on GROUP_TOPIC: both join (a rebalance each),
    read thirty messages each and commit; then one starts a rebalance that
    changes nothing.  Returns the state they hold at the end."""
    t0 = utc_us(GROUP_START)

    def at(seconds):
        Clock.us = t0 + round(seconds * 10**6)

    quiet = contextlib.redirect_stdout(io.StringIO())   # commit() prints
    at(0)
    m1 = twain.consumer(GROUP_TOPIC, start_from="start", group=GROUP)
    at(1)
    m2 = twain.consumer(GROUP_TOPIC, start_from="start", group=GROUP)
    at(1.25)
    m1.heartbeat()
    at(3.25)
    m1.heartbeat()
    m2.heartbeat()
    at(4)
    m1.poll_many(30)
    m2.poll_many(30)
    at(11)
    with quiet:
        m1.commit()
        m2.commit()
    at(12)
    m1.trigger_rebal()
    at(12.25)
    m2.heartbeat()
    at(14.25)
    m1.heartbeat()
    m2.heartbeat()
    members = {}
    for m in (m1, m2):
        if m._commit_record != m1._commit_record:
            raise RuntimeError("the members disagree on the commits")
        members[str(m._consumer_id)] = sorted(m._partitions)
    return {
        "committed": {str(p): o for p, o in sorted(m1._commit_record.items())},
        "group": GROUP,
        "members": members,
        "topic": GROUP_TOPIC,
    }


def topic_names(root):
    return sorted(f[:-4] for f in os.listdir(root) if f.endswith(".twc"))


def read_back(tmq, twain, root):
    """Every message of every topic of root, as the library's consumer
    reads it: topics by name, each partition from offset 0."""
    out = []
    for topic in topic_names(root):
        with open(os.path.join(root, topic + ".twc"), encoding="utf-8") as f:
            parts = int(json.load(f)["partitions"])
        for p in range(parts):
            let = tmq.consumer.TwainMQConsumerlet(twain, topic, p, offset=0)
            while (m := let.poll()) is not None:
                out.append((topic, p, m))
    return out


def expected_line(topic, partition, m):
    d = {"topic": topic, "partition": partition, "offset": m.offset,
         "key": m.key, "timestamp": m.timestamp.timestamp()}
    msg = m.message
    if isinstance(msg, bytes):
        d["type"] = "bytes"
        d["payload_b64"] = base64.b64encode(msg).decode("ascii")
    elif isinstance(msg, str):
        d["type"] = "str"
        d["payload"] = msg
    else:
        d["type"] = getattr(type(msg), "__message_type__", type(msg).__name__)
        d["payload"] = dataclasses.asdict(msg)
    return json.dumps(d, sort_keys=True, ensure_ascii=False) + "\n"


def write_tables(tmq, out, partitions, keys, stamps):
    enc = tmq.encoding

    def key_of(key_type, text):
        return int(text) if key_width(key_type) > 0 else text

    with open(os.path.join(out, "partitions.tsv"), "w", encoding="utf-8") as f:
        f.write("key_type\tkey\tpartitions\tpartition\n")
        for kt, k, n in partitions:
            f.write("%s\t%s\t%s\t%d\n" % (kt, k, n, enc.partition_hash64(
                key_of(kt, str(k)), int(n))))
    with open(os.path.join(out, "keys.tsv"), "w", encoding="utf-8") as f:
        f.write("key_type\tkey\tencoded\n")
        for kt, k in keys:
            f.write("%s\t%s\t%s\n" % (kt, k, enc.key_to_base85(
                key_of(kt, str(k)), key_width(kt))))
    with open(os.path.join(out, "timestamps.tsv"), "w", encoding="utf-8") as f:
        f.write("unix_seconds\tencoded\n")
        for t in stamps:
            # The library encodes a datetime: the time to the microsecond.
            when = datetime.datetime.fromtimestamp(float(t),
                                                   datetime.timezone.utc)
            f.write("%s\t%s\n" % (t, enc.encode_datetime(when)))


def write_set(tmq, out, plan, tables):
    root = os.path.join(out, "root")
    os.makedirs(root)
    twain = write_topics(tmq, root, plan)
    state = group_story(tmq, twain)
    with open(os.path.join(out, "expected.jsonl"), "w", encoding="utf-8") as f:
        for topic, p, m in read_back(tmq, twain, root):
            f.write(expected_line(topic, p, m))
    with open(os.path.join(out, "group.json"), "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1, sort_keys=True)
    write_tables(tmq, out, *tables)


# --- replaying a set -------------------------------------------------------

def read_tsv(path, columns):
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    return [tuple(r[:columns]) for r in rows[1:]]


def plan_from_set(tmq, src):
    """The messages of src's root (its group's aside), in the order of
    their times, and the join tags in its group's log."""
    root = os.path.join(src, "root")
    Clock.us = utc_us(GROUP_START)   # a reader walks day files up to today
    twain = tmq.Twain(root)
    for m in (Order, Refund):
        twain.register_msg_cls(m)
    epoch = datetime.datetime(1970, 1, 1)
    plan, tags = [], []
    for topic, p, m in read_back(tmq, twain, root):
        if topic.startswith("--group--"):
            if type(m.message).__name__ == "Joined":
                tags.append(m.message.tag)
            continue
        us = (m.timestamp - epoch) // datetime.timedelta(microseconds=1)
        plan.append((us, topic, p, m.offset, m.key, m.message))
    plan.sort(key=lambda x: x[:4])
    return [(us, t, k, msg) for us, t, _, _, k, msg in plan], tags


def files_under(top):
    out = set()
    for d, _, names in os.walk(top):
        out.update(os.path.relpath(os.path.join(d, n), top) for n in names)
    return out


def compare(a, b):
    """The files under a and b that differ, or are under one only (this
    script and the README aside)."""
    fa = files_under(a) - {"README.md", "regenerate.py"}
    fb = files_under(b)
    diffs = ["%s (only in %s)" % (f, a if f in fa else b)
             for f in sorted(fa ^ fb)]
    for f in sorted(fa & fb):
        with open(os.path.join(a, f), "rb") as x, \
                open(os.path.join(b, f), "rb") as y:
            if x.read() != y.read():
                diffs.append(f)
    return diffs


def main():
    ap = argparse.ArgumentParser(
        description="Write the reference vectors with the TwainMQ library.")
    ap.add_argument("--library", default=os.environ.get("TWAINMQ_REF"),
                    help="a checkout of the TwainMQ repository at 0.1.9 "
                    "(default: $TWAINMQ_REF)")
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--replay", metavar="DIR",
                    help="write DIR's set again and compare")
    ap.add_argument("out", help="the directory to write (must not exist)")
    args = ap.parse_args()
    if not args.library:
        ap.error("name a checkout of the library: --library or TWAINMQ_REF")
    if os.path.lexists(args.out):
        ap.error("%s exists" % args.out)
    tmq = load_library(os.path.abspath(args.library))
    if args.replay:
        plan, tags = plan_from_set(tmq, args.replay)
        tmq.consumer.random = Tags(tags)
        tables = (read_tsv(os.path.join(args.replay, "partitions.tsv"), 3),
                  read_tsv(os.path.join(args.replay, "keys.tsv"), 2),
                  [r[0] for r in read_tsv(
                      os.path.join(args.replay, "timestamps.tsv"), 1)])
    else:
        rng, plan = plan_from_seed(args.seed)
        tmq.consumer.random = random.Random(rng.getrandbits(64))
        tables = random_tables(rng)
    write_set(tmq, args.out, plan, tables)
    if args.replay:
        diffs = compare(args.replay, args.out)
        for d in diffs:
            print("differs: %s" % d)
        if diffs:
            sys.exit(1)
        print("%s: the same bytes as %s" % (args.out, args.replay))


if __name__ == "__main__":
    main()
