# gen-records.awk: N JSON-like records of about 100 bytes with u32 keys,
# as KEY:PAYLOAD lines for tmq-put -K: (usage: awk -v n=1000000 -f ...).
BEGIN {
	srand(42)
	split("click view buy cart login logout search share", ev, " ")
	for (i = 0; i < n; i++) {
		key = int(rand() * 4294967295)
		printf "%u:{\"id\":%d,\"user\":\"u%05d\",\"event\":\"%s\",\"ts\":%.3f,\"amount\":%.2f,\"ok\":%s}\n",
		    key, i, int(rand() * 100000), ev[1 + int(rand() * 8)],
		    1764400000 + i / 1000, rand() * 1000, rand() < 0.5 ? "true" : "false"
	}
}
