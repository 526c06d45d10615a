// Node options for the long-running `checkd serve` (the systemd unit, install.sh,
// `npm start` and the benchmarks start it with these; test/service checks they agree).
//
// V8's young generation grows to 2 x 16 MiB semi-spaces under a ping burst and
// keeps them. The daemon's per-request garbage is small and short-lived, so
// 4 MiB semi-spaces cost no measurable throughput (bench:ping, same run) and
// keep ~20-30 MB of RSS off an idle or busy daemon (bench:ping's memory part:
// 100,000 checks, 212 → 191 MB at start, 313 → 276 MB after a ping burst).
export const SERVE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];
